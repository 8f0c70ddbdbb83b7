/*
** elementwise_arith.c -- binary and ternary arithmetic: add, sub, rsub, mul,
** div (true, trunc, floor), true_divide, remainder, fmod, floor_divide,
** pow, maximum, minimum, fmax, fmin, atan2, hypot, copysign, xlogy, lerp,
** addcmul, addcdiv.
**
** Semantics follow aten/src/ATen/native/BinaryOps.cpp, cpu/BinaryOpsKernel.cpp,
** cpu/PowKernel.cpp and PointwiseOps.cpp: the common dtype is
** torch.result_type of the operands (true division, atan2, copysign and
** xlogy take integers to float32); integers wrap; integer division and
** remainder by zero raise "ZeroDivisionError"; floor division and remainder
** round toward -inf as Python does.
*/
#include "elementwise.h"

#include <string.h>
#include <tgmath.h>

/* ---- scalar helpers, once per floating type ------------------------------ */

enum { POW_GENERAL, POW_SQUARE, POW_CUBE, POW_INV_SQUARE, POW_SQRT, POW_RSQRT, POW_RECIPROCAL };

/* The helpers below, stamped once per floating type (each declares T for
** the macros it uses):
**   floordiv  c10::div_floor_floating: Python's float //, exact because
**             fmod is
**   py_mod    Python's float %: the result takes the divisor's sign
**   lerp      at::lerp: the two forms keep the ends exact for weights 0, 1
** (pow with a scalar exponent is a kernel per form, below pow.Tensor) */
#define DEFINE_FLOAT_HELPERS(TYPE, SFX)                                                          \
    static inline TYPE floordiv_##SFX(TYPE a, TYPE b)                                            \
    {                                                                                            \
        typedef TYPE T;                                                                          \
        if (b == 0)                                                                              \
            return a / b; /* the IEEE result: inf, -inf or nan */                                \
        T mod = fmod(a, b);                                                                      \
        T div = (a - mod) / b;                                                                   \
        if (mod != 0 && (b < 0) != (mod < 0))                                                    \
            div -= 1;                                                                            \
        if (div == 0)                                                                            \
            return copysign((T)0, a / b);                                                        \
        T fl = floor(div);                                                                       \
        if (div - fl > (T)0.5)                                                                   \
            fl += 1;                                                                             \
        return fl;                                                                               \
    }                                                                                            \
    static inline TYPE py_mod_##SFX(TYPE a, TYPE b)                                              \
    {                                                                                            \
        TYPE m = fmod(a, b);                                                                     \
        if (m != 0 && (b < 0) != (m < 0))                                                        \
            m += b;                                                                              \
        return m;                                                                                \
    }                                                                                            \
    static inline TYPE lerp_##SFX(TYPE self, TYPE end, TYPE w)                                   \
    {                                                                                            \
        typedef TYPE T;                                                                          \
        return fabs(w) < (T)0.5 ? op_fma(w, end - self, self) : op_fma(-(end - self), 1 - w, end); \
    }

DEFINE_FLOAT_HELPERS(float, f32)
DEFINE_FLOAT_HELPERS(double, f64)

#define floordiv(a, b) _Generic((a), float: floordiv_f32, double: floordiv_f64)(a, b)
#define py_mod(a, b) _Generic((a), float: py_mod_f32, double: py_mod_f64)(a, b)
#define lerp(a, b, w) _Generic((a), float: lerp_f32, double: lerp_f64)(a, b, w)

/* Integer helpers work in int64: every narrower type's wrapped result is
** the int64 result truncated, so one version serves all widths. */
static inline int64_t trunc_div_i64(int64_t a, int64_t b)
{
    return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b; /* INT_MIN / -1 wraps */
}

static inline int64_t c_mod_i64(int64_t a, int64_t b)
{
    return b == -1 ? 0 : a % b;
}

