/*
** reduce_stats.c -- folds with float results: var, std, var_mean,
** std_mean, logsumexp, norm and linalg_vector_norm.
**
** Everything accumulates in double and rounds once to the result dtype:
** PyTorch's CPU kernels use double accumulators for float32 variances
** (acc_type<float>) and float for the reduced float types, so a double
** result rounded to float32 is as close to theirs as they are to exact.
*/
#include "reduce.h"

#include <math.h>
#include <stdio.h>

#include "reduce_fast.h"

/* ---- variance and standard deviation ------------------------------------- */

/* mean[r] and m2[r] = sum of squared deviations of row r, two passes. */
#define DEFINE_MOMENTS(T)                                                                     \
    static void moments_##T(const T *x, int64_t nrows, int64_t len, double *mean, double *m2) \
    {                                                                                         \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                       \
            double mu = reduce_sum_##T(x, len, false) / (double)len;                          \
            double s = 0;                                                                     \
            for (int64_t i = 0; i < len; i++)                                                 \
                s += ((double)x[i] - mu) * ((double)x[i] - mu);                               \
            mean[r] = mu;                                                                     \
            m2[r] = s;                                                                        \
        }                                                                                     \
    }
DEFINE_MOMENTS(float)
DEFINE_MOMENTS(double)

typedef enum MomentOut { MOMENT_VAR = 1, MOMENT_STD = 2, MOMENT_MEAN = 4 } MomentOut;

/* Shared body of var/std/var_mean/std_mean: self folded over the dims of
** argument dim_arg (-1: every dim) with the given correction (divisor
** max(0, N - correction), as ReduceOps.cpp's std_var_out).  Writes the
** spread (variance or its root) as output 0 and, with MOMENT_MEAN, the
** mean as output 1. */
static EpStatus moments(OpCall *c, unsigned what, int dim_arg, bool keepdim, double correction)
{
    Tensor *self = arg_tensor(c, 0);
    if (!dtype_is_float(self->dtype))
        return op_fail(c, "std and var only support floating point and complex dtypes");
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, dim_arg, keepdim, &p);
    if (rc)
        return rc;
    DType ct = reduce_compute_dtype(self->dtype);
    /* contiguous float32 rows (the folded dims innermost) need no gathering */
    RfShape fs;
    bool fast = self->dtype == DT_F32 && reduce_fast_enabled(c) && reduce_fast_shape(self, p.reduced, &fs) &&
                fs.inner == 1;
    Tensor *rows = fast ? tensor_ref(self) : reduce_rows(self, &p, ct, c->err);
    Tensor *spread = rows ? tensor_empty(DT_F64, p.out_ndim, p.out_sizes, c->err) : NULL;
    Tensor *mean = spread ? tensor_empty(DT_F64, p.out_ndim, p.out_sizes, c->err) : NULL;
    Tensor *outs[2] = {NULL, NULL};
    if (!mean)
        goto fail;
    double *s = tensor_data(spread), *mu = tensor_data(mean);
    if (fast)
        reduce_fast_moments(tensor_data(rows), fs.outer, fs.len, mu, s);
    else if (ct == DT_F32)
        moments_float(tensor_data(rows), p.nrows, p.rowlen, mu, s);
    else
        moments_double(tensor_data(rows), p.nrows, p.rowlen, mu, s);
    double divisor = (double)p.rowlen - correction;
    if (divisor < 0)
        divisor = 0;
    for (int64_t r = 0; r < p.nrows; r++) {
        s[r] /= divisor;
        if (what & MOMENT_STD)
            s[r] = sqrt(s[r]);
    }
    outs[0] = tensor_as_contiguous_dtype(spread, self->dtype, c->err);
    if (!outs[0])
        goto fail;
    if (what & MOMENT_MEAN) {
        outs[1] = tensor_as_contiguous_dtype(mean, self->dtype, c->err);
        if (!outs[1])
            goto fail;
        out_tensor(c, 1, outs[1]);
    }
    out_tensor(c, 0, outs[0]);
    tensor_unref(rows);
    tensor_unref(spread);
    tensor_unref(mean);
    return EP_OK;
