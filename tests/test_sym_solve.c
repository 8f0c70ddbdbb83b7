/*
** test_sym_solve.c -- the symbolic engine above parsing: canonical forms
** (with Python's floor semantics), interval arithmetic, deciding conditions
** over ranges, and linear solving in one symbol.
**
** Expected forms and values were worked out by hand (and checked with
** Python's // and %).  The property tests build random expressions over
** two symbols with small ranges and compare against brute-force
** evaluation (sym_eval) at every point: canonical forms keep the value,
** ranges enclose every value, and every TRUE/FALSE verdict of sym_decide
** (and of the interval-only sym_decide_intervals) agrees with it.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic/sym.h"
#include "symbolic/sym_int.h"
#include "testutil.h"

#define NEG SYM_RANGE_NEG_INF
#define POS SYM_RANGE_POS_INF

static SymExpr *parse_ok(const char *text)
{
    char err[160];
    SymExpr *e = sym_parse(text, err, sizeof err);
    ck_assert_msg(e != NULL, "'%s' does not parse: %s", text, err);
    return e;
}

/* The canonical form of text, printed. */
static char *canon_text(const char *text)
{
    SymExpr *e = parse_ok(text);
    SymExpr *c = sym_canon(e);
    ck_assert_msg(c != NULL, "no canonical form for '%s'", text);
    char *s = sym_to_string(c);
    sym_free(c);
    sym_free(e);
    return s;
}

/* ---- parsing: every form the archives use, in both SymPy spellings --------- */

/* Each str() text and its srepr() twin parse to the same canonical form,
** which is the expected one. */
static const struct {
    const char *str, *srepr, *canon;
} forms[] = {
    {"2*s0 + 1", "Add(Mul(Integer(2), Symbol('s0', integer=True, positive=True)), Integer(1))", "2*s0 + 1"},
    {"Max(2, s0)", "Max(Integer(2), Symbol('s0', integer=True, positive=True))", "Max(2, s0)"},
    {"Min(s0, s1)", "Min(Symbol('s0'), Symbol('s1'))", "Min(s0, s1)"},
    {"(s0//2)", "FloorDiv(Symbol('s0', integer=True, positive=True), Integer(2))", "(s0//2)"},
    {"CeilDiv(s0, 2)", "CeilDiv(Symbol('s0'), Integer(2))", "s0 - (s0//2)"},
    {"Mod(s0, 4)", "Mod(Symbol('s0', integer=True, positive=True), Integer(4))", "Mod(s0, 4)"},
    {"PythonMod(s0, 4)", "PythonMod(Symbol('s0'), Integer(4))", "Mod(s0, 4)"},
    {"CleanDiv(2*s0, 2)", "CleanDiv(Mul(Integer(2), Symbol('s0')), Integer(2))", "s0"},
    {"IntTrueDiv(4*s0, 2)", "IntTrueDiv(Mul(Integer(4), Symbol('s0')), Integer(2))", "2*s0"},
    {"TruncToInt(IntTrueDiv(6*s0, 3))", "TruncToInt(IntTrueDiv(Mul(Integer(6), Symbol('s0')), Integer(3)))", "2*s0"},
    {"Eq(s0, 3)", "Equality(Symbol('s0'), Integer(3))", "Eq(s0, 3)"},
    {"Ne(s0, 3)", "Unequality(Symbol('s0'), Integer(3))", "Ne(s0, 3)"},
    {"s0 < 10", "StrictLessThan(Symbol('s0'), Integer(10))", "s0 <= 9"},
    {"s0 <= 10", "LessThan(Symbol('s0'), Integer(10))", "s0 <= 10"},
    {"s0 > 2", "StrictGreaterThan(Symbol('s0'), Integer(2))", "s0 >= 3"},
    {"s0 >= 2", "GreaterThan(Symbol('s0'), Integer(2))", "s0 >= 2"},
    {"Lt(u0, 4)", "StrictLessThan(Symbol('u0', integer=True), Integer(4))", "u0 <= 3"},
    {"Le(s1, s0)", "LessThan(Symbol('s1'), Symbol('s0'))", "s0 - s1 >= 0"},
    {"Gt(s0, 1)", "StrictGreaterThan(Symbol('s0'), One())", "s0 >= 2"},
    {"Ge(s0, 0)", "GreaterThan(Symbol('s0'), Zero())", "s0 >= 0"},
    {"(s0 >= 2) & (s0 <= 8)", "And(GreaterThan(Symbol('s0'), Integer(2)), LessThan(Symbol('s0'), Integer(8)))",
     "(s0 <= 8) & (s0 >= 2)"},
    {"(u0 < 0) | (u0 > 5)", "Or(StrictLessThan(Symbol('u0'), Integer(0)), StrictGreaterThan(Symbol('u0'), Integer(5)))",
     "(u0 <= -1) | (u0 >= 6)"},
    {"~(s0 > 4)", "Not(StrictGreaterThan(Symbol('s0'), Integer(4)))", "s0 <= 4"},
    {"Ne(s0, 9223372036854775807)", "Unequality(Symbol('s0'), Integer(9223372036854775807))",
     "Ne(s0, 9223372036854775807)"},
    {"oo", "Infinity()", "oo"},
    {"-oo", "NegativeInfinity()", "-oo"},
    {"int_oo", "IntInfinity()", "int_oo"},
    {"-int_oo", "NegativeIntInfinity()", "-int_oo"},
    {"s0 < int_oo", "StrictLessThan(Symbol('s0'), IntInfinity())", "True"},
    {"u0*s0 + 1", "Add(Mul(Symbol('u0', integer=True), Symbol('s0', integer=True, positive=True)), Integer(1))",
     "s0*u0 + 1"},
    {"s0/2", "Mul(Rational(1, 2), Symbol('s0'))", "s0/2"},
};

