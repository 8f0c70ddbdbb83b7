/*
** match.c -- check an input's actual size against a symbolic one, learning
** symbols on the way, as torch/_export/utils.py _check_input_constraints_
** for_graph does for every dimension of every user input:
**
**   * a bare symbol seen for the first time is bound to the actual value;
**   * an expression whose one unknown symbol appears linearly (a*s + c,
**     PyTorch's try_solve of Eq(expr, actual)) is solved for it, and the
**     solution must be an integer (the symbol is integer=True, so SymPy's
**     Eq(s0, 7/2) is False and try_solve finds nothing);
**   * once everything is known the two values are compared.
**
** PyTorch skips (defers to a runtime assert) expressions with several
** free symbols; we substitute the ones already bound first, so "s0 + s1"
** after s1 is known is solved like "s0 + 3".  Anything else -- several
** unknowns, or one unknown inside Max, //, Mod, powers -- is undecidable
** here (-1), where PyTorch would defer or reject.
*/
#include "symbolic/sym.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolic/sym_int.h"

static void say(char *why, size_t cap, const char *fmt, ...)
{
    if (!why || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
}

/* Is e a linear function of name: built from name, terms without it, and
** Add/Mul (each product holding name in one factor at most)? */
static bool linear_in(const SymExpr *e, const char *name)
{
    if (!sym_mentions(e, name))
        return true;
    if (e->kind == SYM_K_SYMBOL)
        return true;
    if (e->kind != SYM_K_CALL)
        return false;
    switch (e->fn) {
    case SYM_FN_ADD:
        for (int i = 0; i < e->n; i++)
            if (!linear_in(e->args[i], name))
                return false;
        return true;
    case SYM_FN_MUL: {
        int with = 0;
        for (int i = 0; i < e->n; i++) {
            if (sym_mentions(e->args[i], name)) {
                if (++with > 1 || !linear_in(e->args[i], name))
                    return false;
            }
        }
        return true;
    }
    case SYM_FN_IDENTITY: return linear_in(e->args[0], name);
    default: return false;
    }
}

/* "s0 = 4" or "s0 = 4, s1 = 3", the values of e's bound symbols. */
static void describe_bindings(const SymExpr *e, const SymBindings *b, char *out, size_t cap, int *count)
{
    /* every symbol of e (only the buffer's end cuts the list short) */
    int n = sym_symbols(e, NULL, 0);
    const char **names = malloc((size_t)(n ? n : 1) * sizeof *names);
    out[0] = '\0';
    *count = 0;
    if (!names)
        return; /* out of memory: the message goes without the values */
    sym_symbols(e, names, n);
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (!sym_bindings_get(b, names[i], &v))
            continue;
        int w = snprintf(out + len, cap - len, "%s%s = %" PRId64, *count ? ", " : "", names[i], v);
        if (w < 0 || (size_t)w >= cap - len) {
            out[len] = '\0';
            if (len + 5 < cap) /* say that the list goes on */
                memcpy(out + len, ", ...", 6);
            break;
        }
        len += (size_t)w;
        (*count)++;
    }
    free(names);
}

/* Is the evaluated value v equal to the integer actual? */
static bool value_equals(const SymVal *v, int64_t actual)
{
    if (v->k == SYMVAL_Q)
        return v->q.den == 1 && v->q.num == actual;
    if (v->k == SYMVAL_F) /* SymPy: Float(8.0) == 8 */
        return v->f >= -9223372036854775808.0 && v->f < 9223372036854775808.0 && v->f == trunc(v->f) &&
               (int64_t)v->f == actual;
    return false;
}

static void print_value(char *out, size_t cap, const SymVal *v)
{
    if (v->k == SYMVAL_B)
        snprintf(out, cap, "%s", v->b ? "True" : "False");
    else if (v->k == SYMVAL_F)
        snprintf(out, cap, "%.17g", v->f);
    else if (v->q.den == 1)
        snprintf(out, cap, "%" PRId64, v->q.num);
    else
        snprintf(out, cap, "%" PRId64 "/%" PRId64, v->q.num, v->q.den);
}

/* Everything in e is known: compare. */
static int compare_known(const SymExpr *e, SymBindings *b, int64_t actual, const char *text, char *why, size_t cap)
{
    SymEvalCtx cx = {.b = b};
    SymVal v;
    if (sym_eval_val(e, &cx, &v) != SYM_OK) {
        say(why, cap, "%s cannot be evaluated (division by zero or overflow)", text);
        return 0;
    }
    if (value_equals(&v, actual))
        return 1;
    char got[48], known[160];
    int nknown;
    print_value(got, sizeof got, &v);
    if (v.k == SYMVAL_B) {
        say(why, cap, "%s is a condition (%s), not a size", text, got);
        return 0;
    }
    describe_bindings(e, b, known, sizeof known, &nknown);
    if (nknown == 0)
        say(why, cap, "expected %s, got %" PRId64, text, actual);
    else if (e->kind == SYM_K_SYMBOL)
        say(why, cap, "%s from an earlier input, not %" PRId64, known, actual);
    else
        say(why, cap, "%s from %s, so %s = %s, not %" PRId64, known,
            nknown == 1 ? "an earlier input" : "earlier inputs", text, got, actual);
    return 0;
}

