#!/bin/bash
# timeout: 60
# Run isolation (issue 27 item 1): what one run writes in the working
# directory, TMPDIR and /dev/shm never reaches another run (explored, void,
# minimization candidates, the timeline's run, replays, --check) and nothing
# stays behind; --check sees its run's files; cts-trace's own outputs land in
# the real directory; --no-isolate is the old behaviour, recorded in the
# schedule so that a replay does the same.
. "$(dirname "$0")/lib.sh"

plan 32

P="$PROG/files_ok"
W="$T/w"
export TMPDIR="$T/tmp"
mkdir -p "$W" "$TMPDIR"
cd "$W" || exit 1
SEM=/dev/shm/sem.files_ok.sem
at_exit "rm -f $SEM"
rm -f "$SEM"
# What the directories hold besides cts-trace's own outputs.
left() { (cd "$W" && ls -A | grep -v -e '^o$' -e '\.json$'; ls -A "$TMPDIR"; ls "$SEM" 2>/dev/null) | tr '\n' ' '; }

# files_ok creates its files with O_EXCL: a file left by any earlier run
# (including a void one: break mode's cold reads throw one away) fails it.
"$CTS" -q -n 60 -o o --report r.json -- "$P"
is $? 0 "files_ok: 60 isolated runs, each starts from the real directories"
[ "$(jq '.summary.relearned' r.json)" -ge 1 ]
ok $? "files_ok: a run was void and ran again ($(jq '.summary.relearned' r.json))"
is "$(left)" "" "nothing a run wrote is left in the working directory, TMPDIR or /dev/shm"
"$CTS" -q -n 5 -m sync -o o -- "$P"
is $? 0 "a second invocation in the same directory: clean"
"$CTS" -q -n 5 --no-fork-server -o o -- "$P"
is $? 0 "--no-fork-server: every exec'd run isolated too"
"$CTS" -q -j 2 -n 20 -o o -- "$P"
is $? 0 "--jobs 2: each worker's runs isolated"
is "$(left)" "" "nothing left after --no-fork-server and --jobs"

# --check runs in its run's files; what it writes goes with them.
"$CTS" -q -n 10 -o o --check 'test -s files_ok.out && test -e "$TMPDIR/files_ok.tmp" &&
	test -e /dev/shm/sem.files_ok.sem && test ! -e from-check && touch from-check' -- "$P"
is $? 0 "--check sees the run's files, not an earlier check's"
is "$(left)" "" "nothing the checks wrote is left"

# A bug found by --check: the schedule, the report, the SARIF and the
# timeline land in the real directory; minimization and the timeline's run
# start from the real directories too (a leftover would fail them early).
out=$("$CTS" -n 10 -o o --report r.json --sarif r.sarif.json \
	--check 'echo x > check.out; grep -q two files_ok.out && false' -- "$P" 2>&1)
is $? 1 "a --check bug: exit 1"
like "$out" "BUG \\(check\\)" "reported as a check bug"
ok "$([ -s o/check-1.sched ] && [ -s o/check-1.html ] && [ -s r.json ] && [ -s r.sarif.json ] \
	&& echo 0 || echo 1)" "-o's schedule and timeline, --report and --sarif in the real directory"
is "$(left)" "" "the check's and the runs' files are gone"
is "$(sed -n 's/^isolate //p' o/check-1.sched)" yes "the schedule records isolate yes"
for i in 1 2 3; do
	"$CTS" -q --check 'grep -q two files_ok.out && false' --replay o/check-1.sched >/dev/null 2>&1
	is $? 1 "replay $i of the check bug reproduces it"
done
is "$(left)" "" "nothing left by the replays"

# --no-isolate: the old behaviour. The first run's files fail the second.
out=$("$CTS" -n 5 --no-isolate -o o2 -- "$P" 2>&1)
is $? 1 "--no-isolate: the second run sees the first one's files"
# (run 0 again when its first attempt was void: the attempt's files stay too)
like "$out" "BUG \\(assert\\) in run [01] " "as a failed assert in the next run (or attempt)"
ok "$([ -e files_ok.out ] && echo 0 || echo 1)" "--no-isolate: the files stay"
is "$(sed -n 's/^isolate //p' o2/assert-1.sched)" no "the schedule records isolate no"
"$CTS" -q --replay o2/assert-1.sched >/dev/null 2>&1
is $? 1 "its replay is not isolated either: it sees the files and fails again"
out=$("$CTS" --isolate --replay o2/assert-1.sched 2>&1)
like "$out" "overrides the schedule's \"isolate no\"" "--isolate over isolate no: a warning"
rm -f files_ok.out "$TMPDIR/files_ok.tmp" "$SEM"

# Without the rights to isolate: a warning, or exit 2 with --isolate.
# Copies of cts-trace and the program in a directory nobody may enter: the
# checkout itself may not be (a clone in a mode-700 temporary directory).
mkdir -p "$T/nobody" && chmod 777 "$T" "$T/nobody" "$TMPDIR"
cp "$CTS" "$PROG/counter_ok" "$T/nobody/" && chmod 755 "$T/nobody/cts-trace" "$T/nobody/counter_ok"
cd "$T/nobody" || exit 1
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups ./cts-trace -n 3 -m sync -- ./counter_ok 2>&1)
	is $? 0 "unprivileged: runs all the same"
	like "$out" "warning: runs are not isolated \\(cannot make a mount namespace" "unprivileged: warns that runs are not isolated"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups ./cts-trace --isolate -n 3 -- ./counter_ok 2>&1)
	is $? 2 "unprivileged with --isolate: exit 2"
	is "$(printf '%s\n' "$out" | wc -l)" 1 "unprivileged with --isolate: one line"
else
	skip 4 "setpriv cannot drop to nobody here"
fi
cd "$W" || exit 1

out=$("$CTS" -p $$ --no-isolate 2>&1)
is $? 2 "--no-isolate with -p: usage error"
like "$out" "attach mode starts no run" "says why"

# The issue's reproduction: 7za's void first attempt wrote a partial o.7z
# that failed the re-run's check, and the timeline's run left one behind.
if command -v 7za >/dev/null; then
	mkdir -p "$T/7z" && cd "$T/7z" && echo hello > in.txt
	out=$("$CTS" -m break -n 3 --timeout "$(slow 20)" --check '7za t o.7z >/dev/null' -o o \
		-- 7za a -mmt4 o.7z in.txt 2>&1)
	is $? 0 "7za a -mmt4 with a --check that tests the archive: no false bug"
	is "$(ls -A | tr '\n' ' ')" "in.txt " "7za: no partial o.7z left behind"
	cd "$W" || exit 1
else
	skip 2 "7za is not installed (p7zip-full)"
fi
done_testing