START_TEST(test_parse_forms)
{
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char *a = canon_text(forms[i].str), *b = canon_text(forms[i].srepr);
        ck_assert_msg(strcmp(a, forms[i].canon) == 0, "'%s' -> '%s', expected '%s'", forms[i].str, a, forms[i].canon);
        ck_assert_msg(strcmp(b, forms[i].canon) == 0, "'%s' -> '%s', expected '%s'", forms[i].srepr, b,
                      forms[i].canon);
        free(a);
        free(b);
    }
}
END_TEST

/* ---- canonical forms -------------------------------------------------------- */

static const struct {
    const char *in, *canon;
} canons[] = {
    /* polynomials: commutativity, like terms, expansion */
    {"s0 + s0", "2*s0"},
    {"s1 + s0", "s0 + s1"},
    {"(s0 + 1)*(s0 - 1)", "s0**2 - 1"},
    {"(s0 + s1)**2", "s0**2 + 2*s0*s1 + s1**2"},
    {"s0*s1 - s1*s0", "0"},
    {"2*(s0 + 1) - 1", "2*s0 + 1"},
    {"s0/s0", "1"},
    {"s2 + s10 + s1", "s1 + s2 + s10"},
    /* Python floor semantics for negatives */
    {"FloorDiv(-7, 2)", "-4"},
    {"Mod(-7, 2)", "1"},
    {"FloorDiv(7, -2)", "-4"},
    {"Mod(7, -2)", "-1"},
    {"CeilDiv(-7, 2)", "-3"},
    {"(-7)//2", "-4"},
    /* always-true simplifications */
    {"Mod(2*s0, 2)", "0"},
    {"FloorDiv(4*s0 + 2, 2)", "2*s0 + 1"},
    {"FloorDiv(4*s0 + 3, 2)", "2*s0 + 1"},
    {"FloorDiv(2*s0, 4)", "(s0//2)"},
    {"FloorDiv(FloorDiv(s0, 2), 3)", "(s0//6)"},
    {"FloorDiv(s0, 1)", "s0"},
    {"Mod(s0, 1)", "0"},
    {"Mod(3*s0 + 5, 2)", "Mod(s0 + 1, 2)"},
    {"Mod(2*s0, 4)", "2*Mod(s0, 2)"},
    {"Mod(Mod(s0, 8), 4)", "Mod(s0, 4)"},
    {"Mod(s0 + 4, 4)", "Mod(s0, 4)"},
    {"Max(s0, s0)", "s0"},
    {"Max(s0, s0 + 1, 3, 5)", "Max(5, s0 + 1)"},
    {"Min(s0, s0 - 2, Min(s1, 7), 9)", "Min(7, s1, s0 - 2)"}, /* numbers, symbols, then calls */
    {"Max(s1, s0)", "Max(s0, s1)"},
    {"ModularIndexing(s0, 1, 4)", "Mod(s0, 4)"},
    {"Identity(s0 + 0)", "s0"},
    /* relations: p REL k */
    {"Eq(2*s0 + 4, 6)", "Eq(s0, 1)"},
    {"Eq(2*s0, 3)", "False"},
    {"Ne(2*s0, 3)", "True"},
    {"Eq(3 - s0, 0)", "Eq(s0, 3)"},
    {"3 - 2*s0 >= 1", "s0 <= 1"},
    {"2*s0 <= 7", "s0 <= 3"},
    {"s1 == 2*s0 + 1", "Eq(2*s0 - s1, -1)"},
    {"Eq(s0 + 1, s0 + 1)", "True"},
    {"Eq(Mod(2*s0, 2), 0)", "True"},
    {"Not(And(s0 > 2, Eq(s1, 3)))", "Ne(s1, 3) | (s0 <= 2)"},
    {"And(s0 > 2, s0 >= 3, True)", "s0 >= 3"},
    {"Or(s0 > 2, False, s0 < 0, 1 > 2)", "(s0 <= -1) | (s0 >= 3)"},
    {"Or(s0 > 2, True)", "True"},
};

