/*
** elementwise_activation.c -- activation functions: relu, relu6, hardtanh,
** threshold, gelu, silu, mish, hardswish, hardsigmoid, leaky_relu, elu,
** selu, celu, softplus, softshrink, hardshrink, prelu / _prelu_kernel, glu.
**
** All keep their input's dtype (Activation.cpp, cpu/Activation.cpp).  The
** smooth ones are floating-point only; relu, relu6, hardtanh and threshold
** also take integers, and relu and hardtanh are clamps.
*/
#include "elementwise.h"
#include "vecmath.h"

#include <string.h>
#include <tgmath.h>

/* ---- kernels ------------------------------------------------------------------ */

/* An activation of arithmetic and comparisons only, in the vector loops:
** as a scalar loop its ternary was a branch on the sign of the data,
** mispredicted half the time (leaky_relu took 10 ns an element) */
#define ACTIVATION_V(NAME, ...)                                                                 \
    EW_FLOAT_TYPES(EW_VLOOP1, NAME, __VA_ARGS__)                                                 \
    static const EwKernel K_##NAME = {#NAME "_cpu", {EW_FLOAT_SLOTS_BF16(NAME)}};

/* gelu, gelu(approximate='tanh'), silu, mish, elu and softplus: float32 (and
** float16, bfloat16) through vecmath's vector polynomials, float64 through
** libm, the reference the polynomials are tested against */
/* x * Phi(x) with the normal CDF from erf */
VM_EWFN(gelu)
EW_LOOP1(gelu_f64, double, double, double, a * 0.5 * (1 + erf(a * 0.70710678118654752440)))
/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
VM_EWFN(gelu_tanh)
EW_LOOP1(gelu_tanh_f64, double, double, double,
         0.5 * a * (1 + tanh(0.79788456080286535588 * (a + 0.044715 * (a * a * a)))))
static const EwKernel K_gelu = {"GeluKernelImpl", {EW_FLOAT_SLOTS(gelu)}};
static const EwKernel K_gelu_tanh = {"GeluKernelImpl", {EW_FLOAT_SLOTS(gelu_tanh)}};
VM_EWFN(silu)
EW_LOOP1(silu_f64, double, double, double, a / (1 + exp(-a)))
static const EwKernel K_silu = {"silu_cpu", {EW_FLOAT_SLOTS(silu)}};
VM_EWFN(mish)
EW_LOOP1(mish_f64, double, double, double, a * tanh(log1p(exp(a))))
static const EwKernel K_mish = {"mish_cpu", {EW_FLOAT_SLOTS(mish)}};
/* min(max(x, 0), 6) as std::min(std::max(..)): nan passes through.  Each
** step in the form of the vector max and min instructions (the first
** operand where the compare holds, else the second), which GCC then uses:
** the value computed once, not a blend of two compares. */
static inline float relu6_f32(float x)
{
    x = (float)0 > x ? (float)0 : x;
    return (float)6 < x ? (float)6 : x;
}
static inline double relu6_f64(double x)
{
    x = 0.0 > x ? 0.0 : x;
    return 6.0 < x ? 6.0 : x;
}
#define RELU6_OF(x) _Generic((x), float: relu6_f32, double: relu6_f64)(x)
ACTIVATION_V(hardswish, a * RELU6_OF(a + 3) / 6)
ACTIVATION_V(hardsigmoid, RELU6_OF(a + 3) / 6)
/* f[0]: negative slope */
ACTIVATION_V(leaky_relu, a > 0 ? a : a * (T)p->f[0])
/* f[0] = alpha * scale, f[1] = scale, f[2] = input_scale; the
** coefficients rounded to float32 first, as PyTorch's float kernel has them */
static void elu_f32(char *out, char *const *in, int64_t n, EwArgs *p)
{
    const float coef[3] = {(float)p->f[0], (float)p->f[1], (float)p->f[2]};
    vm_elu_f32((float *)(void *)out, (const float *)(const void *)in[0], n, coef);
}
EW_LOOP1(elu_f64, double, double, double, a <= 0 ? expm1(a * p->f[2]) * p->f[0] : a * p->f[1])
static const EwKernel K_elu = {"elu_cpu", {EW_FLOAT_SLOTS(elu)}};
/* f[0] = beta, f[1] = threshold: linear above the threshold */
static void softplus_f32(char *out, char *const *in, int64_t n, EwArgs *p)
{
    vm_softplus_f32((float *)(void *)out, (const float *)(const void *)in[0], n, (float)p->f[0], (float)p->f[1]);
}
EW_LOOP1(softplus_f64, double, double, double, a * p->f[0] > p->f[1] ? a : log1p(exp(a * p->f[0])) / p->f[0])
static const EwKernel K_softplus = {"softplus_cpu", {EW_FLOAT_SLOTS(softplus)}};
/* f[0] = lambda; a * 0 keeps nan (PyTorch >= 2.1; 1.13 returned 0) */
ACTIVATION_V(softshrink, a > (T)p->f[0] ? a - (T)p->f[0] : a < -(T)p->f[0] ? a + (T)p->f[0] : a * 0)
ACTIVATION_V(hardshrink, (a >= -(T)p->f[0] && a <= (T)p->f[0]) ? 0 : a)

