#!/bin/bash
# Attach mode, cts-trace -p PID: every bad input leaves the process
# untouched (exit 2); a deadlock already in progress is reported with its
# wait-for cycle within a second (exit 1) and its twin is clean; a real
# atomicity violation is found under control and its twin is clean; a
# long-running program survives 1,000 attach/control/detach cycles with its
# threads, its libc text and its output unchanged; SIGINT and SIGTERM of
# cts-trace detach cleanly with no signal lost; so does SIGKILL of
# cts-trace (its tracing process detaches); job-control stops stay.
# timeout: 500
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/e2e/attach_lib.sh"
IMAGES="pause32 pause64static"
SIGNALS="INT TERM"
LATE="deadlock crash exec"
# 61 checks in line, 3 per image, 6 per signal, 3 per attach_late run and one
# more for attach_late's deadlock (its cycle) and crash (its stack).
plan $((61 + 3 * $(count $IMAGES) + 6 * $(count $SIGNALS) + 3 * 2 * $(count $LATE) + 2))

# The letters of every thread's state, e.g. "TTTT".
states() { for t in /proc/"$1"/task/*/stat; do sed 's/.*) \(.\).*/\1/' "$t"; done | tr -d '\n'; }
# md5 of libc's executable text in process $1 (where the int3s go).
libc_text() {
	local lo hi
	read -r lo hi < <(awk '$2 ~ /^r-x/ && $6 ~ /libc\.so/ { split($1, a, "-"); print a[1], a[2]; exit }' \
		"/proc/$1/maps")
	dd if="/proc/$1/mem" bs=4096 skip=$((0x$lo / 4096)) count=$(((0x$hi - 0x$lo) / 4096)) \
		2>/dev/null | md5sum | cut -d' ' -f1
}
# CPU = user + system seconds of the children waited for so far (times
# must run in this shell, not in a subshell: its children are not ours)
cpu_of_children() {
	times >"$T/times"
	CPU=$(sed -n 2p "$T/times" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); n += p[1] * 60 + p[2] } print n }')
}
stop_work() {
	exec 3>&-
	wait "$W"
}
# Kill a background process and reap it without the shell's job notice.
end_bg() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# ---- bad input: one line, exit 2, the process untouched ---------------------
p=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e "/proc/$p" ]; do p=$((p - 1)); done
out=$("$CTS" -p "$p" 2>&1); rc=$?
is "$rc" 2 "no such process: exit 2"
like "$out" "no such process: $p" "no such process: said so"
is "$(printf '%s\n' "$out" | wc -l)" 1 "no such process: one line"

(sleep 0.01 & echo $! >"$T/zpid"; exec sleep 60) &
bg="$bg $!"
for _ in $(seq 100); do [ "$(state "$(cat "$T/zpid" 2>/dev/null)")" = Z ] && break; sleep 0.05; done
z=$(cat "$T/zpid")
out=$("$CTS" -p "$z" 2>&1); rc=$?
is "$rc" 2 "zombie: exit 2"
like "$out" "process $z is a zombie" "zombie: said so"

out=$(sh -c 'exec "$0" -p $$' "$CTS" 2>&1); rc=$?
is "$rc" 2 "our own pid: exit 2"
like "$out" "is cts-trace itself" "our own pid: said so"

out=$("$CTS" -p $$ 2>&1); rc=$?
is "$rc" 2 "an ancestor: exit 2"
like "$out" "is an ancestor of cts-trace" "an ancestor: said so"

rm -f "$T/tfifo" && mkfifo "$T/tfifo"
"$PROG/attach_traced" <"$T/tfifo" >"$T/traced.out" &
tp=$!
bg="$bg $tp"
exec 4>"$T/tfifo"
for _ in $(seq 100); do [ -s "$T/traced.out" ] && break; sleep 0.05; done
child=$(cat "$T/traced.out")
out=$("$CTS" -p "$child" 2>&1); rc=$?
is "$rc" 2 "already traced: exit 2"
like "$out" "already traced by process $tp" "already traced: names the tracer"
is "$(tracer_of "$child")" "$tp" "already traced: still the other tracer's"
exec 4>&-
wait "$tp"

# Hand-made images (no 32-bit toolchain needed): each pauses for ever.
python3 - "$T" <<'EOF'
import os, struct, sys
d = sys.argv[1]
code32 = bytes.fromhex("b81d000000cd80ebf7")        # pause(); loop (int 0x80)
eh = struct.pack("<16sHHIIIIIHHHHHH", b"\x7fELF\x01\x01\x01" + bytes(9), 2, 3, 1,
                 0x08048054, 52, 0, 0, 52, 32, 1, 40, 0, 0)
