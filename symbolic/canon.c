/*
** canon.c -- canonical forms: a numeric expression becomes a polynomial
** (a sorted sum of monomials with exact coefficients) over atoms, and a
** condition becomes a normalised relation or a sorted And/Or of them, so
** that expressions equal for every integer value of their symbols often
** compare equal as trees (sym_equal), and a relation's two sides become one
** difference whose range sym_decide can bound.
**
** An atom is a symbol or a call that is not polynomial arithmetic:
** FloorDiv, Mod, Max, Min, an opaque function, a float.  Atoms have their
** arguments in canonical form.  Every rewrite holds for all integer values
** of the symbols (the symbols of a program's shapes are integers) and keeps
** Python's floor semantics:
**
**   s0 + s0 -> 2*s0,  (s0 + 1)*(s0 - 1) -> s0**2 - 1
**   FloorDiv(4*s0 + 3, 2) -> 2*s0 + 1,  FloorDiv(FloorDiv(x, 2), 3) -> FloorDiv(x, 6)
**   FloorDiv(x, -k) -> FloorDiv(-x, k),  CeilDiv(a, b) -> -FloorDiv(-a, b)
**   Mod(3*s0 + 5, 2) -> Mod(s0 + 1, 2),  Mod(2*s0, 4) -> 2*Mod(s0, 2)
**   Max(s0, s0 + 1, 3, 5) -> Max(5, s0 + 1)
**   s0 > 4 -> s0 >= 5, Eq(2*s0 + 4, 6) -> Eq(s0, 1) (p REL k, p without constant)
**
** The form is a normal form for polynomials only; two equal expressions
** with floors may still differ (FloorDiv(s0 + 1, 2) vs s0 - FloorDiv(s0, 2)),
** so sym_equal answering false means "not shown equal".  The rewrites may
** drop an undefined value (Mod(s0, s1)*0 is 0 even where s1 is 0).
*/
#include "symbolic/sym.h"

#include <stdlib.h>
#include <string.h>

#include "symbolic/sym_int.h"

/* Bounds that keep expansion cheap: (a + b)**64 or a product of large
** sums is kept as an atom rather than multiplied out. */
#define MAX_TERMS 4096
#define MAX_EXPAND_POW 64

/* ---- total order on trees --------------------------------------------- */

