/*
** print.c -- expressions back to SymPy's str() form: "2*s0 + 1",
** "-s0 + s1", "s0/2", "(s0//2)", "Max(2, s0)", "s0 >= 2",
** "(s0 > 2) & (s1 < 3)".
**
** Parentheses follow SymPy's precedence levels, which agree with Python's
** operator precedence, so whatever is printed parses back (sym_parse) to
** the same tree or to one that prints identically.
*/
#include "symbolic/sym.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic/sym_int.h"

/* SymPy's printing precedence (sympy/printing/precedence.py). */
enum {
    PREC_REL = 35,
    PREC_OR = 36,
    PREC_AND = 38,
    PREC_ADD = 40,
    PREC_MUL = 50,
    PREC_POW = 60,
    PREC_NOT = 100,
    PREC_ATOM = 1000,
};

typedef struct Buf {
    char *s;
    size_t len, cap;
    bool failed; /* out of memory: the result is dropped */
    bool python; /* Python's syntax (sym_to_python), not SymPy's */
} Buf;

static void buf_put(Buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_puts(Buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

static void buf_printf(Buf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        buf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* The magnitude of an int64, which for INT64_MIN does not fit int64. */
static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Python's repr of a double: the shortest digits that read back as the
** same value, fixed notation for exponents -4..15, else "1.5e+20"; and
** always recognisable as a float ("2.0", not "2"). */
static void print_double(Buf *b, double f)
{
    if (isnan(f)) {
        buf_puts(b, "nan");
        return;
    }
    char sci[40];
    int prec;
    for (prec = 0; prec < 17; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec, f);
        if (strtod(sci, NULL) == f)
            break;
    }
    /* sci is [-]d[.ddd]e[+-]XX: split digits and exponent */
    char digits[24];
    int nd = 0, exp10 = atoi(strchr(sci, 'e') + 1);
    for (const char *p = sci; *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    digits[nd] = '\0';
    if (signbit(f))
        buf_puts(b, "-");
    if (exp10 < -4 || exp10 >= 16) {
        buf_put(b, digits, 1);
        if (nd > 1) {
            buf_puts(b, ".");
            buf_puts(b, digits + 1);
        }
        buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
        return;
    }
    if (exp10 < 0) {
        buf_puts(b, "0.");
        for (int i = -1; i > exp10; i--)
            buf_puts(b, "0");
        buf_puts(b, digits);
        return;
    }
    /* exp10 + 1 digits before the point, padded with zeros */
    for (int i = 0; i <= exp10; i++)
        buf_put(b, i < nd ? &digits[i] : "0", 1);
    buf_puts(b, ".");
    buf_puts(b, nd > exp10 + 1 ? digits + exp10 + 1 : "0");
}

static bool is_neg_exact(const SymExpr *e)
{
    SymQ q;
    return sym_exact_number(e, &q) && q.num < 0;
}

/* Pow(x, -k) with a negative exact k: printed as a denominator.  Not
** when x is a number (0**-2, or 2**-100 that overflowed folding): "/0**2"
** would read back as "/0", so those stay "0**(-2)" factors. */
static bool is_reciprocal(const SymExpr *e)
{
    SymQ q;
    return e->kind == SYM_K_CALL && e->fn == SYM_FN_POW && is_neg_exact(e->args[1]) &&
           !sym_exact_number(e->args[0], &q);
}

/* A Mul's exact coefficient (1 when it has none; expr.c stores it last)
** and how many other factors precede it. */
static SymQ mul_coefficient(const SymExpr *e, int *nf)
{
    SymQ q = symq_int(1);
    *nf = e->n;
    if (e->n > 0 && sym_exact_number(e->args[e->n - 1], &q))
        *nf = e->n - 1;
    return q;
}

static int prec_of(const SymExpr *e)
{
    int nf;
    switch (e->kind) {
    case SYM_K_INT: return e->u.i < 0 ? PREC_ADD : PREC_ATOM;
    case SYM_K_RAT: return e->u.q.num < 0 ? PREC_ADD : PREC_MUL;
    case SYM_K_FLOAT: return signbit(e->u.f) && !isnan(e->u.f) ? PREC_ADD : PREC_ATOM;
    case SYM_K_INF: return e->u.inf.sign < 0 ? PREC_ADD : PREC_ATOM;
    case SYM_K_BOOL:
    case SYM_K_SYMBOL: return PREC_ATOM;
    case SYM_K_CALL: break;
    }
    switch (e->fn) {
    case SYM_FN_ADD: return PREC_ADD;
    case SYM_FN_MUL: return mul_coefficient(e, &nf).num < 0 ? PREC_ADD : PREC_MUL;
    case SYM_FN_POW:
        if (e->args[1]->kind == SYM_K_INT && e->args[1]->u.i == -1)
            return PREC_MUL; /* "1/x" */
        return PREC_POW;
    case SYM_FN_LT:
    case SYM_FN_LE:
    case SYM_FN_GT:
    case SYM_FN_GE: return PREC_REL;
    case SYM_FN_AND: return PREC_AND;
    case SYM_FN_OR: return PREC_OR;
    case SYM_FN_NOT: return PREC_NOT;
    default: return PREC_ATOM; /* calls, and FloorDiv in its own parentheses */
    }
}

static void print_expr(Buf *b, const SymExpr *e);

/* e, in parentheses when it binds looser than level (or as loosely, when
** strict). */
static void print_paren(Buf *b, const SymExpr *e, int level, bool strict)
{
    int p = prec_of(e);
    bool paren = strict ? p <= level : p < level;
    if (paren)
        buf_puts(b, "(");
    print_expr(b, e);
    if (paren)
        buf_puts(b, ")");
}

static void print_uq(Buf *b, uint64_t num, uint64_t den)
{
    buf_printf(b, "%" PRIu64, num);
    if (den != 1)
        buf_printf(b, "/%" PRIu64, den);
}

/* x**k for the reciprocal factor x**(-k), k's magnitude shown. */
static void print_denominator_factor(Buf *b, const SymExpr *r, bool alone)
{
    SymQ k;
    sym_exact_number(r->args[1], &k);
    if (k.num == -1 && k.den == 1) {
        print_paren(b, r->args[0], PREC_MUL, alone);
        return;
    }
    print_paren(b, r->args[0], PREC_POW, true);
    buf_puts(b, "**");
    if (k.den != 1)
        buf_puts(b, "(");
    print_uq(b, magnitude(k.num), (uint64_t)k.den);
    if (k.den != 1)
        buf_puts(b, ")");
}

/* Does the denominator factor r print as something that stays one factor
** of a product when read back?  A power does ("x**2"), a sum in its
** parentheses does; a product would merge with its neighbours, and a
** reciprocal would turn back into a denominator. */
static bool groupable(const SymExpr *r)
{
    const SymExpr *base = r->args[0];
    if (!(r->args[1]->kind == SYM_K_INT && r->args[1]->u.i == -1))
        return true; /* printed as base**k */
    if (base->kind == SYM_K_CALL && base->fn == SYM_FN_ADD)
        return true;
    if (base->kind == SYM_K_CALL && base->fn == SYM_FN_POW && is_neg_exact(base->args[1]))
        return false;
    return prec_of(base) > PREC_MUL;
}

/*
** Mul as SymPy writes it: sign, numerator (coefficient first), then "/"
** and the denominator, which collects the coefficient's denominator and
** every x**(-k) factor: "-3*s0/(2*s1)".  With flip set the product is
** printed negated, which is how a sum writes its "- term".
*/
static void print_mul(Buf *b, const SymExpr *e, bool flip)
{
    int nf;
    SymQ c = mul_coefficient(e, &nf);
    bool neg = (c.num < 0) != flip;
    uint64_t cn = magnitude(c.num), cd = (uint64_t)c.den;
    int n_num = cn != 1 ? 1 : 0, n_den = cd != 1 ? 1 : 0;
    for (int i = 0; i < nf; i++) {
        if (is_reciprocal(e->args[i]))
            n_den++;
        else
            n_num++;
    }
    /* "-1.5*x" would read back with -1.5 as one float: keep the -1 */
    bool float_first = nf > 0 && (e->args[0]->kind == SYM_K_FLOAT || e->args[0]->kind == SYM_K_INF);
    if (neg)
        buf_puts(b, "-");
    /* numerator */
    bool any = false;
    if (cn != 1 || n_num == 0 || (neg && float_first)) {
        buf_printf(b, "%" PRIu64, cn);
        any = true;
    }
    for (int i = 0; i < nf; i++) {
        const SymExpr *f = e->args[i];
        if (is_reciprocal(f))
            continue;
        if (any)
            buf_puts(b, "*");
        print_paren(b, f, PREC_MUL, false);
        any = true;
    }
    if (n_den == 0)
        return;
    /* One "/(a*b)" as SymPy writes it, unless re-parsing that product
    ** would not give these factors back; then divide by each in turn
    ** ("/a/b"), which reads back exactly as written. */
    bool grouped = n_den > 1;
    for (int i = 0; i < nf && grouped; i++)
        if (is_reciprocal(e->args[i]) && !groupable(e->args[i]))
            grouped = false;
    buf_puts(b, grouped ? "/(" : "/");
    any = false;
    if (cd != 1) {
        buf_printf(b, "%" PRIu64, cd);
        any = true;
    }
    for (int i = 0; i < nf; i++) {
        const SymExpr *f = e->args[i];
        if (!is_reciprocal(f))
            continue;
        if (any)
            buf_puts(b, grouped ? "*" : "/");
        print_denominator_factor(b, f, !grouped);
        any = true;
    }
    if (grouped)
        buf_puts(b, ")");
}

/* Is this term of a sum printed as " - <magnitude>"?  Not when the
** magnitude is 2^63, which has no positive int64 literal to read back. */
static bool negative_term(const SymExpr *t)
{
    SymQ q;
    int nf;
    if (sym_exact_number(t, &q))
        return q.num < 0 && q.num != INT64_MIN;
    if (t->kind == SYM_K_FLOAT)
        return signbit(t->u.f) && !isnan(t->u.f);
    if (t->kind == SYM_K_INF)
        return t->u.inf.sign < 0;
    if (t->kind == SYM_K_CALL && t->fn == SYM_FN_MUL) {
        q = mul_coefficient(t, &nf);
        return q.num < 0 && q.num != INT64_MIN;
    }
    return false;
}

static void print_negated(Buf *b, const SymExpr *t)
{
    SymQ q;
    if (sym_exact_number(t, &q))
        print_uq(b, magnitude(q.num), (uint64_t)q.den);
    else if (t->kind == SYM_K_FLOAT)
        print_double(b, -t->u.f);
    else if (t->kind == SYM_K_INF)
        buf_puts(b, t->u.inf.is_int ? "int_oo" : "oo");
    else
        print_mul(b, t, true);
}

static void print_add(Buf *b, const SymExpr *e)
{
    for (int i = 0; i < e->n; i++) {
        const SymExpr *t = e->args[i];
        if (i == 0) {
            print_paren(b, t, PREC_ADD, false);
        } else if (negative_term(t)) {
            buf_puts(b, " - ");
            print_negated(b, t);
        } else {
            buf_puts(b, " + ");
            print_paren(b, t, PREC_ADD, false);
        }
    }
}

static void print_pow(Buf *b, const SymExpr *e)
{
    const SymExpr *base = e->args[0], *ex = e->args[1];
    if (ex->kind == SYM_K_INT && ex->u.i == -1) {
        buf_puts(b, "1/");
        print_paren(b, base, PREC_MUL, true);
        return;
    }
    print_paren(b, base, PREC_POW, true);
    buf_puts(b, "**");
    print_paren(b, ex, PREC_POW, false);
}

static void print_call_args(Buf *b, const SymExpr *e)
{
    buf_puts(b, "(");
    for (int i = 0; i < e->n; i++) {
        if (i)
            buf_puts(b, ", ");
        print_expr(b, e->args[i]);
    }
    buf_puts(b, ")");
}

static void print_infix(Buf *b, const SymExpr *e, const char *op, int level)
{
    for (int i = 0; i < e->n; i++) {
        if (i)
            buf_puts(b, op);
        print_paren(b, e->args[i], level, true);
    }
}

/* The calls whose Python spelling differs from SymPy's; false for the
** others (printed as SymPy prints them, which Python reads the same). */
static bool print_python_call(Buf *b, const SymExpr *e)
{
    switch (e->fn) {
    case SYM_FN_MOD:
    case SYM_FN_PYTHONMOD:
        buf_puts(b, "(");
        print_paren(b, e->args[0], PREC_MUL, true);
        buf_puts(b, " % ");
        print_paren(b, e->args[1], PREC_MUL, true);
        buf_puts(b, ")");
        return true;
    case SYM_FN_CEILDIV: /* -(-a // b) */
        buf_puts(b, "-(-");
        print_paren(b, e->args[0], PREC_ATOM, false);
        buf_puts(b, " // ");
        print_paren(b, e->args[1], PREC_ATOM, false);
        buf_puts(b, ")");
        return true;
    case SYM_FN_EQ: print_infix(b, e, " == ", PREC_REL); return true;
    case SYM_FN_NE: print_infix(b, e, " != ", PREC_REL); return true;
    case SYM_FN_AND: print_infix(b, e, " and ", PREC_AND); return true;
    case SYM_FN_OR: print_infix(b, e, " or ", PREC_OR); return true;
    case SYM_FN_NOT:
        buf_puts(b, "not ");
        print_paren(b, e->args[0], PREC_NOT, false);
        return true;
    case SYM_FN_MAX:
    case SYM_FN_MIN:
        buf_puts(b, e->fn == SYM_FN_MAX ? "max" : "min");
        print_call_args(b, e);
        return true;
    default:
        return false;
    }
}

static void print_call(Buf *b, const SymExpr *e)
{
    if (b->python && print_python_call(b, e))
        return;
    switch (e->fn) {
    case SYM_FN_ADD: print_add(b, e); return;
    case SYM_FN_MUL: print_mul(b, e, false); return;
    case SYM_FN_POW: print_pow(b, e); return;
    case SYM_FN_FLOORDIV:
        /* PyTorch's FloorDiv._sympystr: "(a//b)", both sides atoms */
        buf_puts(b, "(");
        print_paren(b, e->args[0], PREC_ATOM, false);
        buf_puts(b, "//");
        print_paren(b, e->args[1], PREC_ATOM, false);
        buf_puts(b, ")");
        return;
    case SYM_FN_LT: print_infix(b, e, " < ", PREC_REL); return;
    case SYM_FN_LE: print_infix(b, e, " <= ", PREC_REL); return;
    case SYM_FN_GT: print_infix(b, e, " > ", PREC_REL); return;
    case SYM_FN_GE: print_infix(b, e, " >= ", PREC_REL); return;
    case SYM_FN_AND: print_infix(b, e, " & ", PREC_AND); return;
    case SYM_FN_OR: print_infix(b, e, " | ", PREC_OR); return;
    case SYM_FN_NOT:
        buf_puts(b, "~");
        print_paren(b, e->args[0], PREC_NOT, false);
        return;
    case SYM_FN_PAIR:
        print_call_args(b, e);
        return;
    default:
        buf_puts(b, sym_fn_info[e->fn].name);
        print_call_args(b, e);
        return;
    }
}

static void print_expr(Buf *b, const SymExpr *e)
{
    switch (e->kind) {
    case SYM_K_INT: buf_printf(b, "%" PRId64, e->u.i); return;
    case SYM_K_RAT:
        if (e->u.q.num < 0)
            buf_puts(b, "-");
        print_uq(b, magnitude(e->u.q.num), (uint64_t)e->u.q.den);
        return;
    case SYM_K_FLOAT: print_double(b, e->u.f); return;
    case SYM_K_INF:
        buf_puts(b, e->u.inf.sign < 0 ? "-" : "");
        buf_puts(b, e->u.inf.is_int ? "int_oo" : "oo");
        return;
    case SYM_K_BOOL: buf_puts(b, e->u.b ? "True" : "False"); return;
    case SYM_K_SYMBOL: buf_puts(b, e->u.name); return;
    case SYM_K_CALL: print_call(b, e); return;
    }
}

/* e printed into a new string (python: Python's syntax); NULL when out of
** memory, "" for a NULL e. */
static char *print_to_string(const SymExpr *e, bool python)
{
    Buf b = {.python = python};
    if (e)
        print_expr(&b, e);
    else
        buf_puts(&b, "");
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

char *sym_to_string(const SymExpr *e)
{
    return print_to_string(e, false);
}

char *sym_to_python(const SymExpr *e)
{
    return print_to_string(e, true);
}
