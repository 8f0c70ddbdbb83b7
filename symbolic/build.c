/*
** build.c -- public constructors for expressions (sym.h): the shape rules
** of interp/ derive sizes (s0 + 2, FloorDiv(s0, 2), Eq(s0, s1)) instead of
** parsing them.  A thin layer over the node constructors of expr.c, which
** take ownership; these copy their operands so callers keep theirs.
*/
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

SymExpr *sym_const(int64_t v)
{
    return sym_new_int(v);
}

SymExpr *sym_symbol(const char *name)
{
    if (!name || !name[0])
        return NULL;
    size_t len = 0;
    while (name[len])
        len++;
    return sym_new_symbol(name, len);
}

SymExpr *sym_true(void)
{
    return sym_new_bool(true);
}

/* The function each SymOp calls; SUB is built as a + (-1)*b by expr.c. */
static const SymFn OP_FN[] = {
    [SYM_OP_ADD] = SYM_FN_ADD, [SYM_OP_SUB] = SYM_FN_ADD, [SYM_OP_MUL] = SYM_FN_MUL,
    [SYM_OP_FLOORDIV] = SYM_FN_FLOORDIV, [SYM_OP_MOD] = SYM_FN_MOD,
    [SYM_OP_MAX] = SYM_FN_MAX, [SYM_OP_MIN] = SYM_FN_MIN,
    [SYM_OP_EQ] = SYM_FN_EQ, [SYM_OP_NE] = SYM_FN_NE, [SYM_OP_LT] = SYM_FN_LT,
    [SYM_OP_LE] = SYM_FN_LE, [SYM_OP_GT] = SYM_FN_GT, [SYM_OP_GE] = SYM_FN_GE,
    [SYM_OP_AND] = SYM_FN_AND, [SYM_OP_OR] = SYM_FN_OR,
};

SymExpr *sym_binop(SymOp op, const SymExpr *a, const SymExpr *b)
{
    if (!a || !b || (unsigned)op >= sizeof OP_FN / sizeof OP_FN[0])
        return NULL;
    SymExpr *x = sym_clone(a), *y = sym_clone(b);
    switch (op) {
    case SYM_OP_ADD:
        return sym_new_add(x, y);
    case SYM_OP_SUB:
        return sym_new_sub(x, y);
    case SYM_OP_MUL:
        return sym_new_mul(x, y);
    default:
        return sym_new_call2(OP_FN[op], x, y);
    }
}

SymExpr *sym_subst(const SymExpr *e, const char *name, const SymExpr *by)
{
    if (!e || !name || !by)
        return NULL;
    if (e->kind == SYM_K_SYMBOL)
        return strcmp(e->u.name, name) == 0 ? sym_clone(by) : sym_clone(e);
    if (e->kind != SYM_K_CALL)
        return sym_clone(e);
    SymExpr **args = malloc((size_t)(e->n ? e->n : 1) * sizeof *args);
    if (!args)
        return NULL;
    for (int i = 0; i < e->n; i++) {
        args[i] = sym_subst(e->args[i], name, by);
        if (!args[i]) {
            while (i-- > 0)
                sym_free(args[i]);
            free(args);
            return NULL;
        }
    }
    /* rebuilt through the constructor, so Add/Mul fold what the
    ** substitution made constant */
    return sym_new_call(e->fn, args, e->n);
}

bool sym_relation(const SymExpr *e, SymOp *rel, const SymExpr **lhs, const SymExpr **rhs)
{
    static const struct {
        SymFn fn;
        SymOp op;
    } REL[] = {{SYM_FN_EQ, SYM_OP_EQ}, {SYM_FN_NE, SYM_OP_NE}, {SYM_FN_LT, SYM_OP_LT},
               {SYM_FN_LE, SYM_OP_LE}, {SYM_FN_GT, SYM_OP_GT}, {SYM_FN_GE, SYM_OP_GE}};
    if (!e || e->kind != SYM_K_CALL || e->n != 2)
        return false;
    for (size_t i = 0; i < sizeof REL / sizeof REL[0]; i++)
        if (e->fn == REL[i].fn) {
            *rel = REL[i].op;
            *lhs = e->args[0];
            *rhs = e->args[1];
            return true;
        }
    return false;
}
