/*
** reduce_fast.h -- the vectorized fast paths of the reduce family and the
** norms: sums and means (float32/64, float16 / bfloat16, integers), amax /
** amin, argmax / argmin, var / std, logsumexp, softmax, layer norm, group
** norm and batch norm in evaluation straight from a contiguous input,
** without gathering rows (interp/ops/reduce_fast.c).
**
** The plain loops of reduce.c / reduce_softmax.c / nn_norm.c stay the
** reference; a kernel takes a fast path only when reduce_fast_enabled(c)
** (KernelConfig's plain-loop switch, so the kernel tests run every case
** both ways) and the input is contiguous.
**
** Order of arithmetic: every sum is written with explicit lanes (GCC
** vector extensions) and a fixed cascade, chunked for the worker pool by
** the shape only, so a result has the same bits for any thread count.  The
** hot functions are cloned for AVX2 with FMA (target_clones, x86-64-v3);
** no clone contracts a multiply and an add on its own (ISO C mode), and
** IEEE add/mul/div/sqrt round the same in every instruction set, so every
** x86-64 gives the same bits too.  Fused multiply-adds are written out:
** fmaf where PyTorch's own result is one (batch norm's affine pass), and
** vm_fma in vecmath's exp (softmax), exact everywhere; the FMA clone makes
** them single instructions, which is why the clone is v3 and not "avx2".
*/
#ifndef EP_OPS_REDUCE_FAST_H
#define EP_OPS_REDUCE_FAST_H

#include <string.h>

#include "kernel.h"
#include "vecmath_vec.h"

