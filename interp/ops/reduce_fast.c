/*
** reduce_fast.c -- the vectorized fast paths of sum / mean, amax / amin,
** argmax / argmin, var / std, logsumexp, softmax / log_softmax, layer
** norm, group norm and batch norm in evaluation (declared in
** reduce_fast.h, which says when kernels take them and why their bits do
** not depend on the CPU or the thread count).  float16 / bfloat16 values
** are widened to float32 as they are loaded, integers to int64.
**
** A contiguous input is seen as [outer, len, inner] around the folded axis:
**   - inner == 1 (the last dims fold): each result owns a contiguous run,
**     summed in blocks of RF_BLOCK values with eight double lanes, the
**     block sums combined pairwise (a binary-counter cascade);
**   - inner > 1 (dim 0 of a matrix, or a middle dim): whole rows are added
**     into a strip of RF_COLS double accumulators, RF_BLOCK rows at a time,
**     with no gathering of columns.
** Sums of float32 run in float lanes of at most 32 values each (PyTorch's
** accuracy class: its cascade sums floats in float), every block or strip
** of them then kept in double, so long rows lose nothing more.
*/
#include "reduce_fast.h"

#include <math.h>
#include <stdlib.h>

#include "interp/dtype_vec.h"
#include "interp/parallel.h"

#define RF_BLOCK 1024           /* values per block of a cascade */
#define RF_CHUNK (64 * RF_BLOCK) /* values per pool chunk of one long row: 2^6 blocks */
#define RF_COLS 256             /* accumulators of a column strip */
#define RF_ROWS 32              /* float32 rows summed in float before a double total */
#define RF_WORK 32768           /* values of work below which a loop stays in one chunk */

bool reduce_fast_shape(const Tensor *t, const bool *reduced, RfShape *s)
{
    if (tensor_numel(t) == 0 || !tensor_is_contiguous(t))
        return false;
    int phase = 0; /* 0: before the folded dims, 1: among them, 2: after */
    s->outer = s->len = s->inner = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 1)
            continue;
        if (reduced[i]) {
            if (phase == 2)
                return false;
            phase = 1;
            s->len *= t->sizes[i];
        } else if (phase == 0) {
            s->outer *= t->sizes[i];
        } else {
            phase = 2;
            s->inner *= t->sizes[i];
        }
    }
    return true;
}

static int64_t grain_for(int64_t work_per_item)
{
    return work_per_item >= RF_WORK ? 1 : RF_WORK / (work_per_item > 0 ? work_per_item : 1);
}

/* ---- sums ---------------------------------------------------------------------- */

/* Block sums combined as a binary counter: the sum of 2^k aligned blocks is
** a perfect tree, so a run split into chunks of 2^6 blocks gives the same
** bits as the run in one piece (see row_sum_parallel). */
typedef struct Cascade {
    double s[64];
    int top;
    uint64_t count;
} Cascade;

RF_INLINE void cascade_push(Cascade *c, double v)
{
    for (uint64_t k = c->count++; k & 1; k >>= 1)
        v = c->s[--c->top] + v;
    c->s[c->top++] = v;
}

/* The stack folded from the top down, onto tail (the folded stack of a
** partial last chunk) when has_tail. */
static double cascade_total(const Cascade *c, double tail, bool has_tail)
{
    int j = c->top;
    double t = has_tail ? tail : j ? c->s[--j] : 0.0;
    while (j > 0)
        t = c->s[--j] + t;
    return t;
}

/* One block of n <= RF_BLOCK float32 values in 32 float lanes, as PyTorch
** sums floats in float (each lane adds at most RF_BLOCK / 32 values, so the
** error stays that of PyTorch's cascade), the lanes folded in a fixed tree;
** the block's sum and the tail are then kept in double. */
RF_INLINE double block_head_float(const float *x, int64_t n, int64_t *done)
{
    RfV8f a = rf_splat8f(0.0f), b = a, c = a, d = a;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a += rf_load8f(x + i);
        b += rf_load8f(x + i + 8);
        c += rf_load8f(x + i + 16);
        d += rf_load8f(x + i + 24);
    }
    a = (a + b) + (c + d);
    *done = i;
    return (double)(((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7])));
}

RF_INLINE double block_sum_float(const float *x, int64_t n)
{
    int64_t i;
    double s = block_head_float(x, n, &i);
    for (; i < n; i++)
        s += x[i];
    return s;
}

/* block_sum_float of rows [r0, r1) of len <= RF_BLOCK values each (one
** block, so row_sum's answer), four rows at a time: the tails' chains of
** dependent double adds, one per row, run side by side instead of one
** after the other (a row of 49, a global average's 7x7, waited on 17 adds
** in a row).  The same adds per row, so the same bits. */
RF_CLONES static void short_rows_sum_f32(const float *x, int64_t len, int64_t r0, int64_t r1, double *y)
{
    int64_t r = r0;
    for (; r + 4 <= r1; r += 4) {
        const float *x0 = x + r * len, *x1 = x0 + len, *x2 = x1 + len, *x3 = x2 + len;
        int64_t i;
        double s0 = block_head_float(x0, len, &i), s1 = block_head_float(x1, len, &i);
        double s2 = block_head_float(x2, len, &i), s3 = block_head_float(x3, len, &i);
        for (; i < len; i++) {
            s0 += x0[i];
            s1 += x1[i];
            s2 += x2[i];
            s3 += x3[i];
        }
        y[r] = s0, y[r + 1] = s1, y[r + 2] = s2, y[r + 3] = s3;
    }
    for (; r < r1; r++)
        y[r] = block_sum_float(x + r * len, len);
}

/* float64: 32 double lanes (eight vectors, enough independent adds to hide
** their latency), folded in a fixed tree, then the tail in order. */
RF_INLINE double block_sum_double(const double *x, int64_t n)
{
    RfV4d a = {0, 0, 0, 0}, b = a, c = a, d = a, e = a, f = a, g = a, h = a;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a += rf_load4d(x + i);
        b += rf_load4d(x + i + 4);
        c += rf_load4d(x + i + 8);
        d += rf_load4d(x + i + 12);
        e += rf_load4d(x + i + 16);
        f += rf_load4d(x + i + 20);
        g += rf_load4d(x + i + 24);
        h += rf_load4d(x + i + 28);
    }
    a = ((a + b) + (c + d)) + ((e + f) + (g + h));
    double s = (a[0] + a[1]) + (a[2] + a[3]);
    for (; i < n; i++)
        s += x[i];
    return s;
}

/* ---- float16 / bfloat16 / integers widened ------------------------------------- */

/* n float16 (t DT_F16) or bfloat16 values as float32 in y (dtype.c's
** vector loops). */
RF_INLINE void widen_half(const uint16_t *x, DType t, int64_t n, float *y)
{
    if (t == DT_F16)
        f16_to_f32_n(y, x, n);
    else
        bf16_to_f32_n(y, x, n);
}

RF_CLONES void reduce_fast_widen_half(const uint16_t *x, DType t, int64_t n, float *y) { widen_half(x, t, n, y); }

