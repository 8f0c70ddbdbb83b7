/*
** vecmath.c -- float32 exp, log, tanh, erf and the activations built on them,
** as polynomials over 8-lane vectors (see vecmath.h for the contract).
**
** Why our own and not SLEEF (what PyTorch uses): SLEEF's AVX2 and AVX-512
** entry points use fused multiply-add and its SSE ones do not, so its
** results depend on the CPU, and a debugger's values must not.  These are
** written with GCC's vector extensions: each function is a range reduction
** and a polynomial with no branches and no table, every lane computing the
** same IEEE operations.  The array loops are compiled three times
** (target_clones: AVX-512, AVX2, the SSE2 baseline every x86-64 has) and
** the loader picks one for the CPU; without fused multiply-add (the build is
** ISO C, where GCC contracts nothing: -ffp-contract=off) the three give the
** same bits.
**
** The coefficients: exp's, log's and tanh's small-argument polynomial are Cephes'
** (S. Moshier, public domain); erf's were fitted for this file by (weighted)
** least squares on Chebyshev nodes against mpmath, checked in float32
** evaluation over the whole range (tests/test_vecmath.c keeps the bounds).
*/
#include "vecmath.h"
#include "vecmath_vec.h"

#include <math.h>
#include <string.h>

/* The vector type, vm_sel, vm_splat and the exp are in vecmath_vec.h,
** which softmax shares; short local names for them here. */
typedef VmF8 vf;
typedef VmI8 vi;
typedef VmU8 vu;

#define VM_LANES 8

/* One machine code per vector width, chosen at load time; GCC on x86-64
** only (elsewhere, and for clang's fuzzing build, the plain baseline). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define VM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VM_CLONES
#endif

/* |x| and x with the sign of s */
VM_INLINE vf vabs(const vf *x)
{
    return (vf)((vu)*x & 0x7fffffffu);
}

VM_INLINE vf vcopysign(const vf *x, const vf *s)
{
    return (vf)(((vu)*x & 0x7fffffffu) | ((vu)*s & 0x80000000u));
}

/* ---- log ------------------------------------------------------------------- */

/* log x = e ln2 + log m for x = m 2^e with m in [sqrt(1/2), sqrt(2)):
** Cephes' polynomial in m - 1, ln2 in two parts as in exp.  Denormals are
** scaled by 2^23 first; 0 gives -inf, negatives nan, inf and nan
** themselves. */
VM_INLINE vf vlog(const vf *xp)
{
    vf x = *xp;
    vi denormal = x < 0x1p-126f;
    vf scaled = x * 0x1p23f;
    vf xs = vm_sel(&denormal, &scaled, &x);
    vi e = (((vi)xs >> 23) & 0xff) - 126 + (denormal & -23);
    vf m = (vf)(((vi)xs & 0x007fffff) | 0x3f000000); /* in [0.5, 1) */
    vi below = m < 0.707106781186547524f;
    e = e + below; /* a mask: -1 where m is below sqrt(1/2) */
    vf m2 = m + m - 1.0f, m1 = m - 1.0f;
    m = vm_sel(&below, &m2, &m1);
    vf fe = __builtin_convertvector(e, vf);
    vf z = m * m;
    vf y = 7.0376836292e-2f * m + -1.1514610310e-1f;
    y = y * m + 1.1676998740e-1f;
    y = y * m + -1.2420140846e-1f;
    y = y * m + 1.4249322787e-1f;
    y = y * m + -1.6668057665e-1f;
    y = y * m + 2.0000714765e-1f;
    y = y * m + -2.4999993993e-1f;
    y = y * m + 3.3333331174e-1f;
    y = y * m * z;
    y = y + -2.12194440e-4f * fe;
    y = y + -0.5f * z;
    vf r = m + y;
    r = r + 0.693359375f * fe;
    vf inf = vm_splat(INFINITY), minus_inf = -inf, nan = vm_splat(NAN);
    vi is_inf = x == inf, is_zero = x == 0.0f, negative = x < 0.0f, is_nan = x != x;
    r = vm_sel(&is_inf, &inf, &r);
    r = vm_sel(&is_zero, &minus_inf, &r);
    r = vm_sel(&negative, &nan, &r);
    return vm_sel(&is_nan, &x, &r);
}

