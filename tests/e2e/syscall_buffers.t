#!/bin/bash
# timeout: 300
# A system call's buffer on pages break mode protects must behave as
# without cts (issue 26 item 4). write_after_join_ok: a worker fills a
# buffer of its own and ends; main hands it to write(2) untouched. With the
# mprotect mechanism the worker's pages stayed closed once main was alone
# (opened lazily, at a fault the kernel's read never makes): write failed
# with EFAULT and the program aborted, a false bug under random, pct and
# dpor. Now disarming opens every page (fault.c cts_fault_gate).
. "$(dirname "$0")/lib.sh"
plan 7

run() { local m=$1; shift; env CTS_FAULTS=$m timeout -k 2 "$(slow 120)" "$CTS" "$@"; }

for s in random pct dpor; do
	run mprotect -q -m break -s $s -n 3 --seed 1 -- "$PROG/write_after_join_ok" >/dev/null 2>&1
	ok $? "write_after_join_ok ($s, mprotect): clean, the write takes the worker's buffer"
done
have_keys=$(keys_here)
for s in random pct dpor; do
	if [ "$have_keys" = 0 ]; then
		skip 1 "no protection keys here (pku absent): the mprotect mechanism was tested above"
	else
		run 1 -q -m break -s $s -n 3 --seed 1 -- "$PROG/write_after_join_ok" >/dev/null 2>&1
		ok $? "write_after_join_ok ($s, keys): clean"
	fi
done
run 1 -q -m sync -s random -n 3 --seed 1 -- "$PROG/write_after_join_ok" >/dev/null 2>&1
ok $? "sync mode: clean"
done_testing
