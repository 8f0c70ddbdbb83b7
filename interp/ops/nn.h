/*
** nn.h -- private helpers shared by the nn family (interp/ops/nn_*.c):
** the GEMM core both paths go through, batched matmul over Tensors, and
** small argument / shape utilities.
**
** Numerics, once for the whole family: float16 and bfloat16 are computed in
** float32 and rounded once at the end of each op (PyTorch's "opmath");
** float32 GEMMs go through cblas_sgemm on the BLAS path and accumulate in
** double on the reference path; everything else (pooling, normalisation,
** attention softmax, resampling) computes in double and rounds to the output
** type once, which stays within an ulp or two of PyTorch's float kernels.
*/
#ifndef EP_OPS_NN_H
#define EP_OPS_NN_H

#include "kernel.h"

/* ---- GEMM core (nn_gemm.c) ---------------------------------------------- */

/* A strided matrix inside a buffer of the GEMM's compute type: element
** (i, j) is at data[i * rs + j * cs] (strides in elements). */
typedef struct NnMat {
    void *data;
    int64_t rs, cs;
} NnMat;

/* The type a GEMM on dtype t computes in: float32 for float16 / bfloat16 /
** float32, float64 for float64, int64 (wrapping) for integers and bool. */
DType nn_gemm_type(DType t);

/* C = alpha * A @ B + beta * C on raw buffers of type t (DT_F32, DT_F64 or
** DT_I64), A m x k, B k x n, C m x n with column stride 1.  beta == 0 means
** C is only written (NaN already in C does not leak through, as in BLAS).
** With use_blas, float GEMMs go to OpenBLAS (operands whose strides BLAS
** cannot express are copied first); otherwise plain loops accumulate in
** double (float types) or wrap in uint64 (integers; alpha and beta
** truncated to integers, as PyTorch's Scalar.to<int>()).  Fails only when a
** temporary cannot be allocated. */
EpStatus nn_gemm(bool use_blas, DType t, int64_t m, int64_t n, int64_t k, double alpha, NnMat a, NnMat b,
                 double beta, NnMat c, EpError *err);

/* out = alpha * (a @ b) + beta * out, batched.  a is [..., m, k] and b is
** [..., k, n] (both at least 2-D, any strides); out is a CONTIGUOUS tensor
** [batch..., m, n] whose batch dims are a's and b's batch dims broadcast
** (the caller has checked that they broadcast and that the k's agree).  a,
** b and out share one dtype, which must not be bool (callers refuse it with
** PyTorch's message).  beta == 0 does not read out.  Uses the BLAS path when
** c->cfg->use_blas.  Borrowed arguments; on failure out's contents are
** unspecified. */
EpStatus nn_bmm_into(OpCall *c, Tensor *out, Tensor *a, Tensor *b, double alpha, double beta);

/* The kernels' thread count (ep_set_threads / ep_threads): GEMMs are cut
** into blocks fixed by their shape and run on the pool, OpenBLAS itself on
** one thread (nn_gemm.c says why). */
void nn_blas_set_threads(int n);
int nn_blas_threads(void);

/* ---- small helpers (nn_util.c) ------------------------------------------ */



/* "[2, 3]" of a tensor, in a rotating static buffer (up to 4 live at once,
** for messages only). */
const char *nn_shape(const Tensor *t);

/* New tensor with t's storage and geometry (an alias that is not the same
** Tensor object), for ops that return their input unchanged. */
Tensor *nn_alias(OpCall *c, Tensor *t);

/* t viewed with a different shape; t must be contiguous (a view, new
** reference). */
Tensor *nn_reshape_contig(OpCall *c, Tensor *t, int ndim, const int64_t *sizes);

/* t with a size-1 dim inserted at d / removed at d (views, new reference). */
Tensor *nn_unsqueeze(OpCall *c, Tensor *t, int d);
Tensor *nn_squeeze(OpCall *c, Tensor *t, int d);

/* Contiguous float64 copy (or t itself when already so), for the kernels
** that compute in double; NULL with c->err set on failure. */
Tensor *nn_f64(OpCall *c, Tensor *t);

/* A new tensor of dtype holding src's values (src is float64 scratch);
** steals src. */
Tensor *nn_from_f64(OpCall *c, Tensor *src, DType dtype);

/* Store t (stolen) as output k, or fail with "out of memory" style error
** already recorded when t is NULL. */
EpStatus nn_out(OpCall *c, int k, Tensor *t);

#endif
