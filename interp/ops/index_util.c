/*
** index_util.c -- helpers of the indexing family: typed one-element
** combining, Scalar conversion, overlap checks, clones, nonzero and sort
** keys (see index.h).
*/
#include "index.h"

#include "elementwise.h"
#include "interp/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

Tensor *index_as_i64(Tensor *t, EpError *err)
{
    return tensor_as_contiguous_dtype(t, DT_I64, err);
}

EpStatus index_wrap_dim(OpCall *c, int64_t dim, int ndim, int *out)
{
    if (dim_wrap(dim, ndim, out))
        return EP_OK;
    int n = ndim > 0 ? ndim : 1;
    return op_fail(c, "IndexError: Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -n,
                   n - 1, (long long)dim);
}

Tensor *index_at_least_1d(Tensor *t, EpError *err)
{
    if (t->ndim > 0)
        return tensor_ref(t);
    int64_t one = 1, st = 1;
    return tensor_as_strided(t, 1, &one, &st, t->offset, err);
}

/* ---- one-element combining ------------------------------------------------ */

/* ld_NAME / st_NAME: one element of a float dtype read as / written from
** its compute type T (float16 and bfloat16 through float32), via the type
** STORED that holds its bits. */
#define ELEM_ACCESS(NAME, T, STORED, TO_T, FROM_T)                             \
    static inline T ld_##NAME(const char *p)                                   \
    {                                                                          \
        STORED s;                                                              \
        memcpy(&s, p, sizeof s);                                               \
        return TO_T(s);                                                        \
    }                                                                          \
    static inline void st_##NAME(char *p, T v)                                 \
    {                                                                          \
        STORED s = FROM_T(v);                                                  \
        memcpy(p, &s, sizeof s);                                               \
    }
#define AS_IS(x) (x)
ELEM_ACCESS(f16, float, uint16_t, f16_to_f32, f32_to_f16)
ELEM_ACCESS(bf16, float, uint16_t, bf16_to_f32, f32_to_bf16)
ELEM_ACCESS(f32, float, float, AS_IS, AS_IS)
ELEM_ACCESS(f64, double, double, AS_IS, AS_IS)

/* max/min as std::max/std::min with at::_isnan(src) taking precedence,
** which is how ATen's scatter and index_reduce kernels spell it: a NaN in
** either operand survives. */
#define FLOAT_COMBINE(NAME, ACC, LOAD, STORE)                                  \
    static void combine_##NAME(char *dst, const char *src, IndexReduce op)     \
    {                                                                          \
        ACC a = LOAD(dst), b = LOAD(src), r;                                   \
        switch (op) {                                                          \
        case IRED_SUM:                                                         \
        case IRED_MEAN: r = a + b; break;                                      \
        case IRED_PROD: r = a * b; break;                                      \
        case IRED_AMAX: r = isnan(b) ? b : (a < b ? b : a); break;             \
        case IRED_AMIN: r = isnan(b) ? b : (b < a ? b : a); break;             \
        default: r = b; break;                                                 \
        }                                                                      \
        STORE(dst, r);                                                         \
    }

FLOAT_COMBINE(f16, float, ld_f16, st_f16)
FLOAT_COMBINE(bf16, float, ld_bf16, st_bf16)
FLOAT_COMBINE(f32, float, ld_f32, st_f32)
FLOAT_COMBINE(f64, double, ld_f64, st_f64)

/* Sums and products go through the unsigned type so they wrap instead of
** overflowing (which would be undefined behaviour). */
#define INT_COMBINE(NAME, T, UT)                                               \
    static void combine_##NAME(char *dst, const char *src, IndexReduce op)     \
    {                                                                          \
        T a, b, r;                                                             \
        memcpy(&a, dst, sizeof a);                                             \
        memcpy(&b, src, sizeof b);                                             \
        switch (op) {                                                          \
        case IRED_SUM:                                                         \
        case IRED_MEAN: r = (T)(UT)((UT)a + (UT)b); break;                     \
        case IRED_PROD: r = (T)(UT)((UT)a * (UT)b); break;                     \
        case IRED_AMAX: r = a < b ? b : a; break;                              \
        case IRED_AMIN: r = b < a ? b : a; break;                              \
        default: r = b; break;                                                 \
        }                                                                      \
        memcpy(dst, &r, sizeof r);                                             \
    }