ph = struct.pack("<IIIIIIII", 1, 0, 0x08048000, 0x08048000, 84 + len(code32), 84 + len(code32), 5, 0x1000)
open(d + "/pause32", "wb").write(eh + ph + code32)
code64 = bytes.fromhex("b8220000000f05ebf7")        # pause(); loop (syscall)
eh = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 2, 62, 1,
                 0x400078, 64, 0, 0, 64, 56, 1, 64, 0, 0)
ph = struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000, 0x400000, 120 + len(code64), 120 + len(code64), 0x1000)
open(d + "/pause64static", "wb").write(eh + ph + code64)
os.chmod(d + "/pause32", 0o755)
os.chmod(d + "/pause64static", 0o755)
EOF
for img in $IMAGES; do
	"$T/$img" &
	ip=$!
	bg="$bg $ip"
	sleep 0.1
	if [ "$(state "$ip")" != S ]; then
		skip 3 "$img does not run here"
		continue
	fi
	out=$("$CTS" -p "$ip" 2>&1); rc=$?
	is "$rc" 2 "$img: exit 2"
	case $img in
	pause32) like "$out" "not an x86-64 program" "$img: said so" ;;
	*) like "$out" "statically linked" "$img: said so" ;;
	esac
	is "$(state "$ip") $(tracer_of "$ip")" "S 0" "$img: untouched"
	end_bg "$ip"
done

# attach_idle: the correct twin of attach_deadlock (same locks, one order),
# idling in condition waits for ever.
"$PROG/attach_idle" &
ok_pid=$!
bg="$bg $ok_pid"
wait_all_futex "$ok_pid"
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	cp "$CTS" "$T/cts-copy" && chmod 755 "$T" "$T/cts-copy"
	out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/cts-copy" -p "$ok_pid" 2>&1); rc=$?
	is "$rc" 2 "ptrace refused (another user's process): exit 2"
	like "$out" "ptrace refused for process $ok_pid" "ptrace refused: explained (ptrace_scope when Yama is there)"
	is "$(tracer_of "$ok_pid")" 0 "ptrace refused: untouched"
else
	skip 3 "no setpriv or no user nobody"
fi

out=$("$CTS" -p "$ok_pid" -- /bin/true 2>&1); rc=$?
is "$rc" 2 "-p with a program: usage error"
out=$("$CTS" -p "$ok_pid" -m break 2>&1); rc=$?
is "$rc" 2 "-p with --mode break: usage error"
like "$out" "cannot be used in attach mode" "-p with --mode break: said so"
is "$(tracer_of "$ok_pid")" 0 "usage errors: untouched"

# ---- a deadlock in progress ---------------------------------------------------
out=$("$CTS" -p "$ok_pid" --time 0.3 -o o 2>&1); rc=$?
is "$rc" 0 "twin idling in cond waits: no bug"
is "$(state "$ok_pid") $(tracer_of "$ok_pid") $(nthreads "$ok_pid")" "S 0 3" "twin: detached, threads all there"
end_bg "$ok_pid"

"$PROG/attach_deadlock" &
d=$!
bg="$bg $d"
wait_all_futex "$d"
cpu_of_children
c0=$CPU
t0=$(date +%s.%N)
out=$("$CTS" -p "$d" --time 10 -o o 2>&1); rc=$?
t1=$(date +%s.%N)
cpu_of_children
c1=$CPU
is "$rc" 1 "deadlock in progress: exit 1"
like "$out" "BUG \(deadlock\) in process $d" "deadlock: reported"
like "$out" "thread 1 blocked in lock at t1\+0x[0-9a-f]+ \(attach_deadlock.c:17\): waits for mutex 0x[0-9a-f]+ held by thread 2" \
	"deadlock: the waiter, its call site and the holder"
like "$out" "thread 0 blocked in join at main.*waits for thread 1 to exit" "deadlock: the joiner"
like "$out" "cycle: thread 1 -> thread 2 -> thread 1" "deadlock: the launched runs' cycle text"
like "$out" "thread 2's stack \(it holds what thread 1 waits for\):" "deadlock: the holder's stack"
like "$out" "#[0-9] t2\+0x[0-9a-f]+ \(attach_deadlock.c:27\)" "deadlock: the holder's frame"
diag "deadlock: reported in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" \
	"(cpu $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b - a }') s), load $(cut -d' ' -f1 /proc/loadavg)"
is "$(awk -v a="$c0" -v b="$c1" 'BEGIN { print (b - a < 1.0) ? "yes" : "no" }')" yes \
	"deadlock: reported within a second of cpu"
# Wall time says the same only on a machine that is not overloaded.
if awk -v n="$(nproc)" '{ exit !($1 < n) }' /proc/loadavg; then
	is "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a < 1.0) ? "yes" : "no" }')" yes \
		"deadlock: reported within a second"
