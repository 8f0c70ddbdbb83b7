/*
** reduce.c -- the reduction framework of the reduce family (plans, row
** gathering, dtype names) and the folds that add or count: sum, nansum,
** mean, nanmean, prod, any, all, count_nonzero.
**
** Semantics follow aten/src/ATen/native/ReduceOps.cpp: sums and products of
** bools and integers give int64 unless dtype= says otherwise, and dtype=
** casts the input before folding; integer arithmetic wraps; float16 and
** bfloat16 accumulate in float and round once at the end.
*/
#include "reduce.h"

#include <math.h>
#include <stdlib.h>

#include "reduce_fast.h"
#include <stdio.h>
#include <string.h>

/* ---- plans and rows ------------------------------------------------------ */

EpStatus reduce_wrap_dim(OpCall *c, int64_t dim, int ndim, int *out)
{
    if (!dim_wrap(dim, ndim, out)) {
        int n = ndim > 0 ? ndim : 1;
        return op_fail(c, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                       -n, n - 1, (long long)dim);
    }
    return EP_OK;
}

/* Fill the shape fields of p from its reduced[] marks. */
static void plan_shape(const Tensor *t, bool keepdim, ReducePlan *p)
{
    p->out_ndim = 0;
    p->nrows = 1;
    p->rowlen = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (p->reduced[i]) {
            p->rowlen *= t->sizes[i];
            if (keepdim)
                p->out_sizes[p->out_ndim++] = 1;
        } else {
            p->nrows *= t->sizes[i];
            p->out_sizes[p->out_ndim++] = t->sizes[i];
        }
    }
}

EpStatus reduce_plan(OpCall *c, const Tensor *t, const int64_t *dims, int ndims, bool keepdim, ReducePlan *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = t->ndim;
    p->all = ndims == 0;
    /* a 0-d tensor takes dim 0 or -1; reduced[0] still catches "[0, 0]" */
    for (int i = 0; i < ndims; i++) {
        int d;
        EpStatus rc = reduce_wrap_dim(c, dims[i], t->ndim, &d);
        if (rc)
            return rc;
        if (p->reduced[d])
            return op_fail(c, "dim %d appears multiple times in the list of dims", d);
        p->reduced[d] = true;
    }
    if (t->ndim == 0)
        p->reduced[0] = false;
    if (p->all)
        for (int i = 0; i < t->ndim; i++)
            p->reduced[i] = true;
    plan_shape(t, keepdim, p);
    return EP_OK;
}

EpStatus reduce_plan_arg(OpCall *c, const Tensor *t, int arg, bool keepdim, ReducePlan *p)
{
    int64_t dims[EP_MAX_DIMS + 1];
    if (arg < 0 || arg_is_none(c, arg))
        return reduce_plan(c, t, NULL, 0, keepdim, p);
    int n = arg_int_list(c, arg, dims, EP_MAX_DIMS + 1);
    if (n < 0 || n > (t->ndim > 0 ? t->ndim : 1)) {
        /* more dims than the rank: one of them repeats or is out of range */
        if (n < 0)
            return op_fail(c, "too many dims in the list");
        for (int i = 0; i < n; i++) {
            int d;
            EpStatus rc = reduce_wrap_dim(c, dims[i], t->ndim, &d);
            if (rc)
                return rc;
        }
        return op_fail(c, "dim %lld appears multiple times in the list of dims", (long long)dims[n - 1]);
    }
    return reduce_plan(c, t, dims, n, keepdim, p);
}

void reduce_plan_one(const Tensor *t, int d, ReducePlan *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = t->ndim;
    if (t->ndim > 0)
        p->reduced[d] = true;
    plan_shape(t, true, p);
}

EpStatus reduce_check_nonempty(OpCall *c, const Tensor *t, const ReducePlan *p, const char *fn, bool long_hint)
{
    if (tensor_numel(t) != 0)
        return EP_OK;
    if (p->all || t->ndim == 0)
        return op_fail(c, "%s(): Expected reduction dim to be specified for input.numel() == 0.%s", fn,
                       long_hint ? " Specify the reduction dim with the 'dim' argument." : "");
    for (int i = 0; i < t->ndim; i++)
        if (p->reduced[i] && t->sizes[i] == 0)
            return op_fail(c, "%s(): Expected reduction dim %d to have non-zero size.", fn, i);
    return EP_OK;
}