typedef int32_t RfV4i __attribute__((vector_size(16)));
typedef int64_t RfV4l __attribute__((vector_size(32)));

/* n values of the integer type t (bool, uint8 ... int64) as int64 in y. */
RF_INLINE void widen_int(const void *x, DType t, int64_t n, int64_t *y)
{
    switch (t) {
    case DT_BOOL:
    case DT_U8:
        for (int64_t i = 0; i < n; i++)
            y[i] = ((const uint8_t *)x)[i];
        break;
    case DT_I8:
        for (int64_t i = 0; i < n; i++)
            y[i] = ((const int8_t *)x)[i];
        break;
    case DT_I16:
        for (int64_t i = 0; i < n; i++)
            y[i] = ((const int16_t *)x)[i];
        break;
    case DT_I32: {
        int64_t i = 0;
        for (; i + 4 <= n; i += 4) {
            RfV4i v;
            memcpy(&v, (const int32_t *)x + i, sizeof v);
            RfV4l w = __builtin_convertvector(v, RfV4l);
            memcpy(y + i, &w, sizeof w);
        }
        for (; i < n; i++)
            y[i] = ((const int32_t *)x)[i];
        break;
    }
    default: memcpy(y, x, (size_t)n * sizeof *y); break;
    }
}

/* Element i of x of type t (float32, float16 or bfloat16) as a float. */
RF_INLINE float rf_get(const void *x, DType t, int64_t i)
{
    return t == DT_F32 ? ((const float *)x)[i]
           : t == DT_F16 ? f16_to_f32(((const uint16_t *)x)[i])
                         : bf16_to_f32(((const uint16_t *)x)[i]);
}

/* Eight halves widened (bf: bfloat16, else float16; a constant where
** inlined). */
RF_INLINE RfV8f rf_half8(const uint16_t *p, bool bf) { return bf ? bf16x8_to_f32(p) : f16x8_to_f32(p); }

/* block_sum_float over float16 / bfloat16 values widened as they are
** loaded: the same adds in the same order, so the bits of the float32
** copy's sum. */
RF_INLINE double block_sum_half(const uint16_t *x, int64_t n, bool bf)
{
    RfV8f a = rf_splat8f(0.0f), b = a, c = a, d = a;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a += rf_half8(x + i, bf);
        b += rf_half8(x + i + 8, bf);
        c += rf_half8(x + i + 16, bf);
        d += rf_half8(x + i + 24, bf);
    }
    a = (a + b) + (c + d);
    double s = (double)(((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7])));
    for (; i < n; i++)
        s += bf ? bf16_to_f32(x[i]) : f16_to_f32(x[i]);
    return s;
}

/* The block of n values of type t at value index i. */
RF_INLINE double block_sum_any(const void *x, DType t, int64_t i, int64_t n)
{
    switch (t) {
    case DT_F64: return block_sum_double((const double *)x + i, n);
    case DT_F32: return block_sum_float((const float *)x + i, n);
    case DT_BF16: return block_sum_half((const uint16_t *)x + i, n, true);
    default: return block_sum_half((const uint16_t *)x + i, n, false);
    }
}

/* A run of n values: its blocks through the cascade. */
RF_CLONES static double row_sum(const void *x, DType t, int64_t n)
{
    Cascade c = {.top = 0, .count = 0};
    for (int64_t i = 0; i < n; i += RF_BLOCK)
        cascade_push(&c, block_sum_any(x, t, i, n - i < RF_BLOCK ? n - i : RF_BLOCK));
    return cascade_total(&c, 0, false);
}

static double row_sum_float(const float *x, int64_t n) { return row_sum(x, DT_F32, n); }

double reduce_fast_sum_f32(const float *x, int64_t n) { return row_sum_float(x, n); }

/* Columns: y[j] = sum over r < len of x[r * inner + j] for j < ncols <=
** RF_COLS.  float32 (and float16 / bfloat16 rows widened first): RF_ROWS
** rows at a time into a float strip (the lane length of block_sum_float),
** each strip added into double totals; float64: RF_BLOCK rows into a
** double strip, strips added in order. */
/* One row of a column strip added into blk: float32 (half false) or
** float16 / bfloat16 (bf) widened as loaded. */
RF_INLINE void col_add_row(float *blk, const void *row, int64_t ncols, bool half, bool bf)
{
    int64_t j = 0;
    for (; j + 8 <= ncols; j += 8) {
        RfV8f v = rf_load8f(blk + j) + (half ? rf_half8((const uint16_t *)row + j, bf) : rf_load8f((const float *)row + j));
        rf_store8f(blk + j, &v);
    }
    for (; j < ncols; j++)
        blk[j] += half ? rf_get(row, bf ? DT_BF16 : DT_F16, j) : ((const float *)row)[j];
}

RF_CLONES static void col_sum_float(const void *x, DType t, int64_t len, int64_t inner, int64_t ncols, double *y)
{
    double tot[RF_COLS];
    float blk[RF_COLS];
    size_t es = t == DT_F32 ? 4 : 2;
    memset(tot, 0, sizeof tot);
    for (int64_t r0 = 0; r0 < len; r0 += RF_ROWS) {
        int64_t r1 = len - r0 < RF_ROWS ? len : r0 + RF_ROWS;
        memset(blk, 0, sizeof blk);
        for (int64_t r = r0; r < r1; r++) {
            const void *row = (const char *)x + (size_t)(r * inner) * es;
            if (t == DT_F32)
                col_add_row(blk, row, ncols, false, false);
            else if (t == DT_BF16)
                col_add_row(blk, row, ncols, true, true);
            else
                col_add_row(blk, row, ncols, true, false);
        }
        int64_t j = 0;
        for (; j + 4 <= ncols; j += 4) {
            RfV4d v = rf_load4d(tot + j) + rf_load4d_f32(blk + j);
            rf_store4d(tot + j, &v);
        }
        for (; j < ncols; j++)
            tot[j] += blk[j];
    }
    memcpy(y, tot, (size_t)ncols * sizeof *y);
}

RF_CLONES static void col_sum_double(const double *x, int64_t len, int64_t inner, int64_t ncols, double *y)
{
    double tot[RF_COLS], blk[RF_COLS];
    memset(tot, 0, sizeof tot);
    for (int64_t r0 = 0; r0 < len; r0 += RF_BLOCK) {
        int64_t r1 = len - r0 < RF_BLOCK ? len : r0 + RF_BLOCK;
        memset(blk, 0, sizeof blk);
        for (int64_t r = r0; r < r1; r++) {
            const double *row = x + r * inner;
            int64_t j = 0;
            for (; j + 4 <= ncols; j += 4) {
                RfV4d v = rf_load4d(blk + j) + rf_load4d(row + j);
                rf_store4d(blk + j, &v);
            }
            for (; j < ncols; j++)
                blk[j] += row[j];
        }
        for (int64_t j = 0; j < ncols; j++)
            tot[j] += blk[j];
    }
    memcpy(y, tot, (size_t)ncols * sizeof *y);
}

typedef struct SumJob {
    const void *x;
    DType t;
    RfShape s;
    double *y;       /* results, or chunk partials of one long row */
    int64_t strips;  /* column strips per outer index */
} SumJob;

