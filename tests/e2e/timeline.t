#!/bin/bash
# timeout: 400
# The interleaving timeline (KIND-N.html beside the schedule): self-contained
# (no network), and rendered by a real browser, headless Chromium, whose DOM
# is checked (lanes, labels, the critical pair and the failing step
# highlighted, preemptions, blocked threads) and whose screenshot is saved in
# the test output directory (CTS_TEST_OUT, default tests/out).
. "$(dirname "$0")/lib.sh"
plan 43

OUTDIR=${CTS_TEST_OUT:-$TOP/tests/out}
mkdir -p "$OUTDIR"

"$CTS" -q -n 300 --seed 3 -o "$T/c" --report "$T/c.json" -- "$PROG/counter" 2>/dev/null
is $? 1 "counter: bug found"
h="$T/c/assert-1.html"
[ -s "$h" ] && [ "$(jq -r '.bugs[0].timeline' "$T/c.json")" = "$h" ]
ok $? "timeline written next to the schedule, named in the report"
# Self-contained: nothing fetched (the only URL is the SVG namespace name).
is "$(grep -Eo '(src|href)=|@import|url\(|https?://[^"]*' "$h" | grep -v '^http://www.w3.org/2000/svg$' | wc -l)" 0 \
	"timeline: no external resources"

"$CTS" -q -m sync -n 300 -o "$T/d" -- "$PROG/deadlock" 2>/dev/null
is $? 1 "deadlock: found"
hd="$T/d/deadlock-1.html"

