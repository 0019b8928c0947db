#!/bin/bash
# timeout: 600
# The read key (tracer/fault.h): a partial-RELRO executable's .data/.bss
# share a page with the end of .got.plt, which the dynamic linker writes and
# PLT stubs read, so that page cannot carry the deny key; every read of a
# global there stopped at its int3 (GNU sort's comparison function reads
# three). With the read key every thread reads the page natively, and a
# write by the program while two threads live voids the run: the page is
# then decided per access (p0x... in the learned set).
#   - got_reads_ok (three config globals read 200,000 times by each of two
#     workers): clean, no inconclusive run, few breakpoint hits; without the
#     read key (CTS_NO_READ_KEY=1) its run is inconclusive, every read a stop;
#   - the mprotect mechanism (any machine) shows the same runs, steps, void
#     runs, faults, grants and learned set as keys;
#   - got_reads (a lost update on a global of that page): found by random,
#     pct and dpor after a void run that learns the page; its schedule
#     replays; the twin is clean under all three.
. "$(dirname "$0")/lib.sh"
plan 13

keys() { local s=$1; shift; CTS_FAULTS=1 timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
mprot() { local s=$1; shift; CTS_FAULTS=mprotect timeout -k 2 "$(slow "$s")" "$CTS" "$@"; }
sig() { jq -c '[.runs, .steps, .summary.relearned, .tracer.key_faults.faults, .tracer.key_faults.grants, .learned.lines]' "$1"; }

# The premise: the globals share a page with .got.plt.
page() { printf '%d' $(($1 / 4096)); }
plt=$(readelf -SW "$PROG/got_reads_ok" | awk '$2 == ".got.plt" { print $4, $6 }')
scale=$(nm "$PROG/got_reads_ok" | awk '$3 == "scale" { print $1 }')
plt_end=$((0x${plt%% *} + 0x${plt##* } - 1))
[ -n "$scale" ] && [ "$(page "$plt_end")" = "$(page $((0x$scale)))" ]
ok $? "got_reads_ok: scale is on the page holding the end of .got.plt"

have_keys=$(keys_here)
mech=keys
[ "$have_keys" = 0 ] && mech=mprot

$mech 300 -q -m break -s random -n 5 --seed 1 --report "$T/k.json" -- "$PROG/got_reads_ok" >/dev/null 2>&1
is $? 0 "got_reads_ok ($mech): clean"
is "$(jq '[.summary.inconclusive, (.tracer.key_faults.read_key_pages >= 1)]' -c "$T/k.json")" '[0,true]' \
	"no inconclusive run; the page carries the read key"
hits=$(jq '.tracer.breakpoint_hits' "$T/k.json")
[ "${hits:-999999999}" -lt 100000 ]
ok $? "5 runs of 2 x 200,000 x 3 reads: $hits breakpoint hits (< 100,000)"
CTS_NO_READ_KEY=1 $mech 300 -q -m break -s random -n 1 --seed 1 --report "$T/n.json" -- \
	"$PROG/got_reads_ok" >/dev/null 2>&1
is "$(jq -c '[.summary.inconclusive, (.tracer.breakpoint_hits >= 100000)]' "$T/n.json")" '[1,true]' \
	"without the read key: every read a stop, the run inconclusive"

if [ "$have_keys" = 0 ]; then
	skip 1 "no protection keys here: nothing to compare the mprotect mechanism with"
else
	mprot 300 -q -m break -s random -n 5 --seed 1 --report "$T/m.json" -- "$PROG/got_reads_ok" >/dev/null 2>&1
	is "$(sig "$T/m.json")" "$(sig "$T/k.json")" "mprotect: the same runs, steps, void runs, faults, grants and set as keys"
fi

for s in random pct dpor; do
	$mech 300 -q -m break -s $s -n 200 --seed 1 --report "$T/b.json" -o "$T/o$s" -- \
		"$PROG/got_reads" 2000 >/dev/null 2>&1
	rc=$?
	got=$(jq -c '[.tracer.key_faults.read_key_writes >= 1, (.learned.lines | test("p0x[0-9a-f]*"))]' "$T/b.json")
	is "$rc $got" "1 [true,true]" "got_reads 2000/$s: the lost update is found after the page is learned"
done
sched=$(jq -r '.bugs[0].schedule' "$T/b.json")
$mech 120 -q --replay "$sched" -- "$PROG/got_reads" 2000 >/dev/null 2>&1
is $? 1 "its schedule replays"
for s in random pct dpor; do
	$mech 300 -q -m break -s $s -n 100 --seed 1 -o "$T/k$s" -- "$PROG/got_reads_ok" 2000 >/dev/null 2>&1
	is $? 0 "got_reads_ok 2000/$s: clean"
done
done_testing