static size_t sum_elem_size(DType t) { return t == DT_F64 ? 8 : t == DT_F32 ? 4 : 2; }

static double run_sum(const SumJob *j, int64_t at, int64_t n)
{
    return row_sum((const char *)j->x + (size_t)at * sum_elem_size(j->t), j->t, n);
}

static void sum_rows_chunk(void *ctx, int64_t begin, int64_t end)
{
    SumJob *j = ctx;
    if (j->t == DT_F32 && j->s.len <= RF_BLOCK) {
        short_rows_sum_f32(j->x, j->s.len, begin, end, j->y);
        return;
    }
    for (int64_t o = begin; o < end; o++)
        j->y[o] = run_sum(j, o * j->s.len, j->s.len);
}

static void sum_parts_chunk(void *ctx, int64_t begin, int64_t end)
{
    SumJob *j = ctx;
    for (int64_t k = begin; k < end; k++) {
        int64_t at = k * RF_CHUNK, n = j->s.len - at < RF_CHUNK ? j->s.len - at : RF_CHUNK;
        j->y[k] = run_sum(j, at, n);
    }
}

static void sum_cols_chunk(void *ctx, int64_t begin, int64_t end)
{
    SumJob *j = ctx;
    const RfShape s = j->s;
    for (int64_t t = begin; t < end; t++) {
        int64_t o = t / j->strips, j0 = (t % j->strips) * RF_COLS;
        int64_t ncols = s.inner - j0 < RF_COLS ? s.inner - j0 : RF_COLS, at = o * s.len * s.inner + j0;
        double *y = j->y + o * s.inner + j0;
        if (j->t == DT_F64)
            col_sum_double((const double *)j->x + at, s.len, s.inner, ncols, y);
        else
            col_sum_float((const char *)j->x + (size_t)at * sum_elem_size(j->t), j->t, s.len, s.inner, ncols, y);
    }
}

/* One long row over the pool: full chunks are perfect trees of 2^6 blocks,
** pushed into a cascade at their level; a partial last chunk's own folded
** cascade is the tail.  The same bits as row_sum over the whole row. */
static bool row_sum_parallel(const void *x, DType t, int64_t n, double *out)
{
    int64_t nk = ep_chunks(n, RF_CHUNK);
    double *parts = malloc((size_t)nk * sizeof *parts);
    if (!parts)
        return false;
    SumJob j = {x, t, {1, n, 1}, parts, 0};
    ep_parallel_for(nk, 1, sum_parts_chunk, &j);
    bool partial = n % RF_CHUNK != 0;
    Cascade c = {.top = 0, .count = 0};
    for (int64_t k = 0; k < nk - partial; k++)
        cascade_push(&c, parts[k]);
    *out = cascade_total(&c, parts[nk - 1], partial);
    free(parts);
    return true;
}

void reduce_fast_sum(const void *x, DType t, RfShape s, double *y)
{
    SumJob j = {x, t, s, y, (s.inner + RF_COLS - 1) / RF_COLS};
    if (s.inner > 1) {
        ep_parallel_for(s.outer * j.strips, grain_for(s.len * RF_COLS), sum_cols_chunk, &j);
        return;
    }
    /* few long rows: split each row; otherwise rows go to the pool whole
    ** (either way the same bits) */
    if (s.outer < 4 && s.len >= 2 * RF_CHUNK) {
        for (int64_t o = 0; o < s.outer; o++)
            if (!row_sum_parallel((const char *)x + (size_t)(o * s.len) * sum_elem_size(t), t, s.len, &y[o]))
                sum_rows_chunk(&j, o, o + 1);
        return;
    }
    ep_parallel_for(s.outer, grain_for(s.len), sum_rows_chunk, &j);
}

/* ---- integer sums ---------------------------------------------------------------- */

typedef uint64_t RfV4u __attribute__((vector_size(32)));
#define RF_IBLOCK 256 /* int64 values widened at a time */

RF_INLINE RfV4u rf_load4u(const int64_t *p) { RfV4u v; memcpy(&v, p, sizeof v); return v; }

/* Integer sums wrap as int64: unsigned adds, whose result does not depend
** on their order, so any lanes give the reference's bits. */
RF_CLONES static int64_t row_sum_int(const void *x, DType t, int64_t n)
{
    int64_t buf[RF_IBLOCK];
    size_t es = (size_t)dtype_size(t);
    RfV4u a = {0, 0, 0, 0}, b = a;
    uint64_t s = 0;
    for (int64_t i0 = 0; i0 < n; i0 += RF_IBLOCK) {
        int64_t k = n - i0 < RF_IBLOCK ? n - i0 : RF_IBLOCK, i = 0;
        const int64_t *v = buf;
        if (t == DT_I64)
            v = (const int64_t *)x + i0;
        else
            widen_int((const char *)x + (size_t)i0 * es, t, k, buf);
        for (; i + 8 <= k; i += 8) {
            a += rf_load4u(v + i);
            b += rf_load4u(v + i + 4);
        }
        for (; i < k; i++)
            s += (uint64_t)v[i];
    }
    a += b;
    return (int64_t)(s + a[0] + a[1] + a[2] + a[3]);
}

RF_CLONES static void col_sum_int(const void *x, DType t, int64_t len, int64_t inner, int64_t ncols, int64_t *y)
{
    uint64_t tot[RF_COLS];
    int64_t wide[RF_COLS];
    size_t es = (size_t)dtype_size(t);
    memset(tot, 0, sizeof tot);
    for (int64_t r = 0; r < len; r++) {
        const int64_t *row = wide;
        if (t == DT_I64)
            row = (const int64_t *)x + r * inner;
        else
            widen_int((const char *)x + (size_t)(r * inner) * es, t, ncols, wide);
        int64_t j = 0;
        for (; j + 4 <= ncols; j += 4) {
            RfV4u v;
            memcpy(&v, tot + j, sizeof v);
            v += rf_load4u(row + j);
            memcpy(tot + j, &v, sizeof v);
        }
        for (; j < ncols; j++)
            tot[j] += (uint64_t)row[j];
    }
    memcpy(y, tot, (size_t)ncols * sizeof *y);
}

typedef struct IntSumJob {
    const char *x;
    DType t;
    RfShape s;
    int64_t *y;
    int64_t strips;
} IntSumJob;

static void int_sum_chunk(void *ctx, int64_t begin, int64_t end)
{
    IntSumJob *j = ctx;
    const RfShape s = j->s;
    size_t es = (size_t)dtype_size(j->t);
    for (int64_t k = begin; k < end; k++) {
        if (s.inner == 1) {
            j->y[k] = row_sum_int(j->x + (size_t)(k * s.len) * es, j->t, s.len);
            continue;
        }
        int64_t o = k / j->strips, j0 = (k % j->strips) * RF_COLS;
        col_sum_int(j->x + (size_t)(o * s.len * s.inner + j0) * es, j->t, s.len, s.inner,
                    s.inner - j0 < RF_COLS ? s.inner - j0 : RF_COLS, j->y + o * s.inner + j0);
    }
}

