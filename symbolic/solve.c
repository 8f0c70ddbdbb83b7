/*
** solve.c -- linear expressions in one symbol: recognising a*s + c (what a
** derived Dim such as 2*batch + 1 is) and solving a*s + c == target over
** the integers.  Both work on the canonical form, so 2*(s0 + 1) - 1 and
** s0 + s0 + 1 are both 2*s0 + 1.
*/
#include "symbolic/sym.h"

#include <string.h>

#include "symbolic/sym_int.h"

/* One term of a canonical sum: a number, s, or Mul(s, a) (the coefficient
** is stored last).  Accumulates into *sym / *a / *c. */
static bool affine_term(const SymExpr *t, const char **sym, int64_t *a, int64_t *c)
{
    if (t->kind == SYM_K_INT) {
        *c = t->u.i;
        return true;
    }
    const SymExpr *s = t;
    int64_t coef = 1;
    if (t->kind == SYM_K_CALL && t->fn == SYM_FN_MUL && t->n == 2 && t->args[1]->kind == SYM_K_INT) {
        s = t->args[0];
        coef = t->args[1]->u.i;
    }
    if (s->kind != SYM_K_SYMBOL || !sym_integral(s) || *sym)
        return false; /* not a symbol, a float symbol, or a second one */
    *sym = s->u.name;
    *a = coef;
    return true;
}

bool sym_affine(const SymExpr *e, const char **symbol, int64_t *a, int64_t *c)
{
    SymExpr *k = e ? sym_canon(e) : NULL;
    if (!k)
        return false;
    const char *sym = NULL;
    int64_t ca = 0, cc = 0;
    bool ok;
    if (k->kind == SYM_K_CALL && k->fn == SYM_FN_ADD) {
        ok = true;
        for (int i = 0; i < k->n && ok; i++)
            ok = affine_term(k->args[i], &sym, &ca, &cc);
    } else {
        ok = affine_term(k, &sym, &ca, &cc);
    }
    sym_free(k);
    if (!ok)
        return false;
    /* the name lives on in e, which holds the same interned string */
    *symbol = sym;
    *a = ca;
    *c = cc;
    return true;
}

SymSolve sym_solve_linear(const SymExpr *e, const char *symbol, int64_t target, int64_t *value)
{
    const char *s;
    int64_t a, c, rhs;
    if (!sym_affine(e, &s, &a, &c))
        return SYM_SOLVE_UNKNOWN;
    if (!s)
        return c == target ? SYM_SOLVE_ALL : SYM_SOLVE_NONE;
    if (!symbol || strcmp(s, symbol) != 0)
        return SYM_SOLVE_UNKNOWN; /* in another symbol */
    if (__builtin_sub_overflow(target, c, &rhs))
        return SYM_SOLVE_UNKNOWN;
    if (a == -1 && rhs == INT64_MIN)
        return SYM_SOLVE_UNKNOWN;
    if (rhs % a != 0)
        return SYM_SOLVE_NONE;
    *value = rhs / a;
    return SYM_SOLVE_ONE;
}
