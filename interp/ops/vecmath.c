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

#include <math.h>
#include <string.h>

/* The vectors pass only between always-inlined functions, so the ABI
** warning GCC gives for 32-byte vectors without AVX does not apply; they
** pass by pointer, since by value GCC also prints an ABI note that no
** pragma silences. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
/* No contraction into fused multiply-adds: GCC contracts nothing in ISO C
** mode (-std=c11), clang needs telling. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

typedef float vf __attribute__((vector_size(32)));
typedef int32_t vi __attribute__((vector_size(32)));
typedef uint32_t vu __attribute__((vector_size(32)));

#define VM_LANES 8
#define VM_INLINE static inline __attribute__((always_inline))

/* One machine code per vector width, chosen at load time; GCC on x86-64
** only (elsewhere, and for clang's fuzzing build, the plain baseline). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define VM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define VM_CLONES
#endif

/* mask ? a : b, lane by lane (mask lanes are all ones or all zeros) */
VM_INLINE vf vsel(const vi *mask, const vf *a, const vf *b)
{
    return (vf)((*mask & (vi)*a) | (~*mask & (vi)*b));
}

/* every lane c */
VM_INLINE vf vsplat(float c)
{
    return (vf){c, c, c, c, c, c, c, c};
}

/* |x| and x with the sign of s */
VM_INLINE vf vabs(const vf *x)
{
    return (vf)((vu)*x & 0x7fffffffu);
}

VM_INLINE vf vcopysign(const vf *x, const vf *s)
{
    return (vf)(((vu)*x & 0x7fffffffu) | ((vu)*s & 0x80000000u));
}

/* ---- exp -------------------------------------------------------------------- */

/* e^x = 2^n e^r for x = n ln2 + r, |r| <= ln2 / 2: returns e^r and sets
** *n.  Cody-Waite reduction (ln2's high part has 9 bits, so n * hi and
** x - n * hi are exact), e^r by Cephes' polynomial.  For |x| < 2^21. */
VM_INLINE vf vexp_reduced(const vf *xp, vi *n)
{
    const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    vf x = *xp;
    vf t = x * 1.44269504088896341f + shifter;
    *n = (vi)t - 0x4b400000; /* t's integer: its low mantissa bits */
    vf nf = t - shifter;
    vf r = x - nf * 0.693359375f;
    r = r - nf * -2.12194440e-4f;
    vf z = r * r;
    vf p = 1.9875691500e-4f * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * z + r;
    return p + 1.0f;
}

/* 2^n for -126 <= n <= 127 */
VM_INLINE vf vpow2i(const vi *n)
{
    return (vf)((vu)(*n + 127) << 23);
}

/* e^x for every x: clamped to [-105, 89] first, which keeps n in [-152,
** 129] and still gives 0 and inf past it (nan passes), then times 2^n in
** two factors 2^(n/2) that both stay normal floats, so a denormal result
** is rounded once, by the last multiply, and a large one overflows to inf. */
VM_INLINE vf vexp(const vf *xp)
{
    vf x = *xp;
    vf lo = vsplat(-105.0f), hi = vsplat(89.0f);
    vi below = x < lo, above = x > hi;
    x = vsel(&below, &lo, &x);
    x = vsel(&above, &hi, &x);
    vi n;
    vf p = vexp_reduced(&x, &n);
    vi n1 = n >> 1, n2 = n - n1;
    return p * vpow2i(&n1) * vpow2i(&n2);
}

/* e^x for x in [-87, 88] (or nan), where 2^n is a normal float: what tanh
** and erf need, without vexp's clamps and second factor. */
VM_INLINE vf vexp_normal(const vf *xp)
{
    vi n;
    vf p = vexp_reduced(xp, &n);
    return p * vpow2i(&n);
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
    vf xs = vsel(&denormal, &scaled, &x);
    vi e = (((vi)xs >> 23) & 0xff) - 126 + (denormal & -23);
    vf m = (vf)(((vi)xs & 0x007fffff) | 0x3f000000); /* in [0.5, 1) */
    vi below = m < 0.707106781186547524f;
    e = e + below; /* a mask: -1 where m is below sqrt(1/2) */
    vf m2 = m + m - 1.0f, m1 = m - 1.0f;
    m = vsel(&below, &m2, &m1);
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
    vf inf = vsplat(INFINITY), minus_inf = -inf, nan = vsplat(NAN);
    vi is_inf = x == inf, is_zero = x == 0.0f, negative = x < 0.0f, is_nan = x != x;
    r = vsel(&is_inf, &inf, &r);
    r = vsel(&is_zero, &minus_inf, &r);
    r = vsel(&negative, &nan, &r);
    return vsel(&is_nan, &x, &r);
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
    vf a = vabs(&x), ten = vsplat(10.0f);
    vi past = a > ten;
    vf a2 = vsel(&past, &ten, &a);
    a2 = a2 + a2;
    vf big = 1.0f - 2.0f / (vexp_normal(&a2) + 1.0f);
    vi is_small = a < 0.625f;
    vf y = vsel(&is_small, &small, &big);
    return vcopysign(&y, &x); /* also for -0, where small gives +0 */
}

/* ---- erf ------------------------------------------------------------------ */

/* erf x: below |x| = 1, x + x P(x^2) (P(0) = 2 / sqrt(pi) - 1, so the
** leading term is exact); from 1 on, 1 - Q(|x| - 2.46), Q fitted to erfc
** with an absolute error far below erf's half ulp there (2^-25), which
** needs no exp.  Past |x| = 3.92, erf rounds to +-1 in float32. */
VM_INLINE vf verf(const vf *xp)
{
    vf x = *xp;
    vf z = x * x;
    vf p = 7.89745e-05f * z + -0.0008024113f;
    p = p * z + 0.005190024f;
    p = p * z + -0.02685479f;
    p = p * z + 0.11283612f;
    p = p * z + -0.3761263f;
    p = p * z + 0.12837917f;
    vf small = x + x * p;

    vf a = vabs(&x), zero = vsplat(0.0f);
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
    q = vsel(&past, &zero, &q); /* erfc < 2^-25 there: erf rounds to 1 */
    vf big = 1.0f - q;
    big = vcopysign(&big, &x);
    return vsel(&is_small, &small, &big);
}

/* ---- the activations ------------------------------------------------------- */

VM_INLINE vf vsigmoid(const vf *xp)
{
    vf x = *xp;
    vf m = -x;
    return 1.0f / (1.0f + vexp(&m));
}

VM_INLINE vf vsilu(const vf *xp)
{
    vf x = *xp;
    vf m = -x;
    return x / (1.0f + vexp(&m));
}

VM_INLINE vf vgelu(const vf *xp)
{
    vf x = *xp;
    vf s = x * 0.707106781186547524f;
    return x * 0.5f * (1.0f + verf(&s));
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

VM_CLONES void vm_exp_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vexp); }
VM_CLONES void vm_log_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vlog); }
VM_CLONES void vm_tanh_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vtanh); }
VM_CLONES void vm_erf_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, verf); }
VM_CLONES void vm_sigmoid_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vsigmoid); }
VM_CLONES void vm_silu_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vsilu); }
VM_CLONES void vm_gelu_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vgelu); }
VM_CLONES void vm_gelu_tanh_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vgelu_tanh); }
