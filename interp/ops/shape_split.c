/*
** shape_split.c -- operators that cut a tensor into a list of views:
** split, split_with_sizes, chunk, unbind, tensor_split, hsplit/vsplit/
** dsplit, and meshgrid (a list of expanded views).
** Semantics: aten/src/ATen/native/TensorShape.cpp.
*/
#include "shape_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void list_drop(ValueList *l)
{
    Value tmp = {.kind = V_LIST};
    tmp.list = l;
    value_clear(&tmp);
}

static EpStatus list_out(OpCall *c, ValueList *l)
{
    c->outs[0].kind = V_LIST;
    c->outs[0].list = l;
    return EP_OK;
}

/* "[1, 2, 3]" of an int list argument of any length. */
static const char *list_str(const ValueList *l, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < l->n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ", %lld" : "%lld", (long long)l->items[i].i);
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
    return buf;
}

/* Consecutive narrows of t along dim d with the given lengths, which the
** caller has checked to fit. */
static EpStatus emit_pieces(OpCall *c, Tensor *t, int d, int n, const int64_t *lengths)
{
    ValueList *l = value_list_new(n);
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        int64_t end = start + lengths[i];
        Tensor *r = shape_slice(c, t, d, &start, &end, 1);
        if (!r) {
            list_drop(l);
            return c->err->code;
        }
        l->items[i] = value_tensor(r);
        start = end;
    }
    return list_out(c, l);
}

/* Pieces between cut points (Python slice bounds, so out-of-range and
** decreasing indices give empty pieces): tensor_split.indices. */
static EpStatus emit_between(OpCall *c, Tensor *t, int d, int n, const int64_t *cuts)
{
    ValueList *l = value_list_new(n + 1);
    int64_t start = 0;
    for (int i = 0; i <= n; i++) {
        Tensor *r = shape_slice(c, t, d, &start, i < n ? &cuts[i] : NULL, 1);
        if (!r) {
            list_drop(l);
            return c->err->code;
        }
        l->items[i] = value_tensor(r);
        if (i < n)
            start = cuts[i];
    }
    return list_out(c, l);
}

/* split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0): pieces
** of split_size, the last one shorter */
EpStatus k_split(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t size = arg_int(c, 1);
    int d;
    if (t->ndim == 0)
        return op_fail(c, "split expects at least a 1-dimensional tensor");
    if (size < 0)
        return op_fail(c, "split expects split_size be non-negative, but got split_size=%lld", (long long)size);
    if (shape_wrap_dim(c, arg_int(c, 2), t->ndim, &d))
        return c->err->code;
    int64_t dim_size = t->sizes[d];
    if (size == 0 && dim_size != 0)
        return op_fail(c, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld",
                       (long long)dim_size);
    /* a split_size beyond the dim still gives one (short) piece */
    int64_t n = size == 0 ? 1 : dim_size / size + (dim_size % size != 0);
    if (n < 1)
        n = 1;
    if (n > SHAPE_MAX_PIECES)
        return op_fail(c, "too many pieces (%lld)", (long long)n);
    int64_t *len = ep_xmalloc((size_t)n * sizeof *len);
    for (int64_t i = 0; i < n; i++)
        len[i] = i < n - 1 ? size : dim_size - size * (n - 1);
    EpStatus rc = emit_pieces(c, t, d, (int)n, len);
    free(len);
    return rc;
}

/* split_with_sizes / split.sizes(Tensor(a -> *) self, SymInt[] split_sizes,
** int dim=0) */
EpStatus k_split_with_sizes(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    const ValueList *sl = arg_list(c, 1);
    char buf[512];
    int d;
    if (t->ndim == 0)
        return op_fail(c, "split expects at least a 1-dimensional tensor");
    if (shape_wrap_dim(c, arg_int(c, 2), t->ndim, &d))
        return c->err->code;
    int64_t sum = 0;
    for (int i = 0; i < sl->n; i++) {
        if (sl->items[i].i < 0)
            return op_fail(c, "split_with_sizes expects split_sizes have only non-negative entries, but got "
                           "split_sizes=%s", list_str(sl, buf, sizeof buf));
        if (!ep_add_i64(sum, sl->items[i].i, &sum))
            break;
    }
    if (sum != t->sizes[d])
        return op_fail(c, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at "
                       "dimension %d), but got split_sizes=%s", (long long)t->sizes[d], d,
                       list_str(sl, buf, sizeof buf));
    int64_t *len = ep_xmalloc((size_t)(sl->n > 0 ? sl->n : 1) * sizeof *len);
    for (int i = 0; i < sl->n; i++)
        len[i] = sl->items[i].i;
    EpStatus rc = emit_pieces(c, t, d, sl->n, len);
    free(len);
    return rc;
}

