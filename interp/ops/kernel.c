/*
** kernel.c -- the out-of-line helpers every kernel family uses: reading an
** int or float list argument, failing with the operator's name, and
** PyTorch's type promotion (result_type).  They sit below the kernels and call only into
** interp/ (errors, dtypes), so no kernel has to call up into the registry.
*/
/* the out-of-line accessors below read the argument array kernel.h hides */
#define EP_KERNEL_ACCESSORS
#include "kernel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const KernelConfig KERNEL_CONFIG_DEFAULT = {.use_blas = true};

void arg_kind_violation(const OpCall *c, int i, const char *accessor)
{
    const OpSchema *s = c->op && c->op->schema ? c->op->schema : NULL;
    const char *target = c->op ? c->op->target : "?";
    if (!s || i < 0 || i >= c->nargs || i >= s->nargs)
        fprintf(stderr, "epdbg: internal error: kernel of %s reads argument %d of %d with %s\n", target, i,
                c->nargs, accessor);
    else
        fprintf(stderr, "epdbg: internal error: kernel of %s reads argument '%s' (%s) with %s\n", target,
                s->args[i].name, schema_type_name(s->args[i].type), accessor);
    abort();
}

int arg_int_list(const OpCall *c, int i, int64_t *out, int max)
{
    arg_expect(c, i, SCHEMA_BIT(ST_INT_LIST) | SCHEMA_BIT(ST_INT), "arg_int_list");
    const Value *v = &c->arg_values[i];
    if (v->kind == V_INT) { /* a bare int where int[] was expected */
        if (max < 1)
            return -1;
        out[0] = v->i;
        return 1;
    }
    if (v->kind != V_LIST || v->list->n > max)
        return -1;
    for (int k = 0; k < v->list->n; k++) {
        const Value *e = &v->list->items[k];
        out[k] = e->kind == V_INT ? e->i : e->kind == V_BOOL ? e->b : (int64_t)e->f;
    }
    return v->list->n;
}

int arg_float_list(const OpCall *c, int i, double *out, int max)
{
    arg_expect(c, i, SCHEMA_BIT(ST_FLOAT_LIST) | SCHEMA_BIT(ST_FLOAT), "arg_float_list");
    const Value *v = &c->arg_values[i];
    if (v->kind == V_FLOAT || v->kind == V_INT) { /* a bare float where float[] was expected */
        if (max < 1)
            return -1;
        out[0] = value_as_f64(v);
        return 1;
    }
    if (v->kind != V_LIST || v->list->n > max)
        return -1;
    for (int k = 0; k < v->list->n; k++)
        out[k] = value_as_f64(&v->list->items[k]);
    return v->list->n;
}

EpStatus op_fail(OpCall *c, const char *fmt, ...)
{
    char msg[EP_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ep_fail(c->err, EP_ERR_EXEC, "%s: %s", c->op ? c->op->target : "op", msg);
}

/* ---- type promotion ------------------------------------------------------ */

static DType promote_skip_undefined(DType a, DType b)
{
    if (a == DT_INVALID)
        return b;
    if (b == DT_INVALID)
        return a;
    return dtype_promote(a, b);
}

/* c10's combine_categories: the higher tier wins unless the lower tier is of
** a higher category (float over int/bool), or the higher is just bool. */
static DType combine_categories(DType higher, DType lower)
{
    if (higher != DT_INVALID && dtype_is_float(higher))
        return higher;
    if (higher == DT_BOOL || (lower != DT_INVALID && dtype_is_float(lower)))
        return promote_skip_undefined(higher, lower);
    if (higher != DT_INVALID)
        return higher;
    return lower;
}

DType result_type(int ntensors, Tensor *const *tensors, int nscalars, const Value *scalars)
{
    DType dim_result = DT_INVALID, zero_result = DT_INVALID, wrapped_result = DT_INVALID;
    for (int i = 0; i < ntensors; i++) {
        const Tensor *t = tensors[i];
        if (!t)
            continue;
        if (t->wrapped_number) {
            DType w = t->dtype == DT_BOOL ? DT_BOOL : dtype_is_float(t->dtype) ? DT_F32 : DT_I64;
            wrapped_result = promote_skip_undefined(wrapped_result, w);
        } else if (t->ndim > 0)
            dim_result = promote_skip_undefined(dim_result, t->dtype);
        else
            zero_result = promote_skip_undefined(zero_result, t->dtype);
    }
    for (int i = 0; i < nscalars; i++) {
        const Value *v = &scalars[i];
        /* wrapped numbers: bool, int64, and the default dtype for floats */
        DType t = v->kind == V_BOOL ? DT_BOOL : v->kind == V_FLOAT ? DT_F32 : DT_I64;
        wrapped_result = promote_skip_undefined(wrapped_result, t);
    }
    DType r = combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
    return r == DT_INVALID ? DT_F32 : r;
}