fail:
    tensor_unref(outs[0]);
    tensor_unref(rows);
    tensor_unref(spread);
    tensor_unref(mean);
    return c->err->code;
}

static unsigned moment_kind(const OpCall *c)
{
    switch (c->op->id) {
    case OP_STD_DEFAULT:
    case OP_STD_DIM:
    case OP_STD_CORRECTION: return MOMENT_STD;
    case OP_VAR_MEAN_DEFAULT:
    case OP_VAR_MEAN_DIM:
    case OP_VAR_MEAN_CORRECTION: return MOMENT_VAR | MOMENT_MEAN;
    case OP_STD_MEAN_DEFAULT:
    case OP_STD_MEAN_DIM:
    case OP_STD_MEAN_CORRECTION: return MOMENT_STD | MOMENT_MEAN;
    default: return MOMENT_VAR;
    }
}

/* var.default(self, unbiased=True) and std/var_mean/std_mean likewise:
** every element, Bessel's correction when unbiased. */
EpStatus k_var(OpCall *c) { return moments(c, moment_kind(c), -1, false, arg_bool(c, 1) ? 1 : 0); }

/* var.dim(self, dim, unbiased=True, keepdim) and the std/var_mean/std_mean
** .dim overloads; dim None or [] folds every dim. */
EpStatus k_var_dim(OpCall *c) { return moments(c, moment_kind(c), 1, arg_bool(c, 3), arg_bool(c, 2) ? 1 : 0); }

/* var.correction(self, dim=None, *, correction=None, keepdim) and the
** std/var_mean/std_mean .correction overloads; correction None means 1 and
** may be fractional (modern PyTorch; 1.13 took int? correction). */
EpStatus k_var_correction(OpCall *c)
{
    double corr = arg_is_none(c, 2) ? 1.0 : arg_float(c, 2);
    return moments(c, moment_kind(c), 1, arg_bool(c, 3), corr);
}

/* ---- logsumexp ----------------------------------------------------------- */

/* y[r] = log(sum(exp(x - m))) + m with m the row's max, replaced by 0 when
** infinite (ReduceOps.cpp's logsumexp_out_impl), so rows holding +inf give
** inf and all -inf rows give -inf instead of NaN.  For float16/bfloat16
** results PyTorch runs each of those steps in the tensor's type (the sum
** accumulating in float), so rt rounds them alike; rt is DT_F64 (no
** rounding) otherwise. */
#define DEFINE_LOGSUMEXP(T)                                                                   \
    static void logsumexp_##T(const T *x, int64_t nrows, int64_t len, DType rt, double *y)    \
    {                                                                                         \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                       \
            double m = len > 0 ? x[0] : 0;                                                    \
            for (int64_t i = 1; i < len && m == m; i++)                                       \
                if (x[i] > m || x[i] != x[i])                                                 \
                    m = x[i];                                                                 \
            if (isinf(m))                                                                     \
                m = 0;                                                                        \
            double s = 0;                                                                     \
            for (int64_t i = 0; i < len; i++)                                                 \
                s += reduce_round_to(rt, exp(reduce_round_to(rt, (double)x[i] - m)));         \
            y[r] = reduce_round_to(rt, log(reduce_round_to(rt, s))) + m;                      \
        }                                                                                     \
    }
DEFINE_LOGSUMEXP(float)
DEFINE_LOGSUMEXP(double)