else
	ok 0 "# SKIP wall time on an overloaded machine (load $(cut -d' ' -f1 /proc/loadavg))"
fi
is "$(state "$d") $(tracer_of "$d") $(nthreads "$d")" "S 0 3" "deadlock: detached, threads all there"
tid2=$(ls "/proc/$d/task" | sort -n | sed -n 2p)
out=$("$CTS" -p "$tid2" --time 10 -o o 2>&1); rc=$?
is "$rc" 1 "a thread's id: attaches to its process"
like "$out" "$tid2 is a thread of process $d: attaching to process $d" "a thread's id: said so"
end_bg "$d"

# ---- a race found under control -----------------------------------------------
"$PROG/attach_race" 2>/dev/null &
r=$!
bg="$bg $r"
sleep 0.1
out=$("$CTS" -p "$r" --time 60 -o o 2>&1); rc=$?
is "$rc" 1 "atomicity violation under control: exit 1"
like "$out" "BUG \(assert\) in process $r .*assertion 'x == v' failed at attach_race.c:29" \
	"atomicity violation: the assert"
like "$out" "schedule observed: o/attach-$r-1.txt \(a live process cannot be replayed" \
	"atomicity violation: the schedule observed, saved"
[ "$(grep -vc '^#' "o/attach-$r-1.txt")" -gt 0 ]
ok $? "atomicity violation: the schedule file has the steps"
wait "$r" 2>/dev/null
is "$?" 134 "atomicity violation: after the detach the process meets its own assert"

"$PROG/attach_race_ok" &
r=$!
bg="$bg $r"
sleep 0.1
out=$("$CTS" -p "$r" --time 1 -o o 2>&1); rc=$?
is "$rc" 0 "twin under control: no bug"
like "$out" "[0-9]+ steps under control" "twin: was scheduled"
is "$(tracer_of "$r") $(nthreads "$r")" "0 3" "twin: detached, threads all there"
end_bg "$r"

# ---- 1,000 attach/control/detach cycles ---------------------------------------
start_work cycles
before=$(libc_text "$W")
t0=$(date +%s.%N)
CTS_ATTACH_CYCLES=1000 "$CTS" -q -p "$W" --time 0.005 -o cyc; rc=$?
t1=$(date +%s.%N)
diag "1000 cycles: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')"
is "$rc" 0 "1000 cycles: no bug, no error"
is "$(tracer_of "$W") $(nthreads "$W")" "0 4" "1000 cycles: detached, every thread alive"
is "$(libc_text "$W")" "$before" "1000 cycles: libc's text byte for byte as before"
stop_work
is "$?" 0 "1000 cycles: the program ends normally"
is "$(cat "$T/work-cycles.out")" "bad 0, last sum 2080, some rounds yes, signals 0" \
	"1000 cycles: output unchanged"

# ---- SIGINT, SIGTERM: detach, no signal lost or added ---------------------------
for s in $SIGNALS; do
	start_work "$s"
	before=$(libc_text "$W")
	cts_bg -p "$W" -o "o-$s" 2>"$T/err-$s"
	wait_line "$T/err-$s" "controlling process"
	ok $? "SIG$s: under control"
	for _ in $(seq 25); do kill -s RTMIN+1 "$W"; done
	sleep 0.2
	kill -s "$s" "$C"
	wait "$C"
	rc=$?
	is "$rc" 130 "SIG$s: exit 130"
	like "$(cat "$T/err-$s")" "detached from process $W" "SIG$s: detached"
	is "$(tracer_of "$W") $(nthreads "$W")" "0 4" "SIG$s: every thread alive"
	is "$(libc_text "$W")" "$before" "SIG$s: every int3 byte restored"
	for _ in $(seq 5); do kill -s RTMIN+1 "$W"; done
	stop_work
	is "$(cat "$T/work-$s.out")" "bad 0, last sum 2080, some rounds yes, signals 30" \
		"SIG$s: output unchanged, each of 30 signals delivered once"
done

# ---- SIGKILL: the tracing process detaches ---------------------------------------
# cts-trace's tracing process (a child of its own) outlives it and detaches
# the ordinary way: the process runs on with its text restored
# (tests/e2e/attach_kill.t has the details). It is never killed with us.
start_work KILL
before=$(libc_text "$W")
cts_bg -p "$W" -o o-KILL 2>"$T/err-KILL"
wait_line "$T/err-KILL" "controlling process"
kill -9 "$C"
wait "$C" 2>/dev/null
for _ in $(seq 200); do [ "$(tracer_of "$W")" = 0 ] && break; sleep 0.05; done
is "$(tracer_of "$W") $(libc_text "$W")" "0 $before" "SIGKILL: detached, every int3 byte restored"
exec 3>&-
wait "$W"
is "$?" 0 "SIGKILL: the process ran on to its end (status 0)"

