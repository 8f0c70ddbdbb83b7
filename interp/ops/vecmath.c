/*
** vecmath.c -- float32 exp, log, tanh, erf, expm1, log1p, sin, cos and the
** activations built on them,
** as polynomials over 8-lane vectors (see vecmath.h for the contract).
**
** Why our own and not SLEEF (what PyTorch uses): SLEEF's AVX2 and AVX-512
** entry points use fused multiply-add and its SSE ones do not, so its
** results depend on the CPU, and a debugger's values must not.  These are
** written with GCC's vector extensions: each function is a range reduction
** and a polynomial with no branches and no table, every lane computing the
** same IEEE operations.  The polynomials' steps are fused multiply-adds,
** written out (vm_fma, vm_horner, vd_fma): an FMA rounds once on every
** CPU, and the compiler fuses nothing else (the build is ISO C, where GCC
** contracts nothing: -ffp-contract=off).  The array loops are compiled
** three times (target_clones: x86-64-v4 with AVX-512, x86-64-v3 with AVX2
** and FMA, the SSE2 baseline every x86-64 has, where libm's fmaf stands in
** for the instruction) and the loader picks one for the CPU; the three give
** the same bits.
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
** only (elsewhere, and for clang's fuzzing build, the plain baseline).
** tests/test_vecmath_clones.c defines VM_CLONES itself to build the
** baseline alone, next to the library's clones, and compare their bits. */
#ifndef VM_CLONES
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define VM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VM_CLONES
#endif
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
** Cephes' polynomial in m - 1, ln2 in two parts as in exp.  The reduction
** of a positive normal x: returns m - 1 (exact) and sets *e. */
VM_INLINE vf vlog_reduce(const vf *xp, vi *e)
{
    vf x = *xp;
    *e = (((vi)x >> 23) & 0xff) - 126;
    vf m = (vf)(((vi)x & 0x007fffff) | 0x3f000000); /* in [0.5, 1) */
    vi below = m < 0.707106781186547524f;
    *e = *e + below; /* a mask: -1 where m is below sqrt(1/2) */
    vf m2 = m + m - 1.0f, m1 = m - 1.0f;
    return vm_sel(&below, &m2, &m1);
}

/* e ln2 + log(1 + f) for f = m - 1, |f| < 0.42 */
VM_INLINE vf vlog_poly(const vf *fp, const vi *e)
{
    vf m = *fp;
    vf fe = __builtin_convertvector(*e, vf);
    /* the polynomial's terms in pairs and powers of m (Estrin's scheme): a
    ** chain of four multiply-adds where Horner's has eight */
    vf z = m * m, z2 = z * z, z4 = z2 * z2;
    vf q01 = vm_horner(vm_splat(-2.4999993993e-1f), m, 3.3333331174e-1f);
    vf q23 = vm_horner(vm_splat(-1.6668057665e-1f), m, 2.0000714765e-1f);
    vf q45 = vm_horner(vm_splat(-1.2420140846e-1f), m, 1.4249322787e-1f);
    vf q67 = vm_horner(vm_splat(-1.1514610310e-1f), m, 1.1676998740e-1f);
    vf y = vm_fma(z4, vm_splat(7.0376836292e-2f), vm_fma(z2, vm_fma(z, q67, q45), vm_fma(z, q23, q01)));
    y = y * m * z;
    y = vm_fma(vm_splat(-2.12194440e-4f), fe, y);
    y = vm_fma(vm_splat(-0.5f), z, y);
    vf r = m + y;
    return vm_fma(vm_splat(0.693359375f), fe, r);
}