/* at::native::powi: negative exponents give 0 except for bases 1 and -1. */
static inline int64_t powi_i64(int64_t base, int64_t exp)
{
    if (exp < 0) {
        if (base == 1)
            return 1;
        if (base == -1)
            return (exp & 1) ? -1 : 1;
        return 0;
    }
    uint64_t r = 1, b = (uint64_t)base;
    while (exp) {
        if (exp & 1)
            r *= b;
        b *= b;
        exp >>= 1;
    }
    return (int64_t)r;
}

/* An integer division by zero: flag it (the op then fails) and store 0. */
#define ZERO_DIV ((p->zero_div = true), (T)0)

/* ---- typed loops and kernels ------------------------------------------------ */

/* a + alpha * b, fused (op_fma; alpha 1 gives the plain sum); sub runs it
** with -alpha (as PyTorch's sub_kernel). */
EW_FLOAT_TYPES(EW_VLOOP2, add, op_fma((T)p->f[0], b, a))
EW_INT_TYPES(EW_VLOOP2, add, (uint64_t)a + (uint64_t)p->i[0] * (uint64_t)b)
EW_BOOL_TYPE(EW_VLOOP2, add, a || (p->i[0] != 0 && b))
static const EwKernel K_ADD = {"add_cpu", {EW_FLOAT_SLOTS_BF16(add), EW_INT_SLOTS(add), EW_BOOL_SLOT(add)}};

EW_FLOAT_TYPES(EW_VLOOP2, mul, a * b)
EW_INT_TYPES(EW_VLOOP2, mul, (uint64_t)a * (uint64_t)b)
EW_BOOL_TYPE(EW_VLOOP2, mul, a && b)
static const EwKernel K_MUL = {"mul_cpu", {EW_FLOAT_SLOTS_BF16(mul), EW_INT_SLOTS(mul), EW_BOOL_SLOT(mul)}};

EW_FLOAT_TYPES(EW_VLOOP2, div_true, a / b)
static const EwKernel K_DIV_TRUE = {"div_cpu", {EW_FLOAT_SLOTS_BF16(div_true)}};

EW_FLOAT_TYPES(EW_LOOP2, div_trunc, trunc(EW_ROUND_MID(a / b)))
EW_INT_TYPES(EW_LOOP2, div_trunc, b == 0 ? ZERO_DIV : (T)trunc_div_i64(a, b))
static const EwKernel K_DIV_TRUNC = {"div_trunc_cpu", {EW_FLOAT_SLOTS(div_trunc), EW_INT_SLOTS(div_trunc)}};

EW_FLOAT_TYPES(EW_LOOP2, div_floor, floordiv(a, b))
EW_INT_TYPES(EW_LOOP2, div_floor, b == 0 ? ZERO_DIV : (T)ep_floordiv_i64(a, b))
static const EwKernel K_DIV_FLOOR = {"div_floor_cpu", {EW_FLOAT_SLOTS(div_floor), EW_INT_SLOTS(div_floor)}};

EW_FLOAT_TYPES(EW_LOOP2, remainder, py_mod(a, b))
EW_INT_TYPES(EW_LOOP2, remainder, b == 0 ? ZERO_DIV : (T)ep_mod_i64(a, b))
static const EwKernel K_REMAINDER = {"remainder_cpu", {EW_FLOAT_SLOTS(remainder), EW_INT_SLOTS(remainder)}};

EW_FLOAT_TYPES(EW_LOOP2, fmod, fmod(a, b))
EW_INT_TYPES(EW_LOOP2, fmod, b == 0 ? ZERO_DIV : (T)c_mod_i64(a, b))
static const EwKernel K_FMOD = {"fmod_cpu", {EW_FLOAT_SLOTS(fmod), EW_INT_SLOTS(fmod)}};

EW_FLOAT_TYPES(EW_LOOP2, pow, pow(a, b))
EW_INT_TYPES(EW_LOOP2, pow, powi_i64(a, b))
static const EwKernel K_POW = {"pow", {EW_FLOAT_SLOTS(pow), EW_INT_SLOTS(pow)}};

