/*
** shape_join.c -- operators that assemble a new tensor from pieces: cat
** (concat, concatenate), stack and its h/v/d/column variants, repeat,
** tile and repeat_interleave.
** Semantics: aten/src/ATen/native/TensorShape.cpp (cat_meta, stack),
** Repeat.cpp, torch/_refs/__init__.py.
*/
#include "shape_int.h"
#include "elementwise.h"
#include "../parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cat ----------------------------------------------------------------- */

/* cat_compute_output_memory_format: the inputs' common suggested format,
** contiguous when they disagree. */
static int cat_memory_format(int n, Tensor *const *ts)
{
    int fmt = -1;
    for (int i = 0; i < n; i++) {
        int f = shape_suggest_memory_format(ts[i]);
        if (f == MF_CONTIGUOUS || (fmt >= 0 && fmt != f))
            return MF_CONTIGUOUS;
        fmt = f;
    }
    return fmt < 0 ? MF_CONTIGUOUS : fmt;
}

/* torch.cat's legacy rule: 1-D empty tensors are skipped whatever the
** other inputs' shapes. */
static bool cat_skips(const Tensor *t)
{
    return t->ndim == 1 && t->sizes[0] == 0;
}

/* A contiguous input of out's dtype goes into a contiguous out as rows:
** for each index of the dimensions before d, one memcpy of the input's
** block (its size along d times the trailing dimensions) to where the
** block starts in out.  Rows are spread over the worker pool when there
** are many bytes; each writes its own part of out. */
typedef struct CatRows {
    char *dst;
    const char *src;
    size_t row_in, row_out, skip; /* bytes: one input row, one out row, where it starts */
} CatRows;

static void cat_rows_chunk(void *ctx, int64_t begin, int64_t end)
{
    const CatRows *r = ctx;
    for (int64_t o = begin; o < end; o++)
        ew_copy_bytes(r->dst + (size_t)o * r->row_out + r->skip, r->src + (size_t)o * r->row_in, r->row_in);
}

/* Whether t was copied into out at offset at along d (false: take the
** general path). */
static bool cat_copy_rows(Tensor *out, const Tensor *t, int d, int64_t at)
{
    if (t->dtype != out->dtype || !tensor_is_contiguous(out) || !tensor_is_contiguous(t) || tensor_numel(t) == 0)
        return false;
    size_t es = (size_t)dtype_size(t->dtype);
    int64_t outer = shape_numel(d, out->sizes), inner = shape_numel(out->ndim - d - 1, out->sizes + d + 1);
    CatRows r = {tensor_data(out), tensor_data(t), (size_t)(t->sizes[d] * inner) * es,
                 (size_t)(out->sizes[d] * inner) * es, (size_t)(at * inner) * es};
    /* about 256 KiB per chunk: a small cat stays on this thread */
    int64_t grain = (int64_t)((256 << 10) / r.row_in) + 1;
    ep_parallel_for(outer, grain, cat_rows_chunk, &r);
    return true;
}

