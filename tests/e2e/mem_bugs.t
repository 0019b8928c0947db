#!/bin/bash
# timeout: 600
# Memory-level bugs (no lock protects the data) are found in break and step
# mode by random and pct, replayed 10/10; race reports name the right lines.
. "$(dirname "$0")/lib.sh"
PROGRAMS="counter publish"
MODES="break step"
STRATEGIES="random pct"
WATCH_MODES="sync break"
plan $((3 * $(count $PROGRAMS) * $(count $MODES) * $(count $STRATEGIES) + 6 * $(count $WATCH_MODES) + 8))

for p in $PROGRAMS; do
	for m in $MODES; do
		for s in $STRATEGIES; do
			d="$T/$p-$m-$s"
			out=$("$CTS" -m "$m" -s "$s" --seed 3 -n 3000 -o "$d" -- "$PROG/$p" 2>&1)
			is "$?" 1 "$p/$m/$s: bug found"
			like "$out" "BUG \\(assert\\)" "$p/$m/$s: failed assert reported"
			f="$d/assert-1.sched"
			good=0
			for i in 1 2 3 4 5 6 7 8 9 10; do
				r=$("$CTS" --replay "$f" 2>&1)
				[ $? -eq 1 ] && printf '%s' "$r" | grep -q "replay reproduced the bug" &&
					good=$((good + 1))
			done
			is "$good" 10 "$p/$m/$s: replay reproduces it 10/10"
		done
	done
done

# The race detector names both lines of the unprotected increment.
l1=$(grep -n '^[[:space:]]*tmp = counter;' "$TOP/tests/programs/counter.c" | cut -d: -f1)
l2=$(grep -n '^[[:space:]]*counter = tmp + 1;' "$TOP/tests/programs/counter.c" | cut -d: -f1)
out=$("$CTS" -m break --races report --keep-going -n 200 -o "$T/races" -- "$PROG/counter" 2>&1)
like "$out" "data race on counter \\(0x[0-9a-f]+\\) \\(4 bytes\\): thread [12] (write|read) at inc\\+0x[0-9a-f]+ \\(counter.c:($l1|$l2)\\) vs thread [12] (write|read) at inc\\+0x[0-9a-f]+ \\(counter.c:($l1|$l2)\\)" \
	"race report names counter.c:$l1 / :$l2"
like "$out" "counter.c:$l2.*counter.c:$l2" "write/write race on line $l2 reported"
out=$("$CTS" -m break --races fail -n 200 -o "$T/racefail" -- "$PROG/counter" 2>&1)
is "$?" 1 "--races fail: a race is a bug"
[ -s "$T/racefail/race-1.sched" ]
ok $? "--races fail: the race's schedule is saved"
out=$("$CTS" -m break --races report -n 300 -o "$T/noraces" -- "$PROG/counter_ok" 2>&1)
is "$?" 0 "counter_ok: no bug"
if printf '%s' "$out" | grep -q "data race"; then ok 1 "counter_ok: no race reported"; else ok 0 "counter_ok: no race reported"; fi

# --watch reports every access to the variable, with the right lines.
wl() { grep -n "WATCH-LINE: $1" "$TOP/tests/programs/watch.c" | cut -d: -f1; }
for m in $WATCH_MODES; do
	out=$("$CTS" -m "$m" -n 1 --watch watched -o "$T/w" -- "$PROG/watch" 2>&1)
	is "$?" 0 "watch/$m: clean run"
	like "$out" "watch watched: thread 0 write at main.*\\(watch.c:$(wl main-write)\\) value 1" "watch/$m: main's write"
	like "$out" "watch watched: thread 1 read at a.*\\(watch.c:$(wl a-read)\\)" "watch/$m: thread A's read"
	like "$out" "watch watched: thread 2 write at b.*\\(watch.c:$(wl b-write)\\) value 2" "watch/$m: thread B's write"
	like "$out" "watch watched: thread 0 read at main.*\\(watch.c:$(wl main-read)\\)" "watch/$m: main's read"
	is "$(printf '%s\n' "$out" | grep -c 'watch watched:')" 4 "watch/$m: exactly 4 accesses"
done
out=$("$CTS" -n 1 --watch no_such_symbol -- "$PROG/watch" 2>&1)
is "$?" 2 "watch: unknown symbol is a usage error (exit 2)"
like "$out" "no such symbol" "watch: unknown symbol says so"
done_testing
