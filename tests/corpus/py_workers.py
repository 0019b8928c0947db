# py_workers.py [N] — Python 3 threading: 4 workers each add 1..N (default
# 50) to a shared total under a threading.Lock, and append their name to a
# shared list under the same lock.  Prints "total T workers 4" (T = 4 *
# N(N+1)/2: 5100 for 50) and exits 0; any other result fails the assert (exit
# status 1).  No bug: every schedule must come back clean, with no race report
# (the lock protects everything shared).  Break mode runs it with N = 5: while
# two threads live, every heap access of the interpreter is a visible step
# (about 33,000 for the threads' start and join, 900 more per iteration of
# the four workers), and 50 iterations come near the 100,000-step budget.
import sys
import threading

N = int(sys.argv[1]) if len(sys.argv) > 1 else 50

lock = threading.Lock()
total = 0
done = []


def work(name):
    global total
    for i in range(1, N + 1):
        with lock:
            total += i
    with lock:
        done.append(name)


threads = [threading.Thread(target=work, args=(f"w{k}",)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"total {total} workers {len(done)}")
assert total == 4 * N * (N + 1) // 2 and sorted(done) == ["w0", "w1", "w2", "w3"]
