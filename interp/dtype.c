/*
** dtype.c -- dtype table, promotion lattice and element conversions.
*/
#include "dtype.h"
#include "dtype_vec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const DTypeInfo DTYPE_INFO[DT_COUNT] = {
    [DT_BOOL] = {"bool", "|b1", 1, 11, false, false, "Bool", "bool"},
    [DT_U8] = {"uint8", "|u1", 1, 0, false, false, "Byte", "unsigned char"},
    [DT_I8] = {"int8", "|i1", 1, 1, false, true, "Char", "signed char"},
    [DT_I16] = {"int16", "<i2", 2, 2, false, true, "Short", "short int"},
    [DT_I32] = {"int32", "<i4", 4, 3, false, true, "Int", "int"},
    [DT_I64] = {"int64", "<i8", 8, 4, false, true, "Long", "long int"},
    [DT_F16] = {"float16", "<f2", 2, 5, true, true, "Half", "c10::Half"},
    [DT_BF16] = {"bfloat16", NULL, 2, 12, true, true, "BFloat16", "c10::BFloat16"},
    [DT_F32] = {"float32", "<f4", 4, 6, true, true, "Float", "float"},
    [DT_F64] = {"float64", "<f8", 8, 7, true, true, "Double", "double"},
};
/* scalar_type above is the 0-based c10::ScalarType; the export schema's enum
** is that plus one (0 = UNKNOWN), see dtype_from_scalar_type. */

/* torch/_export/serde/schema.py: class ScalarType (schema 8.x adds 28..35). */
static const SchemaEnumEntry SCALAR_TYPES[] = {
    {0, "unknown", "Undefined"},    {1, "uint8", "Byte"},
    {2, "int8", "Char"},            {3, "int16", "Short"},
    {4, "int32", "Int"},            {5, "int64", "Long"},
    {6, "float16", "Half"},         {7, "float32", "Float"},
    {8, "float64", "Double"},       {9, "complex32", "ComplexHalf"},
    {10, "complex64", "ComplexFloat"}, {11, "complex128", "ComplexDouble"},
    {12, "bool", "Bool"},           {13, "bfloat16", "BFloat16"},
    {28, "uint16", "UInt16"},       {29, "float8_e4m3fn", "Float8_e4m3fn"},
    {30, "float8_e5m2", "Float8_e5m2"}, {31, "float8_e4m3fnuz", "Float8_e4m3fnuz"},
    {32, "float8_e5m2fnuz", "Float8_e5m2fnuz"}, {33, "float8_e8m0fnu", "Float8_e8m0fnu"},
    {34, "uint32", "UInt32"},       {35, "uint64", "UInt64"},
};

/* class Layout; c10's names are c10/core/Layout.h's operator<<. */
static const SchemaEnumEntry LAYOUTS[] = {
    {0, "unknown", "Unknown"},        {1, "sparse_coo", "Sparse"},   {2, "sparse_csr", "SparseCsr"},
    {3, "sparse_csc", "SparseCsc"},   {4, "sparse_bsr", "SparseBsr"}, {5, "sparse_bsc", "SparseBsc"},
    {6, "_mkldnn", "Mkldnn"},         {7, "strided", "Strided"},
};

/* class MemoryFormat; c10's names are c10/core/MemoryFormat.h's operator<<. */
static const SchemaEnumEntry MEMORY_FORMATS[] = {
    {0, "unknown", "Unknown"},
    {1, "contiguous_format", "Contiguous"},
    {2, "channels_last", "ChannelsLast"},
    {3, "channels_last_3d", "ChannelsLast3d"},
    {4, "preserve_format", "Preserve"},
};

static const SchemaEnumEntry *enum_find(const SchemaEnumEntry *tab, size_t n, int code)
{
    for (size_t i = 0; i < n; i++)
        if (tab[i].code == code)
            return &tab[i];
    return NULL;
}

