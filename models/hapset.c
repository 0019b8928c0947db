/* HaPSets: statements, learning over a run, persistence (see hapset.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/hapset.h"
#include "models/htab.h"
#include "models/report.h"

#define HS_CTX 4          /* longest context (= CTS_CTX_MAX) */
#define HS_LAST 8         /* threads whose last event is kept per object */
#define HS_WORDS 4        /* words of a wide access learned from */

enum kind { K_READ, K_WRITE, K_ACQ, K_WAIT, K_NOTIFY };

struct skey {             /* (pc, context), the key of a statement's id */
	uint64_t pc, ctx[HS_CTX];
};

struct strent {           /* interned statement text -> id */
	char *text;
	uint32_t id;
};

struct last {
	int tid;
	uint32_t st;
	uint8_t kind;
	uint32_t seq;         /* position in the object's history this run */
};

struct obj {              /* the value of an object's key */
	int n;
	uint32_t seq;
	struct last l[HS_LAST];
};

struct point {
	uint64_t run, statements, pairs;
};

struct cts_hapset {
	cts_hapset_describe_fn describe;
	void *dctx;
	struct cts_htab *keys;  /* struct skey -> uint32_t statement id */
	struct strent *strs;  /* open addressing by text */
	size_t scap, sn;
	char **text;          /* id -> text */
	uint32_t *inpair;     /* id -> pairs it is part of */
	size_t ntext, textcap;
	struct cts_htab *pairs; /* the set of ((st + 1) << 32 | (pred + 1)) */
	uint64_t nstmts;      /* statements in some pair */
	uint64_t *fresh;      /* this run's new pairs, committed if it ends well */
	size_t nfresh, freshcap;
	struct cts_htab *objs;  /* this run's last events per object: key -> struct obj */
	struct point *series;
	size_t nseries, seriescap;
};

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ull;
	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return h;
}

struct cts_hapset *cts_hapset_new(cts_hapset_describe_fn describe, void *describe_ctx)
{
	struct cts_hapset *h = cts_xcalloc(1, sizeof(*h));
	h->keys = cts_htab_new(sizeof(struct skey), sizeof(uint32_t));
	h->pairs = cts_htab_new(sizeof(uint64_t), 0);
	h->objs = cts_htab_new(sizeof(uint64_t), sizeof(struct obj));
	h->describe = describe;
	h->dctx = describe_ctx;
	return h;
}

void cts_hapset_free(struct cts_hapset *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->ntext; i++)
		free(h->text[i]);
	free(h->text);
	free(h->inpair);
	free(h->strs);
	cts_htab_free(h->keys);
	cts_htab_free(h->pairs);
	free(h->fresh);
	cts_htab_free(h->objs);
	free(h->series);
	free(h);
}

void cts_hapset_forget(struct cts_hapset *h)
{
	cts_htab_clear(h->pairs);
	cts_htab_clear(h->objs);
	if (h->ntext)
		memset(h->inpair, 0, h->ntext * sizeof(*h->inpair));
	h->nstmts = 0;
	h->nfresh = h->nseries = 0;
}

/* ---- statements ---- */

static uint32_t intern(struct cts_hapset *h, const char *text)
{
	if (2 * (h->sn + 1) > h->scap) {
		size_t ocap = h->scap, ncap = ocap ? 2 * ocap : 256;
		struct strent *old = h->strs;
		h->strs = cts_xcalloc(ncap, sizeof(*h->strs));
		h->scap = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].text)
				continue;
			size_t j = str_hash(old[i].text) & (ncap - 1);
			while (h->strs[j].text)
				j = (j + 1) & (ncap - 1);
			h->strs[j] = old[i];
		}
		free(old);
	}
	size_t j = str_hash(text) & (h->scap - 1);
	for (; h->strs[j].text; j = (j + 1) & (h->scap - 1))
		if (strcmp(h->strs[j].text, text) == 0)
			return h->strs[j].id;
	if (h->ntext == h->textcap) {
		size_t ncap = h->textcap ? 2 * h->textcap : 256;
		h->text = cts_xgrow(h->text, h->textcap, ncap, sizeof(*h->text));
		h->inpair = cts_xgrow(h->inpair, h->textcap, ncap, sizeof(*h->inpair));
		h->textcap = ncap;
	}
	uint32_t id = (uint32_t)h->ntext++;
	h->text[id] = cts_xstrdup(text);
	h->strs[j] = (struct strent){ h->text[id], id };
	h->sn++;
	return id;
}