INT_COMBINE(u8, uint8_t, uint32_t)
INT_COMBINE(i8, int8_t, uint32_t)
INT_COMBINE(i16, int16_t, uint32_t)
INT_COMBINE(i32, int32_t, uint32_t)
INT_COMBINE(i64, int64_t, uint64_t)

/* bool += bool is an or, *= an and, max an or and min an and. */
static void combine_bool(char *dst, const char *src, IndexReduce op)
{
    bool a = *dst != 0, b = *src != 0, r;
    switch (op) {
    case IRED_SUM:
    case IRED_MEAN:
    case IRED_AMAX: r = a || b; break;
    case IRED_PROD:
    case IRED_AMIN: r = a && b; break;
    default: r = b; break;
    }
    *dst = (char)r;
}

IndexCombineFn index_combine_fn(DType t)
{
    static const IndexCombineFn table[DT_COUNT] = {
        [DT_BOOL] = combine_bool, [DT_U8] = combine_u8, [DT_I8] = combine_i8,
        [DT_I16] = combine_i16, [DT_I32] = combine_i32, [DT_I64] = combine_i64,
        [DT_F16] = combine_f16, [DT_BF16] = combine_bf16, [DT_F32] = combine_f32,
        [DT_F64] = combine_f64,
    };
    return table[t];
}

void index_reduce_identity(DType t, IndexReduce op, void *out)
{
    static const int64_t int_min[DT_COUNT] = {
        [DT_BOOL] = 0, [DT_U8] = 0, [DT_I8] = INT8_MIN, [DT_I16] = INT16_MIN,
        [DT_I32] = INT32_MIN, [DT_I64] = INT64_MIN,
    };
    static const int64_t int_max[DT_COUNT] = {
        [DT_BOOL] = 1, [DT_U8] = UINT8_MAX, [DT_I8] = INT8_MAX, [DT_I16] = INT16_MAX,
        [DT_I32] = INT32_MAX, [DT_I64] = INT64_MAX,
    };
    switch (op) {
    case IRED_PROD:
        dtype_store_i64(t, out, 1);
        break;
    case IRED_AMAX:
        if (dtype_is_float(t))
            dtype_store_f64(t, out, -INFINITY);
        else
            dtype_store_i64(t, out, int_min[t]);
        break;
    case IRED_AMIN:
        if (dtype_is_float(t))
            dtype_store_f64(t, out, INFINITY);
        else
            dtype_store_i64(t, out, int_max[t]);
        break;
    default:
        dtype_store_i64(t, out, 0);
        break;
    }
}

void index_div_count(DType t, char *dst, int64_t count)
{
    switch (t) {
    case DT_F16: st_f16(dst, ld_f16(dst) / (float)count); break;
    case DT_BF16: st_bf16(dst, ld_bf16(dst) / (float)count); break;
    case DT_F32: st_f32(dst, ld_f32(dst) / (float)count); break;
    case DT_F64: st_f64(dst, ld_f64(dst) / (double)count); break;
    default:
        dtype_store_i64(t, dst, ep_floordiv_i64(dtype_load_i64(t, dst), count));
        break;
    }
}

void index_divide_counts(Tensor *dst, const int64_t *counts, bool include_self)
{
    char *base = tensor_data(dst);
    int es = dtype_size(dst->dtype);
    for (int64_t i = 0; i < tensor_numel(dst); i++)
        if (counts[i] > 0)
            index_div_count(dst->dtype, base + i * es, counts[i] + (include_self ? 1 : 0));
}

/* ---- loops along one dim ---------------------------------------------------- */

/* *idx wrapped (when the context allows) and range-checked; false, with
** the context marked bad, when it is out of range. */
static bool resolve(IndexAlong *c, int64_t *idx)
{
    int64_t v = *idx;
    if (c->wrap_negative && v < 0 && v >= -c->size)
        v += c->size;
    if (v < 0 || v >= c->size) {
        c->bad = true;
        c->bad_value = *idx;
        return false;
    }
    *idx = v;
    return true;
}

