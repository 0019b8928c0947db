/* Simulated backend: parse a small thread script (format in sim.h) and run it
 * one visible operation at a time, filling struct cts_run_state the way the
 * live tracer does. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "models/error.h"
#include "models/objmodel.h"
#include "strategies/explorer.h"
#include "strategies/sim.h"

#define NAME_MAX_LEN 48
#define SIM_PC_BASE 0x400000u     /* fake pc of instruction i: base + 16 * i */
#define SIM_EXIT_PC_BASE 0x800000u /* fake pc of thread definition d's end: base + 16 * d */
#define SIM_ENTRY_PC_BASE 0x900000u /* and of its entry (START) */
#define SIM_ADDR_BASE 0x10000u    /* fake addresses of shared words and objects */
#define SIM_LOCAL_STEPS 1000000   /* local statements between two visible ops */

enum { X_CONST, X_LOCAL, X_NAMED, X_NEG, X_NOT, X_BIN };
enum { B_ADD, B_SUB, B_MUL, B_DIV, B_MOD, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_AND, B_OR };

struct expr {
	int kind, op, a, b;
	int64_t v;
};

enum ikind { I_OP, I_LET, I_IF, I_GOTO, I_ASSERT, I_EXIT };

struct ref {
	int obj;  /* -1 none */
	int idx;  /* index expression, -1 = element 0 */
};

struct instr {
	enum ikind kind;
	cts_op op;
	struct ref r1, r2;
	int e1, e2;     /* expressions, -1 none */
	int dst;        /* local slot, -1 none */
	int def;        /* create: thread definition; join: by definition (-1 = by local e1) */
	int target;     /* goto/if: label id while parsing, instruction index after */
	int line;
};

struct label {
	char name[NAME_MAX_LEN];
	int at;         /* instruction index, -1 until defined */
	int line;
};

struct tdef {
	char name[NAME_MAX_LEN];
	int first, end;               /* instruction range */
	int nlocals;
	char (*locals)[NAME_MAX_LEN]; /* slot 0 = tid, slot 1 = arg */
	struct label *labels;
	int nlabels;
	int line;
};

struct sobj {
	char name[NAME_MAX_LEN];
	int64_t n;       /* words */
	int64_t init;
	uint64_t base;
	size_t off;      /* into mem */
};

struct sconst {
	char name[NAME_MAX_LEN];
	int64_t v;
};

struct sthread {
	int def, ip;
	bool alive, started, at_exit, reacquire;
	bool cancelled;   /* unwinds at its next cancellation point */
	int64_t *loc;
	int cap;
};

struct cts_sim {
	struct tdef *defs;
	int ndefs;
	struct instr *ins;
	int nins;
	struct expr *ex;
	int nex;
	struct sobj *objs;
	int nobjs;
	struct sconst *consts;
	int nconsts;
	int64_t *mem;
	size_t nwords;
	char **lines;    /* source lines, for describe_pc */
	int nlines;
	/* the run */
	struct cts_objmodel *model;
	struct sthread *th;   /* per thread number, grown by init_thread */
	size_t thcap;
	int *last_created;
};

/* ---- tokens ---- */

enum tkind { T_EOF, T_NL, T_IDENT, T_NUM, T_PUNCT };

struct tok {
	enum tkind k;
	int line;
	int64_t v;
	char s[NAME_MAX_LEN];
};

struct parser {
	struct cts_sim *sim;
	struct tok *toks;
	int ntoks, pos;
	int def;         /* current thread definition, -1 before the first */
	int hidden;      /* counter for hidden locals */
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 3, 4)))
static void perr(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	if (p->failed)
		return;
	p->failed = true;
	int n = snprintf(p->err, p->errlen, "line %d: ", line);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static const char *const puncts2[] = { "->", "==", "!=", "<=", ">=", "&&", "||" };

static int tokenize(struct parser *p, const char *text)
{
	int cap = 256, line = 1;
	const char *s = text;

	p->toks = cts_xmalloc((size_t)cap * sizeof(*p->toks));
	p->ntoks = 0;
	for (;;) {
		if (p->ntoks + 1 >= cap) {
			cap *= 2;
			p->toks = cts_xrealloc(p->toks, (size_t)cap * sizeof(*p->toks));
		}
		struct tok *t = &p->toks[p->ntoks];
		memset(t, 0, sizeof(*t));
		t->line = line;
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '#')
			while (*s && *s != '\n')
				s++;
		if (!*s) {
			t->k = T_EOF;
			p->ntoks++;
			return 0;
		}
		if (*s == '\n') {
			t->k = T_NL;
			line++;
			s++;
		} else if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') {
			size_t n = 0;
			while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
			       (*s >= '0' && *s <= '9')) {
				if (n + 1 >= sizeof(t->s)) {
					perr(p, line, "name too long");
					return -1;
				}
				t->s[n++] = *s++;
			}
			t->k = T_IDENT;
		} else if (*s >= '0' && *s <= '9') {
			char *end;
			errno = 0;
			t->v = (int64_t)strtoll(s, &end, 0);
			if (errno) {
				perr(p, line, "bad number");
				return -1;
			}
			s = end;
			t->k = T_NUM;
		} else {
			t->k = T_PUNCT;
			t->s[0] = *s;
			for (size_t i = 0; i < sizeof(puncts2) / sizeof(puncts2[0]); i++)
				if (s[0] == puncts2[i][0] && s[1] == puncts2[i][1])
					t->s[1] = s[1];
			s += t->s[1] ? 2 : 1;
			if (!t->s[1] && !strchr("+-*/%<>!()[];:=,", t->s[0])) {
				perr(p, line, "unexpected character '%c'", t->s[0]);
				return -1;
			}
		}
		p->ntoks++;
	}
}

static struct tok *peek(struct parser *p)
{
	return &p->toks[p->pos];
}

static struct tok *next(struct parser *p)
{
	struct tok *t = &p->toks[p->pos];
	if (t->k != T_EOF)
		p->pos++;
	return t;
}

