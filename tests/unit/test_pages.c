/* timeout: 60 */
/* models/pages: the page states of break mode on memory ownership, on
 * recorded access sequences (the shapes of tests/programs), and the generic
 * hash table under them (models/htab). */
#include <stdlib.h>

#include "models/htab.h"
#include "models/pages.h"
#include "tests/unit/tap.h"

/* Vector clocks of up to 4 threads: vc[t][u] = the last event of u that
 * happens before t's current point. */
static uint32_t vc[4][4];

static bool ordered(void *arg, int earlier, uint32_t epoch, int tid)
{
	(void)arg;
	return epoch <= vc[tid][earlier];
}

static void reset_clocks(void)
{
	memset(vc, 0, sizeof(vc));
}

/* t's event number n happens before u's current point (a create, a join, a
 * release/acquire): u learns everything t knew. */
static void sync_to(int t, uint32_t n, int u)
{
	for (int k = 0; k < 4; k++)
		if (vc[t][k] > vc[u][k])
			vc[u][k] = vc[t][k];
	if (n > vc[u][t])
		vc[u][t] = n;
}

static void test_htab(void)
{
	struct cts_htab *h = cts_htab_new(sizeof(uint64_t), sizeof(uint32_t));
	enum { N = 5000 };
	bool ok = true;
	for (uint64_t k = 0; k < N; k++) {
		bool added;
		uint32_t *v = cts_htab_put(h, &(uint64_t){ k * 4096 }, &added);
		ok &= added && *v == 0;
		*v = (uint32_t)k + 1;
	}
	tap_ok(ok, "htab: %d keys inserted, each new and zeroed", N);
	tap_is_int(cts_htab_count(h), N, "htab: count");
	for (uint64_t k = 0; k < N; k += 2)
		ok &= cts_htab_del(h, &(uint64_t){ k * 4096 });
	tap_ok(ok, "htab: every other key deleted");
	tap_ok(!cts_htab_del(h, &(uint64_t){ 0 }), "htab: a deleted key is gone");
	for (uint64_t k = 0; k < N; k++) {
		uint32_t *v = cts_htab_get(h, &(uint64_t){ k * 4096 });
		ok &= (k % 2) ? (v && *v == k + 1) : !v;
	}
	tap_ok(ok, "htab: the others found with their values after the deletions (backward shift)");
	{
		uint64_t few[4] = { 0 };
		size_t all = cts_htab_u64_keys(h, NULL, 0);
		size_t got = cts_htab_u64_keys(h, few, 4);
		tap_ok(all == N / 2 && got == N / 2 && few[0] == 4096 && few[1] == 3 * 4096 &&
			       few[3] == 7 * 4096,
		       "htab: u64_keys counts every key and gives the smallest ascending (%zu)", all);
	}
	size_t pos = 0, n = 0;
	const void *key;
	void *val;
	uint64_t sum = 0;
	while (cts_htab_next(h, &pos, &key, &val)) {
		uint64_t k;
		memcpy(&k, key, sizeof(k));
		sum += k / 4096;
		n++;
	}
	tap_ok(n == N / 2 && sum == (uint64_t)(N / 2) * (N / 2), "htab: iteration visits each entry once");
	cts_htab_clear(h);
	tap_ok(!cts_htab_count(h) && !cts_htab_get(h, &(uint64_t){ 4096 }), "htab: clear");
	cts_htab_free(h);
}

/* A read that takes over a written unit keeps the write: a later reader
 * not ordered after the write conflicts with it (the hole this closes:
 * main creates t2, writes x, creates t1; t1 reads x, then t2, and the
 * race of main's write and t2's read was hidden). On pages and lines. */
