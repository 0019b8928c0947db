# py_workers.py — Python 3 threading: 4 workers each add 1..250 to a shared
# total under a threading.Lock, and append their name to a shared list under
# the same lock.  Prints "total 5100 workers 4" and exits 0; any other
# result fails the assert (exit status 1).  No bug: every schedule must come
# back clean, with no race report (the lock protects everything shared).
import threading

lock = threading.Lock()
total = 0
done = []


def work(name):
    global total
    for i in range(1, 51):
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
assert total == 4 * 50 * 51 // 2 and sorted(done) == ["w0", "w1", "w2", "w3"]
