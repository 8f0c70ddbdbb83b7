/*
** vecmath.h -- float32 transcendental functions over contiguous arrays,
** computed 8 lanes at a time (vecmath.c).
**
** Each y[i] = f(x[i]) for i < n; y may be x (in place).  The results are
** the same bits on every x86-64 CPU and for any split of the array: every
** lane runs the same IEEE additions, multiplications, divisions and fused
** multiply-adds (written out, exact on every CPU; no table lookups),
** whatever vector width the CPU offers.  Accuracy against the correctly rounded value (tests/test_vecmath.c
** asserts it over a dense sweep of float32): exp, log <= 2 ulp; tanh,
** erf, sigmoid, silu <= 3 ulp; gelu and gelu_tanh inherit erf's and tanh's
** error; expm1, log1p, elu and softplus <= 2 ulp; mish <= 4 ulp (and
** exp's denormal error below x = -87.3, as any float32 mish has); sin and
** cos are correctly rounded but for inputs within 2^-20 ulp of a tie
** (computed in double), up to |x| = 2^20, and past it through libm's
** double sin and cos (rounded to float: the same bits unless libm's own
** last-bit error meets a float rounding tie).
** NaN, infinities, -0.0, overflow to inf and gradual underflow to
** denormals behave as glibc's float functions.
*/
#ifndef EP_OPS_VECMATH_H
#define EP_OPS_VECMATH_H

#include <stdint.h>

void vm_exp_f32(float *y, const float *x, int64_t n);
void vm_log_f32(float *y, const float *x, int64_t n);
void vm_tanh_f32(float *y, const float *x, int64_t n);
void vm_erf_f32(float *y, const float *x, int64_t n);
void vm_expm1_f32(float *y, const float *x, int64_t n);
void vm_log1p_f32(float *y, const float *x, int64_t n);
void vm_sin_f32(float *y, const float *x, int64_t n);
void vm_cos_f32(float *y, const float *x, int64_t n);
/* 1 / (1 + exp(-x)) */
void vm_sigmoid_f32(float *y, const float *x, int64_t n);
/* x / (1 + exp(-x)) */
void vm_silu_f32(float *y, const float *x, int64_t n);
/* x * 0.5 * (1 + erf(x / sqrt 2)) */
void vm_gelu_f32(float *y, const float *x, int64_t n);
/* 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) */
void vm_gelu_tanh_f32(float *y, const float *x, int64_t n);
/* x * tanh(log1p(exp(x))) */
void vm_mish_f32(float *y, const float *x, int64_t n);
/* x > 0 ? x * coef[1] : expm1(x * coef[2]) * coef[0] (elu's alpha * scale,
** scale, input_scale) */
void vm_elu_f32(float *y, const float *x, int64_t n, const float coef[3]);
/* x * beta > threshold ? x : log1p(exp(x * beta)) / beta */
void vm_softplus_f32(float *y, const float *x, int64_t n, float beta, float threshold);

/* vm_NAME_f32 as NAME_f32, the float32 typed function of a one-operand
** pointwise kernel (EwFn, elementwise.h); float16 and bfloat16 run it too. */
#define VM_EWFN(NAME)                                                                           \
    static void NAME##_f32(char *out, char *const *in, int64_t n, EwArgs *p)                     \
    {                                                                                            \
        EP_UNUSED(p);                                                                            \
        vm_##NAME##_f32((float *)(void *)out, (const float *)(const void *)in[0], n);            \
    }

#endif
