/*
** interval.c -- interval arithmetic: an enclosure [lo, hi] of every value
** an expression takes while each symbol stays in its range.
**
** Bounds are int64 with INT64_MIN and INT64_MAX standing for -oo and +oo
** (PyTorch's -int_oo / int_oo); arithmetic saturates towards them, so an
** overflow only widens a bound.  A non-integer value is enclosed by its
** integer hull [floor(min), ceil(max)].  Every rule is sound (the true set
** of values lies inside) but not always tight: s0 - s0 would give a range
** of width 2*(hi - lo), which is why sym_range works on the canonical form
** (where it is 0).
*/
#include "symbolic/sym.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic/sym_int.h"

#define NEG SYM_RANGE_NEG_INF
#define POS SYM_RANGE_POS_INF

static const SymRange full = {NEG, POS};

/* ---- the table of symbol ranges ------------------------------------------- */

void sym_ranges_init(SymRanges *r)
{
    r->n = r->cap = 0;
    r->items = NULL;
}

void sym_ranges_free(SymRanges *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->items[i].name);
    free(r->items);
    sym_ranges_init(r);
}

bool sym_ranges_set(SymRanges *r, const char *name, int64_t lo, int64_t hi)
{
    if (lo > hi)
        return false;
    for (int i = 0; i < r->n; i++) {
        if (strcmp(r->items[i].name, name) == 0) {
            r->items[i].range = (SymRange){lo, hi};
            return true;
        }
    }
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        SymRangeItem *items = realloc(r->items, (size_t)cap * sizeof *items);
        if (!items)
            return false;
        r->items = items;
        r->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return false;
    r->items[r->n].name = copy;
    r->items[r->n].range = (SymRange){lo, hi};
    r->n++;
    return true;
}

bool sym_ranges_get(const SymRanges *r, const char *name, SymRange *out)
{
    for (int i = 0; r && i < r->n; i++) {
        if (strcmp(r->items[i].name, name) == 0) {
            *out = r->items[i].range;
            return true;
        }
    }
    return false;
}

/* ---- saturating bounds ------------------------------------------------------ */

static int64_t neg_bound(int64_t x)
{
    return x == NEG ? POS : x == POS ? NEG : -x;
}

/* a + b as a lower (lower=true) or upper bound: -oo wins a lower bound,
** +oo an upper one (an oo - oo is then as wide as can be). */
static int64_t add_bound(int64_t a, int64_t b, bool lower)
{
    int64_t wide = lower ? NEG : POS, other = lower ? POS : NEG;
    if (a == wide || b == wide)
        return wide;
    if (a == other || b == other)
        return other;
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? POS : NEG;
    return r;
}