/* pow(x, scalar exponent) with PyTorch's fast paths (PowKernel.cpp), a
** loop per form, indexed by the POW_ enum: a switch per element kept the
** loop scalar, 8x slower than PyTorch on x ** 2.  The general form runs in
** double as std::pow(float, double) does; bfloat16 rounds x * x as its
** BFloat16 arithmetic does (mid_dtype).  sqrt is <tgmath.h>'s: sqrtf for
** float, so 1 / sqrt(x) divides in float, as PyTorch does. */
EW_FLOAT_TYPES(EW_LOOP1, pow_general, (T)pow((double)a, p->f[0]))
EW_FLOAT_TYPES(EW_VLOOP1, pow_square, a * a)
EW_FLOAT_TYPES(EW_VLOOP1, pow_cube, EW_ROUND_MID(a * a) * a)
EW_FLOAT_TYPES(EW_VLOOP1, pow_inv_square, 1 / EW_ROUND_MID(a * a))
EW_FLOAT_TYPES(EW_VLOOP1, pow_sqrt, sqrt(a))
EW_FLOAT_TYPES(EW_VLOOP1, pow_rsqrt, 1 / sqrt(a))
EW_FLOAT_TYPES(EW_VLOOP1, pow_reciprocal, 1 / a)
EW_INT_TYPES(EW_LOOP1, pow_scalar, powi_i64(a, p->i[0]))
static const EwKernel K_POW_SCALAR[] = {
    [POW_GENERAL] = {"pow", {EW_FLOAT_SLOTS(pow_general), EW_INT_SLOTS(pow_scalar)}},
    [POW_SQUARE] = {"pow", {EW_FLOAT_SLOTS_BF16(pow_square), EW_INT_SLOTS(pow_scalar)}},
    [POW_CUBE] = {"pow", {EW_FLOAT_SLOTS_BF16(pow_cube), EW_INT_SLOTS(pow_scalar)}},
    [POW_INV_SQUARE] = {"pow", {EW_FLOAT_SLOTS_BF16(pow_inv_square), EW_INT_SLOTS(pow_scalar)}},
    [POW_SQRT] = {"pow", {EW_FLOAT_SLOTS_BF16(pow_sqrt), EW_INT_SLOTS(pow_scalar)}},
    [POW_RSQRT] = {"pow", {EW_FLOAT_SLOTS_BF16(pow_rsqrt), EW_INT_SLOTS(pow_scalar)}},
    [POW_RECIPROCAL] = {"pow", {EW_FLOAT_SLOTS_BF16(pow_reciprocal), EW_INT_SLOTS(pow_scalar)}},
};

/* x ** 0 is 1 and x ** 1 is x for every dtype, nan included. */
EW_FLOAT_TYPES(EW_VLOOP1, one, 1)
EW_INT_TYPES(EW_VLOOP1, one, 1)
EW_BOOL_TYPE(EW_VLOOP1, one, 1)
static const EwKernel K_ONE = {"fill", {EW_FLOAT_SLOTS_BF16(one), EW_INT_SLOTS(one), EW_BOOL_SLOT(one)}};
EW_FLOAT_TYPES(EW_VLOOP1, copy, a)
EW_INT_TYPES(EW_VLOOP1, copy, a)
EW_BOOL_TYPE(EW_VLOOP1, copy, a)
static const EwKernel K_COPY = {"copy", {EW_FLOAT_SLOTS_BF16(copy), EW_INT_SLOTS(copy), EW_BOOL_SLOT(copy)}};

/* maximum/minimum propagate NaN; fmax/fmin ignore it (C's fmax). */
EW_FLOAT_TYPES(EW_VLOOP2, maximum, (a != a || b != b) ? (T)NAN : (a < b ? b : a))
EW_INT_TYPES(EW_VLOOP2, maximum, a < b ? b : a)
EW_BOOL_TYPE(EW_VLOOP2, maximum, a || b)
static const EwKernel K_MAXIMUM = {"maximum_cpu", {EW_FLOAT_SLOTS_BF16(maximum), EW_INT_SLOTS(maximum), EW_BOOL_SLOT(maximum)}};

