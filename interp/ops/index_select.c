/*
** index_select.c -- ops that pick or update whole slices along one dim by a
** vector of indices: index_select, index_add, index_copy, index_fill,
** index_reduce (each with its in-place form), take and embedding.
**
** Semantics from ATen's TensorAdvancedIndexing.cpp, cpu/IndexKernel.cpp and
** Embedding.cpp.  Every one of them loops over the slices in index order,
** so repeated indices apply in order (index_copy: the last copy wins).
** Which indices may be negative differs per op, as in ATen: index_fill and
** take wrap them, the others refuse them.
*/
#include "index.h"
#include "elementwise.h"
#include "../parallel.h"

#include <stdlib.h>
#include <string.h>

/* t viewed in shape (nd, shape), which is t's own shape except along dim:
** no movement along dim (the loop adds index * stride itself). */
static Tensor *pin_dim(OpCall *c, Tensor *t, int nd, const int64_t *shape, int dim)
{
    int64_t st[EP_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        st[i] = i == dim ? 0 : t->strides[i];
    return tensor_as_strided(t, nd, shape, st, t->offset, c->err);
}

/* The contiguous int64 index vector idx viewed in shape (nd, shape): it
** moves along dim only. */
static Tensor *index_along(OpCall *c, Tensor *idx, int nd, const int64_t *shape, int dim)
{
    int64_t st[EP_MAX_DIMS] = {0};
    st[dim] = 1;
    return tensor_as_strided(idx, nd, shape, st, idx->offset, c->err);
}

/* ---- running the loops along dim ------------------------------------------------ */

/* Run index_put_loop for dst (>= 1-d) along dim with the index vector idx
** (int64, contiguous, n elements) and src (NULL for fill; else shaped like
** dst but with n along dim, or 0-d when dst is 1-d with one index). */
static EpStatus put_along(OpCall *c, Tensor *dst, int dim, Tensor *idx, Tensor *src, IndexAlong *ctx)
{
    int nd = dst->ndim;
    int64_t shape[EP_MAX_DIMS];
    memcpy(shape, dst->sizes, (size_t)nd * sizeof *shape);
    shape[dim] = tensor_numel(idx);
    ctx->es = dtype_size(dst->dtype);
    ctx->dtype = dst->dtype;
    ctx->size = dst->sizes[dim];
    ctx->stride_bytes = dst->strides[dim] * ctx->es;
    ctx->count_base = tensor_data(dst);
    if (shape_numel(nd, shape) == 0)
        return EP_OK;
    if (ctx->size == 0) { /* every index is out of range; no view of dst fits its storage */
        ctx->bad = true;
        ctx->bad_value = ((const int64_t *)tensor_data(idx))[0];
        return EP_OK;
    }
    Tensor *dv = pin_dim(c, dst, nd, shape, dim);
    Tensor *iv = dv ? index_along(c, idx, nd, shape, dim) : NULL;
    Tensor *sv = src && iv ? index_at_least_1d(src, c->err) : NULL;
    EpStatus rc = (iv && (!src || sv)) ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK) {
        TensorIter it;
        Tensor *ops[3] = {dv, iv, sv};
        rc = iter_init(&it, nd, shape, src ? 3 : 2, ops, c->err);
        if (rc == EP_OK)
            index_run(&it, index_put_loop, ctx, dst);
    }
    tensor_unref(sv);
    tensor_unref(iv);
    tensor_unref(dv);
    return rc;
}

/* ---- index_select -------------------------------------------------------------- */

/* The fast path of index_select for a contiguous self whose slices along
** dim are runs of at least SELECT_MIN_RUN elements (every row of an
** embedding): one memcpy per selected slice, for each index of the
** dimensions before dim, spread over the worker pool when there are many
** bytes (each slice is written once: the same bits for any thread count). */
#define SELECT_MIN_RUN 16

typedef struct SelectRows {
    char *dst;
    const char *src;
    const int64_t *ix;
    int64_t n, size;  /* indices; self's length along dim */
    size_t run;       /* bytes of one slice */
} SelectRows;