static void int_parts_chunk(void *ctx, int64_t begin, int64_t end)
{
    IntSumJob *j = ctx;
    size_t es = (size_t)dtype_size(j->t);
    for (int64_t k = begin; k < end; k++) {
        int64_t at = k * RF_CHUNK, n = j->s.len - at < RF_CHUNK ? j->s.len - at : RF_CHUNK;
        j->y[k] = row_sum_int(j->x + (size_t)at * es, j->t, n);
    }
}

void reduce_fast_sum_int(const void *x, DType t, RfShape s, int64_t *y)
{
    IntSumJob j = {x, t, s, y, (s.inner + RF_COLS - 1) / RF_COLS};
    /* few long rows: pool chunks of each, their partial sums wrapped
    ** together (in any order the same bits) */
    int64_t nk = ep_chunks(s.len, RF_CHUNK);
    int64_t *parts = s.inner == 1 && s.outer < 4 && nk >= 2 ? malloc((size_t)nk * sizeof *parts) : NULL;
    if (parts) {
        size_t es = (size_t)dtype_size(t);
        for (int64_t o = 0; o < s.outer; o++) {
            IntSumJob pj = {(const char *)x + (size_t)(o * s.len) * es, t, s, parts, 0};
            ep_parallel_for(nk, 1, int_parts_chunk, &pj);
            uint64_t tot = 0;
            for (int64_t k = 0; k < nk; k++)
                tot += (uint64_t)parts[k];
            y[o] = (int64_t)tot;
        }
        free(parts);
        return;
    }
    int64_t tasks = s.inner == 1 ? s.outer : s.outer * j.strips;
    ep_parallel_for(tasks, grain_for(s.inner == 1 ? s.len : s.len * RF_COLS), int_sum_chunk, &j);
}

/* ---- softmax ------------------------------------------------------------------- */

/* the low and high four lanes of a float vector, widened to double */
#define RF_LO4D(v) __builtin_convertvector(__builtin_shufflevector((v), (v), 0, 1, 2, 3), RfV4d)
#define RF_HI4D(v) __builtin_convertvector(__builtin_shufflevector((v), (v), 4, 5, 6, 7), RfV4d)

/* k < 8 floats from p, the other lanes pad */
RF_INLINE RfV8f rf_load8f_part(const float *p, int64_t k, float pad)
{
    float b[8] = {pad, pad, pad, pad, pad, pad, pad, pad};
    memcpy(b, p, (size_t)k * sizeof *b);
    return rf_load8f(b);
}
RF_INLINE void rf_store8f_part(float *p, const RfV8f *v, int64_t k)
{
    float b[8];
    rf_store8f(b, v);
    memcpy(p, b, (size_t)k * sizeof *b);
}

/* x padded with -inf past the end: the pad never raises the max, and
** exp(-inf - m) = 0 adds nothing to the sum. */
RF_INLINE RfV8f load_x(const float *x, int64_t i, int64_t n)
{
    return i + 8 <= n ? rf_load8f(x + i) : rf_load8f_part(x + i, n - i, -INFINITY);
}
RF_INLINE void store_y(float *y, int64_t i, int64_t n, const RfV8f *v)
{
    if (i + 8 <= n)
        rf_store8f(y + i, v);
    else
        rf_store8f_part(y + i, v, n - i);
}

/* exp in the form row_exp chose (a constant there: the branch folds) */
RF_INLINE RfV8f row_exp8(const RfV8f *v, bool normal)
{
    return normal ? vm_exp_normal(v) : vm_exp(v);
}

/* The exps of a row and their sum: y[i] = exp(x[i] - m) (when y is not
** NULL), the sum in float vectors per block (a lane adds at most
** RF_BLOCK / 16 values, as block_sum_float), the blocks in double.  With
** normal, every x - m is known to be within vm_exp_normal's range, which
** gives vm_exp's bits there without its clamps (an inlined copy each, so
** the branch is outside the loop). */
RF_INLINE double row_exp(const float *x, int64_t n, float m, float *y, bool normal)
{
    RfV8f mm = rf_splat8f(m);
    double s = 0;
    for (int64_t b0 = 0; b0 < n; b0 += RF_BLOCK) {
        int64_t b1 = n - b0 < RF_BLOCK ? n : b0 + RF_BLOCK, i = b0;
        RfV8f a0 = rf_splat8f(0.0f), a1 = a0;
        for (; i + 16 <= b1; i += 16) {
            RfV8f e0 = rf_load8f(x + i) - mm, e1 = rf_load8f(x + i + 8) - mm;
            e0 = row_exp8(&e0, normal);
            e1 = row_exp8(&e1, normal);
            if (y) {
                rf_store8f(y + i, &e0);
                rf_store8f(y + i + 8, &e1);
            }
            a0 += e0;
            a1 += e1;
        }
        for (; i < b1; i += 8) {
            RfV8f e = load_x(x, i, b1) - mm;
            e = rf_exp8f(&e); /* -inf padding: the clamped form */
            if (y)
                store_y(y, i, b1, &e);
            a0 += e;
        }
        a0 += a1;
        s += (double)(((a0[0] + a0[4]) + (a0[1] + a0[5])) + ((a0[2] + a0[6]) + (a0[3] + a0[7])));
    }
    return s;
}

/* One row, as PyTorch's vectorized last-dim softmax: max, exp(x - max) and
** its sum, then a multiply by 1 / sum, or for log_softmax
** (x - max) - log(sum).  The first pass also finds the min: a row whose
** span max - min is below VM_EXP_NORMAL_LIM (no inf, no nan, most rows)
** takes exp's one-factor form, the same bits. */
RF_CLONES static void softmax_row(const float *x, int64_t n, bool want_log, float *y)
{
    RfV8f mv = rf_splat8f(-INFINITY), mw = mv; /* two chains: the compares' latency */
    RfV8f lv = rf_splat8f(INFINITY), lw = lv;
    int64_t t = 0;
    for (; t + 16 <= n; t += 16) {
        RfV8f v = rf_load8f(x + t), w = rf_load8f(x + t + 8);
        mv = rf_max_nan8f(&mv, &v);
        mw = rf_max_nan8f(&mw, &w);
        lv = RF_SELECT8F(v < lv, v, lv);
        lw = RF_SELECT8F(w < lw, w, lw);
    }
    for (; t < n; t += 8) {
        RfV8f v = load_x(x, t, n);
        mv = rf_max_nan8f(&mv, &v);
        if (t + 8 > n)
            v = rf_load8f_part(x + t, n - t, INFINITY); /* padding that never lowers the min */
        lv = RF_SELECT8F(v < lv, v, lv);
    }
    float m = -INFINITY, lo = INFINITY;
    for (int k = 0; k < 8; k++) {
        m = rf_max_nanf(rf_max_nanf(m, mv[k]), mw[k]);
        lo = lv[k] < lo ? lv[k] : lo;
        lo = lw[k] < lo ? lw[k] : lo;
    }
    /* false for a nan or infinite max, or a -inf anywhere */
    bool normal = m - lo < VM_EXP_NORMAL_LIM;
    float *e = want_log ? NULL : y;
    double s = normal ? row_exp(x, n, m, e, true) : row_exp(x, n, m, e, false);
    RfV8f mm = rf_splat8f(m);
    if (want_log) {
        RfV8f ls = rf_splat8f((float)log(s));
        for (int64_t i = 0; i < n; i += 8) {
            RfV8f v = (load_x(x, i, n) - mm) - ls;
            store_y(y, i, n, &v);
        }
    } else {
        RfV8f inv = rf_splat8f((float)(1.0 / s));
        for (int64_t i = 0; i < n; i += 8) {
            RfV8f v = load_x(y, i, n) * inv;
            store_y(y, i, n, &v);
        }
    }
}

