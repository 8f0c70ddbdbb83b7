/*
** nn_util.c -- small helpers for the nn kernels: PyTorch's dtype names in
** messages, aliases and reshaping views, double scratch.
*/
#include "nn.h"

#include <stdio.h>
#include <string.h>

const char *nn_shape(const Tensor *t)
{
    static char bufs[4][160];
    static int next;
    char *b = bufs[next];
    next = (next + 1) % 4;
    return shape_str(t->ndim, t->sizes, b, sizeof bufs[0]);
}

Tensor *nn_alias(OpCall *c, Tensor *t)
{
    return tensor_as_strided(t, t->ndim, t->sizes, t->strides, t->offset, c->err);
}

Tensor *nn_reshape_contig(OpCall *c, Tensor *t, int ndim, const int64_t *sizes)
{
    int64_t st[EP_MAX_DIMS];
    shape_contiguous_strides(ndim, sizes, st);
    return tensor_as_strided(t, ndim, sizes, st, t->offset, c->err);
}

Tensor *nn_unsqueeze(OpCall *c, Tensor *t, int d)
{
    int64_t sz[EP_MAX_DIMS], st[EP_MAX_DIMS];
    if (t->ndim + 1 > EP_MAX_DIMS) {
        op_fail(c, "too many dimensions");
        return NULL;
    }
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sz[i] = 1;
            st[i] = j < t->ndim ? t->strides[j] * t->sizes[j] : 1;
        } else {
            sz[i] = t->sizes[j];
            st[i] = t->strides[j];
            j++;
        }
    }
    return tensor_as_strided(t, t->ndim + 1, sz, st, t->offset, c->err);
}

Tensor *nn_squeeze(OpCall *c, Tensor *t, int d)
{
    int64_t sz[EP_MAX_DIMS], st[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        sz[n] = t->sizes[i];
        st[n] = t->strides[i];
        n++;
    }
    return tensor_as_strided(t, n, sz, st, t->offset, c->err);
}

Tensor *nn_f64(OpCall *c, Tensor *t)
{
    return tensor_as_contiguous_dtype(t, DT_F64, c->err);
}

Tensor *nn_from_f64(OpCall *c, Tensor *src, DType dtype)
{
    if (!src)
        return NULL;
    if (dtype == DT_F64)
        return src;
    Tensor *r = tensor_to_dtype(src, dtype, c->err);
    tensor_unref(src);
    return r;
}

EpStatus nn_out(OpCall *c, int k, Tensor *t)
{
    if (!t)
        return c->err && c->err->code ? c->err->code : op_fail(c, "out of memory");
    out_tensor(c, k, t);
    return EP_OK;
}