EW_FLOAT_TYPES(EW_VLOOP2, minimum, (a != a || b != b) ? (T)NAN : (b < a ? b : a))
EW_INT_TYPES(EW_VLOOP2, minimum, b < a ? b : a)
EW_BOOL_TYPE(EW_VLOOP2, minimum, a && b)
static const EwKernel K_MINIMUM = {"minimum_cpu", {EW_FLOAT_SLOTS_BF16(minimum), EW_INT_SLOTS(minimum), EW_BOOL_SLOT(minimum)}};

EW_FLOAT_TYPES(EW_LOOP2, fmax, fmax(a, b))
EW_FLOAT_TYPES(EW_LOOP2, fmin, fmin(a, b))
static const EwKernel K_FMAX = {"fmax_cpu", {EW_FLOAT_SLOTS(fmax), EW_INT_SLOTS(maximum), EW_BOOL_SLOT(maximum)}};
static const EwKernel K_FMIN = {"fmin_cpu", {EW_FLOAT_SLOTS(fmin), EW_INT_SLOTS(minimum), EW_BOOL_SLOT(minimum)}};

EW_FLOAT_TYPES(EW_LOOP2, atan2, atan2(a, b))
static const EwKernel K_ATAN2 = {"atan2_cpu", {EW_FLOAT_SLOTS(atan2)}};
EW_FLOAT_TYPES(EW_LOOP2, hypot, hypot(a, b))
static const EwKernel K_HYPOT = {"hypot_cpu", {EW_FLOAT_SLOTS(hypot)}};
EW_FLOAT_TYPES(EW_VLOOP2, copysign, copysign(a, b))
static const EwKernel K_COPYSIGN = {"copysign_cpu", {EW_FLOAT_SLOTS_BF16(copysign)}};
/* 0 * log(y) is 0 even where log(y) is -inf, unless y is nan */
EW_FLOAT_TYPES(EW_LOOP2, xlogy, b != b ? (T)NAN : a == 0 ? (T)0 : a * log(b))
static const EwKernel K_XLOGY = {"xlogy_cpu", {EW_FLOAT_SLOTS(xlogy)}};

EW_FLOAT_TYPES(EW_VLOOP2, lerp_scalar, lerp(a, b, (T)p->f[0]))
static const EwKernel K_LERP_SCALAR = {"lerp_kernel_scalar", {EW_FLOAT_SLOTS_BF16(lerp_scalar)}};
EW_FLOAT_TYPES(EW_VLOOP3, lerp_tensor, lerp(a, b, c))
static const EwKernel K_LERP_TENSOR = {"lerp_kernel_tensor", {EW_FLOAT_SLOTS_BF16(lerp_tensor)}};

EW_FLOAT_TYPES(EW_VLOOP3, addcmul, op_fma((T)p->f[0] * b, c, a))
EW_INT_TYPES(EW_VLOOP3, addcmul, (uint64_t)a + (uint64_t)p->i[0] * (uint64_t)b * (uint64_t)c)
static const EwKernel K_ADDCMUL = {"addcmul_cpu_out", {EW_FLOAT_SLOTS_BF16(addcmul), EW_INT_SLOTS(addcmul)}};
EW_FLOAT_TYPES(EW_VLOOP3, addcdiv, a + (T)p->f[0] * b / c)
static const EwKernel K_ADDCDIV = {"addcdiv_cpu_out", {EW_FLOAT_SLOTS_BF16(addcdiv)}};

/* ---- add, sub, rsub, mul ------------------------------------------------------ */

/* alpha_check of BinaryOps.cpp, against the common dtype. */
static EpStatus alpha_check(OpCall *c, DType common, const Value *alpha)
{
    if (alpha->kind == V_BOOL && common != DT_BOOL)
        return op_fail(c, "Boolean alpha only supported for Boolean results.");
    if (!dtype_is_float(common) && alpha->kind == V_FLOAT)
        return op_fail(c, "For integral input tensors, argument alpha must not be a floating point number.");
    return EP_OK;
}