const SchemaEnumEntry *scalar_type_entry(int code)
{
    return enum_find(SCALAR_TYPES, sizeof SCALAR_TYPES / sizeof SCALAR_TYPES[0], code);
}

const SchemaEnumEntry *layout_entry(int code)
{
    return enum_find(LAYOUTS, sizeof LAYOUTS / sizeof LAYOUTS[0], code);
}

const SchemaEnumEntry *memory_format_entry(int code)
{
    return enum_find(MEMORY_FORMATS, sizeof MEMORY_FORMATS / sizeof MEMORY_FORMATS[0], code);
}

static int enum_code(const SchemaEnumEntry *tab, size_t n, const char *name)
{
    if (strncmp(name, "torch.", 6) == 0)
        name += 6;
    for (size_t i = 0; i < n; i++)
        if (strcmp(tab[i].torch_name, name) == 0)
            return tab[i].code;
    return -1;
}

int layout_code(const char *torch_name)
{
    return enum_code(LAYOUTS, sizeof LAYOUTS / sizeof LAYOUTS[0], torch_name);
}

int memory_format_code(const char *torch_name)
{
    return enum_code(MEMORY_FORMATS, sizeof MEMORY_FORMATS / sizeof MEMORY_FORMATS[0], torch_name);
}

DType dtype_from_scalar_type(int code)
{
    for (int t = 0; t < DT_COUNT; t++)
        if (code > 0 && DTYPE_INFO[t].scalar_type + 1 == code)
            return (DType)t;
    return DT_INVALID;
}

const char *scalar_type_name(int code)
{
    const SchemaEnumEntry *e = scalar_type_entry(code);
    return e ? e->torch_name : "unknown scalar type";
}

static const char *enum_name(const SchemaEnumEntry *e, const char *what, int code, char *buf)
{
    if (e && e->code != 0) {
        snprintf(buf, 32, "torch.%s", e->torch_name);
        return buf;
    }
    snprintf(buf, 32, "<%s %d>", what, code);
    return buf;
}

const char *layout_name(int code, char *buf)
{
    return enum_name(layout_entry(code), "layout", code, buf);
}

const char *memory_format_name(int code, char *buf)
{
    return enum_name(memory_format_entry(code), "memory_format", code, buf);
}

bool device_is_cpu(const char *device)
{
    return device && strncmp(device, "cpu", 3) == 0 && (device[3] == '\0' || device[3] == ':');
}

DType dtype_from_name(const char *name)
{
    static const struct { const char *alias; DType t; } aliases[] = {
        {"bool", DT_BOOL}, {"uint8", DT_U8}, {"u8", DT_U8}, {"int8", DT_I8}, {"i8", DT_I8},
        {"int16", DT_I16}, {"short", DT_I16}, {"i16", DT_I16}, {"int32", DT_I32}, {"int", DT_I32},
        {"i32", DT_I32}, {"int64", DT_I64}, {"long", DT_I64}, {"i64", DT_I64},
        {"float16", DT_F16}, {"half", DT_F16}, {"f16", DT_F16}, {"bfloat16", DT_BF16},
        {"bf16", DT_BF16}, {"float32", DT_F32}, {"float", DT_F32}, {"f32", DT_F32},
        {"float64", DT_F64}, {"double", DT_F64}, {"f64", DT_F64},
    };
    if (strncmp(name, "torch.", 6) == 0)
        name += 6;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(aliases[i].alias, name) == 0)
            return aliases[i].t;
    return DT_INVALID;
}

/* torch.promote_types.  Integers promote to the smallest type holding both
** (uint8 with int8 gives int16); float16 with bfloat16 gives float32; any
** float with an integer gives the float. */
DType dtype_promote(DType a, DType b)
{
    if (a == b)
        return a;
    if (a == DT_BOOL)
        return b;
    if (b == DT_BOOL)
        return a;
    if (dtype_is_float(a) || dtype_is_float(b)) {
        if (!dtype_is_float(a))
            return b;
        if (!dtype_is_float(b))
            return a;
        if ((a == DT_F16 && b == DT_BF16) || (a == DT_BF16 && b == DT_F16))
            return DT_F32;
        return a > b ? a : b; /* F16/BF16 < F32 < F64 in enum order */
    }
    /* both integers */
    if (a == DT_U8 || b == DT_U8) {
        DType o = a == DT_U8 ? b : a;
        return o == DT_I8 ? DT_I16 : o;
    }
    return a > b ? a : b;
}

