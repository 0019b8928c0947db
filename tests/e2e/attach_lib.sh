# Helpers of the attach-mode tests (attach*.t), sourced after lib.sh:
# background processes killed at the end, and what /proc says of a process.
bg=""
cleanup() {
	for p in $bg; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}
at_exit cleanup

state() { sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
tracer_of() { sed -n 's/^TracerPid:\t//p' "/proc/$1/status" 2>/dev/null; }
nthreads() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
# Wait (up to 10 s) until every thread of $1 (3 or more) is asleep in futex(2).
wait_all_futex() {
	for _ in $(seq 200); do
		local all=1
		for s in /proc/"$1"/task/*/syscall; do
			[ "$(cut -d' ' -f1 "$s" 2>/dev/null)" = 202 ] || all=0
		done
		[ "$all" = 1 ] && [ "$(nthreads "$1")" -ge 3 ] && return 0
		sleep 0.05
	done
	return 1
}
# Wait (up to 20 s) for a line in a file.
wait_line() {
	for _ in $(seq 400); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# Run cts-trace in the background with SIGINT at its default (a
# non-interactive shell's background job would ignore it).
cts_bg() {
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CTS" "$@" 3>&- 5>&- 6>&- 7>&- &
	C=$!
}
# md5 of every executable mapping of the program's own file and of libc in
# process $1: where the access breakpoints and the entry-point ones go.
text_md5() {
	local exe
	exe=$(readlink "/proc/$1/exe")
	awk -v exe="$exe" '$2 ~ /^r-x/ && ($6 == exe || $6 ~ /libc\.so/) { split($1, a, "-"); print a[1], a[2] }' \
		"/proc/$1/maps" | while read -r lo hi; do
		dd if="/proc/$1/mem" bs=4096 skip=$((0x$lo / 4096)) count=$(((0x$hi - 0x$lo) / 4096)) 2>/dev/null
	done | md5sum | cut -d' ' -f1
}
# Every thread of $1 in a state other than a ptrace-stop, and its tracer none.
detached_alive() {
	local st
	st=$(for t in /proc/"$1"/task/*/stat; do sed 's/.*) \(.\).*/\1/' "$t"; done | tr -d '\n')
	echo "$(nthreads "$1") $(tracer_of "$1") $(printf '%s' "$st" | tr -d 'RSD')"
}
# attach_work reading from a fifo kept open on fd 3: $W is its pid, once
# its 4 threads are there (up to 5 s).
start_work() {
	rm -f "$T/fifo-$1" && mkfifo "$T/fifo-$1"
	"$PROG/attach_work" <"$T/fifo-$1" >"$T/work-$1.out" &
	W=$!
	bg="$bg $W"
	exec 3>"$T/fifo-$1"
	for _ in $(seq 100); do [ "$(nthreads "$W")" -ge 4 ] && break; sleep 0.05; done
}
# DR7 of every thread of $1, read through a ptrace attach of our own (a
# thread that ends meanwhile is left out).
dr7_all() {
	python3 - "$1" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
SEIZE, INTERRUPT, PEEKUSER, DETACH, WALL = 0x4206, 0x4207, 3, 17, 0x40000000
DR7 = 848 + 7 * 8  # offsetof(struct user, u_debugreg[7]) on x86-64
out = []
for t in sorted(os.listdir("/proc/%s/task" % sys.argv[1]), key=int):
    tid = int(t)
    if libc.ptrace(SEIZE, tid, None, None) != 0:
        if ctypes.get_errno() != 3:  # ESRCH: ended
            out.append("unseizable")
        continue
    libc.ptrace(INTERRUPT, tid, None, None)
    _, st = os.waitpid(tid, WALL)
    if not os.WIFSTOPPED(st):
        continue
    v = libc.ptrace(PEEKUSER, tid, ctypes.c_void_p(DR7), None)
    out.append("%x" % (v & (2**64 - 1)))
    # a signal-delivery stop's signal goes on to the thread
    sig = os.WSTOPSIG(st) if os.WIFSTOPPED(st) and (st >> 16) == 0 else 0
    libc.ptrace(DETACH, tid, None, ctypes.c_void_p(sig))
print(" ".join(out))
EOF
}