static bool is_punct(const struct tok *t, const char *s)
{
	return t->k == T_PUNCT && strcmp(t->s, s) == 0;
}

static bool is_word(const struct tok *t, const char *s)
{
	return t->k == T_IDENT && strcmp(t->s, s) == 0;
}

static bool at_end_of_stmt(struct parser *p)
{
	struct tok *t = peek(p);
	return t->k == T_NL || t->k == T_EOF || is_punct(t, ";");
}

static bool expect_punct(struct parser *p, const char *s)
{
	struct tok *t = next(p);
	if (!is_punct(t, s)) {
		perr(p, t->line, "expected '%s'", s);
		return false;
	}
	return true;
}

static const char *expect_ident(struct parser *p, const char *what)
{
	struct tok *t = next(p);
	if (t->k != T_IDENT) {
		perr(p, t->line, "expected %s", what);
		return "";
	}
	return t->s;
}

/* ---- symbol tables ---- */

static int find_def(const struct cts_sim *sim, const char *name)
{
	for (int i = 0; i < sim->ndefs; i++)
		if (strcmp(sim->defs[i].name, name) == 0)
			return i;
	return -1;
}

static int find_obj(const struct cts_sim *sim, const char *name)
{
	for (int i = 0; i < sim->nobjs; i++)
		if (strcmp(sim->objs[i].name, name) == 0)
			return i;
	return -1;
}

static int add_obj(struct cts_sim *sim, const char *name, int64_t n, int64_t init)
{
	int i = find_obj(sim, name);
	if (i < 0) {
		sim->objs = cts_xrealloc(sim->objs, (size_t)(sim->nobjs + 1) * sizeof(*sim->objs));
		i = sim->nobjs++;
		memset(&sim->objs[i], 0, sizeof(sim->objs[i]));
		snprintf(sim->objs[i].name, sizeof(sim->objs[i].name), "%s", name);
	}
	sim->objs[i].n = n;
	sim->objs[i].init = init;
	return i;
}

static int find_const(const struct cts_sim *sim, const char *name)
{
	for (int i = 0; i < sim->nconsts; i++)
		if (strcmp(sim->consts[i].name, name) == 0)
			return i;
	return -1;
}

static int find_local(const struct tdef *d, const char *name)
{
	for (int i = 0; i < d->nlocals; i++)
		if (strcmp(d->locals[i], name) == 0)
			return i;
	return -1;
}

static int add_local(struct tdef *d, const char *name)
{
	int i = find_local(d, name);
	if (i >= 0)
		return i;
	d->locals = cts_xrealloc(d->locals, (size_t)(d->nlocals + 1) * sizeof(*d->locals));
	snprintf(d->locals[d->nlocals], sizeof(d->locals[0]), "%s", name);
	return d->nlocals++;
}

static int add_def(struct cts_sim *sim, const char *name, int line)
{
	sim->defs = cts_xrealloc(sim->defs, (size_t)(sim->ndefs + 1) * sizeof(*sim->defs));
	struct tdef *d = &sim->defs[sim->ndefs];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->line = line;
	add_local(d, "tid");
	add_local(d, "arg");
	return sim->ndefs++;
}

static int label_id(struct tdef *d, const char *name, int line)
{
	for (int i = 0; i < d->nlabels; i++)
		if (strcmp(d->labels[i].name, name) == 0)
			return i;
	d->labels = cts_xrealloc(d->labels, (size_t)(d->nlabels + 1) * sizeof(*d->labels));
	struct label *l = &d->labels[d->nlabels];
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->at = -1;
	l->line = line;
	return d->nlabels++;
}

static int new_expr(struct cts_sim *sim, int kind, int op, int a, int b, int64_t v)
{
	sim->ex = cts_xrealloc(sim->ex, (size_t)(sim->nex + 1) * sizeof(*sim->ex));
	sim->ex[sim->nex] = (struct expr){ .kind = kind, .op = op, .a = a, .b = b, .v = v };
	return sim->nex++;
}

static struct instr *new_instr(struct cts_sim *sim, enum ikind kind, cts_op op, int line)
{
	sim->ins = cts_xrealloc(sim->ins, (size_t)(sim->nins + 1) * sizeof(*sim->ins));
	struct instr *in = &sim->ins[sim->nins++];
	*in = (struct instr){ .kind = kind, .op = op, .r1 = { -1, -1 }, .r2 = { -1, -1 },
			      .e1 = -1, .e2 = -1, .dst = -1, .def = -1, .target = -1,
			      .line = line };
	return in;
}

/* ---- expressions ---- */

static int parse_expr(struct parser *p, bool shared_ok);

static struct ref parse_ref(struct parser *p)
{
	struct ref r = { -1, -1 };
	const char *name = expect_ident(p, "a shared name");
	if (p->failed)
		return r;
	r.obj = find_obj(p->sim, name);
	if (r.obj < 0)
		r.obj = add_obj(p->sim, name, 1, 0);
	if (is_punct(peek(p), "[")) {
		next(p);
		r.idx = parse_expr(p, false);
		expect_punct(p, "]");
	}
	return r;
}

/* A shared name inside an assert: read it first, as its own visible step. */
static int shared_read(struct parser *p, int line)
{
	struct tdef *d = &p->sim->defs[p->def];
	struct ref r = parse_ref(p);
	char name[NAME_MAX_LEN];
	snprintf(name, sizeof(name), "%%h%d", p->hidden++);
	int slot = add_local(d, name);
	struct instr *in = new_instr(p->sim, I_OP, CTS_OP_READ, line);
	in->r1 = r;
	in->dst = slot;
	return new_expr(p->sim, X_LOCAL, 0, -1, -1, slot);
}