/* ---- float16 / bfloat16 ------------------------------------------------ */

float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400));
            man &= 0x3ff;
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | (man << 13);
        }
    } else if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) /* inf or nan */
        return sign | (absx > 0x7f800000u ? 0x7e00 : 0x7c00);
    if (absx >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return sign | 0x7c00;
    if (absx < 0x38800000u) { /* below the smallest normal half: subnormal */
        if (absx < 0x33000000u) /* below half of the smallest subnormal */
            return sign;
        /* value = man * 2^(e-150) with the implicit bit; the half subnormal
        ** unit is 2^-24, so q = man >> (126 - e), rounded half to even. */
        uint32_t man = (absx & 0x7fffff) | 0x800000;
        uint32_t e = absx >> 23;
        int rs = (int)(126 - e);
        uint32_t q = man >> rs;
        uint32_t rem = man & ((1u << rs) - 1);
        uint32_t half = 1u << (rs - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        return sign | (uint16_t)q;
    }
    /* normal */
    uint32_t e = (absx >> 23) - 127 + 15;
    uint32_t man = absx & 0x7fffff;
    uint32_t q = (e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (q & 1)))
        q++; /* may carry into the exponent, which is correct */
    return sign | (uint16_t)q;
}

float bf16_to_f32(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0; /* NaN */
    uint32_t rounding_bias = 0x7fff + ((x >> 16) & 1);
    return (uint16_t)((x + rounding_bias) >> 16);
}

/* ---- the same, over arrays ------------------------------------------------ */

/* Branch-free forms of the four functions above, which GCC's vectorizer
** takes: a float16 or bfloat16 op converts every operand and result, and
** one call per element was most of such an op's time.  Each gives the
** element function's bits: the float operations below are exact (a
** subtraction of two powers of two's neighbours, an addition that rounds
** to the half grid as the integer rounding above does), in the default
** rounding mode, which nothing in epdbg changes.  The cases are chosen
** with masks, not branches: GCC will not move a float operation out of a
** branch (it might trap), so a ternary kept the loop scalar.  Cloned for AVX-512 and
** AVX2 beside the x86-64 baseline (GCC only), behind plain functions. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DTYPE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DTYPE_CLONES
#endif
/* blocks of a fixed count, which -O2's cheap vectorizer takes */
#define DTYPE_BLOCK 64

static inline float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* exponent and mantissa moved to float32's place and rebiased (+112);
** infinity and NaN rebiased once more (+112: exponent 255); a subnormal or
** zero as 2^-14 * (1 + m/1024) - 2^-14 = m * 2^-24, exactly */
static inline float f16_to_f32_lane(uint16_t h)
{
    uint32_t em = (uint32_t)(h & 0x7fff) << 13;
    uint32_t e = em & 0x0f800000u;
    uint32_t normal = em + (112u << 23);
    uint32_t special = normal + (112u << 23);
    uint32_t tiny = f32_bits(bits_f32(normal + (1u << 23)) - bits_f32(113u << 23));
    uint32_t is_special = 0u - (e == 0x0f800000u), is_tiny = 0u - (e == 0);
    uint32_t bits = (special & is_special) | (tiny & is_tiny) | (normal & ~(is_special | is_tiny));
    return bits_f32(bits | ((uint32_t)(h & 0x8000) << 16));
}