static int sign_of(int64_t x)
{
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

static int64_t mul_bound(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0; /* an unbounded side still holds finite values: 0 * x = 0 */
    int s = sign_of(a) * sign_of(b);
    int64_t r;
    if (a == NEG || a == POS || b == NEG || b == POS || __builtin_mul_overflow(a, b, &r))
        return s > 0 ? POS : NEG;
    return r;
}

static SymRange r_add(SymRange a, SymRange b)
{
    return (SymRange){add_bound(a.lo, b.lo, true), add_bound(a.hi, b.hi, false)};
}

static SymRange r_neg(SymRange a)
{
    return (SymRange){neg_bound(a.hi), neg_bound(a.lo)};
}

static SymRange r_mul(SymRange a, SymRange b)
{
    int64_t c[4] = {mul_bound(a.lo, b.lo), mul_bound(a.lo, b.hi), mul_bound(a.hi, b.lo), mul_bound(a.hi, b.hi)};
    SymRange r = {c[0], c[0]};
    for (int i = 1; i < 4; i++) {
        if (c[i] < r.lo)
            r.lo = c[i];
        if (c[i] > r.hi)
            r.hi = c[i];
    }
    return r;
}

static SymRange r_union(SymRange a, SymRange b)
{
    return (SymRange){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

/* floor(x / y) for y >= 1 as a bound; y == POS is a divisor beyond every
** number, x == +-oo an unbounded dividend. */
static int64_t fdiv_bound(int64_t x, int64_t y)
{
    if (x == POS || x == NEG)
        return x;
    if (y == POS)
        return x >= 0 ? 0 : -1;
    int64_t q = x / y;
    if ((x % y != 0) && (x < 0))
        q--;
    return q;
}

/* floor(a / b) with every b in the range at least 1: monotone in a, and in
** b one way or the other depending on a's sign. */
static SymRange fdiv_pos(SymRange a, SymRange b)
{
    int64_t lo = a.lo >= 0 ? fdiv_bound(a.lo, b.hi) : fdiv_bound(a.lo, b.lo);
    int64_t hi = a.hi >= 0 ? fdiv_bound(a.hi, b.lo) : fdiv_bound(a.hi, b.hi);
    return (SymRange){lo, hi};
}

/* floor(a / b) for b in [b.lo, b.hi]; integral says b takes only integers,
** so a range around 0 splits into its negative and positive parts. */
static SymRange r_floordiv(SymRange a, SymRange b, bool integral)
{
    bool have = false;
    SymRange r = full;
    if (!integral && b.lo < 1 && b.hi > -1)
        return full; /* a fraction near 0 makes the quotient unbounded */
    if (b.hi >= 1) {
        r = fdiv_pos(a, (SymRange){b.lo > 1 ? b.lo : 1, b.hi});
        have = true;
    }
    if (b.lo <= -1) { /* floor(a / b) = floor(-a / -b) */
        SymRange n = fdiv_pos(r_neg(a), r_neg((SymRange){b.lo, b.hi < -1 ? b.hi : -1}));
        r = have ? r_union(r, n) : n;
        have = true;
    }
    return have ? r : full; /* b is 0: undefined */
}

static SymRange r_mod(SymRange a, SymRange b, bool integral)
{
    if (b.lo >= 1) {
        if (integral && a.lo >= 0 && a.hi < b.lo) /* a mod b = a */
            return a;
        if (integral && b.lo == b.hi && b.hi != POS && a.lo != NEG && a.hi != POS &&
            fdiv_bound(a.lo, b.lo) == fdiv_bound(a.hi, b.lo)) {
            int64_t base; /* one period: a mod b = a - base */
            if (!__builtin_mul_overflow(fdiv_bound(a.lo, b.lo), b.lo, &base))
                return (SymRange){a.lo - base, a.hi - base};
        }
        SymRange r = {0, b.hi == POS ? POS : b.hi - (integral ? 1 : 0)};
        if (a.lo >= 0 && a.hi < r.hi)
            r.hi = a.hi; /* 0 <= a mod b <= a for a >= 0 */
        return r;
    }
    if (b.hi <= -1) /* a mod b = -((-a) mod -b) */
        return r_neg(r_mod(r_neg(a), r_neg(b), integral));
    return (SymRange){b.lo < 0 ? b.lo : 0, b.hi > 0 ? b.hi : 0};
}

static int64_t pow_bound(int64_t x, int64_t k)
{
    int64_t r = 1;
    for (int64_t i = 0; i < k; i++) {
        r = mul_bound(r, x);
        if (r == NEG || r == POS || r == 0 || r == 1)
            break; /* saturated or fixed */
    }
    if (r == 1 && x == -1 && k % 2 == 1)
        r = -1;
    return r;
}

/* x**k is monotone for odd k; for even k it falls then rises at 0. */
static SymRange r_pow(SymRange a, int64_t k)
{
    if (k == 0)
        return (SymRange){1, 1};
    if (k % 2 == 1 || a.lo >= 0)
        return (SymRange){pow_bound(a.lo, k), pow_bound(a.hi, k)};
    if (a.hi <= 0)
        return (SymRange){pow_bound(a.hi, k), pow_bound(a.lo, k)};
    int64_t m = neg_bound(a.lo) > a.hi ? neg_bound(a.lo) : a.hi;
    return (SymRange){0, pow_bound(m, k)};
}

static int64_t floor_double(double x)
{
    if (x != x)
        return NEG;
    if (x <= -9.2233720368547758e18)
        return NEG;
    if (x >= 9.2233720368547758e18)
        return POS;
    return (int64_t)floor(x);
}

static int64_t ceil_double(double x)
{
    if (x != x)
        return POS;
    if (x <= -9.2233720368547758e18)
        return NEG;
    if (x >= 9.2233720368547758e18)
        return POS;
    return (int64_t)ceil(x);
}

/* ---- the walk ------------------------------------------------------------------- */

static SymRange range_of(const SymExpr *e, const SymRanges *rs);

static SymRange fold(const SymExpr *e, const SymRanges *rs, SymRange (*op)(SymRange, SymRange))
{
    SymRange r = range_of(e->args[0], rs);
    for (int i = 1; i < e->n; i++)
        r = op(r, range_of(e->args[i], rs));
    return r;
}

static SymRange r_max(SymRange a, SymRange b)
{
    return (SymRange){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

static SymRange r_min(SymRange a, SymRange b)
{
    return (SymRange){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
}

static SymRange range_call(const SymExpr *e, const SymRanges *rs)
{
    SymRange a, b;
    switch (e->fn) {
    case SYM_FN_ADD: return fold(e, rs, r_add);
    case SYM_FN_MUL: {
        /* a rational coefficient: multiply by its numerator, divide by its
        ** denominator rounding outwards */
        SymRange r = {1, 1};
        int64_t den = 1;
        for (int i = 0; i < e->n; i++) {
            const SymExpr *x = e->args[i];
            if (x->kind == SYM_K_RAT) {
                r = r_mul(r, (SymRange){x->u.q.num, x->u.q.num});
                den = x->u.q.den;
            } else {
                r = r_mul(r, range_of(x, rs));
            }
        }
        if (den != 1) {
            SymRange d = {den, den};
            SymRange lo = r_floordiv(r, d, true), hi = r_neg(r_floordiv(r_neg(r), d, true));
            r = (SymRange){lo.lo, hi.hi};
        }
        return r;
    }
    case SYM_FN_POW:
    case SYM_FN_POWBYNATURAL:
        if (e->args[1]->kind == SYM_K_INT && e->args[1]->u.i >= 0)
            return r_pow(range_of(e->args[0], rs), e->args[1]->u.i);
        return full;
    case SYM_FN_FLOORDIV:
    case SYM_FN_CLEANDIV:
        return r_floordiv(range_of(e->args[0], rs), range_of(e->args[1], rs), sym_integral(e->args[1]));
    case SYM_FN_CEILDIV: /* ceil(a/b) = -floor(-a/b) */
        return r_neg(r_floordiv(r_neg(range_of(e->args[0], rs)), range_of(e->args[1], rs), sym_integral(e->args[1])));
    case SYM_FN_INTTRUEDIV:
    case SYM_FN_FLOATTRUEDIV:
        a = range_of(e->args[0], rs);
        b = range_of(e->args[1], rs);
        return (SymRange){r_floordiv(a, b, sym_integral(e->args[1])).lo,
                          r_neg(r_floordiv(r_neg(a), b, sym_integral(e->args[1]))).hi};
    case SYM_FN_MOD:
    case SYM_FN_PYTHONMOD:
        return r_mod(range_of(e->args[0], rs), range_of(e->args[1], rs),
                     sym_integral(e->args[0]) && sym_integral(e->args[1]));
    case SYM_FN_MODINDEX:
        a = r_floordiv(range_of(e->args[0], rs), range_of(e->args[1], rs), sym_integral(e->args[1]));
        return r_mod(a, range_of(e->args[2], rs), true);
    case SYM_FN_MAX: return fold(e, rs, r_max);
    case SYM_FN_MIN: return fold(e, rs, r_min);
    case SYM_FN_ABS:
        a = range_of(e->args[0], rs);
        if (a.lo >= 0)
            return a;
        if (a.hi <= 0)
            return r_neg(a);
        return (SymRange){0, neg_bound(a.lo) > a.hi ? neg_bound(a.lo) : a.hi};
    case SYM_FN_WHERE: return r_union(range_of(e->args[1], rs), range_of(e->args[2], rs));
    case SYM_FN_IDENTITY:
    case SYM_FN_FLOOR:
    case SYM_FN_CEILING:
    case SYM_FN_FLOORTOINT:
    case SYM_FN_CEILTOINT:
    case SYM_FN_TRUNCTOINT:
    case SYM_FN_ROUNDTOINT:
    case SYM_FN_TOFLOAT:
    case SYM_FN_TRUNCTOFLOAT:
        /* the integer hull of x already holds every rounding of x */
        return range_of(e->args[0], rs);
    case SYM_FN_EQ: case SYM_FN_NE: case SYM_FN_LT: case SYM_FN_LE: case SYM_FN_GT: case SYM_FN_GE:
    case SYM_FN_AND: case SYM_FN_OR: case SYM_FN_NOT: case SYM_FN_XOR:
        return (SymRange){0, 1};
    default: return full;
    }
}

static SymRange range_of(const SymExpr *e, const SymRanges *rs)
{
    SymRange r;
    switch (e->kind) {
    case SYM_K_INT: return (SymRange){e->u.i, e->u.i};
    case SYM_K_RAT: return (SymRange){symq_floor(e->u.q), symq_ceil(e->u.q)};
    case SYM_K_FLOAT: return (SymRange){floor_double(e->u.f), ceil_double(e->u.f)};
    case SYM_K_INF: return e->u.inf.sign > 0 ? (SymRange){POS, POS} : (SymRange){NEG, NEG};
    case SYM_K_BOOL: return (SymRange){e->u.b, e->u.b};
    case SYM_K_SYMBOL: return sym_ranges_get(rs, e->u.name, &r) ? r : full;
    case SYM_K_CALL: return range_call(e, rs);
    }
    return full;
}

SymRange sym_range_raw(const SymExpr *e, const SymRanges *ranges)
{
    return range_of(e, ranges);
}

SymRange sym_range(const SymExpr *e, const SymRanges *ranges)
{
    SymRange r = range_of(e, ranges);
    SymExpr *c = sym_canon(e);
    if (c) { /* both enclose every value: so does their intersection */
        SymRange rc = range_of(c, ranges);
        sym_free(c);
        if (rc.lo > r.lo)
            r.lo = rc.lo;
        if (rc.hi < r.hi)
            r.hi = rc.hi;
    }
    return r;
}
