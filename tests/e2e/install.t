#!/bin/bash
# timeout: 120
# make install and make uninstall (issue 30 item 5): DESTDIR and PREFIX
# place the binary, the shard drivers, the man page and the bash completion;
# the installed tree passes the checks of install_lib.sh (runs, man finds the
# page, the completion completes, the demo finds and replays its bug); the
# README's GNU parallel lines work as written with the installed cts-trace on
# PATH; make uninstall removes every file. The Debian package: package.t
# (make package-check).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/e2e/install_lib.sh"
command -v man >/dev/null && [ -f /usr/share/bash-completion/bash_completion ] ||
	skip_all "man-db or bash-completion not installed (make deps installs them)"

FILES="usr/bin/cts-trace usr/bin/cts-parallel usr/bin/cts-slurm usr/share/man/man1/cts-trace.1
usr/share/bash-completion/completions/cts-trace"
plan $((2 * $(count $FILES) + N_INSTALLED + 11))

R=$T/root
make -s -C "$TOP" install DESTDIR="$R" PREFIX=/usr >make.out 2>&1
is $? 0 "make install DESTDIR=\$T/root PREFIX=/usr"
for f in $FILES; do
	[ -f "$R/$f" ]
	ok $? "installed: /$f"
done
[ -x "$R/usr/bin/cts-trace" ] && [ -x "$R/usr/bin/cts-parallel" ] && [ -x "$R/usr/bin/cts-slurm" ]
ok $? "the programs are executable"

check_installed "$R/usr/bin/cts-trace" "$R/usr/share/man" "$R/usr/share"

# The README's scale-out lines, as written, with the installed tree on PATH
# (the drivers call cts-trace from PATH). Sync mode keeps the search short.
cp "$PROG/lost_wakeup_ok" prog
if command -v parallel >/dev/null; then
	PATH=$R/usr/bin:$PATH parallel cts-trace -q --shard {}/2 --report s{}.json -m sync -s dfs -- ./prog \
		::: $(seq 2) >/dev/null 2>&1
	PATH=$R/usr/bin:$PATH cts-trace merge s*.json --report all.json 2>/dev/null
	is $? 0 "README: parallel cts-trace --shard {}/2 ...; cts-trace merge: no bug"
	is "$(jq -r .complete all.json)" true "README: the merged search is complete"
	PATH=$R/usr/bin:$PATH cts-parallel 2 out -m sync -s dfs -- ./prog >/dev/null 2>&1
	is $? 0 "README: cts-parallel 2 out -s dfs -- ./prog (installed driver, cts-trace from PATH)"
	is "$(jq -r .runs out/report.json)" "$(jq -r .runs all.json)" "cts-parallel: the same runs"
else
	skip 4 "GNU parallel is not installed (make deps installs it)"
fi

# The version the package says is the binary's.
is "$(sed -n '1s/^cts-trace (\([^)]*\)).*/cts-trace \1/p' "$TOP/debian/changelog")" \
	"$("$R/usr/bin/cts-trace" --version)" "debian/changelog's version is cts-trace --version"

make -s -C "$TOP" uninstall DESTDIR="$R" PREFIX=/usr >>make.out 2>&1
is $? 0 "make uninstall DESTDIR=\$T/root PREFIX=/usr"
for f in $FILES; do
	[ ! -e "$R/$f" ]
	ok $? "uninstalled: /$f"
done
is "$(find "$R" -type f | wc -l)" 0 "make uninstall leaves no file"

# The default prefix is /usr/local.
make -s -C "$TOP" install DESTDIR="$T/local" >>make.out 2>&1
[ -x "$T/local/usr/local/bin/cts-trace" ] && [ -f "$T/local/usr/local/share/man/man1/cts-trace.1" ] &&
	[ -f "$T/local/usr/local/share/bash-completion/completions/cts-trace" ]
ok $? "make install without PREFIX: /usr/local/bin, /usr/local/share/man, /usr/local/share/bash-completion"
make -s -C "$TOP" uninstall DESTDIR="$T/local" >>make.out 2>&1
is "$(find "$T/local" -type f | wc -l)" 0 "make uninstall without PREFIX leaves no file"
done_testing