static EpStatus sub_check(OpCall *c, const Tensor *a, const Tensor *b)
{
    if (a->dtype == DT_BOOL && b->dtype == DT_BOOL)
        return op_fail(c, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                          "Use the `^` or `logical_xor()` operator instead.");
    if (a->dtype == DT_BOOL || b->dtype == DT_BOOL)
        return op_fail(c, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                          "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    return EP_OK;
}

/* a + alpha * b, or a - alpha * b when negate. */
static EpStatus run_add(OpCall *c, Tensor *a, Tensor *b, const Value *alpha, bool negate, unsigned flags)
{
    Tensor *in[2] = {a, b};
    DType common = ew_common_dtype(2, in, 0);
    EpStatus rc = alpha_check(c, common, alpha);
    if (rc)
        return rc;
    EwArgs p = {0};
    double af = value_as_f64(alpha);
    int64_t ai = ew_scalar_i64(alpha);
    /* add is a generated "ufunc" kernel: alpha and a scalar other are
    ** converted to the common dtype, float16 included (no opmath scalar as
    ** mul and div have) */
    if (common == DT_F16 || common == DT_BF16)
        af = ew_round_to(common, (float)af);
    p.f[0] = negate ? -af : af;
    p.i[0] = negate ? (int64_t)(0 - (uint64_t)ai) : ai;
    return ew_pointwise(c, &K_ADD, 2, in, flags, &p);
}

/* add.Tensor / add_.Tensor (self, other, *, alpha) */
EpStatus k_add(OpCall *c)
{
    return run_add(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_scalar(c, 2), false, ew_inplace_flag(c));
}

/* add.Scalar / add_.Scalar (self, other, alpha) */
EpStatus k_add_scalar(OpCall *c)
{
    Tensor *s = value_wrap_number(arg_scalar(c, 1), c->err);
    if (!s)
        return c->err->code;
    EpStatus rc = run_add(c, arg_tensor(c, 0), s, arg_scalar(c, 2), false, ew_inplace_flag(c));
    tensor_unref(s);
    return rc;
}

/* sub.Tensor / sub_.Tensor */
EpStatus k_sub(OpCall *c)
{
    EpStatus rc = sub_check(c, arg_tensor(c, 0), arg_tensor(c, 1));
    if (rc)
        return rc;
    return run_add(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_scalar(c, 2), true, ew_inplace_flag(c));
}

/* sub.Scalar / sub_.Scalar */
EpStatus k_sub_scalar(OpCall *c)
{
    Tensor *s = value_wrap_number(arg_scalar(c, 1), c->err);
    if (!s)
        return c->err->code;
    EpStatus rc = sub_check(c, arg_tensor(c, 0), s);
    if (rc == EP_OK)
        rc = run_add(c, arg_tensor(c, 0), s, arg_scalar(c, 2), true, ew_inplace_flag(c));
    tensor_unref(s);
    return rc;
}

/* rsub.Tensor (self, other, *, alpha): other - alpha * self */
EpStatus k_rsub(OpCall *c)
{
    EpStatus rc = sub_check(c, arg_tensor(c, 1), arg_tensor(c, 0));
    if (rc)
        return rc;
    return run_add(c, arg_tensor(c, 1), arg_tensor(c, 0), arg_scalar(c, 2), true, 0);
}

/* rsub.Scalar (self, other, alpha): other - alpha * self */
EpStatus k_rsub_scalar(OpCall *c)
{
    Tensor *s = value_wrap_number(arg_scalar(c, 1), c->err);
    if (!s)
        return c->err->code;
    EpStatus rc = sub_check(c, s, arg_tensor(c, 0));
    if (rc == EP_OK)
        rc = run_add(c, s, arg_tensor(c, 0), arg_scalar(c, 2), true, 0);
    tensor_unref(s);
    return rc;
}

/* mul.Tensor / mul_.Tensor */
EpStatus k_mul(OpCall *c)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, &K_MUL, 2, in, EWF_OPMATH_SCALAR | ew_inplace_flag(c), NULL);
}

