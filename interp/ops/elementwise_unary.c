/*
** elementwise_unary.c -- one-operand pointwise ops: neg, abs, sign, sgn,
** floor, ceil, round (and .decimals), trunc, frac, reciprocal, square,
** bitwise_not; the math functions (exp ... erfinv, sigmoid, logit, i0,
** nan_to_num); the predicates isnan, isinf, isfinite, isposinf, isneginf,
** signbit and logical_not.
**
** Dtype rules (UnaryOps.cpp): the math functions are "unary float ops",
** integer and bool inputs computing in float32; the rounding functions
** return integer inputs unchanged; predicates return bool.
*/
#include "elementwise.h"
#include "vecmath.h"

#include <tgmath.h>

/* ---- special functions (double precision; float32 rounds the result) ----- */

/* The inverse error function.  PyTorch evaluates a rational approximation
** refined by Newton steps; here Newton's method runs to convergence on erf
** (|y| <= 0.5) or on erfc of the exact 1 - |y| (the tails, where erf(x) - y
** would cancel), which gives the correctly rounded float32 result too. */
static double calc_erfinv(double y)
{
    if (!(y >= -1 && y <= 1))
        return NAN;
    if (y == 1 || y == -1)
        return y * INFINITY;
    if (y == 0)
        return y; /* keeps the sign of -0 */
    const double half_sqrt_pi = 0.886226925452758013649083741671;
    double ay = fabs(y), x;
    if (ay <= 0.5) {
        x = half_sqrt_pi * (ay + 0.261799387799149436538553615273 * ay * ay * ay); /* series start */
        for (int it = 0; it < 100; it++) {
            double dx = (erf(x) - ay) * half_sqrt_pi * exp(x * x);
            x -= dx;
            if (fabs(dx) <= 1e-17 * x)
                break;
        }
    } else {
        double q = 1 - ay; /* exact for ay >= 0.5 */
        /* sqrt(-log q) lies right of the root; erfc is convex there, so
        ** the first step lands left of it and the rest climb monotonically */
        x = sqrt(-log(q));
        for (int it = 0; it < 200; it++) {
            double dx = (erfc(x) - q) * half_sqrt_pi * exp(x * x);
            x += dx;
            if (fabs(dx) <= 1e-17 * x)
                break;
        }
    }
    return y < 0 ? -x : x;
}

/* Modified Bessel function of the first kind, order 0, by its power series
** sum ((x/2)^k / k!)^2: all terms positive, so no cancellation; the series
** needs about |x| terms, and overflows to inf where I0 does. */
static double calc_i0(double x)
{
    double ax = fabs(x);
    if (isnan(ax) || isinf(ax))
        return ax;
    double q = ax * ax / 4, term = 1, sum = 1;
    for (int k = 1; k < 4000; k++) {
        term *= q / ((double)k * (double)k);
        sum += term;
        if (term <= sum * 1e-17)
            break;
    }
    return sum;
}

/* logit of an already clamped x: 1 maps to inf exactly, as PyTorch tests. */
#define DEFINE_LOGIT(T, SFX)                                                                    \
    static inline T logit_of_##SFX(T x) { return x == 1 ? (T)INFINITY : log(x / (1 - x)); }
DEFINE_LOGIT(float, f32)
DEFINE_LOGIT(double, f64)
#define logit_of(x) _Generic((x), float: logit_of_f32, double: logit_of_f64)(x)

/* PyTorch evaluates I0 for |x| > 8 as exp(|x|) times a series, so the
** result is inf wherever exp overflows the type, a little before I0 itself
** does (float: 88.72 against 91.9). */
static float calc_i0_f32(float x)
{
    return fabs(x) > 88.72283935546875f ? INFINITY : (float)calc_i0(x);
}

static double calc_i0_f64(double x)
{
    return fabs(x) > 709.782712893384 ? INFINITY : calc_i0(x);
}
#define calc_i0_t(x) _Generic((x), float: calc_i0_f32, double: calc_i0_f64)(x)

/* ---- sign-like and rounding ops ------------------------------------------------ */

EW_FLOAT_TYPES(EW_VLOOP1, neg, -a)
EW_INT_TYPES(EW_VLOOP1, neg, 0 - (uint64_t)a)
static const EwKernel K_NEG = {"neg_cpu", {EW_FLOAT_SLOTS_BF16(neg), EW_INT_SLOTS(neg)}};