/* The same along a strided axis: a strip of ncols <= RF_COLS columns of len
** rows (row stride inner), each column a softmax of its own. */
RF_CLONES static void softmax_cols(const float *x, int64_t len, int64_t inner, int64_t ncols, bool want_log,
                                   float *y)
{
    float m[RF_COLS];
    double s[RF_COLS];
    for (int64_t j = 0; j < ncols; j++) {
        m[j] = -INFINITY;
        s[j] = 0;
    }
    for (int64_t r = 0; r < len; r++)
        for (int64_t j = 0; j < ncols; j += 8) {
            RfV8f a = load_x(m, j, ncols), v = load_x(x + r * inner, j, ncols);
            a = rf_max_nan8f(&a, &v);
            store_y(m, j, ncols, &a);
        }
    for (int64_t r = 0; r < len; r++)
        for (int64_t j = 0; j < ncols; j += 8) {
            RfV8f e = load_x(x + r * inner, j, ncols) - load_x(m, j, ncols);
            e = rf_exp8f(&e);
            if (!want_log)
                store_y(y + r * inner, j, ncols, &e);
            for (int k = 0; k < 8 && j + k < ncols; k++)
                s[j + k] += e[k];
        }
    float f[RF_COLS];
    for (int64_t j = 0; j < ncols; j++)
        f[j] = want_log ? (float)log(s[j]) : (float)(1.0 / s[j]);
    for (int64_t r = 0; r < len; r++)
        for (int64_t j = 0; j < ncols; j += 8) {
            RfV8f v = want_log ? (load_x(x + r * inner, j, ncols) - load_x(m, j, ncols)) - load_x(f, j, ncols)
                               : load_x(y + r * inner, j, ncols) * load_x(f, j, ncols);
            store_y(y + r * inner, j, ncols, &v);
        }
}

typedef struct SoftmaxJob {
    const float *x;
    RfShape s;
    bool want_log;
    float *y;
    int64_t strips;
} SoftmaxJob;

static void softmax_chunk(void *ctx, int64_t begin, int64_t end)
{
    SoftmaxJob *j = ctx;
    const RfShape s = j->s;
    for (int64_t t = begin; t < end; t++) {
        if (s.inner == 1) {
            softmax_row(j->x + t * s.len, s.len, j->want_log, j->y + t * s.len);
            continue;
        }
        int64_t o = t / j->strips, j0 = (t % j->strips) * RF_COLS;
        int64_t at = o * s.len * s.inner + j0;
        softmax_cols(j->x + at, s.len, s.inner, s.inner - j0 < RF_COLS ? s.inner - j0 : RF_COLS, j->want_log,
                     j->y + at);
    }
}

void reduce_fast_softmax(const float *x, RfShape s, bool want_log, float *y)
{
    SoftmaxJob j = {x, s, want_log, y, (s.inner + RF_COLS - 1) / RF_COLS};
    int64_t tasks = s.inner == 1 ? s.outer : s.outer * j.strips;
    int64_t work = s.inner == 1 ? s.len : s.len * RF_COLS;
    /* exp costs ~ten adds: a smaller grain pays */
    ep_parallel_for(tasks, grain_for(work * 8), softmax_chunk, &j);
}

/* ---- layer norm ---------------------------------------------------------------- */

typedef struct LnJob {
    const void *x;          /* float32 or bfloat16 (t) */
    const float *w, *b;     /* NULL when absent */
    DType t;
    int64_t n;              /* values per row */
    double eps;
    void *y;                /* t, as x */
    float *mean, *rstd;
} LnJob;

/* The mean of n >= 1 floats (the sum's cascade) and the sum of their
** squared deviations from it in double lanes: two passes, as the reference
** loops. */
RF_INLINE void row_moments(const float *x, int64_t n, double *mean, double *m2)
{
    /* one block is its own cascade: the same bits as row_sum_float */
    double mu = (n <= RF_BLOCK ? block_sum_float(x, n) : row_sum_float(x, n)) / (double)n;
    RfV4d mv = {mu, mu, mu, mu}, a = {0, 0, 0, 0}, c = a;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        RfV4d d0 = rf_load4d_f32(x + i) - mv, d1 = rf_load4d_f32(x + i + 4) - mv;
        a += d0 * d0;
        c += d1 * d1;
    }
    a += c;
    double sq = (a[0] + a[1]) + (a[2] + a[3]);
    for (; i < n; i++)
        sq += (x[i] - mu) * (x[i] - mu);
    *mean = mu;
    *m2 = sq;
}

/* layer norm's statistics: the mean as row_moments, the squared
** deviations from it in float lanes (a lane adds at most RF_BLOCK / 32 of
** them, PyTorch's accuracy class for its float moments), each block's sum
** kept in double. */
RF_INLINE void row_moments_ln(const float *x, int64_t n, double *mean, double *m2)
{
    double mu = (n <= RF_BLOCK ? block_sum_float(x, n) : row_sum_float(x, n)) / (double)n;
    const float muf = (float)mu;
    const RfV8f mv = rf_splat8f(muf);
    double sq = 0;
    for (int64_t b0 = 0; b0 < n; b0 += RF_BLOCK) {
        int64_t b1 = n - b0 < RF_BLOCK ? n : b0 + RF_BLOCK, i = b0;
        RfV8f a = rf_splat8f(0.0f), b = a, c = a, d = a;
        for (; i + 32 <= b1; i += 32) {
            RfV8f d0 = rf_load8f(x + i) - mv, d1 = rf_load8f(x + i + 8) - mv;
            RfV8f d2 = rf_load8f(x + i + 16) - mv, d3 = rf_load8f(x + i + 24) - mv;
            a += d0 * d0;
            b += d1 * d1;
            c += d2 * d2;
            d += d3 * d3;
        }
        a = (a + b) + (c + d);
        double s = (double)(((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7])));
        for (; i < b1; i++)
            s += (double)((x[i] - muf) * (x[i] - muf));
        sq += s;
    }
    *mean = mu;
    *m2 = sq;
}