Tensor *reduce_rows(Tensor *t, const ReducePlan *p, DType dtype, EpError *err)
{
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < t->ndim; i++)
            if (p->reduced[i] == (pass == 1)) {
                sizes[k] = t->sizes[i];
                strides[k] = t->strides[i];
                k++;
            }
    Tensor *v = tensor_as_strided(t, t->ndim, sizes, strides, t->offset, err);
    if (!v)
        return NULL;
    Tensor *r = tensor_as_contiguous_dtype(v, dtype, err);
    tensor_unref(v);
    return r;
}

EpStatus reduce_unrows(Tensor *dst, int d, Tensor *rows, EpError *err)
{
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS], rstrides[EP_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < dst->ndim; i++)
        if (i != d) {
            sizes[k] = dst->sizes[i];
            strides[k] = dst->strides[i];
            k++;
        }
    if (dst->ndim > 0) {
        sizes[k] = dst->sizes[d];
        strides[k] = dst->strides[d];
    }
    shape_contiguous_strides(dst->ndim, sizes, rstrides);
    Tensor *dv = tensor_as_strided(dst, dst->ndim, sizes, strides, dst->offset, err);
    Tensor *rv = dv ? tensor_as_strided(rows, dst->ndim, sizes, rstrides, rows->offset, err) : NULL;
    EpStatus rc = rv ? tensor_copy_into(dv, rv, err) : EP_ERR_EXEC;
    tensor_unref(rv);
    tensor_unref(dv);
    return rc;
}

EpStatus reduce_out(OpCall *c, int k, Tensor *res, DType dtype)
{
    Tensor *r = tensor_as_contiguous_dtype(res, dtype, c->err);
    tensor_unref(res);
    if (!r)
        return c->err->code;
    out_tensor(c, k, r);
    return EP_OK;
}

DType reduce_compute_dtype(DType t)
{
    if (dtype_is_integral(t))
        return DT_I64;
    return t == DT_F64 ? DT_F64 : DT_F32;
}

/* ---- sums, means, products ----------------------------------------------- */

typedef enum FoldKind { FOLD_SUM, FOLD_NANSUM, FOLD_MEAN, FOLD_NANMEAN, FOLD_PROD } FoldKind;

double reduce_round_to(DType t, double v)
{
    switch (t) {
    case DT_F16: return f16_to_f32(f32_to_f16((float)v));
    case DT_BF16: return bf16_to_f32(f32_to_bf16((float)v));
    case DT_F32: return (float)v;
    default: return v;
    }
}

/* Pairwise sum in double.  PyTorch sums floats by cascade; splitting long
** rows keeps a double sum of float64 values within a rounding or two of
** exact, where one running sum would drift by sqrt(n) roundings. */
#define DEFINE_SUM(T)                                                                     \
    double reduce_sum_##T(const T *x, int64_t n, bool skip_nan)                           \
    {                                                                                    \
        if (n > 256) {                                                                   \
            int64_t h = n / 2;                                                           \
            return reduce_sum_##T(x, h, skip_nan) + reduce_sum_##T(x + h, n - h, skip_nan); \
        }                                                                                \
        double s = 0;                                                                    \
        for (int64_t i = 0; i < n; i++)                                                  \
            if (!(skip_nan && x[i] != x[i]))                                             \
                s += x[i];                                                               \
        return s;                                                                        \
    }                                                                                    \
    static int64_t count_nan_##T(const T *x, int64_t n)                                 \
    {                                                                                    \
        int64_t k = 0;                                                                   \
        for (int64_t i = 0; i < n; i++)                                                  \
            k += x[i] != x[i];                                                           \
        return k;                                                                        \
    }                                                                                    \
    /* x: nrows rows of len values; y: one result per row, in T */                       \
    static void fold_##T(FoldKind kind, DType out, const T *x, int64_t nrows, int64_t len, T *y) \
    {                                                                                    \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                  \
            switch (kind) {                                                              \
            case FOLD_SUM: y[r] = (T)reduce_sum_##T(x, len, false); break;                      \
            case FOLD_NANSUM: y[r] = (T)reduce_sum_##T(x, len, true); break;                    \
            case FOLD_MEAN: y[r] = (T)reduce_sum_##T(x, len, false) / (T)len; break;            \
            case FOLD_NANMEAN:                                                           \
                y[r] = (T)reduce_round_to(out, reduce_sum_##T(x, len, true)) / (T)(len - count_nan_##T(x, len)); \
                break;                                                                   \
            case FOLD_PROD: {                                                            \
                T acc = 1;                                                               \
                for (int64_t i = 0; i < len; i++)                                        \
                    acc = (T)reduce_round_to(out, acc * x[i]);                                  \
                y[r] = acc;                                                              \
                break;                                                                   \
            }                                                                            \
            }                                                                            \
        }                                                                                \
    }
