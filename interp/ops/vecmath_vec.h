/*
** vecmath_vec.h -- the 8-lane vector type and the inline exp of vecmath.c,
** for kernels that exponentiate inside their own loops (softmax in
** reduce_fast.c): one exp, the same bits wherever it runs.
**
** Same contract as vecmath.h: IEEE additions, multiplications, fused
** multiply-adds written out as vm_fma, and integer bit operations; the
** compiler fuses nothing on its own (ISO C mode: GCC contracts nothing;
** clang is told below), so every clone of a caller gives the same bits.
** A caller's clones must include FMA (target "arch=x86-64-v3" or v4, not
** plain "avx2"): see vm_fma.  Vectors pass by pointer between
** always-inlined functions (see the -Wpsabi note in vecmath.c), but for
** vm_fma's and vm_horner's operands (VmF8Arg), which read as arithmetic.
*/
#ifndef EP_OPS_VECMATH_VEC_H
#define EP_OPS_VECMATH_VEC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

typedef float VmF8 __attribute__((vector_size(32)));
/* The same vector as a by-value parameter (vm_fma's operands): 4-byte
** aligned and may_alias, the one spelling for which GCC 12 prints no
** "ABI for passing parameters with 32-byte alignment" note, which the
** -Wpsabi pragma above does not silence. */
typedef float VmF8Arg __attribute__((vector_size(32), aligned(4), may_alias));
typedef int32_t VmI8 __attribute__((vector_size(32)));
typedef uint32_t VmU8 __attribute__((vector_size(32)));

#define VM_INLINE static inline __attribute__((always_inline))

/* mask ? a : b, lane by lane (mask lanes are all ones or all zeros) */
VM_INLINE VmF8 vm_sel(const VmI8 *mask, const VmF8 *a, const VmF8 *b)
{
    return (VmF8)((*mask & (VmI8)*a) | (~*mask & (VmI8)*b));
}

/* every lane c */
VM_INLINE VmF8 vm_splat(float c)
{
    return (VmF8){c, c, c, c, c, c, c, c};
}

/* a b + c rounded once, lane by lane: IEEE's fused multiply-add, which
** has one result on every CPU.  GCC makes a single vfmadd of the eight
** fmaf in a clone built for FMA (x86-64-v3, v4), and in the baseline
** clone calls libm's fmaf, exact without the instruction too (slowly:
** only x86-64 CPUs from before 2013 take it).  The polynomials below
** fuse their steps because a chain of fused steps is half as long as one
** of multiplies and adds, and these loops wait on their chains (exp took
** 0.47 ns an element unfused, 0.27 fused). */
VM_INLINE VmF8 vm_fma(VmF8Arg a, VmF8Arg b, VmF8Arg c)
{
    VmF8 r;
    for (int i = 0; i < 8; i++)
        r[i] = __builtin_fmaf(a[i], b[i], c[i]);
    return r;
}

/* p x + c, one step of a polynomial's Horner scheme */
VM_INLINE VmF8 vm_horner(VmF8Arg p, VmF8Arg x, float c)
{
    return vm_fma(p, x, vm_splat(c));
}

/* Whether any lane of mask is set (all ones). */
VM_INLINE bool vm_any(const VmI8 *mask)
{
    VmI8 m = *mask | __builtin_shufflevector(*mask, *mask, 4, 5, 6, 7, 0, 1, 2, 3);
    m = m | __builtin_shufflevector(m, m, 2, 3, 0, 1, 2, 3, 0, 1);
    return (m[0] | m[1]) != 0;
}

/* Lanes whose |x| is not below lim (lim > 0): inf and nan are never below. */
VM_INLINE VmI8 vm_not_below(const VmF8 *x, float lim)
{
    int32_t bits;
    memcpy(&bits, &lim, sizeof bits);
    return ((VmI8)*x & 0x7fffffff) >= bits;
}

/* e^x = 2^n e^r for x = n ln2 + r, |r| <= ln2 / 2: returns e^r - 1 (to
** within an ulp of itself, so expm1 keeps its small values) and sets *n.  Cody-Waite reduction (ln2's high part has 9 bits, so n * hi and
** x - n * hi are exact), e^r by Cephes' polynomial.  For |x| < 2^21. */
VM_INLINE VmF8 vm_expm1_reduced(const VmF8 *xp, VmI8 *n)
{
    const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    VmF8 x = *xp;
    VmF8 t = vm_horner(x, vm_splat(1.44269504088896341f), shifter);
    *n = (VmI8)t - 0x4b400000; /* t's integer: its low mantissa bits */
    VmF8 nf = t - shifter;
    VmF8 r = vm_fma(-nf, vm_splat(0.693359375f), x);
    r = vm_fma(-nf, vm_splat(-2.12194440e-4f), r);
    VmF8 z = r * r;
    VmF8 p = vm_horner(vm_splat(1.9875691500e-4f), r, 1.3981999507e-3f);
    p = vm_horner(p, r, 8.3334519073e-3f);
    p = vm_horner(p, r, 4.1665795894e-2f);
    p = vm_horner(p, r, 1.6666665459e-1f);
    p = vm_horner(p, r, 5.0000001201e-1f);
    return vm_fma(p, z, r);
}

/* e^r with n as vm_expm1_reduced: its e^r - 1, plus one */
VM_INLINE VmF8 vm_exp_reduced(const VmF8 *xp, VmI8 *n)
{
    return vm_expm1_reduced(xp, n) + 1.0f;
}

/* 2^n for -126 <= n <= 127 */
VM_INLINE VmF8 vm_pow2i(const VmI8 *n)
{
    return (VmF8)((VmU8)(*n + 127) << 23);
}

/* Below this |x|, n stays in [-126, 126]: 2^n is a normal float and
** vm_exp_normal gives vm_exp's bits (p 2^n is rounded once either way). */
#define VM_EXP_NORMAL_LIM 87.0f

/* e^x for |x| < VM_EXP_NORMAL_LIM (or up to 88 when only 2^n must be
** normal): one multiply by 2^n, without vm_exp's clamps. */
VM_INLINE VmF8 vm_exp_normal(const VmF8 *xp)
{
    VmI8 n;
    VmF8 p = vm_exp_reduced(xp, &n);
    return p * vm_pow2i(&n);
}

/* e^x for every x: clamped to [-105, 89] first, which keeps n in [-152,
** 129] and still gives 0 and inf past it (nan passes), then times 2^n in
** two factors 2^(n/2) that both stay normal floats, so a denormal result
** is rounded once, by the last multiply, and a large one overflows to inf. */
VM_INLINE VmF8 vm_exp(const VmF8 *xp)
{
    VmF8 x = *xp;
    VmF8 lo = vm_splat(-105.0f), hi = vm_splat(89.0f);
    VmI8 below = x < lo, above = x > hi;
    x = vm_sel(&below, &lo, &x);
    x = vm_sel(&above, &hi, &x);
    VmI8 n;
    VmF8 p = vm_exp_reduced(&x, &n);
    VmI8 n1 = n >> 1, n2 = n - n1;
    return p * vm_pow2i(&n1) * vm_pow2i(&n2);
}

#endif