/* Names compare as text, except that a run of digits compares as a
** number: s2 < s10, so sums print in the order users number symbols. */
static int cmp_names(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *ea = a, *eb = b;
            while (*ea == '0' && ea[1] >= '0' && ea[1] <= '9')
                ea++;
            while (*eb == '0' && eb[1] >= '0' && eb[1] <= '9')
                eb++;
            a = ea;
            b = eb;
            while (*ea >= '0' && *ea <= '9')
                ea++;
            while (*eb >= '0' && *eb <= '9')
                eb++;
            if (ea - a != eb - b)
                return ea - a < eb - b ? -1 : 1;
            int c = strncmp(a, b, (size_t)(ea - a));
            if (c)
                return c < 0 ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

int sym_cmp(const SymExpr *a, const SymExpr *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    switch (a->kind) {
    case SYM_K_INT: return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
    case SYM_K_RAT: return symq_cmp(a->u.q, b->u.q);
    case SYM_K_FLOAT:
        if (a->u.f != a->u.f || b->u.f != b->u.f) /* NaNs sort last, equal to each other */
            return (a->u.f != a->u.f) - (b->u.f != b->u.f);
        return a->u.f < b->u.f ? -1 : a->u.f > b->u.f;
    case SYM_K_INF:
        if (a->u.inf.sign != b->u.inf.sign)
            return a->u.inf.sign < b->u.inf.sign ? -1 : 1;
        return (int)a->u.inf.is_int - (int)b->u.inf.is_int;
    case SYM_K_BOOL: return (int)a->u.b - (int)b->u.b;
    case SYM_K_SYMBOL: return a->u.name == b->u.name ? 0 : cmp_names(a->u.name, b->u.name);
    case SYM_K_CALL:
        if (a->fn != b->fn)
            return a->fn < b->fn ? -1 : 1;
        if (a->n != b->n)
            return a->n < b->n ? -1 : 1;
        for (int i = 0; i < a->n; i++) {
            int c = sym_cmp(a->args[i], b->args[i]);
            if (c)
                return c;
        }
        return 0;
    }
    return 0;
}

SymExpr *sym_clone(const SymExpr *e)
{
    if (!e)
        return NULL;
    SymExpr *c = sym_node_alloc();
    if (!c)
        return NULL;
    *c = *e;
    c->args = NULL;
    c->n = c->cap = 0;
    if (e->kind == SYM_K_SYMBOL) {
        c->u.name = sym_intern(e->u.name, strlen(e->u.name));
        if (!c->u.name) {
            free(c);
            return NULL;
        }
    }
    if (e->n > 0) {
        c->args = malloc((size_t)e->n * sizeof *c->args);
        if (!c->args) {
            sym_free(c);
            return NULL;
        }
        for (int i = 0; i < e->n; i++) {
            c->args[i] = sym_clone(e->args[i]);
            if (!c->args[i]) {
                sym_free(c);
                return NULL;
            }
            c->n = c->cap = i + 1;
        }
    }
    return c;
}

/* Is the (canonical) e integer-valued for integer symbols?  PyTorch names
** its float symbols zf0 / zuf0; every other symbol is a size or SymInt. */
bool sym_integral(const SymExpr *e)
{
    switch (e->kind) {
    case SYM_K_INT: return true;
    case SYM_K_SYMBOL: return e->u.name[0] != 'z';
    case SYM_K_CALL: break;
    default: return false;
    }
    switch (e->fn) {
    case SYM_FN_POW:
        if (e->args[1]->kind != SYM_K_INT || e->args[1]->u.i < 0)
            return false;
        return sym_integral(e->args[0]);
    case SYM_FN_ADD:
    case SYM_FN_MUL:
    case SYM_FN_MAX:
    case SYM_FN_MIN:
    case SYM_FN_ABS:
    case SYM_FN_MOD:
    case SYM_FN_PYTHONMOD:
        for (int i = 0; i < e->n; i++)
            if (!sym_integral(e->args[i]))
                return false;
        return true;
    case SYM_FN_FLOORDIV:
    case SYM_FN_CLEANDIV:
    case SYM_FN_CEILDIV:
    case SYM_FN_FLOOR:
    case SYM_FN_CEILING:
    case SYM_FN_FLOORTOINT:
    case SYM_FN_CEILTOINT:
    case SYM_FN_TRUNCTOINT:
    case SYM_FN_ROUNDTOINT:
    case SYM_FN_MODINDEX:
    case SYM_FN_POWBYNATURAL:
    case SYM_FN_LSHIFT:
    case SYM_FN_RSHIFT:
    case SYM_FN_BITAND:
    case SYM_FN_BITOR:
    case SYM_FN_BITXOR:
        return true;
    default: return false;
    }
}

static bool is_condition(const SymExpr *e)
{
    if (e->kind == SYM_K_BOOL)
        return true;
    if (e->kind != SYM_K_CALL)
        return false;
    switch (e->fn) {
    case SYM_FN_EQ: case SYM_FN_NE: case SYM_FN_LT: case SYM_FN_LE: case SYM_FN_GT: case SYM_FN_GE:
    case SYM_FN_AND: case SYM_FN_OR: case SYM_FN_NOT: case SYM_FN_XOR:
        return true;
    default: return false;
    }
}

/* ---- polynomials ---------------------------------------------------------- */

typedef struct Factor {
    SymExpr *atom; /* owned, canonical */
    int64_t exp;   /* != 0 */
} Factor;

typedef struct Term {
    SymQ c;        /* != 0 once normalised */
    int nf;
    Factor *f;     /* sorted by atom, atoms distinct */
} Term;

typedef struct Poly {
    int n, cap;
    Term *t;       /* sorted by mono_cmp once normalised */
} Poly;

static void term_free(Term *t)
{
    for (int i = 0; i < t->nf; i++)
        sym_free(t->f[i].atom);
    free(t->f);
    t->f = NULL;
    t->nf = 0;
}

static void poly_free(Poly *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        term_free(&p->t[i]);
    free(p->t);
    free(p);
}

static Poly *poly_new(void)
{
    return calloc(1, sizeof(Poly));
}

/* Appends t (taking its factors); false (t freed) out of memory or past
** MAX_TERMS. */
static bool poly_push(Poly *p, Term t)
{
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 4;
        Term *nt = p->n < MAX_TERMS ? realloc(p->t, (size_t)cap * sizeof *nt) : NULL;
        if (!nt) {
            term_free(&t);
            return false;
        }
        p->t = nt;
        p->cap = cap;
    }
    p->t[p->n++] = t;
    return true;
}

static Poly *poly_const(SymQ q)
{
    Poly *p = poly_new();
    if (p && q.num != 0 && !poly_push(p, (Term){q, 0, NULL})) {
        poly_free(p);
        return NULL;
    }
    return p;
}

/* The polynomial 1*atom (atom taken). */
static Poly *poly_atom(SymExpr *atom)
{
    Poly *p = poly_new();
    Factor *f = malloc(sizeof *f);
    if (!p || !f || !atom) {
        free(p);
        free(f);
        sym_free(atom);
        return NULL;
    }
    f->atom = atom;
    f->exp = 1;
    if (!poly_push(p, (Term){symq_int(1), 1, f})) {
        poly_free(p);
        return NULL;
    }
    return p;
}

static int64_t degree(const Term *t)
{
    int64_t d = 0;
    for (int i = 0; i < t->nf; i++)
        d += t->f[i].exp;
    return d;
}

/* Higher degree first, then by factors; the constant term last. */
static int mono_cmp(const Term *a, const Term *b)
{
    if ((a->nf == 0) != (b->nf == 0))
        return a->nf == 0 ? 1 : -1;
    int64_t da = degree(a), db = degree(b);
    if (da != db)
        return da > db ? -1 : 1;
    for (int i = 0; i < a->nf && i < b->nf; i++) {
        int c = sym_cmp(a->f[i].atom, b->f[i].atom);
        if (c)
            return c;
        if (a->f[i].exp != b->f[i].exp)
            return a->f[i].exp > b->f[i].exp ? -1 : 1;
    }
    return a->nf < b->nf ? -1 : a->nf > b->nf;
}

static int term_qsort_cmp(const void *a, const void *b)
{
    return mono_cmp(a, b);
}

/* Sort, merge like terms, drop zeros.  false on overflow (p unchanged in
** meaning but unusable). */
static bool poly_normalise(Poly *p)
{
    if (p->n > 1)
        qsort(p->t, (size_t)p->n, sizeof *p->t, term_qsort_cmp);
    int k = 0;
    bool ok = true;
    for (int i = 0; i < p->n; i++) {
        if (k > 0 && mono_cmp(&p->t[k - 1], &p->t[i]) == 0) {
            if (!symq_add(p->t[k - 1].c, p->t[i].c, &p->t[k - 1].c))
                ok = false;
            term_free(&p->t[i]);
            continue;
        }
        if (k > 0 && p->t[k - 1].c.num == 0)
            term_free(&p->t[--k]);
        p->t[k++] = p->t[i];
    }
    if (k > 0 && p->t[k - 1].c.num == 0)
        term_free(&p->t[--k]);
    p->n = k;
    return ok;
}