/* 32-byte vectors: one AVX register, two SSE ones in the default clone.
** They live inside function bodies; helpers take them by pointer or are
** one-line macros, since a 32-byte vector parameter makes GCC print its
** ABI note even for an inline function (returning one is fine: the
** -Wpsabi warning about that is off, and nothing crosses a real call). */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float RfV8f __attribute__((vector_size(32)));
typedef int32_t RfV8i __attribute__((vector_size(32)));
typedef double RfV4d __attribute__((vector_size(32)));
typedef float RfV4f __attribute__((vector_size(16)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(RF_NOCLONE)
#define RF_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RF_CLONES
#endif
#define RF_INLINE static inline __attribute__((always_inline))

RF_INLINE RfV8f rf_load8f(const float *p) { RfV8f v; memcpy(&v, p, sizeof v); return v; }
RF_INLINE void rf_store8f(float *p, const RfV8f *v) { memcpy(p, v, sizeof *v); }
RF_INLINE RfV4d rf_load4d(const double *p) { RfV4d v; memcpy(&v, p, sizeof v); return v; }
RF_INLINE void rf_store4d(double *p, const RfV4d *v) { memcpy(p, v, sizeof *v); }
/* four floats widened to double */
RF_INLINE RfV4d rf_load4d_f32(const float *p)
{
    RfV4f v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, RfV4d);
}
RF_INLINE RfV8f rf_splat8f(float x) { return (RfV8f){x, x, x, x, x, x, x, x}; }
/* mask ? a : b, lane by lane (mask lanes are all ones or all zeros). */
#define RF_SELECT8F(mask, a, b) ((RfV8f)(((RfV8i)(a) & (mask)) | ((RfV8i)(b) & ~(mask))))
/* The running max of softmax: a NaN, once seen, stays (PyTorch's rows with
** a NaN are NaN throughout). */
RF_INLINE RfV8f rf_max_nan8f(const RfV8f *m, const RfV8f *x) { return RF_SELECT8F((*x > *m) | (*x != *x), *x, *m); }
RF_INLINE float rf_max_nanf(float m, float x) { return (x > m || x != x) ? x : m; }

/* exp of eight floats: vecmath's (vecmath_vec.h), the one exp of the
** fast softmax and of the activations.  Within 2 ulp of the correctly
** rounded exp over the whole range (tests/test_vecmath.c and
** tests/test_reduce_fast.c sweep it); exp(-inf) = 0, exp(+inf) = inf, NaN
** stays NaN. */
RF_INLINE RfV8f rf_exp8f(const RfV8f *px)
{
    return vm_exp(px);
}

/* One float through the same code (tails of rows, tests). */
static inline float rf_expf(float x)
{
    RfV8f v = rf_splat8f(x);
    v = rf_exp8f(&v);
    return v[0];
}

/* Whether kernels may take the fast paths: off under the plain reference
** loops (KernelConfig.use_blas false, `--no-blas`), which the kernel tests
** run every case with as well. */
static inline bool reduce_fast_enabled(const OpCall *c) { return c->cfg->use_blas; }

/* A contiguous tensor seen as [outer, len, inner] around its folded dims,
** when those (ignoring dims of size 1) are adjacent; false otherwise, or
** for an empty or non-contiguous tensor. */
typedef struct RfShape {
    int64_t outer, len, inner;
} RfShape;
bool reduce_fast_shape(const Tensor *t, const bool *reduced, RfShape *s);

/* y[o * inner + j] = the sum over r of x[(o * len + r) * inner + j], in
** double, for x of float64, float32, or float16 / bfloat16 (t), fixed order;
** a half input sums with the bits of its float32 copy (PyTorch sums halves
** in float). */
void reduce_fast_sum(const void *x, DType t, RfShape s, double *y);

/* The same for x of an integer type t (bool, uint8 ... int64) into int64,
** wrapping as the reference's int64 sum does (so in any order, its bits). */
void reduce_fast_sum_int(const void *x, DType t, RfShape s, int64_t *y);

/* n float16 (t DT_F16) or bfloat16 values as float32, exactly. */
void reduce_fast_widen_half(const uint16_t *x, DType t, int64_t n, float *y);

/* Sum of n floats in double, the order of reduce_fast_sum's rows. */
double reduce_fast_sum_f32(const float *x, int64_t n);

/* softmax (or log_softmax) of float32 x along the len axis of s into y. */
void reduce_fast_softmax(const float *x, RfShape s, bool want_log, float *y);

/* native_layer_norm of rows of x (float32, or bfloat16 rows of at most
** reduce_fast_layer_norm_max(t) values: t): y = (x - mean) * rstd * w + b
** per row of n values, y of x's dtype (w, b float32, may be NULL), mean
** and rstd one float per row.  bfloat16 rows are normalised as their
** float32 copies, each result rounded once. */
void reduce_fast_layer_norm(const void *x, DType t, int64_t rows, int64_t n, const float *w, const float *b,
                            double eps, void *y, float *mean, float *rstd);
#define RF_LN_HALF_MAX 8192 /* two float copies of a row on a worker's stack */
static inline int64_t reduce_fast_layer_norm_max(DType t) { return t == DT_F32 ? INT64_MAX : RF_LN_HALF_MAX; }

/* amax (want_max) or amin of x (float32, float16 or bfloat16: t) along the
** len axis of s into float32 y (exact: a half's extreme is one of its
** values), with
** the reference's answers: a NaN if the run has one (the first), and of
** equal extremes (+0 and -0) the first. */
void reduce_fast_extreme(const void *x, DType t, RfShape s, bool want_max, float *y);

/* The index of the largest (want_max) or smallest value of each of rows
** contiguous float32 rows of len >= 1 values, as the reference's search
** gives it: the first NaN, else the first of equal extremes. */
void reduce_fast_arg_rows(const float *x, int64_t rows, int64_t len, bool want_max, int64_t *idx);

/* native_group_norm of a contiguous float32 x seen as [N, C, HxW] (C a
** multiple of G >= 1): per (n, group) mean and rstd (one float each, [N,
** G]) in double, then y = x * a + c in float per channel, a = rstd * w[c]
** and c = b[c] - mean * a (w, b may be NULL), PyTorch's formula. */
void reduce_fast_group_norm(const float *x, int64_t N, int64_t C, int64_t HxW, int64_t G, const float *w,
                            const float *b, double eps, float *y, float *mean, float *rstd);

/* y[r] = logsumexp of each of rows contiguous float32 rows of len >= 1
** values, in double: log(sum(exp(x - m))) + m, m the row's max (0 when
** infinite), as the reference loops (exp within 2 ulp of theirs). */
void reduce_fast_logsumexp(const float *x, int64_t rows, int64_t len, double *y);

/* mean[r] and m2[r] (the sum of squared deviations) of each of rows runs
** of n >= 1 float32 values, in double: var / std's two passes. */
void reduce_fast_moments(const float *x, int64_t rows, int64_t n, double *mean, double *m2);

/* y[p * L + j] = x[p * L + j] * alpha[p % C] + beta[p % C] over planes
** planes of L floats (evaluation-mode batch norm), in float. */
void reduce_fast_affine_planes(const float *x, int64_t planes, int64_t C, int64_t L, const float *alpha,
                               const float *beta, float *y);

#endif