/* Denormals are scaled by 2^23 first; 0 gives -inf, negatives nan, inf
** and nan themselves. */
VM_INLINE vf vlog(const vf *xp)
{
    vf x = *xp;
    vi denormal = x < 0x1p-126f;
    vf scaled = x * 0x1p23f;
    vf xs = vm_sel(&denormal, &scaled, &x);
    vi e;
    vf f = vlog_reduce(&xs, &e);
    e = e + (denormal & -23);
    vf r = vlog_poly(&f, &e);
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
    vf p = vm_horner(vm_splat(-5.70498872745e-3f), z, 2.06390887954e-2f);
    p = vm_horner(p, z, -5.37397155531e-2f);
    p = vm_horner(p, z, 1.33314422036e-1f);
    p = vm_horner(p, z, -3.33332819422e-1f);
    vf small = vm_fma(p * z, x, x);
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
    vf p = vm_horner(vm_splat(7.89745e-05f), z, -0.0008024113f);
    p = vm_horner(p, z, 0.005190024f);
    p = vm_horner(p, z, -0.02685479f);
    p = vm_horner(p, z, 0.11283612f);
    p = vm_horner(p, z, -0.3761263f);
    p = vm_horner(p, z, 0.12837917f);
    return vm_fma(x, p, x);
}

VM_INLINE vf verf(const vf *xp)
{
    vf x = *xp;
    vf small = verf_small(&x);
    vf a = vabs(&x), zero = vm_splat(0.0f);
    vi is_small = a < 1.0f, past = a > 3.92f;
    vf t = a - 2.46f;
    vf q = vm_horner(vm_splat(9.1666325e-06f), t, -2.5363119e-05f);
    q = vm_horner(q, t, -5.189471e-05f);
    q = vm_horner(q, t, 0.00030136685f);
    q = vm_horner(q, t, -0.00039068243f);
    q = vm_horner(q, t, -0.00046156946f);
    q = vm_horner(q, t, 0.0029631236f);
    q = vm_horner(q, t, -0.006798154f);
    q = vm_horner(q, t, 0.009904964f);
    q = vm_horner(q, t, -0.009832827f);
    q = vm_horner(q, t, 0.006535749f);
    q = vm_horner(q, t, -0.0026562088f);
    q = vm_horner(q, t, 0.0005033269f);
    q = vm_sel(&past, &zero, &q); /* erfc < 2^-25 there: erf rounds to 1 */
    vf big = 1.0f - q;
    big = vcopysign(&big, &x);
    return vm_sel(&is_small, &small, &big);
}

/* ---- expm1, log1p ------------------------------------------------------------ */

/* e^x - 1 = 2^n (e^r - 1) + (2^n - 1), with e^r - 1 from exp's reduction;
** written 2^n1 (2^n2 (e^r - 1) + (2^n2 - 2^-n1)) for n = n1 + n2, so each
** factor is a normal float up to n = 128 (x = 89, where it overflows to inf)
** and the parenthesis, exact but for one rounding, is the only inexact step
** (2^n2 - 2^-n1 is exact while |n| <= 24; past that e^x - 1 rounds as e^x,
** or to -1).  x is clamped to [-30, 89] first: -1 and inf beyond, as
** e^x - 1 rounds there.  A zero keeps its sign. */
VM_INLINE vf vexpm1(const vf *xp)
{
    vf x = *xp;
    vf lo = vm_splat(-30.0f), hi = vm_splat(89.0f);
    vi below = x < lo, above = x > hi;
    vf xc = vm_sel(&below, &lo, &x);
    xc = vm_sel(&above, &hi, &xc);
    vi n;
    vf em1 = vm_expm1_reduced(&xc, &n);
    vi n1 = n >> 1, n2 = n - n1, minus_n1 = -n1;
    vf s1 = vm_pow2i(&n1), s2 = vm_pow2i(&n2);
    vf y = s1 * vm_fma(s2, em1, s2 - vm_pow2i(&minus_n1));
    vi is_zero = x == 0.0f;
    return vm_sel(&is_zero, &x, &y);
}