/* threshold: f[0]/i[0] the threshold, f[1]/i[1] the value below it */
EW_FLOAT_TYPES(EW_VLOOP1, threshold, a <= (T)p->f[0] ? (T)p->f[1] : a)
EW_INT_TYPES(EW_VLOOP1, threshold, a <= (T)p->i[0] ? (T)p->i[1] : a)
static const EwKernel K_THRESHOLD = {"threshold_cpu", {EW_FLOAT_SLOTS_BF16(threshold), EW_INT_SLOTS(threshold)}};

EW_FLOAT_TYPES(EW_VLOOP2, prelu, a > 0 ? a : b * a)
static const EwKernel K_PRELU = {"prelu_cpu", {EW_FLOAT_SLOTS_BF16(prelu)}};

EW_FLOAT_TYPES(EW_LOOP2, glu, a * (1 / (1 + exp(-b))))
static const EwKernel K_GLU = {"glu_cpu", {EW_FLOAT_SLOTS(glu)}};

static EpStatus activation(OpCall *c, const EwKernel *k, const EwArgs *p)
{
    Tensor *self = arg_tensor(c, 0);
    return ew_pointwise(c, k, 1, &self, EWF_SAME_DTYPE | ew_inplace_flag(c), p);
}

/* ---- clamps: relu, relu6, hardtanh ------------------------------------------------ */

/* relu / relu_: clamp_min(self, 0) */
EpStatus k_relu(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (self->dtype == DT_BOOL)
        return op_fail(c, "Boolean inputs not supported for relu");
    Value zero = value_int(0);
    return ew_clamp_scalar(c, self, &zero, NULL, (c->op->flags & OPF_INPLACE) != 0);
}

/* clamp(self, lo, hi) with hardtanh's checks; integer tensors take the
** limits truncated to integers, so they never promote. */
static EpStatus hardtanh(OpCall *c, const Value *lo, const Value *hi)
{
    Tensor *self = arg_tensor(c, 0);
    if (self->dtype == DT_BOOL)
        return op_fail(c, "Bool inputs not supported for hardtanh");
    Value ilo, ihi;
    if (dtype_is_int(self->dtype)) {
        ilo = value_int(ew_scalar_i64(lo));
        ihi = value_int(ew_scalar_i64(hi));
        if (self->dtype == DT_U8 && (ilo.i < 0 || ihi.i < 0))
            return op_fail(c, "cannot do hardtanh on an unsigned type with negative limits");
        lo = &ilo;
        hi = &ihi;
    }
    return ew_clamp_scalar(c, self, lo, hi, (c->op->flags & OPF_INPLACE) != 0);
}