static int parse_primary(struct parser *p, bool shared_ok)
{
	struct tok *t = peek(p);
	if (t->k == T_NUM) {
		next(p);
		return new_expr(p->sim, X_CONST, 0, -1, -1, t->v);
	}
	if (is_punct(t, "(")) {
		next(p);
		int e = parse_expr(p, shared_ok);
		expect_punct(p, ")");
		return e;
	}
	if (is_punct(t, "-") || is_punct(t, "!")) {
		next(p);
		int a = parse_primary(p, shared_ok);
		return new_expr(p->sim, t->s[0] == '-' ? X_NEG : X_NOT, 0, a, -1, 0);
	}
	if (t->k == T_IDENT) {
		int slot = find_local(&p->sim->defs[p->def], t->s);
		if (slot >= 0) {
			next(p);
			return new_expr(p->sim, X_LOCAL, 0, -1, -1, slot);
		}
		int k = find_const(p->sim, t->s);
		if (k >= 0) {
			next(p);
			return new_expr(p->sim, X_NAMED, 0, -1, -1, k);
		}
		if (shared_ok)
			return shared_read(p, t->line);
		perr(p, t->line, "'%s' is not a local here (read shared variables with 'read %s -> r')",
		     t->s, t->s);
		return -1;
	}
	perr(p, t->line, "expected an expression");
	return -1;
}

static const struct {
	const char *s;
	int op, prec;
} binops[] = {
	{ "||", B_OR, 1 }, { "&&", B_AND, 2 },
	{ "==", B_EQ, 3 }, { "!=", B_NE, 3 }, { "<", B_LT, 3 }, { "<=", B_LE, 3 },
	{ ">", B_GT, 3 },  { ">=", B_GE, 3 },
	{ "+", B_ADD, 4 }, { "-", B_SUB, 4 },
	{ "*", B_MUL, 5 }, { "/", B_DIV, 5 }, { "%", B_MOD, 5 },
};

static int binop_of(const struct tok *t, int *prec)
{
	if (t->k != T_PUNCT)
		return -1;
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (strcmp(t->s, binops[i].s) == 0) {
			*prec = binops[i].prec;
			return binops[i].op;
		}
	return -1;
}

static int parse_binary(struct parser *p, int min_prec, bool shared_ok)
{
	int lhs = parse_primary(p, shared_ok);
	for (;;) {
		int prec, op = binop_of(peek(p), &prec);
		if (op < 0 || prec < min_prec || p->failed)
			return lhs;
		next(p);
		int rhs = parse_binary(p, prec + 1, shared_ok);
		lhs = new_expr(p->sim, X_BIN, op, lhs, rhs, 0);
	}
}

static int parse_expr(struct parser *p, bool shared_ok)
{
	return parse_binary(p, 1, shared_ok);
}

/* ---- statements ---- */

static const struct {
	const char *word;
	cts_op op;
	int nrefs;      /* shared operands */
	int nexprs;     /* value operands */
	int result;     /* 0 no "-> r", 1 optional, 2 required */
} stmts[] = {
	{ "read", CTS_OP_READ, 1, 0, 2 },
	{ "write", CTS_OP_WRITE, 1, 1, 0 },
	{ "cas", CTS_OP_ATOMIC, 1, 2, 1 },
	{ "lock", CTS_OP_LOCK, 1, 0, 0 },
	{ "unlock", CTS_OP_UNLOCK, 1, 0, 0 },
	{ "trylock", CTS_OP_TRYLOCK, 1, 0, 1 },
	{ "wait", CTS_OP_COND_WAIT, 2, 0, 0 },
	{ "signal", CTS_OP_COND_SIGNAL, 1, 0, 0 },
	{ "broadcast", CTS_OP_COND_BROADCAST, 1, 0, 0 },
	{ "seminit", CTS_OP_SEM_INIT, 1, 1, 0 },
	{ "semwait", CTS_OP_SEM_WAIT, 1, 0, 0 },
	{ "sempost", CTS_OP_SEM_POST, 1, 0, 0 },
	{ "semtrywait", CTS_OP_SEM_TRYWAIT, 1, 0, 1 },
	{ "barrierinit", CTS_OP_BARRIER_INIT, 1, 1, 0 },
	{ "barrierwait", CTS_OP_BARRIER_WAIT, 1, 0, 0 },
	{ "yield", CTS_OP_YIELD, 0, 0, 0 },
};

static int parse_result(struct parser *p, int mode)
{
	if (mode && is_punct(peek(p), "->")) {
		next(p);
		const char *name = expect_ident(p, "a local name after '->'");
		return p->failed ? -1 : add_local(&p->sim->defs[p->def], name);
	}
	if (mode == 2)
		perr(p, peek(p)->line, "expected '-> local'");
	return -1;
}

