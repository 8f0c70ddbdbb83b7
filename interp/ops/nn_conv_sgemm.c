/*
** nn_conv_sgemm.c -- the float32 GEMM of the convolutions' fast paths
** (conv_sgemm: im2col tiles, 1x1 layers read in place, Winograd's 16
** products), and the finiteness scan the Winograd and depthwise paths
** make first.
**
** Why not OpenBLAS: on the CNNs' small tiles its packing and call cost
** more than the arithmetic, and its results depend on the CPU (its kernels
** and their sum orders are picked per CPU): these sums are the same bits
** on every x86-64 -- fused multiply-adds in a fixed order, one instruction
** each in the x86-64-v3 clone (AVX2 and FMA), libm's fmaf in the SSE2
** baseline (target_clones).
*/
#include "nn_conv_int.h"

#include <string.h>

/* The GEMM's register block (SG_MR rows by SG_NR columns, nn_conv_int.h)
** is 12 vectors of eight sums, each step a fused multiply-add (v8_fma):
** six rows by sixteen columns, AVX2's classic shape, where the 12 sums, two
** vectors of B and the broadcast of A's element fit the 16 registers (a
** 4x24 block with fused steps did not: GCC reloaded B for every step). */

/* acc[r][v] = sum over k < K, in order, of a[r lda + k] * b[k ldb + 8 v ...]
** for r < 6: the sums spelled out as twelve variables, which GCC keeps in
** registers (an array indexed in a loop it leaves in memory). */
static inline __attribute__((always_inline)) void sgemm_6x16(int64_t K, const float *a, int64_t lda, const float *b,
                                                              int64_t ldb, V8F acc[SG_MR][2])
{
    V8F c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
    V8F c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda;
    for (int64_t k = 0; k < K; k++, b += ldb) {
        const V8F b0 = *(const V8F *)b, b1 = *(const V8F *)(b + 8);
        c00 = v8_fma(a0[k], b0, c00), c01 = v8_fma(a0[k], b1, c01);
        c10 = v8_fma(a1[k], b0, c10), c11 = v8_fma(a1[k], b1, c11);
        c20 = v8_fma(a2[k], b0, c20), c21 = v8_fma(a2[k], b1, c21);
        c30 = v8_fma(a3[k], b0, c30), c31 = v8_fma(a3[k], b1, c31);
        c40 = v8_fma(a4[k], b0, c40), c41 = v8_fma(a4[k], b1, c41);
        c50 = v8_fma(a5[k], b0, c50), c51 = v8_fma(a5[k], b1, c51);
    }
    acc[0][0] = c00, acc[0][1] = c01, acc[1][0] = c10, acc[1][1] = c11;
    acc[2][0] = c20, acc[2][1] = c21, acc[3][0] = c30, acc[3][1] = c31;
    acc[4][0] = c40, acc[4][1] = c41, acc[5][0] = c50, acc[5][1] = c51;
}

/* The same for one row (the rows left over below a multiple of six). */
static inline __attribute__((always_inline)) void sgemm_1x16(int64_t K, const float *a, const float *b, int64_t ldb,
                                                              V8F acc[2])
{
    V8F c0 = {0}, c1 = {0};
    for (int64_t k = 0; k < K; k++, b += ldb) {
        c0 = v8_fma(a[k], *(const V8F *)b, c0);
        c1 = v8_fma(a[k], *(const V8F *)(b + 8), c1);
    }
    acc[0] = c0, acc[1] = c1;
}

/* The narrow forms for a last block of at most 8 columns (a Winograd
** block of 49 tiles is 48 + 1): one vector per row instead of two, the
** same sums. */
static inline __attribute__((always_inline)) void sgemm_6x8(int64_t K, const float *a, int64_t lda, const float *b,
                                                             int64_t ldb, V8F acc[SG_MR])
{
    V8F c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0}, c5 = {0};
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda;
    for (int64_t k = 0; k < K; k++, b += ldb) {
        const V8F b0 = *(const V8F *)b;
        c0 = v8_fma(a0[k], b0, c0), c1 = v8_fma(a1[k], b0, c1), c2 = v8_fma(a2[k], b0, c2);
        c3 = v8_fma(a3[k], b0, c3), c4 = v8_fma(a4[k], b0, c4), c5 = v8_fma(a5[k], b0, c5);
    }
    acc[0] = c0, acc[1] = c1, acc[2] = c2, acc[3] = c3, acc[4] = c4, acc[5] = c5;
}