Tensor *shape_cat(OpCall *c, int n, Tensor *const *ts, int64_t dim)
{
    char b1[256];
    if (n == 0) {
        op_fail(c, "torch.cat(): expected a non-empty list of Tensors");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim == 0) {
            op_fail(c, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
            return NULL;
        }
    DType dtype = result_type(n, ts, 0, NULL);
    int valid = 0;
    while (valid < n && cat_skips(ts[valid]))
        valid++;
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (valid == n) { /* nothing but legacy empties: a 1-D empty result */
        sizes[0] = 0;
        strides[0] = 1;
        return shape_new_strided(c, dtype, 1, sizes, strides, true);
    }
    const Tensor *ref = ts[valid];
    int d;
    if (shape_wrap_dim(c, dim, ref->ndim, &d) != EP_OK)
        return NULL;
    memcpy(sizes, ref->sizes, sizeof sizes);
    sizes[d] = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *t = ts[i];
        if (cat_skips(t))
            continue;
        if (t->ndim != ref->ndim) {
            op_fail(c, "Tensors must have same number of dimensions: got %d and %d", ref->ndim, t->ndim);
            return NULL;
        }
        for (int k = 0; k < t->ndim; k++)
            if (k != d && t->sizes[k] != ref->sizes[k]) {
                op_fail(c, "Sizes of tensors must match except in dimension %d. Expected size %lld but got size "
                           "%lld for tensor number %d in the list.", d, (long long)ref->sizes[k],
                        (long long)t->sizes[k], i);
                return NULL;
            }
        if (!ep_add_i64(sizes[d], t->sizes[d], &sizes[d])) {
            op_fail(c, "concatenated size overflows: %s", shape_str(t->ndim, sizes, b1, sizeof b1));
            return NULL;
        }
    }
    if (shape_format_strides(c, cat_memory_format(n, ts), ref->ndim, sizes, strides) != EP_OK)
        return NULL;
    Tensor *out = shape_new_strided(c, dtype, ref->ndim, sizes, strides, false);
    if (!out)
        return NULL;
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        if (cat_skips(ts[i]))
            continue;
        int64_t end = at + ts[i]->sizes[d];
        if (cat_copy_rows(out, ts[i], d, at)) {
            at = end;
            continue;
        }
        Tensor *view = shape_slice(c, out, d, &at, &end, 1);
        EpStatus rc = view ? tensor_copy_into(view, ts[i], c->err) : c->err->code;
        tensor_unref(view);
        if (rc) {
            tensor_unref(out);
            return NULL;
        }
        at = end;
    }
    return out;
}

/* The tensors of a Tensor[] argument as an array (malloc'd). */
static Tensor **list_tensors(const ValueList *l)
{
    Tensor **ts = ep_xmalloc((size_t)(l->n > 0 ? l->n : 1) * sizeof *ts);
    for (int i = 0; i < l->n; i++)
        ts[i] = l->items[i].t;
    return ts;
}

/* cat / concat / concatenate(Tensor[] tensors, int dim=0) */
EpStatus k_cat(OpCall *c)
{
    const ValueList *l = arg_list(c, 0);
    Tensor **ts = list_tensors(l);
    Tensor *r = shape_cat(c, l->n, ts, arg_int(c, 1));
    free(ts);
    return shape_out(c, r);
}

/* stack(Tensor[] tensors, int dim=0): cat of the inputs unsqueezed at dim */
EpStatus k_stack(OpCall *c)
{
    const ValueList *l = arg_list(c, 0);
    char b1[256], b2[256];
    int n = l->n, d;
    if (n == 0)
        return op_fail(c, "stack expects a non-empty TensorList");
    const Tensor *first = l->items[0].t;
    if (shape_wrap_dim(c, arg_int(c, 1), first->ndim + 1, &d))
        return c->err->code;
    for (int i = 1; i < n; i++) {
        const Tensor *t = l->items[i].t;
        if (!shape_equal(t->ndim, t->sizes, first->ndim, first->sizes))
            return op_fail(c, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                           shape_str(first->ndim, first->sizes, b1, sizeof b1),
                           shape_str(t->ndim, t->sizes, b2, sizeof b2), i);
    }
    Tensor **ts = ep_xcalloc((size_t)n, sizeof *ts);
    Tensor *r = NULL;
    int made = 0;
    for (; made < n; made++) {
        ts[made] = shape_unsqueeze(c, l->items[made].t, d);
        if (!ts[made])
            break;
    }
    if (made == n)
        r = shape_cat(c, n, ts, d);
    for (int i = 0; i < made; i++)
        tensor_unref(ts[i]);
    free(ts);
    return shape_out(c, r);
}

/* Reshape for the h/v/d/column stacks: rank raised as atleast_Nd does. */
static Tensor *raise_rank(OpCall *c, Tensor *t, OpId id)
{
    int64_t sizes[3] = {1, 1, 1};
    int64_t n = tensor_numel(t);
    switch (id) {
    case OP_HSTACK:
        if (t->ndim >= 1)
            return tensor_ref(t);
        return shape_reshape(c, t, 1, sizes);
    case OP_VSTACK:
        if (t->ndim >= 2)
            return tensor_ref(t);
        sizes[1] = n; /* 0-d: [1, 1], 1-d: [1, n] */
        return shape_reshape(c, t, 2, sizes);
    case OP_DSTACK:
        if (t->ndim >= 3)
            return tensor_ref(t);
        if (t->ndim == 1)
            sizes[1] = n;
        else if (t->ndim == 2) {
            sizes[0] = t->sizes[0];
            sizes[1] = t->sizes[1];
        }
        return shape_reshape(c, t, 3, sizes);
    default: /* column_stack: vectors and scalars become columns */
        if (t->ndim >= 2)
            return tensor_ref(t);
        sizes[0] = n;
        return shape_reshape(c, t, 2, sizes);
    }
}