/* a += b; b is consumed.  false (a freed too) on failure. */
static Poly *poly_add(Poly *a, Poly *b)
{
    if (!a || !b) {
        poly_free(a);
        poly_free(b);
        return NULL;
    }
    for (int i = 0; i < b->n; i++) {
        if (!poly_push(a, b->t[i])) {
            for (int j = i + 1; j < b->n; j++)
                term_free(&b->t[j]);
            b->n = 0;
            poly_free(a);
            poly_free(b);
            return NULL;
        }
    }
    b->n = 0;
    poly_free(b);
    if (!poly_normalise(a)) {
        poly_free(a);
        return NULL;
    }
    return a;
}

static Poly *poly_scale(Poly *p, SymQ q)
{
    if (!p)
        return NULL;
    for (int i = 0; i < p->n; i++) {
        if (!symq_mul(p->t[i].c, q, &p->t[i].c)) {
            poly_free(p);
            return NULL;
        }
    }
    if (!poly_normalise(p)) {
        poly_free(p);
        return NULL;
    }
    return p;
}

/* The product of two monomials' factors (merged, exponents added). */
static bool mono_mul(const Term *a, const Term *b, Term *out)
{
    out->nf = 0;
    out->f = malloc((size_t)(a->nf + b->nf + 1) * sizeof *out->f);
    if (!out->f)
        return false;
    int i = 0, j = 0;
    while (i < a->nf || j < b->nf) {
        int c = i == a->nf ? 1 : j == b->nf ? -1 : sym_cmp(a->f[i].atom, b->f[j].atom);
        const Factor *src = c <= 0 ? &a->f[i] : &b->f[j];
        int64_t exp = src->exp;
        if (c == 0 && __builtin_add_overflow(exp, b->f[j].exp, &exp))
            goto fail;
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
        if (exp == 0)
            continue;
        out->f[out->nf].atom = sym_clone(src->atom);
        if (!out->f[out->nf].atom)
            goto fail;
        out->f[out->nf++].exp = exp;
    }
    return true;
fail:
    term_free(out);
    return false;
}

/* *out = c * t's monomial (factors copied). */
static bool term_copy(const Term *t, SymQ c, Term *out)
{
    Term one = {symq_int(1), 0, NULL};
    if (!mono_mul(t, &one, out))
        return false;
    out->c = c;
    return true;
}

/* a*b, both kept. */
static Poly *poly_mul(const Poly *a, const Poly *b)
{
    if ((int64_t)a->n * b->n > MAX_TERMS)
        return NULL;
    Poly *p = poly_new();
    if (!p)
        return NULL;
    for (int i = 0; i < a->n; i++) {
        for (int j = 0; j < b->n; j++) {
            Term t;
            if (!symq_mul(a->t[i].c, b->t[j].c, &t.c) || !mono_mul(&a->t[i], &b->t[j], &t) ||
                !poly_push(p, t)) {
                poly_free(p);
                return NULL;
            }
        }
    }
    if (!poly_normalise(p)) {
        poly_free(p);
        return NULL;
    }
    return p;
}

/* A new a - b, both kept. */
static Poly *poly_sub(const Poly *a, const Poly *b)
{
    Poly *d = poly_new();
    if (!d)
        return NULL;
    for (int i = 0; i < a->n + b->n; i++) {
        const Term *t = i < a->n ? &a->t[i] : &b->t[i - a->n];
        Term c;
        SymQ q = t->c;
        if ((i >= a->n && !symq_neg(q, &q)) || !term_copy(t, q, &c) || !poly_push(d, c)) {
            poly_free(d);
            return NULL;
        }
    }
    if (!poly_normalise(d)) {
        poly_free(d);
        return NULL;
    }
    return d;
}

static bool poly_is_const(const Poly *p, SymQ *q)
{
    if (p->n == 0) {
        *q = symq_int(0);
        return true;
    }
    if (p->n == 1 && p->t[0].nf == 0) {
        *q = p->t[0].c;
        return true;
    }
    return false;
}

static bool poly_integral(const Poly *p)
{
    for (int i = 0; i < p->n; i++) {
        if (!symq_is_int(p->t[i].c))
            return false;
        for (int j = 0; j < p->t[i].nf; j++)
            if (p->t[i].f[j].exp < 0 || !sym_integral(p->t[i].f[j].atom))
                return false;
    }
    return true;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x > INT64_MAX ? 0 : (int64_t)x; /* 0: too large to use */
}

/* The single atom p is, 1*atom, or NULL. */
static const SymExpr *poly_as_atom(const Poly *p)
{
    if (p->n == 1 && p->t[0].nf == 1 && p->t[0].f[0].exp == 1 && p->t[0].c.num == 1 && p->t[0].c.den == 1)
        return p->t[0].f[0].atom;
    return NULL;
}

/* ---- back to a tree ----------------------------------------------------- */