/* |x| >= 2^16 (and infinity, NaN) gives infinity or the quiet NaN; below
** 2^-14 the float addition of 0.5 rounds the value to the subnormal grid
** (2^-24 steps) half to even and leaves it in the low mantissa bits; else
** the integer form of round half to even on the 13 dropped bits, whose
** carry may move into the exponent (up to infinity). */
static inline uint16_t f32_to_f16_lane(float f)
{
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t a = x & 0x7fffffffu;
    uint32_t big = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
    uint32_t tiny = f32_bits(bits_f32(a) + bits_f32(126u << 23)) - (126u << 23);
    uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1)) >> 13;
    uint32_t is_big = 0u - (a >= (143u << 23)), is_tiny = 0u - (a < (113u << 23));
    uint32_t h = (big & is_big) | (tiny & is_tiny) | (normal & ~(is_big | is_tiny));
    return (uint16_t)(h | sign);
}

/* bf16_to_f32_lane and f32_to_bf16_lane are in dtype_vec.h (the pointwise
** runner's one-pass bfloat16 loops use them too) */

DTYPE_CLONES static void f16_to_f32_loop(float *dst, const uint16_t *src, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        DtV8f v = f16x8_to_f32(src + i);
        memcpy(dst + i, &v, sizeof v);
    }
    for (; i < n; i++)
        dst[i] = f16_to_f32_lane(src[i]);
}

DTYPE_CLONES static void f32_to_f16_loop(uint16_t *dst, const float *src, int64_t n)
{
    int64_t i = 0;
    for (; i + DTYPE_BLOCK <= n; i += DTYPE_BLOCK)
        for (int j = 0; j < DTYPE_BLOCK; j++)
            dst[i + j] = f32_to_f16_lane(src[i + j]);
    for (; i < n; i++)
        dst[i] = f32_to_f16_lane(src[i]);
}

DTYPE_CLONES static void bf16_to_f32_loop(float *dst, const uint16_t *src, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        DtV8f v = bf16x8_to_f32(src + i);
        memcpy(dst + i, &v, sizeof v);
    }
    for (; i < n; i++)
        dst[i] = bf16_to_f32_lane(src[i]);
}

DTYPE_CLONES static void f32_to_bf16_loop(uint16_t *dst, const float *src, int64_t n)
{
    int64_t i = 0;
    for (; i + DTYPE_BLOCK <= n; i += DTYPE_BLOCK)
        for (int j = 0; j < DTYPE_BLOCK; j++)
            dst[i + j] = f32_to_bf16_lane(src[i + j]);
    for (; i < n; i++)
        dst[i] = f32_to_bf16_lane(src[i]);
}

void f16_to_f32_n(float *dst, const uint16_t *src, int64_t n)
{
    f16_to_f32_loop(dst, src, n);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

/* f32_to_f16_loop with the F16C instruction (vcvtps2ph, on every CPU with
** AVX2), which rounds half to even as f32_to_f16 does, to the subnormals
** and to infinity alike; only a NaN differs (it keeps its payload), so NaN
** lanes are set to f32_to_f16's sign | 0x7e00 after it: the same bits.
** GCC only (clang 14 cannot ask the CPU for F16C), as DTYPE_CLONES. */
__attribute__((target("avx2,f16c"))) static void f32_to_f16_f16c(uint16_t *dst, const float *src, int64_t n)
{
    const __m128i mag = _mm_set1_epi16(0x7fff), inf = _mm_set1_epi16(0x7c00), qnan = _mm_set1_epi16(0x7e00);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        __m128i is_nan = _mm_cmpgt_epi16(_mm_and_si128(h, mag), inf);
        __m128i fixed = _mm_or_si128(_mm_andnot_si128(mag, h), qnan);
        h = _mm_or_si128(_mm_and_si128(is_nan, fixed), _mm_andnot_si128(is_nan, h));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), h);
    }
    for (; i < n; i++)
        dst[i] = f32_to_f16_lane(src[i]);
}

#endif

void f32_to_f16_n_portable(uint16_t *dst, const float *src, int64_t n)
{
    f32_to_f16_loop(dst, src, n);
}