static void add_scaled(const IndexAlong *c, char *dst, const char *src)
{
    if (c->dtype == DT_F32) { /* the common case without the generic loads: the same arithmetic */
        float d, x;
        memcpy(&d, dst, 4);
        memcpy(&x, src, 4);
        double p = (double)x * c->alpha_f;
        if (c->round_product)
            p = (float)p;
        d = (float)((double)d + p);
        memcpy(dst, &d, 4);
        return;
    }
    if (dtype_is_float(c->dtype)) {
        double p = dtype_load_f64(c->dtype, src) * c->alpha_f;
        if (c->round_product) {
            char tmp[8];
            dtype_store_f64(c->dtype, tmp, p);
            p = dtype_load_f64(c->dtype, tmp);
        }
        dtype_store_f64(c->dtype, dst, dtype_load_f64(c->dtype, dst) + p);
    } else {
        uint64_t a = (uint64_t)dtype_load_i64(c->dtype, dst), b = (uint64_t)dtype_load_i64(c->dtype, src);
        dtype_store_i64(c->dtype, dst, (int64_t)(a + (uint64_t)c->alpha_i * b));
    }
}

/* A run of gathered elements of es bytes with the given byte steps (each a
** constant where it is inlined, so each size and the contiguous layout get
** their own loop of plain loads and stores); false when an index is out of
** range (resolve has recorded it). */
static inline __attribute__((always_inline)) bool gather_steps(IndexAlong *c, char *out, const char *src,
                                                              const char *ix, int64_t n, int es, int64_t s0,
                                                              int64_t s1, int64_t s2)
{
    /* the context in locals: the stores below may alias it, so the
    ** compiler would reload every field at every element */
    const int64_t sb = c->stride_bytes, size = c->size;
    for (int64_t i = 0; i < n; i++) {
        int64_t idx;
        memcpy(&idx, ix + i * s2, 8);
        if ((uint64_t)idx >= (uint64_t)size && !resolve(c, &idx))
            return false;
        index_copy_elem(out + i * s0, src + i * s1 + idx * sb, es);
    }
    return true;
}

static inline __attribute__((always_inline)) bool gather_run(IndexAlong *c, char **data, const int64_t *stride,
                                                            int64_t n, int es)
{
    if (stride[0] == es && stride[1] == 0 && stride[2] == 8) /* contiguous output and index */
        return gather_steps(c, data[0], data[1], data[2], n, es, es, 0, 8);
    return gather_steps(c, data[0], data[1], data[2], n, es, stride[0], stride[1], stride[2]);
}

void index_gather_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    IndexAlong *c = vctx;
    if (c->bad)
        return;
    switch (c->es) {
    case 1: gather_run(c, data, stride, n, 1); break;
    case 2: gather_run(c, data, stride, n, 2); break;
    case 4: gather_run(c, data, stride, n, 4); break;
    default: gather_run(c, data, stride, n, 8); break;
    }
}

/* dst[k] += alpha src[k] over n float32 elements, in add_scaled's
** arithmetic (the product and sum in double, rounded once), eight at a time
** in two vectors of four doubles: GCC's -O2 vectorizer leaves a loop that
** widens floats to doubles scalar.  dst and src never share storage
** (index_add clones a source that does). */
typedef float IxF8 __attribute__((vector_size(32)));
typedef float IxF4 __attribute__((vector_size(16)));
typedef double IxD4 __attribute__((vector_size(32)));
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void add_scaled_f32_contig(float *d, const float *s, int64_t n, double alpha)
{
    int64_t k = 0;
    /* alpha 1: the double sum of two floats rounded to float is their float
    ** sum (where the double sum is inexact, the exponents are more than 29
    ** apart and both round to the larger operand), so add in float */
    for (; alpha == 1 && k + 8 <= n; k += 8) {
        IxF8 dv, sv;
        memcpy(&dv, d + k, sizeof dv);
        memcpy(&sv, s + k, sizeof sv);
        dv += sv;
        memcpy(d + k, &dv, sizeof dv);
    }
    for (; k + 8 <= n; k += 8) {
        IxF8 dv, sv;
        memcpy(&dv, d + k, sizeof dv);
        memcpy(&sv, s + k, sizeof sv);
        IxD4 dlo = __builtin_convertvector(__builtin_shufflevector(dv, dv, 0, 1, 2, 3), IxD4);
        IxD4 dhi = __builtin_convertvector(__builtin_shufflevector(dv, dv, 4, 5, 6, 7), IxD4);
        IxD4 slo = __builtin_convertvector(__builtin_shufflevector(sv, sv, 0, 1, 2, 3), IxD4);
        IxD4 shi = __builtin_convertvector(__builtin_shufflevector(sv, sv, 4, 5, 6, 7), IxD4);
        IxF4 lo = __builtin_convertvector(dlo + slo * alpha, IxF4);
        IxF4 hi = __builtin_convertvector(dhi + shi * alpha, IxF4);
        dv = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
        memcpy(d + k, &dv, sizeof dv);
    }
    for (; k < n; k++)
        d[k] = (float)((double)d[k] + (double)s[k] * alpha);
}