/* logsumexp(self, int[1] dim, keepdim).  Integers and bools are first cast
** to float32, the default dtype. */
EpStatus k_logsumexp(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    bool keepdim = arg_bool(c, 2);
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, 1, keepdim, &p);
    if (rc)
        return rc;
    if (p.all && !keepdim && self->ndim > 0 && tensor_numel(self) != 0) {
        /* PyTorch adds the kept-dim maxes to the squeezed sums, and with an
        ** empty dim list nothing is squeezed */
        int64_t ones[EP_MAX_DIMS];
        char buf[256];
        for (int i = 0; i < self->ndim; i++)
            ones[i] = 1;
        return op_fail(c, "output with shape [] doesn't match the broadcast shape %s",
                       shape_str(self->ndim, ones, buf, sizeof buf));
    }
    DType out = dtype_is_float(self->dtype) ? self->dtype : DT_F32;
    DType ct = reduce_compute_dtype(out);
    RfShape fs;
    if (self->dtype == DT_F32 && reduce_fast_enabled(c) && reduce_fast_shape(self, p.reduced, &fs) &&
        fs.inner == 1) {
        Tensor *fres = tensor_empty(DT_F64, p.out_ndim, p.out_sizes, c->err);
        if (!fres)
            return c->err->code;
        reduce_fast_logsumexp(tensor_data(self), fs.outer, fs.len, tensor_data(fres));
        return reduce_out(c, 0, fres, out);
    }
    Tensor *rows = reduce_rows(self, &p, ct, c->err);
    Tensor *res = rows ? tensor_empty(DT_F64, p.out_ndim, p.out_sizes, c->err) : NULL;
    if (!res) {
        tensor_unref(rows);
        return c->err->code;
    }
    DType rt = (out == DT_F16 || out == DT_BF16) ? out : DT_F64;
    if (ct == DT_F32)
        logsumexp_float(tensor_data(rows), p.nrows, p.rowlen, rt, tensor_data(res));
    else
        logsumexp_double(tensor_data(rows), p.nrows, p.rowlen, rt, tensor_data(res));
    tensor_unref(rows);
    return reduce_out(c, 0, res, out);
}

/* ---- vector norms -------------------------------------------------------- */

/* y[r] = the ord-norm of row r: count of non-zeros for 0, max/min |x| for
** +-inf (NaN wins), sum |x| for 1, sqrt(sum x^2) for 2, else
** (sum |x|^ord)^(1/ord). */
#define DEFINE_NORM(T)                                                                        \
    static void norm_##T(const T *x, int64_t nrows, int64_t len, double ord, double *y)       \
    {                                                                                         \
        for (int64_t r = 0; r < nrows; r++, x += len) {                                       \
            double acc = ord == -INFINITY ? INFINITY : 0;                                     \
            for (int64_t i = 0; i < len; i++) {                                               \
                double a = fabs((double)x[i]);                                                \
                if (ord == 0)                                                                 \
                    acc += a != 0;                                                            \
                else if (ord == INFINITY || ord == -INFINITY) {                               \
                    if (a != a || acc != acc)                                                 \
                        acc = NAN;                                                            \
                    else if (ord > 0 ? a > acc : a < acc)                                     \
                        acc = a;                                                              \
                } else if (ord == 1)                                                          \
                    acc += a;                                                                 \
                else if (ord == 2)                                                            \
                    acc += a * a;                                                             \
                else                                                                          \
                    acc += pow(a, ord);                                                       \
            }                                                                                 \
            if (ord == 2)                                                                     \
                acc = sqrt(acc);                                                              \
            else if (ord != 0 && ord != 1 && !isinf(ord))                                     \
                acc = pow(acc, 1.0 / ord);                                                    \
            y[r] = acc;                                                                       \
        }                                                                                     \
    }
DEFINE_NORM(float)
DEFINE_NORM(double)

static const char *ord_str(double ord, char *buf, size_t cap)
{
    snprintf(buf, cap, "%g", ord);
    return buf;
}