/* mul.Scalar / mul_.Scalar */
EpStatus k_mul_scalar(OpCall *c)
{
    return ew_binary_scalar(c, &K_MUL, 0, 1, false, EWF_OPMATH_SCALAR | ew_inplace_flag(c), NULL);
}

/* ---- division ----------------------------------------------------------------- */

/* a / b under rounding_mode (NULL: true division). */
static EpStatus run_div(OpCall *c, Tensor *a, Tensor *b, const char *mode, unsigned flags)
{
    Tensor *in[2] = {a, b};
    if (!mode)
        return ew_pointwise(c, &K_DIV_TRUE, 2, in, flags | EWF_FLOAT | EWF_OPMATH_SCALAR, NULL);
    bool trunc_mode = strcmp(mode, "trunc") == 0;
    if (!trunc_mode && strcmp(mode, "floor") != 0)
        return op_fail(c, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode);
    EwArgs p = {0};
    /* Half tensor-by-tensor division rounds the quotient to Half before
    ** truncating it; a scalar divisor is applied in float32 instead */
    if (trunc_mode && tensor_numel(b) != 1)
        p.mid_dtype = ew_common_dtype(2, in, 0);
    return ew_pointwise(c, trunc_mode ? &K_DIV_TRUNC : &K_DIV_FLOOR, 2, in, flags | EWF_OPMATH_SCALAR, &p);
}

/* div.Tensor, div_.Tensor, true_divide.Tensor, true_divide_.Tensor */
EpStatus k_div(OpCall *c)
{
    return run_div(c, arg_tensor(c, 0), arg_tensor(c, 1), NULL, ew_inplace_flag(c));
}

/* div.Tensor_mode / div_.Tensor_mode (self, other, *, rounding_mode) */
EpStatus k_div_mode(OpCall *c)
{
    return run_div(c, arg_tensor(c, 0), arg_tensor(c, 1), arg_str(c, 2), ew_inplace_flag(c));
}

/* div.Scalar, div_.Scalar, true_divide.Scalar, div.Scalar_mode ... */
EpStatus k_div_scalar(OpCall *c)
{
    Tensor *s = value_wrap_number(arg_scalar(c, 1), c->err);
    if (!s)
        return c->err->code;
    const char *mode = c->nargs > 2 ? arg_str(c, 2) : NULL;
    EpStatus rc = run_div(c, arg_tensor(c, 0), s, mode, ew_inplace_flag(c));
    tensor_unref(s);
    return rc;
}

/* floor_divide.default / floor_divide_.Tensor: Python's // (PyTorch >= 1.13;
** older releases truncated). */
EpStatus k_floor_divide(OpCall *c)
{
    return run_div(c, arg_tensor(c, 0), arg_tensor(c, 1), "floor", ew_inplace_flag(c));
}

/* floor_divide.Scalar / floor_divide_.Scalar */
EpStatus k_floor_divide_scalar(OpCall *c)
{
    Tensor *s = value_wrap_number(arg_scalar(c, 1), c->err);
    if (!s)
        return c->err->code;
    EpStatus rc = run_div(c, arg_tensor(c, 0), s, "floor", ew_inplace_flag(c));
    tensor_unref(s);
    return rc;
}

/* remainder.Tensor / remainder_.Tensor: Python's % */
EpStatus k_remainder(OpCall *c)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, &K_REMAINDER, 2, in, ew_inplace_flag(c), NULL);
}

/* remainder.Scalar / remainder_.Scalar */
EpStatus k_remainder_scalar(OpCall *c)
{
    return ew_binary_scalar(c, &K_REMAINDER, 0, 1, false, ew_inplace_flag(c), NULL);
}

/* remainder.Scalar_Tensor (Scalar self, Tensor other) */
EpStatus k_remainder_scalar_tensor(OpCall *c)
{
    return ew_binary_scalar(c, &K_REMAINDER, 1, 0, true, 0, NULL);
}