static void add_scaled_f32_run(const IndexAlong *c, char *dst, int64_t ds, const char *src, int64_t ss, int64_t n)
{
    if (ds == 4 && ss == 4 && !c->round_product) {
        add_scaled_f32_contig((float *)(void *)dst, (const float *)(const void *)src, n, c->alpha_f);
        return;
    }
    for (int64_t k = 0; k < n; k++)
        add_scaled(c, dst + k * ds, src + k * ss);
}

/* dst[idx[i]] = dst[idx[i]] + src[i] in float32 (scatter_add's sum): the
** combine function's arithmetic without a call per element, with the given
** byte steps (constants where inlined) */
static inline __attribute__((always_inline)) bool sum_f32_steps(IndexAlong *c, char *dst0, const char *ix,
                                                               const char *src, int64_t n, int64_t sb, int64_t s0,
                                                               int64_t s1, int64_t s2)
{
    const int64_t size = c->size; /* in a local: the stores may alias the context */
    for (int64_t i = 0; i < n; i++) {
        int64_t idx;
        memcpy(&idx, ix + i * s1, 8);
        if ((uint64_t)idx >= (uint64_t)size && !resolve(c, &idx))
            return false;
        char *dst = dst0 + i * s0 + idx * sb;
        float a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src + i * s2, 4);
        a = a + b;
        memcpy(dst, &a, 4);
    }
    return true;
}

static bool sum_f32_run(IndexAlong *c, char **data, const int64_t *stride, int64_t n)
{
    /* scatter along the last dim of contiguous tensors: constant steps */
    if (stride[0] == 0 && stride[1] == 8 && stride[2] == 4 && c->stride_bytes == 4)
        return sum_f32_steps(c, data[0], data[1], data[2], n, 4, 0, 8, 4);
    return sum_f32_steps(c, data[0], data[1], data[2], n, c->stride_bytes, stride[0], stride[1], stride[2]);
}

/* The common cases of index_put_loop without its per-element choices:
** float32 scatter_add, each element its own, and index_add's run whose
** index does not change (along an outer dim: one slice added to another).
** Element by element, index_add takes the general loop (add_scaled has
** its own float32 case).  Returns false when the run is not one of these. */
static bool put_fast(IndexAlong *c, char **data, const int64_t *stride, int64_t n)
{
    if (c->counts || c->value || c->dtype != DT_F32) /* no value: src is operand 2 */
        return false;
    if (c->add_scaled && stride[1] == 0) {
        int64_t idx;
        memcpy(&idx, data[1], 8);
        if (resolve(c, &idx))
            add_scaled_f32_run(c, data[0] + idx * c->stride_bytes, stride[0], data[2], stride[2], n);
        return true;
    }
    if (c->combine && c->op == IRED_SUM) {
        sum_f32_run(c, data, stride, n);
        return true;
    }
    return false;
}

void index_put_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    IndexAlong *c = vctx;
    if (c->bad || put_fast(c, data, stride, n))
        return;
    for (int64_t i = 0; i < n && !c->bad; i++) {
        int64_t idx;
        memcpy(&idx, data[1] + i * stride[1], 8);
        if (!resolve(c, &idx))
            return;
        char *dst = data[0] + i * stride[0] + idx * c->stride_bytes;
        const char *src = c->value ? c->value : data[2] + i * stride[2];
        if (c->add_scaled)
            add_scaled(c, dst, src);
        else if (c->combine)
            c->combine(dst, src, c->op);
        else
            index_copy_elem(dst, src, c->es);
        if (c->counts)
            c->counts[(dst - c->count_base) / c->es]++;
    }
}

