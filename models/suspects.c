#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/report.h"
#include "models/suspects.h"

struct cts_suspects {
	struct cts_suspect *v;
	int n, cap;
};

static const char *const kind_names[] = {
	[CTS_SUSPECT_RACE] = "race", [CTS_SUSPECT_DEADLOCK] = "deadlock",
	[CTS_SUSPECT_ATOMICITY] = "atomicity", [CTS_SUSPECT_BREAK] = "break",
};

int cts_suspects_untried(const struct cts_suspects *l)
{
	int n = 0;
	for (int i = 0; l && i < l->n; i++)
		n += !l->v[i].tries && !l->v[i].confirmed && l->v[i].kind != CTS_SUSPECT_BREAK;
	return n;
}

const char *cts_suspect_kind_name(enum cts_suspect_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

struct cts_suspects *cts_suspects_new(void)
{
	return cts_xcalloc(1, sizeof(struct cts_suspects));
}

void cts_suspects_free(struct cts_suspects *l)
{
	if (!l)
		return;
	free(l->v);
	free(l);
}

int cts_suspects_count(const struct cts_suspects *l)
{
	return l ? l->n : 0;
}

struct cts_suspect *cts_suspects_get(struct cts_suspects *l, int i)
{
	return l && i >= 0 && i < l->n ? &l->v[i] : NULL;
}

const struct cts_suspect *cts_suspects_at(const struct cts_suspects *l, int i)
{
	return l && i >= 0 && i < l->n ? &l->v[i] : NULL;
}

static bool lock_eq(const struct cts_lock_abs *a, const struct cts_lock_abs *b)
{
	return a->site == b->site && a->off == b->off && a->heap == b->heap;
}

static bool ctx_eq(const uint64_t *a, const uint64_t *b)
{
	return memcmp(a, b, CTS_SUSPECT_CTX * sizeof(*a)) == 0;
}

static bool ctx_none(const uint64_t *a)
{
	for (int i = 0; i < CTS_SUSPECT_CTX; i++)
		if (a[i])
			return false;
	return true;
}

bool cts_suspect_ctx_match(const uint64_t *want, const uint64_t *got)
{
	if (ctx_none(want))
		return true;
	static const uint64_t none[CTS_SUSPECT_CTX];
	return ctx_eq(want, got ? got : none);
}

static bool comp_eq(const struct cts_cycle_comp *a, const struct cts_cycle_comp *b)
{
	return a->thread == b->thread && a->at == b->at && lock_eq(&a->held, &b->held) &&
	       lock_eq(&a->want, &b->want) && ctx_eq(a->ctx, b->ctx);
}

/* The rotation r with a's link i equal to b's link (i + r) % n, -1 none. */
static int rotation(const struct cts_suspect *a, const struct cts_suspect *b)
{
	if (a->ncomp != b->ncomp)
		return -1;
	for (int r = 0; r < a->ncomp; r++) {
		int i = 0;
		while (i < a->ncomp && comp_eq(&a->comp[i], &b->comp[(i + r) % a->ncomp]))
			i++;
		if (i == a->ncomp)
			return r;
	}
	return -1;
}

/* Cycles are equal up to rotation; race pairs up to order. */
static bool same(const struct cts_suspect *a, const struct cts_suspect *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == CTS_SUSPECT_DEADLOCK)
		return rotation(a, b) >= 0;
	if (a->kind == CTS_SUSPECT_RACE)
		return (a->pc[0] == b->pc[0] && a->pc[1] == b->pc[1] && ctx_eq(a->ctx[0], b->ctx[0]) &&
			ctx_eq(a->ctx[1], b->ctx[1])) ||
		       (a->pc[0] == b->pc[1] && a->pc[1] == b->pc[0] && ctx_eq(a->ctx[0], b->ctx[1]) &&
			ctx_eq(a->ctx[1], b->ctx[0]));
	if (a->npcs != b->npcs)
		return false;
	for (int i = 0; i < a->npcs; i++)
		if (a->pc[i] != b->pc[i] || a->pc_end[i] != b->pc_end[i] ||
		    !ctx_eq(a->ctx[i], b->ctx[i]))
			return false;
	return a->kind != CTS_SUSPECT_ATOMICITY || lock_eq(&a->lock, &b->lock);
}