/* fmod.Tensor / fmod_.Tensor: C's %, the result takes the dividend's sign */
EpStatus k_fmod(OpCall *c)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, &K_FMOD, 2, in, ew_inplace_flag(c), NULL);
}

/* fmod.Scalar / fmod_.Scalar */
EpStatus k_fmod_scalar(OpCall *c)
{
    return ew_binary_scalar(c, &K_FMOD, 0, 1, false, ew_inplace_flag(c), NULL);
}

/* ---- pow -------------------------------------------------------------------------- */

/* pow.Tensor_Tensor / pow_.Tensor (self, exponent) */
EpStatus k_pow(OpCall *c)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, &K_POW, 2, in, ew_inplace_flag(c), NULL);
}

/* pow.Tensor_Scalar / pow_.Scalar (self, Scalar exponent) */
EpStatus k_pow_tensor_scalar(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    const Value *e = arg_scalar(c, 1);
    if (dtype_is_integral(self->dtype) && e->kind == V_INT && e->i < 0)
        return op_fail(c, "Integers to negative integer powers are not allowed.");
    DType common = result_type(1, &self, 1, e);
    double x = value_as_f64(e);
    EwCall call;
    ew_call_init(&call, &K_ONE, 1, &self, common);
    if (c->op->flags & OPF_INPLACE)
        call.self_out = self;
    if (common == DT_F16 || common == DT_BF16)
        x = ew_round_to(common, (float)x); /* the exponent is converted to scalar_t */
    call.args.f[0] = x;
    call.args.i[0] = ew_scalar_i64(e);
    /* float16 has no fast paths in PyTorch: it always calls pow */
    if (common == DT_BF16)
        call.args.mid_dtype = DT_BF16;
    int form = POW_GENERAL;
    if (common != DT_F16)
        form = x == 2    ? POW_SQUARE
               : x == 3    ? POW_CUBE
               : x == -2   ? POW_INV_SQUARE
               : x == 0.5  ? POW_SQRT
               : x == -0.5 ? POW_RSQRT
               : x == -1   ? POW_RECIPROCAL
                           : POW_GENERAL;
    call.kernel = x == 0 ? &K_ONE : x == 1 ? &K_COPY : &K_POW_SCALAR[form];
    return ew_execute(c, &call);
}

/* pow.Scalar (Scalar self, Tensor exponent) */
EpStatus k_pow_scalar_tensor(OpCall *c)
{
    Tensor *exp = arg_tensor(c, 1);
    if (value_as_f64(arg_scalar(c, 0)) == 1) { /* 1 ** x is 1, even for nan */
        EwCall call;
        ew_call_init(&call, &K_ONE, 1, &exp, result_type(1, &exp, 1, arg_scalar(c, 0)));
        return ew_execute(c, &call);
    }
    return ew_binary_scalar(c, &K_POW, 1, 0, true, 0, NULL);
}

/* ---- maximum, minimum, fmax, fmin, atan2, hypot, copysign, xlogy -------------- */

static EpStatus binary(OpCall *c, const EwKernel *k, unsigned flags)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    return ew_pointwise(c, k, 2, in, flags | ew_inplace_flag(c), NULL);
}

/* maximum, minimum, fmax, fmin, atan2 / atan2_, hypot / hypot_,
** copysign.Tensor / copysign_.Tensor, xlogy.Tensor / xlogy_.Tensor */
EpStatus k_maximum(OpCall *c) { return binary(c, &K_MAXIMUM, 0); }
EpStatus k_minimum(OpCall *c) { return binary(c, &K_MINIMUM, 0); }
EpStatus k_fmax(OpCall *c) { return binary(c, &K_FMAX, 0); }
EpStatus k_fmin(OpCall *c) { return binary(c, &K_FMIN, 0); }
EpStatus k_atan2(OpCall *c) { return binary(c, &K_ATAN2, EWF_FLOAT); }
EpStatus k_hypot(OpCall *c) { return binary(c, &K_HYPOT, 0); }
EpStatus k_copysign(OpCall *c) { return binary(c, &K_COPYSIGN, EWF_FLOAT); }
EpStatus k_xlogy(OpCall *c) { return binary(c, &K_XLOGY, EWF_FLOAT); }