/* "file.c:34" out of "func+0x12 (file.c:34)"; else the pc. */
static void position(struct cts_hapset *h, uint64_t pc, char *buf, size_t len)
{
	char where[512] = "";
	if (h->describe)
		h->describe(h->dctx, pc, where, sizeof(where));
	char *open = strrchr(where, '('), *close = open ? strchr(open, ')') : NULL;
	if (open && close && memchr(open, ':', (size_t)(close - open))) {
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
		return;
	}
	snprintf(buf, len, "0x%" PRIx64, pc);
}

uint32_t cts_hapset_stmt(struct cts_hapset *h, uint64_t pc, const uint64_t *ctx, int k)
{
	struct skey key = { .pc = pc };
	for (int i = 0; ctx && i < k && i < HS_CTX; i++)
		key.ctx[i] = ctx[i];
	const uint32_t *known = cts_htab_get(h->keys, &key);
	if (known)
		return *known;
	/* A new (pc, context): its text names it across runs and builds. */
	char text[1024], pos[300];
	position(h, pc, text, sizeof(text));
	for (int i = 0; i < HS_CTX && key.ctx[i]; i++) {
		position(h, key.ctx[i] - 1, pos, sizeof(pos));
		size_t n = strlen(text);
		snprintf(text + n, sizeof(text) - n, "|%s", pos);
	}
	uint32_t id = intern(h, text);
	*(uint32_t *)cts_htab_put(h->keys, &key, NULL) = id;
	return id;
}

/* ---- pairs ---- */

static uint64_t pair_key(uint32_t st, uint32_t pred)
{
	return ((uint64_t)st + 1) << 32 | ((uint64_t)pred + 1);
}

bool cts_hapset_has(const struct cts_hapset *h, uint32_t st, uint32_t pred)
{
	uint64_t key = pair_key(st, pred);
	return cts_htab_get(h->pairs, &key) != NULL;
}

static void add_pair(struct cts_hapset *h, uint64_t key)
{
	bool added;
	cts_htab_put(h->pairs, &key, &added);
	if (!added)
		return;
	uint32_t ids[2] = { (uint32_t)(key >> 32) - 1, (uint32_t)key - 1 };
	for (int i = 0; i < 2; i++)
		if (h->inpair[ids[i]]++ == 0)
			h->nstmts++;
}

uint64_t cts_hapset_statements(const struct cts_hapset *h)
{
	return h->nstmts;
}

uint64_t cts_hapset_pairs(const struct cts_hapset *h)
{
	return cts_htab_count(h->pairs);
}

/* ---- learnHapsets ---- */

static struct obj *obj_at(struct cts_hapset *h, uint64_t key)
{
	return cts_htab_put(h->objs, &key, NULL); /* a new one zeroed */
}

static bool conflict(uint8_t a, uint8_t b)
{
	if (a <= K_WRITE && b <= K_WRITE)
		return a == K_WRITE || b == K_WRITE;
	if (a == K_ACQ && b == K_ACQ)
		return true;
	return (a == K_WAIT && b == K_NOTIFY) || (a == K_NOTIFY && b == K_WAIT);
}

/* For each other thread, its last event on the object, unless this thread
 * touched the object since (then that one is no immediate predecessor: the
 * paper's e3 after e2 in Figure 2): a conflicting one is an immediately
 * dependent predecessor. Then this event is tid's last. */