EW_FLOAT_TYPES(EW_VLOOP1, abs, fabs(a))
EW_INT_TYPES(EW_VLOOP1, abs, EW_IS_NEG(a) ? 0 - (uint64_t)a : (uint64_t)a)
static const EwKernel K_ABS = {"abs_cpu", {EW_FLOAT_SLOTS_BF16(abs), EW_INT_SLOTS(abs)}};

/* (0 < a) - (a < 0): nan and -0 give 0 */
EW_FLOAT_TYPES(EW_VLOOP1, sign, (T)((0 < a) - (a < 0)))
EW_INT_TYPES(EW_VLOOP1, sign, (0 < a) - EW_IS_NEG(a))
EW_BOOL_TYPE(EW_VLOOP1, sign, a)
static const EwKernel K_SIGN = {"sign_cpu", {EW_FLOAT_SLOTS_BF16(sign), EW_INT_SLOTS(sign), EW_BOOL_SLOT(sign)}};

/* The rounding functions leave integers alone (a copy). */
EW_INT_TYPES(EW_VLOOP1, same, a)
EW_BOOL_TYPE(EW_VLOOP1, same, a)
EW_FLOAT_TYPES(EW_VLOOP1, floor, floor(a))
static const EwKernel K_FLOOR = {"floor_vml_cpu", {EW_FLOAT_SLOTS_BF16(floor), EW_INT_SLOTS(same)}};
EW_FLOAT_TYPES(EW_VLOOP1, ceil, ceil(a))
static const EwKernel K_CEIL = {"ceil_vml_cpu", {EW_FLOAT_SLOTS_BF16(ceil), EW_INT_SLOTS(same)}};
EW_FLOAT_TYPES(EW_VLOOP1, trunc, trunc(a))
static const EwKernel K_TRUNC = {"trunc_vml_cpu", {EW_FLOAT_SLOTS_BF16(trunc), EW_INT_SLOTS(same)}};
/* half to even, as std::nearbyint in the default rounding mode */
EW_FLOAT_TYPES(EW_VLOOP1, round, nearbyint(a))
static const EwKernel K_ROUND = {"round_vml_cpu", {EW_FLOAT_SLOTS_BF16(round), EW_INT_SLOTS(same)}};
static const EwKernel K_ROUND_FLOAT = {"round_vml_cpu", {EW_FLOAT_SLOTS_BF16(round)}};
/* round to f[0] = 10^|decimals| places; i[0] set for negative decimals */
EW_FLOAT_TYPES(EW_VLOOP1, round_dec,
               p->i[0] ? nearbyint(a / (T)p->f[0]) * (T)p->f[0] : nearbyint(a * (T)p->f[0]) / (T)p->f[0])
static const EwKernel K_ROUND_DECIMALS = {"round_cpu", {EW_FLOAT_SLOTS_BF16(round_dec)}};
EW_FLOAT_TYPES(EW_VLOOP1, frac, a - trunc(a))
static const EwKernel K_FRAC = {"frac_cpu", {EW_FLOAT_SLOTS_BF16(frac)}};

EW_FLOAT_TYPES(EW_VLOOP1, square, a * a)
EW_INT_TYPES(EW_VLOOP1, square, (uint64_t)a * (uint64_t)a)
static const EwKernel K_SQUARE = {"pow", {EW_FLOAT_SLOTS_BF16(square), EW_INT_SLOTS(square)}};

EW_INT_TYPES(EW_VLOOP1, bitwise_not, ~(uint64_t)a)
EW_BOOL_TYPE(EW_VLOOP1, bitwise_not, !a)
static const EwKernel K_BITWISE_NOT = {"bitwise_not_cpu", {EW_INT_SLOTS(bitwise_not), EW_BOOL_SLOT(bitwise_not)}};

/* ---- math functions: integer inputs compute in float32 ----------------------- */

#define MATH_KERNEL(NAME, ...)                                                                  \
    EW_FLOAT_TYPES(EW_LOOP1, NAME, __VA_ARGS__)                                                  \
    static const EwKernel K_##NAME = {#NAME, {EW_FLOAT_SLOTS(NAME)}};