static void select_rows_chunk(void *ctx, int64_t begin, int64_t end)
{
    const SelectRows *r = ctx;
    for (int64_t k = begin; k < end; k++) { /* k = outer index * n + j */
        int64_t o = k / r->n, j = k % r->n;
        ew_copy_bytes(r->dst + (size_t)k * r->run, r->src + (size_t)(o * r->size + r->ix[j]) * r->run, r->run);
    }
}

/* Whether the fast path applies; then it ran, with *rc EP_ERR_EXEC (and
** nothing copied) when an index is out of range. */
static bool select_rows(const Tensor *self, int dim, const Tensor *idx, Tensor *out, EpStatus *rc)
{
    if (self->ndim == 0 || !tensor_is_contiguous(self))
        return false;
    int64_t inner = shape_numel(self->ndim - dim - 1, self->sizes + dim + 1);
    if (inner < SELECT_MIN_RUN)
        return false;
    SelectRows r = {tensor_data(out), tensor_data(self), tensor_data(idx), tensor_numel(idx), self->sizes[dim],
                    (size_t)inner * (size_t)dtype_size(self->dtype)};
    *rc = EP_OK;
    for (int64_t j = 0; j < r.n; j++)
        if (r.ix[j] < 0 || r.ix[j] >= r.size) {
            *rc = EP_ERR_EXEC;
            return true;
        }
    int64_t rows = shape_numel(dim, self->sizes) * r.n;
    int64_t grain = (int64_t)((256 << 10) / r.run) + 1; /* about 256 KiB per chunk */
    ep_parallel_for(rows, grain, select_rows_chunk, &r);
    return true;
}

static EpStatus index_select_impl(OpCall *c, Tensor *self, int64_t dim_arg, Tensor *index, Tensor **result)
{
    int dim;
    EpStatus rc = index_wrap_dim(c, dim_arg, self->ndim, &dim);
    if (rc)
        return rc;
    int64_t numel = tensor_numel(index);
    if (index->ndim > 1)
        return op_fail(c, "IndexError: index_select(): Index is supposed to be a vector");
    if (self->ndim == 0 && numel != 1)
        return op_fail(c, "index_select(): Index to scalar can have only 1 value, got %lld value(s)",
                       (long long)numel);
    if (!index_dtype_ok(index->dtype))
        return op_fail(c, "index_select(): Expected dtype int32 or int64 for index");
    int64_t shape[EP_MAX_DIMS];
    memcpy(shape, self->sizes, (size_t)self->ndim * sizeof *shape);
    if (self->ndim > 0)
        shape[dim] = numel;
    Tensor *out = tensor_empty(self->dtype, self->ndim, shape, c->err);
    if (!out)
        return EP_ERR_EXEC;
    *result = out;
    Tensor *idx = index_as_i64(index, c->err);
    if (!idx)
        return EP_ERR_EXEC;
    int64_t size = self->ndim > 0 ? self->sizes[dim] : 1;
    if (self->ndim > 1 && numel > 0 && tensor_numel(self) == 0) {
        /* nothing to copy, but ATen still range-checks the indices */
        const int64_t *ix = tensor_data(idx);
        if (size <= 0)
            rc = op_fail(c, "index_select(): self indexing axis dim should be positive");
        for (int64_t i = 0; i < numel && rc == EP_OK; i++)
            if (ix[i] < 0 || ix[i] >= size)
                rc = op_fail(c, "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld", (long long)ix[i],
                             (long long)size);
    } else if (tensor_numel(out) > 0 && size == 0) {
        rc = op_fail(c, "IndexError: index out of range in self");
    } else if (tensor_numel(out) > 0 && select_rows(self, dim, idx, out, &rc)) {
        if (rc)
            op_fail(c, "IndexError: index out of range in self");
    } else if (tensor_numel(out) > 0) {
        Tensor *s1 = index_at_least_1d(self, c->err), *o1 = s1 ? index_at_least_1d(out, c->err) : NULL;
        Tensor *sv = o1 ? pin_dim(c, s1, o1->ndim, o1->sizes, dim) : NULL;
        Tensor *iv = sv ? index_along(c, idx, o1->ndim, o1->sizes, dim) : NULL;
        rc = iv ? EP_OK : EP_ERR_EXEC;
        if (rc == EP_OK) {
            TensorIter it;
            Tensor *ops[3] = {o1, sv, iv};
            rc = iter_init(&it, o1->ndim, o1->sizes, 3, ops, c->err);
            IndexAlong s = {.es = dtype_size(self->dtype), .size = size,
                            .stride_bytes = s1->strides[dim] * dtype_size(self->dtype)};
            if (rc == EP_OK)
                index_run(&it, index_gather_loop, &s, o1);
            if (rc == EP_OK && s.bad)
                rc = op_fail(c, "IndexError: index out of range in self");
        }
        tensor_unref(iv);
        tensor_unref(sv);
        tensor_unref(o1);
        tensor_unref(s1);
    }
    tensor_unref(idx);
    return rc;
}

