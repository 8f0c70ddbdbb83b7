/*
** suggest.c -- the dynamic_shapes solver behind `epdbg suggest` (see
** suggest.h for what it finds; suggest_verify.c checks what it finds).
**
** One pass of shape propagation with symbols for the sizes, then the
** conditions are solved in this order, each step substituting what the
** earlier ones fixed into every condition still open:
**
**   1. equalities with exactly one follower: the follower becomes an
**      expression in the requested sizes (`dim0_y = batch`, `dim1_z =
**      2*dx + 10`), or its constant (it stays static);
**   2. equalities between requested sizes: one Dim (or a derived one);
**      an equality pinning a requested size to a number: a specialization;
**   3. an equality with several followers: the followers that would make
**      the others decreasing stay static (a Dim's multiple is positive);
**   4. every follower left stays static, and 1-2 run again;
**   5. conditions on one Dim: min/max, or a hidden root when only one
**      residue class passes (`Mod(s, 4) == 0`), or a source change when the
**      passing values are not a range (`Ne(Mod(h, 32), 0)`);
**   6. conditions on several Dims that do not hold over their ranges: the
**      last Dim named stays static; conditions on data (u0): torch._check.
*/
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest_int.h"

/* The node of a condition from the archive's guards_code (no graph node). */
#define NODE_GUARDS_CODE (-2)

typedef enum VarKind {
    VK_ASKED,   /* --dynamic, or a failing size of a static dim */
    VK_ARCHIVE, /* a symbol the archive already has (s0) */
    VK_FOLLOW,  /* another size of 2 or more: dynamic only if coupled */
    VK_HIDDEN,  /* a divisibility root made here (_batch) */
} VarKind;

typedef struct Var {
    char name[64];     /* the symbol in the analysis, and the Dim's name */
    char sym[32];      /* the archive's symbol (VK_ARCHIVE), else "" */
    VarKind kind;
    int ui, d;         /* the first input dimension that is this var (-1: none) */
    int64_t hint;
    int64_t lo, hi;
    SymExpr *val;      /* solved: in other vars, or a constant; NULL while free */
    int node;          /* the condition's node that fixed val (-1) */
    char why[256];
    char why_min[512], why_max[512];
    int min_node, max_node;
} Var;

typedef struct Cond {
    SymExpr *e;
    ShapeConstraintKind kind;
    int node;
    char why[160];
    bool done;
} Cond;

typedef struct Solver {
    const Interp *ip;
    const ExportedProgram *ep;
    const SuggestOptions *opt;
    Suggestion *s;
    Var *v;
    int nv, capv;
    Cond *c;
    int nc, capc;
    LiftCand *cands;
    int ncands;
    bool program_dynamic;
    bool try_all;      /* no size named in a static program: every size tried, no literal lifted */
} Solver;

/* ---- small helpers -------------------------------------------------------- */

static void ident_of(const char *name, char *buf, size_t cap)
{
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < cap; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        if (ok)
            buf[k++] = ch;
        else if (k > 0 && buf[k - 1] != '_' && p[1])
            buf[k++] = '_';
    }
    while (k > 0 && buf[k - 1] == '_')
        k--;
    buf[k] = '\0';
    if (k == 0)
        snprintf(buf, cap, "in");
}