static void test_last_write(unsigned shift)
{
	const char *u = shift == 6 ? "lines" : "pages";
	struct cts_pages *p = cts_pages_new_unit(ordered, NULL, shift);
	uint64_t x = 0x555555558010;
	reset_clocks();
	cts_pages_begin_run(p);
	sync_to(0, 1, 2);					/* event 1: create t2 */
	cts_pages_access(p, 0, x, 8, true, 2);			/* main writes x */
	sync_to(0, 2, 1);					/* event 2: create t1 */
	tap_is_int(cts_pages_access(p, 1, x, 8, false, 1), CTS_PAGE_NATIVE,
		   "last write (%s): t1, created after main's write, reads x: a hand-off", u);
	tap_ok(!cts_pages_grantable(p, 2, x, 8, false),
	       "last write (%s): x is not t2's to read unseen (the write is not before it)", u);
	tap_is_int(cts_pages_check(p, 2, x, 8, false, 1), CTS_PAGE_CONFLICT,
		   "last write (%s): t2 reading x, unordered with main's write: a conflict", u);
	tap_is_int(cts_pages_access(p, 2, x, 8, false, 1), CTS_PAGE_CONFLICT,
		   "last write (%s): ...made: the run is void", u);

	/* Configuration written before both threads exist: no conflict.
	 * (Another page: x is learned.) */
	x += 4096;
	reset_clocks();
	cts_pages_begin_run(p);
	cts_pages_access(p, 0, x, 8, true, 1);
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	tap_is_int(cts_pages_access(p, 1, x, 8, false, 1), CTS_PAGE_NATIVE,
		   "last write (%s): config written before the creates, t1 reads", u);
	tap_is_int(cts_pages_access(p, 2, x, 8, false, 1), CTS_PAGE_NATIVE,
		   "last write (%s): ...and t2: read-shared, no conflict", u);
	tap_ok(cts_pages_grantable(p, 2, x, 8, false) && !cts_pages_grantable(p, 2, x, 8, true),
	       "last write (%s): readable by t2, not writable", u);

	/* t2 ordered after the write by a later event of main's. */
	x += 4096;
	reset_clocks();
	cts_pages_begin_run(p);
	sync_to(0, 1, 2);
	cts_pages_access(p, 0, x, 8, true, 2);
	sync_to(0, 2, 1);
	cts_pages_access(p, 1, x, 8, false, 1);
	sync_to(0, 3, 2);					/* main signals t2 after the write */
	tap_is_int(cts_pages_access(p, 2, x, 8, false, 2), CTS_PAGE_NATIVE,
		   "last write (%s): t2 ordered after the write (a later sync) reads: no conflict", u);
	cts_pages_free(p);
}

/* A question changes nothing: a dry check that found some readers ordered
 * before the asking thread dropped them, and a later writer not ordered
 * after a dropped reader went on unseen. Threads 1..4 (vc is 4 wide:
 * t1-t3 only, t0 as the fourth). */
static void test_dry_check(unsigned shift)
{
	const char *u = shift == 6 ? "lines" : "pages";
	struct cts_pages *p = cts_pages_new_unit(ordered, NULL, shift);
	const uint64_t x = 0x55555555c008;
	reset_clocks();
	cts_pages_begin_run(p);
	cts_pages_access(p, 1, x, 8, false, 1);		/* t1 reads x */
	cts_pages_access(p, 2, x, 8, false, 1);		/* t2 reads x: read-shared */
	sync_to(1, 1, 3);				/* t1's event 1 before t3's point */
	sync_to(2, 1, 0);				/* t2's event 1 before t0's point */
	tap_is_int(cts_pages_check(p, 3, x, 8, true, 1), CTS_PAGE_CONFLICT,
		   "dry check (%s): t3's write would meet t2's read, unordered", u);
	tap_is_int(cts_pages_access(p, 0, x, 8, true, 1), CTS_PAGE_CONFLICT,
		   "dry check (%s): ...and changed nothing: t0's write meets t1's read, unordered", u);
	cts_pages_free(p);
}

/* Soundness against a reference on random runs: 4 threads making reads and
 * writes of 1-16 bytes on two pages, events and synchronizations among
 * them, and questions (dry checks) in between. The reference keeps every
 * access and its epoch; an access that meets an earlier one of another
 * thread (a byte in common, one a write) not ordered before it must be a
 * conflict for the model, whatever came before (a question too), up to
 * the run's first conflict (the run is void from there). The model may
 * conflict more (pages are coarser than bytes), never less. And
 * a page the model says a thread may be granted (to run on unseen) holds
 * no byte such an access of that thread would race on. */
struct ref_acc {
	int tid;
	uint32_t epoch;
	uint64_t lo, hi;
	bool write;
};

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

static bool ref_conflict(const struct ref_acc *h, size_t n, const struct ref_acc *a)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].tid != a->tid && h[i].lo < a->hi && a->lo < h[i].hi &&
		    (h[i].write || a->write) && !ordered(NULL, h[i].tid, h[i].epoch, a->tid))
			return true;
	return false;
}