START_TEST(test_canon_forms)
{
    for (size_t i = 0; i < sizeof canons / sizeof canons[0]; i++) {
        char *s = canon_text(canons[i].in);
        ck_assert_msg(strcmp(s, canons[i].canon) == 0, "'%s' -> '%s', expected '%s'", canons[i].in, s,
                      canons[i].canon);
        free(s);
    }
}
END_TEST

/* A canonical form is a fixed point, and prints text that parses back to it. */
START_TEST(test_canon_idempotent)
{
    for (size_t i = 0; i < sizeof canons / sizeof canons[0]; i++) {
        char *once = canon_text(canons[i].in);
        char *twice = canon_text(once);
        ck_assert_msg(strcmp(once, twice) == 0, "'%s': '%s' then '%s'", canons[i].in, once, twice);
        free(once);
        free(twice);
    }
}
END_TEST

START_TEST(test_equal)
{
    static const struct {
        const char *a, *b;
        bool eq;
    } cases[] = {
        {"s0 + s0", "2*s0", true},
        {"(s0 + 1)*(s0 - 1)", "s0**2 - 1", true},
        {"s0*s1", "s1*s0", true},
        {"CeilDiv(s0, 2)", "-FloorDiv(-s0, 2)", true},
        {"s0 < 5", "s0 <= 4", true},
        {"s0 > 4", "Not(s0 <= 4)", true},
        {"Max(s0, 2)", "Max(2, s0, s0)", true},
        {"Add(Symbol('s0', integer=True, positive=True), Integer(1))", "1 + s0", true},
        {"s0 + 1", "s0 + 2", false},
        {"Max(s0, 2)", "Min(s0, 2)", false},
        {"FloorDiv(s0, 2)", "s0/2", false},
        {"Mod(s0, 2)", "Mod(s0, 3)", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SymExpr *a = parse_ok(cases[i].a), *b = parse_ok(cases[i].b);
        ck_assert_msg(sym_equal(a, b) == cases[i].eq, "sym_equal('%s', '%s') != %d", cases[i].a, cases[i].b,
                      cases[i].eq);
        sym_free(a);
        sym_free(b);
    }
}
END_TEST

/* ---- ranges ------------------------------------------------------------------ */

static SymRange range_of(const char *text, const SymRanges *rs)
{
    SymExpr *e = parse_ok(text);
    SymRange r = sym_range(e, rs);
    sym_free(e);
    return r;
}

START_TEST(test_range_rules)
{
    SymRanges rs;
    sym_ranges_init(&rs);
    ck_assert(sym_ranges_set(&rs, "s0", 2, 10));
    ck_assert(sym_ranges_set(&rs, "s1", -3, 4));
    ck_assert(sym_ranges_set(&rs, "s2", 2, POS));
    ck_assert(!sym_ranges_set(&rs, "s3", 5, 4)); /* empty: refused */
    static const struct {
        const char *e;
        int64_t lo, hi;
    } cases[] = {
        {"s0 + s1", -1, 14},
        {"s0 - s1", -2, 13},
        {"s0*s1", -30, 40},
        {"-s1", -4, 3},
        {"s1**2", 0, 16},
        {"s1**3", -27, 64},
        {"(s1 - 5)**2", 1, 64},
        {"(-1)**s0", NEG, POS},
        {"s0 - s0", 0, 0},                  /* canonical form: 0 */
        {"FloorDiv(s0, 3)", 0, 3},
        {"FloorDiv(s1, 2)", -2, 2},
        {"FloorDiv(7, s1)", -7, 7},         /* divisor around 0: both signs */
        {"Mod(s0, 4)", 0, 3},
        {"Mod(s1, 16)", 0, 15},             /* crosses a multiple of 16 */
        {"Mod(s0, 16)", 2, 10},             /* one period: itself */
        {"Mod(s1, -3)", -2, 0},
        {"Mod(s2, s0)", 0, 9},
        {"Max(s0, s1)", 2, 10},
        {"Min(s0, s1)", -3, 4},
        {"CeilDiv(s0, 4)", 1, 3},
        {"s0/2", 1, 5},
        {"Abs(s1)", 0, 4},
        {"2*s2 + 1", 5, POS},
        {"-s2", NEG, -2},
        {"FloorDiv(s2, s0)", 0, POS},
        {"Mod(s2, 64)", 0, 63},
        {"s3 + 1", NEG, POS},               /* no range: any integer */
        {"s0 > 1", 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SymRange r = range_of(cases[i].e, &rs);
        ck_assert_msg(r.lo == cases[i].lo && r.hi == cases[i].hi, "range(%s) = [%" PRId64 ", %" PRId64
                      "], expected [%" PRId64 ", %" PRId64 "]", cases[i].e, r.lo, r.hi, cases[i].lo, cases[i].hi);
    }
    sym_ranges_free(&rs);
}
END_TEST

/* ---- deciding ---------------------------------------------------------------- */

START_TEST(test_decide_cases)
{
    SymRanges rs;
    sym_ranges_init(&rs);
    sym_ranges_set(&rs, "s0", 2, POS);     /* a Dim: [2, int_oo] */
    sym_ranges_set(&rs, "s1", 2, 64);
    sym_ranges_set(&rs, "h", 224, 1024);   /* #136216 */
    sym_ranges_set(&rs, "u0", 0, POS);
    static const struct {
        const char *cond;
        SymTruth want;
    } cases[] = {
        {"s0 >= 2", SYM_TRUE},
        {"s0 >= 3", SYM_UNKNOWN},
        {"Ne(s0, 1)", SYM_TRUE},
        {"Eq(s0, 1)", SYM_FALSE},
        {"Ne(s0, 9223372036854775807)", SYM_UNKNOWN},
        {"s1 <= 64", SYM_TRUE},
        {"s1 > 64", SYM_FALSE},
        {"s1 <= 63", SYM_UNKNOWN},
        {"Eq(Mod(2*s0, 2), 0)", SYM_TRUE},
        {"Eq(Mod(2*s0 + 1, 2), 0)", SYM_FALSE},
        {"Eq(FloorDiv(4*s0 + 2, 2), 2*s0 + 1)", SYM_TRUE},
        {"Mod(s1, 4) < 4", SYM_TRUE},
        {"Eq(Mod(s1, 4), 0)", SYM_UNKNOWN},
        {"Mod(s1*s1, 4) <= 1", SYM_TRUE},        /* squares are 0 or 1 mod 4: enumeration */
        {"Ne(Mod(h, 32), 0) | Eq(Mod(h, 32), 0)", SYM_TRUE},
        {"Eq(Mod(h, 32), 0)", SYM_UNKNOWN},
        {"Eq(Mod(32 - Mod(h, 32), 32), 0) | (h > 0)", SYM_TRUE},
        {"And(s1 >= 2, s0 >= 2)", SYM_TRUE},
        {"And(s1 >= 2, s0 >= 3)", SYM_UNKNOWN},
        {"Or(s1 > 100, s0 < 2)", SYM_FALSE},
        {"Not(s1 > 64)", SYM_TRUE},
        {"s0 + s1 >= 4", SYM_TRUE},
        {"Max(s0, s1) >= s1", SYM_TRUE},
        {"u0 >= 0", SYM_TRUE},
        {"u0*s1 >= 0", SYM_TRUE},
        {"s0*s0 - 1 >= 3", SYM_TRUE},
        {"Eq(s1*(s1 + 1), s1**2 + s1)", SYM_TRUE},
        {"s0 < int_oo", SYM_TRUE},
        {"True", SYM_TRUE},
        {"False", SYM_FALSE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SymExpr *e = parse_ok(cases[i].cond);
        SymTruth t = sym_decide(e, &rs);
        ck_assert_msg(t == cases[i].want, "decide(%s) = %d, expected %d", cases[i].cond, t, cases[i].want);
        sym_free(e);
    }
    sym_ranges_free(&rs);
}
END_TEST

/* ---- properties against brute force ------------------------------------------- */

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13; /* xorshift64 */
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/* Random integer-valued expression text over s0, s1. */
static void gen_num(char *buf, size_t cap, int depth)
{
    char a[400], b[400];
    unsigned k = depth <= 0 ? rnd(3) : rnd(14);
    switch (k) {
    case 0: snprintf(buf, cap, "s0"); return;
    case 1: snprintf(buf, cap, "s1"); return;
    case 2: snprintf(buf, cap, "%d", (int)rnd(9) - 3); return;
    }
    gen_num(a, sizeof a, depth - 1);
    gen_num(b, sizeof b, depth - 1);
    int c = (int)rnd(4) + 1;
    switch (k) {
    case 3: snprintf(buf, cap, "(%s) + (%s)", a, b); break;
    case 4: snprintf(buf, cap, "(%s) - (%s)", a, b); break;
    case 5: snprintf(buf, cap, "(%s)*(%s)", a, b); break;
    case 6: snprintf(buf, cap, "FloorDiv(%s, %d)", a, rnd(2) ? c : -c); break;
    case 7: snprintf(buf, cap, "Mod(%s, %d)", a, rnd(2) ? c : -c); break;
    case 8: snprintf(buf, cap, "Max(%s, %s)", a, b); break;
    case 9: snprintf(buf, cap, "Min(%s, %s)", a, b); break;
    case 10: snprintf(buf, cap, "CeilDiv(%s, %d)", a, c); break;
    case 11: snprintf(buf, cap, "(%s)**%d", a, (int)rnd(3)); break;
    case 12: snprintf(buf, cap, "FloorDiv(%s, %s)", a, b); break; /* may divide by 0 */
    default: snprintf(buf, cap, "%d*(%s) + %d", c, a, (int)rnd(7) - 3); break;
    }
}

static void gen_cond(char *buf, size_t cap, int depth)
{
    static const char *const rel[] = {"Eq", "Ne", "Lt", "Le", "Gt", "Ge"};
    char a[900], b[900];
    unsigned k = depth <= 0 ? 0 : rnd(5);
    if (k <= 1) {
        gen_num(a, sizeof a, 2);
        gen_num(b, sizeof b, 1);
        snprintf(buf, cap, "%s(%s, %s)", rel[rnd(6)], a, b);
        return;
    }
    gen_cond(a, sizeof a, depth - 1);
    gen_cond(b, sizeof b, depth - 1);
    if (k == 2)
        snprintf(buf, cap, "And(%s, %s)", a, b);
    else if (k == 3)
        snprintf(buf, cap, "Or(%s, %s)", a, b);
    else
        snprintf(buf, cap, "Not(%s)", a);
}

typedef struct Box {
    int64_t lo0, hi0, lo1, hi1;
} Box;

static Box random_box(void)
{
    Box bx;
    bx.lo0 = (int64_t)rnd(9) - 4;
    bx.hi0 = bx.lo0 + rnd(6);
    bx.lo1 = (int64_t)rnd(9) - 4;
    bx.hi1 = bx.lo1 + rnd(6);
    return bx;
}

/* Canonical forms keep every defined value, and sym_range encloses it. */
START_TEST(test_property_canon_and_range)
{
    rng_state = 0x9e3779b97f4a7c15ull;
    int checked = 0;
    for (int iter = 0; iter < 1500; iter++) {
        char text[1200];
        gen_num(text, sizeof text, 3);
        Box bx = random_box();
        SymRanges rs;
        sym_ranges_init(&rs);
        sym_ranges_set(&rs, "s0", bx.lo0, bx.hi0);
        sym_ranges_set(&rs, "s1", bx.lo1, bx.hi1);
        SymExpr *e = parse_ok(text);
        SymExpr *c = sym_canon(e);
        SymRange r = sym_range(e, &rs);
        SymBindings b;
        sym_bindings_init(&b);
        for (int64_t x = bx.lo0; x <= bx.hi0; x++) {
            for (int64_t y = bx.lo1; y <= bx.hi1; y++) {
                sym_bindings_set(&b, "s0", x);
                sym_bindings_set(&b, "s1", y);
                SymValue v, vc;
                const char *unb;
                if (sym_eval(e, &b, &v, &unb) != SYM_OK)
                    continue; /* undefined here: no claim */
                ck_assert_int_eq(v.kind, SYMV_INT);
                ck_assert_msg(r.lo <= v.i && v.i <= r.hi, "%s at s0=%" PRId64 ", s1=%" PRId64 " is %" PRId64
                              ", outside [%" PRId64 ", %" PRId64 "]", text, x, y, v.i, r.lo, r.hi);
                if (c) {
                    ck_assert_msg(sym_eval(c, &b, &vc, &unb) == SYM_OK, "canonical form of %s undefined", text);
                    ck_assert_msg(vc.kind == SYMV_INT && vc.i == v.i, "%s: %" PRId64 " but canonical %" PRId64
                                  " at s0=%" PRId64 ", s1=%" PRId64, text, v.i, vc.i, x, y);
                }
                checked++;
            }
        }
        sym_bindings_free(&b);
        sym_free(c);
        sym_free(e);
        sym_ranges_free(&rs);
    }
    ck_assert_int_gt(checked, 10000);
}
END_TEST

/* Every TRUE/FALSE verdict agrees with brute force over all points. */
START_TEST(test_property_decide)
{
    rng_state = 0x2545f4914f6cdd1dull;
    int decided = 0, decided_iv = 0;
    for (int iter = 0; iter < 2000; iter++) {
        char text[4000];
        gen_cond(text, sizeof text, 2);
        Box bx = random_box();
        SymRanges rs;
        sym_ranges_init(&rs);
        sym_ranges_set(&rs, "s0", bx.lo0, bx.hi0);
        sym_ranges_set(&rs, "s1", bx.lo1, bx.hi1);
        SymExpr *e = parse_ok(text);
        int n_true = 0, n_false = 0;
        SymBindings b;
        sym_bindings_init(&b);
        for (int64_t x = bx.lo0; x <= bx.hi0; x++) {
            for (int64_t y = bx.lo1; y <= bx.hi1; y++) {
                sym_bindings_set(&b, "s0", x);
                sym_bindings_set(&b, "s1", y);
                SymValue v;
                const char *unb;
                if (sym_eval(e, &b, &v, &unb) != SYM_OK)
                    continue;
                ck_assert_int_eq(v.kind, SYMV_BOOL);
                n_true += v.b;
                n_false += !v.b;
            }
        }
        sym_bindings_free(&b);
        SymTruth verdicts[2] = {sym_decide(e, &rs), sym_decide_intervals(e, &rs)};
        for (int k = 0; k < 2; k++) {
            if (verdicts[k] == SYM_TRUE)
                ck_assert_msg(n_false == 0, "%s decided TRUE (%s) but false at %d points", text,
                              k ? "intervals" : "full", n_false);
            if (verdicts[k] == SYM_FALSE)
                ck_assert_msg(n_true == 0, "%s decided FALSE (%s) but true at %d points", text,
                              k ? "intervals" : "full", n_true);
        }
        /* within the enumeration bound sym_decide is complete */
        if (n_true && !n_false)
            ck_assert_msg(verdicts[0] == SYM_TRUE, "%s: true everywhere, decided %d", text, verdicts[0]);
        if (n_false && !n_true)
            ck_assert_msg(verdicts[0] == SYM_FALSE, "%s: false everywhere, decided %d", text, verdicts[0]);
        decided += verdicts[0] != SYM_UNKNOWN;
        decided_iv += verdicts[1] != SYM_UNKNOWN;
        sym_free(e);
        sym_ranges_free(&rs);
    }
    fprintf(stderr, "sym_solve: decide property: %d of 2000 decided, %d by intervals alone\n", decided, decided_iv);
    ck_assert_int_gt(decided_iv, 200); /* the interval path does real work */
}
END_TEST

/* Unbounded ranges: no enumeration, so verdicts come from intervals; check
** them against brute force on a window of the range. */
START_TEST(test_property_decide_unbounded)
{
    rng_state = 0x1234567887654321ull;
    for (int iter = 0; iter < 1500; iter++) {
        char text[4000];
        gen_cond(text, sizeof text, 1);
        int64_t lo0 = (int64_t)rnd(5) - 2, lo1 = (int64_t)rnd(5);
        SymRanges rs;
        sym_ranges_init(&rs);
        sym_ranges_set(&rs, "s0", lo0, POS);
        sym_ranges_set(&rs, "s1", lo1, POS);
        SymExpr *e = parse_ok(text);
        SymTruth t = sym_decide(e, &rs);
        if (t != SYM_UNKNOWN) {
            SymBindings b;
            sym_bindings_init(&b);
            for (int64_t x = lo0; x <= lo0 + 40; x++) {
                for (int64_t y = lo1; y <= lo1 + 40; y++) {
                    sym_bindings_set(&b, "s0", x);
                    sym_bindings_set(&b, "s1", y);
                    SymValue v;
                    const char *unb;
                    if (sym_eval(e, &b, &v, &unb) != SYM_OK)
                        continue;
                    ck_assert_msg(v.b == (t == SYM_TRUE), "%s decided %d over [%" PRId64 ", oo) x [%" PRId64
                                  ", oo), but is %d at s0=%" PRId64 ", s1=%" PRId64, text, t, lo0, lo1, v.b, x, y);
                }
            }
            sym_bindings_free(&b);
        }
        sym_free(e);
        sym_ranges_free(&rs);
    }
}
END_TEST

/* ---- linear solving ---------------------------------------------------------- */

START_TEST(test_affine)
{
    static const struct {
        const char *e;
        bool ok;
        const char *sym;
        int64_t a, c;
    } cases[] = {
        {"2*s0 + 1", true, "s0", 2, 1},
        {"s0", true, "s0", 1, 0},
        {"s0 + s0 - 3", true, "s0", 2, -3},
        {"2*(s1 + 1) - 1", true, "s1", 2, 1},
        {"Add(Mul(Integer(2), Symbol('s0', integer=True, positive=True)), Integer(1))", true, "s0", 2, 1},
        {"5 - s0", true, "s0", -1, 5},
        {"7", true, NULL, 0, 7},
        {"s0 + s1", false, NULL, 0, 0},
        {"s0*s0", false, NULL, 0, 0},
        {"FloorDiv(s0, 2)", false, NULL, 0, 0},
        {"s0/2", false, NULL, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SymExpr *e = parse_ok(cases[i].e);
        const char *sym = "unset";
        int64_t a = -99, c = -99;
        bool ok = sym_affine(e, &sym, &a, &c);
        ck_assert_msg(ok == cases[i].ok, "sym_affine(%s) = %d", cases[i].e, ok);
        if (ok) {
            if (cases[i].sym)
                ck_assert_str_eq(sym, cases[i].sym);
            else
                ck_assert_ptr_null(sym);
            ck_assert_msg(a == cases[i].a && c == cases[i].c, "%s: a=%" PRId64 " c=%" PRId64, cases[i].e, a, c);
        }
        sym_free(e);
    }
}
END_TEST

START_TEST(test_solve_linear)
{
    static const struct {
        const char *e, *sym;
        int64_t target;
        SymSolve want;
        int64_t value;
    } cases[] = {
        {"2*s0 + 1", "s0", 9, SYM_SOLVE_ONE, 4},
        {"2*s0 + 1", "s0", 8, SYM_SOLVE_NONE, 0},
        {"s0 + 1", "s0", 6, SYM_SOLVE_ONE, 5},      /* x + y[1:]: y = 6 gives x = 5 */
        {"-3*s0 + 2", "s0", -7, SYM_SOLVE_ONE, 3},
        {"4*s0", "s0", -8, SYM_SOLVE_ONE, -2},
        {"4*s0", "s0", 10, SYM_SOLVE_NONE, 0},
        {"5", "s0", 5, SYM_SOLVE_ALL, 0},
        {"5", "s0", 6, SYM_SOLVE_NONE, 0},
        {"2*s1 + 1", "s0", 9, SYM_SOLVE_UNKNOWN, 0},
        {"s0 + s1", "s0", 9, SYM_SOLVE_UNKNOWN, 0},
        {"Mod(s0, 2)", "s0", 1, SYM_SOLVE_UNKNOWN, 0},
        {"s0 + 9223372036854775807", "s0", -9223372036854775807, SYM_SOLVE_UNKNOWN, 0}, /* overflow */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SymExpr *e = parse_ok(cases[i].e);
        int64_t v = -99;
        SymSolve s = sym_solve_linear(e, cases[i].sym, cases[i].target, &v);
        ck_assert_msg(s == cases[i].want, "solve(%s == %" PRId64 ") = %d", cases[i].e, cases[i].target, s);
        if (s == SYM_SOLVE_ONE)
            ck_assert_int_eq(v, cases[i].value);
        sym_free(e);
    }
}
END_TEST

Suite *suite_sym_solve(void)
{
    Suite *s = suite_create("sym_solve");
    TCase *tc = tcase_create("canon");
    tcase_add_test(tc, test_parse_forms);
    tcase_add_test(tc, test_canon_forms);
    tcase_add_test(tc, test_canon_idempotent);
    tcase_add_test(tc, test_equal);
    suite_add_tcase(s, tc);
    tc = tcase_create("ranges");
    tcase_add_test(tc, test_range_rules);
    tcase_add_test(tc, test_decide_cases);
    suite_add_tcase(s, tc);
    tc = tcase_create("properties");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_property_canon_and_range);
    tcase_add_test(tc, test_property_decide);
    tcase_add_test(tc, test_property_decide_unbounded);
    suite_add_tcase(s, tc);
    tc = tcase_create("solve");
    tcase_add_test(tc, test_affine);
    tcase_add_test(tc, test_solve_linear);
    suite_add_tcase(s, tc);
    return s;
}
