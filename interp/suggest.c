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

#include "suggest_solver.h"

/* ---- small helpers -------------------------------------------------------- */

int sv_find_var(const Solver *so, const char *name)
{
    for (int i = 0; i < so->nv; i++)
        if (strcmp(so->v[i].name, name) == 0)
            return i;
    return -1;
}

Var *sv_add_var(Solver *so, const char *name, VarKind kind, int ui, int d, int64_t hint)
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

void sv_add_cond(Solver *so, SymExpr *e, ShapeConstraintKind kind, int node, const char *why)
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
bool sv_sym_mentions_name(const SymExpr *e, const char *name)
{
    const char *names[32];
    int n = sym_symbols(e, names, 32);
    for (int i = 0; i < n && i < 32; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return n > 32; /* too many to list: sv_substitute anyway */
}

SymExpr *sv_substitute(const Solver *so, const SymExpr *e)
{
    SymExpr *cur = sym_clone(e);
    /* a value may name a var solved after it was set (b = a, then a = c):
    ** pass again until no solved var is left (each pass removes a level,
    ** and values never refer back, so nv passes suffice) */
    for (int pass = 0; cur && pass <= so->nv; pass++) {
        bool changed = false;
        for (int i = 0; cur && i < so->nv; i++) {
            if (!so->v[i].val || !sv_sym_mentions_name(cur, so->v[i].name))
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
void sv_hint_bindings(const Solver *so, SymBindings *b)
{
    for (int i = 0; i < so->nv; i++)
        sym_bindings_set(b, so->v[i].name, so->v[i].hint);
}

/* Truth of cond with var k at value x and every other symbol at its hint:
** 1, 0, or -1 when it cannot be evaluated. */
int sv_truth_at(const Solver *so, const SymExpr *cond, int k, int64_t x)
{
    SymBindings b;
    sym_bindings_init(&b);
    sv_hint_bindings(so, &b);
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
    sv_hint_bindings(so, &b);
    SymValue out;
    const char *unb = NULL;
    SymStatus st = sym_eval(e, &b, &out, &unb);
    sym_bindings_free(&b);
    if (st != SYM_OK || out.kind != SYMV_INT)
        return -1;
    return out.i == want;
}

void sv_set_val(Var *v, SymExpr *val, int node, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

void sv_set_val(Var *v, SymExpr *val, int node, const char *fmt, ...)
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
** sv_substitute() leaves no others).  Returns how many; unknown symbols
** (unbacked u0) are counted in *others. */
int sv_vars_of(const Solver *so, const SymExpr *e, int *idx, int max, int *others)
{
    const char *names[16];
    int n = sym_symbols(e, names, 16), k = 0;
    *others = n > 16 ? n - 16 : 0;
    for (int i = 0; i < n && i < 16; i++) {
        int j = sv_find_var(so, names[i]);
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
    sv_hint_bindings(so, &b);
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
int sv_count_solutions(const Solver *so, const SymExpr *cond, int k, int r, int64_t x, int64_t y)
{
    SymBindings b;
    sym_bindings_init(&b);
    sv_hint_bindings(so, &b);
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
    if (sv_truth_at(so, cond, -1, 0) == 1)
        y0 = so->v[k].hint;
    else if (!nearest_solution(so, cond, k, r, h, so->v[k].hint, 1, &y0))
        return NULL;
    /* an equation that leaves k free over a long stretch (Min(x, y) == x
    ** holds for every y >= x) relates nothing: a few solutions (the two
    ** parities of a CeilDiv) are a relation, a ray is not */
    int n0 = sv_count_solutions(so, cond, k, r, h, y0);
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
        if (sv_count_solutions(so, cond, k, r, h + 64, a * (h + 64) + c) != n0)
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
                ok = sv_truth_at(so, back, r, p) != 0;
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

bool sv_is_equation(const SymExpr *e)
{
    SymOp rel;
    const SymExpr *l, *r;
    return sym_relation(e, &rel, &l, &r) && rel == SYM_OP_EQ;
}

void sv_label_of(const Solver *so, int node, char *buf, size_t cap)
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
    SymExpr *e = sv_substitute(so, c->e);
    if (!e)
        return false;
    int64_t konst;
    if (sym_as_int(e, &konst) || !sv_is_equation(e)) {
        sym_free(e);
        return false; /* decided later (bounds, verifier) */
    }
    int idx[16], others, n = sv_vars_of(so, e, idx, 16, &others);
    int follow[16], nf = 0, asked[16], na = 0;
    for (int i = 0; i < n; i++)
        if (so->v[idx[i]].kind == VK_FOLLOW)
            follow[nf++] = idx[i];
        else
            asked[na++] = idx[i];
    char where[200];
    sv_label_of(so, c->node, where, sizeof where);
    bool fixed = false;
    if (others == 0 && nf == 1 && na <= 1) {
        int k = follow[0];
        SymExpr *sol = solve_symbolic(so, e, k);
        if (!sol && na == 1)
            sol = solve_fit(so, e, k, asked[0]);
        if (sol && positive_affine(sol)) {
            sv_set_val(&so->v[k], sol, c->node, "%s (%s)", where, c->why);
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
        sv_set_val(&so->v[k], sym_const(so->v[k].hint), c->node, "%s ties %s to several dynamic sizes", where, fwho);
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
                        sv_set_val(&so->v[follow[o]], sym_const(so->v[follow[o]].hint), c->node,
                                "kept at its example size so that %s can follow %s through %s", so->v[follow[j]].name,
                                so->v[asked[0]].name, where);
                sv_set_val(&so->v[follow[j]], sol, c->node, "%s (%s)", where, c->why);
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
                sv_set_val(&so->v[k], sol, c->node, "%s (%s)", where, c->why);
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

bool sv_equalities_pass(Solver *so, bool many)
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
            sv_set_val(&so->v[i], sym_const(so->v[i].hint), -1, "not coupled to a dynamic size");
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
        t[i] = (signed char)sv_truth_at(so, cond, k, base + i);
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
        if (sv_truth_at(so, cond, k, x) != 1)
            return false;
    return true;
}

/* Narrow var k's range by cond (one var).  Returns false when cond cannot
** be stated as a range or a residue class (the caller writes why). */
static bool bound_var(Solver *so, const Cond *c, const SymExpr *e, int k)
{
    Var *v = &so->v[k];
    if (holds_on(so, e, k, v->lo, v->hi))
        return true;
    char where[200];
    sv_label_of(so, c->node, where, sizeof where);
    /* an anchor the condition holds at: the hint, else the nearest above lo */
    int64_t p = v->hint;
    if (sv_truth_at(so, e, k, p) != 1) {
        bool found = false;
        for (int64_t x = v->lo; x < v->lo + 4096 && x <= v->hi && !found; x++)
            if (sv_truth_at(so, e, k, x) == 1)
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
            if (sv_truth_at(so, e, k, base + r) == 1) {
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
            sv_label_of(so, c->node, where2, sizeof where2);
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
        sv_unique_name(so, want, hname, sizeof hname);
        /* the least _v >= 0 with period*_v + res >= lo (floor division of
        ** a possibly negative numerator) */
        int64_t num = v->lo - res, hlo = num <= 0 ? 0 : (num + period - 1) / period;
        int64_t hhi = v->hi == SYM_RANGE_POS_INF ? SYM_RANGE_POS_INF : (v->hi - res) / period;
        Var *h = sv_add_var(so, hname, VK_HIDDEN, v->ui, v->d, (p - res) / period);
        v = &so->v[k]; /* sv_add_var may move the table */
        h->lo = hlo;
        h->hi = hhi;
        SymExpr *hs = sym_symbol(hname), *kp = sym_const(period), *kr = sym_const(res);
        SymExpr *m = sym_binop(SYM_OP_MUL, kp, hs), *f = sym_binop(SYM_OP_ADD, m, kr);
        sym_free(hs), sym_free(kp), sym_free(kr), sym_free(m);
        char *txt = sym_to_string(c->e);
        sv_set_val(v, f, c->node, "%s needs %s", where, txt ? txt : "?");
        free(txt);
        return true;
    }
    /* a range: the longest run around p where the condition holds */
    int64_t lo = v->lo, hi = p;
    while (lo < hi) { /* smallest x with the condition holding on [x, p] */
        int64_t mid = lo + (hi - lo) / 2;
        if (sv_truth_at(so, e, k, mid) == 1 && holds_on(so, e, k, mid, p))
            hi = mid;
        else
            lo = mid + 1;
    }
    int64_t nlo = lo;
    int64_t top = v->hi == SYM_RANGE_POS_INF ? ((int64_t)1 << 40) : v->hi;
    lo = p, hi = top;
    while (lo < hi) { /* largest x with the condition on [p, x] */
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (sv_truth_at(so, e, k, mid) == 1 && holds_on(so, e, k, p, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t nhi = lo == top && v->hi == SYM_RANGE_POS_INF ? SYM_RANGE_POS_INF : lo;
    char *txt = sym_to_string(e); /* in the Dims that remain */
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

/* What one solve holds besides the Suggestion (sp may be NULL). */
static void solve_cleanup(Solver *so, ShapeProp *sp, SymShape *shapes, ShapeInput *ins, LiftCtx *lc)
{
    shape_prop_free(sp);
    for (int ui = 0; ui < so->s->ninputs; ui++)
        sym_shape_free(&shapes[ui]);
    free(shapes);
    free(ins);
    free(so->cands);
    lift_ctx_free(lc);
    solver_free(so);
}

/* The symbol names of the archive in e, renamed to the vars'. */
SymExpr *sv_rename_syms(const Solver *so, const SymExpr *e)
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

/* Step 5/6: conditions that are not equalities, and equalities left. */
static void bounds_and_rest(Solver *so)
{
    for (int i = 0; i < so->nc; i++) {
        Cond *c = &so->c[i];
        if (c->done)
            continue;
        SymExpr *e = sv_substitute(so, c->e);
        if (!e)
            continue;
        int idx[16], others, n = sv_vars_of(so, e, idx, 16, &others);
        int64_t k;
        char where[200];
        sv_label_of(so, c->node, where, sizeof where);
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
            bool ray = n == 2 && sv_is_equation(e) &&
                       sv_count_solutions(so, e, idx[1], idx[0], so->v[idx[0]].hint, so->v[idx[1]].hint) > 64;
            if (t != SYM_TRUE && (!sv_is_equation(e) || ray)) {
                /* an inequality between Dims: torch.export keeps it as a
                ** guard, and inputs that break it are refused; no Dim states it */
                char *py = sv_python_of(so, e), *txt = sym_to_string(e);
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
                sv_set_val(&so->v[last], sym_const(so->v[last].hint), c->node, "%s needs %s, which no Dims state",
                        where, txt ? txt : "?");
                suggest_note(so->s, SN_STATIC, c->node, NULL,
                             "%s stays %lld: %s needs %s, which relates several sizes in a way no Dim states",
                             so->v[last].name, (long long)so->v[last].hint, where, txt ? txt : "?");
                free(txt);
                /* the others may now be solvable */
                sv_equalities_pass(so, true);
                i = -1; /* again from the top: values changed */
            }
            c->done = true;
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
    sv_example_sizes(&so, sample, nsample, &syms);
    for (int i = 0; i < nsample; i++)
        value_clear(&sample[i]);
    free(sample);
    SymShape *shapes = ep_xcalloc((size_t)(s->ninputs ? s->ninputs : 1), sizeof *shapes);
    sv_make_vars(&so, &syms, shapes);
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
    sv_hint_bindings(&so, &hints);
    ShapePropOptions po = {.inputs = ins, .ninputs = nins, .ranges = &rr, .lift = so.ncands ? suggest_lift : NULL,
                           .lift_ctx = &lc, .hints = &hints};
    ShapeProp *sp = NULL;
    EpStatus st = shape_prop_run_opts(ep, &po, &sp, err);
    sym_ranges_free(&rr);
    sym_bindings_free(&hints);
    if (st != EP_OK) {
        solve_cleanup(&so, NULL, shapes, ins, &lc);
        suggest_free(s);
        return st;
    }
    for (int i = 0; i < sp->ncons; i++) {
        SymExpr *e = sv_rename_syms(&so, sp->cons[i].cond);
        sv_add_cond(&so, e, sp->cons[i].kind, sp->cons[i].node, sp->cons[i].why);
    }
    /* the export's own guards (guards_code, PyTorch >= 2.9): conditions as
    ** any node's, traced with the program */
    for (int i = 0; i < ep_num_guards_code(ep); i++) {
        const GuardCode *gc = ep_guard_code(ep, i);
        if (!gc->cond)
            continue;
        char why[160];
        snprintf(why, sizeof why, "the export's guard %s", gc->shown ? gc->shown : gc->text);
        sv_add_cond(&so, sv_rename_syms(&so, gc->cond), SC_RELATION, NODE_GUARDS_CODE, why);
    }
    /* the ranges recorded for derived sizes (s0 + 1: [3, 65]) */
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *rc = &ep->ranges[i];
        if (!rc->parsed || sym_as_symbol(rc->parsed))
            continue;
        SymExpr *x = sv_rename_syms(&so, rc->parsed);
        if (rc->has_min) {
            SymExpr *k = sym_const(rc->min);
            sv_add_cond(&so, sym_binop(SYM_OP_GE, x, k), SC_BOUND, -1, "the range recorded at export");
            sym_free(k);
        }
        if (rc->has_max) {
            SymExpr *k = sym_const(rc->max);
            sv_add_cond(&so, sym_binop(SYM_OP_LE, x, k), SC_BOUND, -1, "the range recorded at export");
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
        solve_cleanup(&so, sp, shapes, ins, &lc);
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
    sv_equalities_pass(&so, false);
    sv_equalities_pass(&so, true);
    pin_followers(&so);
    sv_equalities_pass(&so, true);
    bounds_and_rest(&so);
    sv_pinned_by_lift(&so, &lc, retry);
    if (retry[0] >= 0) { /* solved again without that literal: this one is dropped */
        solve_cleanup(&so, sp, shapes, ins, &lc);
        *out = s;
        return EP_OK;
    }
    sv_specialization_notes(&so, &lc);
    sv_relation_notes(&so);
    sv_lift_notes(&so, &lc);
    sv_check_notes(&so);
    sv_build_dims(&so);
    if (!so.program_dynamic && s->nentries > 0)
        suggest_note(s, SN_WHY, -1, NULL,
                     "the archive is one traced path: Python control flow on sizes (an `if` on x.shape[0]) left "
                     "no node in it, so a re-export may add ranges this archive cannot show");

    solve_cleanup(&so, sp, shapes, ins, &lc);

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