# ---- job control and the end of the process while attached -----------------------
start_work stop
kill -STOP "$W"
sleep 0.1
out=$("$CTS" -p "$W" --time 0.3 -o o 2>&1); rc=$?
is "$rc" 0 "stopped process: no bug"
like "$out" "stopped \(job control\): diagnosed only, left stopped" "stopped process: said so"
is "$(states "$W") $(tracer_of "$W")" "TTTT 0" "stopped process: every thread still stopped"
kill -CONT "$W"
"$CTS" -p "$W" --time 0.6 -o o 2>/dev/null 3>&- &
C=$!
sleep 0.3
kill -STOP "$W"
wait "$C"
is "$?" 0 "stopped while attached: no bug"
is "$(states "$W") $(tracer_of "$W")" "TTTT 0" "stopped while attached: still stopped after the detach"
kill -CONT "$W"
cts_bg -p "$W" -o o 2>"$T/err-end"
wait_line "$T/err-end" "controlling process"
stop_work
is "$?" 0 "ends while attached: the program's own status"
wait "$C"
is "$?" 0 "ends while attached: no bug"
like "$(cat "$T/err-end")" "process $W exited with status 0 while attached" "ends while attached: said so"
is "$(cat "$T/work-stop.out")" "bad 0, last sum 2080, some rounds yes, signals 0" \
	"stopped and ended while attached: output unchanged"

# ---- a leader gone by pthread_exit (a zombie while the others run) ------------------
rm -f "$T/px" && mkfifo "$T/px"
"$PROG/attach_pexit" <"$T/px" &
X=$!
bg="$bg $X"
exec 6>"$T/px"
for _ in $(seq 100); do [ "$(state "$X")" = Z ] && break; sleep 0.05; done
out=$("$CTS" -p "$X" --time 0.5 -o o 2>&1 6>&-); rc=$?
is "$rc" 0 "zombie leader, live threads: attached, no bug"
like "$out" "[0-9]+ steps under control" "zombie leader: its threads were scheduled"
is "$(tracer_of "$X") $(nthreads "$X")" "0 4" "zombie leader: detached, threads all there"
exec 6>&-
wait "$X"
is "$?" 0 "zombie leader: the process ends normally"

# ---- bugs that happen under control, and an exec -------------------------------
# attach_late waits for a line, then deadlocks, crashes or execs.
for m in $LATE; do
	for v in attach_late attach_late_ok; do
		rm -f "$T/late" && mkfifo "$T/late"
		"$PROG/$v" "$m" <"$T/late" >/dev/null 2>&1 &
		L=$!
		bg="$bg $L"
		exec 5>"$T/late"
		cts_bg -p "$L" --time 30 -o o 2>"$T/err-late" 5>&-
		wait_line "$T/err-late" "controlling process"
		echo go >&5
		exec 5>&-
		wait "$C"
		rc=$?
		err=$(cat "$T/err-late")
		case $v.$m in
		attach_late.deadlock)
			is "$rc" 1 "$v $m: exit 1"
			like "$err" "BUG \(deadlock\) in process $L .*: deadlock: thread 0 waits for thread 1 to exit" \
				"$v $m: a deadlock formed under control"
			like "$err" "cycle: thread 1 -> thread 2 -> thread 1" "$v $m: its cycle"
			is "$(tracer_of "$L") $(nthreads "$L")" "0 3" "$v $m: detached, left deadlocked"
			end_bg "$L" ;;
		attach_late.crash)
			is "$rc" 1 "$v $m: exit 1"
			like "$err" "BUG \(crash\) in process $L .*killed by Segmentation fault .*fault address 0x0" \
				"$v $m: the null store"
			like "$err" "#[0-9] crasher\+0x[0-9a-f]+ \(attach_late.c:[0-9]+\)" "$v $m: its stack" ;;
		*.exec)
			is "$rc" 0 "$v $m: no bug"
			like "$err" "process $L exec'd a new program while attached" "$v $m: said so" ;;
		*)
			is "$rc" 0 "$v $m: no bug"
			like "$err" "process $L exited with status 0 while attached" "$v $m: ran to its end" ;;
		esac
		wait "$L" 2>/dev/null
		st=$?
		case $v.$m in
		attach_late.deadlock) ;;
		attach_late.crash) is "$st" 139 "$v $m: after the detach it dies of its fault, as it would have" ;;
		*) is "$st" 0 "$v $m: exit status 0" ;;
		esac
	done
done

done_testing
