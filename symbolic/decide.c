/*
** decide.c -- is a condition true for every value of its symbols in their
** ranges, false for every one, or neither / not known?
**
** First on the canonical form: a relation is "p REL k", so the range of p
** against k settles it when the interval is tight enough (And/Or/Not in
** three-valued logic).  Failing that, the symbols with the smallest finite
** ranges are enumerated, at most SYM_DECIDE_MAX_POINTS assignments: when
** that covers every symbol each point is evaluated exactly (sym_eval, the
** ground truth); otherwise each point substitutes those symbols and
** decides the rest by intervals again.  A verdict is never a guess: TRUE
** and FALSE are proofs over every point where the condition is defined.
*/
#include "symbolic/sym.h"

#include <stdlib.h>
#include <string.h>

#include "symbolic/sym_int.h"

#define NEG SYM_RANGE_NEG_INF
#define POS SYM_RANGE_POS_INF
/* A point of an enumeration where the condition is undefined. */
#define UNDEFINED 2

static SymTruth negate(SymTruth t)
{
    return t == SYM_TRUE ? SYM_FALSE : t == SYM_FALSE ? SYM_TRUE : SYM_UNKNOWN;
}

/* a REL b from the two enclosures.  Integer hulls of non-integer values
** still order correctly (a <= hull hi < other's hull lo <= b); only an
** equality needs both sides to be exact single integers. */
static SymTruth decide_rel(SymFn fn, const SymExpr *a, const SymExpr *b, const SymRanges *rs)
{
    if (fn == SYM_FN_GT || fn == SYM_FN_GE) {
        const SymExpr *t = a;
        a = b;
        b = t;
        fn = fn == SYM_FN_GT ? SYM_FN_LT : SYM_FN_LE;
    }
    SymRange ra = sym_range_raw(a, rs), rb = sym_range_raw(b, rs);
    switch (fn) {
    case SYM_FN_LT:
        if (ra.hi < rb.lo)
            return SYM_TRUE;
        if (ra.lo >= rb.hi)
            return SYM_FALSE;
        return SYM_UNKNOWN;
    case SYM_FN_LE:
        if (ra.hi <= rb.lo)
            return SYM_TRUE;
        if (ra.lo > rb.hi)
            return SYM_FALSE;
        return SYM_UNKNOWN;
    case SYM_FN_EQ:
    case SYM_FN_NE: {
        SymTruth t = SYM_UNKNOWN;
        if (ra.hi < rb.lo || ra.lo > rb.hi)
            t = SYM_FALSE;
        else if (ra.lo == ra.hi && rb.lo == rb.hi && ra.lo == rb.lo && ra.lo != NEG && ra.lo != POS &&
                 sym_integral(a) && sym_integral(b))
            t = SYM_TRUE;
        return fn == SYM_FN_EQ ? t : negate(t);
    }
    default: return SYM_UNKNOWN;
    }
}

/* Three-valued verdict on a (canonical) tree by intervals alone. */
static SymTruth decide_tree(const SymExpr *e, const SymRanges *rs)
{
    if (e->kind == SYM_K_BOOL)
        return e->u.b ? SYM_TRUE : SYM_FALSE;
    if (e->kind != SYM_K_CALL)
        return SYM_UNKNOWN;
    switch (e->fn) {
    case SYM_FN_EQ: case SYM_FN_NE: case SYM_FN_LT: case SYM_FN_LE: case SYM_FN_GT: case SYM_FN_GE:
        return decide_rel(e->fn, e->args[0], e->args[1], rs);
    case SYM_FN_NOT: return negate(decide_tree(e->args[0], rs));
    case SYM_FN_AND:
    case SYM_FN_OR: {
        bool is_and = e->fn == SYM_FN_AND, unknown = false;
        SymTruth absorb = is_and ? SYM_FALSE : SYM_TRUE;
        for (int i = 0; i < e->n; i++) {
            SymTruth t = decide_tree(e->args[i], rs);
            if (t == absorb)
                return absorb;
            if (t == SYM_UNKNOWN)
                unknown = true;
        }
        return unknown ? SYM_UNKNOWN : negate(absorb);
    }
    default: return SYM_UNKNOWN;
    }
}

SymTruth sym_decide_intervals(const SymExpr *cond, const SymRanges *ranges)
{
    SymExpr *c = sym_canon(cond);
    SymTruth t = decide_tree(c ? c : cond, ranges);
    sym_free(c);
    return t;
}

typedef struct Pick {
    const char *name; /* interned, borrowed from the condition */
    SymRange r;
    uint64_t size;
} Pick;