/* float32 (and float16, bfloat16) through vecmath's vector polynomials,
** float64 through libm: the reference the polynomials are tested against */
#define MATH_KERNEL_VM(NAME, ...)                                                               \
    VM_EWFN(NAME)                                                                                \
    EW_LOOP1(NAME##_f64, double, double, double, __VA_ARGS__)                                    \
    static const EwKernel K_##NAME = {#NAME, {EW_FLOAT_SLOTS(NAME)}};

MATH_KERNEL_VM(exp, exp(a))
MATH_KERNEL(exp2, exp2(a))
MATH_KERNEL_VM(expm1, expm1(a))
MATH_KERNEL_VM(log, log(a))
MATH_KERNEL(log2, log2(a))
MATH_KERNEL(log10, log10(a))
MATH_KERNEL_VM(log1p, log1p(a))
/* The square root in T's own precision: float32 takes sqrtf, one
** correctly rounded instruction that vectorizes (libm's errno is off,
** -fno-math-errno), the same bits as the double root rounded to float.
** rsqrt divides in T as PyTorch does (1 / std::sqrt(a), and its vector
** form _mm256_div_ps(1, _mm256_sqrt_ps(a))): two roundings, not the one
** of a division in double. */
#define EW_SQRT(x) (sizeof(T) == sizeof(float) ? (T)sqrtf((float)(x)) : (T)sqrt((double)(x)))
#define MATH_KERNEL_V(NAME, ...)                                                                \
    EW_FLOAT_TYPES(EW_VLOOP1, NAME, __VA_ARGS__)                                                 \
    static const EwKernel K_##NAME = {#NAME, {EW_FLOAT_SLOTS_BF16(NAME)}};
MATH_KERNEL_V(sqrt, EW_SQRT(a))
MATH_KERNEL_V(rsqrt, (T)1 / EW_SQRT(a))
MATH_KERNEL_VM(sin, sin(a))
MATH_KERNEL_VM(cos, cos(a))
MATH_KERNEL(tan, tan(a))
MATH_KERNEL(asin, asin(a))
MATH_KERNEL(acos, acos(a))
MATH_KERNEL(atan, atan(a))
MATH_KERNEL(sinh, sinh(a))
MATH_KERNEL(cosh, cosh(a))
MATH_KERNEL_VM(tanh, tanh(a))
MATH_KERNEL(asinh, asinh(a))
MATH_KERNEL(acosh, acosh(a))
MATH_KERNEL(atanh, atanh(a))
MATH_KERNEL_VM(erf, erf(a))
MATH_KERNEL(erfc, erfc(a))
MATH_KERNEL(erfinv, calc_erfinv((double)a))
MATH_KERNEL(i0, calc_i0_t(a))
MATH_KERNEL_V(reciprocal, (T)1 / a)
MATH_KERNEL_VM(sigmoid, 1 / (1 + exp(-a)))
/* log(x / (1 - x)) after clamping x to [f[0], 1 - f[0]] when i[0] is set */
MATH_KERNEL(logit, logit_of(p->i[0] ? (a < (T)p->f[0] ? (T)p->f[0] : a > (T)p->f[1] ? (T)p->f[1] : a) : a))

/* nan_to_num: f[0] replaces nan, f[1] +inf, f[2] -inf */
EW_FLOAT_TYPES(EW_VLOOP1, nan_to_num,
               a != a ? (T)p->f[0] : a == (T)INFINITY ? (T)p->f[1] : a == -(T)INFINITY ? (T)p->f[2] : a)
static const EwKernel K_NAN_TO_NUM = {"nan_to_num", {EW_FLOAT_SLOTS_BF16(nan_to_num), EW_INT_SLOTS(same), EW_BOOL_SLOT(same)}};

/* ---- predicates ---------------------------------------------------------------- */

EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, isnan, a != a)
EW_INT_TYPES_TO_BOOL(EW_VLOOP1, never, 0)
EW_BOOL_TYPE(EW_VLOOP1, never, 0)
static const EwKernel K_ISNAN = {"isnan", {EW_FLOAT_SLOTS(isnan), EW_INT_SLOTS(never), EW_BOOL_SLOT(never)}};
EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, isinf, isinf(a))
static const EwKernel K_ISINF = {"isinf", {EW_FLOAT_SLOTS(isinf), EW_INT_SLOTS(never), EW_BOOL_SLOT(never)}};
EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, isposinf, a == (T)INFINITY)
static const EwKernel K_ISPOSINF = {"isposinf", {EW_FLOAT_SLOTS(isposinf), EW_INT_SLOTS(never), EW_BOOL_SLOT(never)}};
EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, isneginf, a == -(T)INFINITY)
static const EwKernel K_ISNEGINF = {"isneginf", {EW_FLOAT_SLOTS(isneginf), EW_INT_SLOTS(never), EW_BOOL_SLOT(never)}};
EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, isfinite, isfinite(a))
EW_INT_TYPES_TO_BOOL(EW_VLOOP1, always, 1)
EW_BOOL_TYPE(EW_VLOOP1, always, 1)
static const EwKernel K_ISFINITE = {"isfinite", {EW_FLOAT_SLOTS(isfinite), EW_INT_SLOTS(always), EW_BOOL_SLOT(always)}};
EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, signbit, signbit(a) != 0)
EW_INT_TYPES_TO_BOOL(EW_VLOOP1, signbit, EW_IS_NEG(a))
static const EwKernel K_SIGNBIT = {"signbit_cpu", {EW_FLOAT_SLOTS(signbit), EW_INT_SLOTS(signbit), EW_BOOL_SLOT(never)}};
EW_FLOAT_TYPES_TO_BOOL(EW_VLOOP1, logical_not, !(a != 0))
EW_INT_TYPES_TO_BOOL(EW_VLOOP1, logical_not, !a)
EW_BOOL_TYPE(EW_VLOOP1, logical_not, !a)
static const EwKernel K_LOGICAL_NOT = {"logical_not_cpu",
                                       {EW_FLOAT_SLOTS(logical_not), EW_INT_SLOTS(logical_not), EW_BOOL_SLOT(logical_not)}};