static SymExpr *term_expr(const Term *t)
{
    SymExpr **args = malloc((size_t)(t->nf + 1) * sizeof *args);
    if (!args)
        return NULL;
    int n = 0;
    for (int i = 0; i < t->nf; i++) {
        SymExpr *a = sym_clone(t->f[i].atom);
        if (a && t->f[i].exp != 1)
            a = sym_new_pow(a, sym_new_int(t->f[i].exp));
        if (!a) {
            while (n > 0)
                sym_free(args[--n]);
            free(args);
            return NULL;
        }
        args[n++] = a;
    }
    args[n] = t->c.den == 1 ? sym_new_int(t->c.num) : sym_new_rat(t->c.num, t->c.den);
    if (!args[n]) {
        while (n > 0)
            sym_free(args[--n]);
        free(args);
        return NULL;
    }
    n++;
    return sym_new_call(SYM_FN_MUL, args, n); /* the coefficient folds last, 1 vanishes */
}

/* The tree for p; p is kept. */
static SymExpr *poly_expr(const Poly *p)
{
    if (p->n == 0)
        return sym_new_int(0);
    SymExpr **args = malloc((size_t)p->n * sizeof *args);
    if (!args)
        return NULL;
    for (int i = 0; i < p->n; i++) {
        args[i] = term_expr(&p->t[i]);
        if (!args[i]) {
            for (int j = 0; j < i; j++)
                sym_free(args[j]);
            free(args);
            return NULL;
        }
    }
    return sym_new_call(SYM_FN_ADD, args, p->n);
}

/* ---- numeric canonical forms -------------------------------------------- */

static Poly *canon_poly(const SymExpr *e);
static SymExpr *canon_cond(const SymExpr *e);

/* Canonical tree of any expression. */
static SymExpr *canon_any(const SymExpr *e)
{
    if (is_condition(e))
        return canon_cond(e);
    Poly *p = canon_poly(e);
    if (!p)
        return NULL;
    SymExpr *r = poly_expr(p);
    poly_free(p);
    return r;
}

/* fn(args...) with every argument in canonical form, as an atom. */
static Poly *opaque_call(const SymExpr *e)
{
    SymExpr **args = malloc((size_t)e->n * sizeof *args);
    if (!args)
        return NULL;
    for (int i = 0; i < e->n; i++) {
        args[i] = canon_any(e->args[i]);
        if (!args[i]) {
            for (int j = 0; j < i; j++)
                sym_free(args[j]);
            free(args);
            return NULL;
        }
    }
    return poly_atom(sym_new_call(e->fn, args, e->n));
}

static Poly *atom2(SymFn fn, const Poly *a, const Poly *b)
{
    return poly_atom(sym_new_call2(fn, poly_expr(a), poly_expr(b)));
}

static Poly *floordiv_poly(Poly *a, Poly *b);

/* FloorDiv(a, k) for an integral a and a constant k > 0 (a taken). */
static Poly *floordiv_const(Poly *a, int64_t k)
{
    if (k == 1)
        return a;
    const SymExpr *inner = poly_as_atom(a);
    int64_t k2;
    if (inner && inner->kind == SYM_K_CALL && inner->fn == SYM_FN_FLOORDIV && inner->args[1]->kind == SYM_K_INT &&
        inner->args[1]->u.i > 0 && !__builtin_mul_overflow(inner->args[1]->u.i, k, &k2)) {
        /* floor(floor(x/m)/k) = floor(x/(m*k)) for m, k > 0 */
        Poly *x = canon_poly(inner->args[0]);
        poly_free(a);
        return x ? floordiv_const(x, k2) : NULL;
    }
    /* x = k*q + r termwise, 0 <= r < k: floor(x/k) = q + floor(r/k) */
    Poly *q = poly_new(), *r = poly_new();
    if (!q || !r)
        goto fail;
    for (int i = 0; i < a->n; i++) {
        Term *t = &a->t[i];
        int64_t qi = 0;
        SymQ ri;
        if (!symq_floordiv(t->c, symq_int(k), &qi) || !symq_mod(t->c, symq_int(k), &ri))
            goto fail;
        Term tq, tr;
        if (qi != 0 && (!term_copy(t, symq_int(qi), &tq) || !poly_push(q, tq)))
            goto fail;
        if (ri.num != 0 && (!term_copy(t, ri, &tr) || !poly_push(r, tr)))
            goto fail;
    }
    poly_free(a);
    a = NULL;
    if (!poly_normalise(q) || !poly_normalise(r))
        goto fail;
    SymQ rc;
    if (poly_is_const(r, &rc)) { /* 0 <= rc < k */
        poly_free(r);
        return q;
    }
    /* floor(g*y / (g*m)) = floor(y/m) */
    int64_t g = k;
    for (int i = 0; i < r->n; i++)
        g = gcd64(g, r->t[i].c.num);
    if (g > 1) {
        r = poly_scale(r, (SymQ){1, g});
        k /= g;
    }
    if (!r)
        goto fail;
    Poly *kp = poly_const(symq_int(k));
    Poly *f = kp ? atom2(SYM_FN_FLOORDIV, r, kp) : NULL;
    poly_free(kp);
    poly_free(r);
    return poly_add(q, f);
fail:
    poly_free(a);
    poly_free(q);
    poly_free(r);
    return NULL;
}

