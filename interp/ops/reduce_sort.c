/*
** reduce_sort.c -- orderings along one dimension: sort, argsort, msort,
** topk, kthvalue, median, nanmedian and mode.
**
** Every one of them orders each row with one stable merge sort under
** PyTorch's total order, NaN above every number (aten/src/ATen/native/
** Sorting.cpp, cpu/SortingKernel.cpp), then reads its answer off the
** sorted positions.  Stability fixes what PyTorch leaves to std::sort,
** nth_element and quickselect: equal keys come out in input order, which is
** what PyTorch's stable sort and its index-tiebroken median give, and what
** its insertion-sorted short rows give for the rest.
*/
#include "reduce.h"
#include "../parallel.h"
#include "reduce_fast.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

typedef enum SelectKind {
    SEL_SORT,      /* the whole sorted row */
    SEL_TOPK,      /* its first k */
    SEL_KTH,       /* position k-1 */
    SEL_MEDIAN,    /* the lower median, NaN if the row has one */
    SEL_NANMEDIAN, /* the lower median of the non-NaN values */
    SEL_MODE,      /* the most frequent value */
} SelectKind;

/* topk of at most this many per row selects instead of sorting the row:
** O(len) on most data, at worst len * TOPK_SMALL comparisons. */
#define TOPK_SMALL 64

/* ---- float32 rows in radix order ---------------------------------------------- */

/* Rows at least this long are ordered by radix_order_float: below it the
** merge sort is as fast as clearing and summing the radix's counters. */
#define RADIX_MIN 256

/* A float's place in the sort's order as an unsigned key: every NaN the
** largest (and equal to each other), -0.0 equal to 0.0, the rest in
** numeric order; inverted for a descending sort, which puts NaN first. */
static inline uint32_t f32_order_key(float v, bool desc)
{
    if (v == 0)
        v = 0; /* -0.0 and 0.0 are equal keys */
    uint32_t u;
    memcpy(&u, &v, 4);
    uint32_t k = isnan(v) ? 0xffffffffu : (u & 0x80000000u) ? ~u : u | 0x80000000u;
    return desc ? ~k : k;
}