/* index_select(Tensor self, int dim, Tensor index) -> Tensor */
EpStatus k_index_select(OpCall *c)
{
    Tensor *out = NULL;
    EpStatus rc = index_select_impl(c, arg_tensor(c, 0), arg_int(c, 1), arg_tensor(c, 2), &out);
    return index_out(c, rc, out);
}

/* embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1,
** bool scale_grad_by_freq=False, bool sparse=False) -> Tensor: rows of
** weight, shaped indices.shape + [embedding_dim].  padding_idx and the two
** flags only matter to the backward pass. */
EpStatus k_embedding(OpCall *c)
{
    Tensor *w = arg_tensor(c, 0), *ind = arg_tensor(c, 1);
    if (w->ndim != 2)
        return op_fail(c, "'weight' must be 2-D");
    if (!index_dtype_ok(ind->dtype))
        return op_fail(c, "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                          "Long, Int; but got %s instead (while checking arguments for embedding)",
                       dtype_c10_name(ind->dtype));
    int64_t n = tensor_numel(ind);
    Tensor *flat = tensor_contiguous(ind, c->err);
    int64_t st = 1;
    Tensor *fv = flat ? tensor_as_strided(flat, 1, &n, &st, flat->offset, c->err) : NULL;
    tensor_unref(flat);
    if (!fv)
        return EP_ERR_EXEC;
    Tensor *rows = NULL;
    EpStatus rc = index_select_impl(c, w, 0, fv, &rows);
    tensor_unref(fv);
    if (rc) {
        tensor_unref(rows);
        return rc;
    }
    if (ind->ndim + 1 > EP_MAX_DIMS) {
        tensor_unref(rows);
        return op_fail(c, "indices have too many dims");
    }
    int64_t shape[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    memcpy(shape, ind->sizes, (size_t)ind->ndim * sizeof *shape);
    shape[ind->ndim] = w->sizes[1];
    shape_contiguous_strides(ind->ndim + 1, shape, strides);
    Tensor *r = tensor_as_strided(rows, ind->ndim + 1, shape, strides, 0, c->err);
    tensor_unref(rows);
    if (!r)
        return EP_ERR_EXEC;
    out_tensor(c, 0, r);
    return EP_OK;
}

/* ---- index_add / index_reduce -------------------------------------------------- */

/* The checks ATen's index_func_meta_impl makes for index_add and index_reduce. */
static EpStatus index_func_checks(OpCall *c, const char *func, const Tensor *self, int dim, const Tensor *index,
                                  const Tensor *source)
{
    char b1[256], b2[256];
    int64_t numel = tensor_numel(index);
    if (index->ndim > 1)
        return op_fail(c, "IndexError: %s_(): Index is supposed to be a vector, but got dim: %d with type: %s and "
                          "size: %s", func, index->ndim, dtype_c10_name(index->dtype),
                       shape_str(index->ndim, index->sizes, b1, sizeof b1));
    if (!index_dtype_ok(index->dtype))
        return op_fail(c, "%s_(): Expected dtype int32/int64 for index but got: %s", func,
                       dtype_c10_name(index->dtype));
    if (self->dtype != source->dtype)
        return op_fail(c, "%s_(): self (%s) and source (%s) must have the same scalar type", func,
                       dtype_c10_name(self->dtype), dtype_c10_name(source->dtype));
    if (!(dim == 0 || dim < source->ndim))
        return op_fail(c, "%s_(): Indexing dim %d is out of bounds of the source tensor with dim %d", func, dim,
                       source->ndim);
    int64_t ssize = source->ndim == 0 ? 1 : source->sizes[dim];
    if (numel != ssize)
        return op_fail(c, "%s_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for dim: %d",
                       func, (long long)numel, (long long)ssize, dim);
    bool same = true;
    if (source->ndim != 0 && self->ndim != 0) {
        if (source->ndim != self->ndim)
            same = false;
        for (int i = 0; same && i < self->ndim; i++)
            if (i != dim && self->sizes[i] != source->sizes[i])
                same = false;
    } else {
        same = shape_equal(self->ndim, self->sizes, source->ndim, source->sizes);
    }
    if (!same)
        return op_fail(c, "source tensor shape must match self tensor shape, excluding the specified dimension. "
                          "Got self.shape = %s source.shape = %s", shape_str(self->ndim, self->sizes, b1, sizeof b1),
                       shape_str(source->ndim, source->sizes, b2, sizeof b2));
    return EP_OK;
}

/* out (the result: self's copy or self) gets source's slices combined at
** index along dim.  A mean works on a contiguous buffer so that each
** element's hit count can be kept by position. */
static EpStatus index_func_into(OpCall *c, Tensor *out, int dim, Tensor *index, Tensor *source, IndexAlong *ctx,
                                bool include_self)
{
    int64_t numel = tensor_numel(index);
    if (out->ndim > 1 && (numel == 0 || (ctx->add_scaled && tensor_numel(out) == 0)))
        return EP_OK;
    bool mean = ctx->combine && ctx->op == IRED_MEAN;
    Tensor *dst = mean && !tensor_is_contiguous(out) ? index_clone_contiguous(out, c->err) : tensor_ref(out);
    Tensor *d1 = dst ? index_at_least_1d(dst, c->err) : NULL;
    Tensor *idx = d1 ? index_as_i64(index, c->err) : NULL;
    EpStatus rc = idx ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK && mean) {
        ctx->counts = calloc((size_t)(tensor_numel(dst) > 0 ? tensor_numel(dst) : 1), sizeof *ctx->counts);
        if (!ctx->counts)
            rc = op_fail(c, "out of memory");
    }
    if (rc == EP_OK && ctx->combine && !include_self) {
        /* the slices that receive something start from the identity */
        char init[8];
        index_reduce_identity(out->dtype, ctx->op, init);
        IndexAlong z = {.value = init, .wrap_negative = true};
        rc = put_along(c, d1, dim, idx, NULL, &z);
        if (rc == EP_OK && z.bad)
            rc = op_fail(c, "IndexError: index %lld is out of bounds for dimension %d with size %lld",
                         (long long)z.bad_value, dim, (long long)z.size);
    }
    if (rc == EP_OK)
        rc = put_along(c, d1, dim, idx, source, ctx);
    if (rc == EP_OK && ctx->bad)
        rc = op_fail(c, "IndexError: index out of range in self");
    if (rc == EP_OK && mean) {
        index_divide_counts(dst, ctx->counts, include_self);
        if (dst != out)
            rc = tensor_copy_into(out, dst, c->err);
    }
    free(ctx->counts);
    ctx->counts = NULL;
    tensor_unref(idx);
    tensor_unref(d1);
    tensor_unref(dst);
    return rc;
}