/* e is a*u + c in the one unknown u: find a and c by evaluating at u = 0
** and u = 1, solve a*u + c == actual, and check the answer by
** substituting it back (which also catches overflow on the way). */
static int solve_linear(const SymExpr *e, SymBindings *b, const char *u, int64_t actual, const char *text,
                        char *why, size_t cap)
{
    SymEvalCtx cx0 = {.b = b, .extra_name = u, .extra_value = 0};
    SymEvalCtx cx1 = {.b = b, .extra_name = u, .extra_value = 1};
    SymVal f0, f1;
    SymStatus s0 = sym_eval_val(e, &cx0, &f0), s1 = sym_eval_val(e, &cx1, &f1);
    if (s0 != SYM_OK || s1 != SYM_OK || f0.k != SYMVAL_Q || f1.k != SYMVAL_Q) {
        say(why, cap, "cannot solve %s = %" PRId64 " for %s", text, actual, u);
        return -1;
    }
    SymQ a, rhs, sol;
    if (!symq_sub(f1.q, f0.q, &a) || !symq_sub(symq_int(actual), f0.q, &rhs)) {
        say(why, cap, "cannot solve %s = %" PRId64 " for %s (overflow)", text, actual, u);
        return -1;
    }
    if (a.num == 0) {
        /* the symbol cancels out: nothing to learn, just compare */
        if (symq_cmp(f0.q, symq_int(actual)) == 0)
            return 1;
        say(why, cap, "%s = %" PRId64 " for every %s, not %" PRId64, text, f0.q.num, u, actual);
        return 0;
    }
    if (!symq_div(rhs, a, &sol)) {
        say(why, cap, "cannot solve %s = %" PRId64 " for %s (overflow)", text, actual, u);
        return -1;
    }
    if (sol.den != 1) {
        say(why, cap, "%" PRId64 " is not of the form %s for an integer %s (%s would be %" PRId64 "/%" PRId64 ")",
            actual, text, u, u, sol.num, sol.den);
        return 0;
    }
    SymEvalCtx check = {.b = b, .extra_name = u, .extra_value = sol.num};
    SymVal v;
    if (sym_eval_val(e, &check, &v) != SYM_OK || !value_equals(&v, actual)) {
        say(why, cap, "cannot solve %s = %" PRId64 " for %s (overflow)", text, actual, u);
        return -1;
    }
    sym_bindings_set(b, u, sol.num);
    return 1;
}

/* Binds at most one symbol, and only when returning 1.  why (whycap
** bytes, may be NULL) says why for 0 and -1, and is "" for 1. */
int sym_match(const SymExpr *e, SymBindings *b, int64_t actual, char *why, size_t whycap)
{
    if (why && whycap)
        why[0] = '\0';
    if (!e || !b) {
        say(why, whycap, "no expression");
        return -1;
    }
    /* a sentence, not a dump: long expressions are cut short */
    char *text = sym_to_string(e);
    if (text && strlen(text) > 80)
        strcpy(text + 77, "...");
    const char *shown = text ? text : "the expression";
    int result;
    const char *names[4];
    const char *unknown[2] = {NULL, NULL};
    int n_unknown = 0, n = sym_symbols(e, names, 4);
    if (n > 4) {
        /* more names than we looked at: count the unknown ones the slow way */
        const char **all = malloc((size_t)n * sizeof *all);
        if (!all) {
            say(why, whycap, "out of memory");
            free(text);
            return -1;
        }
        sym_symbols(e, all, n);
        for (int i = 0; i < n; i++) {
            int64_t v;
            if (!sym_bindings_get(b, all[i], &v)) {
                if (n_unknown < 2)
                    unknown[n_unknown] = all[i];
                n_unknown++;
            }
        }
        free(all);
    } else {
        for (int i = 0; i < n; i++) {
            int64_t v;
            if (!sym_bindings_get(b, names[i], &v)) {
                if (n_unknown < 2)
                    unknown[n_unknown] = names[i];
                n_unknown++;
            }
        }
    }
    if (n_unknown == 0) {
        result = compare_known(e, b, actual, shown, why, whycap);
    } else if (n_unknown > 1) {
        say(why, whycap, "cannot decide %s = %" PRId64 ": %s and %s are both unknown", shown, actual, unknown[0],
            unknown[1]);
        result = -1;
    } else if (e->kind == SYM_K_SYMBOL) {
        sym_bindings_set(b, unknown[0], actual);
        result = 1;
    } else if (!linear_in(e, unknown[0])) {
        say(why, whycap, "cannot solve %s = %" PRId64 " for %s (not linear)", shown, actual, unknown[0]);
        result = -1;
    } else {
        result = solve_linear(e, b, unknown[0], actual, shown, why, whycap);
    }
    free(text);
    return result;
}
