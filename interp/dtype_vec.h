/*
** dtype_vec.h -- eight float16 or bfloat16 values widened to float32 in
** one vector, bfloat16's one-value conversions, with the bits of f16_to_f32 / bf16_to_f32 (dtype.h): for the
** loops that widen as they load, dtype.c's array conversions and
** reduce_fast.c's sums.  Always inlined, so each caller's target clone
** (AVX-512, AVX2, the x86-64 baseline) gets its own instructions.
*/
#ifndef EP_DTYPE_VEC_H
#define EP_DTYPE_VEC_H

#include <stdint.h>
#include <string.h>

/* The functions return 32-byte vectors, which the x86-64 baseline passes
** differently from AVX; they are always inlined, so no call crosses that
** boundary, and GCC's -Wpsabi note about it is off. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef uint16_t DtV8h __attribute__((vector_size(16)));
typedef uint32_t DtV8u __attribute__((vector_size(32)));
typedef float DtV8f __attribute__((vector_size(32)));

/* Exponent and mantissa moved into a float's place and scaled by 2^112 (a
** power of two, so exact, subnormals included), infinities and NaNs given
** the full exponent, then the sign. */
static inline __attribute__((always_inline)) DtV8f f16x8_to_f32(const uint16_t *p)
{
    DtV8h h;
    memcpy(&h, p, sizeof h);
    DtV8u u = __builtin_convertvector(h, DtV8u);
    DtV8u sign = (u & 0x8000u) << 16, em = (u & 0x7fffu) << 13;
    DtV8f two112 = {0x1p112f, 0x1p112f, 0x1p112f, 0x1p112f, 0x1p112f, 0x1p112f, 0x1p112f, 0x1p112f};
    DtV8u scaled = (DtV8u)((DtV8f)em * two112);
    DtV8u special = (DtV8u)(em >= (0x7c00u << 13));
    return (DtV8f)(((scaled & ~special) | ((em | 0x7f800000u) & special)) | sign);
}

/* One value each way, branch-free (vectorizable in a loop), with the bits
** of bf16_to_f32 and f32_to_bf16 (dtype.h): bfloat16 is float32's upper
** half; rounding is to nearest even, and a NaN becomes 0x7fc0. */
static inline __attribute__((always_inline)) float bf16_to_f32_lane(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline __attribute__((always_inline)) uint16_t f32_to_bf16_lane(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t r = (x + 0x7fffu + ((x >> 16) & 1)) >> 16;
    return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? 0x7fc0u : r);
}

/* bfloat16 is float32's upper half */
static inline __attribute__((always_inline)) DtV8f bf16x8_to_f32(const uint16_t *p)
{
    DtV8h h;
    memcpy(&h, p, sizeof h);
    return (DtV8f)(__builtin_convertvector(h, DtV8u) << 16);
}

#endif