/* Returns true for a label, which a statement may follow on the same line. */
static bool parse_stmt(struct parser *p)
{
	struct cts_sim *sim = p->sim;
	struct tdef *d = &sim->defs[p->def];
	struct tok *t = next(p);
	int line = t->line;

	if (t->k != T_IDENT) {
		perr(p, line, "expected a statement");
		return false;
	}
	if (is_punct(peek(p), ":")) {   /* label */
		next(p);
		int l = label_id(d, t->s, line);
		if (d->labels[l].at >= 0)
			perr(p, line, "label '%s' defined twice", t->s);
		d->labels[l].at = sim->nins;
		return true;
	}
	for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++) {
		if (strcmp(t->s, stmts[i].word) != 0)
			continue;
		struct ref r[2] = { { -1, -1 }, { -1, -1 } };
		int e[2] = { -1, -1 };
		for (int k = 0; k < stmts[i].nrefs; k++)
			r[k] = parse_ref(p);
		for (int k = 0; k < stmts[i].nexprs; k++)
			e[k] = parse_expr(p, false);
		int dst = parse_result(p, stmts[i].result);
		struct instr *in = new_instr(sim, I_OP, stmts[i].op, line);
		in->r1 = r[0];
		in->r2 = r[1];
		in->e1 = e[0];
		in->e2 = e[1];
		in->dst = dst;
		return false;
	}
	if (strcmp(t->s, "incr") == 0) {
		struct ref r = parse_ref(p);
		char name[NAME_MAX_LEN];
		snprintf(name, sizeof(name), "%%h%d", p->hidden++);
		int slot = add_local(&sim->defs[p->def], name);
		struct instr *in = new_instr(sim, I_OP, CTS_OP_READ, line);
		in->r1 = r;
		in->dst = slot;
		int one = new_expr(sim, X_CONST, 0, -1, -1, 1);
		int val = new_expr(sim, X_LOCAL, 0, -1, -1, slot);
		in = new_instr(sim, I_OP, CTS_OP_WRITE, line);
		in->r1 = r;
		in->e1 = new_expr(sim, X_BIN, B_ADD, val, one, 0);
	} else if (strcmp(t->s, "create") == 0) {
		const char *name = expect_ident(p, "a thread name");
		if (p->failed)
			return false;
		int def = find_def(sim, name);
		if (def < 0) {
			perr(p, line, "no thread named '%s'", name);
			return false;
		}
		int e = -1;
		if (!at_end_of_stmt(p) && !is_punct(peek(p), "->"))
			e = parse_expr(p, false);
		int dst = parse_result(p, 1);
		struct instr *in = new_instr(sim, I_OP, CTS_OP_CREATE, line);
		in->def = def;
		in->e1 = e;
		in->dst = dst;
	} else if (strcmp(t->s, "join") == 0 || strcmp(t->s, "cancel") == 0) {
		const char *name = expect_ident(p, "a thread or local name");
		if (p->failed)
			return false;
		int def = find_def(sim, name), slot = find_local(&sim->defs[p->def], name);
		if (def < 0 && slot < 0) {
			perr(p, line, "'%s' is neither a thread nor a local", name);
			return false;
		}
		struct instr *in = new_instr(sim, I_OP, t->s[0] == 'j' ? CTS_OP_JOIN : CTS_OP_CANCEL,
					     line);
		in->def = def;
		if (def < 0)
			in->e1 = new_expr(sim, X_LOCAL, 0, -1, -1, slot);
	} else if (strcmp(t->s, "let") == 0) {
		const char *name = expect_ident(p, "a local name");
		if (p->failed)
			return false;
		int slot = add_local(&sim->defs[p->def], name);
		expect_punct(p, "=");
		int e = parse_expr(p, false);
		struct instr *in = new_instr(sim, I_LET, CTS_OP_NONE, line);
		in->dst = slot;
		in->e1 = e;
	} else if (strcmp(t->s, "if") == 0 || strcmp(t->s, "goto") == 0) {
		int e = -1;
		if (t->s[0] == 'i') {
			e = parse_expr(p, false);
			if (!is_word(next(p), "goto")) {
				perr(p, line, "expected 'goto' after the condition");
				return false;
			}
		}
		const char *name = expect_ident(p, "a label");
		if (p->failed)
			return false;
		int l = label_id(&sim->defs[p->def], name, line);
		struct instr *in = new_instr(sim, e < 0 ? I_GOTO : I_IF, CTS_OP_NONE, line);
		in->e1 = e;
		in->target = l;
	} else if (strcmp(t->s, "assert") == 0) {
		int e = parse_expr(p, true);
		struct instr *in = new_instr(sim, I_ASSERT, CTS_OP_NONE, line);
		in->e1 = e;
	} else if (strcmp(t->s, "exit") == 0) {
		new_instr(sim, I_EXIT, CTS_OP_NONE, line);
	} else {
		perr(p, line, "unknown statement '%s'", t->s);
		return false;
	}
	return false;
}

static void finish_def(struct parser *p)
{
	if (p->def < 0)
		return;
	struct tdef *d = &p->sim->defs[p->def];
	d->end = p->sim->nins;
	for (int i = d->first; i < d->end; i++) {
		struct instr *in = &p->sim->ins[i];
		if (in->kind != I_IF && in->kind != I_GOTO)
			continue;
		struct label *l = &d->labels[in->target];
		if (l->at < 0) {
			perr(p, l->line, "label '%s' is not defined in thread '%s'", l->name, d->name);
			return;
		}
		in->target = l->at;
	}
}

static void parse_var(struct parser *p)
{
	const char *name = expect_ident(p, "a variable name");
	int line = peek(p)->line;
	int64_t n = 1, init = 0;
	if (p->failed)
		return;
	char copy[NAME_MAX_LEN];
	snprintf(copy, sizeof(copy), "%s", name);
	if (is_punct(peek(p), "[")) {
		next(p);
		struct tok *t = next(p);
		if (t->k != T_NUM || t->v <= 0 || t->v > (1 << 20)) {
			perr(p, line, "array size must be a number in 1..%d", 1 << 20);
			return;
		}
		n = t->v;
		expect_punct(p, "]");
	}
	if (is_punct(peek(p), "=")) {
		next(p);
		bool neg = false;
		if (is_punct(peek(p), "-")) {
			next(p);
			neg = true;
		}
		struct tok *t = next(p);
		if (t->k != T_NUM) {
			perr(p, line, "initial value must be a number");
			return;
		}
		init = neg ? -t->v : t->v;
	}
	add_obj(p->sim, copy, n, init);
}

static void parse_const(struct parser *p)
{
	struct tok *t = next(p);
	bool neg = false;
	if (t->k != T_IDENT) {
		perr(p, t->line, "expected a constant name");
		return;
	}
	if (find_const(p->sim, t->s) >= 0) {
		perr(p, t->line, "constant '%s' defined twice", t->s);
		return;
	}
	expect_punct(p, "=");
	if (is_punct(peek(p), "-")) {
		next(p);
		neg = true;
	}
	struct tok *v = next(p);
	if (p->failed || v->k != T_NUM) {
		perr(p, t->line, "a constant needs a number");
		return;
	}
	struct cts_sim *sim = p->sim;
	sim->consts = cts_xrealloc(sim->consts, (size_t)(sim->nconsts + 1) * sizeof(*sim->consts));
	snprintf(sim->consts[sim->nconsts].name, NAME_MAX_LEN, "%s", t->s);
	sim->consts[sim->nconsts++].v = neg ? -v->v : v->v;
}

/* First pass: thread names (create may name a later thread) and each
 * thread's locals (a loop may use one above the line that assigns it). */
