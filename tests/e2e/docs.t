#!/bin/bash
# timeout: 120
# The three descriptions of the command line agree (issue 30 item 7):
# every long option of --help is in the man page and in the README, every
# option the man page documents is one --help knows, and the README's example
# output is what the command prints today (times, run rates and the
# checkout's path aside).
. "$(dirname "$0")/lib.sh"

MAN=$TOP/docs/cts-trace.1
README=$TOP/README.md
help_opts=$("$CTS" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
# the man page writes --opt as \-\-opt (in .B/.BR/.TP lines and in text)
man_opts=$(sed -n 's/\\-/-/g; s/\\f[BIRP]//g; p' "$MAN" | grep -o -- '--[a-z][a-z-]*' | sort -u)
readme_opts=$(grep -o -- '--[a-z][a-z-]*' "$README" | sort -u)
n_help=$(printf '%s\n' "$help_opts" | wc -l)
plan 6

missing_man=$(comm -23 <(printf '%s\n' "$help_opts") <(printf '%s\n' "$man_opts") | tr '\n' ' ')
is "$missing_man" "" "every option of --help ($n_help) is in the man page"
missing_readme=$(comm -23 <(printf '%s\n' "$help_opts") <(printf '%s\n' "$readme_opts") | tr '\n' ' ')
is "$missing_readme" "" "every option of --help is in the README"
# Options of other commands the man page names (gdb's, make's) are not
# cts-trace's: only those in its OPTIONS section are checked.
man_section=$(awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH/ { on = 0 } on' "$MAN" |
	sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -E '^\.(TP|B|BR|BI|IP)|^--' |
	grep -o -- '--[a-z][a-z-]*' | sort -u)
unknown=$(comm -13 <(printf '%s\n' "$help_opts") <(printf '%s\n' "$man_section") | tr '\n' ' ')
is "$unknown" "" "every option the man page's OPTIONS section documents is one --help knows"

# The README's example: the block after the line that runs the demo.
want=$(awk '/^\$ \.\/cts-trace -s pct -- tests\/programs\/demo$/ { on = 1; next }
	on && /^```/ { exit } on' "$README")
ok $([ -n "$want" ]; echo $?) "the README has the demo's example output"
got=$(cd "$TOP" && "$CTS" -s pct -o "$T/demo" -- tests/programs/demo 2>&1)
norm() { # times, rates, the replay's absolute path and -o directory
	sed -E 's/[0-9]+\.[0-9]+ s \([0-9]+ runs\/s\)/T s (R runs\/s)/; s#replay:   [^ ]*/cts-trace #replay:   cts-trace #;
		s#[^ ]*/demo/#cts-out/#g'
}
is "$(printf '%s\n' "$got" | norm)" "$(printf '%s\n' "$want" | norm)" \
	"the README's example output is what the demo prints"
like "$("$CTS" --help)" "at most 100 replays: a count, never time" \
	"--help: minimization is bounded by a count, as the README and man page say"
done_testing