int cts_suspects_add(struct cts_suspects *l, const struct cts_suspect *s)
{
	for (int i = 0; i < l->n; i++) {
		if (!same(&l->v[i], s))
			continue;
		if (s->kind == CTS_SUSPECT_DEADLOCK) {
			int r = rotation(&l->v[i], s);
			for (int k = 0; k < s->ncomp; k++) {
				struct cts_cycle_comp *mine = &l->v[i].comp[k];
				const struct cts_cycle_comp *new = &s->comp[(k + r) % s->ncomp];
				for (int d = 1; d < s->ncomp; d++) {
					uint16_t *t = &mine->times[d];
					if (!(new->needs & (1u << d)))
						continue;
					/* the most times a run showed; unknown wins */
					if (!(mine->needs & (1u << d)))
						*t = new->times[d];
					else if (*t && (!new->times[d] || new->times[d] > *t))
						*t = new->times[d];
				}
				mine->needs |= new->needs;
			}
		}
		return i;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = cts_xrealloc(l->v, (size_t)l->cap * sizeof(*l->v));
	}
	l->v[l->n] = *s;
	for (int i = 0; i < s->npcs; i++)
		if (!l->v[l->n].pc_end[i])
			l->v[l->n].pc_end[i] = s->pc[i] + 1;
	l->v[l->n].tries = l->v[l->n].confirmed = l->v[l->n].first_run = 0;
	return l->n++;
}

int cts_suspects_confirmed(const struct cts_suspects *l, int kind)
{
	int n = 0;
	for (int i = 0; l && i < l->n; i++)
		n += (kind < 0 || (int)l->v[i].kind == kind) && l->v[i].confirmed > 0;
	return n;
}

/* ---- JSON ---- */