static inline __attribute__((always_inline)) void sgemm_1x8(int64_t K, const float *a, const float *b, int64_t ldb,
                                                             V8F *acc)
{
    V8F c0 = {0};
    for (int64_t k = 0; k < K; k++, b += ldb)
        c0 = v8_fma(a[k], *(const V8F *)b, c0);
    *acc = c0;
}

/* The contract is conv_sgemm's, in nn_conv_int.h (an im2col tile is
** padded to SG_NR columns for it). */
__attribute__((target_clones("arch=x86-64-v3", "default")))
static void sgemm_blocks(int64_t m, int64_t n, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                       const float *bias, float *C, int64_t ldc)
{
    for (int64_t j = 0; j < n; j += SG_NR)
        for (int64_t i = 0; i < m; i += SG_MR) {
            const int mr = m - i < SG_MR ? (int)(m - i) : SG_MR;
            const int64_t nc = n - j < SG_NR ? n - j : SG_NR;
            const float *a = A + i * lda;
            V8F acc[SG_MR][2];
            if (nc <= 8) { /* the narrow last block */
                V8F narrow[SG_MR];
                if (mr == SG_MR)
                    sgemm_6x8(K, a, lda, B + j, ldb, narrow);
                else
                    for (int r = 0; r < mr; r++)
                        sgemm_1x8(K, a + r * lda, B + j, ldb, &narrow[r]);
                for (int r = 0; r < mr; r++) {
                    float row[8];
                    V8F sum = narrow[r];
                    if (bias)
                        sum += bias[i + r];
                    memcpy(row, &sum, sizeof row);
                    memcpy(C + (i + r) * ldc + j, row, (size_t)nc * sizeof(float));
                }
                continue;
            }
            if (mr == SG_MR)
                sgemm_6x16(K, a, lda, B + j, ldb, acc);
            else
                for (int r = 0; r < mr; r++)
                    sgemm_1x16(K, a + r * lda, B + j, ldb, acc[r]);
            for (int r = 0; r < mr; r++) {
                float row[SG_NR], *c = C + (i + r) * ldc + j;
                float *dst = nc == SG_NR ? c : row;
                for (int v = 0; v < 2; v++) {
                    V8F sum = acc[r][v];
                    if (bias)
                        sum += bias[i + r];
                    *(V8F *)(dst + 8 * v) = sum;
                }
                if (dst == row)
                    memcpy(c, row, (size_t)nc * sizeof(float));
            }
        }
}

/* The clones stay inside this file: clang exports no symbol a call from
** another file (nn_conv.c, nn_conv_wino.c) could bind to. */
void conv_sgemm(int64_t m, int64_t n, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                const float *bias, float *C, int64_t ldc)
{
    sgemm_blocks(m, n, K, A, lda, B, ldb, bias, C, ldc);
}

/* Is every element finite?  x - x is 0 for a finite x and NaN otherwise,
** and a NaN stays in the sum. */
__attribute__((target_clones("avx2", "default")))
static bool all_finite_f32(const float *x, int64_t n)
{
    V8F acc = {0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const V8F v = *(const V8F *)(x + i);
        acc += v - v;
    }
    float tail = 0;
    for (; i < n; i++)
        tail += x[i] - x[i];
    for (int l = 0; l < 8; l++)
        tail += acc[l];
    return tail == 0;
}

/* The clones stay inside this file (clang exports no symbol for a call
** from another file to bind to); nn_conv.c's depthwise path calls this. */
bool conv_all_finite(const float *x, int64_t n)
{
    return all_finite_f32(x, n);
}