/* chunk(Tensor(a -> *) self, int chunks, int dim=0): pieces of
** ceil(size / chunks), so possibly fewer than chunks of them */
EpStatus k_chunk(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t chunks = arg_int(c, 1);
    int d;
    if (t->ndim == 0)
        return op_fail(c, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return op_fail(c, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
    if (shape_wrap_dim(c, arg_int(c, 2), t->ndim, &d))
        return c->err->code;
    int64_t dim_size = t->sizes[d];
    int64_t size = dim_size / chunks + (dim_size % chunks != 0);
    int64_t n;
    if (size == 0) /* an empty dim still gives `chunks` empty pieces */
        n = chunks;
    else
        n = dim_size / size + (dim_size % size != 0);
    if (n > SHAPE_MAX_PIECES)
        return op_fail(c, "too many pieces (%lld)", (long long)n);
    int64_t *len = ep_xmalloc((size_t)n * sizeof *len);
    for (int64_t i = 0; i < n; i++)
        len[i] = i < n - 1 ? size : dim_size - size * (n - 1);
    EpStatus rc = emit_pieces(c, t, d, (int)n, len);
    free(len);
    return rc;
}

/* unbind.int(Tensor(a -> *) self, int dim=0): every index of dim */
EpStatus k_unbind(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int d;
    if (t->ndim == 0)
        return op_fail(c, "Dimension specified as 0 but tensor has no dimensions");
    if (shape_wrap_dim(c, arg_int(c, 1), t->ndim, &d))
        return c->err->code;
    if (t->sizes[d] > SHAPE_MAX_PIECES)
        return op_fail(c, "too many pieces (%lld)", (long long)t->sizes[d]);
    int n = (int)t->sizes[d];
    ValueList *l = value_list_new(n);
    for (int i = 0; i < n; i++) {
        Tensor *r = shape_select(c, t, d, i);
        if (!r) {
            list_drop(l);
            return c->err->code;
        }
        l->items[i] = value_tensor(r);
    }
    return list_out(c, l);
}

/* tensor_split into `sections` nearly equal pieces: the first size % sections
** pieces are one longer */
static EpStatus split_sections(OpCall *c, Tensor *t, int64_t sections, int64_t dim)
{
    int d;
    if (t->ndim == 0)
        return op_fail(c, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
    if (sections <= 0)
        return op_fail(c, "number of sections must be larger than 0, got %lld", (long long)sections);
    if (sections > SHAPE_MAX_PIECES)
        return op_fail(c, "too many pieces (%lld)", (long long)sections);
    if (shape_wrap_dim(c, dim, t->ndim, &d))
        return c->err->code;
    int64_t dim_size = t->sizes[d];
    int64_t *len = ep_xmalloc((size_t)sections * sizeof *len);
    for (int64_t i = 0; i < sections; i++)
        len[i] = dim_size / sections + (i < dim_size % sections);
    EpStatus rc = emit_pieces(c, t, d, (int)sections, len);
    free(len);
    return rc;
}

static EpStatus split_indices(OpCall *c, Tensor *t, int n, const int64_t *cuts, int64_t dim)
{
    int d;
    if (t->ndim == 0)
        return op_fail(c, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
    if (shape_wrap_dim(c, dim, t->ndim, &d))
        return c->err->code;
    return emit_between(c, t, d, n, cuts);
}

/* The values of an int list argument (any length), malloc'd. */
static int64_t *list_ints(const ValueList *l)
{
    int64_t *v = ep_xmalloc((size_t)(l->n > 0 ? l->n : 1) * sizeof *v);
    for (int i = 0; i < l->n; i++)
        v[i] = l->items[i].i;
    return v;
}

/* tensor_split.sections(self, SymInt sections, int dim=0) */
EpStatus k_tensor_split_sections(OpCall *c)
{
    return split_sections(c, arg_tensor(c, 0), arg_int(c, 1), arg_int(c, 2));
}

/* tensor_split.indices(self, SymInt[] indices, int dim=0) */
EpStatus k_tensor_split_indices(OpCall *c)
{
    const ValueList *l = arg_list(c, 1);
    int64_t *cuts = list_ints(l);
    EpStatus rc = split_indices(c, arg_tensor(c, 0), l->n, cuts, arg_int(c, 2));
    free(cuts);
    return rc;
}

/* tensor_split.tensor_indices_or_sections(self, Tensor tensor_indices_or_sections,
** int dim=0): a 0-d int64 tensor is a section count, a 1-d one cut points */
EpStatus k_tensor_split_tensor(OpCall *c)
{
    const Tensor *s = arg_tensor(c, 1);
    if (s->dtype != DT_I64)
        return op_fail(c, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s",
                       dtype_name(s->dtype));
    if (s->ndim > 1)
        return op_fail(c, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                       "one-dimensional tensor, but got a tensor with %d dims", s->ndim);
    if (s->ndim == 0)
        return split_sections(c, arg_tensor(c, 0), tensor_item_i64(s), arg_int(c, 2));
    int64_t n = s->sizes[0];
    if (n > SHAPE_MAX_PIECES)
        return op_fail(c, "too many pieces (%lld)", (long long)n);
    int64_t *cuts = ep_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *cuts);
    for (int64_t i = 0; i < n; i++)
        cuts[i] = tensor_get_i64(s, i);
    EpStatus rc = split_indices(c, arg_tensor(c, 0), (int)n, cuts, arg_int(c, 2));
    free(cuts);
    return rc;
}

/* hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for vectors), 0
** and 2; the .int forms demand an even split */
EpStatus k_hvdsplit(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    OpId id = c->op->id;
    bool h = id == OP_HSPLIT_INT || id == OP_HSPLIT_ARRAY, v = id == OP_VSPLIT_INT || id == OP_VSPLIT_ARRAY;
    const char *name = h ? "hsplit" : v ? "vsplit" : "dsplit";
    int need = h ? 1 : v ? 2 : 3;
    int dim = h ? (t->ndim == 1 ? 0 : 1) : v ? 0 : 2;
    if (t->ndim < need)
        return op_fail(c, "torch.%s requires a tensor with at least %d dimension%s, but got a tensor with %d "
                       "dimensions!", name, need, need > 1 ? "s" : "", t->ndim);
    if (c->op->schema->args[1].type == ST_INT) { /* the .int overload: a number of sections */
        int64_t sections = arg_int(c, 1);
        if (sections == 0 || t->sizes[dim] % sections != 0)
            return op_fail(c, "torch.%s attempted to split along dimension %d, but the size of the dimension %lld "
                           "is not divisible by the split_size %lld!", name, dim, (long long)t->sizes[dim],
                           (long long)sections);
        return split_sections(c, t, sections, dim);
    }
    const ValueList *l = arg_list(c, 1);
    int64_t *cuts = list_ints(l);
    EpStatus rc = split_indices(c, t, l->n, cuts, dim);
    free(cuts);
    return rc;
}

/* meshgrid(Tensor[] tensors) / meshgrid.indexing(..., *, str indexing):
** each 0-d/1-d input expanded along its own axis of the grid; "xy" swaps
** the first two axes */
EpStatus k_meshgrid(OpCall *c)
{
    const ValueList *in = arg_list(c, 0);
    const char *indexing = c->op->id == OP_MESHGRID_INDEXING ? arg_str(c, 1) : "ij";
    int n = in->n;
    if (n == 0)
        return op_fail(c, "meshgrid expects a non-empty TensorList");
    if (n > EP_MAX_DIMS)
        return op_fail(c, "meshgrid of %d tensors is not supported (at most %d)", n, EP_MAX_DIMS);
    bool xy = strcmp(indexing, "xy") == 0;
    if (!xy && strcmp(indexing, "ij") != 0)
        return op_fail(c, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", indexing);
    Tensor *ts[EP_MAX_DIMS];
    int64_t shape[EP_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        ts[i] = in->items[i].t;
        if (ts[i]->ndim > 1)
            return op_fail(c, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a %d-D tensor",
                           ts[i]->ndim);
        if (ts[i]->dtype != ts[0]->dtype)
            return op_fail(c, "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype");
    }
    if (xy && n >= 2) {
        Tensor *tmp = ts[0];
        ts[0] = ts[1];
        ts[1] = tmp;
    }
    for (int i = 0; i < n; i++)
        shape[i] = tensor_numel(ts[i]);
    ValueList *l = value_list_new(n);
    for (int i = 0; i < n; i++) {
        int64_t vshape[EP_MAX_DIMS];
        for (int k = 0; k < n; k++)
            vshape[k] = k == i ? -1 : 1;
        Tensor *v = shape_view(c, ts[i], n, vshape);
        Tensor *r = v ? shape_expand(c, v, n, shape) : NULL;
        tensor_unref(v);
        if (!r) {
            list_drop(l);
            return c->err->code;
        }
        l->items[i] = value_tensor(r);
    }
    if (xy && n >= 2) {
        Value tmp = l->items[0];
        l->items[0] = l->items[1];
        l->items[1] = tmp;
    }
    return list_out(c, l);
}