DEFINE_SUM(float)
DEFINE_SUM(double)

/* Integer sums and products wrap like the int64 they are computed in. */
static void fold_int64(FoldKind kind, const int64_t *x, int64_t nrows, int64_t len, int64_t *y)
{
    for (int64_t r = 0; r < nrows; r++, x += len) {
        uint64_t acc = kind == FOLD_PROD ? 1 : 0;
        for (int64_t i = 0; i < len; i++)
            acc = kind == FOLD_PROD ? acc * (uint64_t)x[i] : acc + (uint64_t)x[i];
        y[r] = (int64_t)acc;
    }
}

/* sum or mean of a contiguous src without gathering (reduce_fast.c):
** float32 / float64 rounded and divided as fold_float / fold_double do,
** float16 / bfloat16 summed as their float32 copy would be (a float32
** result, rounded to the output dtype by the caller), integers in int64. */
static Tensor *fold_fast(OpCall *c, FoldKind kind, const Tensor *src, const ReducePlan *p, RfShape fs)
{
    DType st = src->dtype;
    DType rt = dtype_is_integral(st) ? DT_I64 : st == DT_F64 ? DT_F64 : DT_F32;
    Tensor *res = tensor_empty(rt, p->out_ndim, p->out_sizes, c->err);
    if (!res)
        return NULL;
    if (rt == DT_I64) {
        reduce_fast_sum_int(tensor_data(src), st, fs, tensor_data(res));
        return res;
    }
    bool f32 = rt == DT_F32;
    double *y = f32 ? malloc((size_t)p->nrows * sizeof *y) : tensor_data(res);
    if (!y) {
        tensor_unref(res);
        op_fail(c, "out of memory");
        return NULL;
    }
    reduce_fast_sum(tensor_data(src), st, fs, y);
    if (f32) {
        float *r = tensor_data(res);
        for (int64_t i = 0; i < p->nrows; i++)
            r[i] = kind == FOLD_MEAN ? (float)y[i] / (float)p->rowlen : (float)y[i];
        free(y);
    } else if (kind == FOLD_MEAN) {
        for (int64_t i = 0; i < p->nrows; i++)
            y[i] /= (double)p->rowlen;
    }
    return res;
}

/* Whether a sum or mean of self that the reference computes on a copy of
** dtype cast can read self instead: float16 / bfloat16 widen to float32 and
** integers to int64 exactly, inside the fast path. */
static bool fold_reads_self(FoldKind kind, DType self_t, DType cast)
{
    if (kind != FOLD_SUM && kind != FOLD_MEAN)
        return false;
    if (self_t == cast)
        return true;
    if (self_t == DT_F16 || self_t == DT_BF16)
        return cast == DT_F32;
    return dtype_is_integral(self_t) && cast == DT_I64;
}

