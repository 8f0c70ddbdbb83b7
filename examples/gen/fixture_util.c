/*
** fixture_util.c -- see fixture_util.h.
*/
#include <stdlib.h>

#include "fixture_util.h"

void fx_input(ProgBuilder *pb, const char *name, Tensor *t, const char *const *dims)
{
    pb_input(pb, name, t, dims);
    tensor_unref(t);
}

void fx_param(ProgBuilder *pb, const char *fqn, Tensor *t)
{
    pb_param(pb, fqn, t);
    tensor_unref(t);
}

Tensor *fx_ramp_as(DType dt, int ndim, const int64_t *sizes, double first, double step)
{
    EpError err = {0};
    Tensor *t = tensor_empty(dt, ndim, sizes, &err);
    if (!t)
        abort(); /* out of memory while generating */
    int64_t n = tensor_numel(t);
    for (int64_t k = 0; k < n; k++) {
        double v = first + step * (double)k;
        if (dt == DT_I64)
            ((int64_t *)tensor_data(t))[k] = (int64_t)v;
        else
            ((float *)tensor_data(t))[k] = (float)v;
    }
    return t;
}

Tensor *fx_ramp(int ndim, const int64_t *sizes, double first, double step)
{
    return fx_ramp_as(DT_F32, ndim, sizes, first, step);
}

Tensor *fx_table(int64_t rows, int64_t cols, double a, double b)
{
    int64_t s[2] = {rows, cols};
    Tensor *t = fx_ramp(2, s, 0, 0);
    float *v = tensor_data(t);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            v[i * cols + j] = (float)(a * (double)i + b * (double)j);
    return t;
}

void fx_symv(ProgBuilder *pb, const char *name, const char *expr)
{
    pb_sym_value(pb, name, expr, false);
}

void fx_sym_size(ProgBuilder *pb, const char *name, const char *of, int dim, const char *sym)
{
    pb_node(pb, "aten.sym_size.int", name, pb_fmt("self=%%%s dim=%d", of, dim), pb_fmt("$%s", name));
    fx_symv(pb, name, sym);
}

void fx_assert_node(ProgBuilder *pb, const char *name, const char *cond, const char *expr)
{
    /* the builder's argument notation has no quote inside a string: the
    ** message is given with backquotes, turned into quotes in the built
    ** node's own copy */
    pb_node(pb, "aten._assert_scalar.default", name,
            pb_fmt("self=$%s assert_msg='Runtime assertion failed for expression %s on node `%s`'", cond, expr, cond),
            "");
    PbNode *n = &pb->nodes[pb->nnodes - 1];
    for (int i = 0; i < n->nin; i++)
        if (n->in_args[i].kind == ARG_STRING)
            for (char *c = (char *)n->in_args[i].lit.s; *c; c++)
                if (*c == '`')
                    *c = '\'';
}
