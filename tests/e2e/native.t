#!/bin/bash
# timeout: 180
# The program sees the machine it would see natively (issue 27 item 4,
# tracer/native.c): cts-trace pins itself and the program to one CPU,
# launches it with ADDR_NO_RANDOMIZE and catches SIGALRM itself, yet the
# program's sched_getaffinity, personality query, signal mask and ignored
# signals are the caller's, in the program, its threads, a wrapper script's
# children and an image it execs.
. "$(dirname "$0")/lib.sh"
plan 13

P="$PROG/native_view_ok"
cd "$T" || exit 1
ncpu=$(nproc)
is "$("$CTS" -m sync -n 1 --output -- /usr/bin/nproc 2>/dev/null)" "$ncpu" "nproc under cts-trace prints $ncpu, as natively"
is "$("$CTS" -m sync -n 1 --output -- /bin/sh -c 'exec nproc' 2>/dev/null)" "$ncpu" "nproc exec'd by the program: $ncpu"
printf '#!/bin/sh\n[ "$(nproc)" = "$1" ] || exit 7\nexec "$2" "$3"\n' > wrap.sh
chmod +x wrap.sh
native=$("$P")
"$CTS" -m sync -n 1 -q -- ./wrap.sh "$ncpu" "$P" "$native" >/dev/null 2>&1
is $? 0 "nproc run by a wrapper script before its exec: $ncpu"

# In main and in a thread: affinity, personality; a thread's own
# setaffinity round trip, inherited by its thread; EINVAL and EFAULT.
for m in sync break; do
	"$CTS" -m $m -s random -n 5 -q -- "$P" "$native" >/dev/null 2>&1
	is $? 0 "$m mode: native_view_ok observes what it observes natively ($native)"
done
"$CTS" -m sync -s random -n 5 -q --no-fork-server -- "$P" "$native" >/dev/null 2>&1
is $? 0 "without the fork server too"

# The caller's ignored and blocked signals, SIGALRM (which cts-trace
# catches) included.
sigwrap=(python3 -c 'import os, signal, sys
for s in (signal.SIGALRM, signal.SIGUSR1, signal.SIGPIPE): signal.signal(s, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGUSR2})
os.execv(sys.argv[1], sys.argv[1:])')
native_sig=$("${sigwrap[@]}" "$P")
ign=$(printf '%s\n' "$native_sig" | sed -n 's/.*ignored=\([0-9a-f]*\).*/\1/p')
[ $(((0x${ign:-0} >> (14 - 1)) & 1)) = 1 ]
ok $? "natively SIGALRM is ignored ($native_sig)"
"${sigwrap[@]}" "$CTS" -m sync -n 3 -q -- "$P" "$native_sig" >/dev/null 2>&1
is $? 0 "ignored and blocked signals at exec are the caller's"

# GNU sort sizes its thread pool by the CPU count: it creates threads
# under cts-trace as natively (before, nproc was 1 and sort made none).
seq 140000 | sed 's/^\(.\)\(.*\)$/\2\1/' > in.txt
sort -o native.txt in.txt
for args in "" "--parallel=4"; do
	for m in sync break; do
		sum=$("$CTS" -m $m -n 1 --max-steps 20000 -- /usr/bin/sort $args -o out.txt in.txt 2>&1)
		creates=$(printf '%s\n' "$sum" | sed -n 's/.*visible operations:.* create \([0-9]*\).*/\1/p')
		if [ "$ncpu" -ge 2 ]; then
			[ "${creates:-0}" -ge 1 ]
			ok $? "$m mode: sort $args creates $creates thread(s) (natively it creates 1)"
		else
			skip 1 "one CPU: sort creates no thread natively either"
		fi
	done
done
# The run's out.txt is in its private view (run isolation): compare it there.
"$CTS" -m sync -n 1 -q --check 'cmp -s out.txt native.txt' -- /usr/bin/sort -o out.txt in.txt >/dev/null 2>&1
ok $? "sort's output under cts-trace is the native one"
done_testing