static void collect_defs(struct parser *p)
{
	bool start = true;
	int def = -1;
	for (int i = 0; i < p->ntoks && !p->failed; i++) {
		struct tok *t = &p->toks[i];
		if (start && is_word(t, "thread") && p->toks[i + 1].k == T_IDENT) {
			if (find_def(p->sim, p->toks[i + 1].s) >= 0) {
				perr(p, t->line, "thread '%s' defined twice", p->toks[i + 1].s);
				return;
			}
			def = add_def(p->sim, p->toks[i + 1].s, t->line);
			i++;
		} else if (def >= 0 && (is_punct(t, "->") || (start && is_word(t, "let"))) &&
			   p->toks[i + 1].k == T_IDENT) {
			add_local(&p->sim->defs[def], p->toks[i + 1].s);
		}
		start = t->k == T_NL || is_punct(t, ";") || is_punct(t, ":");
	}
}

static void layout(struct cts_sim *sim)
{
	uint64_t addr = SIM_ADDR_BASE;
	size_t off = 0;
	for (int i = 0; i < sim->nobjs; i++) {
		struct sobj *o = &sim->objs[i];
		o->base = addr;
		o->off = off;
		off += (size_t)o->n;
		addr += ((uint64_t)o->n * 8 + 63) / 64 * 64;  /* own cache line(s) */
	}
	sim->nwords = off;
	sim->mem = cts_xcalloc(off ? off : 1, sizeof(*sim->mem));
}

static void keep_lines(struct cts_sim *sim, const char *text)
{
	const char *s = text;
	for (;;) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		sim->lines = cts_xrealloc(sim->lines, (size_t)(sim->nlines + 1) * sizeof(char *));
		char *l = cts_xmalloc(n + 1);
		memcpy(l, s, n);
		l[n] = 0;
		sim->lines[sim->nlines++] = l;
		if (!e)
			break;
		s = e + 1;
	}
}

struct cts_sim *cts_sim_parse(const char *text, char *err, size_t errlen)
{
	struct cts_sim *sim = cts_xcalloc(1, sizeof(*sim));
	struct parser p = { .sim = sim, .def = -1, .err = err, .errlen = errlen };
	int ndefs_seen = 0;

	if (errlen)
		err[0] = 0;
	if (tokenize(&p, text) == 0)
		collect_defs(&p);
	while (!p.failed) {
		struct tok *t = peek(&p);
		if (t->k == T_EOF)
			break;
		if (t->k == T_NL || is_punct(t, ";")) {
			next(&p);
			continue;
		}
		if (is_word(t, "var")) {
			next(&p);
			parse_var(&p);
		} else if (is_word(t, "const")) {
			next(&p);
			parse_const(&p);
		} else if (is_word(t, "thread") && p.toks[p.pos + 1].k == T_IDENT) {
			finish_def(&p);
			next(&p);
			p.def = find_def(sim, next(&p)->s);
			sim->defs[p.def].first = sim->nins;
			ndefs_seen++;
			expect_punct(&p, ":");
			continue;
		} else if (p.def < 0) {
			perr(&p, t->line, "statement outside a thread");
		} else if (parse_stmt(&p)) {
			continue;
		}
		if (!p.failed && !at_end_of_stmt(&p))
			perr(&p, peek(&p)->line, "unexpected '%s' after the statement",
			     peek(&p)->k == T_NUM ? "number" : peek(&p)->s);
	}
	if (!p.failed)
		finish_def(&p);
	if (!p.failed && !ndefs_seen)
		perr(&p, 1, "no thread defined");
	free(p.toks);
	if (p.failed) {
		cts_sim_free(sim);
		return NULL;
	}
	layout(sim);
	keep_lines(sim, text);
	sim->last_created = cts_xcalloc((size_t)sim->ndefs, sizeof(int));
	return sim;
}

struct cts_sim *cts_sim_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = cts_xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = cts_xrealloc(buf, cap);
		}
	}
	bool bad = ferror(f);
	fclose(f);
	buf[n] = 0;
	if (bad) {
		snprintf(err, errlen, "%s: read error", path);
		free(buf);
		return NULL;
	}
	char e2[256];
	struct cts_sim *sim = cts_sim_parse(buf, e2, sizeof(e2));
	if (!sim)
		snprintf(err, errlen, "%s: %s", path, e2);
	free(buf);
	return sim;
}

void cts_sim_free(struct cts_sim *sim)
{
	if (!sim)
		return;
	for (int i = 0; i < sim->ndefs; i++) {
		free(sim->defs[i].locals);
		free(sim->defs[i].labels);
	}
	for (int i = 0; i < sim->nlines; i++)
		free(sim->lines[i]);
	for (size_t i = 0; i < sim->thcap; i++)
		free(sim->th[i].loc);
	free(sim->th);
	free(sim->lines);
	free(sim->defs);
	free(sim->ins);
	free(sim->ex);
	free(sim->objs);
	free(sim->consts);
	free(sim->mem);
	free(sim->last_created);
	free(sim);
}

/* ---- running ---- */

