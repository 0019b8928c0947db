#!/bin/bash
# timeout: 300
# Library calls as events (break mode): in each lib_* program the only
# conflicting access happens inside libc (memset, memcpy, strcmp/strcpy,
# strlen/free, free vs. a read, realloc vs. a read). dpor finds each bug and
# its schedule replays it; each locked twin is clean and complete. A free is
# no race with a later access: the block may have been allocated again unseen. A call
# into a function cts does not model (swab) makes dpor say it is not complete;
# a call into a --trace-lib library's own functions does not.
. "$(dirname "$0")/lib.sh"

field() { sed -n "s/.*\"$2\": \\([a-z0-9]*\\).*/\\1/p" "$1" | head -n 1; }
BUGS="lib_memset:crash lib_memcpy:assert lib_strcmp:assert lib_free:crash
      lib_use_after_free:assert lib_realloc:assert"
SPIN_SEARCHES="pcb dpor"
plan $((6 * $(count $BUGS) + 2 * $(count $SPIN_SEARCHES) + 27))

for pk in $BUGS; do
	p=${pk%%:*} k=${pk#*:}
	out=$("$CTS" -m break -s dpor --report "$T/$p.json" -o "$T/$p" -- "$PROG/$p" 2>&1)
	is $? 1 "$p: dpor finds the bug"
	like "$out" "BUG \\($k\\)" "$p: reported as $k"
	runs=$(field "$T/$p.json" runs)
	ok $(( ${runs:-4} > 3 )) "$p: within 3 schedules"
	r=$("$CTS" --replay "$T/$p/$k-1.sched" 2>&1)
	is $? 1 "$p: the schedule replays the bug"

	"$CTS" -q -m break -s dpor --report "$T/${p}_ok.json" -o "$T/d" -- "$PROG/${p}_ok"
	is $? 0 "${p}_ok: dpor finds no bug"
	is "$(field "$T/${p}_ok.json" complete)" true "${p}_ok: dpor complete"
done

# The race detector sees the library call as a range access.
out=$("$CTS" -m break -s dpor --races report --keep-going -o "$T/r" -- "$PROG/lib_memset" 2>&1)
l=$(grep -n 'memset(&state' "$PROG/lib_memset.c" | cut -d: -f1)
like "$out" "data race on state .* lib_write at release\\+0x[0-9a-f]+ \\(lib_memset.c:$l\\)" \
	"race report names memset's line ($l) as a lib_write"
out=$("$CTS" -m break -s dpor --races fail -o "$T/rf" -- "$PROG/lib_realloc_ok" 2>&1)
is $? 0 "lib_realloc_ok: no race (the allocator's reuse of a block is not one)"
# A block freed by one thread comes back to another through malloc called by
# a function pointer (no PLT stub, no alloc event): a new life, not a race.
out=$("$CTS" -m break -s random -n 20 --races fail --output -o "$T/ru" -- "$PROG/lib_reuse_ok" 2>&1)
is $? 0 "lib_reuse_ok: no race (a free, then the block allocated again unseen)"
like "$out" "reused" "lib_reuse_ok: some schedule got the freed block back"

# Code without PLT stubs (-fno-plt, as Rust is built) calls libc through
# `call *slot(%rip)`: those call sites are library calls too. The buggy twin's
# memset is seen (the race is found, with its line); the ok twin's free and
# malloc are seen, so a block coming back to another thread is a new life.
out=$("$CTS" -m break -s dpor --races fail -o "$T/gr" -- "$PROG/got_reuse" 2>&1)
is $? 1 "got_reuse: the memset called through the GOT races with main's write"
l=$(grep -n 'memset(arg' "$PROG/got_reuse.c" | cut -d: -f1)
like "$out" "data race on .* lib_write at worker\\+0x[0-9a-f]+ \\(got_reuse.c:$l\\)" \
	"got_reuse: the race names memset's line ($l) as a lib_write"
out=$("$CTS" -m break -s random -n 30 --races fail --output -o "$T/gro" -- "$PROG/got_reuse_ok" 2>&1)
is $? 0 "got_reuse_ok: no race (free and malloc seen at their GOT call sites)"
like "$out" "reused" "got_reuse_ok: some schedule got the freed block back"
like "$out" "free [0-9]+, alloc [0-9]+" "got_reuse_ok: free and alloc are events"

# A 1 GiB block malloc'd and freed while two threads live: its range events
# cost one pass over what the spin tracker and the race detector hold, not
# a lookup per 8 bytes (each run stalled past --timeout, minutes on end).
for s in random dpor; do
	out=$(timeout 60 "$CTS" -m break --races fail -s $s -n 4 --timeout 10 --report "$T/ba.json" \
		-o "$T/ba" -- "$PROG/big_alloc" 2>&1)
	is $? 0 "big_alloc: $s finds no bug, no race"
	is "$(jq -r '.inconclusive.count' "$T/ba.json")" 0 "big_alloc: $s: every run completes"
done
# The twin frees its block while a worker writes it: the write the detector
# holds still meets the free.
out=$(timeout 60 "$CTS" -m break --races fail -s dpor --keep-going --timeout 10 -o "$T/bar" \
	-- "$PROG/big_alloc_race" 2>&1)
is $? 1 "big_alloc_race: dpor finds the bug"
like "$out" "BUG \\(race\\).* write at worker .* free at main" "big_alloc_race: the free races with the write"

# What cts cannot see makes a search not complete, and says why.
l=$(grep -n 'swab(zeros' "$PROG/lib_untraced.c" | cut -d: -f1)
out=$("$CTS" -m break -s dpor --report "$T/u.json" -o "$T/u" -- "$PROG/lib_untraced" 2>&1)
is $? 0 "lib_untraced: no bug seen (the write inside swab is invisible)"
is "$(field "$T/u.json" exhausted)" true "lib_untraced: dpor exhausted its space"
is "$(field "$T/u.json" complete)" false "lib_untraced: but is not complete"
like "$(cat "$T/u.json")" "\"unseen\": \"1 untraced library function .*swab \\(at release\\+0x[0-9a-f]+ \\(lib_untraced.c:$l\\)\\)\"" \
	"lib_untraced: the report names swab and its line"
like "$out" "not complete" "lib_untraced: the summary says not complete"
"$CTS" -q -m break -s dpor --report "$T/uo.json" -o "$T/u" -- "$PROG/lib_untraced_ok"
is $? 0 "lib_untraced_ok: no bug"
is "$(field "$T/uo.json" complete)" false "lib_untraced_ok: not complete either"

# A call into a --trace-lib library's own exports (the program's call of
# sc_bump, and sc_bump's call of sc_add through the library's PLT) is traced
# code, no untraced library function: the search is complete.
"$CTS" -q -m break -s dfs --trace-lib selfcall --report "$T/sc.json" -o "$T/sc" -- "$PROG/lib_selfcall_ok"
is $? 0 "lib_selfcall_ok: no bug"
is "$(jq -r '"\(.complete) \(.unseen // "")"' "$T/sc.json")" "true " \
	"lib_selfcall_ok: complete, nothing unseen (calls into the traced library are traced code)"

# A spin that only reads through strcmp is recognised: every schedule ends.
for s in $SPIN_SEARCHES; do
	"$CTS" -q -m break -s $s --report "$T/sp.json" -o "$T/sp" -- "$PROG/lib_spin"
	is $? 0 "lib_spin: $s finds no bug (no step budget, no timeout)"
	is "$(field "$T/sp.json" complete)" true "lib_spin: $s complete"
done

# A library call's ranges on lines its thread owns are no scheduling point,
# as plain accesses there are not (ownership). Decided per line without
# protection keys (CTS_FAULTS=0); with them (the default), the workers' blocks share
# a page: a grant's claim conflicts, the run is voided once and the page is
# learned as decided per access (p0x... in the learned set), not its lines,
# so no call is an event either.
for f in 0 1; do
	# --timeout past the run's length on a slow, loaded machine (about 10 s
	# here): a timed-out run that hid accesses is re-run with all visible.
	CTS_FAULTS=$f timeout -k 2 "$(slow 300)" "$CTS" -q -m break -s random -n 1 --seed 1 \
		--timeout 120 --report "$T/lp.json" -o "$T/lp" -- "$PROG/lib_private_ok"
	r=$?
	lr=$(jq '.summary.operations.lib_read // 0' "$T/lp.json" 2>/dev/null)
	[ $r -eq 0 ] && [ "$lr" = 0 ]
	ok $? "lib_private_ok (CTS_FAULTS=$f, lines): clean, none of its 20,000 library calls on its own blocks is an event (exit $r, lib_read $lr, learned $(jq -r .learned.lines "$T/lp.json" 2>/dev/null))"
done

# sync mode stays lock-level: no library-call events there.
"$CTS" -q -m sync -s dpor --report "$T/s.json" -o "$T/s" -- "$PROG/lib_memcpy"
is "$(field "$T/s.json" runs)" 1 "sync mode: lib_memcpy is one lock-level schedule"
done_testing