/* FloorDiv(a, b), both taken. */
static Poly *floordiv_poly(Poly *a, Poly *b)
{
    SymQ qa, qb;
    Poly *res = NULL;
    if (!a || !b)
        goto out;
    if (poly_is_const(b, &qb) && qb.num != 0) {
        int64_t v;
        if (poly_is_const(a, &qa)) {
            if (symq_floordiv(qa, qb, &v))
                res = poly_const(symq_int(v));
            goto out;
        }
        if (symq_is_int(qb) && poly_integral(a) && qb.num != INT64_MIN) {
            if (qb.num < 0) { /* floor(x / -k) = floor(-x / k) */
                a = poly_scale(a, symq_int(-1));
                if (!a)
                    goto out;
            }
            res = floordiv_const(a, qb.num < 0 ? -qb.num : qb.num);
            a = NULL;
            goto out;
        }
    }
    res = atom2(SYM_FN_FLOORDIV, a, b);
out:
    poly_free(a);
    poly_free(b);
    return res;
}

/* Mod(a, k) for an integral a and a constant k > 0 (a taken). */
static Poly *mod_const(Poly *a, int64_t k)
{
    if (k == 1) {
        poly_free(a);
        return poly_new();
    }
    for (int i = 0; i < a->n; i++) {
        if (!symq_mod(a->t[i].c, symq_int(k), &a->t[i].c)) {
            poly_free(a);
            return NULL;
        }
    }
    if (!poly_normalise(a)) {
        poly_free(a);
        return NULL;
    }
    SymQ qa;
    if (poly_is_const(a, &qa)) /* already reduced */
        return a;
    const SymExpr *inner = poly_as_atom(a);
    if (inner && inner->kind == SYM_K_CALL && inner->fn == SYM_FN_MOD && inner->args[1]->kind == SYM_K_INT &&
        inner->args[1]->u.i > 0 && inner->args[1]->u.i % k == 0) {
        /* k | m: (x mod m) mod k = x mod k */
        Poly *x = canon_poly(inner->args[0]);
        poly_free(a);
        return x ? mod_const(x, k) : NULL;
    }
    /* (g*y) mod (g*m) = g*(y mod m) */
    int64_t g = k;
    for (int i = 0; i < a->n; i++)
        g = gcd64(g, a->t[i].c.num);
    if (g > 1)
        a = poly_scale(a, (SymQ){1, g});
    if (!a)
        return NULL;
    Poly *kp = poly_const(symq_int(k / (g > 1 ? g : 1)));
    Poly *m = kp ? atom2(SYM_FN_MOD, a, kp) : NULL;
    poly_free(kp);
    poly_free(a);
    return g > 1 ? poly_scale(m, symq_int(g)) : m;
}

/* Mod(a, b), both taken. */
static Poly *mod_poly(Poly *a, Poly *b)
{
    SymQ qa, qb, r;
    Poly *res = NULL;
    if (!a || !b)
        goto out;
    if (poly_is_const(b, &qb) && qb.num != 0) {
        if (poly_is_const(a, &qa)) {
            if (symq_mod(qa, qb, &r))
                res = poly_const(r);
            goto out;
        }
        if (symq_is_int(qb) && poly_integral(a) && qb.num != INT64_MIN) {
            if (qb.num > 0) {
                res = mod_const(a, qb.num);
            } else { /* x mod -k = -((-x) mod k) */
                a = poly_scale(a, symq_int(-1));
                res = a ? poly_scale(mod_const(a, -qb.num), symq_int(-1)) : NULL;
            }
            a = NULL;
            goto out;
        }
    }
    res = atom2(SYM_FN_MOD, a, b);
out:
    poly_free(a);
    poly_free(b);
    return res;
}

static int expr_qsort_cmp(const void *a, const void *b)
{
    return sym_cmp(*(SymExpr *const *)a, *(SymExpr *const *)b);
}

/* Max/Min: arguments canonical and flattened, numbers folded into one,
** an argument dominated by another at a constant distance dropped
** (Max(s0, s0 + 1) is s0 + 1), then sorted and deduplicated. */
static Poly *canon_extreme(const SymExpr *e)
{
    bool is_max = e->fn == SYM_FN_MAX;
    int n = 0, cap = e->n + 4;
    Poly **ps = malloc((size_t)cap * sizeof *ps);
    Poly *res = NULL;
    if (!ps)
        return NULL;
    for (int i = 0; i < e->n; i++) {
        Poly *p = canon_poly(e->args[i]);
        if (!p)
            goto out;
        const SymExpr *in = poly_as_atom(p);
        if (in && in->kind == SYM_K_CALL && in->fn == e->fn) { /* flatten */
            Poly **grown = realloc(ps, (size_t)(cap + in->n) * sizeof *ps);
            if (!grown) {
                poly_free(p);
                goto out;
            }
            ps = grown;
            cap += in->n;
            for (int j = 0; j < in->n; j++) {
                ps[n] = canon_poly(in->args[j]);
                if (!ps[n]) {
                    poly_free(p);
                    goto out;
                }
                n++;
            }
            poly_free(p);
        } else {
            ps[n++] = p;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n && ps[i]; j++) {
            if (i == j || !ps[j])
                continue;
            /* a constant difference decides which of the two wins */
            Poly *d = poly_sub(ps[i], ps[j]);
            SymQ q;
            if (!d)
                goto out;
            bool c = poly_is_const(d, &q);
            poly_free(d);
            if (!c)
                continue;
            /* keep the larger (Max) / smaller (Min); of equals, the first */
            if (q.num == 0 ? j < i : (q.num < 0) == is_max) {
                poly_free(ps[i]);
                ps[i] = NULL;
            }
        }
    }
    int m = 0;
    SymExpr **args = malloc((size_t)(n ? n : 1) * sizeof *args);
    if (!args)
        goto out;
    for (int i = 0; i < n; i++) {
        if (!ps[i])
            continue;
        args[m] = poly_expr(ps[i]);
        if (!args[m]) {
            while (m > 0)
                sym_free(args[--m]);
            free(args);
            goto out;
        }
        m++;
    }
    if (m == 1) {
        for (int i = 0; i < n; i++)
            if (ps[i]) {
                res = ps[i];
                ps[i] = NULL;
                break;
            }
        sym_free(args[0]);
        free(args);
        goto out;
    }
    qsort(args, (size_t)m, sizeof *args, expr_qsort_cmp);
    res = poly_atom(sym_new_call(e->fn, args, m));
out:
    for (int i = 0; i < n; i++)
        poly_free(ps[i]);
    free(ps);
    return res;
}

