#!/bin/bash
# timeout: 120
# getrandom(2) is deterministic under cts-trace (tracer/entropy.c): every run
# draws the same bytes, so Python's randomized hash seed, and the order of
# its dicts and sets, is the same in every run and in a replay.
. "$(dirname "$0")/lib.sh"
plan 4

out=$("$CTS" -m sync -s random -n 3 --seed 1 --output -o "$T/o" -- \
	/usr/bin/python3 -I -c 'print(hash("cts"), sorted(set("abcdefgh")) == list("abcdefgh"))' \
	2>/dev/null)
is $? 0 "python3 under cts-trace: 3 runs, exit 0"
is "$(printf '%s\n' "$out" | wc -l)" 3 "3 runs printed"
is "$(printf '%s\n' "$out" | sort -u | wc -l)" 1 "the same hash in every run"
a=$(/usr/bin/python3 -I -c 'print(hash("cts"))') b=$(/usr/bin/python3 -I -c 'print(hash("cts"))')
[ "$a" != "$b" ]
ok $? "natively the hash differs from run to run (the seed is random)"
done_testing