/* ---- the loops over the pool ---------------------------------------------------- */

/* Elements per chunk, and at most this many chunks (each has its own copy
** of the context, so its out-of-range record is its own). */
#define INDEX_GRAIN 32768
#define INDEX_MAX_CHUNKS 256

typedef struct IndexJob {
    const TensorIter *it;
    IterLoop loop;
    IndexAlong *chunk; /* chunk k's context: a copy of the caller's */
    int64_t grain;     /* rows per chunk */
} IndexJob;

static void index_chunk(void *vj, int64_t begin, int64_t end)
{
    IndexJob *j = vj;
    iter_run_rows(j->it, begin, end, j->loop, &j->chunk[begin / j->grain]);
}

/* How many consecutive rows must share a chunk: operand 0 is the written
** one, and along a dim where it stays put (the dim a put indexes, or a
** broadcast) rows that differ only in that dim and the ones inside it may
** write the same elements.  Rows that differ in a dim outside it write
** disjoint elements of a tensor without overlap. */
static int64_t rows_together(const TensorIter *it)
{
    const int last = it->ndim - 1;
    for (int d = 0; d < last; d++)
        if (it->strides[0][d] == 0) {
            int64_t r = 1;
            for (int e = d; e < last; e++)
                r *= it->shape[e];
            return r;
        }
    return 1;
}

void index_run(const TensorIter *it, IterLoop loop, IndexAlong *s, const Tensor *written)
{
    const int64_t rows = iter_rows(it);
    const int64_t together = rows_together(it);
    int64_t grain = rows > 0 ? INDEX_GRAIN / (it->numel / rows) : 1;
    if (grain < (rows + INDEX_MAX_CHUNKS - 1) / INDEX_MAX_CHUNKS)
        grain = (rows + INDEX_MAX_CHUNKS - 1) / INDEX_MAX_CHUNKS;
    grain = grain < together ? together : (grain + together - 1) / together * together;
    const int64_t nchunks = ep_chunks(rows, grain);
    IndexAlong *chunk = NULL;
    if (nchunks > 1 && !ew_reference_path() && ep_threads() > 1 && !ep_in_parallel() &&
        index_non_overlapping_and_dense(written))
        chunk = malloc((size_t)nchunks * sizeof *chunk);
    if (!chunk) { /* small, serial by request, or no memory for the contexts: here, in order */
        iter_run(it, loop, s);
        return;
    }
    for (int64_t k = 0; k < nchunks; k++)
        chunk[k] = *s;
    IndexJob j = {.it = it, .loop = loop, .chunk = chunk, .grain = grain};
    ep_parallel_for(rows, grain, index_chunk, &j);
    /* the first chunk with an index out of range holds the one the serial
    ** loop would have stopped at */
    for (int64_t k = 0; k < nchunks; k++)
        if (chunk[k].bad) {
            s->bad = true;
            s->bad_value = chunk[k].bad_value;
            break;
        }
    free(chunk);
}

/* ---- Scalars -------------------------------------------------------------- */

/* c10's names of the C++ types in checked_convert's message. */
static const char *cpp_type_name(DType t)
{
    static const char *names[DT_COUNT] = {
        [DT_BOOL] = "bool", [DT_U8] = "uint8_t", [DT_I8] = "int8_t", [DT_I16] = "int16_t",
        [DT_I32] = "int", [DT_I64] = "int64_t", [DT_F16] = "c10::Half",
        [DT_BF16] = "c10::BFloat16", [DT_F32] = "float", [DT_F64] = "double",
    };
    return names[t];
}

/* Largest finite value of each floating type, for the overflow check. */
static double float_max(DType t)
{
    switch (t) {
    case DT_F16: return 65504.0;
    case DT_BF16: return 3.38953138925153547590e+38;
    case DT_F32: return 3.40282346638528859812e+38;
    default: return INFINITY;
    }
}

