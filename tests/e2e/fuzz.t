#!/bin/bash
# timeout: 120
# A short libFuzzer campaign (a few seconds each) on the schedule parser and
# the command-line parser, seeded with tests/fuzz/corpus. `make fuzz` runs a
# longer one. Skips only when clang cannot build libFuzzer targets.
. "$(dirname "$0")/lib.sh"
SECONDS_EACH=${CTS_FUZZ_SECONDS:-4}

if [ ! -x "$TOP/tests/fuzz/fuzz_schedule" ] || [ ! -x "$TOP/tests/fuzz/fuzz_cli" ]; then
	printf 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}\n' > "$T/probe.c"
	if ! clang -fsanitize=fuzzer "$T/probe.c" -o "$T/probe" >/dev/null 2>&1; then
		skip_all "clang with libFuzzer is not installed (make deps)"
	fi
	plan 1
	ok 1 "fuzz targets are built (make fuzzers) when clang has libFuzzer"
	done_testing
fi
TARGETS="schedule cli"
plan $((2 * $(count $TARGETS)))
for t in $TARGETS; do
	mkdir -p "$T/new-$t"
	"$TOP/tests/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
		-dict="$TOP/tests/fuzz/$t.dict" -artifact_prefix="$T/" -print_final_stats=1 \
		"$T/new-$t" "$TOP/tests/fuzz/corpus/$t" > "$T/$t.log" 2>&1
	rc=$?
	is "$rc" 0 "fuzz_$t: ${SECONDS_EACH} s of libFuzzer, no crash, leak or failed check"
	if [ "$rc" -ne 0 ]; then
		# On stderr, which prove shows without -v (CI's log), and the
		# input kept where the next session can find it.
		grep -E "ERROR|SUMMARY|Base64|#[0-9]+ 0x|Test unit written" "$T/$t.log" | head -n 20 |
			sed 's/^/#   /' >&2
		keep=${TMPDIR:-/tmp}/cts-fuzz-failures
		mkdir -p "$keep" && cp "$T/$t.log" "$T"/crash-* "$T"/leak-* "$T"/timeout-* "$T"/oom-* \
			"$keep/" 2>/dev/null
		printf '#   log and input kept in %s\n' "$keep" >&2
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$t.log")
	like "${runs:-0}" '^[0-9]{3,}$' "fuzz_$t: ran (${runs:-0} inputs)"
done
done_testing