/* log(1 + x) for u = 1 + x rounded and c = x - (u - 1), the part of 1 + x
** that rounding u lost (exact for -1 <= x < 2^24; beyond, c is 0): with
** u = m 2^e, 1 + x = (m + c 2^-e) 2^e, so the log polynomial takes
** f = (m - 1) + c 2^-e, no division.  Below |x| = 2^-24 the result rounds
** to x itself (also -0); -1 gives -inf, inf inf, below -1 nan. */
VM_INLINE vf vlog1p(const vf *xp)
{
    vf x = *xp;
    vf u = 1.0f + x;
    vf c = x - (u - 1.0f);
    vf tiny_u = vm_splat(0x1p-24f);
    vi u_small = u < tiny_u;
    vf us = vm_sel(&u_small, &tiny_u, &u); /* x <= -1: a normal stand-in, replaced below */
    vi e;
    vf f = vlog_reduce(&us, &e);
    vi minus_e = -e;
    vi huge = minus_e < -126; /* u >= 2^127, where c is 0 */
    minus_e = minus_e & ~huge;
    f = f + c * vm_pow2i(&minus_e);
    vf y = vlog_poly(&f, &e);
    vf a = vabs(&x), inf = vm_splat(INFINITY), minus_inf = -inf, nan = vm_splat(NAN);
    vi tiny = a < 0x1p-24f, u_zero = u == 0.0f, negative = u < 0.0f, is_inf = x == inf, is_nan = x != x;
    y = vm_sel(&tiny, &x, &y);
    y = vm_sel(&u_zero, &minus_inf, &y);
    y = vm_sel(&negative, &nan, &y);
    y = vm_sel(&is_inf, &inf, &y);
    return vm_sel(&is_nan, &x, &y);
}

/* ---- sin, cos --------------------------------------------------------------- */

/* Four lanes of double: float32's sin and cos are computed in double, where
** a two-part pi reduces exactly enough and the Taylor polynomial to the 17th
** power leaves an error near 2^-44, so the float result is the correctly
** rounded one but for inputs within 2^-20 ulp of a tie. */
typedef double vd __attribute__((vector_size(32)));
typedef int64_t vl __attribute__((vector_size(32)));
typedef uint64_t vul __attribute__((vector_size(32)));
typedef float vf4 __attribute__((vector_size(16)));

/* by-value operands, as VmF8Arg (vecmath_vec.h) */
typedef double vdArg __attribute__((vector_size(32), aligned(8), may_alias));

/* a b + c rounded once, four lanes of double: vm_fma's double twin */
VM_INLINE vd vd_fma(vdArg a, vdArg b, vdArg c)
{
    vd r;
    for (int i = 0; i < 4; i++)
        r[i] = __builtin_fma(a[i], b[i], c[i]);
    return r;
}

/* p x + c */
VM_INLINE vd vd_horner(vdArg p, vdArg x, double c)
{
    return vd_fma(p, x, (vd){c, c, c, c});
}

/* Below this |x| the reduction is computed to far better than float32
** needs (j < 2^19 and pi's high part has 33 bits, so j pi_hi is exact);
** from there on, and for inf and nan, libm's double sin and cos. */
#define VM_TRIG_LIM 1048576.0f

/* sin x (half = 0) or cos x = sin(x + pi/2) (half = 0.5):
** x + half pi = j pi + r with |r| <= pi/2, and the result (-1)^j sin r. */
VM_INLINE vd vsin_d(const vd *xp, double half)
{
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds to an integer */
    vd x = *xp;
    vd t = vd_horner(x, (vd){0} + 0.318309886183790671538, half) + shifter;
    vl odd = (vl)(((vul)t & 1) << 63); /* j's low bit (t's lowest mantissa bit), as a sign */
    vd h = (t - shifter) - half;
    vd r = vd_fma(-h, (vd){0} + 3.14159265346825122833, x); /* pi to 33 bits ... */
    r = vd_fma(-h, (vd){0} + 1.21542010130123844986e-10, r); /* ... and the rest */
    /* sin r = r + r z P(z), z = r^2, P's terms -1/3!, 1/5!, ..., 1/17!
    ** taken in pairs and powers of z (Estrin's scheme): a chain of four
    ** multiply-adds where Horner's has eight, which the loop waited on */
    vd z = r * r, z2 = z * z, z4 = z2 * z2;
    vd p01 = vd_horner(z, (vd){0} + 1.0 / 120.0, -1.0 / 6.0);
    vd p23 = vd_horner(z, (vd){0} + 1.0 / 362880.0, -1.0 / 5040.0);
    vd p45 = vd_horner(z, (vd){0} + 1.0 / 6227020800.0, -1.0 / 39916800.0);
    vd p67 = vd_horner(z, (vd){0} + 1.0 / 355687428096000.0, -1.0 / 1307674368000.0);
    vd p = vd_fma(z4, vd_fma(z2, p67, p45), vd_fma(z2, p23, p01));
    vd y = vd_fma(p * z, r, r);
    return (vd)((vl)y ^ odd);
}