/* Pow(base, ex): a natural exponent up to MAX_EXPAND_POW multiplies out; a
** monomial base takes any integer exponent (s0**-1 * s0 is 1, as in SymPy);
** anything else is an atom. */
static Poly *canon_pow(const SymExpr *e)
{
    Poly *base = canon_poly(e->args[0]), *ex = canon_poly(e->args[1]);
    Poly *res = NULL;
    SymQ qe, qb;
    if (!base || !ex)
        goto out;
    if (!poly_is_const(ex, &qe) || !symq_is_int(qe)) {
        res = atom2(SYM_FN_POW, base, ex);
        goto out;
    }
    int64_t k = qe.num;
    if (poly_is_const(base, &qb)) {
        if (symq_pow(qb, k, &qb))
            res = poly_const(qb);
        else
            res = atom2(SYM_FN_POW, base, ex);
        goto out;
    }
    if (base->n == 1 && k != INT64_MIN) { /* c * x1^e1 * ...: each exponent times k */
        Term t;
        if (!symq_pow(base->t[0].c, k, &qb) || !term_copy(&base->t[0], qb, &t)) {
            res = atom2(SYM_FN_POW, base, ex);
            goto out;
        }
        for (int i = 0; i < t.nf; i++) {
            if (__builtin_mul_overflow(t.f[i].exp, k, &t.f[i].exp)) {
                term_free(&t);
                goto out;
            }
        }
        if (k == 0) {
            term_free(&t);
            res = poly_const(symq_int(1));
            goto out;
        }
        res = poly_new();
        if (res && !poly_push(res, t)) {
            poly_free(res);
            res = NULL;
        }
        goto out;
    }
    if (k < 0 || k > MAX_EXPAND_POW) {
        res = atom2(SYM_FN_POW, base, ex);
        goto out;
    }
    res = poly_const(symq_int(1));
    for (int64_t i = 0; i < k && res; i++) {
        Poly *next = poly_mul(res, base);
        poly_free(res);
        res = next;
    }
    if (!res) /* too many terms: keep the power whole */
        res = atom2(SYM_FN_POW, base, ex);
out:
    poly_free(base);
    poly_free(ex);
    return res;
}

/* x rounded by a *ToInt / floor / ceiling function: an integral x is
** itself, a number folds, anything else stays an atom. */
static Poly *canon_round(const SymExpr *e)
{
    Poly *x = canon_poly(e->args[0]);
    SymQ q;
    if (!x)
        return NULL;
    if (poly_integral(x))
        return x;
    if (poly_is_const(x, &q)) {
        int64_t v = 0;
        switch (e->fn) {
        case SYM_FN_FLOOR:
        case SYM_FN_FLOORTOINT: v = symq_floor(q); break;
        case SYM_FN_CEILING:
        case SYM_FN_CEILTOINT: v = symq_ceil(q); break;
        case SYM_FN_TRUNCTOINT: v = q.num < 0 ? symq_ceil(q) : symq_floor(q); break;
        default: goto keep;
        }
        poly_free(x);
        return poly_const(symq_int(v));
    }
keep:
    poly_free(x);
    return opaque_call(e);
}

static Poly *canon_poly(const SymExpr *e)
{
    SymQ q;
    switch (e->kind) {
    case SYM_K_INT:
    case SYM_K_RAT:
        sym_exact_number(e, &q);
        return poly_const(q);
    case SYM_K_CALL: break;
    default: return poly_atom(sym_clone(e));
    }
    if (is_condition(e))
        return poly_atom(canon_cond(e));
    Poly *p = NULL, *b = NULL;
    switch (e->fn) {
    case SYM_FN_ADD:
        p = poly_new();
        for (int i = 0; i < e->n && p; i++)
            p = poly_add(p, canon_poly(e->args[i]));
        return p;
    case SYM_FN_MUL:
        p = poly_const(symq_int(1));
        for (int i = 0; i < e->n && p; i++) {
            b = canon_poly(e->args[i]);
            Poly *next = b ? poly_mul(p, b) : NULL;
            poly_free(p);
            poly_free(b);
            p = next;
        }
        return p;
    case SYM_FN_POW:
    case SYM_FN_POWBYNATURAL: return canon_pow(e);
    case SYM_FN_FLOORDIV:
    case SYM_FN_CLEANDIV: return floordiv_poly(canon_poly(e->args[0]), canon_poly(e->args[1]));
    case SYM_FN_CEILDIV: /* ceil(a/b) = -floor(-a/b) */
        p = poly_scale(canon_poly(e->args[0]), symq_int(-1));
        return poly_scale(floordiv_poly(p, canon_poly(e->args[1])), symq_int(-1));
    case SYM_FN_MOD:
    case SYM_FN_PYTHONMOD: return mod_poly(canon_poly(e->args[0]), canon_poly(e->args[1]));
    case SYM_FN_MODINDEX: /* (x // d) % m */
        p = floordiv_poly(canon_poly(e->args[0]), canon_poly(e->args[1]));
        return mod_poly(p, canon_poly(e->args[2]));
    case SYM_FN_INTTRUEDIV:
        b = canon_poly(e->args[1]);
        if (b && poly_is_const(b, &q) && q.num != 0 && symq_div(symq_int(1), q, &q)) {
            poly_free(b);
            return poly_scale(canon_poly(e->args[0]), q);
        }
        poly_free(b);
        return opaque_call(e);
    case SYM_FN_MAX:
    case SYM_FN_MIN: return canon_extreme(e);
    case SYM_FN_IDENTITY: return canon_poly(e->args[0]);
    case SYM_FN_FLOOR:
    case SYM_FN_CEILING:
    case SYM_FN_FLOORTOINT:
    case SYM_FN_CEILTOINT:
    case SYM_FN_TRUNCTOINT:
    case SYM_FN_ROUNDTOINT: return canon_round(e);
    case SYM_FN_ABS:
        p = canon_poly(e->args[0]);
        if (p && poly_is_const(p, &q)) {
            poly_free(p);
            return poly_const(q.num < 0 ? (SymQ){-q.num, q.den} : q);
        }
        poly_free(p);
        return opaque_call(e);
    case SYM_FN_WHERE: {
        SymExpr *c = canon_cond(e->args[0]);
        if (c && c->kind == SYM_K_BOOL) {
            bool v = c->u.b;
            sym_free(c);
            return canon_poly(e->args[v ? 1 : 2]);
        }
        sym_free(c);
        return opaque_call(e);
    }
    default: return opaque_call(e);
    }
}