/* One row x -> y of floats: mean and biased variance in double
** (row_moments), then ((x - mean) * rstd) rounded to float, times w plus b
** in float, as PyTorch applies its affine parameters. */
RF_CLONES static void layer_norm_row(const LnJob *j, const float *x, float *y, int64_t r)
{
    const int64_t n = j->n;
    double mu, sq;
    row_moments_ln(x, n, &mu, &sq);
    double var = sq / (double)n, rs = 1.0 / sqrt((var > 0 ? var : 0) + j->eps);
    j->mean[r] = (float)mu;
    j->rstd[r] = (float)rs;
    RfV4d mv = {mu, mu, mu, mu}, rv = {rs, rs, rs, rs};
    for (int64_t i = 0; i < n; i += 8) {
        RfV8f xv = load_x(x, i, n);
        RfV4f t0 = __builtin_convertvector((RF_LO4D(xv) - mv) * rv, RfV4f);
        RfV4f t1 = __builtin_convertvector((RF_HI4D(xv) - mv) * rv, RfV4f);
        RfV8f t = __builtin_shufflevector(t0, t1, 0, 1, 2, 3, 4, 5, 6, 7);
        if (j->w)
            t = t * (i + 8 <= n ? rf_load8f(j->w + i) : rf_load8f_part(j->w + i, n - i, 1.0f));
        if (j->b)
            t = t + (i + 8 <= n ? rf_load8f(j->b + i) : rf_load8f_part(j->b + i, n - i, 0.0f));
        store_y(y, i, n, &t);
    }
}

/* bfloat16 rows: each widened into a float row, normalised as float32
** rows are, the result rounded once to bfloat16. */
RF_CLONES static void layer_norm_rows_bf16(const LnJob *j, int64_t begin, int64_t end, float *xb, float *yb)
{
    for (int64_t r = begin; r < end; r++) {
        widen_half((const uint16_t *)j->x + r * j->n, DT_BF16, j->n, xb);
        layer_norm_row(j, xb, yb, r);
        f32_to_bf16_n((uint16_t *)j->y + r * j->n, yb, j->n);
    }
}

static void layer_norm_chunk(void *ctx, int64_t begin, int64_t end)
{
    const LnJob *j = ctx;
    if (j->t == DT_F32) {
        for (int64_t r = begin; r < end; r++)
            layer_norm_row(j, (const float *)j->x + r * j->n, (float *)j->y + r * j->n, r);
        return;
    }
    float buf[2 * RF_LN_HALF_MAX];
    layer_norm_rows_bf16(j, begin, end, buf, buf + RF_LN_HALF_MAX);
}

void reduce_fast_layer_norm(const void *x, DType t, int64_t rows, int64_t n, const float *w, const float *b,
                            double eps, void *y, float *mean, float *rstd)
{
    LnJob j = {x, w, b, t, n, eps, y, mean, rstd};
    ep_parallel_for(rows, grain_for(n * 3), layer_norm_chunk, &j);
}

/* ---- group norm ------------------------------------------------------------------ */

typedef struct GnJob {
    const float *x, *w, *b; /* w, b: NULL when absent */
    int64_t C, HxW, G;
    double eps;
    float *y, *mean, *rstd;
} GnJob;

/* One (n, g) group: a contiguous run of C / G channels of HxW values.
** Statistics as var's (row_moments, in double), then per channel as
** PyTorch's kernel: y = x * a + c in float with a = rstd * w and
** c = b - mean * a (within a rounding of the terms of the reference's
** double ((x - mean) * rstd) * w + b). */
RF_CLONES static void group_norm_group(const GnJob *j, int64_t task)
{
    const int64_t cg = j->C / j->G, n = task / j->G, g = task % j->G, L = j->HxW;
    const int64_t at = (n * j->C + g * cg) * L;
    double mu, sq;
    row_moments(j->x + at, cg * L, &mu, &sq);
    double var = sq / (double)(cg * L), rs = 1.0 / sqrt((var > 0 ? var : 0) + j->eps);
    j->mean[task] = (float)mu;
    j->rstd[task] = (float)rs;
    for (int64_t ci = 0; ci < cg; ci++) {
        const int64_t ch = g * cg + ci;
        const double a = rs * (j->w ? j->w[ch] : 1), c = (j->b ? j->b[ch] : 0) - mu * a;
        const RfV8f av = rf_splat8f((float)a), cv = rf_splat8f((float)c);
        const float *x = j->x + at + ci * L;
        float *y = j->y + at + ci * L;
        int64_t i = 0;
        for (; i + 8 <= L; i += 8) {
            RfV8f t = rf_load8f(x + i) * av + cv;
            rf_store8f(y + i, &t);
        }
        for (; i < L; i++)
            y[i] = x[i] * (float)a + (float)c;
    }
}

static void group_norm_chunk(void *ctx, int64_t begin, int64_t end)
{
    for (int64_t t = begin; t < end; t++)
        group_norm_group(ctx, t);
}

void reduce_fast_group_norm(const float *x, int64_t N, int64_t C, int64_t HxW, int64_t G, const float *w,
                            const float *b, double eps, float *y, float *mean, float *rstd)
{
    GnJob j = {x, w, b, C, HxW, G, eps, y, mean, rstd};
    ep_parallel_for(N * G, grain_for(C / G * HxW * 3), group_norm_chunk, &j);
}

/* ---- logsumexp ------------------------------------------------------------------ */

typedef struct LseJob {
    const float *x;
    int64_t len;
    double *y;
} LseJob;

/* One row as the reference: m the max (a NaN wins), 0 when infinite, the
** exps of x - m summed in float lanes per block (rf_exp8f, within 2 ulp),
** the blocks in double, then log(sum) + m. */
RF_CLONES static double lse_row(const float *x, int64_t n)
{
    RfV8f mv = rf_splat8f(-INFINITY);
    for (int64_t i = 0; i < n; i += 8) {
        RfV8f v = load_x(x, i, n);
        mv = rf_max_nan8f(&mv, &v);
    }
    float m = -INFINITY;
    for (int k = 0; k < 8; k++)
        m = rf_max_nanf(m, mv[k]);
    if (isinf(m))
        m = 0;
    const RfV8f mm = rf_splat8f(m);
    double s = 0;
    for (int64_t b0 = 0; b0 < n; b0 += RF_BLOCK) {
        int64_t b1 = n - b0 < RF_BLOCK ? n : b0 + RF_BLOCK;
        RfV8f a0 = rf_splat8f(0.0f), a1 = a0;
        int64_t i = b0;
        for (; i + 16 <= b1; i += 16) {
            RfV8f e0 = rf_load8f(x + i) - mm, e1 = rf_load8f(x + i + 8) - mm;
            a0 += rf_exp8f(&e0);
            a1 += rf_exp8f(&e1);
        }
        for (; i < b1; i += 8) { /* the pad is -inf: exp gives 0 */
            RfV8f e = load_x(x, i, b1) - mm;
            a0 += rf_exp8f(&e);
        }
        a0 += a1;
        s += (double)(((a0[0] + a0[4]) + (a0[1] + a0[5])) + ((a0[2] + a0[6]) + (a0[3] + a0[7])));
    }
    return log(s) + m;
}

static void lse_chunk(void *ctx, int64_t begin, int64_t end)
{
    LseJob *j = ctx;
    for (int64_t r = begin; r < end; r++)
        j->y[r] = lse_row(j->x + r * j->len, j->len);
}

void reduce_fast_logsumexp(const float *x, int64_t rows, int64_t len, double *y)
{
    LseJob j = {x, len, y};
    ep_parallel_for(rows, grain_for(len * 8), lse_chunk, &j);
}

