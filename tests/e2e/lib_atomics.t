#!/bin/bash
# timeout: 300
# Atomics inside untraced libraries are synchronization (break mode, issue
# 8): lib_lock_ok guards a counter with a futex lock whose cmpxchg and xchg
# live in a stripped shared library (tests/programs/lib/speclock.c; its
# contended path is a static function only the unwind tables name).  cts
# must find those atomics without symbols and take them as acquire/release:
# no race report, under random, pct and dpor.  Its twin lib_lock increments
# once without the lock: that race must still be reported.
# glib_seq (tests/corpus) is libvips's sequential reader in miniature (issue
# 31 item 4: a race reported inside its GLib mutex): a heap GMutex taken
# under contention (futex slow path), a line cache with its own GMutex and
# GCond inside it, an atomic counter around every lock; clean under random
# and pct, and its twin without the reader's lock races. glib_reuse: a block
# one thread g_frees and another g_mallocs again, each life under its own
# GMutex, ordered only by malloc's own lock: GLib's allocator calls are
# allocations for the race detector, so no race report (before: exit 1 in
# run 0); its twin's unlocked counter still races.
. "$(dirname "$0")/lib.sh"
STRATEGIES="random pct dpor"
SEQ="$TOP/tests/corpus"
plan $((5 + 2 * $(count $STRATEGIES) + 4 + 2 * $(count $STRATEGIES) + 1))

out=$("$CTS" -d -m break -s random -n 1 --seed 1 -o "$T/d" -- "$PROG/lib_lock_ok" 2>&1)
like "$out" "library atomics: 4 in [^ ]*/libspeclock.so" \
	"the 4 atomics of the stripped library are found (2 of them in a static function)"
if nm -D "$PROG/lib/libspeclock.so" 2>/dev/null | grep -q lock_slow ||
	nm "$PROG/lib/libspeclock.so" 2>&1 | grep -q lock_slow; then
	ok 1 "libspeclock.so is stripped (lock_slow has no symbol)"
else
	ok 0 "libspeclock.so is stripped (lock_slow has no symbol)"
fi

for s in $STRATEGIES; do
	out=$("$CTS" -m break -s "$s" -n 10 --seed 1 --fail-on-exit -o "$T/o" \
		-- "$PROG/lib_lock_ok" 2>&1)
	is $? 0 "lib_lock_ok: $s, 10 schedules, no bug"
	n=$(printf '%s\n' "$out" | grep -c 'data race on')
	is "$n" 0 "lib_lock_ok: $s, no race report"
done

out=$("$CTS" -m break -s random -n 10 --seed 1 -o "$T/b" -- "$PROG/lib_lock" 2>&1)
l=$(grep -n 'the bug: no lock' "$PROG/lib_lock.c" | cut -d: -f1)
like "$out" "data race on counter .*\\(lib_lock.c:$l\\)" \
	"lib_lock: the unlocked increment still races (random, 10 schedules)"

for s in random pct; do
	out=$("$CTS" -m break -s "$s" -n 10 --seed 1 --fail-on-exit --races fail -o "$T/q" \
		-- "$SEQ/glib_seq" 2>&1)
	is $? 0 "glib_seq: $s, 10 schedules, no bug"
	n=$(printf '%s\n' "$out" | grep -c 'data race on')
	is "$n" 0 "glib_seq: $s, no race report"
done
for s in random pct; do
	out=$("$CTS" -m break -s "$s" -n 10 --seed 1 --races fail -o "$T/r" \
		-- "$SEQ/glib_seq_race" 2>&1)
	rc=$?
	l=$(grep -n 'seq->y_pos' "$SEQ/glib_seq.c" | grep -v printf | cut -d: -f1 | paste -sd'|')
	like "$rc $out" "^1 .*data race on .*glib_seq.c:($l)\\)" \
		"glib_seq_race: the reader's position races without its lock ($s)"
done

for s in $STRATEGIES; do
	out=$("$CTS" -m break -s "$s" -n 10 --seed 1 --fail-on-exit --races fail -o "$T/u" \
		-- "$SEQ/glib_reuse" 2>&1)
	is $? 0 "glib_reuse: $s, 10 schedules, no bug"
	n=$(printf '%s\n' "$out" | grep -c 'data race on')
	is "$n" 0 "glib_reuse: $s, no race report on the block's two lives"
done
out=$("$CTS" -m break -s random -n 10 --seed 1 --races fail -o "$T/v" -- "$SEQ/glib_reuse_race" 2>&1)
l=$(grep -n 'the bug with REUSE_NO_LOCK' "$SEQ/glib_reuse.c" | cut -d: -f1)
like "$out" "data race on total .*glib_reuse.c:$l" \
	"glib_reuse_race: main's unlocked count still races"
done_testing
