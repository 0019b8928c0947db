#!/bin/bash
# timeout: 300
# The program's own seccomp filters (issue 27 item 13, hostile.md D13).
# cts-trace holds a thread that must wait at its pthread call, so the futex
# call it would make natively never reaches the kernel, where the program's
# filters would see it: seccomp_kill (SECCOMP_RET_KILL_PROCESS at futex)
# died natively and never under cts-trace. Now the tracer copies each filter
# the program installs and runs it on the futex call such a thread would
# make (tracer/pfilter.h): the kill is found in every mode and strategy, as
# is glibc's abort on EPERM in pthread_join (seccomp_errno), TRAP without a
# handler kills as KILL does, USER_NOTIF (which needs the program's own
# supervisor) is refused with one line and exit 2, and the twin's harmless
# filter (it hands getppid to a tracer, so natively getppid fails with
# ENOSYS, which the twin checks) comes back clean.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/corpus/lib.sh"

MODES="sync break"
STRATEGIES="random pct dpor"
plan $(($(count $MODES) * $(count $STRATEGIES) * 5 + 7))

"$PROG/seccomp_kill_ok"
is $? 0 "seccomp_kill_ok natively: getppid fails with ENOSYS (its filter asks for a tracer)"

for m in $MODES; do
	for s in $STRATEGIES; do
		cts_run 120 -m "$m" -s "$s" --seed 1 -n 10 --timeout "$(slow 10)" -o "$T/k" -- \
			"$PROG/seccomp_kill"
		[ "$RC" -eq 1 ] && [ "$KIND" = crash ] &&
			jq -e '.bugs[0].message | test("Bad system call")' "$T/report.json" >/dev/null
		check $? "seccomp_kill/$m/$s" "the process killed by SIGSYS is found within 10 runs"
		printf '%s\n' "$ERR" | grep -q 'seccomp filter returns SECCOMP_RET_KILL_PROCESS for futex(.*), which pthread_\(join\|mutex_lock\) makes natively here'
		check $? "seccomp_kill/$m/$s/why" "the report says which filter action, which call and why it is made"
		cts_run 120 -m "$m" -s "$s" --seed 1 -n 10 --timeout "$(slow 10)" -o "$T/e" -- \
			"$PROG/seccomp_errno"
		[ "$RC" -eq 1 ] && [ "$KIND" = crash ] &&
			jq -e '.bugs[0].message | test("Aborted")' "$T/report.json" >/dev/null &&
			printf '%s\n' "$ERR" | grep -q 'SECCOMP_RET_ERRNO .*glibc aborts'
		check $? "seccomp_errno/$m/$s" "glibc's abort on EPERM from its futex wait in pthread_join is found"
		cts_run 120 -m "$m" -s "$s" --seed 1 -n 10 --timeout "$(slow 10)" --fail-on-exit \
			-o "$T/ok" -- "$PROG/seccomp_kill_ok"
		clean
		check $? "seccomp_kill_ok/$m/$s" "clean: no bug, exit status 0 (getppid failed with ENOSYS), every run completed"
		[ "$RUNS_DONE" -ge 2 ]
		check $? "seccomp_kill_ok/$m/$s/runs" "several runs ($RUNS_DONE)"
	done
done

cts_run 60 -s random --seed 1 -n 10 -o "$T/t" -- "$PROG/seccomp_kill" trap
[ "$RC" -eq 1 ] && [ "$KIND" = crash ] && printf '%s\n' "$ERR" | grep -q 'SECCOMP_RET_TRAP'
check $? "seccomp_kill trap" "SECCOMP_RET_TRAP with no SIGSYS handler kills as natively"

cts_run 60 -s random --seed 1 -n 10 -o "$T/n" -- "$PROG/seccomp_kill" notif
[ "$RC" -eq 2 ] && [ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ] &&
	printf '%s\n' "$ERR" | grep -q 'SECCOMP_RET_USER_NOTIF for futex.*cannot apply it'
check $? "seccomp_kill notif" "SECCOMP_RET_USER_NOTIF: one line, exit status 2"

cts_run 60 -s random --seed 1 -n 10 -o "$T/r" -- "$PROG/seccomp_kill"
sched=$(jq -r '.bugs[0].schedule // ""' "$T/report.json")
out=$(timeout -k 5 60 "$CTS" --replay "$sched" 2>&1 </dev/null >/dev/null)
st=$?
[ $st -eq 1 ] && printf '%s\n' "$out" | grep -q 'BUG (crash).*Bad system call'
ok $? "seccomp_kill: the saved schedule replays the kill"

# The filter is the program's, per thread as the kernel keeps it: a run
# forked from the fork server starts without the last run's filter.
cts_run 60 -s random --seed 1 -n 10 --keep-going -o "$T/kg" -- "$PROG/seccomp_kill"
is "$(jq -r '[.bugs[].kind] | unique | join(",")' "$T/report.json")" crash \
	"--keep-going: every run ends the same way (each installs its filter afresh)"
is "$RUNS_DONE" 10 "--keep-going: 10 runs"

# The failed launch's own filter is still let through (its fourth argument
# says it is cts-trace's, launch.c): a program whose exec fails is one line
# and exit status 2, no hang.
printf '#!/nonexistent/interpreter\n' >"$T/badscript"
chmod +x "$T/badscript"
cts_run 30 -- "$T/badscript"
[ "$RC" -eq 2 ] && printf '%s\n' "$ERR" | grep -q "cannot run .*badscript"
ok $? "an exec that fails: one line, exit status 2"
done_testing