/* sin x (half = 0) or cos x (half = 0.5) of eight floats, four lanes of
** double at a time; sin keeps a zero's sign.  For |x| below VM_TRIG_LIM. */
VM_INLINE vf vsin_half(const vf *xp, double half)
{
    vf x = *xp;
    vf4 lo = __builtin_shufflevector(x, x, 0, 1, 2, 3), hi = __builtin_shufflevector(x, x, 4, 5, 6, 7);
    vd dlo = __builtin_convertvector(lo, vd), dhi = __builtin_convertvector(hi, vd);
    dlo = vsin_d(&dlo, half);
    dhi = vsin_d(&dhi, half);
    lo = __builtin_convertvector(dlo, vf4);
    hi = __builtin_convertvector(dhi, vf4);
    vf y = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
    vi is_zero = (x == 0.0f) & (half == 0 ? -1 : 0);
    return vm_sel(&is_zero, &x, &y);
}

/* The same, and libm's double sin or cos for lanes at or past VM_TRIG_LIM
** (a reduction that needs pi's bits far down; rare in practice). */
VM_INLINE vf vsin_half_full(const vf *xp, double half)
{
    vf y = vsin_half(xp, half);
    vi big = vm_not_below(xp, VM_TRIG_LIM);
    if (vm_any(&big))
        for (int i = 0; i < VM_LANES; i++)
            if (big[i])
                y[i] = (float)(half == 0 ? sin((double)(*xp)[i]) : cos((double)(*xp)[i]));
    return y;
}

VM_INLINE vf vsin(const vf *xp) { return vsin_half(xp, 0); }
VM_INLINE vf vsin_full(const vf *xp) { return vsin_half_full(xp, 0); }
VM_INLINE vf vcos(const vf *xp) { return vsin_half(xp, 0.5); }
VM_INLINE vf vcos_full(const vf *xp) { return vsin_half_full(xp, 0.5); }

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

/* mish, x tanh(log(1 + e^x)), composed as PyTorch composes it: its last
** step, from l = log(1 + e^x) */
VM_INLINE vf vmish_last(const vf *xp, const vf *lp, const float *c)
{
    (void)c;
    return *xp * vtanh(lp);
}

/* elu: x > 0 ? x scale : (e^(x input_scale) - 1) alpha_scale, with
** c = {alpha_scale, scale, input_scale}; nan takes the first side */
VM_INLINE vf velu(const vf *xp, const float *c)
{
    vf x = *xp;
    vf xs = x * c[2];
    vf neg = vexpm1(&xs) * c[0], pos = x * c[1];
    vi le0 = x <= 0.0f;
    return vm_sel(&le0, &neg, &pos);
}

/* softplus: x beta > threshold ? x : log(1 + e^(x beta)) / beta, with
** c = {beta, threshold}: its first step, e^(x beta), and its last, from
** l = log(1 + e^(x beta)) */
VM_INLINE vf vexp_scaled(const vf *xp, const float *c)
{
    vf xb = *xp * c[0];
    return vm_exp(&xb);
}