/* The end of index_add and index_reduce: the result (a contiguous copy of
** self, or self in place) gets source's slices combined as ctx says, and
** becomes output 0. */
static EpStatus index_func_run(OpCall *c, bool inplace, Tensor *self, int dim, Tensor *index, Tensor *source,
                               IndexAlong *ctx, bool include_self)
{
    Tensor *out = index_result_for(c, inplace, self, index, source);
    if (!out)
        return EP_ERR_EXEC;
    Tensor *src = index_source_copy(out, source, c->err);
    EpStatus rc = src ? index_func_into(c, out, dim, index, src, ctx, include_self) : EP_ERR_EXEC;
    tensor_unref(src);
    return index_out(c, rc, out);
}

/* index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) */
static EpStatus index_add_common(OpCall *c, bool inplace)
{
    Tensor *self = arg_tensor(c, 0), *index = arg_tensor(c, 2), *source = arg_tensor(c, 3);
    int dim;
    EpStatus rc = index_wrap_dim(c, arg_int(c, 1), self->ndim, &dim);
    if (rc == EP_OK)
        rc = index_func_checks(c, "index_add", self, dim, index, source);
    /* alpha is converted (with the overflow check) to the type the kernel
    ** computes in: ATen's path for 0-d and 1-d self uses the dtype itself
    ** and, for float16 and bfloat16, rounds the product before the sum;
    ** bigger tensors go through add, whose float16/bfloat16 math is float32. */
    bool scalar_path = self->ndim <= 1;
    IndexAlong ctx = {.add_scaled = true, .round_product = scalar_path};
    DType at = self->dtype;
    if (!scalar_path && (self->dtype == DT_F16 || self->dtype == DT_BF16))
        at = DT_F32;
    char alpha[8];
    if (rc == EP_OK)
        rc = index_scalar_to(c, arg_scalar(c, 4), at, alpha);
    if (rc)
        return rc;
    ctx.alpha_f = dtype_load_f64(at, alpha);
    ctx.alpha_i = dtype_load_i64(at, alpha);
    return index_func_run(c, inplace, self, dim, index, source, &ctx, true);
}

