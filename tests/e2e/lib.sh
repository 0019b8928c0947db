# Shared helpers for the end-to-end tests: TAP output, a private temp dir,
# and paths to cts-trace and the test programs. Source it first.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CTS="$TOP/cts-trace"
PROG="$TOP/tests/programs"
T=$(mktemp -d "${TMPDIR:-/tmp}/cts-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
_n=0
_failed=0

# The plan is printed at the end (TAP allows it), so counts never drift.
plan() { :; }

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
		echo "#   got '$1', want '$2'"
	fi
}

# like TEXT REGEX DESCRIPTION
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /'
	fi
}

diag() { echo "# $*"; }

# No process of ours may outlive a cts-trace run.
leftovers() {
	pgrep -f "^$PROG/$1" >/dev/null 2>&1 && echo yes || echo no
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
	exit $?
}