struct runctx {
	struct cts_sim *sim;
	struct cts_run_state *st;
	int tid;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static void rerr(struct runctx *c, const char *fmt, ...)
{
	va_list ap;
	if (c->failed)
		return;
	c->failed = true;
	c->st->status = CTS_RUN_ERROR;
	va_start(ap, fmt);
	vsnprintf(c->st->message, sizeof(c->st->message), fmt, ap);
	va_end(ap);
}

static int64_t eval(struct runctx *c, int e)
{
	const struct expr *x = &c->sim->ex[e];
	int64_t a, b;
	switch (x->kind) {
	case X_CONST:
		return x->v;
	case X_LOCAL:
		return c->sim->th[c->tid].loc[x->v];
	case X_NAMED:
		return c->sim->consts[x->v].v;
	case X_NEG:
		return -eval(c, x->a);
	case X_NOT:
		return !eval(c, x->a);
	default:
		break;
	}
	a = eval(c, x->a);
	if (x->op == B_AND && !a)
		return 0;
	if (x->op == B_OR && a)
		return 1;
	b = eval(c, x->b);
	switch (x->op) {
	case B_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
	case B_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
	case B_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
	case B_DIV:
	case B_MOD:
		if (b == 0 || (a == INT64_MIN && b == -1)) {
			rerr(c, "thread %d: division by zero", c->tid);
			return 0;
		}
		return x->op == B_DIV ? a / b : a % b;
	case B_EQ: return a == b;
	case B_NE: return a != b;
	case B_LT: return a < b;
	case B_LE: return a <= b;
	case B_GT: return a > b;
	case B_GE: return a >= b;
	case B_AND:
	case B_OR: return b != 0;
	default: return 0;
	}
}

/* Word index into mem and fake address of a reference. */
static bool resolve(struct runctx *c, const struct ref *r, size_t *word, uint64_t *addr)
{
	const struct sobj *o = &c->sim->objs[r->obj];
	int64_t i = r->idx >= 0 ? eval(c, r->idx) : 0;
	if (i < 0 || i >= o->n) {
		rerr(c, "thread %d: index %" PRId64 " out of bounds of %s[%" PRId64 "]", c->tid, i,
		     o->name, o->n);
		return false;
	}
	*word = o->off + (size_t)i;
	*addr = o->base + 8 * (uint64_t)i;
	return true;
}

static uint64_t ref_addr(struct runctx *c, const struct ref *r)
{
	size_t w;
	uint64_t a = 0;
	resolve(c, r, &w, &a);
	return a;
}

/* The pending event of thread c->tid at its current instruction. */
static void make_pending(struct runctx *c)
{
	struct sthread *t = &c->sim->th[c->tid];
	struct cts_event *ev = &c->st->t[c->tid].pending;

	if (!t->started) {
		/* held before its first instruction, as the tracer holds new threads */
		cts_event_init(ev, c->tid, CTS_OP_START);
		ev->pc = SIM_ENTRY_PC_BASE + 16u * (uint64_t)t->def;
		return;
	}
	if (t->at_exit) {
		/* main returning is exit(): the whole process ends */
		cts_event_init(ev, c->tid, c->tid == 0 ? CTS_OP_PROC_EXIT : CTS_OP_THREAD_EXIT);
		ev->pc = SIM_EXIT_PC_BASE + 16u * (uint64_t)t->def;
		return;
	}
	const struct instr *in = &c->sim->ins[t->ip];
	cts_event_init(ev, c->tid, in->op);
	ev->pc = SIM_PC_BASE + 16u * (uint64_t)t->ip;
	switch (in->op) {
	case CTS_OP_READ:
	case CTS_OP_WRITE:
	case CTS_OP_ATOMIC:
		ev->obj = ref_addr(c, &in->r1);
		ev->size = 8;
		if (in->op == CTS_OP_WRITE)
			ev->value = (uint64_t)eval(c, in->e1);
		break;
	case CTS_OP_COND_WAIT:
		ev->obj = ref_addr(c, &in->r1);
		ev->obj2 = ref_addr(c, &in->r2);
		if (t->reacquire)
			ev->op = CTS_OP_COND_REACQUIRE;
		break;
	case CTS_OP_SEM_INIT:
	case CTS_OP_BARRIER_INIT:
		ev->obj = ref_addr(c, &in->r1);
		ev->value = (uint64_t)eval(c, in->e1);
		break;
	case CTS_OP_CREATE:
	case CTS_OP_YIELD:
		break;
	case CTS_OP_JOIN:
	case CTS_OP_CANCEL: {
		int64_t target = in->def >= 0 ? c->sim->last_created[in->def] : eval(c, in->e1);
		if (target < 0 || target >= c->st->nthreads || target == c->tid) {
			rerr(c, "thread %d: %s of %s, which is not a thread it can %s", c->tid,
			     cts_op_name(in->op), in->def >= 0 ? c->sim->defs[in->def].name : "a local",
			     cts_op_name(in->op));
			return;
		}
		ev->target = (int)target;
		ev->obj = (uint64_t)target + 1;   /* its pthread_t */
		break;
	}
	default:
		ev->obj = ref_addr(c, &in->r1);
		break;
	}
}

/* Run c->tid's local statements up to its next visible operation. */
static void advance(struct runctx *c)
{
	struct cts_sim *sim = c->sim;
	struct sthread *t = &sim->th[c->tid];
	const struct tdef *d = &sim->defs[t->def];

	for (long n = 0; !c->failed; n++) {
		if (n >= SIM_LOCAL_STEPS) {
			rerr(c, "thread %d (%s) ran %d local statements without a visible operation",
			     c->tid, d->name, SIM_LOCAL_STEPS);
			return;
		}
		if (t->at_exit || t->ip >= d->end) {
			t->at_exit = true;
			break;
		}
		const struct instr *in = &sim->ins[t->ip];
		switch (in->kind) {
		case I_OP:
			make_pending(c);
			return;
		case I_LET:
			t->loc[in->dst] = eval(c, in->e1);
			t->ip++;
			break;
		case I_IF:
			t->ip = eval(c, in->e1) ? in->target : t->ip + 1;
			break;
		case I_GOTO:
			t->ip = in->target;
			break;
		case I_ASSERT:
			if (!eval(c, in->e1) && !c->failed) {
				const char *src = in->line <= sim->nlines ? sim->lines[in->line - 1] : "";
				while (*src == ' ' || *src == '\t')
					src++;
				c->st->status = CTS_RUN_ASSERT;
				c->st->fault_tid = c->tid;
				c->st->fault_pc = SIM_PC_BASE + 16u * (uint64_t)t->ip;
				c->st->assert_file[0] = 0;
				c->st->assert_line = in->line;
				snprintf(c->st->message, sizeof(c->st->message),
					 "assertion failed in thread %s, line %d: %s", d->name, in->line,
					 src);
				c->failed = true;
				return;
			}
			t->ip++;
			break;
		case I_EXIT:
			t->at_exit = true;
			break;
		}
	}
	if (!c->failed)
		make_pending(c);
}

static void init_thread(struct cts_sim *sim, int tid, int def, int64_t arg)
{
	if ((size_t)tid >= sim->thcap) {
		size_t cap = cts_grow_cap(sim->thcap, (size_t)tid + 1);
		sim->th = cts_xgrow(sim->th, sim->thcap, cap, sizeof(*sim->th));
		sim->thcap = cap;
	}
	struct sthread *t = &sim->th[tid];
	int n = sim->defs[def].nlocals;
	if (t->cap < n) {
		t->loc = cts_xrealloc(t->loc, (size_t)n * sizeof(*t->loc));
		t->cap = n;
	}
	memset(t->loc, 0, (size_t)n * sizeof(*t->loc));
	t->loc[0] = tid;
	t->loc[1] = arg;
	t->def = def;
	t->ip = sim->defs[def].first;
	t->alive = true;
	t->started = false;
	t->at_exit = false;
	t->reacquire = false;
	t->cancelled = false;
}

static int sim_start(void *be, struct cts_run_state *st)
{
	struct cts_sim *sim = be;
	struct runctx c = { .sim = sim, .st = st, .tid = 0 };

	for (int i = 0; i < sim->nobjs; i++)
		for (int64_t k = 0; k < sim->objs[i].n; k++)
			sim->mem[sim->objs[i].off + (size_t)k] = sim->objs[i].init;
	for (int i = 0; i < sim->ndefs; i++)
		sim->last_created[i] = -1;
	st->nthreads = 0;
	st->status = CTS_RUN_ACTIVE;
	st->fault_tid = -1;
	st->message[0] = 0;
	struct cts_thread_view *v0 = cts_run_state_thread(st, 0);
	if (!v0) {
		snprintf(st->message, sizeof(st->message), "sim: no thread allowed");
		st->status = CTS_RUN_ERROR;
		return -1;
	}
	init_thread(sim, 0, 0, 0);
	v0->alive = true;
	v0->blocked = false;
	make_pending(&c);
	return 0;
}

/* The statements that are cancellation points (pthreads(7)), as the
 * object model has them; a cond wait's re-acquisition completes first. */
static bool unwinds_at(cts_op op)
{
	return op == CTS_OP_JOIN || op == CTS_OP_SEM_WAIT || op == CTS_OP_COND_WAIT;
}

static void thread_exit(struct runctx *c)
{
	c->sim->th[c->tid].alive = false;
	c->st->t[c->tid].alive = false;
	for (int i = 0; i < c->st->nthreads; i++)
		if (c->st->t[i].alive)
			return;
	c->st->status = CTS_RUN_EXITED;
	c->st->exit_code = 0;
}

static int sim_step(void *be, struct cts_run_state *st, int tid, bool give_up,
		    struct cts_event *done)
{
	struct cts_sim *sim = be;
	struct runctx c = { .sim = sim, .st = st, .tid = tid };
	(void)give_up; /* scripts have no timed operations */