/* The stable order of x[0..n) (the merge sort's, position for position):
** keys beside positions in one 64-bit word, key above, sorted by the key's
** four bytes from the lowest, each pass a stable counting sort, so equal
** keys keep their input order.  idx and tmp hold n words each.  False,
** with nothing done, for rows the merge sort takes. */
static bool radix_order_float(const float *x, int64_t n, bool desc, int64_t *idx, int64_t *tmp)
{
    if (n < RADIX_MIN || n > (int64_t)UINT32_MAX)
        return false;
    uint64_t *src = (uint64_t *)idx, *dst = (uint64_t *)tmp;
    uint32_t count[4][256] = {{0}};
    for (int64_t i = 0; i < n; i++) {
        uint32_t k = f32_order_key(x[i], desc);
        src[i] = (uint64_t)k << 32 | (uint64_t)i;
        count[0][k & 0xff]++;
        count[1][k >> 8 & 0xff]++;
        count[2][k >> 16 & 0xff]++;
        count[3][k >> 24]++;
    }
    for (int pass = 0; pass < 4; pass++) {
        const int shift = 32 + 8 * pass;
        uint32_t *c = count[pass];
        if (c[src[0] >> shift & 0xff] == (uint32_t)n) /* every key has this byte */
            continue;
        uint32_t at = 0;
        for (int b = 0; b < 256; b++) {
            uint32_t m = c[b];
            c[b] = at;
            at += m;
        }
        for (int64_t i = 0; i < n; i++)
            dst[c[src[i] >> shift & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    for (int64_t i = 0; i < n; i++)
        idx[i] = (int64_t)(src[i] & 0xffffffffu);
    return true;
}

/* the other compute types take the merge sort */
static inline bool radix_order_double(const double *x, int64_t n, bool desc, int64_t *idx, int64_t *tmp)
{
    (void)x, (void)n, (void)desc, (void)idx, (void)tmp;
    return false;
}
static inline bool radix_order_int64_t(const int64_t *x, int64_t n, bool desc, int64_t *idx, int64_t *tmp)
{
    (void)x, (void)n, (void)desc, (void)idx, (void)tmp;
    return false;
}

/* For each row of x (nrows rows of len values): sort positions stably,
** ascending with NaN last or descending with NaN first, then write outlen
** values and their row indices per row into vals/inds.  scratch has room
** for 2 * len int64s. */
#define DEFINE_SELECT(T)                                                                       \
    static bool before_##T(T a, T b, bool desc)                                                \
    {                                                                                          \
        bool na = REDUCE_ISNAN(T, a), nb = REDUCE_ISNAN(T, b);                                 \
        return desc ? ((na && !nb) || a > b) : ((!na && nb) || a < b);                         \
    }                                                                                          \
    static void argsort_##T(const T *x, int64_t n, bool desc, int64_t *idx, int64_t *tmp)      \
    {                                                                                          \
        /* insertion sort runs of 16, then merge them pairwise */                              \
        for (int64_t i = 0; i < n; i++)                                                        \
            idx[i] = i;                                                                        \
        for (int64_t lo = 0; lo < n; lo += 16) {                                               \
            int64_t hi = lo + 16 < n ? lo + 16 : n;                                            \
            for (int64_t i = lo + 1; i < hi; i++) {                                            \
                int64_t v = idx[i], j = i;                                                     \
                while (j > lo && before_##T(x[v], x[idx[j - 1]], desc)) {                      \
                    idx[j] = idx[j - 1];                                                       \
                    j--;                                                                       \
                }                                                                              \
                idx[j] = v;                                                                    \
            }                                                                                  \
        }                                                                                      \
        int64_t *src = idx, *dst = tmp;                                                        \
        for (int64_t w = 16; w < n; w *= 2) {                                                  \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                        \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;   \
                int64_t a = lo, b = mid, o = lo;                                               \
                while (a < mid && b < hi)                                                      \
                    dst[o++] = before_##T(x[src[b]], x[src[a]], desc) ? src[b++] : src[a++];   \
                while (a < mid)                                                                \
                    dst[o++] = src[a++];                                                       \
                while (b < hi)                                                                 \
                    dst[o++] = src[b++];                                                       \
            }                                                                                  \
            int64_t *t = src;                                                                  \
            src = dst;                                                                         \
            dst = t;                                                                           \
        }                                                                                      \
        if (src != idx)                                                                        \
            memcpy(idx, src, (size_t)n * sizeof *idx);                                         \
    }                                                                                          \
    /* the first k of the stable order, k <= TOPK_SMALL: a sorted list of     \
    ** the best so far, which a later position enters only by coming strictly \
    ** before its last (so equal values keep their order, as in the sort) */  \
    static void topk_##T(const T *x, int64_t n, bool desc, int64_t k, int64_t *best)            \
    {                                                                                          \
        int64_t m = 0;                                                                         \
        for (int64_t i = 0; i < n && k > 0; i++) {                                             \
            if (m == k && !before_##T(x[i], x[best[m - 1]], desc))                             \
                continue;                                                                      \
            int64_t j = m < k ? m++ : k - 1;                                                   \
            while (j > 0 && before_##T(x[i], x[best[j - 1]], desc)) {                          \
                best[j] = best[j - 1];                                                         \
                j--;                                                                           \
            }                                                                                  \
            best[j] = i;                                                                       \
        }                                                                                      \
    }                                                                                          \
    static void select_##T(const T *x, int64_t nrows, int64_t len, SelectKind kind, bool desc, \
                           int64_t k, int64_t outlen, T *vals, int64_t *inds, int64_t *scratch,  \
                           bool radix)                                                         \
    {                                                                                          \
        int64_t *idx = scratch, *tmp = scratch + len;                                          \
        for (int64_t r = 0; r < nrows; r++, x += len, vals += outlen, inds += outlen) {        \
            if (kind == SEL_TOPK && outlen <= TOPK_SMALL) {                                    \
                topk_##T(x, len, desc, outlen, inds);                                          \
                for (int64_t i = 0; i < outlen; i++)                                           \
                    vals[i] = x[inds[i]];                                                      \
                continue;                                                                      \
            }                                                                                  \
            if (!radix || !radix_order_##T(x, len, desc, idx, tmp))                           \
                argsort_##T(x, len, desc, idx, tmp);                                           \
            int64_t nnan = 0, pos = 0;                                                         \
            const bool median = kind == SEL_MEDIAN || kind == SEL_NANMEDIAN; /* they count NaNs */ \
            for (int64_t i = 0; median && i < len; i++)                                        \
                nnan += REDUCE_ISNAN(T, x[i]);                                                 \
            switch (kind) {                                                                    \
            case SEL_SORT:                                                                     \
            case SEL_TOPK:                                                                     \
                for (int64_t i = 0; i < outlen; i++) {                                         \
                    inds[i] = idx[i];                                                          \
                    vals[i] = x[idx[i]];                                                       \
                }                                                                              \
                continue;                                                                      \
            case SEL_KTH: pos = k - 1; break;                                                  \
            /* the first NaN in input order sits first among the sorted NaNs */                \
            case SEL_MEDIAN: pos = nnan ? len - nnan : (len - 1) / 2; break;                   \
            case SEL_NANMEDIAN: pos = (len - nnan - 1) / 2; break;                             \
            case SEL_MODE: {                                                                   \
                /* runs of equal values; the first longest run wins (the    \
                ** smallest value), reporting its last index */                                \
                int64_t best = 0, run = 0;                                                     \
                for (int64_t i = 0; i < len; i++) {                                            \
                    run++;                                                                     \
                    if (i == len - 1 || x[idx[i]] != x[idx[i + 1]]) {                          \
                        if (run > best) {                                                      \
                            best = run;                                                        \
                            pos = i;                                                           \
                        }                                                                      \
                        run = 0;                                                               \
                    }                                                                          \
                }                                                                              \
                break;                                                                         \
            }                                                                                  \
            }                                                                                  \
            inds[0] = idx[pos];                                                                \
            vals[0] = x[idx[pos]];                                                             \
        }                                                                                      \
    }
DEFINE_SELECT(int64_t)
DEFINE_SELECT(float)
DEFINE_SELECT(double)

/* Rows [r0, r1) of a select_rows call, each chunk with its own scratch:
** rows are independent, so the result does not depend on the threads. */
typedef struct SelectJob {
    DType ct;
    const char *x;
    int64_t len, k, outlen;
    SelectKind kind;
    bool desc;
    bool radix; /* radix_order_float where it applies (the fast paths are on) */
    char *vals;
    int64_t *inds;
    atomic_bool failed;
} SelectJob;

static void select_chunk(void *ctx, int64_t r0, int64_t r1)
{
    SelectJob *j = ctx;
    /* through the tensors' allocator: counted against --max-memory */
    Storage *mem = storage_new((size_t)(2 * j->len + 1) * sizeof(int64_t));
    if (!mem) {
        atomic_store(&j->failed, true);
        return;
    }
    int64_t *s = mem->data;
    const size_t es = (size_t)dtype_size(j->ct);
    const char *x = j->x + (size_t)(r0 * j->len) * es;
    char *v = j->vals + (size_t)(r0 * j->outlen) * es;
    int64_t *ix = j->inds + r0 * j->outlen;
    if (j->ct == DT_F32)
        select_float((const float *)x, r1 - r0, j->len, j->kind, j->desc, j->k, j->outlen, (float *)v, ix, s,
                     j->radix);
    else if (j->ct == DT_F64)
        select_double((const double *)x, r1 - r0, j->len, j->kind, j->desc, j->k, j->outlen, (double *)v, ix, s,
                      j->radix);
    else
        select_int64_t((const int64_t *)x, r1 - r0, j->len, j->kind, j->desc, j->k, j->outlen, (int64_t *)v, ix,
                       s, j->radix);
    storage_unref(mem);
}

/* The ordering of every row of self along d (plan p, rows of p->rowlen)
** into new tensors *vals (compute type) and *inds (int64) holding outlen
** entries per row, row after row; rows over the worker pool. */
static EpStatus select_rows(OpCall *c, Tensor *self, const ReducePlan *p, SelectKind kind, bool desc, int64_t k,
                            int64_t outlen, Tensor **vals, Tensor **inds)
{
    DType ct = reduce_compute_dtype(self->dtype);
    int64_t nout = p->nrows * outlen;
    Tensor *rows = reduce_rows(self, p, ct, c->err);
    Tensor *v = rows ? tensor_empty(ct, 1, &nout, c->err) : NULL;
    Tensor *ix = v ? tensor_empty(DT_I64, 1, &nout, c->err) : NULL;
    if (!ix) {
        tensor_unref(rows);
        tensor_unref(v);
        return c->err->code;
    }
    SelectJob j = {.ct = ct, .x = tensor_data(rows), .len = p->rowlen, .k = k, .outlen = outlen, .kind = kind,
                   .desc = desc, .radix = reduce_fast_enabled(c), .vals = tensor_data(v),
                   .inds = tensor_data(ix)};
    atomic_init(&j.failed, false);
    /* about 16K elements of rows per chunk */
    ep_parallel_for(p->nrows, 16384 / (p->rowlen > 0 ? p->rowlen : 1) + 1, select_chunk, &j);
    tensor_unref(rows);
    if (atomic_load(&j.failed)) {
        tensor_unref(v);
        tensor_unref(ix);
        return op_fail(c, "out of memory for the sort's scratch of %lld positions", (long long)(2 * p->rowlen));
    }
    *vals = v;
    *inds = ix;
    return EP_OK;
}

/* t (contiguous, one entry per row) viewed with the shape of a folded
** result; a new reference. */
static Tensor *as_result(Tensor *t, int ndim, const int64_t *sizes, EpError *err)
{
    int64_t strides[EP_MAX_DIMS];
    shape_contiguous_strides(ndim, sizes, strides);
    return tensor_as_strided(t, ndim, sizes, strides, t->offset, err);
}

/* Shared tail of sort and topk: rows of outlen entries along dim d written
** into outputs shaped like self with outlen at d.  want selects the
** outputs: 1 values, 2 indices, 3 both (in that order). */
static EpStatus ordered_outputs(OpCall *c, Tensor *self, int d, SelectKind kind, bool desc, int64_t k,
                                int want)
{
    ReducePlan p;
    reduce_plan_one(self, d, &p);
    int64_t outlen = kind == SEL_TOPK ? k : p.rowlen;
    int64_t sizes[EP_MAX_DIMS];
    memcpy(sizes, self->sizes, sizeof sizes);
    if (self->ndim > 0)
        sizes[d] = outlen;
    Tensor *v = NULL, *ix = NULL, *vo = NULL, *io = NULL;
    EpStatus rc = select_rows(c, self, &p, kind, desc, k, outlen, &v, &ix);
    if (rc)
        return rc;
    if (want & 1) {
        vo = tensor_empty(self->dtype, self->ndim, sizes, c->err);
        if (!vo || reduce_unrows(vo, d, v, c->err) != EP_OK)
            goto fail;
    }
    if (want & 2) {
        io = tensor_empty(DT_I64, self->ndim, sizes, c->err);
        if (!io || reduce_unrows(io, d, ix, c->err) != EP_OK)
            goto fail;
    }
    tensor_unref(v);
    tensor_unref(ix);
    int o = 0;
    if (vo)
        out_tensor(c, o++, vo);
    if (io)
        out_tensor(c, o, io);
    return EP_OK;
fail:
    tensor_unref(v);
    tensor_unref(ix);
    tensor_unref(vo);
    tensor_unref(io);
    return c->err->code;
}

/* sort and argsort: the .stable overloads put a kwarg-only `stable` flag
** before dim and descending.  want as for ordered_outputs. */
static EpStatus sort_common(OpCall *c, int want)
{
    OpId id = c->op->id;
    int dim_arg = (id == OP_SORT_STABLE || id == OP_ARGSORT_STABLE) ? 2 : 1;
    Tensor *self = arg_tensor(c, 0);
    int d;
    EpStatus rc = reduce_wrap_dim(c, arg_int(c, dim_arg), self->ndim, &d);
    if (rc)
        return rc;
    return ordered_outputs(c, self, d, SEL_SORT, arg_bool(c, dim_arg + 1), 0, want);
}

/* sort.default(self, dim=-1, descending) and sort.stable(self, *, stable,
** dim=-1, descending) -> (values, indices).  Always stable: an unstable
** sort may return any order of equal keys, and this is one of them. */
EpStatus k_sort(OpCall *c) { return sort_common(c, 3); }

/* argsort.default(self, dim=-1, descending) / argsort.stable(self, *,
** stable, dim=-1, descending): sort's indices. */
EpStatus k_argsort(OpCall *c) { return sort_common(c, 2); }

/* msort(self): sort's values along dim 0. */
EpStatus k_msort(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    int d;
    EpStatus rc = reduce_wrap_dim(c, 0, self->ndim, &d);
    if (rc)
        return rc;
    return ordered_outputs(c, self, d, SEL_SORT, false, 0, 1);
}

/* topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices):
** always sorted (an unsorted topk may return its k in any order). */
EpStatus k_topk(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    int64_t k = arg_int(c, 1);
    int d;
    EpStatus rc = reduce_wrap_dim(c, arg_int(c, 2), self->ndim, &d);
    if (rc)
        return rc;
    int64_t n = self->ndim > 0 ? self->sizes[d] : 1;
    if (k < 0 || k > n)
        return op_fail(c, "selected index k out of range");
    if (self->dtype == DT_BOOL)
        return op_fail(c, "\"topk_cpu\" not implemented for 'Bool'");
    if (self->ndim == 0) /* a 0-d input stays 0-d, whatever k (0 or 1) */
        k = 1;
    return ordered_outputs(c, self, d, SEL_TOPK, arg_bool(c, 3), k, 3);
}

/* Shared body of kthvalue, median.dim, nanmedian.dim and mode: one entry
** of each sorted row -> (values, indices) with the dim folded. */
static EpStatus select_one(OpCall *c, SelectKind kind, int64_t dim, bool keepdim, int64_t k, const char *fn,
                           const char *kernel)
{
    Tensor *self = arg_tensor(c, 0);
    int d;
    EpStatus rc = reduce_wrap_dim(c, dim, self->ndim, &d);
    if (rc)
        return rc;
    ReducePlan p;
    rc = reduce_plan(c, self, &dim, 1, keepdim, &p);
    if (!rc)
        rc = reduce_check_nonempty(c, self, &p, fn, false);
    if (rc)
        return rc;
    if (kind == SEL_KTH && (k < 1 || k > p.rowlen))
        return op_fail(c, "kthvalue(): selected number k out of range for dimension %d", d);
    if (kernel && self->dtype == DT_BOOL)
        return op_fail(c, "\"%s\" not implemented for 'Bool'", kernel);
    Tensor *v = NULL, *ix = NULL, *vo = NULL;
    rc = select_rows(c, self, &p, kind, false, k, 1, &v, &ix);
    if (rc)
        return rc;
    /* one entry per row, in the kept dims' order: the result's layout */
    vo = tensor_as_contiguous_dtype(v, self->dtype, c->err);
    Tensor *vs = vo ? as_result(vo, p.out_ndim, p.out_sizes, c->err) : NULL;
    Tensor *is = vs ? as_result(ix, p.out_ndim, p.out_sizes, c->err) : NULL;
    tensor_unref(v);
    tensor_unref(ix);
    tensor_unref(vo);
    if (!is) {
        tensor_unref(vs);
        return c->err->code;
    }
    out_tensor(c, 0, vs);
    out_tensor(c, 1, is);
    return EP_OK;
}

/* kthvalue(self, k, dim=-1, keepdim) -> the k-th smallest and its index. */
EpStatus k_kthvalue(OpCall *c)
{
    return select_one(c, SEL_KTH, arg_int(c, 2), arg_bool(c, 3), arg_int(c, 1), "kthvalue", "kthvalue_cpu");
}

/* median.dim(self, dim, keepdim) / nanmedian.dim -> (values, indices):
** the lower median; median gives the first NaN of a row that has one. */
EpStatus k_median_dim(OpCall *c)
{
    SelectKind kind = c->op->id == OP_NANMEDIAN_DIM ? SEL_NANMEDIAN : SEL_MEDIAN;
    return select_one(c, kind, arg_int(c, 1), arg_bool(c, 2), 0, kind == SEL_MEDIAN ? "median" : "nanmedian",
                      "median_out");
}

/* mode(self, dim=-1, keepdim) -> the most frequent value (the smallest of
** equally frequent ones) and the index of its last occurrence. */
EpStatus k_mode(OpCall *c) { return select_one(c, SEL_MODE, arg_int(c, 1), arg_bool(c, 2), 0, "mode", NULL); }

/* median.default(self) / nanmedian.default: the lower median of every
** element, 0-d; NaN for an empty input (converted to the dtype as PyTorch's
** fill does: INT64_MIN / INT32_MIN for int64 / int32). */
EpStatus k_median(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    SelectKind kind = c->op->id == OP_NANMEDIAN_DEFAULT ? SEL_NANMEDIAN : SEL_MEDIAN;
    if (self->dtype == DT_BOOL)
        return op_fail(c, "\"median_cpu\" not implemented for 'Bool'");
    ReducePlan p;
    EpStatus rc = reduce_plan(c, self, NULL, 0, false, &p);
    if (rc)
        return rc;
    if (p.rowlen == 0) {
        Tensor *e = tensor_empty(self->dtype, 0, NULL, c->err);
        if (!e)
            return c->err->code;
        if (self->dtype == DT_I32)
            *(int32_t *)tensor_data(e) = INT32_MIN;
        else
            dtype_store_f64(self->dtype, tensor_data(e), NAN);
        out_tensor(c, 0, e);
        return EP_OK;
    }
    Tensor *v = NULL, *ix = NULL;
    rc = select_rows(c, self, &p, kind, false, 0, 1, &v, &ix);
    if (rc)
        return rc;
    tensor_unref(ix);
    Tensor *vo = tensor_as_contiguous_dtype(v, self->dtype, c->err);
    tensor_unref(v);
    Tensor *vs = vo ? as_result(vo, 0, NULL, c->err) : NULL;
    tensor_unref(vo);
    if (!vs)
        return c->err->code;
    out_tensor(c, 0, vs);
    return EP_OK;
}