static void learn_obj(struct cts_hapset *h, uint64_t key, int tid, uint32_t st, uint8_t kind)
{
	struct obj *o = obj_at(h, key);
	int mine = -1;
	for (int i = 0; i < o->n; i++)
		if (o->l[i].tid == tid)
			mine = i;
	uint32_t since = mine >= 0 ? o->l[mine].seq : 0;
	for (int i = 0; i < o->n; i++) {
		const struct last *l = &o->l[i];
		if (l->tid == tid || l->seq < since || !conflict(kind, l->kind) ||
		    cts_hapset_has(h, st, l->st))
			continue;
		if (h->nfresh == h->freshcap) {
			size_t ncap = h->freshcap ? 2 * h->freshcap : 256;
			h->fresh = cts_xgrow(h->fresh, h->freshcap, ncap, sizeof(*h->fresh));
			h->freshcap = ncap;
		}
		h->fresh[h->nfresh++] = pair_key(st, l->st);
	}
	if (mine < 0) {
		if (o->n < HS_LAST) {
			mine = o->n++;
		} else {
			/* Forget the entry touched longest ago. */
			mine = 0;
			for (int i = 1; i < o->n; i++)
				if (o->l[i].seq < o->l[mine].seq)
					mine = i;
		}
	}
	o->l[mine] = (struct last){ tid, st, kind, ++o->seq };
}

void cts_hapset_learn(struct cts_hapset *h, const struct cts_event *ev, uint32_t st)
{
	uint8_t kind;
	uint64_t obj = ev->obj;
	unsigned cls = 1;
	switch (ev->op) {
	case CTS_OP_READ:
		kind = K_READ;
		cls = 0;
		break;
	case CTS_OP_WRITE: case CTS_OP_RMW: case CTS_OP_ATOMIC:
		kind = K_WRITE;
		cls = 0;
		break;
	case CTS_OP_LOCK: case CTS_OP_RDLOCK: case CTS_OP_WRLOCK:
		if (ev->timed && ev->result != 0)
			return;
		kind = K_ACQ;
		break;
	case CTS_OP_TRYLOCK: case CTS_OP_TRYRDLOCK: case CTS_OP_TRYWRLOCK:
		if (ev->result != 0)
			return;
		kind = K_ACQ;
		break;
	case CTS_OP_COND_REACQUIRE:
		kind = K_ACQ;
		obj = ev->obj2;
		break;
	case CTS_OP_COND_WAIT: case CTS_OP_SEM_WAIT: case CTS_OP_SEM_TRYWAIT:
		kind = K_WAIT;
		cls = 2;
		break;
	case CTS_OP_COND_SIGNAL: case CTS_OP_COND_BROADCAST: case CTS_OP_SEM_POST:
		kind = K_NOTIFY;
		cls = 2;
		break;
	default:
		return;   /* unlocks, thread events, library ranges: no pairs */
	}
	if (cls == 0) {
		uint64_t size = ev->size ? ev->size : 1;
		for (uint64_t w = obj >> 3, n = 0; w <= (obj + size - 1) >> 3 && n < HS_WORDS; w++, n++)
			learn_obj(h, w << 2, ev->tid, st, kind);
	} else {
		learn_obj(h, obj << 2 | cls, ev->tid, st, kind);
	}
}

void cts_hapset_drop_run(struct cts_hapset *h)
{
	h->nfresh = 0;
	cts_htab_clear(h->objs);
}

void cts_hapset_end_run(struct cts_hapset *h, uint64_t run, bool good)
{
	for (size_t i = 0; good && i < h->nfresh; i++)
		add_pair(h, h->fresh[i]);
	cts_hapset_drop_run(h);
	if (h->nseries == h->seriescap) {
		size_t ncap = h->seriescap ? 2 * h->seriescap : 64;
		h->series = cts_xgrow(h->series, h->seriescap, ncap, sizeof(*h->series));
		h->seriescap = ncap;
	}
	h->series[h->nseries++] = (struct point){ run, h->nstmts, cts_htab_count(h->pairs) };
}

/* ---- JSON ---- */