void f32_to_f16_n(uint16_t *dst, const float *src, int64_t n)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    /* __builtin_cpu_supports reads libgcc's CPU record: a load and a test */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) {
        f32_to_f16_f16c(dst, src, n);
        return;
    }
#endif
    f32_to_f16_loop(dst, src, n);
}

void bf16_to_f32_n(float *dst, const uint16_t *src, int64_t n)
{
    bf16_to_f32_loop(dst, src, n);
}

void f32_to_bf16_n(uint16_t *dst, const float *src, int64_t n)
{
    f32_to_bf16_loop(dst, src, n);
}

/* ---- element conversions ------------------------------------------------ */

/* static_cast<intN>(double) as x86 compilers emit it: truncate toward zero
** through int64; values outside int64 (and NaN) give INT64_MIN. */
static int64_t double_to_i64(double v)
{
    if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0))
        return INT64_MIN;
    return (int64_t)v;
}

double dtype_load_f64(DType t, const void *p)
{
    switch (t) {
    case DT_BOOL: return *(const uint8_t *)p != 0;
    case DT_U8: return *(const uint8_t *)p;
    case DT_I8: return *(const int8_t *)p;
    case DT_I16: return *(const int16_t *)p;
    case DT_I32: return *(const int32_t *)p;
    case DT_I64: return (double)*(const int64_t *)p;
    case DT_F16: return f16_to_f32(*(const uint16_t *)p);
    case DT_BF16: return bf16_to_f32(*(const uint16_t *)p);
    case DT_F32: return *(const float *)p;
    case DT_F64: return *(const double *)p;
    default: return 0;
    }
}

int64_t dtype_load_i64(DType t, const void *p)
{
    switch (t) {
    case DT_BOOL: return *(const uint8_t *)p != 0;
    case DT_U8: return *(const uint8_t *)p;
    case DT_I8: return *(const int8_t *)p;
    case DT_I16: return *(const int16_t *)p;
    case DT_I32: return *(const int32_t *)p;
    case DT_I64: return *(const int64_t *)p;
    case DT_F16: return double_to_i64(f16_to_f32(*(const uint16_t *)p));
    case DT_BF16: return double_to_i64(bf16_to_f32(*(const uint16_t *)p));
    case DT_F32: return double_to_i64(*(const float *)p);
    case DT_F64: return double_to_i64(*(const double *)p);
    default: return 0;
    }
}

void dtype_store_i64(DType t, void *p, int64_t v)
{
    switch (t) {
    case DT_BOOL: *(uint8_t *)p = v != 0; break;
    case DT_U8: *(uint8_t *)p = (uint8_t)v; break;
    case DT_I8: *(int8_t *)p = (int8_t)v; break;
    case DT_I16: *(int16_t *)p = (int16_t)v; break;
    case DT_I32: *(int32_t *)p = (int32_t)v; break;
    case DT_I64: *(int64_t *)p = v; break;
    case DT_F16: *(uint16_t *)p = f32_to_f16((float)v); break;
    case DT_BF16: *(uint16_t *)p = f32_to_bf16((float)v); break;
    case DT_F32: *(float *)p = (float)v; break;
    case DT_F64: *(double *)p = (double)v; break;
    default: break;
    }
}

void dtype_store_f64(DType t, void *p, double v)
{
    switch (t) {
    case DT_BOOL: *(uint8_t *)p = v != 0; break;
    case DT_F16: *(uint16_t *)p = f32_to_f16((float)v); break;
    case DT_BF16: *(uint16_t *)p = f32_to_bf16((float)v); break;
    case DT_F32: *(float *)p = (float)v; break;
    case DT_F64: *(double *)p = v; break;
    default: dtype_store_i64(t, p, double_to_i64(v)); break;
    }
}

