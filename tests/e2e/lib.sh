# Shared helpers for the end-to-end tests: TAP output, a private temp dir,
# and paths to cts-trace and the test programs. Source it first.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CTS="$TOP/cts-trace"
PROG="$TOP/tests/programs"
# Per-run time limits scale by CTS_TEST_SLOW (make asan sets 3; tests/run-one
# sets it for a sanitized cts-trace): a sanitized tracer is 2-3 times slower.
SLOW=${CTS_TEST_SLOW:-1}
T=$(mktemp -d "${TMPDIR:-/tmp}/cts-e2e.XXXXXX")
_n=0
_failed=0
_planned=""
_done=""
_at_exit=""

# at_exit COMMAND: run COMMAND when the test ends, before the temp dir goes
# (instead of a trap of one's own, which would replace the plan check below).
at_exit() { _at_exit="$_at_exit$1;"; }

# An exit before done_testing (an `exit` in the test, a failed `set -u`
# expansion, a signal) is a failed check, whatever its status.
_lib_exit() {
	local st=$?
	eval "$_at_exit"
	rm -rf "$T"
	[ -z "$_done" ] || return
	_n=$((_n + 1))
	echo "not ok $_n - the test ended before done_testing (status $st) after $((_n - 1))${_planned:+ of $_planned} checks"
	exit 1
}
trap _lib_exit EXIT
cd "$T" || exit 1

# plan N: the file makes N checks. Called once, before the first check, with
# N computed from the tables its loops walk (count WORDS...), so a loop that
# silently runs short, or an exit half-way, fails the test.
plan() {
	if [ -n "$_planned" ] || [ "$_n" -ne 0 ] || ! [ "$1" -gt 0 ] 2>/dev/null; then
		echo "not ok $((_n + 1)) - plan '$1': a positive count, once, before the first check"
		exit 1
	fi
	_planned=$1
	echo "1..$1"
}

# count WORDS...: how many words (the cases of a table in a variable).
count() { echo $#; }

# skip N REASON: N checks that cannot run here, counted as skipped.
skip() {
	local i
	for i in $(seq "$1"); do
		_n=$((_n + 1))
		echo "ok $_n # skip $2"
	done
}

# skip_all REASON: nothing in this file can run here (before plan).
skip_all() {
	_done=1
	echo "1..0 # SKIP $1"
	exit 0
}

# ok STATUS DESCRIPTION: STATUS 0 passes.
ok() {
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_failed=$((_failed + 1))
	fi
}

# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got '$1', want '$2'" >&2 # stderr: prove shows it without -v (CI logs)
	fi
}

# like TEXT REGEX DESCRIPTION
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /' >&2
	fi
}

# unlike TEXT REGEX DESCRIPTION: TEXT does not match
unlike() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		ok 1 "$3"
		printf '%s\n' "$1" | grep -E -- "$2" | head -n 5 | sed 's/^/#   matches: /' >&2
	else
		ok 0 "$3"
	fi
}

diag() { echo "# $*"; }

# No process of ours may outlive a cts-trace run.
leftovers() {
	pgrep -f "^$PROG/$1" >/dev/null 2>&1 && echo yes || echo no
}

# done_testing: the end of the file; it fails unless every planned check ran
# and passed.
done_testing() {
	_done=1
	if [ -z "$_planned" ]; then
		echo "not ok $((_n + 1)) - no plan: the file must call plan N before its first check"
		echo "1..$((_n + 1))"
		exit 1
	fi
	if [ "$_n" -ne "$_planned" ]; then
		echo "# planned $_planned checks, ran $_n"
		exit 1
	fi
	[ "$_failed" -eq 0 ]
	exit $?
}

# slow SECONDS: a per-run time limit, scaled for a slow (sanitized) build.
slow() { echo $(($1 * SLOW)); }

# A test must not depend on how fast the machine is. A test about time
# (--timeout, --time, a signal during a run) makes the step budget
# unreachable: --max-steps $NO_STEP_LIMIT (a host 2.5 times faster than
# this one reached the default 100,000 steps of a spinning thread within a
# second). A test about the step budget makes the time unreachable:
# --timeout $NO_TIME_LIMIT (0: no per-run limit).
NO_STEP_LIMIT=1000000000000
NO_TIME_LIMIT=0

# sarif_validate FILE: prints "valid" or the first errors against the SARIF
# 2.1.0 schema in tests/schema (draft 4, formats checked).
sarif_validate() {
	python3 - "$TOP/tests/schema/sarif-schema-2.1.0.json" "$1" <<'EOF'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
errs = list(v.iter_errors(doc))
for e in errs[:5]:
    print(list(e.path), e.message[:200])
print("valid" if not errs else "invalid")
EOF
}

# keys_here: 1 when break mode runs protection-key faults on this host (the
# CPU has pku and the start-up probe found keys), else 0: the tests whose
# keys half is skipped elsewhere ask this.
keys_here() {
	CTS_FAULTS=1 "$CTS" -m break -s random -n 1 -v -- "$PROG/counter_ok" 2>&1 |
		grep -c '^cts-trace: memory ownership: protection-key faults'
}