/* The result dtype of a fold, or DT_INVALID after reporting why PyTorch
** refuses the input. */
static DType fold_out_dtype(OpCall *c, FoldKind kind, const Tensor *self, DType given)
{
    if (kind == FOLD_MEAN) {
        DType t = given != DT_INVALID ? given : self->dtype;
        if (!dtype_is_float(t)) {
            op_fail(c, "mean(): could not infer output dtype. %s dtype must be either a floating point or complex "
                       "dtype. Got: %s", given != DT_INVALID ? "Optional" : "Input", dtype_c10_name(t));
            return DT_INVALID;
        }
        return t;
    }
    if (kind == FOLD_NANMEAN && !dtype_is_float(self->dtype)) {
        op_fail(c, "nanmean(): expected input to have floating point or complex dtype but got %s",
                dtype_c10_name(self->dtype));
        return DT_INVALID;
    }
    if (given != DT_INVALID)
        return given;
    return dtype_is_integral(self->dtype) ? DT_I64 : self->dtype;
}

/* Shared body of every sum/mean/prod overload: self folded over the dims of
** argument dim_arg (-1: every dim) into a result of the PyTorch dtype. */
static EpStatus fold(OpCall *c, FoldKind kind, int dim_arg, bool keepdim, DType given)
{
    Tensor *self = arg_tensor(c, 0);
    DType out = fold_out_dtype(c, kind, self, given);
    if (out == DT_INVALID)
        return c->err->code;
    if (kind == FOLD_NANMEAN && given != DT_INVALID && !dtype_is_float(given))
        return op_fail(c, "\"nansum_cpu\" not implemented for '%s'", dtype_c10_name(given));
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, dim_arg, keepdim, &p);
    if (rc)
        return rc;
    /* dtype= casts the input first (sum(x, dtype=int8) folds int8 values);
    ** a reduced-float mean sums in float, as ReduceOps.cpp's mean_out does */
    DType cast = (kind == FOLD_MEAN && (out == DT_F16 || out == DT_BF16)) ? DT_F32 : out;
    if (kind == FOLD_NANMEAN && given == DT_INVALID)
        cast = self->dtype;
    DType ct = reduce_compute_dtype(cast);
    RfShape fs;
    if (fold_reads_self(kind, self->dtype, cast) && reduce_fast_enabled(c) &&
        reduce_fast_shape(self, p.reduced, &fs)) {
        Tensor *fres = fold_fast(c, kind, self, &p, fs);
        return fres ? reduce_out(c, 0, fres, out) : c->err->code;
    }
    Tensor *src = self->dtype == cast ? tensor_ref(self) : tensor_to_dtype(self, cast, c->err);
    if (!src)
        return c->err->code;
    Tensor *rows = reduce_rows(src, &p, ct, c->err);
    Tensor *res = rows ? tensor_empty(ct, p.out_ndim, p.out_sizes, c->err) : NULL;
    tensor_unref(src);
    if (!res) {
        tensor_unref(rows);
        return c->err->code;
    }
    if (ct == DT_F32)
        fold_float(kind, out, tensor_data(rows), p.nrows, p.rowlen, tensor_data(res));
    else if (ct == DT_F64)
        fold_double(kind, out, tensor_data(rows), p.nrows, p.rowlen, tensor_data(res));
    else
        fold_int64(kind, tensor_data(rows), p.nrows, p.rowlen, tensor_data(res));
    tensor_unref(rows);
    return reduce_out(c, 0, res, out);
}

/* sum.default(self, *, dtype): every element. */
EpStatus k_sum(OpCall *c) { return fold(c, FOLD_SUM, -1, false, arg_dtype(c, 1, DT_INVALID)); }

/* sum.dim_IntList(self, dim, keepdim, *, dtype); dim None or [] is every dim. */
EpStatus k_sum_dim(OpCall *c) { return fold(c, FOLD_SUM, 1, arg_bool(c, 2), arg_dtype(c, 3, DT_INVALID)); }

/* nansum(self, dim=None, keepdim, *, dtype): NaNs count as zero. */
EpStatus k_nansum(OpCall *c) { return fold(c, FOLD_NANSUM, 1, arg_bool(c, 2), arg_dtype(c, 3, DT_INVALID)); }

/* mean.default(self, *, dtype); floating types only (0/0 gives NaN). */
EpStatus k_mean(OpCall *c) { return fold(c, FOLD_MEAN, -1, false, arg_dtype(c, 1, DT_INVALID)); }

/* mean.dim(self, dim, keepdim, *, dtype). */
EpStatus k_mean_dim(OpCall *c) { return fold(c, FOLD_MEAN, 1, arg_bool(c, 2), arg_dtype(c, 3, DT_INVALID)); }

