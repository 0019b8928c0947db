#!/bin/bash
# timeout: 300
# HaPSet-guided search on the live tracer (strategies/hapset.h): the
# paper-shaped programs' bugs found with a schedule that replays, their
# twins clean with the guided search complete, the report's "hapset" block
# and its per-run series, the sets saved and loaded, usage errors.
. "$(dirname "$0")/lib.sh"

# 17 checks in line, 4 in each of 4 hs calls.
plan $((18 + 5 + 4 * 5))

# hs NAME KIND ARGS...: the bug, its replay, its twin.
hs() {
	local p=$1 kind=$2
	shift 2
	out=$("$CTS" -m break "$@" -t 60 -o "$T/$p" --report "$T/$p.json" -- "$PROG/$p" 2>&1)
	is $? 1 "$p ($*): bug found (exit 1)"
	like "$out" "BUG \\($kind\\)" "$p ($*): reported as $kind"
	good=0
	for i in 1 2 3; do
		r=$("$CTS" --replay "$T/$p/$kind-1.sched" 2>&1)
		[ $? -eq 1 ] && printf '%s' "$r" | grep -q "BUG ($kind)" && good=$((good + 1))
	done
	is "$good" 3 "$p ($*): replay reproduces it 3/3"
	# covered orders are deferred, not dropped: exhausting a twin takes
	# as long as plain dpor, so 300 runs of it
	out=$("$CTS" -m break "$@" -n 300 -t 60 -o "$T/${p}_ok" --report "$T/${p}_ok.json" \
		-- "$PROG/${p}_ok" 2>&1)
	is $? 0 "${p}_ok ($*): clean (exit 0)"
}

hs hs_aget assert -s hapset
is "$(jq -r '.hapset.pairs > 0 and (.hapset.series | length) == .runs and
	(.hapset.series[-1].pairs == .hapset.pairs)' "$T/hs_aget_ok.json")" true \
	"report: hapset pairs and one cumulative point per run"
is "$(jq -r '[.hapset.series[].pairs] | . == sort' "$T/hs_aget_ok.json")" true \
	"report: the series never shrinks"
like "$(jq -r .complete "$T/hs_aget_ok.json")" "true|false" "report: complete is stated"
# break mode on memory ownership: the guided search learns shared lines
# and begins again on them (its pairs forgotten), as the plain searches do
like "$(jq -r .learned.lines "$T/hs_aget_ok.json")" "^ownk?:(p?0x|none)" \
     "report: HaPSet guidance runs with ownership of lines (a learned set)"
hs hs_aget assert -s dpor --guide hapset
hs hs_aget assert -s pcb --bound 2 --guide hapset
hs hs_pbzip2 deadlock -s hapset
# Issue 29 item 2: every route to hs_late's bug is covered by the learning
# runs; deferring instead of pruning still finds it, the paper's pruning
# (--hapset-prune) exhausts without it and says so.
hs hs_late assert -s hapset
out=$("$CTS" -m break -s hapset --hapset-prune -o "$T/pr" --report "$T/pr.json" \
	-- "$PROG/hs_late" 2>&1)
is $? 0 "hs_late --hapset-prune: the bug pruned away (exit 0)"
like "$out" "HaPSet-exhausted" "--hapset-prune: the summary says HaPSet-exhausted"
printf '%s' "$out" | grep -q '(complete)'
is $? 1 "--hapset-prune: never '(complete)'"
is "$(jq -r '.complete == false and .hapset.prune and .hapset.pruned > 0' "$T/pr.json")" true \
	"--hapset-prune: report complete false, prune true, pruned > 0"
is "$(jq -r '.hapset.prune == false and .hapset.deferred > 0' "$T/hs_late.json")" true \
	"hs_late -s hapset: the report counts deferred choices"