/* ---- op entry points ----------------------------------------------------------- */

/* A same-dtype unary op on args[0] (in place for the _ variants). */
static EpStatus unary(OpCall *c, const EwKernel *k, unsigned flags)
{
    Tensor *self = arg_tensor(c, 0);
    return ew_pointwise(c, k, 1, &self, EWF_SAME_DTYPE | flags | ew_inplace_flag(c), NULL);
}

/* neg / neg_: bool has no negation in PyTorch */
EpStatus k_neg(OpCall *c)
{
    if (arg_tensor(c, 0)->dtype == DT_BOOL)
        return op_fail(c, "Negation, the `-` operator, on a bool tensor is not supported. "
                          "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    return unary(c, &K_NEG, 0);
}

/* Kernels of ops.def (calling convention in kernel.h); each serves the
** functional op and its in-place _ form. */
EpStatus k_abs(OpCall *c) { return unary(c, &K_ABS, 0); }
EpStatus k_sign(OpCall *c) { return unary(c, &K_SIGN, 0); }
EpStatus k_floor(OpCall *c) { return unary(c, &K_FLOOR, 0); }
EpStatus k_ceil(OpCall *c) { return unary(c, &K_CEIL, 0); }
EpStatus k_trunc(OpCall *c) { return unary(c, &K_TRUNC, 0); }
EpStatus k_round(OpCall *c) { return unary(c, &K_ROUND, 0); }
EpStatus k_frac(OpCall *c) { return unary(c, &K_FRAC, 0); }
EpStatus k_bitwise_not(OpCall *c) { return unary(c, &K_BITWISE_NOT, 0); }

/* round.decimals / round_.decimals (self, *, decimals) */
EpStatus k_round_decimals(OpCall *c)
{
    int64_t d = arg_int(c, 1);
    if (d == 0)
        return unary(c, &K_ROUND_FLOAT, 0); /* no integer shortcut on this path */
    Tensor *self = arg_tensor(c, 0);
    EwArgs p = {0};
    p.i[0] = d < 0;
    p.f[0] = pow(10.0, (double)(d < 0 ? -d : d));
    return ew_pointwise(c, &K_ROUND_DECIMALS, 1, &self, EWF_SAME_DTYPE | ew_inplace_flag(c), &p);
}

/* square / square_: pow(self, 2), so bool becomes int64 */
EpStatus k_square(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    Value two = value_int(2);
    EwCall call;
    ew_call_init(&call, &K_SQUARE, 1, &self, result_type(1, &self, 1, &two));
    if (c->op->flags & OPF_INPLACE)
        call.self_out = self;
    return ew_execute(c, &call);
}

static EpStatus math(OpCall *c, const EwKernel *k)
{
    Tensor *self = arg_tensor(c, 0);
    return ew_pointwise(c, k, 1, &self, EWF_FLOAT | ew_inplace_flag(c), NULL);
}

/* The math functions of ops.def and their in-place _ forms. */
EpStatus k_exp(OpCall *c) { return math(c, &K_exp); }
EpStatus k_exp2(OpCall *c) { return math(c, &K_exp2); }
EpStatus k_expm1(OpCall *c) { return math(c, &K_expm1); }
EpStatus k_log(OpCall *c) { return math(c, &K_log); }
EpStatus k_log2(OpCall *c) { return math(c, &K_log2); }
EpStatus k_log10(OpCall *c) { return math(c, &K_log10); }
EpStatus k_log1p(OpCall *c) { return math(c, &K_log1p); }
EpStatus k_sqrt(OpCall *c) { return math(c, &K_sqrt); }
EpStatus k_rsqrt(OpCall *c) { return math(c, &K_rsqrt); }
EpStatus k_sin(OpCall *c) { return math(c, &K_sin); }
EpStatus k_cos(OpCall *c) { return math(c, &K_cos); }
EpStatus k_tan(OpCall *c) { return math(c, &K_tan); }
EpStatus k_asin(OpCall *c) { return math(c, &K_asin); }
EpStatus k_acos(OpCall *c) { return math(c, &K_acos); }
EpStatus k_atan(OpCall *c) { return math(c, &K_atan); }
EpStatus k_sinh(OpCall *c) { return math(c, &K_sinh); }
EpStatus k_cosh(OpCall *c) { return math(c, &K_cosh); }
EpStatus k_tanh(OpCall *c) { return math(c, &K_tanh); }
EpStatus k_asinh(OpCall *c) { return math(c, &K_asinh); }
EpStatus k_acosh(OpCall *c) { return math(c, &K_acosh); }
EpStatus k_atanh(OpCall *c) { return math(c, &K_atanh); }
EpStatus k_erf(OpCall *c) { return math(c, &K_erf); }
EpStatus k_erfc(OpCall *c) { return math(c, &K_erfc); }
EpStatus k_erfinv(OpCall *c) { return math(c, &K_erfinv); }
EpStatus k_i0(OpCall *c) { return math(c, &K_i0); }
EpStatus k_reciprocal(OpCall *c) { return math(c, &K_reciprocal); }
EpStatus k_sigmoid(OpCall *c) { return math(c, &K_sigmoid); }

/* logit / logit_ (self, float? eps=None): without eps (or a negative one)
** no clamping, so 0 and 1 give -inf and inf. */
EpStatus k_logit(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    DType common = ew_common_dtype(1, &self, EWF_FLOAT);
    EwArgs p = {0};
    if (!arg_is_none(c, 1) && arg_float(c, 1) >= 0) {
        /* eps is converted to the tensor's type, and 1 - eps computed in it */
        double eps = arg_float(c, 1);
        if (common == DT_F32 || common == DT_F16 || common == DT_BF16) {
            float lo = ew_round_to(common, (float)eps);
            p.f[0] = lo;
            p.f[1] = 1.0f - lo; /* in float, also for float16 (opmath) */
        } else {
            p.f[0] = eps;
            p.f[1] = 1 - eps;
        }
        p.i[0] = 1;
    }
    return ew_pointwise(c, &K_logit, 1, &self, EWF_FLOAT | ew_inplace_flag(c), &p);
}

/* nan_to_num / nan_to_num_ (self, float? nan=None, float? posinf=None,
** float? neginf=None): defaults 0, the dtype's max and lowest; integer
** tensors come back unchanged. */
EpStatus k_nan_to_num(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    EwArgs p = {0};
    double big = ew_float_max(self->dtype);
    p.f[0] = arg_is_none(c, 1) ? 0.0 : arg_float(c, 1);
    p.f[1] = arg_is_none(c, 2) ? big : arg_float(c, 2);
    p.f[2] = arg_is_none(c, 3) ? -big : arg_float(c, 3);
    return ew_pointwise(c, &K_NAN_TO_NUM, 1, &self, EWF_SAME_DTYPE | ew_inplace_flag(c), &p);
}

/* Predicates: bool result, no promotion. */
static EpStatus predicate(OpCall *c, const EwKernel *k)
{
    Tensor *self = arg_tensor(c, 0);
    return ew_pointwise(c, k, 1, &self, EWF_SAME_DTYPE | EWF_BOOL_OUT | ew_inplace_flag(c), NULL);
}

/* isnan ... signbit (no in-place forms), logical_not / logical_not_ */
EpStatus k_isnan(OpCall *c) { return predicate(c, &K_ISNAN); }
EpStatus k_isinf(OpCall *c) { return predicate(c, &K_ISINF); }
EpStatus k_isposinf(OpCall *c) { return predicate(c, &K_ISPOSINF); }
EpStatus k_isneginf(OpCall *c) { return predicate(c, &K_ISNEGINF); }
EpStatus k_isfinite(OpCall *c) { return predicate(c, &K_ISFINITE); }
EpStatus k_signbit(OpCall *c) { return predicate(c, &K_SIGNBIT); }
/* logical_not_ writes 0/1 in self's own dtype */
EpStatus k_logical_not(OpCall *c) { return predicate(c, &K_LOGICAL_NOT); }