void dtype_convert(DType dst_t, void *dst, int64_t dst_stride,
                   DType src_t, const void *src, int64_t src_stride, int64_t n)
{
    const int ds = dtype_size(dst_t), ss = dtype_size(src_t);
    char *d = dst;
    const char *s = src;
    if (dst_t == src_t) {
        if (dst_stride == 1 && src_stride == 1) {
            memmove(d, s, (size_t)n * (size_t)ds);
            return;
        }
        /* typed by width: a memcpy call per element costs more than the copy */
        switch (ds) {
        case 1:
            for (int64_t i = 0; i < n; i++)
                ((uint8_t *)dst)[i * dst_stride] = ((const uint8_t *)src)[i * src_stride];
            return;
        case 2:
            for (int64_t i = 0; i < n; i++)
                ((uint16_t *)dst)[i * dst_stride] = ((const uint16_t *)src)[i * src_stride];
            return;
        case 4:
            for (int64_t i = 0; i < n; i++)
                ((uint32_t *)dst)[i * dst_stride] = ((const uint32_t *)src)[i * src_stride];
            return;
        case 8:
            for (int64_t i = 0; i < n; i++)
                ((uint64_t *)dst)[i * dst_stride] = ((const uint64_t *)src)[i * src_stride];
            return;
        default:
            for (int64_t i = 0; i < n; i++)
                memcpy(d + i * dst_stride * ds, s + i * src_stride * ss, (size_t)ds);
            return;
        }
    }
    if (dst_stride == 1 && src_stride == 1) { /* contiguous halves: vector loops */
        bool done = true;
        if (dst_t == DT_F32 && src_t == DT_F16)
            f16_to_f32_n(dst, src, n);
        else if (dst_t == DT_F32 && src_t == DT_BF16)
            bf16_to_f32_n(dst, src, n);
        else if (dst_t == DT_F16 && src_t == DT_F32)
            f32_to_f16_n(dst, src, n);
        else if (dst_t == DT_BF16 && src_t == DT_F32)
            f32_to_bf16_n(dst, src, n);
        else
            done = false;
        if (done)
            return;
    }
    if (dst_t == DT_F32 && src_t == DT_F16) {
        for (int64_t i = 0; i < n; i++)
            ((float *)dst)[i * dst_stride] = f16_to_f32(((const uint16_t *)src)[i * src_stride]);
        return;
    }
    if (dst_t == DT_F32 && src_t == DT_BF16) {
        for (int64_t i = 0; i < n; i++)
            ((float *)dst)[i * dst_stride] = bf16_to_f32(((const uint16_t *)src)[i * src_stride]);
        return;
    }
    /* the conversions every float32 op with a Python-number operand makes
    ** (wrapped numbers are float64) get a direct loop */
    if (dst_t == DT_F32 && src_t == DT_F64) {
        for (int64_t i = 0; i < n; i++)
            ((float *)dst)[i * dst_stride] = (float)((const double *)src)[i * src_stride];
        return;
    }
    if (dst_t == DT_F64 && src_t == DT_F32) {
        for (int64_t i = 0; i < n; i++)
            ((double *)dst)[i * dst_stride] = ((const float *)src)[i * src_stride];
        return;
    }
    if (dtype_is_integral(src_t) && dtype_is_float(dst_t)) {
        /* int64 -> float32 must round once, as static_cast<float> does */
        for (int64_t i = 0; i < n; i++)
            dtype_store_i64(dst_t, d + i * dst_stride * ds, dtype_load_i64(src_t, s + i * src_stride * ss));
        return;
    }
    if (dtype_is_float(src_t) || dtype_is_float(dst_t)) {
        /* float32 -> float16 must round once, directly from the float value */
        for (int64_t i = 0; i < n; i++)
            dtype_store_f64(dst_t, d + i * dst_stride * ds, dtype_load_f64(src_t, s + i * src_stride * ss));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        dtype_store_i64(dst_t, d + i * dst_stride * ds, dtype_load_i64(src_t, s + i * src_stride * ss));
}