/* c10::overflows<To, From>: integers may not leave the target's range,
** except that negative numbers wrap into unsigned targets when their
** magnitude fits; floats may be infinite or NaN only when the target is a
** float, and finite values must lie inside the target's range. */
static bool scalar_overflows(const Value *v, DType t)
{
    static const double lo[DT_COUNT] = {
        [DT_BOOL] = 0, [DT_U8] = 0, [DT_I8] = INT8_MIN, [DT_I16] = INT16_MIN,
        [DT_I32] = INT32_MIN, [DT_I64] = -9223372036854775808.0,
    };
    static const double hi[DT_COUNT] = {
        [DT_BOOL] = 1, [DT_U8] = UINT8_MAX, [DT_I8] = INT8_MAX, [DT_I16] = INT16_MAX,
        [DT_I32] = INT32_MAX, [DT_I64] = 9223372036854775807.0,
    };
    if (v->kind == V_BOOL)
        return false;
    if (v->kind == V_INT) {
        if (dtype_is_float(t) || t == DT_I64)
            return false;
        int64_t x = v->i;
        if (t == DT_U8 || t == DT_BOOL) {
            if (x < 0)
                return (uint64_t)0 - (uint64_t)x > (uint64_t)hi[t];
            return x > (int64_t)hi[t];
        }
        return x < (int64_t)lo[t] || x > (int64_t)hi[t];
    }
    double x = v->f;
    if (dtype_is_float(t)) {
        if (isinf(x) || isnan(x))
            return false;
        return x < -float_max(t) || x > float_max(t);
    }
    if (isnan(x))
        return true;
    if (t == DT_I64) /* 2^63 itself is out of range */
        return x < lo[t] || x >= 9223372036854775808.0;
    return x < lo[t] || x > hi[t];
}

EpStatus index_scalar_to(OpCall *c, const Value *v, DType t, void *out)
{
    if (scalar_overflows(v, t))
        return op_fail(c, "value cannot be converted to type %s without overflow", cpp_type_name(t));
    if (v->kind == V_FLOAT)
        dtype_store_f64(t, out, v->f);
    else
        dtype_store_i64(t, out, v->kind == V_BOOL ? v->b : v->i);
    return EP_OK;
}

Value index_item(const Tensor *t)
{
    if (t->dtype == DT_BOOL)
        return value_bool(tensor_item_i64(t) != 0);
    if (dtype_is_float(t->dtype))
        return value_float(tensor_item_f64(t));
    return value_int(tensor_item_i64(t));
}

/* ---- memory overlap --------------------------------------------------------- */

bool index_non_overlapping_and_dense(const Tensor *t)
{
    int order[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] != 1)
            order[n++] = i;
    /* insertion sort of the non-trivial dims by stride */
    for (int i = 1; i < n; i++) {
        int d = order[i], j = i - 1;
        while (j >= 0 && t->strides[order[j]] > t->strides[d]) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = d;
    }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[order[i]] != expected)
            return false;
        expected *= t->sizes[order[i]];
    }
    return true;
}

EpStatus index_check_no_overlap(OpCall *c, const Tensor *written, const Tensor *read)
{
    bool overlap;
    if (written == read) {
        overlap = true;
    } else if (tensor_numel(written) == 0 || tensor_numel(read) == 0 || !tensor_same_storage(written, read) ||
               !index_non_overlapping_and_dense(written) || !index_non_overlapping_and_dense(read)) {
        overlap = false; /* ATen cannot tell ("too hard") and lets it pass */
    } else {
        int64_t wa = written->offset * dtype_size(written->dtype);
        int64_t wb = wa + (int64_t)tensor_nbytes(written);
        int64_t ra = read->offset * dtype_size(read->dtype);
        int64_t rb = ra + (int64_t)tensor_nbytes(read);
        overlap = wa < rb && ra < wb;
    }
    if (overlap)
        return op_fail(c, "unsupported operation: some elements of the input tensor and the written-to tensor "
                          "refer to a single memory location. Please clone() the tensor before performing the "
                          "operation.");
    return EP_OK;
}

EpStatus index_check_no_internal_overlap(OpCall *c, const Tensor *t)
{
    if (index_non_overlapping_and_dense(t))
        return EP_OK;
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->sizes[i] > 1)
            return op_fail(c, "unsupported operation: more than one element of the written-to tensor refers to "
                              "a single memory location. Please clone() the tensor before performing the "
                              "operation.");
    return EP_OK;
}

/* ---- copies ------------------------------------------------------------------ */