static void test_reference(unsigned shift, int runs)
{
	enum { STEPS = 60 };
	const uint64_t base = 0x7f0000001000ull;
	int missed = 0, checked = 0, grants = 0, bad_grants = 0, extra = 0;
	uint64_t first_missed = 0;
	rng_state = shift;
	for (int run = 0; run < runs; run++) {
		struct cts_pages *p = cts_pages_new_unit(ordered, NULL, shift);
		struct ref_acc h[STEPS];
		size_t nh = 0;
		uint32_t ep[4] = { 1, 1, 1, 1 };
		reset_clocks();
		cts_pages_begin_run(p);
		for (int s = 0; s < STEPS; s++) {
			int t = (int)rnd(4), k = (int)rnd(100);
			if (k < 15) {
				ep[t]++; /* t executes an event */
				continue;
			}
			if (k < 30) {
				int u = (int)rnd(4);
				if (u != t && ep[t] > 1)
					sync_to(t, ep[t] - 1, u); /* t's last event before u's point */
				continue;
			}
			/* a few hot bytes: near line ends, and a page edge */
			static const uint64_t at[] = { 0, 8, 56, 60, 64, 100, 4088, 4092, 4096, 4100 };
			struct ref_acc a = { t, ep[t], base + at[rnd(10)], 0, rnd(2) == 0 };
			a.hi = a.lo + 1 + rnd(16);
			if (k < 35) {
				cts_pages_check(p, t, a.lo, a.hi - a.lo, a.write, a.epoch);
				continue;
			}
			if (k < 40) {
				uint64_t pg = a.lo & ~(CTS_PAGE_SIZE - 1);
				if (!cts_pages_grantable(p, t, pg, CTS_PAGE_SIZE, a.write))
					continue;
				grants++;
				for (uint64_t b = pg; b < pg + CTS_PAGE_SIZE; b += 4) {
					struct ref_acc g = { t, ep[t], b, b + 4, a.write };
					if (ref_conflict(h, nh, &g)) {
						bad_grants++;
						break;
					}
				}
				continue;
			}
			bool must = ref_conflict(h, nh, &a);
			enum cts_page_verdict v =
				cts_pages_access(p, t, a.lo, a.hi - a.lo, a.write, a.epoch);
			checked += must;
			extra += !must && v == CTS_PAGE_CONFLICT;
			if (must && v != CTS_PAGE_CONFLICT) {
				if (!missed++)
					first_missed = (uint64_t)run;
			}
			if (v == CTS_PAGE_CONFLICT)
				break; /* the run is void */
			h[nh++] = a;
		}
		cts_pages_free(p);
	}
	tap_ok(missed == 0 && checked > runs / 10,
	       "reference (%s): %d random runs, %d racing accesses, none native (%d missed, first in run %llu)",
	       shift == 6 ? "lines" : "pages", runs, checked, missed, (unsigned long long)first_missed);
	tap_ok(bad_grants == 0 && grants > runs / 10,
	       "reference (%s): %d pages grantable, none holding a byte the grantee would race on (%d did)",
	       shift == 6 ? "lines" : "pages", grants, bad_grants);
	/* Lines are decided by bytes: a conflict the reference does not have
	 * is rare there (a writer's bytes kept as another's when the last-write
	 * slot is taken, a full reader table); on pages it is the unit's. */
	if (shift == 6)
		tap_ok(extra * 100 < checked,
		       "reference (lines): conflicts without a racing byte: %d of %d", extra, checked);
	else
		tap_ok(extra > 0, "reference (pages): conflicts of the page, no byte in common: %d", extra);
}

/* Lines are decided by bytes: threads writing neighbouring bytes of one
 * line, unordered, leave it split, no conflict; a byte in common is one. */
static void test_split_line(void)
{
	struct cts_pages *p = cts_pages_new_unit(ordered, NULL, 6);
	const uint64_t l = 0x55555555d040;
	reset_clocks();
	cts_pages_begin_run(p);
	tap_is_int(cts_pages_access(p, 1, l, 8, true, 1), CTS_PAGE_NATIVE, "split: t1 writes bytes 0-7");
	tap_is_int(cts_pages_access(p, 2, l + 8, 8, true, 1), CTS_PAGE_NATIVE,
		   "split: t2 writes bytes 8-15 of the line, unordered: no byte in common, native");
	tap_ok(cts_pages_info(p, l).state == CTS_PAGE_SPLIT && !cts_pages_grantable(p, 1, l, 8, false) &&
	       !cts_pages_grantable(p, 2, l + 8, 8, false),
	       "split: the line is split, its page grantable to neither (decided per access)");
	tap_is_int(cts_pages_access(p, 3, l + 16, 48, false, 1), CTS_PAGE_NATIVE,
		   "split: t3 reads the rest of the line: native");
	tap_is_int(cts_pages_check(p, 3, l + 4, 8, false, 1), CTS_PAGE_CONFLICT,
		   "split: t3 reading bytes 4-11 would meet both writes: a conflict");
	sync_to(1, 1, 2);
	tap_is_int(cts_pages_access(p, 2, l, 8, false, 1), CTS_PAGE_NATIVE,
		   "split: t2, after t1's event 1, reads t1's bytes: ordered, native");
	tap_is_int(cts_pages_access(p, 3, l + 2, 2, true, 1), CTS_PAGE_CONFLICT,
		   "split: t3 writing t1's bytes, unordered with t1's write and t2's read: conflict");
	cts_pages_free(p);
}