/* index_add returns a contiguous copy of self; index_add_ updates self. */
EpStatus k_index_add(OpCall *c) { return index_add_common(c, false); }
EpStatus k_index_add_(OpCall *c) { return index_add_common(c, true); }

/* index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce,
** *, bool include_self=True): prod, mean, amax or amin of the slices. */
static EpStatus index_reduce_common(OpCall *c, bool inplace)
{
    Tensor *self = arg_tensor(c, 0), *index = arg_tensor(c, 2), *source = arg_tensor(c, 3);
    const char *reduce = arg_str(c, 4);
    static const struct { const char *name; IndexReduce op; } names[] = {
        {"prod", IRED_PROD}, {"mean", IRED_MEAN}, {"amax", IRED_AMAX}, {"amin", IRED_AMIN},
    };
    IndexAlong ctx = {.op = IRED_ASSIGN};
    for (size_t i = 0; reduce && i < EP_ARRAY_LEN(names); i++)
        if (strcmp(reduce, names[i].name) == 0)
            ctx.op = names[i].op;
    if (ctx.op == IRED_ASSIGN)
        return op_fail(c, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.",
                       reduce ? reduce : "None");
    int dim;
    EpStatus rc = index_wrap_dim(c, arg_int(c, 1), self->ndim, &dim);
    if (rc == EP_OK)
        rc = index_func_checks(c, "index_reduce", self, dim, index, source);
    if (rc == EP_OK && self->dtype == DT_BOOL)
        rc = op_fail(c, "\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'");
    if (rc)
        return rc;
    ctx.combine = index_combine_fn(self->dtype);
    return index_func_run(c, inplace, self, dim, index, source, &ctx, arg_bool(c, 5));
}

/* index_reduce returns a contiguous copy of self; index_reduce_ updates self. */
EpStatus k_index_reduce(OpCall *c) { return index_reduce_common(c, false); }
EpStatus k_index_reduce_(OpCall *c) { return index_reduce_common(c, true); }

/* ---- index_copy ---------------------------------------------------------------- */