Tensor *index_clone_contiguous(Tensor *t, EpError *err)
{
    return tensor_to_dtype(t, t->dtype, err);
}

Tensor *index_result_for(OpCall *c, bool inplace, Tensor *self, Tensor *index, Tensor *source)
{
    if (!inplace)
        return index_clone_contiguous(self, c->err);
    if (index_check_no_internal_overlap(c, self) || index_check_no_overlap(c, self, index) ||
        (source && index_check_no_overlap(c, self, source)) || tensor_make_writable(self, c->err))
        return NULL;
    return tensor_ref(self);
}

Tensor *index_source_copy(Tensor *out, Tensor *source, EpError *err)
{
    return tensor_same_storage(out, source) ? index_clone_contiguous(source, err) : tensor_ref(source);
}

Tensor *index_clone_preserve(Tensor *t, EpError *err)
{
    if (tensor_is_contiguous(t) || !index_non_overlapping_and_dense(t))
        return tensor_to_dtype(t, t->dtype, err);
    int64_t nbytes = (int64_t)tensor_nbytes(t);
    Storage *s = storage_new((size_t)nbytes);
    if (!s) {
        ep_fail(err, EP_ERR_EXEC, "out of memory allocating %lld bytes", (long long)nbytes);
        return NULL;
    }
    /* a dense tensor's lowest address is its first element once the
    ** offset is dropped, so the strides fit a storage of numel elements */
    Tensor *r = tensor_from_storage(s, t->dtype, t->ndim, t->sizes, t->strides, 0, err);
    storage_unref(s);
    if (r && tensor_copy_into(r, t, err) != EP_OK) {
        tensor_unref(r);
        r = NULL;
    }
    return r;
}

/* ---- nonzero ------------------------------------------------------------------- */

bool index_elem_nonzero(DType t, const char *p)
{
    switch (dtype_size(t)) {
    case 1: return *p != 0;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return dtype_is_float(t) ? (v & 0x7fffu) != 0 : v != 0;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return dtype_is_float(t) ? (v & 0x7fffffffu) != 0 : v != 0;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return dtype_is_float(t) ? (v & 0x7fffffffffffffffull) != 0 : v != 0;
    }
    }
}

typedef struct NonzeroCtx {
    DType dtype;
    int64_t flat;     /* logical index of the next element */
    int64_t count;
    int64_t *out;     /* NULL on the counting pass */
} NonzeroCtx;

static void nonzero_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    NonzeroCtx *c = vctx;
    const char *p = data[0];
    for (int64_t i = 0; i < n; i++, p += stride[0], c->flat++) {
        if (!index_elem_nonzero(c->dtype, p))
            continue;
        if (c->out)
            c->out[c->count] = c->flat;
        c->count++;
    }
}

Tensor *index_nonzero(Tensor *t, bool col_major, EpError *err)
{
    TensorIter it;
    Tensor *ops[1] = {t};
    if (iter_init(&it, t->ndim, t->sizes, 1, ops, err) != EP_OK)
        return NULL;
    NonzeroCtx ctx = {t->dtype, 0, 0, NULL};
    iter_run(&it, nonzero_loop, &ctx);
    int64_t n = ctx.count;
    int64_t *flat = malloc((size_t)(n > 0 ? n : 1) * sizeof *flat);
    if (!flat) {
        ep_fail(err, EP_ERR_EXEC, "out of memory in nonzero");
        return NULL;
    }
    ctx.flat = 0;
    ctx.count = 0;
    ctx.out = flat;
    iter_run(&it, nonzero_loop, &ctx);

    int nd = t->ndim;
    int64_t sizes[2] = {n, nd};
    Tensor *r;
    if (col_major) {
        Storage *s = storage_new((size_t)(n * nd) * sizeof(int64_t));
        if (!s) {
            free(flat);
            ep_fail(err, EP_ERR_EXEC, "out of memory in nonzero");
            return NULL;
        }
        int64_t strides[2] = {1, n};
        r = tensor_from_storage(s, DT_I64, 2, sizes, strides, 0, err);
        storage_unref(s);
    } else {
        r = tensor_empty(DT_I64, 2, sizes, err);
    }
    if (!r) {
        free(flat);
        return NULL;
    }
    int64_t *o = tensor_data(r);
    for (int64_t k = 0; k < n; k++) {
        int64_t f = flat[k];
        for (int d = nd - 1; d >= 0; d--) {
            o[k * r->strides[0] + d * r->strides[1]] = f % t->sizes[d];
            f /= t->sizes[d];
        }
    }
    free(flat);
    return r;
}