static bool is_python_name(const char *s)
{
    if (!s || !s[0] || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

static int find_var(const Solver *so, const char *name)
{
    for (int i = 0; i < so->nv; i++)
        if (strcmp(so->v[i].name, name) == 0)
            return i;
    return -1;
}

static Var *add_var(Solver *so, const char *name, VarKind kind, int ui, int d, int64_t hint)
{
    if (so->nv == so->capv) {
        so->capv = so->capv ? 2 * so->capv : 16;
        so->v = ep_xrealloc(so->v, (size_t)so->capv * sizeof *so->v);
    }
    Var *v = &so->v[so->nv++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->kind = kind;
    v->ui = ui;
    v->d = d;
    v->hint = hint;
    v->lo = 2; /* torch.export's default minimum for a Dim */
    v->hi = SYM_RANGE_POS_INF;
    v->node = v->min_node = v->max_node = -1;
    return v;
}

static void add_cond(Solver *so, SymExpr *e, ShapeConstraintKind kind, int node, const char *why)
{
    if (!e)
        return;
    if (so->nc == so->capc) {
        so->capc = so->capc ? 2 * so->capc : 32;
        so->c = ep_xrealloc(so->c, (size_t)so->capc * sizeof *so->c);
    }
    Cond *c = &so->c[so->nc++];
    memset(c, 0, sizeof *c);
    c->e = e;
    c->kind = kind;
    c->node = node;
    /* the rules say "aten.add.Tensor: broadcast of dim -2"; the node's
    ** label names the op already */
    const char *colon = why ? strstr(why, ": ") : NULL;
    if (colon && node >= 0 && memchr(why, ' ', (size_t)(colon - why)) == NULL)
        why = colon + 2;
    snprintf(c->why, sizeof c->why, "%s", why ? why : "");
}

/* e with every solved var replaced by its value (new, canonical). */
/* Does e mention symbol name? */
static bool sym_mentions_name(const SymExpr *e, const char *name)
{
    const char *names[32];
    int n = sym_symbols(e, names, 32);
    for (int i = 0; i < n && i < 32; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return n > 32; /* too many to list: substitute anyway */
}

static SymExpr *substitute(const Solver *so, const SymExpr *e)
{
    SymExpr *cur = sym_clone(e);
    /* a value may name a var solved after it was set (b = a, then a = c):
    ** pass again until no solved var is left (each pass removes a level,
    ** and values never refer back, so nv passes suffice) */
    for (int pass = 0; cur && pass <= so->nv; pass++) {
        bool changed = false;
        for (int i = 0; cur && i < so->nv; i++) {
            if (!so->v[i].val || !sym_mentions_name(cur, so->v[i].name))
                continue;
            SymExpr *n = sym_subst(cur, so->v[i].name, so->v[i].val);
            sym_free(cur);
            cur = n;
            changed = true;
        }
        if (!changed)
            break;
    }
    SymExpr *c = cur ? sym_canon(cur) : NULL;
    sym_free(cur);
    return c;
}

/* Bind every var to its hint (free vars) for evaluating. */
static void hint_bindings(const Solver *so, SymBindings *b)
{
    for (int i = 0; i < so->nv; i++)
        sym_bindings_set(b, so->v[i].name, so->v[i].hint);
}

/* Truth of cond with var k at value x and every other symbol at its hint:
** 1, 0, or -1 when it cannot be evaluated. */
static int truth_at(const Solver *so, const SymExpr *cond, int k, int64_t x)
{
    SymBindings b;
    sym_bindings_init(&b);
    hint_bindings(so, &b);
    if (k >= 0)
        sym_bindings_set(&b, so->v[k].name, x);
    SymValue out;
    const char *unb = NULL;
    SymStatus st = sym_eval(cond, &b, &out, &unb);
    sym_bindings_free(&b);
    if (st != SYM_OK)
        return -1;
    if (out.kind == SYMV_BOOL)
        return out.b;
    return out.kind == SYMV_INT ? out.i != 0 : -1;
}

/* Is e, with every var at its hint, the value want?  1, 0, -1 (cannot tell). */
static int truth_at_value(const Solver *so, const SymExpr *e, int64_t want)
{
    SymBindings b;
    sym_bindings_init(&b);
    hint_bindings(so, &b);
    SymValue out;
    const char *unb = NULL;
    SymStatus st = sym_eval(e, &b, &out, &unb);
    sym_bindings_free(&b);
    if (st != SYM_OK || out.kind != SYMV_INT)
        return -1;
    return out.i == want;
}

static void set_val(Var *v, SymExpr *val, int node, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void set_val(Var *v, SymExpr *val, int node, const char *fmt, ...)
{
    sym_free(v->val);
    v->val = val;
    v->node = node;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
}

/* The symbols of e that are vars, with their indices (free ones only, as
** substitute() leaves no others).  Returns how many; unknown symbols
** (unbacked u0) are counted in *others. */
static int vars_of(const Solver *so, const SymExpr *e, int *idx, int max, int *others)
{
    const char *names[16];
    int n = sym_symbols(e, names, 16), k = 0;
    *others = n > 16 ? n - 16 : 0;
    for (int i = 0; i < n && i < 16; i++) {
        int j = find_var(so, names[i]);
        if (j < 0)
            (*others)++;
        else if (k < max)
            idx[k++] = j;
    }
    return k;
}

/* ---- solving one equation for one var ------------------------------------ */

/* e (Eq(L, R)) as the difference L - R (new, canonical), or NULL. */
static SymExpr *difference(const SymExpr *e)
{
    SymOp rel;
    const SymExpr *l, *r;
    if (!sym_relation(e, &rel, &l, &r) || rel != SYM_OP_EQ)
        return NULL;
    SymExpr *d = sym_binop(SYM_OP_SUB, l, r);
    SymExpr *c = d ? sym_canon(d) : NULL;
    sym_free(d);
    return c;
}

static SymExpr *at(const SymExpr *e, const char *name, int64_t v)
{
    SymExpr *k = sym_const(v);
    SymExpr *s = sym_subst(e, name, k);
    SymExpr *c = s ? sym_canon(s) : NULL;
    sym_free(k);
    sym_free(s);
    return c;
}

/* Solve the equation cond for var k symbolically: D = L - R is a*x + rest
** with a an integer and rest free of x; x = -rest / a when that divides.
** The solution (new) is checked by substituting it back. */
static SymExpr *solve_symbolic(const Solver *so, const SymExpr *cond, int k)
{
    const char *x = so->v[k].name;
    SymExpr *d = difference(cond);
    if (!d)
        return NULL;
    /* linear in x: equal steps at 0, 1, 2 and across to 37 (a Mod or a
    ** floor can look linear over a few points) */
    SymExpr *d0 = at(d, x, 0), *d1 = at(d, x, 1), *d2 = at(d, x, 2), *d37 = at(d, x, 37);
    SymExpr *sol = NULL;
    SymExpr *a1 = d0 && d1 ? sym_binop(SYM_OP_SUB, d1, d0) : NULL, *a2 = d1 && d2 ? sym_binop(SYM_OP_SUB, d2, d1) : NULL;
    SymExpr *a37 = d0 && d37 ? sym_binop(SYM_OP_SUB, d37, d0) : NULL;
    SymExpr *c1 = a1 ? sym_canon(a1) : NULL, *c2 = a2 ? sym_canon(a2) : NULL, *c37 = a37 ? sym_canon(a37) : NULL;
    int64_t a, b, a_37;
    if (c1 && c2 && c37 && sym_as_int(c1, &a) && sym_as_int(c2, &b) && sym_as_int(c37, &a_37) && a == b &&
        a_37 == 37 * a && a != 0) {
        SymExpr *neg = sym_const(-1), *ka = sym_const(a);
        SymExpr *minus = sym_binop(SYM_OP_MUL, d0, neg);
        SymExpr *q = a == 1 ? sym_clone(minus) : a == -1 ? sym_clone(d0) : sym_binop(SYM_OP_FLOORDIV, minus, ka);
        SymExpr *qc = q ? sym_canon(q) : NULL;
        /* check: D(x := q) == 0 for every value */
        SymExpr *back = qc ? sym_subst(d, x, qc) : NULL, *bc = back ? sym_canon(back) : NULL;
        int64_t z;
        if (bc && sym_as_int(bc, &z) && z == 0)
            sol = qc, qc = NULL;
        sym_free(neg), sym_free(ka), sym_free(minus), sym_free(q), sym_free(qc), sym_free(back), sym_free(bc);
    }
    sym_free(d), sym_free(d0), sym_free(d1), sym_free(d2), sym_free(a1), sym_free(a2), sym_free(c1), sym_free(c2);
    sym_free(d37), sym_free(a37), sym_free(c37);
    /* the solution must give the var its traced size */
    if (sol && truth_at_value(so, sol, so->v[k].hint) != 1) {
        sym_free(sol);
        sol = NULL;
    }
    return sol;
}

/* The values of var k (others at their hints, root r at x) that satisfy
** cond within [lo, hi]: the one nearest want. */
static bool nearest_solution(const Solver *so, const SymExpr *cond, int k, int r, int64_t x, int64_t want,
                             int64_t step, int64_t *out)
{
    SymBindings b;
    sym_bindings_init(&b);
    hint_bindings(so, &b);
    sym_bindings_set(&b, so->v[r].name, x);
    bool found = false;
    for (int64_t off = 0; off <= 8192 && !found; off += step) {
        for (int sgn = 0; sgn < 2 && !found; sgn++) {
            int64_t y = sgn ? want - off : want + off;
            if (y < 0 || (sgn && off == 0))
                continue;
            sym_bindings_set(&b, so->v[k].name, y);
            SymValue v;
            const char *unb;
            if (sym_eval(cond, &b, &v, &unb) == SYM_OK && v.kind == SYMV_BOOL && v.b) {
                *out = y;
                found = true;
            }
        }
    }
    sym_bindings_free(&b);
    return found;
}

/* How many values of var k near y satisfy cond with root r at x (others
** at their hints): a relation has as many at every x (one for an
** equality, two for the parities of a CeilDiv); an inequality's count
** grows with x (Min(x, y) == x holds for every y >= x). */
static int count_solutions(const Solver *so, const SymExpr *cond, int k, int r, int64_t x, int64_t y)
{
    SymBindings b;
    sym_bindings_init(&b);
    hint_bindings(so, &b);
    sym_bindings_set(&b, so->v[r].name, x);
    int n = 0;
    for (int64_t t = y - 100 < 0 ? 0 : y - 100; t <= y + 100; t++) {
        sym_bindings_set(&b, so->v[k].name, t);
        SymValue v;
        const char *unb;
        n += sym_eval(cond, &b, &v, &unb) == SYM_OK && v.kind == SYMV_BOOL && v.b;
    }
    sym_bindings_free(&b);
    return n;
}

/* Fit var k = a*r + c (a >= 1) through the solutions of cond at r's hint
** and at r's hint plus a period, then check it (sym_decide, else points). */
static SymExpr *solve_fit(const Solver *so, const SymExpr *cond, int k, int r)
{
    int64_t h = so->v[r].hint, y0;
    if (truth_at(so, cond, -1, 0) == 1)
        y0 = so->v[k].hint;
    else if (!nearest_solution(so, cond, k, r, h, so->v[k].hint, 1, &y0))
        return NULL;
    /* an equation that leaves k free over a long stretch (Min(x, y) == x
    ** holds for every y >= x) relates nothing: a few solutions (the two
    ** parities of a CeilDiv) are a relation, a ray is not */
    int n0 = count_solutions(so, cond, k, r, h, y0);
    if (n0 > 64)
        return NULL;
    for (int64_t period = 1; period <= 64; period *= 2) {
        int64_t y1;
        /* the same residue as y0 modulo the period keeps to one branch of
        ** a CeilDiv or Mod */
        if (!nearest_solution(so, cond, k, r, h + period, y0 + period, period, &y1))
            continue;
        if ((y1 - y0) % period != 0 || y1 <= y0)
            continue;
        int64_t a = (y1 - y0) / period, c = y0 - a * h;
        if (count_solutions(so, cond, k, r, h + 64, a * (h + 64) + c) != n0)
            continue; /* the solutions thin out or grow: not a relation */
        SymExpr *rs = sym_symbol(so->v[r].name), *ka = sym_const(a), *kc = sym_const(c);
        SymExpr *m = sym_binop(SYM_OP_MUL, ka, rs), *f = sym_binop(SYM_OP_ADD, m, kc);
        sym_free(rs), sym_free(ka), sym_free(kc), sym_free(m);
        SymExpr *back = f ? sym_subst(cond, so->v[k].name, f) : NULL;
        SymRanges rr;
        sym_ranges_init(&rr);
        sym_ranges_set(&rr, so->v[r].name, so->v[r].lo, so->v[r].hi);
        SymTruth t = back ? sym_decide(back, &rr) : SYM_UNKNOWN;
        bool ok = t == SYM_TRUE;
        if (t == SYM_UNKNOWN && back) { /* points: the verifier tests more */
            ok = true;
            for (int64_t p = so->v[r].lo; p < so->v[r].lo + 200 && ok; p++)
                ok = truth_at(so, back, r, p) != 0;
        }
        sym_ranges_free(&rr);
        sym_free(back);
        if (ok)
            return f;
        sym_free(f);
    }
    return NULL;
}

/* Is e a*r + c with a >= 1 in one var r, or a constant? */
static bool positive_affine(const SymExpr *e)
{
    const char *s;
    int64_t a, c;
    return e && sym_affine(e, &s, &a, &c) && (!s || a >= 1);
}

/* ---- the steps -------------------------------------------------------------- */

static bool is_equation(const SymExpr *e)
{
    SymOp rel;
    const SymExpr *l, *r;
    return sym_relation(e, &rel, &l, &r) && rel == SYM_OP_EQ;
}

static void label_of(const Solver *so, int node, char *buf, size_t cap)
{
    if (node == NODE_GUARDS_CODE)
        snprintf(buf, cap, "the export's guards_code");
    else if (node < 0)
        snprintf(buf, cap, "the export's range constraints");
    else
        node_label(so->ep, node, buf, cap);
}

/* Try to close one equation; true when something was fixed. */
static bool solve_equation(Solver *so, Cond *c, bool allow_many_followers)
{
    SymExpr *e = substitute(so, c->e);
    if (!e)
        return false;
    int64_t konst;
    if (sym_as_int(e, &konst) || !is_equation(e)) {
        sym_free(e);
        return false; /* decided later (bounds, verifier) */
    }
    int idx[16], others, n = vars_of(so, e, idx, 16, &others);
    int follow[16], nf = 0, asked[16], na = 0;
    for (int i = 0; i < n; i++)
        if (so->v[idx[i]].kind == VK_FOLLOW)
            follow[nf++] = idx[i];
        else
            asked[na++] = idx[i];
    char where[200];
    label_of(so, c->node, where, sizeof where);
    bool fixed = false;
    if (others == 0 && nf == 1 && na <= 1) {
        int k = follow[0];
        SymExpr *sol = solve_symbolic(so, e, k);
        if (!sol && na == 1)
            sol = solve_fit(so, e, k, asked[0]);
        if (sol && positive_affine(sol)) {
            set_val(&so->v[k], sol, c->node, "%s (%s)", where, c->why);
            fixed = true;
        } else {
            sym_free(sol);
        }
    } else if (others == 0 && nf == 1 && na >= 2 && allow_many_followers) {
        /* a follower tied to several requested sizes (z = 2*(x + y)): a
        ** derived Dim has one root, so the last size named stays static */
        int k = asked[0];
        for (int j = 1; j < na; j++)
            k = asked[j] > k ? asked[j] : k;
        const Var *f = &so->v[follow[0]];
        char fwho[96], who[96];
        snprintf(fwho, sizeof fwho, "%s.shape[%d]", user_input_name(interp_user_input(so->ip, f->ui)), f->d);
        snprintf(who, sizeof who, "%s.shape[%d]", so->v[k].ui >= 0 ? user_input_name(interp_user_input(so->ip, so->v[k].ui)) : so->v[k].name,
                 so->v[k].d);
        set_val(&so->v[k], sym_const(so->v[k].hint), c->node, "%s ties %s to several dynamic sizes", where, fwho);
        suggest_note(so->s, SN_STATIC, c->node, NULL,
                     "%s stays %lld: %s ties %s to more than one dynamic size, and a derived Dim has one root "
                     "(torch.export cannot state it); the other sizes stay dynamic",
                     who, (long long)so->v[k].hint, where, fwho);
        so->v[k].kind = VK_FOLLOW; /* no specialization note: this one is said */
        sym_free(e);
        return true; /* the equation stays open: the follower is solved next */
    } else if (others == 0 && nf >= 2 && na == 1 && allow_many_followers) {
        /* keep the followers static that would otherwise be decreasing */
        for (int j = 0; j < nf && !fixed; j++) {
            SymExpr *cur = sym_clone(e);
            for (int o = 0; o < nf; o++) {
                if (o == j)
                    continue;
                SymExpr *h = sym_const(so->v[follow[o]].hint);
                SymExpr *n2 = sym_subst(cur, so->v[follow[o]].name, h);
                sym_free(h);
                sym_free(cur);
                cur = n2 ? sym_canon(n2) : NULL;
                sym_free(n2);
            }
            SymExpr *sol = cur ? solve_symbolic(so, cur, follow[j]) : NULL;
            if (!sol && cur)
                sol = solve_fit(so, cur, follow[j], asked[0]);
            if (sol && positive_affine(sol)) {
                for (int o = 0; o < nf; o++)
                    if (o != j)
                        set_val(&so->v[follow[o]], sym_const(so->v[follow[o]].hint), c->node,
                                "kept at its example size so that %s can follow %s through %s", so->v[follow[j]].name,
                                so->v[asked[0]].name, where);
                set_val(&so->v[follow[j]], sol, c->node, "%s (%s)", where, c->why);
                fixed = true;
            } else {
                sym_free(sol);
            }
            sym_free(cur);
        }
    } else if (others == 0 && nf == 0 && na >= 1) {
        /* between requested sizes: eliminate the last one named */
        for (int j = na - 1; j >= 0 && !fixed; j--) {
            int k = asked[j];
            SymExpr *sol = solve_symbolic(so, e, k);
            if (!sol && na == 2)
                sol = solve_fit(so, e, k, asked[j == 0 ? 1 : 0]);
            if (sol && positive_affine(sol)) {
                set_val(&so->v[k], sol, c->node, "%s (%s)", where, c->why);
                fixed = true;
            } else {
                sym_free(sol);
            }
        }
    }
    if (fixed)
        c->done = true;
    sym_free(e);
    return fixed;
}

static bool equalities_pass(Solver *so, bool many)
{
    bool any = false, progress = true;
    while (progress) {
        progress = false;
        for (int i = 0; i < so->nc; i++)
            if (!so->c[i].done && solve_equation(so, &so->c[i], many))
                progress = any = true;
    }
    return any;
}

static void pin_followers(Solver *so)
{
    for (int i = 0; i < so->nv; i++)
        if (so->v[i].kind == VK_FOLLOW && !so->v[i].val)
            set_val(&so->v[i], sym_const(so->v[i].hint), -1, "not coupled to a dynamic size");
}

/* ---- bounds on one var ---------------------------------------------------- */

/* The smallest period p <= 64 with which cond's truth repeats over a window
** around the hint, and whether that window mixes true and false. */
static int64_t truth_period(const Solver *so, const SymExpr *cond, int k, int64_t base, bool *mixed)
{
    enum { W = 256 };
    signed char t[W + 64];
    bool any_t = false, any_f = false;
    for (int i = 0; i < W + 64; i++) {
        t[i] = (signed char)truth_at(so, cond, k, base + i);
        any_t |= t[i] == 1;
        any_f |= t[i] == 0;
    }
    *mixed = any_t && any_f;
    for (int64_t p = 1; p <= 64; p++) {
        bool same = true;
        for (int i = 0; i < W && same; i++)
            same = t[i] == t[i + p];
        if (same)
            return p;
    }
    return 0;
}

/* Does cond hold for var k over [a, b] (decide, else a dense check where
** the range is small)? */
static bool holds_on(const Solver *so, const SymExpr *cond, int k, int64_t a, int64_t b)
{
    SymRanges r;
    sym_ranges_init(&r);
    sym_ranges_set(&r, so->v[k].name, a, b);
    SymTruth t = sym_decide(cond, &r);
    sym_ranges_free(&r);
    if (t != SYM_UNKNOWN)
        return t == SYM_TRUE;
    if (b - a > 4096)
        return false;
    for (int64_t x = a; x <= b; x++)
        if (truth_at(so, cond, k, x) != 1)
            return false;
    return true;
}

static void unique_name(const Solver *so, const char *want, char *out, size_t cap);

/* Narrow var k's range by cond (one var).  Returns false when cond cannot
** be stated as a range or a residue class (the caller writes why). */
static bool bound_var(Solver *so, const Cond *c, const SymExpr *e, int k)
{
    Var *v = &so->v[k];
    if (holds_on(so, e, k, v->lo, v->hi))
        return true;
    char where[200];
    label_of(so, c->node, where, sizeof where);
    /* an anchor the condition holds at: the hint, else the nearest above lo */
    int64_t p = v->hint;
    if (truth_at(so, e, k, p) != 1) {
        bool found = false;
        for (int64_t x = v->lo; x < v->lo + 4096 && x <= v->hi && !found; x++)
            if (truth_at(so, e, k, x) == 1)
                p = x, found = true;
        if (!found)
            return false;
    }
    bool mixed;
    int64_t base = p - 128 > v->lo ? p - 128 : v->lo;
    int64_t period = truth_period(so, e, k, base, &mixed);
    if (mixed && period > 1) {
        int ntrue = 0;
        char classes[160] = "";
        size_t o = 0;
        for (int64_t r = 0; r < period; r++)
            if (truth_at(so, e, k, base + r) == 1) {
                ntrue++;
                if (o + 16 < sizeof classes)
                    o += (size_t)snprintf(classes + o, sizeof classes - o, "%s%lld", o ? ", " : "",
                                          (long long)((base + r) % period));
            }
        /* all residues but one (Ne(Mod(h, 32), 0)): a Dim would keep a
        ** sliver of the sizes; the source should lose the branch instead */
        if (ntrue == period - 1 && period > 2)
            return false;
        /* a Dim states one residue class: the example's */
        int64_t res = p % period;
        if (ntrue > 1) {
            char where2[200];
            label_of(so, c->node, where2, sizeof where2);
            suggest_note(so->s, SN_WHY, c->node, NULL,
                         "%s passes for sizes of residue %s modulo %lld; a Dim states one residue, so the "
                         "suggestion keeps the example's (%lld = %lld mod %lld)",
                         where2, classes, (long long)period, (long long)p, (long long)res, (long long)period);
        }
        /* v = period * _v + res */
        char want[72], hname[72];
        const char *stem = v->name;
        while (*stem == '_')
            stem++;
        snprintf(want, sizeof want, "_%s", stem);
        unique_name(so, want, hname, sizeof hname);
        /* the least _v >= 0 with period*_v + res >= lo (floor division of
        ** a possibly negative numerator) */
        int64_t num = v->lo - res, hlo = num <= 0 ? 0 : (num + period - 1) / period;
        int64_t hhi = v->hi == SYM_RANGE_POS_INF ? SYM_RANGE_POS_INF : (v->hi - res) / period;
        Var *h = add_var(so, hname, VK_HIDDEN, v->ui, v->d, (p - res) / period);
        v = &so->v[k]; /* add_var may move the table */
        h->lo = hlo;
        h->hi = hhi;
        SymExpr *hs = sym_symbol(hname), *kp = sym_const(period), *kr = sym_const(res);
        SymExpr *m = sym_binop(SYM_OP_MUL, kp, hs), *f = sym_binop(SYM_OP_ADD, m, kr);
        sym_free(hs), sym_free(kp), sym_free(kr), sym_free(m);
        char *txt = sym_to_string(c->e);
        set_val(v, f, c->node, "%s needs %s", where, txt ? txt : "?");
        free(txt);
        return true;
    }
    /* a range: the longest run around p where the condition holds */
    int64_t lo = v->lo, hi = p;
    while (lo < hi) { /* smallest x with the condition holding on [x, p] */
        int64_t mid = lo + (hi - lo) / 2;
        if (truth_at(so, e, k, mid) == 1 && holds_on(so, e, k, mid, p))
            hi = mid;
        else
            lo = mid + 1;
    }
    int64_t nlo = lo;
    int64_t top = v->hi == SYM_RANGE_POS_INF ? ((int64_t)1 << 40) : v->hi;
    lo = p, hi = top;
    while (lo < hi) { /* largest x with the condition on [p, x] */
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (truth_at(so, e, k, mid) == 1 && holds_on(so, e, k, p, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t nhi = lo == top && v->hi == SYM_RANGE_POS_INF ? SYM_RANGE_POS_INF : lo;
    char *txt = sym_to_string(c->e);
    if (nlo > v->lo) {
        v->lo = nlo;
        v->min_node = c->node;
        snprintf(v->why_min, sizeof v->why_min, "%s needs %s (%s)", where, txt ? txt : "?", c->why);
    }
    if (nhi < v->hi) {
        v->hi = nhi;
        v->max_node = c->node;
        snprintf(v->why_max, sizeof v->why_max, "%s needs %s (%s)", where, txt ? txt : "?", c->why);
    }
    free(txt);
    return true;
}

/* ---- setting up ------------------------------------------------------------- */

/* The example size of every user input dim (s->hint), the one the
** archive was traced at: its example inputs, else the recorded sizes (a
** symbol's hint, else the given inputs, else the lower end of its range,
** at least 2); and the given inputs' sizes (s->given). */
static void example_sizes(Solver *so, Value *sample, int nsample, SymBindings *syms)
{
    const Interp *ip = so->ip;
    Suggestion *s = so->s;
    for (int ui = 0; ui < s->ninputs; ui++) {
        const UserInput *u = interp_user_input(ip, ui);
        const TensorMeta *m = u->meta;
        const Value *sv = ui < nsample ? &sample[ui] : NULL;
        const Value *gv = so->opt->inputs && ui < so->opt->ninputs ? &so->opt->inputs[ui] : NULL;
        for (int d = 0; m && d < m->ndim; d++) {
            int64_t h = 0;
            bool have = false;
            if (sv && sv->kind == V_TENSOR && sv->t->ndim == m->ndim)
                h = sv->t->sizes[d], have = true;
            else if (!m->sizes[d].is_expr)
                h = m->sizes[d].value, have = true;
            else if (m->sizes[d].has_hint)
                h = m->sizes[d].hint, have = true;
            else if (gv && gv->kind == V_TENSOR && gv->t->ndim == m->ndim)
                h = gv->t->sizes[d], have = true;
            s->hint[ui * EP_MAX_DIMS + d] = have ? h : -1;
            if (s->given)
                s->given[ui * EP_MAX_DIMS + d] =
                    gv && gv->kind == V_TENSOR && gv->t->ndim == m->ndim ? gv->t->sizes[d] : -1;
            if (have && m->sizes[d].is_expr && m->sizes[d].parsed) {
                char why[128];
                sym_match(m->sizes[d].parsed, syms, h, why, sizeof why);
            }
        }
    }
    /* sizes still unknown: symbols at their minimum (at least 2) */
    for (int i = 0; i < so->ep->nranges; i++) {
        const RangeConstraint *rc = &so->ep->ranges[i];
        const char *sym = rc->parsed ? sym_as_symbol(rc->parsed) : NULL;
        int64_t have;
        if (sym && !sym_bindings_get(syms, sym, &have))
            sym_bindings_set(syms, sym, rc->has_min && rc->min > 2 ? rc->min : 2);
    }
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++) {
            int64_t *h = &s->hint[ui * EP_MAX_DIMS + d];
            SymValue v;
            const char *unb;
            if (*h < 0 && m->sizes[d].parsed && sym_eval(m->sizes[d].parsed, syms, &v, &unb) == SYM_OK &&
                v.kind == SYMV_INT)
                *h = v.i;
            if (*h < 0)
                *h = 2;
        }
    }
}

static const RangeConstraint *range_of(const ExportedProgram *ep, const char *sym)
{
    for (int i = 0; i < ep->nranges; i++) {
        const char *s = ep->ranges[i].parsed ? sym_as_symbol(ep->ranges[i].parsed) : NULL;
        if (s && strcmp(s, sym) == 0)
            return &ep->ranges[i];
    }
    return NULL;
}

static const DynRequest *requested(const SuggestOptions *o, int ui, int d)
{
    for (int i = 0; i < o->ndynamic; i++)
        if (o->dynamic[i].input == ui && o->dynamic[i].dim == d)
            return &o->dynamic[i];
    return NULL;
}

/* A name no var and no archive symbol has yet. */
static void unique_name(const Solver *so, const char *want, char *out, size_t cap)
{
    snprintf(out, cap, "%s", want);
    for (int n = 2; find_var(so, out) >= 0 || range_of(so->ep, out); n++)
        snprintf(out, cap, "%s_%d", want, n);
}

/* Build one var per symbolic input size; the input shapes the propagation
** runs with go to shapes (per user input). */
static void make_vars(Solver *so, const SymBindings *syms, SymShape *shapes)
{
    const Interp *ip = so->ip;
    Suggestion *s = so->s;
    /* a program exported static, with no size named: try every size */
    bool any_symbolic = false;
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++)
            any_symbolic |= m->sizes[d].is_expr;
    }
    bool try_all = so->opt->ndynamic == 0 && !any_symbolic;
    so->try_all = try_all;
    if (try_all)
        suggest_note(s, SN_WHY, -1, NULL,
                     "the program was exported with static shapes and no --dynamic NAME:DIM names a size, so every "
                     "size of 2 or more was tried");
    for (int ui = 0; ui < s->ninputs; ui++) {
        const UserInput *u = interp_user_input(ip, ui);
        const TensorMeta *m = u->meta;
        shapes[ui].ndim = 0;
        if (!m || u->kind != ARG_TENSOR)
            continue;
        char ident[48];
        ident_of(user_input_name(u), ident, sizeof ident);
        for (int d = 0; d < m->ndim; d++) {
            int64_t h = s->hint[ui * EP_MAX_DIMS + d];
            int64_t g = s->given && s->given[ui * EP_MAX_DIMS + d] >= 0 ? s->given[ui * EP_MAX_DIMS + d] : h;
            const DynRequest *rq = requested(so->opt, ui, d);
            const SymDim *sd = &m->sizes[d];
            char auto_name[64], name[64];
            snprintf(auto_name, sizeof auto_name, "dim%d_%s", d, ident);
            SymExpr *dim = NULL;
            if (sd->is_expr && sd->parsed) {
                so->program_dynamic = true;
                const char *bare = sym_as_symbol(sd->parsed);
                const char *syms_in[8];
                int ns = sym_symbols(sd->parsed, syms_in, 8);
                /* the archive's symbols become vars named as Dims */
                for (int j = 0; j < ns && j < 8; j++) {
                    bool known = false;
                    for (int q = 0; q < so->nv; q++)
                        known |= strcmp(so->v[q].sym, syms_in[j]) == 0;
                    if (known)
                        continue;
                    const char *want = bare && rq && rq->dim_name ? rq->dim_name : auto_name;
                    unique_name(so, want, name, sizeof name);
                    int64_t hv = 2;
                    sym_bindings_get(syms, syms_in[j], &hv);
                    Var *v = add_var(so, name, VK_ARCHIVE, bare ? ui : -1, bare ? d : -1, hv);
                    snprintf(v->sym, sizeof v->sym, "%s", syms_in[j]);
                    const RangeConstraint *rc = range_of(so->ep, syms_in[j]);
                    if (rc && rc->has_min)
                        v->lo = rc->min;
                    if (rc && rc->has_max)
                        v->hi = rc->max;
                    if (!rc)
                        suggest_note(s, SN_LEFT_OUT, -1, NULL,
                                     "%s (%s.shape[%d]) has no entry in the archive's range_constraints: taken as "
                                     "[2, inf], torch.export's default",
                                     syms_in[j], user_input_name(u), d);
                    if (rc && (rc->has_min || rc->has_max)) {
                        snprintf(v->why_min, sizeof v->why_min, "the range recorded at export (%s in [%lld, %s])",
                                 syms_in[j], (long long)v->lo, rc->has_max ? "" : "inf");
                        if (rc->has_max)
                            snprintf(v->why_min, sizeof v->why_min,
                                     "the range recorded at export (%s in [%lld, %lld])", syms_in[j],
                                     (long long)v->lo, (long long)v->hi);
                        snprintf(v->why_max, sizeof v->why_max, "%s", v->why_min);
                    }
                }
                /* the shape in the vars' names */
                SymExpr *cur = sym_clone(sd->parsed);
                for (int q = 0; q < so->nv && cur; q++) {
                    if (!so->v[q].sym[0])
                        continue;
                    SymExpr *nm = sym_symbol(so->v[q].name);
                    SymExpr *n2 = sym_subst(cur, so->v[q].sym, nm);
                    sym_free(nm);
                    sym_free(cur);
                    cur = n2;
                }
                dim = cur ? sym_canon(cur) : NULL;
                sym_free(cur);
            } else if (rq || (!sd->is_expr && sd->value != g)) {
                unique_name(so, rq && rq->dim_name ? rq->dim_name : auto_name, name, sizeof name);
                Var *v = add_var(so, name, VK_ASKED, ui, d, h);
                if (h <= 1) {
                    /* the Dim must take the example itself */
                    v->lo = h;
                    suggest_note(s, SN_WHY, -1, NULL,
                                 "the example has %s.shape[%d] = %lld, which torch.export (2.11 and before) "
                                 "specializes (the 0/1 rule), so its own suggested fix is `%s = %lld`, giving the "
                                 "dynamism up: export with an example of %s.shape[%d] >= 2",
                                 user_input_name(u), d, (long long)h, v->name, (long long)h, user_input_name(u), d);
                }
                if (!rq)
                    suggest_note(s, SN_STATIC, -1, NULL,
                                 "%s.shape[%d] is %lld in the given input but %lld in the program: made it dynamic",
                                 user_input_name(u), d, (long long)g, (long long)sd->value);
                dim = sym_symbol(v->name);
            } else if (h >= 2) {
                unique_name(so, auto_name, name, sizeof name);
                Var *v = add_var(so, name, try_all ? VK_ASKED : VK_FOLLOW, ui, d, h);
                dim = sym_symbol(v->name);
            } else {
                dim = sym_const(h); /* 0 and 1 are specialized by torch.export */
            }
            shapes[ui].dims[d] = dim ? dim : sym_const(h);
            shapes[ui].ndim = d + 1;
        }
    }
}

/* ---- building the Suggestion ------------------------------------------------ */

static int dim_index(const Solver *so, const int *map, int var)
{
    (void)so;
    return map[var];
}

/* *text with every whole-word from replaced by to (a new string). */
static void rename_word(char **text, const char *from, const char *to)
{
    StrBuf sb;
    sb_init(&sb);
    size_t fl = strlen(from);
    const char *p = *text;
    while (*p) {
        const char *q = strstr(p, from);
        bool word = q && (q == *text || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
                    !(isalnum((unsigned char)q[fl]) || q[fl] == '_');
        if (!q) {
            sb_append(&sb, p);
            break;
        }
        sb_appendn(&sb, p, (size_t)(q - p));
        sb_append(&sb, word ? to : from);
        p = q + fl;
    }
    free(*text);
    *text = sb_take(&sb);
    if (!*text)
        *text = ep_xstrdup("");
}

static void build_dims(Solver *so)
{
    Suggestion *s = so->s;
    int *map = ep_xcalloc((size_t)(so->nv ? so->nv : 1), sizeof *map);
    for (int i = 0; i < so->nv; i++)
        map[i] = -1;
    /* a root per var at most, and a derived Dim per input size at most */
    s->dims = ep_xcalloc((size_t)so->nv + (size_t)s->ninputs * EP_MAX_DIMS + 1, sizeof *s->dims);
    /* roots first: free vars that are not followers */
    for (int i = 0; i < so->nv; i++) {
        Var *v = &so->v[i];
        if (v->val || v->kind == VK_FOLLOW)
            continue;
        SuggestDim *dm = &s->dims[s->ndims];
        memset(dm, 0, sizeof *dm);
        snprintf(dm->name, sizeof dm->name, "%s", v->name);
        snprintf(dm->sym, sizeof dm->sym, "%s", v->sym);
        dm->root = -1;
        dm->a = 1;
        dm->min = v->lo;
        dm->max = v->hi;
        dm->hidden = v->kind == VK_HIDDEN;
        dm->named = true;
        dm->example = v->hint;
        snprintf(dm->why_min, sizeof dm->why_min, "%s", v->why_min);
        snprintf(dm->why_max, sizeof dm->why_max, "%s", v->why_max);
        dm->min_node = v->min_node;
        dm->max_node = v->max_node;
        map[i] = s->ndims++;
    }
    /* a hidden root made from another (_h_2 after _h was divided again)
    ** takes the plain name once that one is gone */
    for (int k = 0; k < s->ndims; k++) {
        char *us = strrchr(s->dims[k].name, '_');
        if (!s->dims[k].hidden || !us || us == s->dims[k].name || !us[1] || strspn(us + 1, "0123456789") != strlen(us + 1))
            continue;
        char stem[64];
        snprintf(stem, sizeof stem, "%.*s", (int)(us - s->dims[k].name), s->dims[k].name);
        bool taken = false;
        for (int j = 0; j < s->ndims; j++)
            taken |= strcmp(s->dims[j].name, stem) == 0;
        for (int j = 0; j < so->nv && !taken; j++)
            taken |= strcmp(so->v[j].name, stem) == 0 && !so->v[j].val;
        if (taken)
            continue;
        for (int i = 0; i < s->nnotes; i++) /* the notes said the old name */
            rename_word(&s->notes[i].text, s->dims[k].name, stem);
        snprintf(s->dims[k].name, sizeof s->dims[k].name, "%s", stem);
    }
    /* every input size in terms of the roots */
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(so->ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++) {
            int k = -1;
            for (int i = 0; i < so->nv; i++)
                if (so->v[i].ui == ui && so->v[i].d == d && so->v[i].kind != VK_HIDDEN)
                    k = i;
            SymExpr *e = NULL;
            if (k >= 0) {
                SymExpr *sy = sym_symbol(so->v[k].name);
                e = substitute(so, sy);
                sym_free(sy);
            } else if (m->sizes[d].is_expr && m->sizes[d].parsed) {
                /* a derived size of the archive (s0 + 1) in the vars */
                SymExpr *cur = sym_clone(m->sizes[d].parsed);
                for (int q = 0; q < so->nv && cur; q++) {
                    if (!so->v[q].sym[0])
                        continue;
                    SymExpr *nm = sym_symbol(so->v[q].name);
                    SymExpr *n2 = sym_subst(cur, so->v[q].sym, nm);
                    sym_free(nm), sym_free(cur);
                    cur = n2;
                }
                e = cur ? substitute(so, cur) : NULL;
                sym_free(cur);
            }
            const char *root;
            int64_t a, c;
            if (!e || !sym_affine(e, &root, &a, &c) || !root) {
                sym_free(e);
                continue;
            }
            int rv = find_var(so, root);
            int ri = rv >= 0 ? dim_index(so, map, rv) : -1;
            if (ri < 0 || a < 1) {
                sym_free(e);
                continue;
            }
            int di = ri;
            if (a != 1 || c != 0 || k < 0 || map[k] != ri) {
                /* a derived Dim: reuse one with the same form */
                di = -1;
                for (int j = 0; j < s->ndims; j++)
                    if (s->dims[j].root == ri && s->dims[j].a == a && s->dims[j].c == c)
                        di = j;
                if (di < 0 && !(a == 1 && c == 0)) {
                    di = s->ndims++;
                    SuggestDim *dm = &s->dims[di];
                    memset(dm, 0, sizeof *dm);
                    snprintf(dm->name, sizeof dm->name, "%s", k >= 0 ? so->v[k].name : "derived");
                    dm->root = ri;
                    dm->a = a;
                    dm->c = c;
                    dm->example = s->hint[ui * EP_MAX_DIMS + d];
                    dm->min_node = dm->max_node = -1;
                    /* the user-facing Dim of a hidden root is its multiple */
                    dm->named = s->dims[ri].hidden && k >= 0 && so->v[k].kind != VK_FOLLOW;
                } else if (di < 0) {
                    di = ri;
                }
            }
            s->entries = ep_xrealloc(s->entries, (size_t)(s->nentries + 1) * sizeof *s->entries);
            /* the verifier lifts literals for the sizes the solver lifted them for */
            bool lift = k >= 0 && so->v[k].kind == VK_ASKED && !so->try_all;
            s->entries[s->nentries++] = (SuggestEntry){ui, d, di, lift};
            sym_free(e);
        }
    }
    free(map);
}

/* ---- the public entry ------------------------------------------------------- */

static void solver_free(Solver *so)
{
    for (int i = 0; i < so->nv; i++)
        sym_free(so->v[i].val);
    free(so->v);
    for (int i = 0; i < so->nc; i++)
        sym_free(so->c[i].e);
    free(so->c);
}

/* The symbol names of the archive in e, renamed to the vars'. */
static SymExpr *rename_syms(const Solver *so, const SymExpr *e)
{
    SymExpr *cur = sym_clone(e);
    for (int q = 0; q < so->nv && cur; q++) {
        if (!so->v[q].sym[0])
            continue;
        SymExpr *nm = sym_symbol(so->v[q].name);
        SymExpr *n2 = sym_subst(cur, so->v[q].sym, nm);
        sym_free(nm), sym_free(cur);
        cur = n2;
    }
    return cur;
}

static char *python_of(const Solver *so, const SymExpr *e);

/* Step 5/6: conditions that are not equalities, and equalities left. */
static void bounds_and_rest(Solver *so)
{
    for (int i = 0; i < so->nc; i++) {
        Cond *c = &so->c[i];
        if (c->done)
            continue;
        SymExpr *e = substitute(so, c->e);
        if (!e)
            continue;
        int idx[16], others, n = vars_of(so, e, idx, 16, &others);
        int64_t k;
        char where[200];
        label_of(so, c->node, where, sizeof where);
        if (sym_as_int(e, &k)) {
            if (k == 0) {
                char *t = sym_to_string(c->e);
                suggest_note(so->s, SN_INPUT, c->node, NULL, "%s needs %s, which the sizes given do not meet (%s)",
                             where, t ? t : "?", c->why);
                free(t);
            }
            c->done = true;
        } else if (others > 0) {
            c->done = true; /* data-dependent: torch._check lines (notes) */
        } else if (n == 1 && so->v[idx[0]].kind != VK_FOLLOW) {
            if (!bound_var(so, c, e, idx[0])) {
                char *t = sym_to_string(e);
                SourceFrame *fr = NULL;
                int nfr = 0;
                char loc[160] = "";
                const char *code = c->node >= 0 ? node_user_code(so->ep, c->node, loc, sizeof loc, &fr, &nfr) : NULL;
                suggest_note(so->s, SN_SOURCE_CHANGE, c->node, NULL,
                             "%s needs %s: the sizes that pass are not a range or a multiple, which no Dim can "
                             "state; the graph was traced for them only%s%s%s. Make the code the same for every "
                             "size (a branch on the size taken both ways) and export again",
                             where, t ? t : "?", code ? " (" : "", code ? code : "", code ? ")" : "");
                source_frames_free(fr, nfr);
                free(t);
            }
            c->done = true;
        } else if (n >= 1) {
            /* several Dims: it must hold over their ranges, else the last
            ** Dim named in it stays static */
            SymRanges r;
            sym_ranges_init(&r);
            for (int j = 0; j < n; j++)
                sym_ranges_set(&r, so->v[idx[j]].name, so->v[idx[j]].lo, so->v[idx[j]].hi);
            SymTruth t = sym_decide(e, &r);
            sym_ranges_free(&r);
            /* an equation that holds on a ray (x == Min(x, y) is x <= y) is
            ** an inequality too */
            bool ray = n == 2 && is_equation(e) &&
                       count_solutions(so, e, idx[1], idx[0], so->v[idx[0]].hint, so->v[idx[1]].hint) > 64;
            if (t != SYM_TRUE && (!is_equation(e) || ray)) {
                /* an inequality between Dims: torch.export keeps it as a
                ** guard, and inputs that break it are refused; no Dim states it */
                char *py = python_of(so, e), *txt = sym_to_string(e);
                bool minmax = txt && (strstr(txt, "Min(") || strstr(txt, "Max("));
                suggest_note(so->s, SN_SOURCE_CHANGE, c->node, NULL,
                             "%s needs %s, a relation between sizes that no Dim states: the graph was traced "
                             "for it only, and torch.export guards on it (inputs that break it are refused). To "
                             "take every size, make the code hold both ways%s",
                             where, py ? py : "?",
                             minmax ? " (torch.sym_max / torch.sym_min instead of Python's max / min, which "
                                      "trace one branch)"
                                    : "");
                free(py);
                free(txt);
            } else if (t != SYM_TRUE) {
                int last = idx[n - 1];
                char *txt = sym_to_string(e);
                set_val(&so->v[last], sym_const(so->v[last].hint), c->node, "%s needs %s, which no Dims state",
                        where, txt ? txt : "?");
                suggest_note(so->s, SN_STATIC, c->node, NULL,
                             "%s stays %lld: %s needs %s, which relates several sizes in a way no Dim states",
                             so->v[last].name, (long long)so->v[last].hint, where, txt ? txt : "?");
                free(txt);
                /* the others may now be solvable */
                equalities_pass(so, true);
                i = -1; /* again from the top: values changed */
            }
            c->done = true;
        }
        sym_free(e);
    }
}

/* Notes on specializations of requested sizes and source changes. */
static void specialization_notes(Solver *so, const LiftCtx *lc)
{
    for (int i = 0; i < so->nv; i++) {
        Var *v = &so->v[i];
        int64_t k;
        if (v->kind == VK_FOLLOW || v->kind == VK_HIDDEN || !v->val || !sym_as_int(v->val, &k))
            continue;
        const UserInput *u = v->ui >= 0 ? interp_user_input(so->ip, v->ui) : NULL;
        char who[96];
        snprintf(who, sizeof who, "%s.shape[%d]", u ? user_input_name(u) : v->name, v->d);
        /* a literal the code shows: rewrite it */
        const LiftRecord *hard = NULL;
        for (int r = 0; lc && r < lc->nrecs; r++)
            if (!lc->recs[r].lifted && lc->recs[r].node == v->node && lc->recs[r].value == k)
                hard = &lc->recs[r];
        SourceFrame *fr = NULL;
        int nfr = 0;
        char loc[160] = "", where[200];
        const char *code = v->node >= 0 ? node_user_code(so->ep, v->node, loc, sizeof loc, &fr, &nfr) : NULL;
        label_of(so, v->node, where, sizeof where);
        if (hard && code) {
            /* the call with the number replaced by the size it stands for */
            char fixed[512];
            const char *call = code;
            const char *eq = strstr(code, " = ");
            if (eq && eq < strchr(code, '(') )
                call = eq + 3;
            if (strncmp(call, "return ", 7) == 0)
                call += 7;
            size_t o = 0;
            char num[32];
            int nl = snprintf(num, sizeof num, "%lld", (long long)k);
            bool done = false;
            for (const char *p = call; *p && o + 40 < sizeof fixed; p++) {
                bool start = p == call || !((p[-1] >= '0' && p[-1] <= '9') || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                            (p[-1] >= 'A' && p[-1] <= 'Z') || p[-1] == '_' || p[-1] == '.');
                if (!done && start && strncmp(p, num, (size_t)nl) == 0 && !(p[nl] >= '0' && p[nl] <= '9') &&
                    p[nl] != '.') {
                    o += (size_t)snprintf(fixed + o, sizeof fixed - o, "%s", who);
                    p += nl - 1;
                    done = true;
                } else {
                    fixed[o++] = *p;
                }
            }
            fixed[o] = '\0';
            suggest_note(so->s, SN_SOURCE_CHANGE, v->node, fixed,
                         "%s: %s hard-codes %lld from %s; write %s", where, code, (long long)k, who, fixed);
        } else {
            suggest_note(so->s, SN_STATIC, v->node, NULL, "%s cannot be dynamic: %s pins it to %lld (%s)", who,
                         where, (long long)k, v->why);
        }
        source_frames_free(fr, nfr);
    }
}

/* A requested size pinned to its own example where a literal of that value
** was taken for a size: the latest such literal at or before the pinning
** node, as (node, pos) in retry. */
static void pinned_by_lift(const Solver *so, const LiftCtx *lc, int retry[2])
{
    for (int i = 0; i < so->nv; i++) {
        const Var *v = &so->v[i];
        int64_t k;
        if (v->kind != VK_ASKED || !v->val || !sym_as_int(v->val, &k) || k != v->hint || v->node < 0)
            continue;
        int best = -1;
        for (int r = 0; r < lc->nrecs; r++) {
            const LiftRecord *rec = &lc->recs[r];
            if (!rec->lifted || rec->value != k || rec->node > v->node)
                continue;
            if (best < 0 || rec->node > lc->recs[best].node ||
                (rec->node == lc->recs[best].node && rec->pos > lc->recs[best].pos))
                best = r;
        }
        if (best >= 0) {
            retry[0] = lc->recs[best].node;
            retry[1] = lc->recs[best].pos;
            return;
        }
    }
}

/* The notes of lifted literals: what the suggestion assumes of the source,
** one per size (the first node named, the others counted). */
static void lift_notes(Solver *so, const LiftCtx *lc)
{
    for (int c = 0; c < so->ncands; c++) {
        int first = -1, more = 0;
        for (int r = 0; r < lc->nrecs; r++) {
            if (!lc->recs[r].lifted || lc->recs[r].cand != c)
                continue;
            if (first < 0)
                first = r;
            else
                more++;
        }
        if (first < 0)
            continue;
        const LiftRecord *rec = &lc->recs[first];
        const LiftCand *cd = &so->cands[c];
        char where[200], others[64] = "";
        node_label(so->ep, rec->node, where, sizeof where);
        if (more)
            snprintf(others, sizeof others, " and in %d more node%s", more, more == 1 ? "" : "s");
        suggest_note(so->s, SN_WHY, rec->node, NULL,
                     "takes the %lld of %s%s to be %s.shape[%d] (the line does not write the number): export "
                     "again from that source and the graph computes it from the input",
                     (long long)rec->value, where, others, user_input_name(interp_user_input(so->ip, cd->ui)), cd->d);
    }
}

/* Why notes for the shared and derived Dims. */
static void relation_notes(Solver *so)
{
    for (int i = 0; i < so->nv; i++) {
        Var *v = &so->v[i];
        int64_t k;
        if (!v->val || sym_as_int(v->val, &k) || v->ui < 0 || v->kind == VK_HIDDEN)
            continue;
        const UserInput *u = interp_user_input(so->ip, v->ui);
        SymExpr *full = substitute(so, v->val);
        char *e = sym_to_string(full ? full : v->val);
        suggest_note(so->s, SN_WHY, v->node, NULL, "%s.shape[%d] = %s: %s", user_input_name(u), v->d, e ? e : "?",
                     v->why);
        free(e);
        sym_free(full);
    }
}

/* The Python name of unbacked symbol sym: the variable the producing
** node's line assigns (`n = a.item()` gives n), else sym itself. */
static void unbacked_name(const ExportedProgram *ep, const char *sym, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", sym);
    const Graph *g = &ep->graph;
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->noutputs < 1 || n->outputs[0].kind != ARG_SYM_INT || !n->outputs[0].ref)
            continue;
        const SymDim *d = strmap_get(&g->sym_int_values, n->outputs[0].ref);
        const char *bare = d && d->is_expr && d->parsed ? sym_as_symbol(d->parsed) : NULL;
        if (!bare || strcmp(bare, sym) != 0)
            continue;
        SourceFrame *fr;
        int nf;
        char loc[160];
        const char *code = node_user_code(ep, i, loc, sizeof loc, &fr, &nf);
        size_t k = 0;
        while (code && ((code[k] >= 'a' && code[k] <= 'z') || (code[k] >= 'A' && code[k] <= 'Z') || code[k] == '_' ||
                        (k > 0 && code[k] >= '0' && code[k] <= '9')))
            k++;
        if (code && k > 0 && k < cap && strncmp(code + k, " = ", 3) == 0)
            snprintf(buf, cap, "%.*s", (int)k, code);
        source_frames_free(fr, nf);
        return;
    }
}

/* e in the names of the model's source: x.shape[0] for an input's Dim, n
** for u0 (new Python text). */
static char *python_of(const Solver *so, const SymExpr *e)
{
    SymExpr *cur = sym_clone(e);
    for (int i = 0; cur && i < so->nv; i++) {
        const Var *v = &so->v[i];
        if (v->ui < 0 || v->kind == VK_HIDDEN)
            continue;
        char nm[96];
        snprintf(nm, sizeof nm, "%s.shape[%d]", user_input_name(interp_user_input(so->ip, v->ui)), v->d);
        SymExpr *sy = sym_symbol(nm), *n2 = sym_subst(cur, v->name, sy);
        sym_free(sy), sym_free(cur);
        cur = n2;
    }
    const char *names[16];
    int ns = cur ? sym_symbols(cur, names, 16) : 0;
    char held[16][64];
    for (int j = 0; j < ns && j < 16; j++)
        snprintf(held[j], sizeof held[j], "%s", names[j]);
    for (int j = 0; cur && j < ns && j < 16; j++) {
        if (find_var(so, held[j]) >= 0 || strchr(held[j], '.'))
            continue;
        char nm[64];
        unbacked_name(so->ep, held[j], nm, sizeof nm);
        SymExpr *sy = sym_symbol(nm), *n2 = sym_subst(cur, held[j], sy);
        sym_free(sy), sym_free(cur);
        cur = n2;
    }
    char *t = cur ? sym_to_python(cur) : NULL;
    sym_free(cur);
    return t;
}

/* Conditions on data-dependent symbols: the torch._check lines, the
** model's own first (its recorded ranges of unbacked symbols). */
static void check_notes(Solver *so)
{
    for (int i = 0; i < so->ep->nranges; i++) {
        const RangeConstraint *rc = &so->ep->ranges[i];
        const char *sym = rc->parsed ? sym_as_symbol(rc->parsed) : NULL;
        if (!sym || sym[0] != 'u' || find_var(so, sym) >= 0)
            continue;
        char nm[64], code[160];
        unbacked_name(so->ep, sym, nm, sizeof nm);
        if (rc->has_min && rc->min > 0) {
            snprintf(code, sizeof code, "torch._check(%s >= %lld)", nm, (long long)rc->min);
            suggest_note(so->s, SN_CHECK, -1, code, "%s (%s) is read from data: the lower end of its recorded range",
                         nm, sym);
        }
        if (rc->has_max) {
            snprintf(code, sizeof code, "torch._check(%s <= %lld)", nm, (long long)rc->max);
            suggest_note(so->s, SN_CHECK, -1, code, "%s (%s) is read from data: the upper end of its recorded range",
                         nm, sym);
        }
    }
    for (int i = 0; i < so->nc; i++) {
        Cond *c = &so->c[i];
        SymExpr *e = substitute(so, c->e);
        if (!e)
            continue;
        int idx[16], others;
        vars_of(so, e, idx, 16, &others);
        if (others > 0) {
            char *t = sym_to_string(e), *py = python_of(so, e), where[200];
            label_of(so, c->node, where, sizeof where);
            char code[400];
            snprintf(code, sizeof code, "torch._check(%s)", py ? py : "?");
            suggest_note(so->s, SN_CHECK, c->node, code, "%s needs %s of a value read from data", where,
                         t ? t : "?");
            free(t);
            free(py);
        }
        sym_free(e);
    }
}

/* Does an entry use root j (directly or through a derived Dim)? */
static bool dim_used_by_entry(const Suggestion *s, int j)
{
    for (int e = 0; e < s->nentries; e++) {
        int di = s->entries[e].dimref;
        if (di == j || s->dims[di].root == j)
            return true;
    }
    return false;
}

/* One solve; *retry (node, pos) names a lifted literal that pinned a
** requested size to its own example, to keep as a literal next time (-1
** none). */
static EpStatus solve(const Interp *ip, const SuggestOptions *opt, bool lift_all, const int *nolift, int nnolift,
                      Suggestion **out, int retry[2], EpError *err);

EpStatus suggest_run(const Interp *ip, const SuggestOptions *opt, Suggestion **out, EpError *err)
{
    /* a static archive's literal equal to a named size's example may be
    ** another size by coincidence (seq = 64 = d_model): when taking it for
    ** the size pins the size, keep that literal and solve again */
    int nolift[2 * 16], nn = 0, retry[2];
    EpStatus st;
    for (;;) {
        st = solve(ip, opt, false, nolift, nn, out, retry, err);
        if (st != EP_OK || retry[0] < 0 || nn == 16)
            break;
        suggest_free(*out);
        *out = NULL;
        nolift[2 * nn] = retry[0];
        nolift[2 * nn + 1] = retry[1];
        nn++;
    }
    if (st != EP_OK)
        return st;
    /* a literal the source hard-codes: what the program allows once the
    ** source computes it from the input, as the note says to */
    Suggestion *s = *out;
    bool hard = false;
    for (int i = 0; i < s->nnotes; i++)
        hard |= s->notes[i].kind == SN_SOURCE_CHANGE && s->notes[i].code;
    Suggestion *after = NULL;
    EpError e2;
    int unused[2];
    if (hard && solve(ip, opt, true, nolift, nn, &after, unused, &e2) == EP_OK && after->verified &&
        after->nentries > 0)
        s->after = after;
    else
        suggest_free(after);
    return EP_OK;
}

static EpStatus solve(const Interp *ip, const SuggestOptions *opt, bool lift_all, const int *nolift, int nnolift,
                      Suggestion **out, int retry[2], EpError *err)
{
    *out = NULL;
    retry[0] = retry[1] = -1;
    const ExportedProgram *ep = interp_model(ip)->ep;
    /* an expression of the archive that does not parse: every check that
    ** depends on it would be missing, so say so instead */
    for (int i = 0; i < ep->nranges; i++)
        if (!ep->ranges[i].parsed)
            return ep_fail(err, EP_ERR_FORMAT, "range_constraints[%d]: the expression '%s' does not parse", i,
                           ep->ranges[i].expr ? ep->ranges[i].expr : "");
    Suggestion *s = ep_xcalloc(1, sizeof *s);
    s->ep = ep;
    s->lift_all = lift_all;
    if (nnolift) {
        s->nolift = ep_xcalloc((size_t)nnolift * 2, sizeof *s->nolift);
        memcpy(s->nolift, nolift, (size_t)nnolift * 2 * sizeof *s->nolift);
        s->nnolift = nnolift;
    }
    s->ninputs = interp_num_user_inputs(ip);
    s->hint = ep_xcalloc((size_t)(s->ninputs ? s->ninputs : 1) * EP_MAX_DIMS, sizeof *s->hint);
    if (opt->inputs)
        s->given = ep_xcalloc((size_t)(s->ninputs ? s->ninputs : 1) * EP_MAX_DIMS, sizeof *s->given);
    for (int ui = 0; ui < s->ninputs; ui++) {
        const TensorMeta *m = interp_user_input(ip, ui)->meta;
        for (int d = 0; m && d < m->ndim; d++)
            if (m->sizes[d].is_expr && !m->sizes[d].parsed) {
                suggest_free(s);
                return ep_fail(err, EP_ERR_FORMAT, "input %s: size %d '%s' does not parse",
                               user_input_name(interp_user_input(ip, ui)), d, m->sizes[d].expr);
            }
    }
    Solver so = {.ip = ip, .ep = ep, .opt = opt, .s = s};
    Value *sample = NULL;
    int nsample = 0;
    EpError e2;
    if (interp_sample_inputs(ip, &sample, &nsample, &e2) != EP_OK)
        sample = NULL, nsample = 0;
    SymBindings syms;
    sym_bindings_init(&syms);
    example_sizes(&so, sample, nsample, &syms);
    for (int i = 0; i < nsample; i++)
        value_clear(&sample[i]);
    free(sample);
    SymShape *shapes = ep_xcalloc((size_t)(s->ninputs ? s->ninputs : 1), sizeof *shapes);
    make_vars(&so, &syms, shapes);
    sym_bindings_free(&syms);
    s->program_dynamic = so.program_dynamic;

    /* propagate, lifting literals that stand for sizes made dynamic */
    ShapeInput *ins = ep_xcalloc((size_t)(s->ninputs ? s->ninputs : 1), sizeof *ins);
    int nins = 0;
    so.cands = ep_xcalloc((size_t)(so.nv ? so.nv : 1), sizeof *so.cands);
    for (int i = 0; i < so.nv && !so.try_all; i++)
        if (so.v[i].kind == VK_ASKED && so.v[i].hint >= 2) {
            so.cands[so.ncands] = (LiftCand){NULL, so.v[i].hint, so.v[i].ui, so.v[i].d};
            so.cands[so.ncands].expr = shapes[so.v[i].ui].dims[so.v[i].d];
            so.ncands++;
        }
    for (int ui = 0; ui < s->ninputs; ui++)
        if (interp_user_input(ip, ui)->kind == ARG_TENSOR && interp_user_input(ip, ui)->meta)
            ins[nins++] = (ShapeInput){interp_user_input(ip, ui)->name, shapes[ui]};
    SymRanges rr;
    sym_ranges_init(&rr);
    for (int i = 0; i < so.nv; i++)
        sym_ranges_set(&rr, so.v[i].name, so.v[i].lo, so.v[i].hi);
    LiftCtx lc = {.ep = ep, .cands = so.cands, .ncands = so.ncands, .lift_all = lift_all, .s = s};
    SymBindings hints;
    sym_bindings_init(&hints);
    hint_bindings(&so, &hints);
    ShapePropOptions po = {.inputs = ins, .ninputs = nins, .ranges = &rr, .lift = so.ncands ? suggest_lift : NULL,
                           .lift_ctx = &lc, .hints = &hints};
    ShapeProp *sp = NULL;
    EpStatus st = shape_prop_run_opts(ep, &po, &sp, err);
    sym_ranges_free(&rr);
    sym_bindings_free(&hints);
    if (st != EP_OK) {
        for (int ui = 0; ui < s->ninputs; ui++)
            sym_shape_free(&shapes[ui]);
        free(shapes), free(ins), free(so.cands);
        lift_ctx_free(&lc);
        solver_free(&so);
        suggest_free(s);
        return st;
    }
    for (int i = 0; i < sp->ncons; i++) {
        SymExpr *e = rename_syms(&so, sp->cons[i].cond);
        add_cond(&so, e, sp->cons[i].kind, sp->cons[i].node, sp->cons[i].why);
    }
    /* the export's own guards (guards_code, PyTorch >= 2.9): conditions as
    ** any node's, traced with the program */
    for (int i = 0; i < ep_num_guards_code(ep); i++) {
        const GuardCode *gc = ep_guard_code(ep, i);
        if (!gc->cond)
            continue;
        char why[160];
        snprintf(why, sizeof why, "the export's guard %s", gc->shown ? gc->shown : gc->text);
        add_cond(&so, rename_syms(&so, gc->cond), SC_RELATION, NODE_GUARDS_CODE, why);
    }
    /* the ranges recorded for derived sizes (s0 + 1: [3, 65]) */
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *rc = &ep->ranges[i];
        if (!rc->parsed || sym_as_symbol(rc->parsed))
            continue;
        SymExpr *x = rename_syms(&so, rc->parsed);
        if (rc->has_min) {
            SymExpr *k = sym_const(rc->min);
            add_cond(&so, sym_binop(SYM_OP_GE, x, k), SC_BOUND, -1, "the range recorded at export");
            sym_free(k);
        }
        if (rc->has_max) {
            SymExpr *k = sym_const(rc->max);
            add_cond(&so, sym_binop(SYM_OP_LE, x, k), SC_BOUND, -1, "the range recorded at export");
            sym_free(k);
        }
        sym_free(x);
    }
    /* a program exported dynamic whose own conditions exclude every size it
    ** was exported for: no suggestion can mend that, say so */
    for (int i = 0; so.program_dynamic && i < sp->nnodes; i++) {
        if (sp->nodes[i].status != SN_FAILED || !strstr(sp->nodes[i].note, "never holds"))
            continue;
        char where[200];
        node_label(ep, i, where, sizeof where);
        ep_fail(err, EP_ERR_FORMAT,
                "the program's guards contradict each other: %s: %s for every size in the recorded ranges", where,
                sp->nodes[i].note);
        shape_prop_free(sp);
        for (int ui = 0; ui < s->ninputs; ui++)
            sym_shape_free(&shapes[ui]);
        free(shapes), free(ins), free(so.cands);
        lift_ctx_free(&lc);
        solver_free(&so);
        suggest_free(s);
        return EP_ERR_FORMAT;
    }
    /* nodes the rules could not follow: the analysis does not cover them */
    for (int i = 0; i < sp->nnodes; i++) {
        if (sp->nodes[i].status == SN_RULE)
            continue;
        char where[200];
        node_label(ep, i, where, sizeof where);
        bool failed = sp->nodes[i].status == SN_FAILED;
        suggest_note(s, failed ? SN_INPUT : SN_LEFT_OUT, i, NULL, "%s: %s%s", where,
                     failed ? "cannot run at these sizes: " : "no shape rule for these arguments, its recorded shape taken: ",
                     sp->nodes[i].note);
        if (!failed)
            s->partial = true;
    }

    if (getenv("EPDBG_SUGGEST_DEBUG")) /* the conditions as collected */
        for (int i = 0; i < so.nc; i++) {
            char *t = sym_to_string(so.c[i].e);
            fprintf(stderr, "cond %d [%s] node %d: %s (%s)\n", i, shape_constraint_kind_name(so.c[i].kind),
                    so.c[i].node, t ? t : "?", so.c[i].why);
            free(t);
        }
    equalities_pass(&so, false);
    equalities_pass(&so, true);
    pin_followers(&so);
    equalities_pass(&so, true);
    bounds_and_rest(&so);
    pinned_by_lift(&so, &lc, retry);
    if (retry[0] >= 0) { /* solved again without that literal: this one is dropped */
        shape_prop_free(sp);
        for (int ui = 0; ui < s->ninputs; ui++)
            sym_shape_free(&shapes[ui]);
        free(shapes), free(ins), free(so.cands);
        lift_ctx_free(&lc);
        solver_free(&so);
        *out = s;
        return EP_OK;
    }
    specialization_notes(&so, &lc);
    relation_notes(&so);
    lift_notes(&so, &lc);
    check_notes(&so);
    build_dims(&so);
    if (!so.program_dynamic && s->nentries > 0)
        suggest_note(s, SN_WHY, -1, NULL,
                     "the archive is one traced path: Python control flow on sizes (an `if` on x.shape[0]) left "
                     "no node in it, so a re-export may add ranges this archive cannot show");

    shape_prop_free(sp);
    for (int ui = 0; ui < s->ninputs; ui++)
        sym_shape_free(&shapes[ui]);
    free(shapes), free(ins), free(so.cands);
    lift_ctx_free(&lc);
    solver_free(&so);

    /* verify; a Dim that fails its check becomes static, and again */
    for (int round = 0; round < 8; round++) {
        if (suggest_verify(ip, s, opt))
            break;
        /* the verifier names the failing Dim in its first failed check */
        int drop = -1, failed = -1;
        for (int k = 0; k < s->nchecks && drop < 0; k++)
            if (!s->checks[k].ok) {
                failed = k;
                drop = s->checks[k].blame >= 0 && dim_used_by_entry(s, s->checks[k].blame) ? s->checks[k].blame : -1;
                /* no condition to blame (a run failed): the last Dim in use */
                for (int j = s->ndims - 1; j >= 0 && drop < 0; j--)
                    if (s->dims[j].root < 0 && dim_used_by_entry(s, j))
                        drop = j;
            }
        if (drop < 0)
            break;
        suggest_note(s, SN_STATIC, -1, NULL, "%s stays static: its check failed: %s", s->dims[drop].name,
                     s->checks[failed].text);
        /* drop the root and every Dim and entry on it */
        int w = 0;
        for (int k = 0; k < s->nentries; k++) {
            int di = s->entries[k].dimref;
            if (di == drop || s->dims[di].root == drop)
                continue;
            s->entries[w++] = s->entries[k];
        }
        s->nentries = w;
        s->dims[drop].hidden = true; /* kept for indices; no entry uses it */
        s->dims[drop].named = false;
    }
    suggest_explain_inputs(ip, s, opt);
    *out = s;
    return EP_OK;
}

void suggest_free(Suggestion *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nnotes; i++) {
        free(s->notes[i].text);
        free(s->notes[i].code);
    }
    free(s->notes);
    for (int i = 0; i < s->nchecks; i++)
        free(s->checks[i].text);
    free(s->checks);
    free(s->dims);
    free(s->entries);
    free(s->hint);
    free(s->given);
    free(s->nolift);
    suggest_free(s->after);
    free(s);
}

