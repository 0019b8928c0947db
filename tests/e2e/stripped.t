#!/bin/bash
# timeout: 900
# Break mode on stripped programs (issue 31): Debian's binaries have no
# .symtab, and a program that exports a few functions (C++ weak symbols,
# --export-dynamic-symbol) once had only those traced, so a lost update was
# missed.  Every buggy test program is run in break mode as built, stripped
# (strip --strip-all), stripped with main exported, and stripped with main
# exported and no unwind tables of its own (-fno-asynchronous-unwind-tables:
# the code between the start-up code's functions is decoded linearly), with
# the same seed: each variant must see the same runs, the same steps and the
# same verdict.  Then: the report says where the function bounds came from,
# a stripped function is named fn_<address>, and a stripped --trace-lib
# library is traced whole.
. "$(dirname "$0")/lib.sh"

# table_loop (200,000 shared reads a run, 15 s) is left out for time; the
# attach_* programs are attach mode's.
PROGRAMS="active_atom active_ctx active_deadlock active_heap_deadlock active_race active_window
barrier bystanders cancel cas_stack check_then_act counter crash deadlock demo futex_lock
futex_mutex got_reuse hs_aget hs_pbzip2 hs_pfscan late_deadlock lib_free lib_lock lib_memcpy
lib_memset lib_realloc lib_strcmp lib_untraced lib_use_after_free livelock lost_wakeup own_loop
pipe_handoff poll_eventfd publish rwlock semaphore sense_barrier sigwait_exit sigwait_thread
spin_count_barrier spin_learn spinbar_assert spinbar_crash spinbar_deadlock sys_child sys_pause
sys_pipe sys_poll sys_sigwait tas_lock tas_spinlock wrong_output yield_barrier yield_poll"
VARIANTS="strip export nounwind"
plan $(($(count $PROGRAMS) * $(count $VARIANTS) + 9))

# build P VARIANT: the stripped copy of tests/programs/P, its path on stdout.
build() {
	local p=$1 v=$2 out="$T/bin/$1.$2" extra=""
	mkdir -p "$T/bin"
	[ "$p" = got_reuse ] && extra=-fno-plt
	[ "$p" = lib_lock ] && extra="-L$PROG/lib -lspeclock"
	case $v in
	strip) cp "$PROG/$p" "$out" ;;
	export) cc -g -O1 -pthread -std=gnu11 -w -Wl,--export-dynamic-symbol=main -o "$out" \
		"$PROG/$p.c" $extra -lm ;;
	nounwind) cc -g -O1 -pthread -std=gnu11 -w -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-Wl,--export-dynamic-symbol=main -o "$out" "$PROG/$p.c" $extra -lm ;;
	esac && strip --strip-all "$out" && printf '%s\n' "$out"
}

# verdict BINARY: exit status, the first bug's kind, runs and steps.
verdict() {
	local out rc
	out=$(LD_LIBRARY_PATH="$PROG/lib" "$CTS" -m break -s random --seed 1 -n 20 --no-minimize \
		--timeout "$(slow 5)" -o "$T/o" -- "$1" 2>&1)
	rc=$?
	printf '%s %s %s\n' "$rc" "$(printf '%s\n' "$out" | grep -o 'BUG ([a-z-]*)' | head -n 1)" \
		"$(printf '%s\n' "$out" | grep -o '[0-9]* runs, [0-9]* steps')"
}

for p in $PROGRAMS; do
	want=$(verdict "$PROG/$p")
	for v in $VARIANTS; do
		if ! b=$(build "$p" "$v" 2>&1); then
			ok 1 "$p/$v: same verdict, runs and steps as the unstripped build"
			echo "#   build failed: $b"
			continue
		fi
		got=$(verdict "$b")
		if [ "$p" = sys_child ]; then
			# When its reader's read() returns depends on the child
			# process, not the schedule: runs and steps vary by nature.
			is "${got%% [0-9]* runs*}" "${want%% [0-9]* runs*}" \
				"$p/$v: same verdict as the unstripped build (runs depend on the child)"
			continue
		fi
		is "$got" "$want" "$p/$v: same verdict, runs and steps as the unstripped build"
	done
done

# Where the bounds came from, in the report and the summary.
c=$(build counter strip)
out=$("$CTS" -m break -s random --seed 1 -n 20 --races report --report "$T/c.json" -o "$T/o" -- "$c" 2>&1)
is $? 1 "counter, stripped: the lost update is found"
is "$(jq -r '.traced_code[0].source' "$T/c.json")" "unwind tables" "report: bounds from the unwind tables"
is "$(jq -r '.traced_code[0] | (.function_bytes + .linear_bytes == .text_bytes) and .access_sites > 0' \
	"$T/c.json")" true "report: all of .text traced, access sites placed"
like "$out" "traced code: counter.strip: [0-9]+ functions \\(unwind tables\\) cover [0-9]+% of .text" \
	"summary: the traced-code line"
like "$out" "data race on 0x[0-9a-f]+ \\(4 bytes\\): thread [12] [a-z]+ at fn_[0-9a-f]+\\+0x[0-9a-f]+ \\(counter.strip\\)" \
	"a stripped function is named fn_<address> in the race report"
like "$out" "the bug happens when thread [12]'s [a-z]+ at fn_[0-9a-f]+\\+0x[0-9a-f]+ \\(counter.strip\\) comes between" \
	"and in the critical pair"
"$CTS" -q -m break -n 2 --report "$T/u.json" -o "$T/o" -- "$PROG/counter_ok"
is "$(jq -r '.traced_code[0].source' "$T/u.json")" "symbol table" "unstripped: bounds from the symbol table"
"$CTS" -q -m sync -n 2 --report "$T/y.json" -o "$T/o" -- "$PROG/counter_ok"
is "$(jq -c '.traced_code' "$T/y.json")" "[]" "sync mode: no code traced, an empty list"

# libspeclock.so is built stripped: its static lock_slow is traced too.
"$CTS" -q -m break -n 2 --trace-lib speclock --report "$T/l.json" -o "$T/o" -- "$PROG/lib_lock_ok"
is "$(jq -r '.traced_code[] | select(.file | test("libspeclock")) | "\(.source) \(.functions)"' "$T/l.json")" \
	"unwind tables 3" "--trace-lib of a stripped library: all 3 functions, from its unwind tables"
done_testing