/* index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor */
static EpStatus index_copy_common(OpCall *c, bool inplace)
{
    Tensor *self = arg_tensor(c, 0), *index = arg_tensor(c, 2), *source = arg_tensor(c, 3);
    char b1[256], b2[256];
    int dim;
    EpStatus rc = index_wrap_dim(c, arg_int(c, 1), self->ndim, &dim);
    if (rc)
        return rc;
    int64_t n = tensor_numel(index);
    if (index->ndim >= 2)
        return op_fail(c, "IndexError: index_copy_(): Index should have dimension 1 or 0 (got %d)", index->ndim);
    if (source->ndim == 0 && n != 1)
        return op_fail(c, "IndexError: index_copy_(): When source is scalar, index should have one element (got "
                          "%lld)", (long long)n);
    if (source->ndim != self->ndim && source->ndim != 0 && self->ndim != 0)
        return op_fail(c, "IndexError: index_copy_(): When source and destination are not scalars, their "
                          "dimensionality must match. Source dimensionality (%d), destination dimensionality (%d)",
                       source->ndim, self->ndim);
    if (index->dtype != DT_I64)
        return op_fail(c, "index_copy_(): Expected a long tensor for index, but got %s", dtype_c10_name(index->dtype));
    if (self->dtype != source->dtype)
        return op_fail(c, "index_copy_(): self and source expected to have the same dtype, but got (self) %s and "
                          "(source) %s", dtype_c10_name(self->dtype), dtype_c10_name(source->dtype));
    /* slice shapes: both shapes without `dim` */
    int64_t ss[EP_MAX_DIMS], rs[EP_MAX_DIMS];
    int ns = 0, nr = 0;
    for (int i = 0; i < self->ndim; i++)
        if (i != dim)
            ss[ns++] = self->sizes[i];
    for (int i = 0; i < source->ndim; i++)
        if (i != dim)
            rs[nr++] = source->sizes[i];
    if (!shape_equal(ns, ss, nr, rs))
        return op_fail(c, "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                          "slice shape: %s at dimension %d and source slice shape: %s at dimension 0.",
                       shape_str(ns, ss, b1, sizeof b1), dim, shape_str(nr, rs, b2, sizeof b2));
    if (source->ndim != 0 && n != source->sizes[dim])
        return op_fail(c, "IndexError: index_copy_(): Number of indices (%lld) should be equal to source.size(dim) "
                          "(%lld)", (long long)n, (long long)source->sizes[dim]);
    Tensor *out = index_result_for(c, inplace, self, index, source);
    if (!out)
        return EP_ERR_EXEC;
    Tensor *src = index_source_copy(out, source, c->err);
    Tensor *o1 = src ? index_at_least_1d(out, c->err) : NULL;
    Tensor *idx = o1 ? index_as_i64(index, c->err) : NULL;
    IndexAlong ctx = {0};
    rc = idx ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK)
        rc = put_along(c, o1, dim, idx, src, &ctx);
    if (rc == EP_OK && ctx.bad)
        rc = op_fail(c, "IndexError: index_copy_(): index %lld is out of bounds for dimension %d with size %lld",
                     (long long)ctx.bad_value, dim, (long long)ctx.size);
    tensor_unref(idx);
    tensor_unref(o1);
    tensor_unref(src);
    return index_out(c, rc, out);
}

/* index_copy returns a contiguous copy of self; index_copy_ updates self. */
EpStatus k_index_copy(OpCall *c) { return index_copy_common(c, false); }
EpStatus k_index_copy_(OpCall *c) { return index_copy_common(c, true); }

/* ---- index_fill ---------------------------------------------------------------- */

