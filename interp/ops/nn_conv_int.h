/*
** nn_conv_int.h -- what the convolution files share: the geometry of a
** call (nn_conv.c works it out) and nn_conv.c's register-blocked float32
** GEMM, which the Winograd path (nn_conv_wino.c) runs on its transforms.
*/
#ifndef EPDBG_NN_CONV_INT_H
#define EPDBG_NN_CONV_INT_H

#include "nn.h"

#include "interp/tensor.h"

typedef struct ConvGeom {
    int nsp;                 /* spatial dims of the operator: 1, 2 or 3 */
    bool transposed;
    int64_t n, cin, cout, groups;
    int64_t in[3], k[3], out[3];  /* spatial sizes, right-aligned in D, H, W */
    int64_t stride[3], dil[3];
    int64_t pad_lo[3], pad_hi[3]; /* differ only for padding='same' */
    int64_t opad[3];              /* output_padding of transposed convolutions */
} ConvGeom;

static inline int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }

/* Eight floats, read and written at any 4-byte alignment. */
typedef float V8F __attribute__((vector_size(32), aligned(4), may_alias));

#pragma GCC diagnostic ignored "-Wpsabi" /* v8_fma's vectors: always inlined */
/* x w + s, one rounding per lane: IEEE's fused multiply-add, the same bits
** on every CPU; one vfmadd in a clone built for FMA (x86-64-v3), libm's
** fmaf in the baseline.  The float32 convolutions' sums (the GEMM, the
** channels-in-lanes kernel) step with it. */
static inline __attribute__((always_inline)) V8F v8_fma(float x, V8F w, V8F s)
{
    V8F r;
    for (int i = 0; i < 8; i++)
        r[i] = __builtin_fmaf(x, w[i], s[i]);
    return r;
}

/* Scratch memory for a chunk of a kernel: bytes (> 0) from the tensors'
** pool of large blocks, which keeps freed blocks for the next request (a
** fresh mapping per chunk cost a page fault per 4 KiB, 10 % of a 28x28
** layer's time), counted against --max-memory.  NULL if out of memory;
** the caller gives it back with storage_unref(*owner). */
static inline void *conv_scratch(size_t bytes, Storage **owner)
{
    *owner = storage_new(bytes ? bytes : 1);
    return *owner ? (*owner)->data : NULL;
}

/* The GEMM's register block: SG_MR rows by SG_NR columns. */
#define SG_MR 6
#define SG_NR 16

/* C[i, j] = sum over k of A[i, k] B[k, j], plus bias[i] (bias may be NULL),
** for i < m, j < n.  B's rows must be readable up to n rounded up to SG_NR
** (those columns are computed and dropped).  Each C[i, j] is one sum in k
** order, then the bias: the same bits however the columns are cut. */
void conv_sgemm(int64_t m, int64_t n, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                const float *bias, float *C, int64_t ldc);

/* Is each of the n floats finite (no infinity, no NaN)? */
bool conv_all_finite(const float *x, int64_t n);

/* The Winograd path's case: float32 2-D 3x3, stride 1, no dilation, at
** least 16 channels in and out per group, finite input and weight. */
bool conv_wino_fits(const ConvGeom *g, const float *X, const float *W);
/* out = conv(X, W) + B (B may be NULL) by Winograd's F(2x2, 3x3). */
EpStatus conv_wino(OpCall *c, const ConvGeom *g, const float *X, const float *W, const float *B, float *O);

#endif