/* ---- conditions ------------------------------------------------------------- */

static SymExpr *cond_not(const SymExpr *e);

/* A relation as "p REL k": p the difference a - b (Gt/Ge swapped to
** Lt/Le) without its constant, k a number.  Over integers Lt becomes Le
** with k - 1, and p is divided by the gcd of its coefficients (Eq with a
** k the gcd does not divide is False); an Eq/Ne has a positive leading
** coefficient, and so has a Le/Lt (which turns into Ge/Gt).  A side that
** is +-oo against a finite side folds. */
static SymExpr *canon_rel(SymFn fn, const SymExpr *a, const SymExpr *b)
{
    if (fn == SYM_FN_GT || fn == SYM_FN_GE) {
        const SymExpr *t = a;
        a = b;
        b = t;
        fn = fn == SYM_FN_GT ? SYM_FN_LT : SYM_FN_LE;
    }
    if ((a->kind == SYM_K_INF) != (b->kind == SYM_K_INF)) {
        /* a finite value against an infinity; SymPy folds these too */
        int sign = a->kind == SYM_K_INF ? -a->u.inf.sign : b->u.inf.sign; /* sign of b - a */
        if (fn == SYM_FN_EQ)
            return sym_new_bool(false);
        if (fn == SYM_FN_NE)
            return sym_new_bool(true);
        return sym_new_bool(sign > 0);
    }
    if (is_condition(a) || is_condition(b)) {
        SymExpr *x = canon_any(a), *y = canon_any(b);
        return sym_new_call2(fn, x, y);
    }
    Poly *pa = canon_poly(a), *pb = canon_poly(b);
    Poly *d = pa && pb ? poly_sub(pa, pb) : NULL;
    poly_free(pa);
    poly_free(pb);
    if (!d)
        return NULL;
    SymQ k = symq_int(0);
    if (d->n > 0 && d->t[d->n - 1].nf == 0) { /* move the constant across */
        if (!symq_neg(d->t[d->n - 1].c, &k)) {
            poly_free(d);
            return NULL;
        }
        term_free(&d->t[--d->n]);
    }
    SymExpr *res = NULL;
    if (d->n == 0) {
        int c = symq_cmp(symq_int(0), k); /* 0 REL k */
        bool v = fn == SYM_FN_EQ ? c == 0 : fn == SYM_FN_NE ? c != 0 : fn == SYM_FN_LT ? c < 0 : c <= 0;
        res = sym_new_bool(v);
        goto out;
    }
    if (poly_integral(d) && symq_is_int(k)) {
        if (fn == SYM_FN_LT) {
            if (k.num == INT64_MIN)
                goto out;
            k.num--;
            fn = SYM_FN_LE;
        }
        int64_t g = 0;
        for (int i = 0; i < d->n; i++)
            g = gcd64(g, d->t[i].c.num);
        if (fn != SYM_FN_LE && d->t[0].c.num < 0)
            g = -g; /* Eq/Ne: leading coefficient positive */
        if (g != 0 && g != 1) {
            if ((fn == SYM_FN_EQ || fn == SYM_FN_NE) && k.num % g != 0) {
                res = sym_new_bool(fn == SYM_FN_NE);
                goto out;
            }
            /* g*p <= k  <=>  p <= floor(k/g) for g > 0 */
            int64_t kk;
            if (!symq_floordiv(k, symq_int(g), &kk))
                goto out;
            k = symq_int(kk);
            d = poly_scale(d, (SymQ){g < 0 ? -1 : 1, g < 0 ? -g : g});
            if (!d)
                goto out;
        }
    }
    if ((fn == SYM_FN_LE || fn == SYM_FN_LT) && d->t[0].c.num < 0) {
        /* -p <= k reads better as p >= -k */
        d = poly_scale(d, symq_int(-1));
        if (!d || !symq_neg(k, &k))
            goto out;
        fn = fn == SYM_FN_LE ? SYM_FN_GE : SYM_FN_GT;
    }
    res = sym_new_call2(fn, poly_expr(d), k.den == 1 ? sym_new_int(k.num) : sym_new_rat(k.num, k.den));
out:
    poly_free(d);
    return res;
}