static json_t *hex(uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static json_t *pc_json(uint64_t pc, cts_describe_fn describe, void *ctx)
{
	char where[256] = "";
	json_t *o = json_object();
	json_object_set_new(o, "pc", hex(pc));
	if (describe)
		describe(ctx, pc, where, sizeof(where));
	if (where[0])
		json_object_set_new(o, "at", json_string(where));
	return o;
}

static json_t *lock_json(const struct cts_lock_abs *a, cts_describe_fn describe, void *ctx)
{
	json_t *o = json_object();
	json_object_set_new(o, "heap", json_boolean(a->heap));
	json_object_set_new(o, "site", a->heap ? pc_json(a->site, describe, ctx) : hex(a->site));
	json_object_set_new(o, "offset", json_integer((json_int_t)a->off));
	return o;
}

static const char *const atom_roles[] = { "lock", "read", "relock", "write" };

static bool get_pc(json_t *j, uint64_t *v);

/* "callers": the context's return addresses, each described at its call. */
static void ctx_json(json_t *o, const uint64_t *c, cts_describe_fn describe, void *ctx)
{
	if (ctx_none(c))
		return;
	json_t *a = json_array();
	for (int i = 0; i < CTS_SUSPECT_CTX && c[i]; i++) {
		json_t *j = json_object();
		char where[256] = "";
		json_object_set_new(j, "pc", hex(c[i]));
		if (describe)
			describe(ctx, c[i] - 1, where, sizeof(where));
		if (where[0])
			json_object_set_new(j, "at", json_string(where));
		json_array_append_new(a, j);
	}
	json_object_set_new(o, "callers", a);
}

static bool ctx_from_json(json_t *o, uint64_t *c)
{
	json_t *a = json_object_get(o, "callers");
	if (!a)
		return true;
	if (!json_is_array(a) || json_array_size(a) > CTS_SUSPECT_CTX)
		return false;
	for (size_t i = 0; i < json_array_size(a); i++)
		if (!get_pc(json_array_get(a, i), &c[i]))
			return false;
	return true;
}

static json_t *suspect_json(const struct cts_suspect *s, cts_describe_fn describe, void *ctx)
{
	json_t *o = json_object(), *a = json_array();
	json_object_set_new(o, "kind", json_string(cts_suspect_kind_name(s->kind)));
	if (s->kind == CTS_SUSPECT_DEADLOCK) {
		for (int i = 0; i < s->ncomp; i++) {
			const struct cts_cycle_comp *c = &s->comp[i];
			json_t *j = json_object();
			json_object_set_new(j, "thread", c->thread ? pc_json(c->thread, describe, ctx) :
							    json_string("main"));
			json_object_set_new(j, "held", lock_json(&c->held, describe, ctx));
			json_object_set_new(j, "acquires", lock_json(&c->want, describe, ctx));
			json_object_set_new(j, "context", pc_json(c->at, describe, ctx));
			ctx_json(j, c->ctx, describe, ctx);
			if (c->needs) {
				/* the links whose held lock this one takes first */
				json_t *nd = json_array();
				for (int d = 1; d < s->ncomp; d++) {
					if (!(c->needs & (1u << d)))
						continue;
					json_t *e = json_object();
					json_object_set_new(e, "link", json_integer((i + d) % s->ncomp));
					if (c->times[d])
						json_object_set_new(e, "times", json_integer(c->times[d]));
					json_array_append_new(nd, e);
				}
				json_object_set_new(j, "takes_first", nd);
			}
			json_array_append_new(a, j);
		}
		json_object_set_new(o, "cycle", a);
	} else {
		for (int i = 0; i < s->npcs; i++) {
			json_t *j = pc_json(s->pc[i], describe, ctx);
			if (s->kind == CTS_SUSPECT_BREAK && s->pc_end[i] != s->pc[i] + 1)
				json_object_set_new(j, "end", hex(s->pc_end[i]));
			if (s->kind == CTS_SUSPECT_ATOMICITY && i < 4)
				json_object_set_new(j, "role", json_string(atom_roles[i]));
			ctx_json(j, s->ctx[i], describe, ctx);
			json_array_append_new(a, j);
		}
		json_object_set_new(o, "statements", a);
		if (s->kind == CTS_SUSPECT_ATOMICITY)
			json_object_set_new(o, "lock", lock_json(&s->lock, describe, ctx));
		if (s->kind == CTS_SUSPECT_BREAK && s->spec[0])
			json_object_set_new(o, "spec", json_string(s->spec));
	}
	json_object_set_new(o, "tries", json_integer((json_int_t)s->tries));
	json_object_set_new(o, "confirmed", json_integer((json_int_t)s->confirmed));
	if (s->confirmed)
		json_object_set_new(o, "first_run", json_integer((json_int_t)s->first_run));
	return o;
}

json_t *cts_suspects_json(const struct cts_suspects *l, cts_describe_fn describe, void *ctx)
{
	json_t *o = json_object(), *a = json_array();
	int n = cts_suspects_count(l), c = cts_suspects_confirmed(l, -1);
	json_object_set_new(o, "suspects", json_integer(n));
	json_object_set_new(o, "confirmed", json_integer(c));
	json_object_set_new(o, "unconfirmed", json_integer(n - c));
	json_object_set_new(o, "untried", json_integer(cts_suspects_untried(l)));
	for (int i = 0; i < n; i++)
		json_array_append_new(a, suspect_json(&l->v[i], describe, ctx));
	json_object_set_new(o, "list", a);
	return o;
}

int cts_suspects_save(const struct cts_suspects *l, const char *path, cts_describe_fn describe,
		      void *ctx, char *err, size_t errlen)
{
	json_t *o = cts_suspects_json(l, describe, ctx);
	int rc = json_dump_file(o, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (rc != 0)
		snprintf(err, errlen, "--suspects %s: cannot write: %s", path, strerror(errno));
	return rc ? -1 : 0;
}

/* "0x..." -> value; false when absent or malformed. */
static bool get_hex(json_t *j, uint64_t *v)
{
	const char *s = json_string_value(j);
	char *end;
	if (!s || strncmp(s, "0x", 2) != 0)
		return false;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	return !errno && *end == 0 && end != s + 2;
}

static bool get_pc(json_t *j, uint64_t *v)
{
	return json_is_object(j) ? get_hex(json_object_get(j, "pc"), v) : get_hex(j, v);
}

static bool get_lock(json_t *j, struct cts_lock_abs *a)
{
	json_t *off = json_object_get(j, "offset");
	if (!json_is_object(j) || !json_is_integer(off) || json_integer_value(off) < 0)
		return false;
	a->heap = json_is_true(json_object_get(j, "heap"));
	a->off = (uint64_t)json_integer_value(off);
	return get_pc(json_object_get(j, "site"), &a->site);
}

/* "takes_first": [{"link", "times"}...] -> needs and times (relative to
 * link i of n); absent: none. */
static bool needs_from_json(json_t *a, int i, int n, struct cts_cycle_comp *c)
{
	c->needs = 0;
	if (!a)
		return true;
	if (!json_is_array(a))
		return false;
	for (size_t k = 0; k < json_array_size(a); k++) {
		json_t *v = json_array_get(a, k), *l = json_object_get(v, "link"),
		       *t = json_object_get(v, "times");
		json_int_t j = json_integer_value(l), times = t ? json_integer_value(t) : 0;
		if (!json_is_integer(l) || j < 0 || j >= n || j == i ||
		    (t && (!json_is_integer(t) || times < 1 || times > UINT16_MAX)))
			return false;
		int d = (int)((j - i + n) % n);
		c->needs |= (uint8_t)(1u << d);
		c->times[d] = (uint16_t)times;
	}
	return true;
}

static bool suspect_from_json(json_t *o, struct cts_suspect *s)
{
	const char *kind = json_string_value(json_object_get(o, "kind"));
	int k = -1;
	memset(s, 0, sizeof(*s));
	for (int i = 0; kind && i < (int)(sizeof(kind_names) / sizeof(kind_names[0])); i++)
		if (strcmp(kind, kind_names[i]) == 0)
			k = i;
	if (k < 0)
		return false;
	s->kind = (enum cts_suspect_kind)k;
	if (s->kind == CTS_SUSPECT_DEADLOCK) {
		json_t *a = json_object_get(o, "cycle");
		size_t n = json_array_size(a);
		if (n < 2 || n > CTS_SUSPECT_MAX_CYCLE)
			return false;
		s->ncomp = (int)n;
		for (size_t i = 0; i < n; i++) {
			json_t *c = json_array_get(a, i), *t = json_object_get(c, "thread");
			struct cts_cycle_comp *cc = &s->comp[i];
			if (json_is_string(t) && strcmp(json_string_value(t), "main") == 0)
				cc->thread = 0;
			else if (!get_pc(t, &cc->thread))
				return false;
			if (!get_lock(json_object_get(c, "held"), &cc->held) ||
			    !get_lock(json_object_get(c, "acquires"), &cc->want) ||
			    !get_pc(json_object_get(c, "context"), &cc->at) ||
			    !ctx_from_json(c, cc->ctx) ||
			    !needs_from_json(json_object_get(c, "takes_first"), (int)i, (int)n, cc))
				return false;
		}
		return true;
	}
	json_t *a = json_object_get(o, "statements");
	size_t n = json_array_size(a);
	size_t want = s->kind == CTS_SUSPECT_RACE ? 2 : s->kind == CTS_SUSPECT_ATOMICITY ? 4 : 0;
	if (n < 1 || n > CTS_SUSPECT_MAX_PCS || (want && n != want))
		return false;
	s->npcs = (int)n;
	for (size_t i = 0; i < n; i++) {
		json_t *j = json_array_get(a, i);
		if (!get_pc(j, &s->pc[i]))
			return false;
		if (!get_hex(json_object_get(j, "end"), &s->pc_end[i]))
			s->pc_end[i] = s->pc[i] + 1;
		if (s->pc_end[i] <= s->pc[i] || !ctx_from_json(j, s->ctx[i]))
			return false;
	}
	if (s->kind == CTS_SUSPECT_ATOMICITY && !get_lock(json_object_get(o, "lock"), &s->lock))
		return false;
	const char *spec = json_string_value(json_object_get(o, "spec"));
	if (spec)
		snprintf(s->spec, sizeof(s->spec), "%s", spec);
	return true;
}

struct cts_suspects *cts_suspects_load(const char *path, char *err, size_t errlen)
{
	json_t *o = cts_json_load_path("--suspects-from ", path, "", 0, err, errlen);
	if (!o)
		return NULL;
	json_t *a = json_object_get(o, "list");
	if (!json_is_array(a)) {
		snprintf(err, errlen, "--suspects-from %s: no \"list\" array of suspects", path);
		json_decref(o);
		return NULL;
	}
	struct cts_suspects *l = cts_suspects_new();
	for (size_t i = 0; i < json_array_size(a); i++) {
		struct cts_suspect s;
		if (!suspect_from_json(json_array_get(a, i), &s)) {
			snprintf(err, errlen, "--suspects-from %s: suspect %zu is malformed", path, i);
			cts_suspects_free(l);
			json_decref(o);
			return NULL;
		}
		cts_suspects_add(l, &s);
	}
	json_decref(o);
	return l;
}
