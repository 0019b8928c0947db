#!/bin/bash
# timeout: 300
# MAP coverage (--coverage, --coverage-plot) and the map strategy on the
# benchmark programs whose bugs need memory accesses (break mode): map finds
# each bug, the twins stay clean, the report's "coverage" object is well
# formed and agrees with itself, the plot is an SVG, a map bug replays.
. "$(dirname "$0")/lib.sh"

B="$TOP/benchmarks/programs"
PROGRAMS="lost_update publish dcl"
plan $((3 * $(count $PROGRAMS) + 11))
for p in $PROGRAMS; do
	for v in "$p" "${p}_ok"; do
		gcc -g -O1 -pthread -w -o "$T/$v" "$B/$v.c" || ok 1 "$v: builds"
	done
	out=$("$CTS" -m break -s map -n 2000 -o "$T/o-$p" -- "$T/$p" 2>&1)
	is $? 1 "$p: map finds the bug"
	like "$out" "BUG \\(assert\\)" "$p: reported as an assert"
	out=$("$CTS" -m break -s map -n 100 -o "$T/o-$p-ok" -- "$T/${p}_ok" 2>&1)
	rc=$?
	is "$rc" 0 "${p}_ok: 100 map runs, no bug"
	[ $rc -eq 0 ] || printf '%s\n' "$out" | head -n 12 | sed 's/^/#   /'
done

# The bug's schedule replays exactly.
sched=$(ls "$T"/o-dcl/*.sched 2>/dev/null | head -n 1)
out=$("$CTS" --replay "$sched" 2>&1)
is $? 1 "dcl: the map schedule replays the bug"

# --coverage: a line at the end, a line per run with -v, the JSON object.
out=$("$CTS" -v -m break -s map -n 5 --keep-going --coverage --report "$T/c.json" \
	--coverage-plot "$T/c.svg" -o "$T/o-c" -- "$T/dcl" 2>&1)
like "$out" "cts-trace: coverage: MAP coverage [0-9]+/[0-9]+ patterns" "--coverage prints the final line"
like "$out" "run 4: MAP coverage" "-v prints one line per run"
python3 - "$T/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["coverage"]
assert c["columns"][:2] == ["run", "bugs"], c["columns"]
for k in ("map_covered", "map_estimate", "map_percent"):
    assert k in c["columns"], k
s = c["series"]
assert len(s) == d["runs"] == 5, (len(s), d["runs"])
assert [r["run"] for r in s] == list(range(5))
for a, b in zip(s, s[1:]):
    assert b["map_covered"] >= a["map_covered"] and b["bugs"] >= a["bugs"]
for r in s:
    assert 0 < r["map_covered"] <= r["map_estimate"], r
    assert abs(r["map_percent"] - 100.0 * r["map_covered"] / r["map_estimate"]) < 0.01
assert s[-1]["bugs"] == len(d["bugs"])
m = c["totals"]["map"]
assert m["covered"] == s[-1]["map_covered"] and m["estimate"] == s[-1]["map_estimate"]
assert m["estimate"] <= m["estimate_unpruned"]
assert [p["id"] for p in m["patterns"]] == list(range(1, 12))
assert sum(p["covered"] for p in m["patterns"]) == m["covered"]
assert sum(p["estimate"] for p in m["patterns"]) == m["estimate"]
assert all(p["covered"] <= p["estimate"] for p in m["patterns"])
PY
ok $? "the report's coverage object: 5 rows, monotone, covered <= estimate, 11 patterns"
python3 - "$T/c.svg" <<'PY'
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
assert doc.documentElement.tagName == "svg"
assert len(doc.getElementsByTagName("polyline")) >= 2
assert not any("http" in (e.getAttribute("href") or "") for e in doc.getElementsByTagName("*"))
PY
ok $? "--coverage-plot writes a self-contained SVG (coverage and bugs lines)"

# Any strategy can report coverage; sync mode sees no plain access.
out=$("$CTS" -m break -s random -n 3 --coverage --report "$T/r.json" -o "$T/o-r" -- "$T/lost_update_ok" 2>&1)
is $? 0 "random with --coverage on a twin: clean"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["coverage"]; assert len(c["series"]) == 3' "$T/r.json"
ok $? "random: a coverage row per run"
out=$("$CTS" -m sync -s random -n 2 --coverage -o "$T/o-s" -- "$T/lost_update_ok" 2>&1)
like "$out" "only lock-level objects are visible" "sync mode: says MAP sees no plain access"
out=$("$CTS" -m break -s random -n 2 -o "$T/o-n" --report "$T/n.json" -- "$T/lost_update_ok" 2>&1)
python3 -c 'import json,sys; assert "coverage" not in json.load(open(sys.argv[1]))' "$T/n.json"
ok $? "no coverage object without --coverage"

# Issue 29 item 5: variables only one thread touches (each worker's tally) are
# out of the estimate, so map can cover all of it and stops there.
out=$("$CTS" -m break -s map -n 100 --coverage --report "$T/f.json" -o "$T/o-f" -- "$PROG/map_full" 2>&1)
is $? 0 "map_full: clean"
python3 - "$T/f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["coverage"]["totals"]["map"]
assert m["variables"] == 3, m["variables"]
assert m["estimate"] == 8 and m["covered"] == 8, (m["covered"], m["estimate"])
assert d["runs"] < 100, d["runs"]
PY
ok $? "map_full: 8 of 8 patterns (100%) with two one-thread variables, map stops before its 100 runs"
done_testing