/* ---- var / std ------------------------------------------------------------------- */

typedef struct MomentsJob {
    const float *x;
    int64_t n;
    double *mean, *m2;
} MomentsJob;

RF_CLONES static void moments_chunk(void *ctx, int64_t begin, int64_t end)
{
    MomentsJob *j = ctx;
    for (int64_t r = begin; r < end; r++)
        row_moments(j->x + r * j->n, j->n, &j->mean[r], &j->m2[r]);
}

void reduce_fast_moments(const float *x, int64_t rows, int64_t n, double *mean, double *m2)
{
    MomentsJob j = {x, n, mean, m2};
    ep_parallel_for(rows, grain_for(n * 2), moments_chunk, &j);
}

/* ---- per-channel affine (batch norm in evaluation) ---------------------------- */

typedef struct AffineJob {
    const float *x, *alpha, *beta;
    int64_t C, L;
    float *y;
} AffineJob;

/* y = x * a + b rounded once (fmaf), as PyTorch's FMA builds compute batch
** norm's output; in blocks of 64, which GCC vectorizes, in a clone with FMA
** instructions (elsewhere libm's fmaf: the same bits, slower). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void affine_plane(const float *restrict x, int64_t L, float a, float b, float *restrict y)
{
    int64_t i = 0;
    for (; i + 64 <= L; i += 64)
        for (int k = 0; k < 64; k++)
            y[i + k] = fmaf(x[i + k], a, b);
    for (; i < L; i++)
        y[i] = fmaf(x[i], a, b);
}

static void affine_chunk(void *ctx, int64_t begin, int64_t end)
{
    AffineJob *j = ctx;
    for (int64_t p = begin; p < end; p++)
        affine_plane(j->x + p * j->L, j->L, j->alpha[p % j->C], j->beta[p % j->C], j->y + p * j->L);
}

void reduce_fast_affine_planes(const float *x, int64_t planes, int64_t C, int64_t L, const float *alpha,
                               const float *beta, float *y)
{
    AffineJob j = {x, alpha, beta, C, L, y};
    ep_parallel_for(planes, grain_for(L), affine_chunk, &j);
}

/* ---- amax / amin ------------------------------------------------------------------ */

/* The reference's answer for a run whose lanes found a NaN or a zero
** extreme: the first NaN, else the first value equal to m (which picks the
** sign of a zero as a sequential scan does). */
static float extreme_fixup(const void *x, DType t, int64_t n, int64_t stride, float m)
{
    for (int64_t i = 0; i < n; i++) {
        float v = rf_get(x, t, i * stride);
        if (v != v)
            return v;
    }
    for (int64_t i = 0; i < n; i++) {
        float v = rf_get(x, t, i * stride);
        if (v == m)
            return v;
    }
    return m;
}

/* the larger (want_max) or smaller of each lane pair, m on ties and NaNs */
RF_INLINE RfV8f ext8f(const RfV8f *m, const RfV8f *v, bool want_max)
{
    RfV8i take = want_max ? *v > *m : *v < *m;
    return (RfV8f)((RfV8i)*m ^ (((RfV8i)*m ^ (RfV8i)*v) & take));
}

/* One contiguous run of n >= 1 values: four chains of eight lanes (the
** compare-and-select latency) started at x[0], with a lane-wise NaN flag.
** Which lane holds which value does not matter: only a NaN or a zero
** could tell, and those are fixed up.  want_max is a constant in each of
** the two inlined copies. */
RF_INLINE float extreme_run(const float *x, int64_t n, bool want_max)
{
    RfV8f m0 = rf_splat8f(x[0]), m1 = m0, m2 = m0, m3 = m0;
    RfV8i nan = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        RfV8f v0 = rf_load8f(x + i), v1 = rf_load8f(x + i + 8), v2 = rf_load8f(x + i + 16),
              v3 = rf_load8f(x + i + 24);
        nan |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3);
        m0 = ext8f(&m0, &v0, want_max);
        m1 = ext8f(&m1, &v1, want_max);
        m2 = ext8f(&m2, &v2, want_max);
        m3 = ext8f(&m3, &v3, want_max);
    }
    for (; i + 8 <= n; i += 8) {
        RfV8f v = rf_load8f(x + i);
        nan |= v != v;
        m0 = ext8f(&m0, &v, want_max);
    }
    m0 = ext8f(&m0, &m1, want_max);
    m2 = ext8f(&m2, &m3, want_max);
    m0 = ext8f(&m0, &m2, want_max);
    float r = m0[0];
    for (int k = 1; k < 8; k++)
        r = want_max ? (m0[k] > r ? m0[k] : r) : (m0[k] < r ? m0[k] : r);
    bool any_nan = false;
    for (int k = 0; k < 8; k++)
        any_nan |= nan[k] != 0;
    for (; i < n; i++) {
        any_nan |= x[i] != x[i];
        r = want_max ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
    }
    return any_nan || r == 0 ? extreme_fixup(x, DT_F32, n, 1, r) : r;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define RF_HAVE_AVX2_EXTREME 1

/* extreme_run with AVX2's max and min instructions, which choose as ext8f
** does (vmaxps(v, m) is v > m ? v : m: m on ties and NaNs), one
** instruction where ext8f's select takes four; one unordered compare flags
** a NaN in either of two vectors.  The same answer as extreme_run: the
** lanes hold the same values, only a NaN or a zero could tell them apart,
** and those go to the same fix-up. */
static inline __attribute__((always_inline, target("avx2"))) __m256 ext_avx2(__m256 v, __m256 m, bool want_max)
{
    return want_max ? _mm256_max_ps(v, m) : _mm256_min_ps(v, m);
}

static inline __attribute__((always_inline, target("avx2"))) float extreme_run_avx2(const float *x, int64_t n,
                                                                                    bool want_max)
{
    __m256 m0 = _mm256_set1_ps(x[0]), m1 = m0, m2 = m0, m3 = m0, nan = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
        __m256 v2 = _mm256_loadu_ps(x + i + 16), v3 = _mm256_loadu_ps(x + i + 24);
        nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(v0, v1, _CMP_UNORD_Q), _mm256_cmp_ps(v2, v3, _CMP_UNORD_Q)));
        m0 = ext_avx2(v0, m0, want_max);
        m1 = ext_avx2(v1, m1, want_max);
        m2 = ext_avx2(v2, m2, want_max);
        m3 = ext_avx2(v3, m3, want_max);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        m0 = ext_avx2(v, m0, want_max);
    }
    m0 = ext_avx2(m1, m0, want_max);
    m2 = ext_avx2(m3, m2, want_max);
    m0 = ext_avx2(m2, m0, want_max);
    float lanes[8];
    _mm256_storeu_ps(lanes, m0);
    float r = lanes[0];
    for (int k = 1; k < 8; k++)
        r = want_max ? (lanes[k] > r ? lanes[k] : r) : (lanes[k] < r ? lanes[k] : r);
    bool any_nan = _mm256_movemask_ps(nan) != 0;
    for (; i < n; i++) {
        any_nan |= x[i] != x[i];
        r = want_max ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
    }
    return any_nan || r == 0 ? extreme_fixup(x, DT_F32, n, 1, r) : r;
}