	if (tid < 0 || tid >= st->nthreads || !st->t[tid].alive || st->status != CTS_RUN_ACTIVE) {
		snprintf(st->message, sizeof(st->message), "sim: thread %d cannot step", tid);
		st->status = CTS_RUN_ERROR;
		return -1;
	}
	struct sthread *t = &sim->th[tid];
	*done = st->t[tid].pending;
	switch (done->op) {
	case CTS_OP_THREAD_EXIT:
		thread_exit(&c);
		return 0;
	case CTS_OP_PROC_EXIT:
		for (int i = 0; i < st->nthreads; i++) {
			st->t[i].alive = false;
			sim->th[i].alive = false;
		}
		st->status = CTS_RUN_EXITED;
		st->exit_code = 0;
		return 0;
	case CTS_OP_START:
		t->started = true;
		advance(&c);
		return st->status == CTS_RUN_ERROR ? -1 : 0;
	default:
		break;
	}
	const struct instr *in = &sim->ins[t->ip];
	size_t w;
	uint64_t a;
	if (t->cancelled && unwinds_at(done->op)) {
		/* As glibc with no cleanup handlers: the call does nothing and
		 * the thread ends (the model: a cancelled cond wait keeps its
		 * mutex, a join or semaphore wait takes nothing). */
		t->at_exit = true;
		make_pending(&c);
		return c.failed ? -1 : 0;
	}
	switch (done->op) {
	case CTS_OP_READ:
		if (!resolve(&c, &in->r1, &w, &a))
			return -1;
		done->value = (uint64_t)sim->mem[w];
		t->loc[in->dst] = sim->mem[w];
		break;
	case CTS_OP_WRITE:
		if (!resolve(&c, &in->r1, &w, &a))
			return -1;
		sim->mem[w] = (int64_t)done->value;
		break;
	case CTS_OP_ATOMIC: {
		if (!resolve(&c, &in->r1, &w, &a))
			return -1;
		int64_t expect = eval(&c, in->e1), nv = eval(&c, in->e2);
		bool ok = sim->mem[w] == expect;
		if (ok)
			sim->mem[w] = nv;
		done->value = (uint64_t)sim->mem[w];   /* as the tracer: the value after */
		done->result = ok ? 0 : EAGAIN;
		if (in->dst >= 0)
			t->loc[in->dst] = ok;
		break;
	}
	case CTS_OP_TRYLOCK:
	case CTS_OP_SEM_TRYWAIT: {
		/* The explorer applies the op to the model after this step; ask it now. */
		bool ok = cts_objmodel_available(sim->model, &st->t[tid].pending);
		int r = ok ? 0 : done->op == CTS_OP_TRYLOCK ? EBUSY : EAGAIN;
		done->result = r;
		if (in->dst >= 0)
			t->loc[in->dst] = r;
		break;
	}
	case CTS_OP_COND_WAIT:
		t->reacquire = true;   /* same statement, second half */
		make_pending(&c);
		return c.failed ? -1 : 0;
	case CTS_OP_COND_REACQUIRE:
		t->reacquire = false;
		if (t->cancelled) {   /* with the mutex back, it unwinds */
			t->at_exit = true;
			make_pending(&c);
			return c.failed ? -1 : 0;
		}
		break;
	case CTS_OP_CANCEL: {
		struct sthread *v = &sim->th[done->target];
		if (v->alive && !v->at_exit) {
			v->cancelled = true;
			cts_objmodel_cancel(sim->model, done->target);
		}
		break;
	}
	case CTS_OP_CREATE: {
		int n = st->nthreads;
		struct cts_thread_view *v = cts_run_state_thread(st, n);
		if (!v) {
			rerr(&c, "sim: creates more than %d threads (--max-threads)",
			     cts_run_state_limit(st));
			st->bad_input = true;
			return -1;
		}
		int64_t arg = in->e1 >= 0 ? eval(&c, in->e1) : 0;
		init_thread(sim, n, in->def, arg);
		t = &sim->th[tid];   /* the table may have moved */
		v->alive = true;
		v->blocked = false;
		sim->last_created[in->def] = n;
		done->target = n;
		if (in->dst >= 0)
			t->loc[in->dst] = n;
		struct runctx child = { .sim = sim, .st = st, .tid = n };
		make_pending(&child);
		break;
	}
	default:
		break;
	}
	if (c.failed)
		return -1;
	t->ip++;
	advance(&c);
	return st->status == CTS_RUN_ERROR ? -1 : 0;
}

static void sim_stop(void *be, struct cts_run_state *st)
{
	(void)be, (void)st; /* nothing outlives a run: start resets everything */
}

static void sim_describe_pc(void *be, uint64_t pc, char *buf, size_t len)
{
	struct cts_sim *sim = be;
	buf[0] = 0;
	for (int k = 0; k < 2; k++) {
		uint64_t base = k ? SIM_ENTRY_PC_BASE : SIM_EXIT_PC_BASE;
		if (pc >= base && (pc - base) % 16 == 0 && (pc - base) / 16 < (uint64_t)sim->ndefs) {
			snprintf(buf, len, "%s (%s)", sim->defs[(pc - base) / 16].name,
				 k ? "start" : "end");
			return;
		}
	}
	if (pc < SIM_PC_BASE || (pc - SIM_PC_BASE) % 16 || (pc - SIM_PC_BASE) / 16 >= (uint64_t)sim->nins)
		return;
	int i = (int)((pc - SIM_PC_BASE) / 16);
	for (int d = 0; d < sim->ndefs; d++) {
		const struct tdef *td = &sim->defs[d];
		if (i < td->first || i >= td->end)
			continue;
		int line = sim->ins[i].line;
		const char *src = line <= sim->nlines ? sim->lines[line - 1] : "";
		while (*src == ' ' || *src == '\t')
			src++;
		snprintf(buf, len, "%s (line %d: %s)", td->name, line, src);
		return;
	}
}

static void sim_describe_data(void *be, uint64_t addr, char *buf, size_t len)
{
	const struct cts_sim *sim = be;
	buf[0] = 0;
	for (int i = 0; i < sim->nobjs; i++) {
		const struct sobj *o = &sim->objs[i];
		if (addr < o->base || addr >= o->base + 8 * (uint64_t)o->n)
			continue;
		if (o->n > 1)
			snprintf(buf, len, "%s[%" PRIu64 "]", o->name, (addr - o->base) / 8);
		else
			snprintf(buf, len, "%s", o->name);
		return;
	}
}

/* A thread's whole state: where it is and its locals. */
static int sim_thread_state(void *be, int tid, uint64_t *hash)
{
	const struct cts_sim *sim = be;
	if (tid < 0 || (size_t)tid >= sim->thcap || !sim->th[tid].alive)
		return -1;
	const struct sthread *t = &sim->th[tid];
	uint64_t h = 0xcbf29ce484222325ull;
	int64_t head[5] = { t->def, t->ip, t->started, t->at_exit, t->reacquire };
	for (int i = 0; i < 5 + sim->defs[t->def].nlocals; i++) {
		h ^= (uint64_t)(i < 5 ? head[i] : t->loc[i - 5]);
		h *= 0x100000001b3ull;
	}
	*hash = h;
	return 0;
}

static const struct cts_backend_ops sim_ops = {
	.name = "sim",
	.start = sim_start,
	.step = sim_step,
	.stop = sim_stop,
	.describe_pc = sim_describe_pc,
	.describe_data = sim_describe_data,
	.thread_state = sim_thread_state,
};

struct cts_backend cts_sim_backend(struct cts_sim *sim, struct cts_objmodel *model)
{
	sim->model = model;
	return (struct cts_backend){ .ops = &sim_ops, .be = sim };
}

uint64_t cts_sim_addr(const struct cts_sim *sim, const char *name, int64_t index)
{
	int i = find_obj(sim, name);
	if (i < 0 || index < 0 || index >= sim->objs[i].n)
		return 0;
	return sim->objs[i].base + 8 * (uint64_t)index;
}

int64_t cts_sim_value(const struct cts_sim *sim, const char *name, int64_t index)
{
	int i = find_obj(sim, name);
	if (i < 0 || index < 0 || index >= sim->objs[i].n)
		return 0;
	return sim->mem[sim->objs[i].off + (size_t)index];
}

bool cts_sim_set_const(struct cts_sim *sim, const char *name, int64_t value)
{
	int i = find_const(sim, name);
	if (i < 0)
		return false;
	sim->consts[i].v = value;
	return true;
}

int cts_sim_explore(struct cts_sim *sim, const struct cts_explorer_config *cfg,
		    struct cts_strategy *strategy, struct cts_explore_result *res)
{
	struct cts_explorer_config c = *cfg;
	struct cts_objmodel *m = cts_objmodel_new(false);
	struct cts_backend be = cts_sim_backend(sim, m);
	if (!c.log)
		c.log = stderr;
	int rc = cts_explore(&c, &be, m, strategy, res);
	cts_objmodel_free(m);
	return rc;
}