/* index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) and
** .int_Tensor (a 0-d value tensor, read with item()).  The out-of-place
** forms fill clone(self, memory_format=preserve).  Negative indices wrap. */
static EpStatus index_fill_common(OpCall *c, bool inplace, bool tensor_value)
{
    Tensor *self = arg_tensor(c, 0), *index = arg_tensor(c, 2);
    Value v;
    if (tensor_value) {
        const Tensor *vt = arg_tensor(c, 3);
        if (vt->ndim != 0)
            return op_fail(c, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                              "dimension(s).", vt->ndim);
        v = index_item(vt);
    } else
        v = *arg_scalar(c, 3);
    if (index->dtype != DT_I64)
        return op_fail(c, "IndexError: index_fill_(): Expected dtype int64 for index.");
    Tensor *out;
    if (inplace) {
        EpStatus rc = index_check_no_overlap(c, self, index);
        if (rc == EP_OK)
            rc = tensor_make_writable(self, c->err);
        if (rc)
            return rc;
        out = tensor_ref(self);
    } else {
        out = index_clone_preserve(self, c->err);
        if (!out)
            return EP_ERR_EXEC;
    }
    Tensor *o1 = index_at_least_1d(out, c->err);
    Tensor *idx = o1 ? index_as_i64(index, c->err) : NULL;
    int dim = 0;
    char elem[8];
    EpStatus rc = idx ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK)
        rc = index_wrap_dim(c, arg_int(c, 1), o1->ndim, &dim);
    if (rc == EP_OK && index->ndim > 1)
        rc = op_fail(c, "Index has to be a vector/scalar");
    if (rc == EP_OK)
        rc = index_scalar_to(c, &v, self->dtype, elem);
    IndexAlong ctx = {.value = elem, .wrap_negative = true};
    if (rc == EP_OK && tensor_numel(idx) > 0) {
        rc = put_along(c, o1, dim, idx, NULL, &ctx);
        if (rc == EP_OK && ctx.bad)
            rc = op_fail(c, "IndexError: index %lld is out of bounds for dimension %d with size %lld",
                         (long long)ctx.bad_value, dim, (long long)ctx.size);
    }
    tensor_unref(idx);
    tensor_unref(o1);
    return index_out(c, rc, out);
}

/* index_fill.int_Scalar / .int_Tensor and their in-place forms. */
EpStatus k_index_fill_scalar(OpCall *c) { return index_fill_common(c, false, false); }
EpStatus k_index_fill_tensor(OpCall *c) { return index_fill_common(c, false, true); }
EpStatus k_index_fill_scalar_(OpCall *c) { return index_fill_common(c, true, false); }
EpStatus k_index_fill_tensor_(OpCall *c) { return index_fill_common(c, true, true); }

/* ---- take ------------------------------------------------------------------------ */

/* Flat index *k into a tensor of n elements, negative ones counting from
** the end; take's and put's IndexError when it lies outside [-n, n). */
static EpStatus wrap_flat(OpCall *c, int64_t *k, int64_t n)
{
    if (*k < -n || *k >= n)
        return op_fail(c, "IndexError: out of range: tried to access index %lld on a tensor of %lld elements.",
                       (long long)*k, (long long)n);
    if (*k < 0)
        *k += n;
    return EP_OK;
}

/* take(Tensor self, Tensor index) -> Tensor: self as if flattened in
** row-major order, indexed by a long tensor (negative indices wrap); the
** result has index's shape. */
EpStatus k_take(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0), *index = arg_tensor(c, 1);
    if (index->dtype != DT_I64)
        return op_fail(c, "take(): Expected a long tensor for index, but got %s", dtype_c10_name(index->dtype));
    int64_t n = tensor_numel(self), ni = tensor_numel(index);
    if (n == 0 && ni != 0)
        return op_fail(c, "IndexError: take(): tried to take from an empty tensor");
    Tensor *out = tensor_empty(self->dtype, index->ndim, index->sizes, c->err);
    if (!out)
        return EP_ERR_EXEC;
    Tensor *src = ni > 0 ? tensor_contiguous(self, c->err) : NULL;
    Tensor *idx = src ? index_as_i64(index, c->err) : NULL;
    EpStatus rc = (ni == 0 || idx) ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK && ni > 0) {
        const int64_t *ix = tensor_data(idx);
        const char *s = tensor_data(src);
        char *o = tensor_data(out);
        int es = dtype_size(self->dtype);
        for (int64_t i = 0; i < ni && rc == EP_OK; i++) {
            int64_t k = ix[i];
            rc = wrap_flat(c, &k, n);
            if (rc == EP_OK)
                index_copy_elem(o + i * es, s + k * es, es);
        }
    }
    tensor_unref(idx);
    tensor_unref(src);
    return index_out(c, rc, out);
}

