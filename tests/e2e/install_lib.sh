# Checks of an installed cts-trace (make install, the Debian package), shared
# by install.t and package.t. Source after lib.sh.

# complete_words DATADIR WORD...: what bash completion offers for the last
# WORD of the command line WORD..., the completion loaded the way bash does it
# (bash-completion's loader, looking under DATADIR/bash-completion/completions).
complete_words() {
	local datadir=$1
	shift
	XDG_DATA_DIRS=$datadir BASH_COMPLETION_USER_DIR=$T/no-user-completions bash -c '
		. /usr/share/bash-completion/bash_completion
		__load_completion cts-trace || { echo "no completion found"; exit 1; }
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_cts_trace
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$@"
}

# The long options cts-trace parses (tracer/cli.c's getopt table).
CLI_LONG_OPTS=$(sed -n 's/^\t{ "\([a-z-]*\)", [a-z_]*_argument,.*/\1/p' "$TOP/tracer/cli.c")

N_INSTALLED=12
# check_installed BIN MANPATH DATADIR: the installed binary BIN runs, man finds
# its page through MANPATH ("" = the system's), the completion under DATADIR
# completes options and their values, and the demo finds and replays its bug
# through BIN (N_INSTALLED checks).
check_installed() {
	local bin=$1 manpath=$2 datadir=$3 page missing o w
	is "$("$bin" --version 2>&1)" "$("$CTS" --version 2>&1)" "$bin --version: the built version"
	page=$(MANPATH=${manpath:-$(manpath 2>/dev/null)} man -w cts-trace 2>&1)
	like "$page" "^${manpath:-/usr/share/man}/man1/cts-trace\.1(\.gz)?\$" "man -w cts-trace finds the installed page"
	like "$(MANPATH=${manpath:-$(manpath 2>/dev/null)} MANWIDTH=80 man cts-trace 2>&1 | head -n 8)" \
		"explore thread schedules" "man cts-trace renders the page"
	is "$(complete_words "$datadir" cts-trace --strat)" "--strategy " "completion: --strat -> --strategy"
	is "$(complete_words "$datadir" cts-trace -s dp)" "dpor " "completion: -s dp -> dpor"
	is "$(complete_words "$datadir" cts-trace -m '')" "break step sync " "completion: -m -> the modes"
	is "$(complete_words "$datadir" cts-trace merge --rep)" "--report " "completion: merge --rep -> --report"
	like "$(complete_words "$datadir" cts-trace -n 3 -- ls --colo)" "--color" \
		"completion: the program's own options after --"
	missing=""
	w=" $(complete_words "$datadir" cts-trace --) "
	for o in $CLI_LONG_OPTS; do
		case $w in *" --$o "*) ;; *) missing="$missing --$o" ;; esac
	done
	is "$missing" "" "completion: every long option of tracer/cli.c (from --help: none missing)"
	is "$(sh "$TOP/scripts/gen-completion.sh" "$bin" | cmp - "$datadir/bash-completion/completions/cts-trace" 2>&1)" "" \
		"the installed completion is what the installed binary's --help generates"
	"$bin" -q -s pct -n 1000 -o demo -- "$PROG/demo" >/dev/null 2>&1
	is $? 1 "demo through $bin: the deadlock found (exit 1)"
	"$bin" --replay "$(ls demo/*.sched | head -n 1)" >/dev/null 2>&1
	is $? 1 "demo through $bin: its schedule replays the deadlock"
}
