#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/htab.h"
#include "models/report.h"
#include "tracer/merge.h"
#include "tracer/tracer.h"

#define LISTED 20  /* inconclusive runs listed, as the explorer does */
/* A usage error is one line, the hint at its end. */
#define TRY " (see cts-trace merge --help)"

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static json_int_t geti(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const char *gets(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* A count in o under key, if o has one: never negative (it would take runs
 * or hits away from the other reports'). */
static int check_count(const json_t *o, const char *key, const char *name, const char *where,
		       char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_integer(v) && json_integer_value(v) < 0)
		return fail(err, errlen, "%s: %s\"%s\" is negative (%" JSON_INTEGER_FORMAT "): a count "
			    "cannot be", name, where, key, json_integer_value(v));
	return 0;
}

/* Every counter merge adds up. */
static int check_counts(const json_t *r, const char *name, char *err, size_t errlen)
{
	static const char *const top[] = { "runs", "schedules", "steps" };
	static const char *const shard[] = { "items", "walk_runs", "dropped_runs" };
	static const char *const inst[] = { "searched", "exhausted", "walk_runs" };
	static const char *const lists[] = { "bugs", "divergences" };
	char where[64];
	for (size_t k = 0; k < sizeof(top) / sizeof(top[0]); k++)
		if (check_count(r, top[k], name, "", err, errlen) != 0)
			return -1;
	if (check_count(json_object_get(r, "inconclusive"), "count", name, "inconclusive ",
			err, errlen) != 0)
		return -1;
	for (size_t k = 0; k < sizeof(shard) / sizeof(shard[0]); k++)
		if (check_count(json_object_get(r, "shard"), shard[k], name, "shard ", err,
				errlen) != 0)
			return -1;
	for (size_t k = 0; k < sizeof(inst) / sizeof(inst[0]); k++)
		if (check_count(json_object_get(r, "instances"), inst[k], name, "instances ", err,
				errlen) != 0)
			return -1;
	const json_t *x, *sum = json_object_get(r, "summary");
	const char *key;
	json_object_foreach((json_t *)sum, key, x)
		if (check_count(sum, key, name, "summary ", err, errlen) != 0)
			return -1;
	const json_t *ops = json_object_get(sum, "operations");
	json_object_foreach((json_t *)ops, key, x)
		if (check_count(ops, key, name, "summary operations ", err, errlen) != 0)
			return -1;
	size_t i;
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		json_array_foreach(json_object_get(r, lists[k]), i, x) {
			snprintf(where, sizeof(where), "%s %zu: ", k ? "divergence" : "bug", i);
			if (check_count(x, "hits", name, where, err, errlen) != 0 ||
			    check_count(x, "run", name, where, err, errlen) != 0)
				return -1;
		}
	json_array_foreach(json_object_get(r, "races"), i, x) {
		snprintf(where, sizeof(where), "race %zu: ", i);
		if (check_count(x, "runs", name, where, err, errlen) != 0 ||
		    check_count(x, "first_run", name, where, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* What makes a report one of ours. */
static int check_shape(const json_t *r, const char *name, char *err, size_t errlen)
{
	static const struct { const char *key; json_type type; } need[] = {
		{ "program", JSON_STRING }, { "args", JSON_ARRAY }, { "strategy", JSON_STRING },
		{ "mode", JSON_STRING }, { "runs", JSON_INTEGER }, { "steps", JSON_INTEGER },
		{ "bugs", JSON_ARRAY }, { "races", JSON_ARRAY }, { "inconclusive", JSON_OBJECT },
	};
	if (!json_is_object(r))
		return fail(err, errlen, "%s: not a cts-trace report (not a JSON object)", name);
	if (geti(r, "version") != 1)
		return fail(err, errlen, "%s: not a cts-trace report of version 1", name);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		json_t *v = json_object_get(r, need[i].key);
		if (!v || json_typeof(v) != need[i].type)
			return fail(err, errlen, "%s: not a cts-trace report (\"%s\" missing or of "
				    "the wrong type)", name, need[i].key);
	}
	json_t *b;
	size_t i;
	json_array_foreach(json_object_get(r, "bugs"), i, b)
		if (!json_is_string(json_object_get(b, "kind")) ||
		    !json_is_string(json_object_get(b, "message")))
			return fail(err, errlen, "%s: bug %zu has no kind or message", name, i);
	return check_counts(r, name, err, errlen);
}

/* Equal, a number being its value: 10.0 and 10 are one (jq writes 10.0 as 10). */
static bool same_value(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	return json_equal(a, b);
}

/* Same search: what the run options of every slice must agree on. */
static int check_same(const json_t *a, const json_t *b, const char *na, const char *nb,
		      char *err, size_t errlen)
{
	static const char *const keys[] = { "program", "args", "strategy", "mode", "races_mode" };
	static const char *const skeys[] = { "count", "work", "split_depth", "runs_limit",
					     "max_steps", "timeout" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_equal(json_object_get(a, keys[i]), json_object_get(b, keys[i])) &&
		    (json_object_get(a, keys[i]) || json_object_get(b, keys[i])))
			return fail(err, errlen, "%s and %s are reports of different searches "
				    "(\"%s\" differs)", na, nb, keys[i]);
	/* --instances: instance i is the same in both only if the tiling and
	 * the points learned by the first run are */
	static const char *const ikeys[] = { "tile", "tiles_per_thread", "drawn", "seed",
					     "thread_points", "tile_pick", "hot" };
	const json_t *ia = json_object_get(a, "instances"), *ib = json_object_get(b, "instances");
	if (!ia != !ib)
		return fail(err, errlen, "%s and %s: only one searched instances", na, nb);
	for (size_t i = 0; ia && i < sizeof(ikeys) / sizeof(ikeys[0]); i++)
		if (!json_equal(json_object_get(ia, ikeys[i]), json_object_get(ib, ikeys[i])))
			return fail(err, errlen, "%s and %s drew different instances (instances "
				    "\"%s\" differs%s)", na, nb, ikeys[i],
				    strcmp(ikeys[i], "thread_points") == 0 ?
				    ": their first runs saw different points" : "");
	const json_t *sa = json_object_get(a, "shard"), *sb = json_object_get(b, "shard");
	if (!sa != !sb)
		return fail(err, errlen, "%s and %s: only one is a shard report", na, nb);
	for (size_t i = 0; sa && i < sizeof(skeys) / sizeof(skeys[0]); i++)
		if (!same_value(json_object_get(sa, skeys[i]), json_object_get(sb, skeys[i])) &&
		    (json_object_get(sa, skeys[i]) || json_object_get(sb, skeys[i])))
			return fail(err, errlen, "%s and %s are shards of different searches "
				    "(shard \"%s\" differs)", na, nb, skeys[i]);
	return 0;
}

/* Shards 1..N, each once. */
static int check_cover(json_t *const *reps, const char *const *names, int n, char *err,
		       size_t errlen)
{
	const json_t *s0 = json_object_get(reps[0], "shard");
	if (!json_is_object(s0))
		return fail(err, errlen, "%s: not a shard report (no \"shard\": run with --shard I/N)",
			    names[0]);
	if (!json_is_integer(json_object_get(s0, "count")))
		return fail(err, errlen, "%s: shard count is not a whole number", names[0]);
	json_int_t count = geti(s0, "count");
	if (count < 1 || count > 1000000)
		return fail(err, errlen, "%s: shard count %" JSON_INTEGER_FORMAT " out of range",
			    names[0], count);
	int *seen = cts_xcalloc((size_t)count + 1, sizeof(int));
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		const json_t *ji = json_object_get(json_object_get(reps[i], "shard"), "index");
		json_int_t idx = json_integer_value(ji);
		if (!json_is_integer(ji))
			rc = fail(err, errlen, "%s: shard index is not a whole number", names[i]);
		else if (idx < 1 || idx > count)
			rc = fail(err, errlen, "%s: shard index %" JSON_INTEGER_FORMAT " not in 1..%"
				  JSON_INTEGER_FORMAT, names[i], idx, count);
		else if (seen[idx])
			rc = fail(err, errlen, "shard %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
				  " given twice (%s and %s)", idx, count, names[seen[idx] - 1],
				  names[i]);
		else
			seen[idx] = i + 1;
	}
	if (rc == 0) {
		char list[256] = "";
		size_t off = 0;
		int missing = 0;
		for (json_int_t k = 1; k <= count; k++) {
			if (seen[k])
				continue;
			if (missing++ < 10 && off < sizeof(list))
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%" JSON_INTEGER_FORMAT,
							missing > 1 ? ", " : "", k);
		}
		if (missing)
			rc = fail(err, errlen, "%d shard%s of %" JSON_INTEGER_FORMAT " missing: %s%s",
				  missing, missing == 1 ? "" : "s", count, list,
				  missing > 10 ? ", ..." : "");
	}
	free(seen);
	return rc;
}

/* Counters add up saturating: a sum past the largest number stays there
 * (counts are never negative, check_counts; other numbers saturate below). */
_Static_assert(sizeof(json_int_t) == sizeof(long long), "json_int_t is long long");
static json_int_t sat_add(json_int_t a, json_int_t b)
{
	json_int_t v;
	if (__builtin_add_overflow(a, b, &v))
		return b > 0 ? LLONG_MAX : LLONG_MIN; /* json_int_t is long long */
	return v;
}

static void add_int(json_t *o, const char *key, const json_t *from)
{
	json_object_set_new(o, key, json_integer(sat_add(geti(o, key), geti(from, key))));
}

/* ---- lists deduplicated by a key ------------------------------------------- */

/* A list whose entries are found by the hash of their key (models/htab.h),
 * so a repeat costs one probe and a comparison per entry of the same hash,
 * not a scan of the list: merging is linear in the entries. */
struct dedup {
	json_t *list;           /* borrowed */
	uint64_t (*hash)(const json_t *x);
	bool (*same)(const json_t *a, const json_t *b);
	struct cts_htab *heads; /* hash -> 1 + position of the latest entry with it */
	size_t *prev;           /* position -> 1 + the previous entry with its hash, 0: none */
	size_t cap;
};

static void dedup_index(struct dedup *d, size_t pos, uint64_t h)
{
	if (pos >= d->cap) {
		size_t cap = cts_grow_cap(d->cap, pos + 1);
		d->prev = cts_xgrow(d->prev, d->cap, cap, sizeof(*d->prev));
		d->cap = cap;
	}
	size_t *head = cts_htab_put(d->heads, &h, NULL);
	d->prev[pos] = *head;
	*head = pos + 1;
}

static void dedup_init(struct dedup *d, json_t *list, uint64_t (*hash)(const json_t *),
		       bool (*same)(const json_t *, const json_t *))
{
	*d = (struct dedup){ .list = list, .hash = hash, .same = same,
			     .heads = cts_htab_new(sizeof(uint64_t), sizeof(size_t)) };
	for (size_t i = 0; i < json_array_size(list); i++)
		dedup_index(d, i, hash(json_array_get(list, i)));
}

static void dedup_fini(struct dedup *d)
{
	cts_htab_free(d->heads);
	free(d->prev);
}

/* The entry x repeats, or NULL after appending x (a copy, or x itself). */
static json_t *dedup_add(struct dedup *d, const json_t *x, bool copy)
{
	uint64_t h = d->hash(x);
	const size_t *head = cts_htab_get(d->heads, &h);
	for (size_t p = head ? *head : 0; p; p = d->prev[p - 1]) {
		json_t *o = json_array_get(d->list, p - 1);
		if (d->same(o, x))
			return o;
	}
	size_t pos = json_array_size(d->list);
	json_array_append_new(d->list, copy ? json_deep_copy(x) : json_incref((json_t *)x));
	dedup_index(d, pos, h);
	return NULL;
}

static uint64_t str_hash(const char *s)
{
	return cts_htab_hash(s, strlen(s));
}

/* Two hashes in one (order matters). */
static uint64_t mix(uint64_t a, uint64_t b)
{
	return a * UINT64_C(0x9e3779b97f4a7c15) ^ b;
}

/* A value's hash: its compact text, keys sorted. Values json_equal calls
 * equal print the same (an integer and a real never are). */
static uint64_t json_hash(const json_t *v)
{
	if (!v)
		return 0;
	char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	uint64_t h = s ? str_hash(s) : 1;
	free(s);
	return h;
}

static bool same_json(const json_t *a, const json_t *b)
{
	return json_equal(a, b);
}

/* Members both have: numbers summed, flags and'ed, arrays joined without
 * repeats, objects member by member; the first report's value otherwise.
 * What other reports add (coverage, counters) merges this way. */
static void merge_generic(json_t *a, const json_t *b)
{
	const char *key;
	json_t *bv;
	json_object_foreach((json_t *)b, key, bv) {
		json_t *av = json_object_get(a, key);
		if (!av) {
			json_object_set_new(a, key, json_deep_copy(bv));
		} else if (json_equal(av, bv) && !json_is_number(av)) {
			continue;
		} else if (json_is_integer(av) && json_is_integer(bv)) {
			json_object_set_new(a, key, json_integer(sat_add(json_integer_value(av),
									 json_integer_value(bv))));
		} else if (json_is_number(av) && json_is_number(bv)) {
			json_object_set_new(a, key, json_real(json_number_value(av) +
							      json_number_value(bv)));
		} else if (json_is_boolean(av) && json_is_boolean(bv)) {
			json_object_set_new(a, key, json_boolean(json_is_true(av) && json_is_true(bv)));
		} else if (json_is_object(av) && json_is_object(bv)) {
			merge_generic(av, bv);
		} else if (json_is_array(av) && json_is_array(bv)) {
			struct dedup d;
			size_t i;
			json_t *x;
			dedup_init(&d, av, json_hash, same_json);
			json_array_foreach(bv, i, x)
				dedup_add(&d, x, false);
			dedup_fini(&d);
		}
	}
}

/* The lists merged by their keys, across every report merged. */
struct merger {
	struct dedup bugs, divs, races;
};

/* A bug is its kind and message. */
static uint64_t bug_hash(const json_t *b)
{
	return mix(str_hash(gets(b, "kind")), str_hash(gets(b, "message")));
}

static bool same_bug(const json_t *a, const json_t *b)
{
	return strcmp(gets(a, "kind"), gets(b, "kind")) == 0 &&
	       strcmp(gets(a, "message"), gets(b, "message")) == 0;
}

/* One bug into a list: a repeat adds its hits. */
static void merge_bug(struct dedup *d, const json_t *b)
{
	json_t *o = dedup_add(d, b, true);
	if (!o)
		return;
	/* the earliest run's schedule stands for the bug */
	json_int_t hits = sat_add(geti(o, "hits"), geti(b, "hits"));
	if (geti(b, "run") < geti(o, "run"))
		json_object_update(o, (json_t *)b);
	json_object_set_new(o, "hits", json_integer(hits));
}

/* Divergences are no bugs of the program: kept apart, in "divergences"
 * (a report written before they were lists them in "bugs"). */
static void merge_bugs(struct merger *m, const json_t *in)
{
	const json_t *b;
	size_t i;
	json_array_foreach(json_object_get(in, "bugs"), i, b)
		merge_bug(strcmp(gets(b, "kind"), "divergence") == 0 ? &m->divs : &m->bugs, b);
	json_array_foreach(json_object_get(in, "divergences"), i, b)
		merge_bug(&m->divs, b);
}

/* An access's pc and op. */
static uint64_t access_hash(const json_t *p)
{
	return mix(json_hash(json_object_get(p, "pc")), json_hash(json_object_get(p, "op")));
}

/* A race is its variable and its two accesses (pcs and ops), either order:
 * the accesses' hashes are added, which ignores their order. */
static uint64_t race_hash(const json_t *r)
{
	uint64_t h = mix(json_hash(json_object_get(r, "address")), json_hash(json_object_get(r, "size")));
	const json_t *x = json_object_get(r, "accesses");
	if (json_array_size(x) == 2)
		h = mix(h, access_hash(json_array_get(x, 0)) + access_hash(json_array_get(x, 1)));
	return h;
}

static bool same_race(const json_t *a, const json_t *b)
{
	if (!json_equal(json_object_get(a, "address"), json_object_get(b, "address")) ||
	    !json_equal(json_object_get(a, "size"), json_object_get(b, "size")))
		return false;
	const json_t *xa = json_object_get(a, "accesses"), *xb = json_object_get(b, "accesses");
	for (int flip = 0; flip < 2; flip++) {
		bool all = json_array_size(xa) == 2 && json_array_size(xb) == 2;
		for (size_t k = 0; all && k < 2; k++) {
			const json_t *p = json_array_get(xa, k), *q = json_array_get(xb, flip ? 1 - k : k);
			all = json_equal(json_object_get(p, "pc"), json_object_get(q, "pc")) &&
			      json_equal(json_object_get(p, "op"), json_object_get(q, "op"));
		}
		if (all)
			return true;
	}
	return false;
}

static void merge_races(struct merger *m, const json_t *in)
{
	json_t *r, *o;
	size_t i;
	json_array_foreach(json_object_get(in, "races"), i, r) {
		if (!(o = dedup_add(&m->races, r, true)))
			continue;
		add_int(o, "runs", r);
		if (geti(r, "first_run") < geti(o, "first_run"))
			json_object_set(o, "first_run", json_object_get(r, "first_run"));
	}
}

static void merge_inconclusive(json_t *out, const json_t *in)
{
	json_t *a = json_object_get(out, "inconclusive");
	const json_t *b = json_object_get(in, "inconclusive");
	json_t *runs = json_object_get(a, "runs"), *x;
	size_t i;
	add_int(a, "count", b);
	json_array_foreach(json_object_get(b, "runs"), i, x)
		if (json_array_size(runs) < LISTED)
			json_array_append(runs, x);
}

static int cmp_json_int(const void *a, const void *b)
{
	json_int_t x = json_integer_value(*(json_t *const *)a);
	json_int_t y = json_integer_value(*(json_t *const *)b);
	return (x > y) - (x < y);
}

/* --instances: the tiling is the same (check_same); counts add up, the
 * instances searched are joined in number order, and the bug's instance is
 * the lowest-numbered one a bug came from (the one a single process, which
 * searches them in order, would have stopped at, if it was searched). */
static void merge_instances(json_t *out, const json_t *in)
{
	json_t *a = json_object_get(out, "instances");
	const json_t *b = json_object_get(in, "instances");
	if (!json_is_object(a) || !json_is_object(b))
		return;
	add_int(a, "searched", b);
	add_int(a, "exhausted", b);
	add_int(a, "walk_runs", b);
	json_t *la = json_object_get(a, "searched_instances"), *x;
	size_t i;
	if (json_is_array(la)) {
		json_array_extend(la, json_object_get(b, "searched_instances"));
		size_t n = json_array_size(la);
		json_t **v = cts_xcalloc(n ? n : 1, sizeof(*v));
		json_array_foreach(la, i, x)
			v[i] = json_incref(x);
		qsort(v, n, sizeof(*v), cmp_json_int);
		json_array_clear(la);
		for (i = 0; i < n; i++)
			json_array_append_new(la, v[i]);
		free(v);
	}
	const json_t *bi = json_object_get(b, "bug_index");
	const json_t *ai = json_object_get(a, "bug_index");
	if (json_is_integer(bi) && (!json_is_integer(ai) ||
				    json_integer_value(bi) < json_integer_value(ai))) {
		json_object_set(a, "bug_index", (json_t *)bi);
		json_object_set(a, "bug_instance", json_object_get(b, "bug_instance"));
	}
}

/* The members merged by their meaning; the rest by merge_generic. */
static const char *const own_keys[] = {
	"version", "program", "args", "strategy", "mode", "races_mode", "seed", "runs",
	"schedules", "steps", "elapsed_seconds", "complete", "exhausted", "unseen", "interrupted",
	"internal_error", "bugs", "divergences", "inconclusive", "races", "shard",
	"watch_backend", "instances", "learned",
};

static bool own_key(const char *k)
{
	for (size_t i = 0; i < sizeof(own_keys) / sizeof(own_keys[0]); i++)
		if (strcmp(k, own_keys[i]) == 0)
			return true;
	return false;
}

static void merge_one(struct merger *m, json_t *out, const json_t *in)
{
	add_int(out, "runs", in);
	add_int(out, "schedules", in);
	add_int(out, "steps", in);
	double e = json_number_value(json_object_get(in, "elapsed_seconds"));
	if (e > json_number_value(json_object_get(out, "elapsed_seconds")))
		json_object_set_new(out, "elapsed_seconds", json_real(e));
	json_object_set_new(out, "complete", json_boolean(
		json_is_true(json_object_get(out, "complete")) &&
		json_is_true(json_object_get(in, "complete"))));
	json_object_set_new(out, "exhausted", json_boolean(
		json_is_true(json_object_get(out, "exhausted")) &&
		json_is_true(json_object_get(in, "exhausted"))));
	json_object_set_new(out, "interrupted", json_boolean(
		json_is_true(json_object_get(out, "interrupted")) ||
		json_is_true(json_object_get(in, "interrupted"))));
	if (!json_is_string(json_object_get(out, "unseen")) &&
	    json_is_string(json_object_get(in, "unseen")))
		json_object_set(out, "unseen", json_object_get(in, "unseen"));
	if (!json_is_string(json_object_get(out, "internal_error")) &&
	    json_is_string(json_object_get(in, "internal_error")))
		json_object_set(out, "internal_error", json_object_get(in, "internal_error"));
	merge_bugs(m, in);
	merge_races(m, in);
	merge_inconclusive(out, in);
	merge_instances(out, in);
	json_t *so = json_object_get(out, "shard");
	const json_t *si = json_object_get(in, "shard");
	if (json_is_object(so) && json_is_object(si)) {
		add_int(so, "items", si);
		add_int(so, "walk_runs", si);
		add_int(so, "dropped_runs", si);
	}
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)in, key, v) {
		if (own_key(key))
			continue;
		json_t *ov = json_object_get(out, key);
		if (!ov) {
			json_object_set_new(out, key, json_deep_copy(v));
		} else if (json_is_object(ov) && json_is_object(v)) {
			merge_generic(ov, v);
		}
	}
}

/* a's string member key joined with s (cts_tracer_learned_union) into *acc;
 * false when they differ (or cannot be joined: different forms). */
static bool join_set(char **acc, const char *s)
{
	if (!*acc) {
		*acc = cts_xstrdup(s);
		return true;
	}
	bool same = strcmp(*acc, s) == 0;
	char *u = cts_tracer_learned_union(*acc, s);
	if (!u)
		return false;
	free(*acc);
	*acc = u;
	return same;
}

/* Break mode's learned sets of shared lines (docs/design.md, "Break mode on
 * memory ownership"): the union of the reports' sets, and whether they were
 * one set. Only then is every counted run of every report a run of one
 * search on one set, and the merge that search: else it is neither
 * complete nor exhausted, and its union is where the reports' searches
 * are to begin again (--hot-lines). A report without a set agrees only
 * with others without one. */
static void merge_learned(json_t *out, json_t *const *reps, int n)
{
	char *lines = NULL, *from = NULL;
	bool agree = true, with = false, without = false;
	for (int i = 0; i < n; i++) {
		const json_t *l = json_object_get(reps[i], "learned");
		const char *li = json_string_value(json_object_get(l, "lines"));
		const char *fi = json_string_value(json_object_get(l, "from"));
		if (!json_is_object(l)) {
			without = true;
			continue;
		}
		with = true;
		if (json_is_false(json_object_get(l, "agree")) || !li || !join_set(&lines, li))
			agree = false;
		if (fi)
			join_set(&from, fi);
	}
	if (!with) {
		json_object_set_new(out, "learned", json_null());
	} else {
		agree &= !without;
		json_object_set_new(out, "learned", json_pack("{s:o, s:o, s:b}",
			"lines", lines ? json_string(lines) : json_null(),
			"from", from ? json_string(from) : json_null(), "agree", agree));
		if (!agree) {
			json_object_set_new(out, "complete", json_false());
			json_object_set_new(out, "exhausted", json_false());
			json_t *sum = json_object_get(out, "summary");
			if (json_is_object(sum))
				json_object_set_new(sum, "complete", json_false());
		}
	}
	free(lines);
	free(from);
}

bool cts_merge_learned_agree(const json_t *root)
{
	const json_t *l = json_object_get(root, "learned");
	return !json_is_object(l) || !json_is_false(json_object_get(l, "agree"));
}

static void count_findings(json_t *out)
{
	json_t *sum = json_object_get(out, "summary");
	if (json_is_object(sum)) {
		json_object_set_new(sum, "distinct_bugs", json_integer(cts_merge_bugs(out)));
		json_object_set_new(sum, "races",
				    json_integer((json_int_t)json_array_size(json_object_get(out, "races"))));
	}
}

void cts_merge_carry(json_t *into, const json_t *from)
{
	struct merger m;
	dedup_init(&m.bugs, json_object_get(into, "bugs"), bug_hash, same_bug);
	dedup_init(&m.divs, json_object_get(into, "divergences"), bug_hash, same_bug);
	dedup_init(&m.races, json_object_get(into, "races"), race_hash, same_race);
	merge_bugs(&m, from);
	merge_races(&m, from);
	dedup_fini(&m.bugs);
	dedup_fini(&m.divs);
	dedup_fini(&m.races);
	merge_inconclusive(into, from);
	json_t *sum = json_object_get(into, "summary");
	const json_t *fs = json_object_get(from, "summary");
	if (json_is_object(sum)) {
		add_int(sum, "relearned", fs);
		add_int(sum, "spin_restarts", fs);
		add_int(sum, "quiet_repeats", fs);
		add_int(sum, "discarded", fs);
		json_object_set_new(sum, "discarded", json_integer(sat_add(geti(sum, "discarded"),
									   geti(from, "runs"))));
	}
	count_findings(into);
}

json_t *cts_merge_reports(json_t *const *reps, const char *const *names, int n, bool shards,
			  char *err, size_t errlen)
{
	if (n < 1) {
		fail(err, errlen, "no reports to merge");
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if (check_shape(reps[i], names[i], err, errlen) != 0)
			return NULL;
	for (int i = 1; i < n; i++)
		if (check_same(reps[0], reps[i], names[0], names[i], err, errlen) != 0)
			return NULL;
	if (shards && check_cover(reps, names, n, err, errlen) != 0)
		return NULL;
	json_t *out = json_deep_copy(reps[0]);
	/* Dedupe within the first report too: merge it into an empty list. */
	json_t *first = json_deep_copy(reps[0]);
	json_object_set_new(out, "bugs", json_array());
	json_object_set_new(out, "divergences", json_array());
	json_object_set_new(out, "races", json_array());
	json_object_set_new(json_object_get(out, "inconclusive"), "runs", json_array());
	json_object_set_new(json_object_get(out, "inconclusive"), "count", json_integer(0));
	struct merger m;
	dedup_init(&m.bugs, json_object_get(out, "bugs"), bug_hash, same_bug);
	dedup_init(&m.divs, json_object_get(out, "divergences"), bug_hash, same_bug);
	dedup_init(&m.races, json_object_get(out, "races"), race_hash, same_race);
	merge_bugs(&m, first);
	merge_races(&m, first);
	merge_inconclusive(out, first);
	json_decref(first);
	for (int i = 1; i < n; i++)
		merge_one(&m, out, reps[i]);
	dedup_fini(&m.bugs);
	dedup_fini(&m.divs);
	dedup_fini(&m.races);
	/* Counted after deduplication: the workers' sums would count a bug or
	 * race each found once per worker (docs/report-format.md). */
	count_findings(out);
	merge_learned(out, reps, n);
	json_t *so = json_object_get(out, "shard");
	if (shards && json_is_object(so)) {
		/* The whole search now: no one index. */
		json_object_del(so, "index");
		json_object_del(so, "jobs");
		json_object_set_new(so, "merged", json_integer(n));
	}
	return out;
}

int cts_merge_bugs(const json_t *root)
{
	const json_t *b;
	size_t i;
	int n = 0;
	json_array_foreach(json_object_get(root, "bugs"), i, b)
		if (strcmp(gets(b, "kind"), "divergence") != 0) /* in an older report */
			n++;
	return n;
}

const char *cts_merge_learned_words(const char *set, char *buf, size_t len)
{
	const char *v = set && strchr(set, ':') ? strchr(set, ':') + 1 : set ? set : "none";
	if (strcmp(v, "all") == 0)
		return "every line";
	size_t n = strcmp(v, "none") == 0 ? 0 : 1, pages = *v == 'p';
	for (const char *p = v; *p; p++) {
		n += *p == ',';
		pages += *p == ',' && p[1] == 'p'; /* a page decided per access (own.h) */
	}
	if (pages)
		snprintf(buf, len, "%zu line%s, %zu page%s", n - pages, n - pages == 1 ? "" : "s",
			 pages, pages == 1 ? "" : "s");
	else
		snprintf(buf, len, "%zu line%s", n, n == 1 ? "" : "s");
	return buf;
}

void cts_merge_summary(FILE *f, const json_t *root, const char *what)
{
	double el = json_number_value(json_object_get(root, "elapsed_seconds"));
	json_int_t runs = geti(root, "runs");
	int nb = cts_merge_bugs(root);
	json_int_t inc = geti(json_object_get(root, "inconclusive"), "count");
	char incs[64] = "";
	if (inc)
		snprintf(incs, sizeof(incs), "; %" JSON_INTEGER_FORMAT " run%s inconclusive", inc,
			 inc == 1 ? "" : "s");
	fprintf(f, "cts-trace: %s%" JSON_INTEGER_FORMAT " runs, %" JSON_INTEGER_FORMAT
		" steps, %.2f s (%.0f runs/s), %s, mode %s: %d bug%s found%s%s\n", what, runs,
		geti(root, "steps"), el, el > 0 ? (double)runs / el : 0.0, gets(root, "strategy"),
		gets(root, "mode"), nb, nb == 1 ? "" : "s", incs,
		json_is_true(json_object_get(root, "complete")) ?
			"; search space exhausted (complete)" :
		json_is_true(json_object_get(root, "exhausted")) ?
			"; search space exhausted for the program's own code and modelled library "
			"calls, but not complete" : "");
	const json_t *l = json_object_get(root, "learned");
	char words[48];
	if (!cts_merge_learned_agree(root))
		fprintf(f, "cts-trace: %sthe reports' runs showed different learned sets of shared "
			"lines (the union has %s): not one search, so not complete; run them again "
			"with --hot-lines on this merged report (its learned.lines)\n", what,
			cts_merge_learned_words(json_string_value(json_object_get(l, "lines")), words,
						sizeof(words)));
	const json_t *in = json_object_get(root, "instances");
	if (json_is_object(in))
		fprintf(f, "cts-trace: %sinstances: %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
			" searched, %" JSON_INTEGER_FORMAT " to the end%s%s\n", what,
			geti(in, "searched"), geti(in, "drawn"), geti(in, "exhausted"),
			json_is_string(json_object_get(in, "bug_instance")) ?
				"; the bug came from instance " : "", gets(in, "bug_instance"));
}

static void merge_usage(FILE *f)
{
	fprintf(f, "Usage: cts-trace merge REPORT... [--report OUT] [-q]\n"
		"Combines the JSON reports of the shards of one search (--shard I/N, every\n"
		"I from 1 to N once) into one report, written to OUT (default standard output).\n"
		"Exit status: 0 no bug, 1 the shards found bugs, 2 a report missing, unreadable,\n"
		"of another search, or a shard missing or twice; the output not writable;\n"
		"4 no bug, but the shards' runs showed different learned sets of shared lines\n"
		"(break mode): run them again with --hot-lines OUT, which holds their union.\n");
}

int cts_merge_main(int argc, char **argv)
{
	const char *out_path = "-";
	bool quiet = false;
	char err[1024];
	int n = 0, status = 2;
	json_t **reps = cts_xcalloc((size_t)argc + 1, sizeof(*reps));
	const char **names = cts_xcalloc((size_t)argc + 1, sizeof(*names));
	struct cts_report_out *ro = NULL;
	json_t *merged = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			merge_usage(stdout);
			status = 0;
			goto out;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = true;
		} else if (strcmp(a, "--report") == 0 || strcmp(a, "-o") == 0) {
			if (++i >= argc || !argv[i][0]) {
				cts_error_msg("merge: %s needs a file name%s", a, TRY);
				goto out;
			}
			out_path = argv[i];
		} else if (strncmp(a, "--report=", 9) == 0 && a[9]) {
			out_path = a + 9;
		} else if (a[0] == '-' && a[1] && strcmp(a, "--") != 0) {
			cts_error_msg("merge: unknown option '%.64s'%s", a, TRY);
			goto out;
		} else if (strcmp(a, "--") != 0) {
			names[n++] = a;
		}
	}
	if (!n) {
		cts_error_msg("merge: no reports given%s", TRY);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		reps[i] = cts_json_load_path("merge: ", names[i], "not a JSON report: ",
					     JSON_REJECT_DUPLICATES, err, sizeof(err));
		if (!reps[i]) {
			cts_error_msg("%s", err);
			goto out;
		}
	}
	merged = cts_merge_reports(reps, names, n, true, err, sizeof(err));
	if (!merged) {
		cts_error_msg("merge: %s", err);
		goto out;
	}
	if (!(ro = cts_report_open(out_path, err, sizeof(err)))) {
		cts_error_msg("merge: %s", err);
		goto out;
	}
	if (!quiet)
		cts_merge_summary(stderr, merged, "merged: ");
	status = cts_merge_bugs(merged) ? 1 : cts_merge_learned_agree(merged) ? 0 : 4;
	if (quiet && status == 1) { /* -q: the verdict still, a line a bug */
		const json_t *b;
		size_t i;
		json_array_foreach(json_object_get(merged, "bugs"), i, b) /* no divergence */
			cts_error_msg("BUG (%s) in run %" JSON_INTEGER_FORMAT ": %s", gets(b, "kind"),
				      geti(b, "run"), gets(b, "message"));
	}
	json_incref(merged);
	if (cts_report_write_json(ro, merged, err, sizeof(err)) != 0) {
		cts_error_msg("merge: %s", err);
		status = 2;
	}
	ro = NULL;
	goto out;
out:
	cts_report_discard(ro);
	json_decref(merged);
	for (int i = 0; i < n; i++)
		json_decref(reps[i]);
	free(reps);
	free(names);
	return status;
}