/* hstack / vstack / dstack / column_stack(Tensor[] tensors) */
EpStatus k_stack_variant(OpCall *c)
{
    const ValueList *l = arg_list(c, 0);
    OpId id = c->op->id;
    const char *name = id == OP_HSTACK ? "hstack" : id == OP_VSTACK ? "vstack" : id == OP_DSTACK ? "dstack"
                                                                                              : "column_stack";
    int n = l->n;
    if (n == 0)
        return op_fail(c, "%s expects a non-empty TensorList", name);
    Tensor **ts = ep_xcalloc((size_t)n, sizeof *ts);
    Tensor *r = NULL;
    int made = 0;
    for (; made < n; made++) {
        ts[made] = raise_rank(c, l->items[made].t, id);
        if (!ts[made])
            break;
    }
    if (made == n) {
        int dim = id == OP_VSTACK ? 0 : id == OP_DSTACK ? 2 : id == OP_COLUMN_STACK ? 1 : ts[0]->ndim == 1 ? 0 : 1;
        r = shape_cat(c, n, ts, dim);
    }
    for (int i = 0; i < made; i++)
        tensor_unref(ts[i]);
    free(ts);
    return shape_out(c, r);
}

/* ---- repeat -------------------------------------------------------------- */

/* x repeated reps[i] times along each dim (n >= x's rank; new leading
** dims).  The output is viewed as [r0, s0, r1, s1, ...] and x broadcast
** over the r axes, so one iterator pass fills it. */
static Tensor *repeat_tensor(OpCall *c, Tensor *x, int n, const int64_t *reps)
{
    if (n < x->ndim) {
        op_fail(c, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        return NULL;
    }
    if (2 * n > EP_MAX_DIMS) {
        op_fail(c, "repeat over %d dims is not supported (at most %d)", n, EP_MAX_DIMS / 2);
        return NULL;
    }
    int64_t padded[EP_MAX_DIMS], xstride[EP_MAX_DIMS], target[EP_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int src = x->ndim - n + i;
        padded[i] = src >= 0 ? x->sizes[src] : 1;
        xstride[i] = src >= 0 ? x->strides[src] : 0;
        if (!ep_mul_i64(padded[i], reps[i], &target[i])) {
            op_fail(c, "repeat: size overflows");
            return NULL;
        }
    }
    Tensor *out = shape_new_contiguous(c, x->dtype, n, target, false);
    if (!out || tensor_numel(out) == 0)
        return out;
    const int64_t *strides = out->strides;
    int64_t dsz[EP_MAX_DIMS], dst[EP_MAX_DIMS], ssz[EP_MAX_DIMS], sst[EP_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        dsz[2 * i] = reps[i];
        dst[2 * i] = padded[i] * strides[i];
        dsz[2 * i + 1] = padded[i];
        dst[2 * i + 1] = strides[i];
        ssz[2 * i] = 1;
        sst[2 * i] = 0;
        ssz[2 * i + 1] = padded[i];
        sst[2 * i + 1] = xstride[i];
    }
    Tensor *dview = tensor_as_strided(out, 2 * n, dsz, dst, 0, c->err);
    Tensor *sview = dview ? tensor_as_strided(x, 2 * n, ssz, sst, x->offset, c->err) : NULL;
    EpStatus rc = sview ? tensor_copy_into(dview, sview, c->err) : c->err->code;
    tensor_unref(dview);
    tensor_unref(sview);
    if (rc) {
        tensor_unref(out);
        return NULL;
    }
    return out;
}

/* repeat(Tensor self, SymInt[] repeats) */
EpStatus k_repeat(OpCall *c)
{
    int64_t reps[EP_MAX_DIMS];
    int n = shape_int_list_arg(c, 1, reps, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    return shape_out(c, repeat_tensor(c, arg_tensor(c, 0), n, reps));
}

/* tile(Tensor self, SymInt[] dims): repeat with dims padded by leading 1s */
EpStatus k_tile(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t dims[EP_MAX_DIMS], reps[EP_MAX_DIMS];
    int n = shape_int_list_arg(c, 1, dims, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    int m = t->ndim > n ? t->ndim : n;
    for (int i = 0; i < m; i++)
        reps[i] = i < m - n ? 1 : dims[i - (m - n)];
    return shape_out(c, repeat_tensor(c, t, m, reps));
}

/* ---- repeat_interleave ----------------------------------------------------- */

/* x with index j of dim d repeated counts[j] times, or every index r
** times when counts is NULL; total is the resulting size of dim d. */
static Tensor *interleave(OpCall *c, Tensor *x, int d, const int64_t *counts, int64_t r, int64_t total)
{
    int64_t sizes[EP_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof sizes);
    sizes[d] = total;
    Tensor *out = shape_new_contiguous(c, x->dtype, x->ndim, sizes, false);
    if (!out || total == 0)
        return out;
    const int64_t *strides = out->strides;
    EpStatus rc = EP_OK;
    if (!counts && x->ndim < EP_MAX_DIMS) {
        /* one pass: out seen as [..., n, r, ...], x broadcast over r */
        int64_t osz[EP_MAX_DIMS], ost[EP_MAX_DIMS], xsz[EP_MAX_DIMS], xst[EP_MAX_DIMS];
        for (int i = 0, k = 0; i < x->ndim; i++, k++) {
            osz[k] = xsz[k] = x->sizes[i];
            ost[k] = i == d ? strides[i] * r : strides[i];
            xst[k] = x->strides[i];
            if (i == d) {
                k++;
                osz[k] = r;
                ost[k] = strides[i];
                xsz[k] = 1;
                xst[k] = 0;
            }
        }
        Tensor *dv = tensor_as_strided(out, x->ndim + 1, osz, ost, 0, c->err);
        Tensor *sv = dv ? tensor_as_strided(x, x->ndim + 1, xsz, xst, x->offset, c->err) : NULL;
        rc = sv ? tensor_copy_into(dv, sv, c->err) : c->err->code;
        tensor_unref(dv);
        tensor_unref(sv);
    } else {
        /* one broadcast copy per source index */
        int64_t at = 0;
        for (int64_t j = 0; j < x->sizes[d] && rc == EP_OK; j++) {
            int64_t k = counts ? counts[j] : r;
            if (k == 0)
                continue;
            int64_t src_end = j + 1, dst_end = at + k;
            Tensor *src = shape_slice(c, x, d, &j, &src_end, 1);
            Tensor *dst = src ? shape_slice(c, out, d, &at, &dst_end, 1) : NULL;
            rc = dst ? tensor_copy_into(dst, src, c->err) : c->err->code;
            tensor_unref(src);
            tensor_unref(dst);
            at = dst_end;
        }
    }
    if (rc) {
        tensor_unref(out);
        return NULL;
    }
    return out;
}

/* x flattened when dim is None (then d = 0), else d = wrapped dim. */
static Tensor *interleave_input(OpCall *c, Tensor *self, int dim_arg, int *d)
{
    if (arg_is_none(c, dim_arg)) {
        int64_t all = -1;
        *d = 0;
        return shape_reshape(c, self, 1, &all);
    }
    if (shape_wrap_dim(c, arg_int(c, dim_arg), self->ndim, d) != EP_OK)
        return NULL;
    if (self->ndim == 0) { /* a scalar repeats as a vector */
        int64_t one = 1;
        return shape_reshape(c, self, 1, &one);
    }
    return tensor_ref(self);
}

/* The counts of a 1-D int32/int64 repeats tensor (malloc'd); checks the
** dtype and signs. */
static int64_t *repeat_counts(OpCall *c, const Tensor *r, int64_t *total)
{
    if (r->dtype != DT_I64 && r->dtype != DT_I32) {
        op_fail(c, "repeats has to be Long or Int tensor");
        return NULL;
    }
    int64_t n = tensor_numel(r);
    /* plain malloc: an expanded repeats tensor may claim more than fits */
    int64_t *counts = (uint64_t)n < SIZE_MAX / sizeof *counts ? malloc((size_t)(n > 0 ? n : 1) * sizeof *counts) : NULL;
    if (!counts) {
        op_fail(c, "out of memory reading %lld repeats", (long long)n);
        return NULL;
    }
    *total = 0;
    for (int64_t i = 0; i < n; i++) {
        counts[i] = tensor_get_i64(r, i);
        if (counts[i] < 0 || !ep_add_i64(*total, counts[i], total)) {
            free(counts);
            op_fail(c, "repeats can not be negative");
            return NULL;
        }
    }
    return counts;
}

static EpStatus check_output_size(OpCall *c, int arg, int64_t total)
{
    if (!arg_is_none(c, arg) && arg_int(c, arg) != total)
        return op_fail(c, "output_size %lld does not match the repeated size %lld", (long long)arg_int(c, arg),
                       (long long)total);
    return EP_OK;
}

/* repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *,
** SymInt? output_size=None) */
EpStatus k_repeat_interleave_int(OpCall *c)
{
    int64_t r = arg_int(c, 1);
    int d;
    if (r < 0)
        return op_fail(c, "repeats can not be negative");
    Tensor *x = interleave_input(c, arg_tensor(c, 0), 2, &d);
    if (!x)
        return c->err->code;
    int64_t n = x->sizes[d], total;
    if (!ep_mul_i64(n, r, &total)) {
        tensor_unref(x);
        return op_fail(c, "repeat_interleave: size overflows");
    }
    if (check_output_size(c, 3, total)) {
        tensor_unref(x);
        return c->err->code;
    }
    Tensor *out = interleave(c, x, d, NULL, r, total);
    tensor_unref(x);
    return shape_out(c, out);
}

/* repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *,
** SymInt? output_size=None): one count per index of dim, or one for all */
EpStatus k_repeat_interleave_self_tensor(OpCall *c)
{
    const Tensor *rep = arg_tensor(c, 1);
    int d;
    if (rep->ndim > 1)
        return op_fail(c, "repeats must be 0-dim or 1-dim tensor");
    Tensor *x = interleave_input(c, arg_tensor(c, 0), 2, &d);
    if (!x)
        return c->err->code;
    int64_t n = x->sizes[d], total;
    bool single = tensor_numel(rep) == 1;
    if (!single && rep->sizes[0] != n) {
        tensor_unref(x);
        return op_fail(c, "repeats must have the same size as input along dim, but got repeats.size(0) = %lld and "
                       "input.size(%d) = %lld", (long long)rep->sizes[0], d, (long long)n);
    }
    int64_t *given = repeat_counts(c, rep, &total);
    if (!given) {
        tensor_unref(x);
        return c->err->code;
    }
    /* a single count applies to every index */
    int64_t r = single ? given[0] : 0;
    if (single && !ep_mul_i64(r, n, &total))
        total = -1;
    Tensor *out = NULL;
    if (total < 0)
        op_fail(c, "repeat_interleave: size overflows");
    else if (check_output_size(c, 3, total) == EP_OK)
        out = interleave(c, x, d, single ? NULL : given, r, total);
    free(given);
    tensor_unref(x);
    return shape_out(c, out);
}

/* repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None): the
** index i repeated repeats[i] times, in repeats' dtype */
EpStatus k_repeat_interleave_tensor(OpCall *c)
{
    const Tensor *rep = arg_tensor(c, 0);
    int64_t total;
    if (rep->ndim != 1)
        return op_fail(c, "repeat_interleave only accept 1D vector as repeat");
    int64_t *counts = repeat_counts(c, rep, &total);
    if (!counts)
        return c->err->code;
    Tensor *out = NULL;
    if (check_output_size(c, 1, total) == EP_OK) {
        int64_t stride = 1;
        out = shape_new_strided(c, rep->dtype, 1, &total, &stride, false);
    }
    if (out) {
        int64_t at = 0;
        for (int64_t i = 0; i < rep->sizes[0]; i++)
            for (int64_t k = 0; k < counts[i]; k++)
                dtype_store_i64(out->dtype, (char *)tensor_data(out) + (at++) * dtype_size(out->dtype), i);
    }
    free(counts);
    return shape_out(c, out);
}
