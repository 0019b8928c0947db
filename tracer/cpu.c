#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracer/cpu.h"
#include "tracer/proc.h"

static void pin_to(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

void cts_cpu_pin_nth(unsigned n)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return;
	int count = CPU_COUNT(&allowed);
	if (count <= 1)
		return;
	int want = (int)(n % (unsigned)count);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (CPU_ISSET(cpu, &allowed) && want-- == 0) {
			pin_to(cpu);
			return;
		}
	}
}

/* For each CPU, how many other tracers (processes named self) are pinned to
 * it; *lower: whether one with a lower pid is pinned to CPU mine. */
static void count_pinned(const char *self, unsigned *pinned, int mine, bool *lower)
{
	memset(pinned, 0, CPU_SETSIZE * sizeof(*pinned));
	*lower = false;
	pid_t *pids;
	size_t n;
	if (cts_proc_pids(&pids, &n) != 0)
		return;
	pid_t me = getpid();
	char comm[32];
	for (size_t i = 0; i < n; i++) {
		pid_t pid = pids[i];
		cpu_set_t set;
		if (pid == me)
			continue;
		cts_proc_comm(pid, comm, sizeof(comm));
		if (strcmp(comm, self) != 0 || sched_getaffinity(pid, sizeof(set), &set) != 0 ||
		    CPU_COUNT(&set) != 1)
			continue;
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &set))
				continue;
			pinned[cpu]++;
			if (cpu == mine && pid < me)
				*lower = true;
		}
	}
	free(pids);
}

/* The allowed CPU with the fewest tracers pinned; prefer (on a tie) cpu. */
static int least_used(const cpu_set_t *allowed, const unsigned *pinned, int cpu)
{
	int best = cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, allowed) ? cpu : -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed) && (best < 0 || pinned[c] < pinned[best]))
			best = c;
	return best;
}

void cts_cpu_pin_least_used(void)
{
	cpu_set_t allowed;
	char self[32];
	bool lower;
	static unsigned pinned[CPU_SETSIZE];
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) <= 1)
		return;
	cts_proc_comm(getpid(), self, sizeof(self));
	if (!self[0])
		return;
	count_pinned(self, pinned, -1, &lower);
	int cpu = least_used(&allowed, pinned, sched_getcpu());
	pin_to(cpu);
	/* Tracers started at the same moment may all have counted before any
	 * of them pinned itself: look once more, and of those now sharing a
	 * CPU the ones with higher pids move where fewer are. */
	count_pinned(self, pinned, cpu, &lower);
	int other = least_used(&allowed, pinned, cpu);
	if (lower && pinned[other] < pinned[cpu])
		pin_to(other);
}