/* hardtanh / hardtanh_ (self, min_val=-1, max_val=1) */
EpStatus k_hardtanh(OpCall *c)
{
    return hardtanh(c, arg_scalar(c, 1), arg_scalar(c, 2));
}

/* relu6 / relu6_: hardtanh(self, 0, 6) */
EpStatus k_relu6(OpCall *c)
{
    Value lo = value_int(0), hi = value_int(6);
    return hardtanh(c, &lo, &hi);
}

/* threshold / threshold_ (self, threshold, value): x <= threshold ? value : x */
EpStatus k_threshold(OpCall *c)
{
    EwArgs p = {0};
    p.f[0] = arg_float(c, 1);
    p.f[1] = arg_float(c, 2);
    p.i[0] = ew_scalar_i64(arg_scalar(c, 1));
    p.i[1] = ew_scalar_i64(arg_scalar(c, 2));
    return activation(c, &K_THRESHOLD, &p);
}

/* ---- smooth activations ------------------------------------------------------------- */

/* gelu / gelu_ (self, *, approximate='none') */
EpStatus k_gelu(OpCall *c)
{
    const char *approx = arg_str(c, 1);
    bool tanh_form = approx && strcmp(approx, "tanh") == 0;
    if (!approx || (!tanh_form && strcmp(approx, "none") != 0))
        return op_fail(c, "approximate argument must be either none or tanh.");
    return activation(c, tanh_form ? &K_gelu_tanh : &K_gelu, NULL);
}

/* silu, mish, hardswish, hardsigmoid and their in-place _ forms */
EpStatus k_silu(OpCall *c) { return activation(c, &K_silu, NULL); }
EpStatus k_mish(OpCall *c) { return activation(c, &K_mish, NULL); }
EpStatus k_hardswish(OpCall *c) { return activation(c, &K_hardswish, NULL); }
EpStatus k_hardsigmoid(OpCall *c) { return activation(c, &K_hardsigmoid, NULL); }

/* leaky_relu / leaky_relu_ (self, negative_slope=0.01) */
EpStatus k_leaky_relu(OpCall *c)
{
    EwArgs p = {0};
    p.f[0] = arg_float(c, 1);
    return activation(c, &K_leaky_relu, &p);
}

/* elu with coefficients already resolved. */
static EpStatus elu(OpCall *c, double alpha, double scale, double input_scale)
{
    EwArgs p = {0};
    p.f[0] = alpha * scale;
    p.f[1] = scale;
    p.f[2] = input_scale;
    return activation(c, &K_elu, &p);
}

/* elu / elu_ (self, alpha=1, scale=1, input_scale=1) */
EpStatus k_elu(OpCall *c)
{
    return elu(c, arg_float(c, 1), arg_float(c, 2), arg_float(c, 3));
}

/* selu / selu_: elu with the self-normalising constants */
EpStatus k_selu(OpCall *c)
{
    return elu(c, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1.0);
}

/* celu / celu_ (self, alpha=1.): elu(alpha, 1, 1 / alpha) */
EpStatus k_celu(OpCall *c)
{
    double alpha = arg_float(c, 1);
    if (alpha == 0)
        return op_fail(c, "ZeroDivisionError: alpha cannot be 0 for CELU");
    return elu(c, alpha, 1.0, 1.0 / alpha);
}

/* softplus (self, beta=1, threshold=20) */
EpStatus k_softplus(OpCall *c)
{
    EwArgs p = {0};
    p.f[0] = arg_float(c, 1);
    p.f[1] = arg_float(c, 2);
    return activation(c, &K_softplus, &p);
}

/* softshrink (self, lambd=0.5) */
EpStatus k_softshrink(OpCall *c)
{
    EwArgs p = {0};
    p.f[0] = arg_float(c, 1);
    if (!(p.f[0] >= 0))
        return op_fail(c, "lambda must be greater or equal to 0, but found to be %g.", p.f[0]);
    return activation(c, &K_softshrink, &p);
}