# Bugs that are not minimized (--no-minimize, a race, a --check verdict) are
# run once more with call stacks: their timelines carry them too.
stacked() { # DIR: a step of thread 1 or 2 with 2 or more frames in the timeline
	cat "$1"/*.html | tr '\n' ' ' |
		grep -q 'data-thread="[12]"[^>]*data-frames="[2-9]"[^>]* stack: #0 [a-z_0-9]*+0x[0-9a-f]* ([a-z_0-9]*\.c:[0-9]*) #1 '
}
"$CTS" -q --no-minimize -s random --seed 1 -n 50 -o "$T/nm" -- "$PROG/counter" >/dev/null 2>&1
stacked "$T/nm"
ok $? "--no-minimize: the bug's timeline has call stacks"
"$CTS" -q -m break --races fail -s random --seed 1 -n 20 -o "$T/rc" -- "$PROG/counter" >/dev/null 2>&1
stacked "$T/rc"
ok $? "a race bug's timeline has call stacks"
"$CTS" -q --check false -s random --seed 1 -n 3 -o "$T/ck" -- "$PROG/counter_ok" >/dev/null 2>&1
stacked "$T/ck"
ok $? "a --check bug's timeline has call stacks"

# A race early in a long run (long_loop_bug: the lost update on `started`,
# then 1,500 steps of loops): the timeline draws the two racing accesses,
# marked, with their context, the last steps, and says what it leaves out.
# Every shared read is a step here (CTS_NO_COLD): by default the loops'
# reads of a table only read are not, and the run is short.
CTS_NO_COLD=1 "$CTS" -q -m break --races fail -s random --seed 1 -n 20 --report "$T/ll.json" -o "$T/ll" -- \
	"$PROG/long_loop_bug" 1 >/dev/null 2>&1
is $? 1 "long_loop_bug: the race is a bug"
hl="$T/ll/race-1.html"
steps=$(jq -r '.bugs[0].steps' "$T/ll.json")
pair=$(jq -r '[.bugs[0].critical_pair.events[]?.step] | map(tostring) | join(" ")' "$T/ll.json")
set -- $pair
[ "$#" -eq 2 ] && [ "$steps" -gt 1000 ] && [ "$2" -lt $((steps - 600)) ]
ok $? "long_loop_bug: the racing accesses ($pair) are far before the end ($steps steps)"
n=0
for st in $pair; do
	grep -Eq "class=\"step critical( failing)?\" data-thread=\"[12]\" data-step=\"$st\"" "$hl" && n=$((n + 1))
done
is "$n" 2 "long_loop_bug: both racing accesses are drawn and marked"
grep -q "class=\"step critical failing\" data-thread=\"[12]\" data-step=\"${2:-x}\"" "$hl"
ok $? "long_loop_bug: the second access is the failing step"
grep -q "data-step=\"$((steps - 1))\"" "$hl" && grep -q 'class="gap"' "$hl" &&
	grep -q "of them are not drawn" "$hl"
ok $? "long_loop_bug: the last step drawn too, and the steps left out are said"

# A crash (crash.c: the reader dereferences the pointer the writer cleared).
"$CTS" -q -m sync -n 300 --seed 3 -o "$T/cr" -- "$PROG/crash" 2>/dev/null
is $? 1 "crash: found"
hc="$T/cr/crash-1.html"

chrome=$(command -v chromium || command -v chromium-browser || true)
# dom FILE: the DOM after Chromium loaded the page and ran its script.
dom() {
	timeout 150 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/chrome" --dump-dom "file://$1" 2>/dev/null
}
why=""
if [ -z "$chrome" ]; then
	why="no chromium (Debian package chromium)"
elif ! dom "$h" > "$T/c.dom" || ! grep -q 'data-rendered-steps' "$T/c.dom"; then
	why="chromium does not run here"
fi
if [ -n "$why" ]; then
	skip 30 "timeline in Chromium: $why"
	done_testing
fi

steps=$(grep -o 'class="step[ "]' "$T/c.dom" | wc -l)
rendered=$(sed -n 's/.*data-rendered-steps="\([0-9]*\)".*/\1/p' "$T/c.dom")
[ "$steps" -gt 0 ] && [ "$rendered" = "$steps" ]
ok $? "Chromium laid out every step ($rendered of $steps with a size)"
is "$(sed -n 's/.*data-lanes="\([0-9]*\)".*/\1/p' "$T/c.dom")" 3 "counter: one lane per thread (3)"
like "$(tr -d '\n' < "$T/c.dom")" '>thread 0</text>.*>thread 1</text>.*>thread 2</text>' "lanes titled by thread"
like "$(cat "$T/c.dom")" '>read counter · counter.c:17</text>' "label: kind, object and source line"
like "$(cat "$T/c.dom")" 'data-op="write" data-frames="[0-9]+" data-detail="step [0-9]+ · thread [12] · write counter' "a step's details (hover title and side panel)"
is "$(grep -o 'class="step critical' "$T/c.dom" | wc -l)" 3 "the critical pair highlighted (with the first thread's write after it)"
is "$(grep -o 'class="step[a-z ]* failing' "$T/c.dom" | wc -l)" 1 "the failing step highlighted"
# Call stacks (taken in the minimized run's last re-run): each critical step
# has at least two frames, each "function (file:line)".
frames=$(grep -o 'class="step critical[^"]*" [^>]*data-frames="[0-9]*"' "$T/c.dom" | sed 's/.*data-frames="//; s/"//')
[ "$(printf '%s\n' $frames | wc -l)" -eq 3 ] && [ "$(printf '%s\n' $frames | awk '$1 < 2' | wc -l)" -eq 0 ]
ok $? "the critical pair's steps carry call stacks of 2 or more frames ($(echo $frames))"
like "$(tr '\n' ' ' < "$T/c.dom")" 'class="step critical[^>]* stack: #0 inc\+0x[0-9a-f]+ \(counter\.c:1[78]\) #1 [a-z_0-9]+' \
	"a critical step's stack in the DOM: function and file:line per frame"
[ "$(grep -o 'class="preempt"' "$T/c.dom" | wc -l)" -ge 1 ]
ok $? "preemptions marked"
like "$(cat "$T/c.dom")" '<div id="panel">end of run, after step [0-9]+ · thread 0 · assert failed' "side panel shows the failing step's details"
rm -f "$OUTDIR/timeline-counter.png"
timeout 150 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chrome" \
	--window-size=1100,800 --screenshot="$OUTDIR/timeline-counter.png" "file://$h" >/dev/null 2>&1
[ -s "$OUTDIR/timeline-counter.png" ] && [ "$(head -c 4 "$OUTDIR/timeline-counter.png" | od -An -c | tr -d ' ')" = '211PNG' ]
ok $? "screenshot saved as $OUTDIR/timeline-counter.png"