/* ---- put -------------------------------------------------------------------------- */

/* Address of the element at row-major position k of t. */
static char *flat_elem(Tensor *t, int64_t k)
{
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (k % t->sizes[d]) * t->strides[d];
        k /= t->sizes[d];
    }
    return (char *)tensor_data(t) + off * dtype_size(t->dtype);
}

/* self (as if flattened in row-major order) at index = source's elements,
** or += with accumulate; negative indices wrap.  Writes into dst. */
static EpStatus put_into(OpCall *c, Tensor *dst, Tensor *index, Tensor *source, bool accumulate)
{
    if (index->dtype != DT_I64)
        return op_fail(c, "put_(): Expected a long tensor for index, but got %s", dtype_c10_name(index->dtype));
    if (dst->dtype != source->dtype)
        return op_fail(c, "put_(): self and source expected to have the same dtype, but got self.dtype = %s and "
                          "source.dtype = %s", dtype_c10_name(dst->dtype), dtype_c10_name(source->dtype));
    int64_t n = tensor_numel(dst), ni = tensor_numel(index);
    if (tensor_numel(source) != ni)
        return op_fail(c, "IndexError: put_(): Expected source and index to have the same number of elements, but "
                          "got source.numel() = %lld, index.numel() = %lld", (long long)tensor_numel(source),
                       (long long)ni);
    if (n == 0 && ni != 0)
        return op_fail(c, "IndexError: put_(): Tried to put elements into an empty tensor");
    if (ni == 0)
        return EP_OK;
    Tensor *idx = index_as_i64(index, c->err);
    Tensor *src = idx ? index_clone_contiguous(source, c->err) : NULL;
    EpStatus rc = src ? EP_OK : EP_ERR_EXEC;
    if (rc == EP_OK) {
        const int64_t *ix = tensor_data(idx);
        const char *s = tensor_data(src);
        int es = dtype_size(dst->dtype);
        IndexCombineFn add = index_combine_fn(dst->dtype);
        for (int64_t i = 0; i < ni && rc == EP_OK; i++) {
            int64_t k = ix[i];
            rc = wrap_flat(c, &k, n);
            if (rc == EP_OK && accumulate)
                add(flat_elem(dst, k), s + i * es, IRED_SUM);
            else if (rc == EP_OK)
                index_copy_elem(flat_elem(dst, k), s + i * es, es);
        }
    }
    tensor_unref(src);
    tensor_unref(idx);
    return rc;
}

/* put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!) */
EpStatus k_put_(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0), *index = arg_tensor(c, 1), *source = arg_tensor(c, 2);
    EpStatus rc = index_check_no_internal_overlap(c, self);
    if (rc == EP_OK)
        rc = index_check_no_overlap(c, self, index);
    if (rc == EP_OK)
        rc = index_check_no_overlap(c, self, source);
    if (rc == EP_OK)
        rc = tensor_make_writable(self, c->err);
    if (rc == EP_OK)
        rc = put_into(c, self, index, source, arg_bool(c, 3));
    if (rc)
        return rc;
    out_tensor(c, 0, tensor_ref(self));
    return EP_OK;
}

/* put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor:
** put_ on clone(self, memory_format=preserve). */
EpStatus k_put(OpCall *c)
{
    Tensor *out = index_clone_preserve(arg_tensor(c, 0), c->err);
    if (!out)
        return EP_ERR_EXEC;
    EpStatus rc = put_into(c, out, arg_tensor(c, 1), arg_tensor(c, 2), arg_bool(c, 3));
    return index_out(c, rc, out);
}