/* And/Or: arguments canonical, nested ones spliced, the neutral value
** dropped, the absorbing one returned, then sorted and deduplicated. */
static SymExpr *canon_junction(SymFn fn, SymExpr *const *in, int n, bool negate_args)
{
    bool is_and = fn == SYM_FN_AND;
    int m = 0, cap = n + 4;
    SymExpr **args = malloc((size_t)cap * sizeof *args);
    if (!args)
        return NULL;
    for (int i = 0; i < n; i++) {
        SymExpr *c = negate_args ? cond_not(in[i]) : canon_cond(in[i]);
        if (!c)
            goto fail;
        if (c->kind == SYM_K_BOOL) {
            bool v = c->u.b;
            sym_free(c);
            if (v != is_and) { /* False in an And, True in an Or */
                for (int j = 0; j < m; j++)
                    sym_free(args[j]);
                free(args);
                return sym_new_bool(v);
            }
            continue;
        }
        int extra = c->kind == SYM_K_CALL && c->fn == fn ? c->n : 1;
        if (m + extra > cap) {
            cap = (m + extra) * 2;
            SymExpr **g = realloc(args, (size_t)cap * sizeof *g);
            if (!g) {
                sym_free(c);
                goto fail;
            }
            args = g;
        }
        if (extra > 1 || (c->kind == SYM_K_CALL && c->fn == fn)) {
            for (int j = 0; j < c->n; j++)
                args[m++] = c->args[j];
            c->n = 0;
            sym_free(c);
        } else {
            args[m++] = c;
        }
    }
    if (m == 0) {
        free(args);
        return sym_new_bool(is_and);
    }
    qsort(args, (size_t)m, sizeof *args, expr_qsort_cmp);
    int k = 1;
    for (int i = 1; i < m; i++) {
        if (sym_cmp(args[k - 1], args[i]) == 0)
            sym_free(args[i]);
        else
            args[k++] = args[i];
    }
    if (k == 1) {
        SymExpr *only = args[0];
        free(args);
        return only;
    }
    return sym_new_call(fn, args, k);
fail:
    for (int j = 0; j < m; j++)
        sym_free(args[j]);
    free(args);
    return NULL;
}

/* The canonical negation of the condition e. */
static SymExpr *cond_not(const SymExpr *e)
{
    if (e->kind == SYM_K_BOOL)
        return sym_new_bool(!e->u.b);
    if (e->kind == SYM_K_CALL) {
        switch (e->fn) {
        case SYM_FN_NOT: return canon_cond(e->args[0]);
        case SYM_FN_AND: return canon_junction(SYM_FN_OR, e->args, e->n, true);
        case SYM_FN_OR: return canon_junction(SYM_FN_AND, e->args, e->n, true);
        case SYM_FN_EQ: return canon_rel(SYM_FN_NE, e->args[0], e->args[1]);
        case SYM_FN_NE: return canon_rel(SYM_FN_EQ, e->args[0], e->args[1]);
        case SYM_FN_LT: return canon_rel(SYM_FN_GE, e->args[0], e->args[1]);
        case SYM_FN_LE: return canon_rel(SYM_FN_GT, e->args[0], e->args[1]);
        case SYM_FN_GT: return canon_rel(SYM_FN_LE, e->args[0], e->args[1]);
        case SYM_FN_GE: return canon_rel(SYM_FN_LT, e->args[0], e->args[1]);
        default: break;
        }
    }
    SymExpr **args = malloc(sizeof *args);
    if (!args)
        return NULL;
    args[0] = canon_any(e);
    if (!args[0]) {
        free(args);
        return NULL;
    }
    return sym_new_call(SYM_FN_NOT, args, 1);
}

static SymExpr *canon_cond(const SymExpr *e)
{
    if (e->kind != SYM_K_CALL)
        return sym_clone(e);
    switch (e->fn) {
    case SYM_FN_EQ:
    case SYM_FN_NE:
    case SYM_FN_LT:
    case SYM_FN_LE:
    case SYM_FN_GT:
    case SYM_FN_GE: return canon_rel(e->fn, e->args[0], e->args[1]);
    case SYM_FN_AND:
    case SYM_FN_OR: return canon_junction(e->fn, e->args, e->n, false);
    case SYM_FN_NOT: return cond_not(e->args[0]);
    default: {
        Poly *p = opaque_call(e); /* Xor: arguments canonical */
        if (!p)
            return NULL;
        SymExpr *r = poly_expr(p);
        poly_free(p);
        return r;
    }
    }
}

/* ---- public ------------------------------------------------------------------ */

SymExpr *sym_canon(const SymExpr *e)
{
    if (!e)
        return NULL;
    (void)sym_take_fold_overflow();
    bool bounded = sym_budget_begin(SYM_CANON_MAX_NODES);
    SymExpr *c = canon_any(e);
    sym_budget_end(bounded);
    (void)sym_take_fold_overflow(); /* a failed fold is reported as NULL, not later */
    if (c && c->depth > SYM_MAX_DEPTH * 2) { /* keep every walk's recursion bounded */
        sym_free(c);
        return NULL;
    }
    return c;
}

bool sym_equal(const SymExpr *a, const SymExpr *b)
{
    SymExpr *ca = sym_canon(a), *cb = sym_canon(b);
    bool eq = ca && cb && sym_cmp(ca, cb) == 0;
    sym_free(ca);
    sym_free(cb);
    return eq;
}