__attribute__((target("avx2"))) static float extreme_max_avx2(const float *x, int64_t n)
{
    return extreme_run_avx2(x, n, true);
}
__attribute__((target("avx2"))) static float extreme_min_avx2(const float *x, int64_t n)
{
    return extreme_run_avx2(x, n, false);
}

#endif

/* The extreme of a float32 run: with AVX2's instructions where the CPU has
** them, else extreme_run's portable vectors (the same answer). */
RF_INLINE float extreme_of(const float *x, int64_t n, bool want_max)
{
#ifdef RF_HAVE_AVX2_EXTREME
    if (__builtin_cpu_supports("avx2")) /* a load and a test of libgcc's CPU record */
        return want_max ? extreme_max_avx2(x, n) : extreme_min_avx2(x, n);
#endif
    return want_max ? extreme_run(x, n, true) : extreme_run(x, n, false);
}

/* A run of float16 / bfloat16: blocks widened and searched as floats, the
** block answers (each the reference's for its block) folded in order: a
** NaN stays, a later block wins only when strictly beyond, so equal zeros
** keep the first. */
RF_INLINE float extreme_run_half(const uint16_t *x, DType t, int64_t n, bool want_max)
{
    float buf[RF_BLOCK], r = 0;
    for (int64_t i = 0; i < n; i += RF_BLOCK) {
        int64_t k = n - i < RF_BLOCK ? n - i : RF_BLOCK;
        widen_half(x + i, t, k, buf);
        float b = extreme_of(buf, k, want_max);
        if (i == 0 || (r == r && (b != b || (want_max ? b > r : b < r))))
            r = b;
    }
    return r;
}

RF_CLONES static float extreme_row(const void *x, DType t, int64_t n, bool want_max)
{
    if (t != DT_F32)
        return want_max ? extreme_run_half(x, t, n, true) : extreme_run_half(x, t, n, false);
    return extreme_of(x, n, want_max);
}

/* A strip of ncols <= RF_COLS columns of len >= 1 rows (stride inner);
** rows of float16 / bfloat16 widened first. */
RF_INLINE void extreme_strip(const void *x, DType t, int64_t len, int64_t inner, int64_t ncols, bool want_max,
                             float *y)
{
    float m[RF_COLS], wide[RF_COLS];
    int32_t nan[RF_COLS];
    memset(nan, 0, sizeof nan);
    for (int64_t r = 0; r < len; r++) {
        const float *row = (const float *)x + r * inner;
        if (t != DT_F32) {
            widen_half((const uint16_t *)x + r * inner, t, ncols, wide);
            row = wide;
        }
        if (r == 0)
            memcpy(m, row, (size_t)ncols * sizeof *m);
        int64_t j = 0;
        for (; j + 8 <= ncols; j += 8) {
            RfV8f a = rf_load8f(m + j), v = rf_load8f(row + j);
            RfV8i f;
            memcpy(&f, nan + j, sizeof f);
            f |= v != v;
            memcpy(nan + j, &f, sizeof f);
            a = ext8f(&a, &v, want_max);
            rf_store8f(m + j, &a);
        }
        for (; j < ncols; j++) {
            nan[j] |= row[j] != row[j];
            m[j] = want_max ? (row[j] > m[j] ? row[j] : m[j]) : (row[j] < m[j] ? row[j] : m[j]);
        }
    }
    size_t es = t == DT_F32 ? 4 : 2;
    for (int64_t j = 0; j < ncols; j++)
        y[j] = nan[j] || m[j] == 0 ? extreme_fixup((const char *)x + (size_t)j * es, t, len, inner, m[j]) : m[j];
}

RF_CLONES static void extreme_cols(const void *x, DType t, int64_t len, int64_t inner, int64_t ncols,
                                   bool want_max, float *y)
{
    if (want_max)
        extreme_strip(x, t, len, inner, ncols, true, y);
    else
        extreme_strip(x, t, len, inner, ncols, false, y);
}

typedef struct ExtremeJob {
    const char *x;
    DType t;
    RfShape s;
    bool want_max;
    float *y;
    int64_t strips;
} ExtremeJob;

static void extreme_chunk(void *ctx, int64_t begin, int64_t end)
{
    ExtremeJob *j = ctx;
    const RfShape s = j->s;
    size_t es = j->t == DT_F32 ? 4 : 2;
    for (int64_t t = begin; t < end; t++) {
        if (s.inner == 1) {
            j->y[t] = extreme_row(j->x + (size_t)(t * s.len) * es, j->t, s.len, j->want_max);
            continue;
        }
        int64_t o = t / j->strips, j0 = (t % j->strips) * RF_COLS;
        extreme_cols(j->x + (size_t)(o * s.len * s.inner + j0) * es, j->t, s.len, s.inner,
                     s.inner - j0 < RF_COLS ? s.inner - j0 : RF_COLS, j->want_max, j->y + o * s.inner + j0);
    }
}

void reduce_fast_extreme(const void *x, DType t, RfShape s, bool want_max, float *y)
{
    ExtremeJob j = {x, t, s, want_max, y, (s.inner + RF_COLS - 1) / RF_COLS};
    int64_t tasks = s.inner == 1 ? s.outer : s.outer * j.strips;
    ep_parallel_for(tasks, grain_for(s.inner == 1 ? s.len : s.len * RF_COLS), extreme_chunk, &j);
}

/* ---- argmax / argmin -------------------------------------------------------------- */

typedef struct ArgJob {
    const float *x;
    int64_t len;
    bool want_max;
    int64_t *idx;
} ArgJob;

/* The index of a row's extreme as the reference's search gives it: the
** first NaN if any, else the first value equal to the extreme (equal zeros:
** the first of either sign, as the search's strict compare keeps). */
RF_CLONES static int64_t arg_row(const float *x, int64_t n, bool want_max)
{
    float m = extreme_of(x, n, want_max);
    bool nan = m != m;
    int64_t i = 0;
    RfV8f mv = rf_splat8f(m);
    for (; i + 8 <= n; i += 8) {
        RfV8f v = rf_load8f(x + i);
        RfV8i hit = nan ? v != v : v == mv;
        uint64_t w[4];
        memcpy(w, &hit, sizeof w);
        if (w[0] | w[1] | w[2] | w[3])
            break;
    }
    for (; i < n; i++)
        if (nan ? x[i] != x[i] : x[i] == m)
            return i;
    return 0; /* not reached: the extreme is one of the values */
}

static void arg_chunk(void *ctx, int64_t begin, int64_t end)
{
    ArgJob *j = ctx;
    for (int64_t r = begin; r < end; r++)
        j->idx[r] = arg_row(j->x + r * j->len, j->len, j->want_max);
}

void reduce_fast_arg_rows(const float *x, int64_t rows, int64_t len, bool want_max, int64_t *idx)
{
    ArgJob j = {x, len, want_max, idx};
    ep_parallel_for(rows, grain_for(len * 2), arg_chunk, &j);
}