/* ---- tanh ----------------------------------------------------------------- */

/* tanh x: Cephes' odd polynomial below |x| = 0.625, else
** sign(x) (1 - 2 / (e^2|x| + 1)), which reaches +-1 exactly for large |x|. */
VM_INLINE vf vtanh(const vf *xp)
{
    vf x = *xp;
    vf z = x * x;
    vf p = -5.70498872745e-3f * z + 2.06390887954e-2f;
    p = p * z + -5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z + -3.33332819422e-1f;
    vf small = p * z * x + x;
    /* past |x| = 10, 2 / (e^20 + 1) < 2^-27 and tanh rounds to +-1 */
    vf a = vabs(&x), ten = vm_splat(10.0f);
    vi past = a > ten;
    vf a2 = vm_sel(&past, &ten, &a);
    a2 = a2 + a2;
    vf big = 1.0f - 2.0f / (vm_exp_normal(&a2) + 1.0f);
    vi is_small = a < 0.625f;
    vf y = vm_sel(&is_small, &small, &big);
    return vcopysign(&y, &x); /* also for -0, where small gives +0 */
}

/* ---- erf ------------------------------------------------------------------ */

/* erf x: below |x| = 1, x + x P(x^2) (P(0) = 2 / sqrt(pi) - 1, so the
** leading term is exact); from 1 on, 1 - Q(|x| - 2.46), Q fitted to erfc
** with an absolute error far below erf's half ulp there (2^-25), which
** needs no exp.  Past |x| = 3.92, erf rounds to +-1 in float32. */
VM_INLINE vf verf_small(const vf *xp)
{
    vf x = *xp;
    vf z = x * x;
    vf p = 7.89745e-05f * z + -0.0008024113f;
    p = p * z + 0.005190024f;
    p = p * z + -0.02685479f;
    p = p * z + 0.11283612f;
    p = p * z + -0.3761263f;
    p = p * z + 0.12837917f;
    return x + x * p;
}

VM_INLINE vf verf(const vf *xp)
{
    vf x = *xp;
    vf small = verf_small(&x);
    vf a = vabs(&x), zero = vm_splat(0.0f);
    vi is_small = a < 1.0f, past = a > 3.92f;
    vf t = a - 2.46f;
    vf q = 9.1666325e-06f * t + -2.5363119e-05f;
    q = q * t + -5.189471e-05f;
    q = q * t + 0.00030136685f;
    q = q * t + -0.00039068243f;
    q = q * t + -0.00046156946f;
    q = q * t + 0.0029631236f;
    q = q * t + -0.006798154f;
    q = q * t + 0.009904964f;
    q = q * t + -0.009832827f;
    q = q * t + 0.006535749f;
    q = q * t + -0.0026562088f;
    q = q * t + 0.0005033269f;
    q = vm_sel(&past, &zero, &q); /* erfc < 2^-25 there: erf rounds to 1 */
    vf big = 1.0f - q;
    big = vcopysign(&big, &x);
    return vm_sel(&is_small, &small, &big);
}

/* ---- the activations ------------------------------------------------------- */

/* The _normal forms: the same bits where every |x| < VM_EXP_NORMAL_LIM,
** with exp's one-factor form (vmap_split picks them). */
VM_INLINE vf vsigmoid(const vf *xp)
{
    vf m = -*xp;
    return 1.0f / (1.0f + vm_exp(&m));
}

VM_INLINE vf vsigmoid_normal(const vf *xp)
{
    vf m = -*xp;
    return 1.0f / (1.0f + vm_exp_normal(&m));
}

VM_INLINE vf vsilu(const vf *xp)
{
    vf x = *xp, m = -x;
    return x / (1.0f + vm_exp(&m));
}

