/*
** table.c -- the operator table generated from ops.def, and op_invoke, by
** which a kernel runs another operator through that table.
**
** The table names every kernel, and two kernel files (shape_forms.c,
** index_advanced.c) re-enter it through op_invoke; keeping op_invoke here
** rather than in kernel.c confines that loop to this file and those two,
** instead of drawing every kernel file into it.
*/
#include "table.h"

OpDef OP_TABLE[OP_COUNT] = {
#define OP(id, target, schema, fn, flags, rule) [OP_##id] = {OP_##id, target, schema, fn, flags, rule, NULL},
#include "ops.def"
#undef OP
};

EpStatus op_invoke(const OpCall *parent, OpId id, int nargs, const Value *args, Value *outs)
{
    const OpDef *d = &OP_TABLE[id];
    const OpSchema *s = d->schema;
    Value full[32];
    if (s->nargs > (int)EP_ARRAY_LEN(full) || nargs > s->nargs)
        return ep_fail(parent->err, EP_ERR_EXEC, "internal: bad op_invoke of %s", d->target);
    for (int i = 0; i < s->nargs; i++) {
        if (i < nargs)
            full[i] = args[i];
        else
            full[i] = s->args[i].dflt; /* borrowed from the schema */
    }
    for (int k = 0; k < s->nrets; k++)
        outs[k].kind = V_NONE;
    OpCall c = {d, full, s->nargs, outs, s->nrets, parent->err, parent->cfg};
    return d->fn(&c);
}