/* copysign.Scalar / copysign_.Scalar */
EpStatus k_copysign_scalar(OpCall *c)
{
    return ew_binary_scalar(c, &K_COPYSIGN, 0, 1, false, EWF_FLOAT | ew_inplace_flag(c), NULL);
}

/* xlogy.Scalar_Other / xlogy_.Scalar_Other (Tensor self, Scalar other) */
EpStatus k_xlogy_scalar_other(OpCall *c)
{
    return ew_binary_scalar(c, &K_XLOGY, 0, 1, false, EWF_FLOAT | ew_inplace_flag(c), NULL);
}

/* xlogy.Scalar_Self (Scalar self, Tensor other) */
EpStatus k_xlogy_scalar_self(OpCall *c)
{
    return ew_binary_scalar(c, &K_XLOGY, 1, 0, true, EWF_FLOAT, NULL);
}

/* ---- lerp, addcmul, addcdiv ------------------------------------------------------- */

static EpStatus lerp_dtype_check(OpCall *c, const Tensor *self, const Tensor *t, const char *what)
{
    if (t->dtype != self->dtype)
        return op_fail(c, "expected dtype %s for `%s` but got dtype %s", dtype_meta_name(self->dtype), what,
                       dtype_meta_name(t->dtype));
    return EP_OK;
}

/* lerp.Scalar / lerp_.Scalar (self, end, Scalar weight) */
EpStatus k_lerp_scalar(OpCall *c)
{
    Tensor *in[2] = {arg_tensor(c, 0), arg_tensor(c, 1)};
    EpStatus rc = lerp_dtype_check(c, in[0], in[1], "end");
    if (rc)
        return rc;
    EwArgs p = {0};
    p.f[0] = arg_float(c, 2);
    return ew_pointwise(c, &K_LERP_SCALAR, 2, in, EWF_SAME_DTYPE | ew_inplace_flag(c), &p);
}

/* lerp.Tensor / lerp_.Tensor (self, end, weight) */
EpStatus k_lerp_tensor(OpCall *c)
{
    Tensor *in[3] = {arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2)};
    EpStatus rc = lerp_dtype_check(c, in[0], in[1], "end");
    if (rc == EP_OK)
        rc = lerp_dtype_check(c, in[0], in[2], "weight");
    if (rc)
        return rc;
    return ew_pointwise(c, &K_LERP_TENSOR, 3, in, EWF_SAME_DTYPE | ew_inplace_flag(c), NULL);
}

/* addcmul / addcmul_ (self, tensor1, tensor2, *, value): self + value * t1 * t2 */
EpStatus k_addcmul(OpCall *c)
{
    Tensor *in[3] = {arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2)};
    EwArgs p = {0};
    p.f[0] = arg_float(c, 3);
    p.i[0] = ew_scalar_i64(arg_scalar(c, 3));
    return ew_pointwise(c, &K_ADDCMUL, 3, in, ew_inplace_flag(c), &p);
}

/* addcdiv / addcdiv_ (self, tensor1, tensor2, *, value): self + value * t1 / t2 */
EpStatus k_addcdiv(OpCall *c)
{
    Tensor *in[3] = {arg_tensor(c, 0), arg_tensor(c, 1), arg_tensor(c, 2)};
    if (dtype_is_integral(in[1]->dtype) && dtype_is_integral(in[2]->dtype))
        return op_fail(c, "Integer division with addcdiv is no longer supported, and in a future  "
                          "release addcdiv will perform a true division of tensor1 and tensor2. "
                          "The historic addcdiv behavior can be implemented as "
                          "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                          "for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. "
                          "The future addcdiv behavior is just the latter implementation: "
                          "(input + value * tensor1 / tensor2), for all dtypes.");
    EwArgs p = {0};
    p.f[0] = arg_float(c, 3);
    return ew_pointwise(c, &K_ADDCDIV, 3, in, ew_inplace_flag(c), &p);
}