VM_INLINE vf vsilu_normal(const vf *xp)
{
    vf x = *xp, m = -x;
    return x / (1.0f + vm_exp_normal(&m));
}

VM_INLINE vf vgelu(const vf *xp)
{
    vf x = *xp;
    vf s = x * 0.707106781186547524f;
    return x * 0.5f * (1.0f + verf(&s));
}

/* gelu where every |x| < GELU_SMALL_LIM, so |x / sqrt 2| < 1: erf's
** small-argument polynomial alone, the lanes verf would select */
#define GELU_SMALL_LIM 1.414f
VM_INLINE vf vgelu_small(const vf *xp)
{
    vf x = *xp;
    vf s = x * 0.707106781186547524f;
    return x * 0.5f * (1.0f + verf_small(&s));
}

VM_INLINE vf vgelu_tanh(const vf *xp)
{
    vf x = *xp;
    vf inner = 0.797884560802865356f * (x + 0.044715f * (x * x * x));
    return 0.5f * x * (1.0f + vtanh(&inner));
}

/* ---- array loops ------------------------------------------------------------ */

/* y[i] = f(x[i]): whole vectors, then the last n % 8 through a zero-padded
** vector, so every element takes the same operations. */
VM_INLINE void vmap(float *y, const float *x, int64_t n, vf (*f)(const vf *))
{
    int64_t i = 0;
    for (; i + VM_LANES <= n; i += VM_LANES) {
        vf v;
        memcpy(&v, x + i, sizeof v);
        v = f(&v);
        memcpy(y + i, &v, sizeof v);
    }
    if (i < n) {
        vf v = {0};
        size_t rest = (size_t)(n - i) * sizeof(float);
        memcpy(&v, x + i, rest);
        v = f(&v);
        memcpy(y + i, &v, rest);
    }
}

/* vmap with a cheaper f where a block allows it: each block of VM_BLOCK
** values whose every |x| is below lim runs fast, which gives full's bits
** for such x (it skips only work whose result full would not select), the
** other blocks and the tail run full.  The check costs an AND, a compare
** and an OR per vector. */
#define VM_BLOCK 64
VM_INLINE void vmap_split(float *y, const float *x, int64_t n, float lim, vf (*fast)(const vf *),
                          vf (*full)(const vf *))
{
    int64_t i = 0;
    for (; i + VM_BLOCK <= n; i += VM_BLOCK) {
        vi out = {0};
        for (int k = 0; k < VM_BLOCK; k += VM_LANES) {
            vf v;
            memcpy(&v, x + i + k, sizeof v);
            out |= vm_not_below(&v, lim);
        }
        if (vm_any(&out))
            vmap(y + i, x + i, VM_BLOCK, full);
        else
            vmap(y + i, x + i, VM_BLOCK, fast);
    }
    vmap(y + i, x + i, n - i, full);
}

VM_CLONES void vm_exp_f32(float *y, const float *x, int64_t n)
{
    vmap_split(y, x, n, VM_EXP_NORMAL_LIM, vm_exp_normal, vm_exp);
}
VM_CLONES void vm_log_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vlog); }
VM_CLONES void vm_tanh_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vtanh); }
VM_CLONES void vm_erf_f32(float *y, const float *x, int64_t n) { vmap_split(y, x, n, 1.0f, verf_small, verf); }
VM_CLONES void vm_sigmoid_f32(float *y, const float *x, int64_t n)
{
    vmap_split(y, x, n, VM_EXP_NORMAL_LIM, vsigmoid_normal, vsigmoid);
}
VM_CLONES void vm_silu_f32(float *y, const float *x, int64_t n)
{
    vmap_split(y, x, n, VM_EXP_NORMAL_LIM, vsilu_normal, vsilu);
}
VM_CLONES void vm_gelu_f32(float *y, const float *x, int64_t n)
{
    vmap_split(y, x, n, GELU_SMALL_LIM, vgelu_small, vgelu);
}
VM_CLONES void vm_gelu_tanh_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vgelu_tanh); }
