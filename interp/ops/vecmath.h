/*
** vecmath.h -- float32 transcendental functions over contiguous arrays,
** computed 8 lanes at a time (vecmath.c).
**
** Each y[i] = f(x[i]) for i < n; y may be x (in place).  The results are
** the same bits on every x86-64 CPU and for any split of the array: every
** lane runs the same IEEE additions, multiplications and divisions (no
** fused multiply-add, no table lookups), whatever vector width the CPU
** offers.  Accuracy against the correctly rounded value (tests/test_vecmath.c
** asserts it over a dense sweep of float32): exp, log <= 2 ulp; tanh,
** erf, sigmoid, silu <= 3 ulp; gelu and gelu_tanh inherit erf's and tanh's
** error.
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
/* 1 / (1 + exp(-x)) */
void vm_sigmoid_f32(float *y, const float *x, int64_t n);
/* x / (1 + exp(-x)) */
void vm_silu_f32(float *y, const float *x, int64_t n);
/* x * 0.5 * (1 + erf(x / sqrt 2)) */
void vm_gelu_f32(float *y, const float *x, int64_t n);
/* 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) */
void vm_gelu_tanh_f32(float *y, const float *x, int64_t n);

/* vm_NAME_f32 as NAME_f32, the float32 typed function of a one-operand
** pointwise kernel (EwFn, elementwise.h); float16 and bfloat16 run it too. */
#define VM_EWFN(NAME)                                                                           \
    static void NAME##_f32(char *out, char *const *in, int64_t n, EwArgs *p)                     \
    {                                                                                            \
        EP_UNUSED(p);                                                                            \
        vm_##NAME##_f32((float *)(void *)out, (const float *)(const void *)in[0], n);            \
    }

#endif
