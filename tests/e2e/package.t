#!/bin/bash
# timeout: 900
# The Debian package (issue 30 item 5), run by make package-check, not make
# check: dpkg-buildpackage takes about 2 minutes on 2 loaded cores. The tree
# (tracked and new files, not the build's) is copied to a temporary
# directory, built with dpkg-buildpackage -us -uc -b, and the package holds
# /usr/bin/cts-trace, the man page and the completion. Then it is installed:
# with CTS_PACKAGE_INSTALL=system (as root; .ci/run) into the real system
# with apt-get (waiting for the dpkg lock) and purged at the end, else
# unpacked into a temporary root with dpkg-deb -x; either way the checks of
# install_lib.sh run on it (--version, man -w, completion, the demo).
. "$(dirname "$0")/lib.sh"
[ "${CTS_PACKAGE_CHECK:-}" = 1 ] || skip_all "the package is built by make package-check"
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	skip_all "dpkg-dev or debhelper not installed (make deps installs them)"
. "$TOP/tests/e2e/install_lib.sh"
CONTENTS="usr/bin/cts-trace usr/bin/cts-parallel usr/bin/cts-slurm usr/share/man/man1/cts-trace.1.gz
usr/share/bash-completion/completions/cts-trace"
plan $((4 + $(count $CONTENTS) + N_INSTALLED + 2))

mkdir src
git -C "$TOP" ls-files -co --exclude-standard -z | (cd "$TOP" && tar --null -T - -cf -) | tar -C src -xf -
ok $? "the tree copied to \$T/src"
start=$(date +%s)
(cd src && dpkg-buildpackage -us -uc -b -j"${JOBS:-2}") >build.log 2>&1
st=$?
diag "dpkg-buildpackage: $(($(date +%s) - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ $st -eq 0 ] || tail -n 30 build.log | sed 's/^/#   /'
is $st 0 "dpkg-buildpackage -us -uc -b"
deb=$(ls cts-trace_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ]
ok $? "the package: ${deb:-none}"
list=$(dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $NF }' | sed 's,^\./,,')
for f in $CONTENTS; do
	printf '%s\n' "$list" | grep -qx "$f"
	ok $? "the package holds /$f"
done
is "$(dpkg-deb -f "$deb" Version 2>/dev/null)" "$("$CTS" --version | sed 's/^cts-trace //')" \
	"the package's version is cts-trace --version"

if [ "${CTS_PACKAGE_INSTALL:-}" = system ] && [ "$(id -u)" = 0 ]; then
	if dpkg -s cts-trace >/dev/null 2>&1; then
		diag "a cts-trace package is installed already: not replaced"
		ok 1 "apt-get install ./$deb (a cts-trace package was installed before)"
	else
		at_exit "apt-get purge -y -qq -o DPkg::Lock::Timeout=300 cts-trace >/dev/null 2>&1"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 "./$deb" \
			>install.log 2>&1
		st=$?
		[ $st -eq 0 ] || tail -n 10 install.log | sed 's/^/#   /'
		is $st 0 "apt-get install ./$deb (into the system)"
	fi
	check_installed /usr/bin/cts-trace "" /usr/share
	apt-get purge -y -qq -o DPkg::Lock::Timeout=300 cts-trace >/dev/null 2>&1
	[ ! -e /usr/bin/cts-trace ] && ! dpkg -s cts-trace >/dev/null 2>&1
	ok $? "apt-get purge cts-trace: removed again"
else
	dpkg-deb -x "$deb" root
	ok $? "dpkg-deb -x $deb root (CTS_PACKAGE_INSTALL=system: into the system)"
	check_installed "$T/root/usr/bin/cts-trace" "$T/root/usr/share/man" "$T/root/usr/share"
	ok 0 "nothing to remove"
fi
done_testing