/* ---- sort keys --------------------------------------------------------------- */

typedef struct KeysCtx {
    DType dtype;
    IndexKeys *k;
    int64_t pos;
} KeysCtx;

static void keys_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    KeysCtx *c = vctx;
    const char *p = data[0];
    for (int64_t i = 0; i < n; i++, p += stride[0], c->pos++) {
        if (c->k->is_float)
            c->k->f[c->pos] = dtype_load_f64(c->dtype, p);
        else
            c->k->i[c->pos] = dtype_load_i64(c->dtype, p);
    }
}

EpStatus index_keys_init(IndexKeys *k, Tensor *t, DType dtype, EpError *err)
{
    memset(k, 0, sizeof *k);
    Tensor *src = t;
    if (dtype != DT_INVALID && dtype != t->dtype) {
        src = tensor_to_dtype(t, dtype, err);
        if (!src)
            return EP_ERR_EXEC;
    }
    k->is_float = dtype_is_float(src->dtype);
    k->n = tensor_numel(src);
    size_t cap = (size_t)(k->n > 0 ? k->n : 1);
    if (k->is_float)
        k->f = malloc(cap * sizeof *k->f);
    else
        k->i = malloc(cap * sizeof *k->i);
    EpStatus rc = EP_OK;
    if (!k->f && !k->i) {
        rc = ep_fail(err, EP_ERR_EXEC, "out of memory");
    } else {
        TensorIter it;
        Tensor *ops[1] = {src};
        rc = iter_init(&it, src->ndim, src->sizes, 1, ops, err);
        if (rc == EP_OK) {
            KeysCtx ctx = {src->dtype, k, 0};
            iter_run(&it, keys_loop, &ctx);
        }
    }
    if (src != t)
        tensor_unref(src);
    if (rc != EP_OK)
        index_keys_done(k);
    return rc;
}

void index_keys_done(IndexKeys *k)
{
    free(k->i);
    free(k->f);
    k->i = NULL;
    k->f = NULL;
}

int index_keys_cmp(const IndexKeys *k, int64_t a, int64_t b)
{
    if (!k->is_float)
        return (k->i[a] > k->i[b]) - (k->i[a] < k->i[b]);
    double x = k->f[a], y = k->f[b];
    bool xn = isnan(x), yn = isnan(y);
    if (xn || yn)
        return (int)xn - (int)yn;
    return (x > y) - (x < y);
}

bool index_keys_equal(const IndexKeys *k, int64_t a, int64_t b)
{
    return k->is_float ? k->f[a] == k->f[b] : k->i[a] == k->i[b];
}

/* Bottom-up merge sort: stable and O(n log n) for the 100k-element inputs
** the corpus feeds isin. */
void index_sort(int64_t *order, int64_t n, IndexCmpFn cmp, const void *ctx)
{
    if (n < 2)
        return;
    int64_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp) {
        for (int64_t i = 1; i < n; i++) {
            int64_t v = order[i], j = i - 1;
            while (j >= 0 && cmp(ctx, order[j], v) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = v;
        }
        return;
    }
    int64_t *src = order, *dst = tmp;
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = cmp(ctx, src[b], src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid)
                dst[o++] = src[a++];
            while (b < hi)
                dst[o++] = src[b++];
        }
        int64_t *sw = src;
        src = dst;
        dst = sw;
    }
    if (src != order)
        memcpy(order, src, (size_t)n * sizeof *order);
    free(tmp);
}

static int keys_cmp_cb(const void *ctx, int64_t a, int64_t b)
{
    return index_keys_cmp(ctx, a, b);
}

void index_keys_sort(const IndexKeys *k, int64_t *order, int64_t n)
{
    index_sort(order, n, keys_cmp_cb, k);
}

void index_keys_store(const IndexKeys *k, int64_t j, DType t, void *p)
{
    if (k->is_float)
        dtype_store_f64(t, p, k->f[j]);
    else
        dtype_store_i64(t, p, k->i[j]);
}