VM_INLINE vf vsoftplus_last(const vf *xp, const vf *lp, const float *c)
{
    vf x = *xp;
    vf y = *lp / c[0];
    vi linear = x * c[0] > c[1];
    return vm_sel(&linear, &x, &y);
}

/* ---- array loops ------------------------------------------------------------ */

/* y[i] = f(x[i]), fa(x[i], c) or, with t, f2(x[i], t[i], c): exactly one
** of the functions is given.  Whole vectors, then the last n % 8 through
** zero-padded vectors, so every element takes the same operations.  The
** loop is inlined with the functions known (as direct arguments, which
** GCC's early inliner follows), so the choice among them folds away. */
VM_INLINE void vmap_any(float *y, const float *x, const float *t, int64_t n, vf (*f)(const vf *),
                        vf (*fa)(const vf *, const float *), vf (*f2)(const vf *, const vf *, const float *),
                        const float *c)
{
    int64_t i = 0;
    for (; i + VM_LANES <= n; i += VM_LANES) {
        vf v, w = {0};
        memcpy(&v, x + i, sizeof v);
        if (t)
            memcpy(&w, t + i, sizeof w);
        v = f2 ? f2(&v, &w, c) : fa ? fa(&v, c) : f(&v);
        memcpy(y + i, &v, sizeof v);
    }
    if (i < n) {
        vf v = {0}, w = {0};
        size_t rest = (size_t)(n - i) * sizeof(float);
        memcpy(&v, x + i, rest);
        if (t)
            memcpy(&w, t + i, rest);
        v = f2 ? f2(&v, &w, c) : fa ? fa(&v, c) : f(&v);
        memcpy(y + i, &v, rest);
    }
}

VM_INLINE void vmap(float *y, const float *x, int64_t n, vf (*f)(const vf *))
{
    vmap_any(y, x, NULL, n, f, NULL, NULL, NULL);
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

/* Compositions (mish, softplus) run one function at a time over a block of
** VM_CHAIN values: one function's chain of dependent operations is short
** enough for the CPU to start the next vector's before it ends, a chain
** through exp, log1p and tanh together is not (mish took twice the time of
** its three passes).  The same operations, so the same bits. */
#define VM_CHAIN 256

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
VM_CLONES void vm_expm1_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vexpm1); }
VM_CLONES void vm_log1p_f32(float *y, const float *x, int64_t n) { vmap(y, x, n, vlog1p); }
VM_CLONES void vm_sin_f32(float *y, const float *x, int64_t n)
{
    vmap_split(y, x, n, VM_TRIG_LIM, vsin, vsin_full);
}
VM_CLONES void vm_cos_f32(float *y, const float *x, int64_t n)
{
    vmap_split(y, x, n, VM_TRIG_LIM, vcos, vcos_full);
}
VM_CLONES void vm_mish_f32(float *y, const float *x, int64_t n)
{
    float t[VM_CHAIN];
    for (int64_t i = 0; i < n; i += VM_CHAIN) {
        int64_t k = n - i < VM_CHAIN ? n - i : VM_CHAIN;
        vmap(t, x + i, k, vm_exp);
        vmap(t, t, k, vlog1p);
        vmap_any(y + i, x + i, t, k, NULL, NULL, vmish_last, NULL);
    }
}
VM_CLONES void vm_elu_f32(float *y, const float *x, int64_t n, const float coef[3])
{
    vmap_any(y, x, NULL, n, NULL, velu, NULL, coef);
}
VM_CLONES void vm_softplus_f32(float *y, const float *x, int64_t n, float beta, float threshold)
{
    const float c[2] = {beta, threshold};
    float t[VM_CHAIN];
    for (int64_t i = 0; i < n; i += VM_CHAIN) {
        int64_t k = n - i < VM_CHAIN ? n - i : VM_CHAIN;
        vmap_any(t, x + i, NULL, k, NULL, vexp_scaled, NULL, c);
        vmap(t, t, k, vlog1p);
        vmap_any(y + i, x + i, t, k, NULL, NULL, vsoftplus_last, c);
    }
}