/* hardshrink (self, lambd=0.5): lambd is converted to the tensor's type
** (float16 rounds it), unlike softshrink's float32 */
EpStatus k_hardshrink(OpCall *c)
{
    EwArgs p = {0};
    p.f[0] = arg_float(c, 1);
    DType t = arg_tensor(c, 0)->dtype;
    if (t == DT_F16 || t == DT_BF16)
        p.f[0] = ew_round_to(t, (float)p.f[0]);
    return activation(c, &K_hardshrink, &p);
}

/* ---- prelu, glu ------------------------------------------------------------------------ */

/* _prelu_kernel (self, weight): self > 0 ? self : weight * self, broadcast */
EpStatus k_prelu_kernel(OpCall *c)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, &K_PRELU, 2, in, 0, NULL);
}

/* prelu (self, weight): one weight, or one per channel (dim 1), which is
** reshaped to [1, C, 1, ...] to broadcast. */
EpStatus k_prelu(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0), *w = arg_tensor(c, 1);
    if (self->dtype != w->dtype)
        return op_fail(c, "prelu: Type promoting not supported. Got %s and %s", dtype_c10_name(self->dtype),
                       dtype_c10_name(w->dtype));
    int64_t wn = tensor_numel(w);
    if (wn != 1) {
        if (self->ndim == 0)
            return op_fail(c, "Not allow zero-dim input tensor.");
        int64_t channels = self->ndim > 1 ? self->sizes[1] : 1;
        if (channels != wn)
            return op_fail(c, "Mismatch of parameter numbers and input channel size. Found parameter numbers = %lld "
                              "and channel size = %lld.", (long long)wn, (long long)channels);
    }
    if (w->ndim > 1)
        return op_fail(c, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = %d", w->ndim);
    Tensor *wv = tensor_ref(w);
    if (self->ndim != w->ndim) {
        int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
        for (int i = 0; i < self->ndim; i++) {
            sizes[i] = 1;
            strides[i] = 0;
        }
        if (self->ndim > 1) {
            sizes[1] = wn;
            strides[1] = w->ndim == 1 ? w->strides[0] : 0;
        }
        tensor_unref(wv);
        wv = tensor_as_strided(w, self->ndim, sizes, strides, w->offset, c->err);
        if (!wv)
            return c->err->code;
    }
    Tensor *in[2] = {self, wv};
    EpStatus rc = ew_pointwise(c, &K_PRELU, 2, in, 0, NULL);
    tensor_unref(wv);
    return rc;
}

/* glu (self, dim=-1): first half * sigmoid(second half) along dim */
EpStatus k_glu(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (self->ndim == 0)
        return op_fail(c, "glu does not support 0-dimensional tensors");
    int d;
    if (!dim_wrap(arg_int(c, 1), self->ndim, &d))
        return op_fail(c, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -self->ndim,
                       self->ndim - 1, (long long)arg_int(c, 1));
    int64_t n = self->sizes[d];
    if (n % 2 != 0)
        return op_fail(c, "Halving dimension must be even, but dimension %d is size %lld", d, (long long)n);
    int64_t sizes[EP_MAX_DIMS];
    for (int i = 0; i < self->ndim; i++)
        sizes[i] = self->sizes[i];
    sizes[d] = n / 2;
    Tensor *first = tensor_as_strided(self, self->ndim, sizes, self->strides, self->offset, c->err);
    if (!first)
        return c->err->code;
    Tensor *second = tensor_as_strided(self, self->ndim, sizes, self->strides,
                                       self->offset + (n / 2) * self->strides[d], c->err);
    if (!second) {
        tensor_unref(first);
        return c->err->code;
    }
    Tensor *in[2] = {first, second};
    EpStatus rc = ew_pointwise(c, &K_GLU, 2, in, EWF_SAME_DTYPE, NULL);
    tensor_unref(first);
    tensor_unref(second);
    return rc;
}
