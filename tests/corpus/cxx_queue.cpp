// cxx_queue.cpp — a C++17 bounded work queue: std::thread, std::mutex,
// std::condition_variable and std::atomic.  2 producers push 1..25 each into
// a 4-slot queue; 2 consumers pop until they see a sentinel and add what they
// pop to an atomic sum.  Prints "sum 650 items 50" and exits 0; any other
// result aborts.  No bug: every schedule must come back clean, with no race
// report (the queue is only touched under the mutex).
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr int per_producer = 25;
constexpr std::size_t capacity = 4;

class BoundedQueue {
public:
	void push(int v)
	{
		std::unique_lock<std::mutex> lk(m_);
		not_full_.wait(lk, [this] { return q_.size() < capacity; });
		q_.push_back(v);
		not_empty_.notify_one();
	}

	int pop()
	{
		std::unique_lock<std::mutex> lk(m_);
		not_empty_.wait(lk, [this] { return !q_.empty(); });
		int v = q_.front();
		q_.pop_front();
		not_full_.notify_one();
		return v;
	}

private:
	std::mutex m_;
	std::condition_variable not_full_, not_empty_;
	std::deque<int> q_;
};

}  // namespace

int main()
{
	BoundedQueue q;
	std::atomic<long> sum{0};
	std::atomic<int> items{0};
	std::vector<std::thread> producers, consumers;

	for (int c = 0; c < 2; c++)
		consumers.emplace_back([&] {
			for (int v; (v = q.pop()) != 0;) {	// 0 is the sentinel
				sum.fetch_add(v);
				items.fetch_add(1);
			}
		});
	for (int p = 0; p < 2; p++)
		producers.emplace_back([&] {
			for (int i = 1; i <= per_producer; i++)
				q.push(i);
		});
	for (auto &t : producers)
		t.join();
	for (int c = 0; c < 2; c++)
		q.push(0);
	for (auto &t : consumers)
		t.join();
	std::printf("sum %ld items %d\n", sum.load(), items.load());
	if (sum.load() != 2L * per_producer * (per_producer + 1) / 2 || items.load() != 2 * per_producer)
		std::abort();
	return 0;
}