void suggest_note(Suggestion *s, SuggestNoteKind kind, int node, const char *code, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (int i = 0; i < s->nnotes; i++) /* one note per fact, one check per line of code */
        if (s->notes[i].kind == kind && (strcmp(s->notes[i].text, buf) == 0 ||
                                         (code && s->notes[i].code && strcmp(s->notes[i].code, code) == 0)))
            return;
    s->notes = ep_xrealloc(s->notes, (size_t)(s->nnotes + 1) * sizeof *s->notes);
    s->notes[s->nnotes++] = (SuggestNote){kind, node, ep_xstrdup(buf), code ? ep_xstrdup(code) : NULL};
}

bool suggest_node_excused(const Suggestion *s, int node)
{
    /* graph nodes, and the archive's guards_code (-2) */
    for (int i = 0; (node >= 0 || node == -2) && i < s->nnotes; i++)
        if (s->notes[i].kind == SN_SOURCE_CHANGE && s->notes[i].node == node)
            return true;
    return false;
}

EpStatus suggest_parse_dynamic(const Interp *ip, const char *spec, DynRequest *out, EpError *err)
{
    memset(out, 0, sizeof *out);
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec)
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: expected NAME:DIM or NAME:DIM=DIMNAME (x:0=batch)", spec);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
    int ui = interp_find_user_input(ip, name);
    if (ui < 0) {
        StrBuf sb;
        sb_init(&sb);
        for (int i = 0; i < interp_num_user_inputs(ip); i++)
            sb_printf(&sb, "%s%s", i ? ", " : "", user_input_name(interp_user_input(ip, i)));
        ep_fail(err, EP_ERR_USAGE, "--dynamic %s: no input '%s'; the inputs are %s", spec, name,
                sb.len ? sb.data : "(none)");
        sb_free(&sb);
        return EP_ERR_USAGE;
    }
    const UserInput *u = interp_user_input(ip, ui);
    if (u->kind != ARG_TENSOR || !u->meta)
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: input '%s' is not a tensor with a recorded shape", spec,
                       name);
    char *end;
    long d = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || (*end && *end != '='))
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: '%s' is not a dimension number", spec, colon + 1);
    int nd = u->meta->ndim;
    if (d < -nd || d >= nd)
        return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: %s has %d dimension%s, so dim %ld does not exist", spec,
                       name, nd, nd == 1 ? "" : "s", d);
    out->input = ui;
    out->dim = (int)(d < 0 ? d + nd : d);
    if (*end == '=') {
        if (!is_python_name(end + 1))
            return ep_fail(err, EP_ERR_USAGE, "--dynamic %s: '%s' is not a Python name for the Dim", spec, end + 1);
        out->dim_name = end + 1;
    }
    return EP_OK;
}