dom "$hd" > "$T/d.dom"
[ "$(grep -o 'class="step[a-z ]* blocked' "$T/d.dom" | wc -l)" -ge 2 ]
ok $? "deadlock: the blocked threads shown as blocked"
like "$(cat "$T/d.dom")" '>blocked: lock ' "deadlock: labelled blocked at their lock"
# Sync mode holds a thread in a trap stub at the call's entry: its stack is
# unwound from the caller (tracer.c tr_stack), so it still has the callers.
like "$(tr '\n' ' ' < "$T/d.dom")" 'class="step[a-z ]* blocked" data-thread="[12]" data-step="[0-9]+" data-op="lock" data-frames="[2-8]"[^>]* stack: #0 t[12]\+0x[0-9a-f]+ \(deadlock\.c:[0-9]+\) #1 ' \
	"deadlock: a blocked thread's call stack (sync mode, held in a stub)"


# Each bug kind's page: the failing step is the bug's own (the assert, the
# crash site, the second racing access), drawn red, with the source line.
# The page records the failing step's computed fill (data-failing-fill).
shot() { # HTML PNG
	rm -f "$2"
	timeout 150 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/chrome" --window-size=1100,800 --screenshot="$2" "file://$1" >/dev/null 2>&1
	[ -s "$2" ] && [ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = '211PNG' ]
}
red='data-failing-fill="rgb\(247, 181, 181\)"'
# assert (counter.c:30, after the joins): the assert is the failing step, not the last join
failing=$(grep -o 'class="step[a-z ]* failing[a-z ]*" data-thread="[0-9]*" data-step="[0-9]*" data-op="[a-z_]*"' "$T/c.dom")
like "$failing" 'failing site" data-thread="0" data-step="[0-9]+" data-op="assert"' "assert: the failing step is the assert ($failing)"
like "$(cat "$T/c.dom")" '>assert failed · counter.c:30</text>' "assert: labelled with the assert's line"
like "$(cat "$T/c.dom")" "$red" "assert: the failing step is drawn red"
like "$(tr '\n' ' ' < "$T/c.dom")" 'data-op="assert" data-frames="[2-8]"[^>]* stack: #0 main\+0x[0-9a-f]+ \(counter\.c:30\) #1 ' \
	"assert: its call stack starts at the assert in main"
shot "$h" "$OUTDIR/timeline-assert.png"
ok $? "assert: screenshot saved as $OUTDIR/timeline-assert.png"

dom "$hc" > "$T/cr.dom"
failing=$(grep -o 'class="step[a-z ]* failing[a-z ]*" data-thread="[0-9]*" data-step="[0-9]*" data-op="[a-z_]*"' "$T/cr.dom")
like "$failing" 'failing site" data-thread="1" data-step="[0-9]+" data-op="crash"' "crash: the failing step is the crash ($failing)"
like "$(cat "$T/cr.dom")" '>crash · crash.c:24</text>' "crash: the crash site (crash.c:24) labelled in the crashing thread's lane"
unlike "$(cat "$T/cr.dom")" 'stands at: start|class="step[a-z ]*pending[a-z ]*" data-thread="1"' \
	"crash: the crashing thread does not end in a stale 'stands at: start'"
like "$(cat "$T/cr.dom")" "$red" "crash: the failing step is drawn red"
like "$(tr '\n' ' ' < "$T/cr.dom")" 'data-op="crash" data-frames="[2-8]"[^>]* stack: #0 reader\+0x[0-9a-f]+ \(crash\.c:24\) #1 ' \
	"crash: its call stack starts at the faulting line"
shot "$hc" "$OUTDIR/timeline-crash.png"
ok $? "crash: screenshot saved as $OUTDIR/timeline-crash.png"

# race (counter in break mode, --races fail): both accesses marked, the
# second one failing, not a thread_exit
dom "$T/rc/race-1.html" > "$T/rc.dom"
failing=$(grep -o 'class="step[a-z ]* failing[a-z ]*" data-thread="[0-9]*" data-step="[0-9]*" data-op="[a-z_]*"' "$T/rc.dom")
like "$failing" 'class="step critical failing" data-thread="[12]" data-step="[0-9]+" data-op="(read|write|rmw)"' \
	"race: the failing step is the second racing access ($failing)"
is "$(grep -Eo 'class="step critical[a-z ]*" data-thread="[12]" data-step="[0-9]+" data-op="(read|write|rmw)"' "$T/rc.dom" | wc -l)" 2 \
	"race: both racing accesses highlighted"
like "$(cat "$T/rc.dom")" "$red" "race: the failing step is drawn red"
shot "$T/rc/race-1.html" "$OUTDIR/timeline-race.png"
ok $? "race: screenshot saved as $OUTDIR/timeline-race.png"

done_testing