/* A copy of e with every symbol picks[0..n) names replaced by its value in
** cur, in one walk (one substitution per symbol copied the tree n times at
** each point of an enumeration). */
static SymExpr *subst(const SymExpr *e, const Pick *picks, const int64_t *cur, int n)
{
    if (e->kind == SYM_K_SYMBOL) {
        for (int i = 0; i < n; i++)
            if (e->u.name == picks[i].name)
                return sym_new_int(cur[i]);
        return sym_clone(e);
    }
    if (e->kind != SYM_K_CALL)
        return sym_clone(e);
    SymExpr **args = malloc((size_t)e->n * sizeof *args);
    if (!args)
        return NULL;
    for (int i = 0; i < e->n; i++) {
        args[i] = subst(e->args[i], picks, cur, n);
        if (!args[i]) {
            while (i > 0)
                sym_free(args[--i]);
            free(args);
            return NULL;
        }
    }
    return sym_new_call(e->fn, args, e->n);
}

static int pick_cmp(const void *a, const void *b)
{
    uint64_t x = ((const Pick *)a)->size, y = ((const Pick *)b)->size;
    return x < y ? -1 : x > y;
}

/* Enumerate picks[0..n) (all of cond's symbols when all is set). */
static SymTruth enumerate(const SymExpr *cond, const SymRanges *rs, const Pick *picks, int n, bool all)
{
    int64_t cur[64];
    int seen_true = 0, seen_false = 0;
    SymBindings b;
    sym_bindings_init(&b);
    for (int i = 0; i < n; i++)
        cur[i] = picks[i].r.lo;
    SymTruth res = SYM_UNKNOWN;
    for (;;) {
        int t = SYM_UNKNOWN; /* or UNDEFINED */
        if (all) {
            SymValue v;
            const char *unbound;
            for (int i = 0; i < n; i++)
                sym_bindings_set(&b, picks[i].name, cur[i]);
            /* a point where cond is undefined (x // 0) makes no claim */
            if (sym_eval(cond, &b, &v, &unbound) == SYM_OK && v.kind == SYMV_BOOL)
                t = v.b ? SYM_TRUE : SYM_FALSE;
            else if (b.n < n) /* out of memory */
                goto out;
            else
                t = UNDEFINED;
        } else {
            SymExpr *s = subst(cond, picks, cur, n);
            if (!s)
                goto out;
            t = sym_decide_intervals(s, rs);
            sym_free(s);
            if (t == SYM_UNKNOWN)
                goto out;
        }
        seen_true += t == SYM_TRUE;
        seen_false += t == SYM_FALSE;
        if (seen_true && seen_false)
            goto out;
        int i = 0; /* next point, odometer style */
        while (i < n && cur[i] == picks[i].r.hi) {
            cur[i] = picks[i].r.lo;
            i++;
        }
        if (i == n)
            break;
        cur[i]++;
    }
    if (seen_true && !seen_false)
        res = SYM_TRUE;
    else if (seen_false && !seen_true)
        res = SYM_FALSE;
out:
    sym_bindings_free(&b);
    return res;
}

static SymTruth decide(const SymExpr *cond, const SymRanges *ranges);

SymTruth sym_decide(const SymExpr *cond, const SymRanges *ranges)
{
    if (!cond)
        return SYM_UNKNOWN;
    bool bounded = sym_budget_begin(SYM_DECIDE_MAX_NODES);
    SymTruth t = decide(cond, ranges);
    sym_budget_end(bounded);
    return t;
}

static SymTruth decide(const SymExpr *cond, const SymRanges *ranges)
{
    SymTruth t = sym_decide_intervals(cond, ranges);
    if (t != SYM_UNKNOWN)
        return t;
    const char *names[64];
    int nsym = sym_symbols(cond, names, 64);
    if (nsym > 64)
        return SYM_UNKNOWN;
    Pick picks[64];
    int n = 0;
    for (int i = 0; i < nsym; i++) {
        SymRange r;
        /* float symbols (zf0) take more than integers: never enumerated */
        if (names[i][0] == 'z' || !sym_ranges_get(ranges, names[i], &r) || r.lo == NEG || r.hi == POS)
            continue;
        uint64_t size = (uint64_t)r.hi - (uint64_t)r.lo + 1;
        if (size == 0 || size > SYM_DECIDE_MAX_POINTS)
            continue;
        picks[n++] = (Pick){names[i], r, size};
    }
    qsort(picks, (size_t)n, sizeof *picks, pick_cmp);
    uint64_t points = 1;
    int take = 0;
    while (take < n && points * picks[take].size <= SYM_DECIDE_MAX_POINTS)
        points *= picks[take++].size;
    if (take == 0)
        return SYM_UNKNOWN;
    return enumerate(cond, ranges, picks, take, take == nsym);
}