int main(void)
{
	test_htab();
	test_split_line();
	test_reference(6, 20000);
	test_reference(CTS_PAGE_SHIFT, 20000);
	test_dry_check(6);
	test_dry_check(CTS_PAGE_SHIFT);
	test_last_write(6);
	test_last_write(CTS_PAGE_SHIFT);

	struct cts_pages *p = cts_pages_new(ordered, NULL);
	const uint64_t counter = 0x55555555802c, heap = 0x5555555a0000;

	/* counter.c: main creates t1 and t2 (their events 1), each loads and
	 * stores counter with no lock. */
	reset_clocks();
	cts_pages_begin_run(p);
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	tap_is_int(cts_pages_access(p, 1, counter, 4, false, 1), CTS_PAGE_NATIVE,
		   "counter: t1's load of an untouched page: native, t1 owns it");
	tap_is_int(cts_pages_access(p, 1, counter, 4, true, 1), CTS_PAGE_NATIVE,
		   "counter: t1's store to its own page: native");
	tap_is_int(cts_pages_access(p, 2, counter, 4, false, 1), CTS_PAGE_CONFLICT,
		   "counter: t2's load of t1's written page, unordered: a conflict (the run is void)");
	tap_is_int(cts_pages_take_new(p), 1, "counter: one page learned");
	tap_is_int(cts_pages_take_new(p), 0, "counter: ...taken once");
	cts_pages_begin_run(p);
	tap_is_int(cts_pages_access(p, 1, counter, 4, false, 1), CTS_PAGE_VISIBLE,
		   "counter: the next run sees t1's first load (the page is shared from the first step)");
	tap_ok(cts_pages_info(p, counter).learned && cts_pages_prot(p, 1, counter) == CTS_PROT_NONE,
	       "counter: a learned page is protected from every thread");

	/* Private slices (par_sum): each thread writes its own page, main reads
	 * both after joining. */
	reset_clocks();
	cts_pages_begin_run(p);
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	tap_is_int(cts_pages_access(p, 0, heap, 8192, true, 1), CTS_PAGE_NATIVE,
		   "slices: main fills both pages before creating the threads");
	tap_is_int(cts_pages_access(p, 1, heap, 8, true, 1), CTS_PAGE_NATIVE,
		   "slices: t1 takes page 0 from main (main's fill happens before t1)");
	tap_is_int(cts_pages_access(p, 2, heap + 4096, 8, true, 1), CTS_PAGE_NATIVE,
		   "slices: t2 takes page 1");
	tap_is_int(cts_pages_access(p, 1, heap + 8, 4000, true, 1), CTS_PAGE_NATIVE,
		   "slices: t1's other writes to its page: native");
	tap_ok(cts_pages_prot(p, 1, heap) == CTS_PROT_RW && cts_pages_prot(p, 2, heap) == CTS_PROT_NONE,
	       "slices: t1 may use page 0 while it runs, t2 may not");
	sync_to(1, 2, 0); /* t1 exits (its event 2), main joins it */
	sync_to(2, 2, 0);
	tap_is_int(cts_pages_access(p, 0, heap, 8192, false, 4), CTS_PAGE_NATIVE,
		   "slices: main's read of both after the joins: a hand-off, native");
	tap_is_int(cts_pages_take_new(p), 0, "slices: nothing learned");

	/* A block handed over under a lock (main's unlock is its event 2). */
	reset_clocks();
	cts_pages_begin_run(p);
	sync_to(0, 1, 1);
	cts_pages_access(p, 0, heap, 64, true, 2);  /* written before the unlock */
	sync_to(0, 2, 1);                           /* t1's lock after main's unlock */
	tap_is_int(cts_pages_access(p, 1, heap, 64, false, 2), CTS_PAGE_NATIVE,
		   "queue: a block last written before the producer's release: a hand-off");
	tap_ok(cts_pages_info(p, heap).owner == 1, "queue: the consumer owns it now");
	/* The producer writes the page again after its release (its epoch 3). */
	reset_clocks();
	cts_pages_begin_run(p);
	sync_to(0, 1, 1);
	cts_pages_access(p, 0, heap, 64, true, 2);
	sync_to(0, 2, 1);
	cts_pages_access(p, 0, heap + 64, 64, true, 3);
	tap_is_int(cts_pages_access(p, 1, heap, 64, false, 2), CTS_PAGE_CONFLICT,
		   "queue: the consumer's read of a page the producer wrote after its release: conflict");
	tap_is_int(cts_pages_take_new(p), 1, "queue: the page is learned");
	cts_pages_free(p);

	p = cts_pages_new(ordered, NULL);
	/* A table main fills, read by two threads, then written by one. */
	reset_clocks();
	cts_pages_begin_run(p);
	const uint64_t table = 0x555555600000;
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	tap_is_int(cts_pages_access(p, 1, table, 4, false, 1), CTS_PAGE_NATIVE, "table: t1 reads");
	tap_is_int(cts_pages_access(p, 2, table + 64, 4, false, 1), CTS_PAGE_NATIVE,
		   "table: t2 reads too: read-shared, native");
	tap_ok(cts_pages_info(p, table).state == CTS_PAGE_READ_SHARED &&
	       cts_pages_prot(p, 1, table) == CTS_PROT_READ && cts_pages_prot(p, 3, table) == CTS_PROT_READ,
	       "table: read-shared pages are readable by every thread, writable by none");
	tap_is_int(cts_pages_access(p, 1, table, 4, false, 1), CTS_PAGE_NATIVE, "table: re-reads: native");
	tap_is_int(cts_pages_access(p, 2, table, 4, true, 1), CTS_PAGE_CONFLICT,
		   "table: a write while another reader is unordered: conflict");
	cts_pages_take_new(p);

	/* The same, with the write after joining the other reader. */
	reset_clocks();
	cts_pages_begin_run(p);
	const uint64_t table2 = 0x555555700000;
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	cts_pages_access(p, 1, table2, 4, false, 1);
	cts_pages_access(p, 2, table2, 4, false, 1);
	sync_to(1, 2, 0);
	sync_to(2, 2, 0);
	tap_is_int(cts_pages_access(p, 0, table2, 4, true, 4), CTS_PAGE_NATIVE,
		   "table: main's write after joining both readers: a hand-off");

	/* Many readers: the set overflows, a later write conflicts. */
	reset_clocks();
	cts_pages_begin_run(p);
	const uint64_t wide = 0x555555800000;
	for (int t = 0; t < 4; t++)
		cts_pages_access(p, t, wide, 1, false, 1);
	tap_ok(cts_pages_info(p, wide).state == CTS_PAGE_READ_SHARED, "4 readers: read-shared");
	tap_is_int(cts_pages_access(p, 0, wide, 1, true, 1), CTS_PAGE_CONFLICT,
		   "4 unordered readers, then a write: conflict");

	/* A range access (a system call's buffer) spanning an owned and a learned page. */
	reset_clocks();
	cts_pages_begin_run(p);
	const uint64_t buf = wide - 100;
	tap_is_int(cts_pages_access(p, 1, buf, 200, true, 1), CTS_PAGE_VISIBLE,
		   "a range over a fresh page and a learned one: visible (the worst page)");
	tap_ok(cts_pages_info(p, buf).owner == 1, "...and the fresh page is owned by the thread");

	uint64_t out[8];
	size_t n = cts_pages_learned(p, out, 8);
	tap_ok(n == 2 && out[0] < out[1] &&
	       out[0] == (0x555555600000 >> CTS_PAGE_SHIFT),
	       "the learned set: the table and the wide page, ascending (%zu)", n);
	struct cts_pages_stats st;
	cts_pages_get_stats(p, &st);
	tap_ok(st.accesses == st.native + st.visible + st.conflicts && st.handoffs == 1,
	       "stats add up (%llu accesses, %llu hand-offs)", (unsigned long long)st.accesses,
	       (unsigned long long)st.handoffs);
	cts_pages_free(p);

	/* The same states on 64-byte lines: two variables of one page, one
	 * read by every thread, one written under a lock, do not conflict. */
	struct cts_pages *l = cts_pages_new_unit(ordered, NULL, 6);
	reset_clocks();
	cts_pages_begin_run(l);
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	const uint64_t config = 0x555555558010, total = 0x555555558080;
	cts_pages_access(l, 1, config, 4, false, 1);
	cts_pages_access(l, 2, config, 4, false, 1);
	cts_pages_access(l, 1, total, 8, true, 1);
	sync_to(1, 2, 2); /* t1's unlock (its event 2), t2's lock */
	tap_is_int(cts_pages_access(l, 2, total, 8, true, 2), CTS_PAGE_NATIVE,
		   "lines: a total handed over under a lock, beside a config both threads read: native");
	tap_ok(cts_pages_info(l, config).state == CTS_PAGE_READ_SHARED &&
	       cts_pages_info(l, total).owner == 2, "lines: the config line read-shared, the total t2's");
	cts_pages_free(l);

	/* The live mechanism's use (tracer/own.c): learning deferred to the
	 * void run's commit, a verdict asked without changing anything, heap
	 * blocks freed and allocated again. */
	struct cts_pages *d = cts_pages_new_unit(ordered, NULL, 6);
	cts_pages_defer(d);
	reset_clocks();
	cts_pages_begin_run(d);
	const uint64_t x = 0x5555555a0040;
	cts_pages_access(d, 1, x, 4, true, 1);
	tap_is_int(cts_pages_check(d, 2, x, 4, false, 1), CTS_PAGE_CONFLICT,
		   "check: an unordered read of t1's written line would conflict");
	tap_ok(cts_pages_info(d, x).state == CTS_PAGE_OWNED && cts_pages_info(d, x).owner == 1,
	       "check: ...and changed nothing");
	sync_to(1, 1, 2);
	tap_is_int(cts_pages_check(d, 2, x, 4, false, 1), CTS_PAGE_NATIVE,
		   "check: once the clocks order t1's write before t2, a hand-off");
	reset_clocks();
	tap_is_int(cts_pages_access(d, 2, x, 4, false, 1), CTS_PAGE_CONFLICT,
		   "deferred: an unordered read conflicts");
	tap_is_int(cts_pages_access(d, 1, x, 4, true, 1), CTS_PAGE_VISIBLE,
		   "deferred: the line is shared for the rest of the run");
	tap_is_int(cts_pages_learned(d, NULL, 0), 0, "deferred: nothing learned before the commit");
	cts_pages_begin_run(d);
	tap_is_int(cts_pages_commit(d), 0, "deferred: a new run forgets an uncommitted conflict");
	cts_pages_access(d, 1, x, 4, true, 1);
	cts_pages_access(d, 2, x, 4, true, 1);
	tap_is_int(cts_pages_commit(d), 1, "deferred: the commit learns the run's conflict");
	cts_pages_begin_run(d);
	tap_is_int(cts_pages_access(d, 1, x, 4, false, 1), CTS_PAGE_VISIBLE, "deferred: learned for good");

	/* A block [blk, blk+200) freed by t1 and allocated again by t2, with
	 * no clock between them (the allocator's own lock is not seen). */
	reset_clocks();
	cts_pages_begin_run(d);
	const uint64_t blk = 0x5555555b0010;
	cts_pages_access(d, 1, blk, 200, true, 1);
	cts_pages_freed(d, blk, 200);
	tap_is_int(cts_pages_access(d, 1, blk + 64, 8, false, 2), CTS_PAGE_VISIBLE,
		   "freed: the owner's own later access is visible (a use after free)");
	tap_is_int(cts_pages_allocated(d, 2, blk, 200, 1), CTS_PAGE_VISIBLE,
		   "allocated: the edge lines, freed in this run, stay visible");
	tap_ok(cts_pages_info(d, blk + 64).owner == 2 && cts_pages_info(d, blk + 128).owner == 2,
	       "allocated: the lines wholly inside the new block are t2's");
	tap_is_int(cts_pages_access(d, 2, blk + 64, 8, true, 1), CTS_PAGE_NATIVE,
		   "allocated: t2 writes its new block natively");
	tap_is_int(cts_pages_access(d, 1, blk + 100, 8, false, 2), CTS_PAGE_CONFLICT,
		   "allocated: t1 touching t2's block unordered conflicts");
	/* A 1 GiB block is not walked line by line: the lines the run touched
	 * in it are checked, and the rest of the run shows every access. */
	reset_clocks();
	cts_pages_begin_run(d);
	const uint64_t big = 0x7fffd0000000;
	cts_pages_access(d, 1, big + 4096, 8, true, 1);
	tap_is_int(cts_pages_allocated(d, 2, big, 1ull << 30, 1), CTS_PAGE_CONFLICT,
		   "big block: a line t1 wrote in it, unordered, conflicts");
	tap_is_int(cts_pages_access(d, 3, 0x5555555c0000, 8, true, 1), CTS_PAGE_VISIBLE,
		   "big block: the rest of the run shows every access");
	cts_pages_begin_run(d);
	cts_pages_commit(d);
	tap_is_int(cts_pages_access(d, 3, 0x5555555c0000, 8, true, 1), CTS_PAGE_NATIVE,
		   "big block: ...that run only");
	cts_pages_learn_all(d);
	tap_is_int(cts_pages_check(d, 3, 0x7000, 8, false, 1), CTS_PAGE_VISIBLE,
		   "learn_all: every access visible");
	cts_pages_free(d);

	/* The fault mechanism's use (tracer/fault.c): whole pages granted to
	 * one thread, claimed for it when it stops, handed over whole. */
	struct cts_pages *g = cts_pages_new_unit(ordered, NULL, 6);
	cts_pages_defer(g);
	reset_clocks();
	cts_pages_begin_run(g);
	sync_to(0, 1, 1);
	sync_to(0, 2, 2);
	const uint64_t arr = 0x7ffff7a00000;
	tap_ok(cts_pages_grantable(g, 0, arr, 4096, true), "grant: an untouched page, to write");
	cts_pages_claim(g, 0, arr, 2 * 4096, true, 1); /* main filled two pages before creating */
	tap_ok(cts_pages_info(g, arr + 4032).owner == 0 && cts_pages_info(g, arr + 4032).written &&
	       cts_pages_info(g, arr + 4096).owner == 0,
	       "claim: every line of the granted pages is main's, written");
	tap_ok(!cts_pages_grantable(g, 1, arr, 4096, false),
	       "grant: main's written page is not t1's before the hand-off");
	tap_is_int(cts_pages_check(g, 1, arr, 4096, false, 1), CTS_PAGE_NATIVE,
		   "hand-off: t1 (created after the fill) may take main's whole page");
	cts_pages_access(g, 1, arr, 4096, false, 1);
	tap_ok(cts_pages_grantable(g, 1, arr, 4096, false) && cts_pages_info(g, arr + 64).owner == 1,
	       "hand-off: ...then it is t1's, every line");
	tap_ok(cts_pages_grantable(g, 2, arr, 4096, false) && !cts_pages_grantable(g, 2, arr, 4096, true),
	       "grant: a page only read so far may be granted to another reader, not to a writer");
	cts_pages_access(g, 2, arr + 128, 8, false, 1);
	tap_ok(cts_pages_info(g, arr + 128).state == CTS_PAGE_READ_SHARED &&
	       cts_pages_info(g, arr + 192).owner == 1,
	       "one line read by t2: that line read-shared, the page's others still t1's");
	tap_is_int(cts_pages_check(g, 0, arr, 4096, true, 2), CTS_PAGE_CONFLICT,
		   "main writing the page again while t1 and t2 read it unordered: conflict");
	sync_to(1, 2, 0);
	sync_to(2, 2, 0);
	tap_is_int(cts_pages_access(g, 0, arr, 4096, true, 4), CTS_PAGE_NATIVE,
		   "...after joining both: a hand-off of the whole page");
	tap_is_int(cts_pages_access(g, 0, arr + 4096, 4096, false, 4), CTS_PAGE_NATIVE,
		   "main re-reads its other page: native");
	tap_is_int(cts_pages_commit(g), 0, "whole pages: nothing learned");
	/* A conflict with what only a claim says (t1 was granted the page and
	 * may have written any line of it) is the page's: the page is learned
	 * as decided per access, no line is. */
	reset_clocks();
	cts_pages_begin_run(g);
	cts_pages_claim(g, 1, arr, 4096, true, 1);
	tap_is_int(cts_pages_access(g, 2, arr, 4096, false, 1), CTS_PAGE_CONFLICT,
		   "an unordered read of a page t1 was granted: conflict");
	tap_is_int(cts_pages_commit(g), 1, "...one page learned, decided per access from now on");
	tap_ok(cts_pages_per_access(g, arr >> 12) && cts_pages_learned(g, NULL, 0) == 0,
	       "...and no line learned");
	cts_pages_begin_run(g);
	tap_ok(!cts_pages_grantable(g, 1, arr, 4096, false) &&
	       cts_pages_grantable(g, 1, arr + 4096, 4096, true),
	       "a page decided per access is never granted; its neighbour is");
	/* The next run, per access: t1 writes one line, t2 another (two small
	 * blocks on one page): no conflict; t2 reading t1's line unordered is
	 * a real one and learns that line only. */
	reset_clocks();
	tap_is_int(cts_pages_access(g, 1, arr, 64, true, 1), CTS_PAGE_NATIVE,
		   "per access: t1 writes its line");
	tap_is_int(cts_pages_access(g, 2, arr + 64, 64, true, 1), CTS_PAGE_NATIVE,
		   "per access: t2 writes its own line of the same page");
	tap_is_int(cts_pages_access(g, 2, arr, 8, false, 1), CTS_PAGE_CONFLICT,
		   "per access: t2 reads t1's line unordered: a real conflict");
	tap_is_int(cts_pages_commit(g), 1, "...that line learned");
	tap_ok(cts_pages_learned(g, NULL, 0) == 1 && cts_pages_info(g, arr).learned,
	       "...only that line");
	/* A real access at the claim's epoch makes the state known. */
	reset_clocks();
	cts_pages_begin_run(g);
	cts_pages_claim(g, 1, arr + 8192, 4096, true, 1);
	cts_pages_access(g, 1, arr + 8192, 8, true, 1);
	tap_is_int(cts_pages_access(g, 2, arr + 8192, 8, false, 1), CTS_PAGE_CONFLICT,
		   "a line t1 was seen writing, read by t2 unordered: conflict");
	tap_ok(cts_pages_commit(g) == 1 && cts_pages_info(g, arr + 8192).learned &&
	       !cts_pages_per_access(g, (arr + 8192) >> 12),
	       "...a real one: the line is learned, not the page");
	cts_pages_free(g);

	/* Big ranges on lines: a 4 MiB memset of a fresh block and its free
	 * are walked a page at a time, not every later access made visible;
	 * only a range past 256 MiB (or one that wraps) gives up. */
	struct cts_pages *b = cts_pages_new_unit(ordered, NULL, 6);
	const uint64_t bb = 0x7f0000000000ull, mib4 = 4ull << 20;
	reset_clocks();
	cts_pages_begin_run(b);
	tap_is_int(cts_pages_allocated(b, 1, bb, mib4, 1), CTS_PAGE_NATIVE, "big: t1 allocates 4 MiB");
	tap_is_int(cts_pages_access(b, 1, bb, mib4, true, 1), CTS_PAGE_NATIVE,
		   "big: t1 clears it, natively");
	tap_ok(cts_pages_grantable(b, 1, bb + mib4 - 4096, 4096, true) &&
	       !cts_pages_grantable(b, 2, bb + 4096, 4096, false),
	       "big: its pages are t1's to be granted, not t2's");
	tap_is_int(cts_pages_access(b, 2, bb + 2 * 4096, 8, false, 1), CTS_PAGE_CONFLICT,
		   "big: t2 reading it unordered is a conflict");
	cts_pages_commit(b);
	cts_pages_begin_run(b);
	cts_pages_access(b, 1, bb + 8 * 4096, mib4 - 8 * 4096, true, 1);
	cts_pages_freed(b, bb + 8 * 4096, mib4 - 8 * 4096);
	tap_ok(cts_pages_info(b, bb + 100 * 4096).state == CTS_PAGE_SHARED &&
	       !cts_pages_info(b, bb + 100 * 4096).learned &&
	       cts_pages_grantable(b, 1, bb + 4 * 4096, 4096, true),
	       "big: a freed 4 MiB block is shared for this run, not learned; the rest stays");
	cts_pages_begin_run(b);
	tap_ok(cts_pages_info(b, bb + 100 * 4096).state == CTS_PAGE_UNTOUCHED,
	       "big: ...and untouched in the next run");
	cts_pages_access(b, 1, bb, 512ull << 20, true, 1);
	tap_ok(!cts_pages_grantable(b, 1, bb, 4096, true),
	       "big: a 512 MiB range: every access visible for the rest of the run");
	cts_pages_free(b);
	return tap_done();
}