/* Shared body of norm.* and linalg_vector_norm: the ord-norm of self over
** the dims of argument dim_arg (-1: every dim), computed on self cast to
** dtype (DT_INVALID: self's dtype). */
static EpStatus vector_norm(OpCall *c, double ord, int dim_arg, bool keepdim, DType dtype)
{
    Tensor *self = arg_tensor(c, 0);
    ReducePlan p;
    EpStatus rc = reduce_plan_arg(c, self, dim_arg, keepdim, &p);
    if (rc)
        return rc;
    if (tensor_numel(self) == 0 && (ord < 0 || ord == INFINITY)) {
        char buf[32];
        if (p.all)
            return op_fail(c, "linalg.vector_norm cannot compute the %s norm on an empty tensor because the "
                              "operation does not have an identity", ord_str(ord, buf, sizeof buf));
        for (int d = 0; d < self->ndim; d++)
            if (p.reduced[d] && self->sizes[d] == 0)
                return op_fail(c, "linalg.vector_norm cannot compute the %s norm on the dimension %d because "
                                  "this dimension is empty and the operation does not have an identity",
                               ord_str(ord, buf, sizeof buf), d);
    }
    DType out = dtype == DT_INVALID ? self->dtype : dtype;
    Tensor *src = out == self->dtype ? tensor_ref(self) : tensor_to_dtype(self, out, c->err);
    if (!src)
        return c->err->code;
    DType ct = reduce_compute_dtype(out);
    Tensor *rows = reduce_rows(src, &p, ct, c->err);
    tensor_unref(src);
    Tensor *res = rows ? tensor_empty(DT_F64, p.out_ndim, p.out_sizes, c->err) : NULL;
    if (!res) {
        tensor_unref(rows);
        return c->err->code;
    }
    if (ct == DT_F32)
        norm_float(tensor_data(rows), p.nrows, p.rowlen, ord, tensor_data(res));
    else
        norm_double(tensor_data(rows), p.nrows, p.rowlen, ord, tensor_data(res));
    tensor_unref(rows);
    return reduce_out(c, 0, res, out);
}

/* linalg_vector_norm(self, ord=2, dim=None, keepdim, *, dtype=None). */
EpStatus k_linalg_vector_norm(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (!dtype_is_float(self->dtype))
        return op_fail(c, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                       dtype_c10_name(self->dtype));
    DType dtype = arg_dtype(c, 4, DT_INVALID);
    if (dtype != DT_INVALID) {
        if (!dtype_is_float(dtype))
            return op_fail(c, "linalg.vector_norm: dtype should be floating point or complex, but got %s",
                           dtype_c10_name(dtype));
        if (dtype_promote(self->dtype, dtype) != dtype)
            return op_fail(c, "linalg.vector_norm: the dtype of the input (%s) should be convertible without "
                              "narrowing to the specified dtype (%s)",
                           dtype_c10_name(self->dtype), dtype_c10_name(dtype));
    }
    return vector_norm(c, arg_float(c, 1), 2, arg_bool(c, 3), dtype);
}

/* norm.Scalar(self, p=2), norm.ScalarOpt_dim(self, p?, dim, keepdim),
** norm.ScalarOpt_dim_dtype(..., *, dtype), norm.ScalarOpt_dtype(self, p?,
** *, dtype).  Modern PyTorch computes these through linalg_vector_norm, so
** an inf or negative norm over an empty dim is an error (1.13 gave 0). */
EpStatus k_norm(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (!dtype_is_float(self->dtype))
        return op_fail(c, "norm(): input dtype should be either floating point or complex. Got %s instead.",
                       dtype_c10_name(self->dtype));
    double ord = arg_is_none(c, 1) ? 2.0 : arg_float(c, 1);
    int dim_arg = -1, dtype_arg = -1;
    bool keepdim = false;
    switch (c->op->id) {
    case OP_NORM_SCALAROPT_DIM: dim_arg = 2; keepdim = arg_bool(c, 3); break;
    case OP_NORM_SCALAROPT_DIM_DTYPE: dim_arg = 2; keepdim = arg_bool(c, 3); dtype_arg = 4; break;
    case OP_NORM_SCALAROPT_DTYPE: dtype_arg = 2; break;
    default: break;
    }
    DType dtype = dtype_arg < 0 ? DT_INVALID : arg_dtype(c, dtype_arg, DT_INVALID);
    if (dtype != DT_INVALID && !dtype_is_float(dtype))
        return op_fail(c, "norm(): the desired output dtype should be either floating point or complex. Got %s "
                          "instead.", dtype_c10_name(dtype));
    return vector_norm(c, ord, dim_arg, keepdim, dtype);
}