/* nanmean(self, dim=None, keepdim, *, dtype): nansum / count of non-NaNs. */
EpStatus k_nanmean(OpCall *c) { return fold(c, FOLD_NANMEAN, 1, arg_bool(c, 2), arg_dtype(c, 3, DT_INVALID)); }

/* prod.default(self, *, dtype). */
EpStatus k_prod(OpCall *c) { return fold(c, FOLD_PROD, -1, false, arg_dtype(c, 1, DT_INVALID)); }

/* prod.dim_int(self, dim, keepdim, *, dtype). */
EpStatus k_prod_dim(OpCall *c) { return fold(c, FOLD_PROD, 1, arg_bool(c, 2), arg_dtype(c, 3, DT_INVALID)); }

/* ---- any, all, count_nonzero --------------------------------------------- */

typedef enum TestKind { TEST_ANY, TEST_ALL, TEST_COUNT } TestKind;

/* y[r] = how many of row r's values are non-zero (NaN is non-zero). */
#define DEFINE_COUNT_NONZERO(T)                                                          \
    static void count_nonzero_##T(const T *x, int64_t nrows, int64_t len, int64_t *y)   \
    {                                                                                    \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                  \
            int64_t k = 0;                                                               \
            for (int64_t i = 0; i < len; i++)                                            \
                k += x[i] != 0;                                                          \
            y[r] = k;                                                                    \
        }                                                                                \
    }
DEFINE_COUNT_NONZERO(int64_t)
DEFINE_COUNT_NONZERO(float)
DEFINE_COUNT_NONZERO(double)

/* Shared body of any/all/count_nonzero over the dims of argument dim_arg
** (-1: every dim).  any and all give bool, except that uint8 inputs keep
** uint8 (a legacy PyTorch keeps); count_nonzero gives int64. */
static EpStatus test_fold(OpCall *c, TestKind kind, int dim_arg, bool keepdim)
{
    Tensor *self = arg_tensor(c, 0);
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, dim_arg, keepdim, &p);
    if (rc)
        return rc;
    DType ct = reduce_compute_dtype(self->dtype);
    Tensor *rows = reduce_rows(self, &p, ct, c->err);
    Tensor *res = rows ? tensor_empty(DT_I64, p.out_ndim, p.out_sizes, c->err) : NULL;
    if (!res) {
        tensor_unref(rows);
        return c->err->code;
    }
    int64_t *y = tensor_data(res);
    if (ct == DT_F32)
        count_nonzero_float(tensor_data(rows), p.nrows, p.rowlen, y);
    else if (ct == DT_F64)
        count_nonzero_double(tensor_data(rows), p.nrows, p.rowlen, y);
    else
        count_nonzero_int64_t(tensor_data(rows), p.nrows, p.rowlen, y);
    tensor_unref(rows);
    if (kind == TEST_ALL)
        for (int64_t r = 0; r < p.nrows; r++)
            y[r] = y[r] == p.rowlen;
    DType out = kind == TEST_COUNT ? DT_I64 : self->dtype == DT_U8 ? DT_U8 : DT_BOOL;
    return reduce_out(c, 0, res, out);
}

/* any.default(self) / all.default(self): every element. */
EpStatus k_any(OpCall *c) { return test_fold(c, TEST_ANY, -1, false); }
EpStatus k_all(OpCall *c) { return test_fold(c, TEST_ALL, -1, false); }

/* any.dim(self, int dim, keepdim) and any.dims(self, int[]? dim, keepdim);
** all likewise. */
EpStatus k_any_dim(OpCall *c) { return test_fold(c, TEST_ANY, 1, arg_bool(c, 2)); }
EpStatus k_all_dim(OpCall *c) { return test_fold(c, TEST_ALL, 1, arg_bool(c, 2)); }

/* count_nonzero.default(self, int? dim) and .dim_IntList(self, int[] dim):
** int64 counts; an empty list counts over every dim. */
EpStatus k_count_nonzero(OpCall *c) { return test_fold(c, TEST_COUNT, 1, false); }
