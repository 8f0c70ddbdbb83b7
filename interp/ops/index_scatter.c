/*
** index_scatter.c -- gather, scatter (src, value, reduce, value_reduce),
** scatter_add, scatter_reduce.two, their in-place forms, and
** take_along_dim on top of gather.
**
** Semantics of ATen's TensorAdvancedIndexing.cpp, ScatterGatherChecks.h and
** cpu/ScatterGatherKernel.cpp: the loop runs over the index tensor; along
** `dim` the index picks the element, elsewhere the index's own coordinate
** does (so index may be smaller than self and src).  0-d tensors count as
** 1-d of size 1.  Indices are not wrapped: negative ones are out of range.
** Where several index entries hit one element, they are applied in the
** index's row-major order (the last assignment wins, reductions combine in
** that order), as ATen's serial CPU kernel does.
*/
#include "index.h"

#include <stdlib.h>
#include <string.h>

/* ATen's ensure_nonempty_dim/size: 0-d tensors count as [1]. */
static int nonempty_dim(const Tensor *t) { return t->ndim > 0 ? t->ndim : 1; }
static int64_t nonempty_size(const Tensor *t, int d) { return t->ndim > 0 ? t->sizes[d] : 1; }

/* ---- operands of the loops along dim (index.h) ------------------------------ */

/* t in the index's shape with t's strides but none along dim, so that the
** loop can add index * stride itself. */
static Tensor *restride_for(OpCall *c, Tensor *t, const Tensor *index, int dim, bool keep_dim_stride)
{
    Tensor *ne = index_at_least_1d(t, c->err);
    if (!ne)
        return NULL;
    int64_t st[EP_MAX_DIMS];
    for (int i = 0; i < ne->ndim; i++)
        st[i] = (i == dim && !keep_dim_stride) ? 0 : ne->strides[i];
    Tensor *v = tensor_as_strided(ne, ne->ndim, index->sizes, st, ne->offset, c->err);
    tensor_unref(ne);
    return v;
}

static EpStatus report_bad(OpCall *c, const IndexAlong *s, int dim)
{
    return op_fail(c, "index %lld is out of bounds for dimension %d with size %lld", (long long)s->bad_value, dim,
                   (long long)s->size);
}

/* ---- gather ----------------------------------------------------------------- */

/* out = self.gather(dim, index): out has index's shape and self's dtype. */
static EpStatus gather_impl(OpCall *c, Tensor *self, int64_t dim_arg, Tensor *index, Tensor **result)
{
    char b1[256], b2[256];
    int dim;
    EpStatus rc = index_wrap_dim(c, dim_arg, self->ndim, &dim);
    if (rc)
        return rc;
    Tensor *out = tensor_empty(self->dtype, index->ndim, index->sizes, c->err);
    if (!out)
        return EP_ERR_EXEC;
    *result = out;
    if (tensor_numel(index) == 0)
        return EP_OK;
    if (!index_dtype_ok(index->dtype))
        return op_fail(c, "gather(): Expected dtype int32/int64 for index");
    if (nonempty_dim(self) != nonempty_dim(index))
        return op_fail(c, "Index tensor must have the same number of dimensions as input tensor");
    for (int i = 0; i < nonempty_dim(self); i++)
        if (i != dim && nonempty_size(index, i) > nonempty_size(self, i))
            return op_fail(c, "Size does not match at dimension %d expected index %s to be no larger than self %s "
                              "apart from dimension %d", i, shape_str(index->ndim, index->sizes, b1, sizeof b1),
                           shape_str(self->ndim, self->sizes, b2, sizeof b2), dim);
    Tensor *ix = index_as_i64(index, c->err);
    if (ix && nonempty_size(self, dim) == 0) { /* no view of self fits its storage */
        IndexAlong s = {.bad_value = ((const int64_t *)tensor_data(ix))[0]};
        tensor_unref(ix);
        return report_bad(c, &s, dim);
    }
    Tensor *ixn = ix ? index_at_least_1d(ix, c->err) : NULL;
    Tensor *outn = ixn ? index_at_least_1d(out, c->err) : NULL;
    Tensor *srcv = outn ? restride_for(c, self, ixn, dim, false) : NULL;
    rc = srcv ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK) {
        TensorIter it;
        Tensor *ops[3] = {outn, srcv, ixn};
        rc = iter_init(&it, ixn->ndim, ixn->sizes, 3, ops, c->err);
        if (rc == EP_OK) {
            IndexAlong s = {.es = dtype_size(self->dtype), .size = nonempty_size(self, dim)};
            s.stride_bytes = (self->ndim > 0 ? self->strides[dim] : 0) * s.es;
            index_run(&it, index_gather_loop, &s, outn);
            if (s.bad)
                rc = report_bad(c, &s, dim);
        }
    }
    tensor_unref(srcv);
    tensor_unref(outn);
    tensor_unref(ixn);
    tensor_unref(ix);
    return rc;
}

/* gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor */
EpStatus k_gather(OpCall *c)
{
    Tensor *out = NULL;
    EpStatus rc = gather_impl(c, arg_tensor(c, 0), arg_int(c, 1), arg_tensor(c, 2), &out);
    return index_out(c, rc, out);
}

/* t.view(-1): a 1-d view, which exists when t is contiguous (size-1 dims
** aside); NULL with err set otherwise, as ATen refuses. */
static Tensor *flat_view(OpCall *c, Tensor *t)
{
    if (!tensor_is_contiguous(t)) {
        op_fail(c, "view size is not compatible with input tensor's size and stride (at least one dimension "
                   "spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    int64_t n = tensor_numel(t), st = 1;
    return tensor_as_strided(t, 1, &n, &st, t->offset, c->err);
}

/* take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor:
** self and indices broadcast against each other everywhere but along dim,
** then gather; without dim both are flattened with view(-1), which ATen
** refuses for inputs that are not contiguous. */
EpStatus k_take_along_dim(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0), *ind = arg_tensor(c, 1);
    char b1[256], b2[256];
    Tensor *s = NULL, *ix = NULL, *out = NULL;
    EpStatus rc = EP_OK;
    int64_t d = 0;
    if (arg_is_none(c, 2)) {
        s = flat_view(c, self);
        ix = s ? flat_view(c, ind) : NULL;
        if (!ix)
            rc = EP_ERR_EXEC;
    } else {
        int dim;
        if (self->ndim != ind->ndim)
            return op_fail(c, "torch.take_along_dim(): input and indices should have the same number of "
                              "dimensions, but got %d dimensions for input, and %d dimensions for indices",
                           self->ndim, ind->ndim);
        if (ind->dtype != DT_I64)
            return op_fail(c, "torch.take_along_dim(): dtype of indices should be Long but got %s",
                           dtype_c10_name(ind->dtype));
        rc = index_wrap_dim(c, arg_int(c, 2), self->ndim, &dim);
        if (rc)
            return rc;
        d = dim;
        /* broadcast every dim but `dim`: self keeps its size there, indices theirs */
        int64_t ssz[EP_MAX_DIMS], isz[EP_MAX_DIMS];
        for (int i = 0; i < self->ndim; i++) {
            int64_t a = self->sizes[i], b = ind->sizes[i];
            if (i != dim && a != b && a != 1 && b != 1)
                return op_fail(c, "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                                  "non-singleton dimension %d (self %s, indices %s)", (long long)a, (long long)b, i,
                               shape_str(self->ndim, self->sizes, b1, sizeof b1),
                               shape_str(ind->ndim, ind->sizes, b2, sizeof b2));
            int64_t m = a == 1 ? b : a;
            ssz[i] = i == dim ? a : m;
            isz[i] = i == dim ? b : m;
        }
        /* broadcast views: size-1 dims get stride 0 */
        int64_t sst[EP_MAX_DIMS], ist[EP_MAX_DIMS];
        for (int i = 0; i < self->ndim; i++) {
            sst[i] = self->sizes[i] == ssz[i] ? self->strides[i] : 0;
            ist[i] = ind->sizes[i] == isz[i] ? ind->strides[i] : 0;
        }
        s = tensor_as_strided(self, self->ndim, ssz, sst, self->offset, c->err);
        ix = tensor_as_strided(ind, ind->ndim, isz, ist, ind->offset, c->err);
        if (!s || !ix)
            rc = EP_ERR_EXEC;
    }
    if (rc == EP_OK)
        rc = gather_impl(c, s, d, ix, &out);
    tensor_unref(s);
    tensor_unref(ix);
    return index_out(c, rc, out);
}

/* ---- scatter ---------------------------------------------------------------- */

typedef struct ScatterArgs {
    Tensor *index;
    Tensor *src;          /* NULL for the value overloads */
    const Value *value;   /* the Scalar of the value overloads */
    IndexReduce op;       /* IRED_ASSIGN for plain scatter */
    bool include_self;
} ScatterArgs;

static EpStatus scatter_checks(OpCall *c, const Tensor *self, int dim, const ScatterArgs *a)
{
    char b1[256], b2[256], b3[256];
    const Tensor *index = a->index, *src = a->src;
    if (tensor_numel(index) != 0 && !index_dtype_ok(index->dtype))
        return op_fail(c, "scatter(): Expected dtype int32/int64 for index");
    if (src && src->dtype != self->dtype)
        return op_fail(c, "scatter(): Expected self.dtype to be equal to src.dtype");
    if (tensor_numel(index) == 0)
        return EP_OK;
    if (nonempty_dim(self) != nonempty_dim(index))
        return op_fail(c, "Index tensor must have the same number of dimensions as self tensor");
    if (src && nonempty_dim(src) != nonempty_dim(index))
        return op_fail(c, "Index tensor must have the same number of dimensions as src tensor");
    bool wrong = false;
    for (int d = 0; d < nonempty_dim(self); d++) {
        if (d != dim && nonempty_size(index, d) > nonempty_size(self, d))
            wrong = true;
        if (src && nonempty_size(index, d) > nonempty_size(src, d))
            wrong = true;
    }
    if (wrong && src)
        return op_fail(c, "Expected index %s to be no larger than self %s apart from dimension %d and to be no "
                          "larger size than src %s", shape_str(index->ndim, index->sizes, b1, sizeof b1),
                       shape_str(self->ndim, self->sizes, b2, sizeof b2), dim,
                       shape_str(src->ndim, src->sizes, b3, sizeof b3));
    if (wrong)
        return op_fail(c, "Expected index %s to be no larger than self %s apart from dimension %d",
                       shape_str(index->ndim, index->sizes, b1, sizeof b1),
                       shape_str(self->ndim, self->sizes, b2, sizeof b2), dim);
    return EP_OK;
}

/* Scatter into out (self's copy, or self for the in-place forms) along dim. */
static EpStatus scatter_into(OpCall *c, Tensor *out, int dim, const ScatterArgs *a)
{
    if (tensor_numel(a->index) == 0)
        return EP_OK;
    if (a->op == IRED_MEAN && out->dtype == DT_BOOL)
        return op_fail(c, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
    char value[8];
    EpStatus rc = EP_OK;
    if (a->value)
        rc = index_scalar_to(c, a->value, out->dtype, value);
    if (rc)
        return rc;
    if (nonempty_size(out, dim) == 0) { /* every index is out of range */
        Tensor *ix = index_as_i64(a->index, c->err);
        if (!ix)
            return EP_ERR_EXEC;
        IndexAlong s = {.bad_value = ((const int64_t *)tensor_data(ix))[0]};
        tensor_unref(ix);
        return report_bad(c, &s, dim);
    }
    /* a mean needs every element's hit count: work on a contiguous buffer */
    Tensor *dst = (a->op == IRED_MEAN && !tensor_is_contiguous(out)) ? index_clone_contiguous(out, c->err)
                                                                     : tensor_ref(out);
    Tensor *ix = dst ? index_as_i64(a->index, c->err) : NULL;
    Tensor *ixn = ix ? index_at_least_1d(ix, c->err) : NULL;
    Tensor *dstv = ixn ? restride_for(c, dst, ixn, dim, false) : NULL;
    Tensor *srcv = NULL;
    if (dstv && a->src)
        srcv = restride_for(c, a->src, ixn, dim, true);
    int64_t *counts = NULL;
    if (!dstv || (a->src && !srcv))
        rc = EP_ERR_EXEC;
    if (rc == EP_OK && a->op == IRED_MEAN) {
        counts = calloc((size_t)(tensor_numel(dst) > 0 ? tensor_numel(dst) : 1), sizeof *counts);
        if (!counts)
            rc = op_fail(c, "out of memory");
    }
    TensorIter it;
    Tensor *ops[3] = {dstv, ixn, srcv};
    if (rc == EP_OK)
        rc = iter_init(&it, ixn->ndim, ixn->sizes, a->src ? 3 : 2, ops, c->err);
    IndexAlong s = {.es = dtype_size(out->dtype), .dtype = out->dtype, .size = nonempty_size(out, dim),
                    .value = a->value ? value : NULL};
    if (rc == EP_OK) {
        s.stride_bytes = (dst->ndim > 0 ? dst->strides[dim] : 0) * s.es;
        if (a->op != IRED_ASSIGN && !a->include_self) {
            /* slots that receive something start from the reduction's identity */
            char init[8];
            index_reduce_identity(out->dtype, a->op, init);
            IndexAlong z = s;
            z.value = init;
            index_run(&it, index_put_loop, &z, dst);
            s.bad = z.bad;
            s.bad_value = z.bad_value;
        }
        if (!s.bad) {
            s.combine = a->op == IRED_ASSIGN ? NULL : index_combine_fn(out->dtype);
            s.op = a->op;
            s.counts = counts;
            s.count_base = tensor_data(dst);
            index_run(&it, index_put_loop, &s, dst);
        }
        if (s.bad)
            rc = report_bad(c, &s, dim);
    }
    if (rc == EP_OK && counts) {
        index_divide_counts(dst, counts, a->include_self);
        if (dst != out)
            rc = tensor_copy_into(out, dst, c->err);
    }
    free(counts);
    tensor_unref(srcv);
    tensor_unref(dstv);
    tensor_unref(ixn);
    tensor_unref(ix);
    tensor_unref(dst);
    return rc;
}

/* Parse `reduce`: the legacy scatter overloads take add/multiply, and
** scatter_reduce takes sum/prod/mean/amax/amin. */
static EpStatus parse_reduce(OpCall *c, const char *s, bool new_options, IndexReduce *op)
{
    static const struct { const char *name; IndexReduce op; bool is_new; } names[] = {
        {"add", IRED_SUM, false}, {"multiply", IRED_PROD, false}, {"sum", IRED_SUM, true},
        {"prod", IRED_PROD, true}, {"mean", IRED_MEAN, true}, {"amax", IRED_AMAX, true},
        {"amin", IRED_AMIN, true},
    };
    for (size_t i = 0; s && i < EP_ARRAY_LEN(names); i++)
        if (names[i].is_new == new_options && strcmp(names[i].name, s) == 0) {
            *op = names[i].op;
            return EP_OK;
        }
    if (new_options)
        return op_fail(c, "reduce argument must be either sum, prod, mean, amax or amin, got %s", s ? s : "None");
    return op_fail(c, "reduce argument must be either add or multiply.");
}

/* How one scatter overload lays out its arguments. */
typedef struct ScatterOverload {
    bool has_src;          /* a Tensor src at 3 (else a Scalar value) */
    int reduce_arg;        /* position of `str reduce`, -1 if none */
    bool new_names;        /* scatter_reduce's sum/prod/mean/amax/amin, not add/multiply */
    int include_self_arg;  /* position of `bool include_self`, -1 if none */
    IndexReduce op;        /* the reduction when the overload fixes it */
} ScatterOverload;

static const ScatterOverload SCATTER_SRC = {true, -1, false, -1, IRED_ASSIGN};
static const ScatterOverload SCATTER_VALUE = {false, -1, false, -1, IRED_ASSIGN};
static const ScatterOverload SCATTER_REDUCE = {true, 4, false, -1, IRED_ASSIGN};
static const ScatterOverload SCATTER_VALUE_REDUCE = {false, 4, false, -1, IRED_ASSIGN};
static const ScatterOverload SCATTER_ADD = {true, -1, false, -1, IRED_SUM};
static const ScatterOverload SCATTER_REDUCE_TWO = {true, 4, true, 5, IRED_ASSIGN};

/* Shared by every scatter overload: reads the arguments as the overload
** lays them out, checks, then scatters into a contiguous copy of self or,
** for the in-place forms, into self itself. */
static EpStatus scatter_common(OpCall *c, const ScatterOverload *ov, bool inplace)
{
    Tensor *self = arg_tensor(c, 0);
    ScatterArgs a = {.index = arg_tensor(c, 2), .op = ov->op, .include_self = true};
    if (ov->has_src)
        a.src = arg_tensor(c, 3);
    else
        a.value = arg_scalar(c, 3);
    if (ov->include_self_arg >= 0)
        a.include_self = arg_bool(c, ov->include_self_arg);
    int dim;
    EpStatus rc = index_wrap_dim(c, arg_int(c, 1), self->ndim, &dim);
    if (rc == EP_OK)
        rc = scatter_checks(c, self, dim, &a);
    if (rc == EP_OK && ov->reduce_arg >= 0)
        rc = parse_reduce(c, arg_str(c, ov->reduce_arg), ov->new_names, &a.op);
    if (rc)
        return rc;
    Tensor *out = index_result_for(c, inplace, self, a.index, a.src);
    if (!out)
        return EP_ERR_EXEC;
    Tensor *src = a.src ? index_source_copy(out, a.src, c->err) : NULL;
    rc = a.src && !src ? EP_ERR_EXEC : EP_OK;
    a.src = src;
    if (rc == EP_OK)
        rc = scatter_into(c, out, dim, &a);
    tensor_unref(src);
    return index_out(c, rc, out);
}

/* The out-of-place overloads return a contiguous copy of self with the
** scatter applied; the in-place ones (k_*_) write into self and return it.
**   scatter.src(Tensor self, int dim, Tensor index, Tensor src)
**   scatter.value(Tensor self, int dim, Tensor index, Scalar value)
**   scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce)
**   scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce)
**   scatter_add(Tensor self, int dim, Tensor index, Tensor src): reduce "add"
**   scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce,
**                      *, bool include_self=True): mean divides each hit element by
**                      its number of contributions (plus one for self), flooring
**                      for integers. */
EpStatus k_scatter_src(OpCall *c) { return scatter_common(c, &SCATTER_SRC, false); }
EpStatus k_scatter_value(OpCall *c) { return scatter_common(c, &SCATTER_VALUE, false); }
EpStatus k_scatter_reduce_legacy(OpCall *c) { return scatter_common(c, &SCATTER_REDUCE, false); }
EpStatus k_scatter_value_reduce(OpCall *c) { return scatter_common(c, &SCATTER_VALUE_REDUCE, false); }
EpStatus k_scatter_add(OpCall *c) { return scatter_common(c, &SCATTER_ADD, false); }
EpStatus k_scatter_reduce_two(OpCall *c) { return scatter_common(c, &SCATTER_REDUCE_TWO, false); }
EpStatus k_scatter_src_(OpCall *c) { return scatter_common(c, &SCATTER_SRC, true); }
EpStatus k_scatter_value_(OpCall *c) { return scatter_common(c, &SCATTER_VALUE, true); }
EpStatus k_scatter_reduce_legacy_(OpCall *c) { return scatter_common(c, &SCATTER_REDUCE, true); }
EpStatus k_scatter_value_reduce_(OpCall *c) { return scatter_common(c, &SCATTER_VALUE_REDUCE, true); }
EpStatus k_scatter_add_(OpCall *c) { return scatter_common(c, &SCATTER_ADD, true); }
EpStatus k_scatter_reduce_two_(OpCall *c) { return scatter_common(c, &SCATTER_REDUCE_TWO, true); }