# Persistence: a learning run saves its sets, a guided run of the twin
# starts from them and needs no more runs than from scratch.
"$CTS" -q -m break -s hapset --hapset-learn 10 -n 10 --hapset-save "$T/h.json" \
	-o "$T/l" -- "$PROG/hs_aget_ok" >/dev/null 2>&1
is $? 0 "--hapset-save after 10 learning runs (exit 0)"
is "$(jq -r '.hapset == 1 and (.pairs | length) > 0 and (.pairs[0].stmt.at | test(":[0-9]+$"))' \
	"$T/h.json")" true "--hapset-save: pairs of statements by source position"
"$CTS" -q -m break -s dpor --guide hapset --hapset-prune --report "$T/s.json" -o "$T/s" \
	-- "$PROG/hs_aget_ok" >/dev/null 2>&1
"$CTS" -q -m break -s dpor --guide hapset --hapset-prune --hapset-load "$T/h.json" \
	--report "$T/ld.json" \
	-o "$T/ld" -- "$PROG/hs_aget_ok" >/dev/null 2>&1
is $? 0 "--hapset-load: clean"
is "$(jq -r ".runs <= $(jq -r .runs "$T/s.json")" "$T/ld.json")" true \
	"--hapset-load: no more runs than continuous learning alone (both --hapset-prune)"

# --coverage under any strategy: random's runs learn alongside exactly what
# hapset's 10 learning runs (the same random runs, seed 2) learn for guidance.
"$CTS" -q -m break -s hapset --seed 2 -n 10 --coverage --report "$T/cv-hapset.json" \
	-o "$T/cv-hapset" -- "$PROG/hs_pbzip2_ok" >/dev/null 2>&1
"$CTS" -q -m break -s random --seed 2 -n 10 --coverage --report "$T/cv-random.json" \
	-o "$T/cv-random" -- "$PROG/hs_pbzip2_ok" >/dev/null 2>&1
is $? 0 "random --coverage on hs_pbzip2_ok: clean"
q='[.coverage.series[] | [.hapset_statements, .hapset_pairs]]'
is "$(jq -c "$q" "$T/cv-random.json")" "$(jq -c "$q" "$T/cv-hapset.json")" \
	"--coverage: random's HaPSet series equals hapset's learning over the same runs"
is "$(jq -r '.coverage.series[-1].hapset_pairs > 0' "$T/cv-random.json")" true \
	"--coverage: random's good runs teach HaPSet pairs"
# A replay counts its run: one row, the MAP patterns of hs_aget's bug run, no
# HaPSet pair (a buggy run is no good run).
"$CTS" --replay "$T/hs_aget/assert-1.sched" --coverage --report "$T/rp.json" >/dev/null 2>&1
is $? 1 "--replay --coverage: the bug reproduced (exit 1)"
is "$(jq -r '(.coverage.series | length) == 1 and .coverage.series[0].map_covered > 0 and
	.coverage.series[0].hapset_pairs == 0 and .coverage.series[0].bugs == 1' "$T/rp.json")" true \
	"--replay --coverage: one row with the run's MAP patterns, no pair from a buggy run"

# Usage errors.
"$CTS" -q --hapset-save "$T/x.json" -- "$PROG/hs_aget_ok" 2>/dev/null
is $? 2 "--hapset-save without hapset: usage error"
"$CTS" -q -s random --guide hapset -- "$PROG/hs_aget_ok" 2>/dev/null
is $? 2 "--guide hapset with random: usage error"
"$CTS" -q -s racefuzzer --guide hapset -- "$PROG/hs_aget_ok" 2>/dev/null
is $? 2 "--guide hapset with racefuzzer: usage error"
"$CTS" -q --guide map -- "$PROG/hs_aget_ok" 2>/dev/null
is $? 2 "--guide map: usage error"
echo '{"pairs": []}' > "$T/bad.json"
"$CTS" -q -s hapset --hapset-load "$T/bad.json" -- "$PROG/hs_aget_ok" 2>/dev/null
is $? 2 "--hapset-load a file --hapset-save did not write: usage error"
done_testing