json_t *cts_hapset_report(const struct cts_hapset *h)
{
	json_t *o = json_object(), *a = json_array();
	json_object_set_new(o, "statements", json_integer((json_int_t)h->nstmts));
	json_object_set_new(o, "pairs", json_integer((json_int_t)cts_htab_count(h->pairs)));
	for (size_t i = 0; i < h->nseries; i++) {
		json_t *p = json_object();
		json_object_set_new(p, "run", json_integer((json_int_t)h->series[i].run));
		json_object_set_new(p, "statements", json_integer((json_int_t)h->series[i].statements));
		json_object_set_new(p, "pairs", json_integer((json_int_t)h->series[i].pairs));
		json_array_append_new(a, p);
	}
	json_object_set_new(o, "series", a);
	return o;
}

/* "pos|caller|caller" <-> {"at": pos, "callers": [...]} */
static json_t *stmt_json(const char *text)
{
	json_t *o = json_object(), *c = json_array();
	const char *bar = strchr(text, '|');
	json_object_set_new(o, "at", json_stringn(text, bar ? (size_t)(bar - text) : strlen(text)));
	while (bar) {
		const char *p = bar + 1;
		bar = strchr(p, '|');
		json_array_append_new(c, json_stringn(p, bar ? (size_t)(bar - p) : strlen(p)));
	}
	json_object_set_new(o, "callers", c);
	return o;
}

static bool stmt_from_json(json_t *o, char *buf, size_t len)
{
	const char *at = json_string_value(json_object_get(o, "at"));
	json_t *c = json_object_get(o, "callers");
	if (!at || strchr(at, '|') || (c && !json_is_array(c)))
		return false;
	snprintf(buf, len, "%s", at);
	for (size_t i = 0; i < json_array_size(c); i++) {
		const char *p = json_string_value(json_array_get(c, i));
		size_t n = strlen(buf);
		if (!p || strchr(p, '|') || i >= HS_CTX)
			return false;
		snprintf(buf + n, len - n, "|%s", p);
	}
	return true;
}

int cts_hapset_save(const struct cts_hapset *h, const char *path, char *err, size_t errlen)
{
	json_t *o = json_object(), *a = json_array();
	json_object_set_new(o, "hapset", json_integer(1));
	size_t pos = 0;
	const void *k;
	void *v;
	while (cts_htab_next(h->pairs, &pos, &k, &v)) {
		uint64_t pair = *(const uint64_t *)k;
		json_t *p = json_object();
		json_object_set_new(p, "stmt", stmt_json(h->text[(pair >> 32) - 1]));
		json_object_set_new(p, "pred", stmt_json(h->text[(uint32_t)pair - 1]));
		json_array_append_new(a, p);
	}
	json_object_set_new(o, "pairs", a);
	int rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (rc != 0)
		snprintf(err, errlen, "--hapset-save %s: cannot write: %s", path, strerror(errno));
	return rc ? -1 : 0;
}

int cts_hapset_load(struct cts_hapset *h, const char *path, char *err, size_t errlen)
{
	json_t *o = cts_json_load_path("--hapset-load ", path, "", 0, err, errlen);
	if (!o)
		return -1;
	json_t *a = json_object_get(o, "pairs");
	if (json_integer_value(json_object_get(o, "hapset")) != 1 || !json_is_array(a)) {
		snprintf(err, errlen, "--hapset-load %s: not a HaPSet file (--hapset-save writes one)",
			 path);
		json_decref(o);
		return -1;
	}
	for (size_t i = 0; i < json_array_size(a); i++) {
		char s[1024], p[1024];
		json_t *e = json_array_get(a, i);
		if (!stmt_from_json(json_object_get(e, "stmt"), s, sizeof(s)) ||
		    !stmt_from_json(json_object_get(e, "pred"), p, sizeof(p))) {
			snprintf(err, errlen, "--hapset-load %s: pair %zu is malformed", path, i);
			json_decref(o);
			return -1;
		}
		uint32_t si = intern(h, s), pi = intern(h, p);
		add_pair(h, pair_key(si, pi));
	}
	json_decref(o);
	return 0;
}
