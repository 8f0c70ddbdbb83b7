/*
** nn_gemm.c -- the one GEMM every matrix product of the nn family goes
** through (mm, bmm, matmul, linear, einsum, convolution, attention), with
** its two implementations: OpenBLAS and plain reference loops.  Both stay:
** the kernel tests run every case through each, and a debugger needs a
** trustworthy oracle when the fast path and the slow path disagree.
*/
#include "nn.h"

#include <cblas.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "interp/parallel.h"

/* Threads.  OpenBLAS always runs on one thread: its threaded sgemm gives
** other bits for another thread count (checked with memcmp on 0.3.21:
** 256^3, 512^3, 64x3136x576, 128x3072x768, M = 1 and N = 1 shapes all
** differ between 1 and 2 threads; only products too small for it to
** thread agree).  Instead a large GEMM is cut here into blocks of rows or
** columns whose bounds depend only on its shape, each block one
** single-threaded BLAS call, run on the kernels' pool (interp/parallel.h):
** every result is then the same for any thread count.  A single-threaded
** OpenBLAS (0.3.7 and later) may be called from several threads at once. */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

void nn_blas_set_threads(int n)
{
    ep_set_threads(n);
}

int nn_blas_threads(void)
{
    return ep_threads();
}

static void blas_one_thread(void)
{
    openblas_set_num_threads(1);
}

DType nn_gemm_type(DType t)
{
    if (t == DT_F64)
        return DT_F64;
    if (dtype_is_float(t))
        return DT_F32;
    return DT_I64;
}

/* ---- reference loops ----------------------------------------------------- */

/* C = alpha*A@B + beta*C with an accumulator row: for each row i of C the
** products are added in k order into acc[0..n), which walks B's rows (the
** usual contiguous direction) instead of its columns.  Each element is still
** one sum over p in order, in ACC precision. */
#define GEMM_REF(NAME, T, ACC, CVT_ALPHA)                                                            \
    static void NAME(int64_t m, int64_t n, int64_t k, double alpha_d, NnMat a, NnMat b, double beta_d, \
                     NnMat c, ACC *acc)                                                              \
    {                                                                                                \
        const T *A = a.data, *B = b.data;                                                            \
        T *C = c.data;                                                                               \
        const ACC alpha = CVT_ALPHA(alpha_d), beta = CVT_ALPHA(beta_d);                              \
        for (int64_t i = 0; i < m; i++) {                                                            \
            for (int64_t j = 0; j < n; j++)                                                          \
                acc[j] = 0;                                                                          \
            for (int64_t p = 0; p < k; p++) {                                                        \
                const ACC av = (ACC)A[i * a.rs + p * a.cs];                                          \
                const T *brow = B + p * b.rs;                                                        \
                for (int64_t j = 0; j < n; j++)                                                      \
                    acc[j] += av * (ACC)brow[j * b.cs];                                              \
            }                                                                                        \
            T *crow = C + i * c.rs;                                                                  \
            for (int64_t j = 0; j < n; j++) {                                                        \
                ACC r = alpha * acc[j];                                                              \
                if (beta_d != 0)                                                                     \
                    r += beta * (ACC)crow[j];                                                        \
                crow[j] = (T)r;                                                                      \
            }                                                                                        \
        }                                                                                            \
    }

#define AS_DOUBLE(x) (x)

/* integer GEMMs wrap: alpha/beta truncate like Scalar::to<int64_t>()
** (values outside int64 -- meaningless for integer tensors -- become 0
** rather than undefined behaviour) */
static uint64_t scalar_u64(double x)
{
    return (x > -9.2e18 && x < 9.2e18) ? (uint64_t)(int64_t)x : 0;
}
#define AS_U64(x) scalar_u64(x)

GEMM_REF(gemm_ref_f32, float, double, AS_DOUBLE)
GEMM_REF(gemm_ref_f64, double, double, AS_DOUBLE)
GEMM_REF(gemm_ref_i64, int64_t, uint64_t, AS_U64)

/* ---- BLAS path ------------------------------------------------------------ */

/* How BLAS can read a rows x cols matrix with element strides (rs, cs) in
** row-major terms: untransposed with leading dimension ld, transposed with
** ld, or not at all (a broadcast or otherwise strided operand). */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans, int64_t *ld)
{
    int64_t min_ld_n = cols > 1 ? cols : 1, min_ld_t = rows > 1 ? rows : 1;
    if (cols == 1 || cs == 1) {
        int64_t l = rows == 1 ? min_ld_n : rs;
        if (l >= min_ld_n && l <= INT32_MAX) {
            *trans = false;
            *ld = l;
            return true;
        }
    }
    if (rows == 1 || rs == 1) {
        int64_t l = cols == 1 ? min_ld_t : cs;
        if (l >= min_ld_t && l <= INT32_MAX) {
            *trans = true;
            *ld = l;
            return true;
        }
    }
    return false;
}

/* Contiguous copy of a strided matrix for BLAS; NULL on out of memory. */
static void *pack(DType t, int64_t rows, int64_t cols, NnMat m)
{
    size_t es = (size_t)dtype_size(t);
    char *buf = malloc((size_t)(rows * cols) * es + 1);
    if (!buf)
        return NULL;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            memcpy(buf + (size_t)(i * cols + j) * es, (char *)m.data + (size_t)(i * m.rs + j * m.cs) * es, es);
    return buf;
}

/* One BLAS GEMM resolved to BLAS's terms, and how it is cut for the pool:
** blocks of `block` rows of C (by_rows) or columns, the last one shorter. */
typedef struct BlasJob {
    DType t;
    bool ta, tb, by_rows;
    int64_t m, n, k, lda, ldb, ldc, block;
    double alpha, beta;
    const char *a, *b;
    char *c;
} BlasJob;

static void blas_call(const BlasJob *j, const char *a, const char *b, char *c, int64_t m, int64_t n)
{
    enum CBLAS_TRANSPOSE ta = j->ta ? CblasTrans : CblasNoTrans, tb = j->tb ? CblasTrans : CblasNoTrans;
    if (j->t == DT_F32)
        cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)j->k, (float)j->alpha, (const float *)a, (int)j->lda,
                    (const float *)b, (int)j->ldb, (float)j->beta, (float *)c, (int)j->ldc);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)j->k, j->alpha, (const double *)a, (int)j->lda,
                    (const double *)b, (int)j->ldb, j->beta, (double *)c, (int)j->ldc);
}

/* Blocks [begin, end) of rows or columns of C: the matching rows of op(A)
** (or columns of op(B)) start begin rows (columns) into the stored matrix. */
static void blas_block(void *ctx, int64_t begin, int64_t end)
{
    const BlasJob *j = ctx;
    const int64_t es = dtype_size(j->t);
    if (j->by_rows) {
        const char *a = j->a + (j->ta ? begin : begin * j->lda) * es;
        blas_call(j, a, j->b, j->c + begin * j->ldc * es, end - begin, j->n);
    } else {
        const char *b = j->b + (j->tb ? begin * j->ldb : begin) * es;
        blas_call(j, j->a, b, j->c + begin * es, j->m, end - begin);
    }
}

/* Multiply-adds a block should hold at least, so a block is worth a
** thread's wake-up (tens of microseconds of work), and rows or columns a
** block should hold at least, so BLAS's packing of the other operand per
** block stays a small share of its work (64-row blocks cost 512^2 mm 12 %
** more CPU time than one call; 256 a few percent). */
#define GEMM_BLOCK_WORK (INT64_C(1) << 22)
#define GEMM_BLOCK_MIN 256
/* A row (column) of the cut operand is read from memory once per call
** whatever the other side's size: with one or a few rows on the other side
** (a matrix-vector product, a linear layer at batch 1) a row costs its
** loads, not its multiply-adds, so it counts as at least this many rows'
** work.  Without it a 2048x2048 layer at batch 1 was one block, bound by
** one core's memory bandwidth, while PyTorch's OpenBLAS used both. */
#define GEMM_READ_ROWS 8

/* The block of rows (columns) for a GEMM cut along a dimension of size len
** with `other` * k multiply-adds per row: from the shape alone, never from
** the thread count, so results do not depend on it. */
static int64_t gemm_block(int64_t len, int64_t per_row)
{
    int64_t want = GEMM_BLOCK_WORK / (per_row > 0 ? per_row : 1) + 1;
    if (want < GEMM_BLOCK_MIN)
        want = GEMM_BLOCK_MIN;
    want = (want + 15) / 16 * 16; /* whole kernel tiles */
    return want < len ? want : len;
}

static EpStatus gemm_blas(DType t, int64_t m, int64_t n, int64_t k, double alpha, NnMat a, NnMat b, double beta,
                          NnMat c, EpError *err)
{
    BlasJob j = {.t = t, .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta};
    void *pa = NULL, *pb = NULL;
    if (!blas_layout(m, k, a.rs, a.cs, &j.ta, &j.lda)) {
        if (!(pa = pack(t, m, k, a)))
            return ep_fail(err, EP_ERR_EXEC, "out of memory packing a %lldx%lld matrix", (long long)m, (long long)k);
        a = (NnMat){pa, k, 1};
        j.ta = false;
        j.lda = k > 1 ? k : 1;
    }
    if (!blas_layout(k, n, b.rs, b.cs, &j.tb, &j.ldb)) {
        if (!(pb = pack(t, k, n, b))) {
            free(pa);
            return ep_fail(err, EP_ERR_EXEC, "out of memory packing a %lldx%lld matrix", (long long)k, (long long)n);
        }
        b = (NnMat){pb, n, 1};
        j.tb = false;
        j.ldb = n > 1 ? n : 1;
    }
    j.ldc = m == 1 ? (n > 1 ? n : 1) : c.rs;
    j.a = a.data;
    j.b = b.data;
    j.c = c.data;
    pthread_once(&blas_once, blas_one_thread);
    /* cut the longer side of C; a small GEMM stays one block */
    j.by_rows = m >= n;
    int64_t len = j.by_rows ? m : n;
    int64_t other = j.by_rows ? n : m;
    j.block = gemm_block(len, (other > GEMM_READ_ROWS ? other : GEMM_READ_ROWS) * k);
    ep_parallel_for(len, j.block, blas_block, &j);
    free(pa);
    free(pb);
    return EP_OK;
}

/* C = beta * C (or 0) when there is nothing to multiply (k == 0). */
static void scale_c(DType t, int64_t m, int64_t n, double beta, NnMat c)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            if (t == DT_F32) {
                float *p = (float *)c.data + i * c.rs + j;
                *p = beta == 0 ? 0.0f : (float)(beta * *p);
            } else if (t == DT_F64) {
                double *p = (double *)c.data + i * c.rs + j;
                *p = beta == 0 ? 0.0 : beta * *p;
            } else {
                int64_t *p = (int64_t *)c.data + i * c.rs + j;
                *p = beta == 0 ? 0 : (int64_t)(AS_U64(beta) * (uint64_t)*p);
            }
        }
}

EpStatus nn_gemm(bool use_blas, DType t, int64_t m, int64_t n, int64_t k, double alpha, NnMat a, NnMat b,
                 double beta, NnMat c, EpError *err)
{
    if (m <= 0 || n <= 0)
        return EP_OK;
    if (k <= 0) {
        scale_c(t, m, n, beta, c);
        return EP_OK;
    }
    /* BLAS takes int dimensions; anything bigger goes through the loops */
    bool fits = m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX && c.rs <= INT32_MAX;
    if (use_blas && t != DT_I64 && fits)
        return gemm_blas(t, m, n, k, alpha, a, b, beta, c, err);
    size_t accsz = t == DT_I64 ? sizeof(uint64_t) : sizeof(double);
    void *acc = malloc((size_t)n * accsz);
    if (!acc)
        return ep_fail(err, EP_ERR_EXEC, "out of memory for a GEMM row of %lld", (long long)n);
    if (t == DT_F32)
        gemm_ref_f32(m, n, k, alpha, a, b, beta, c, acc);
    else if (t == DT_F64)
        gemm_ref_f64(m, n, k, alpha, a, b, beta, c, acc);
    else
        gemm_ref_i64(m, n, k, alpha, a, b, beta, c, acc);
    free(acc);
    return EP_OK;
}

/* ---- batched matmul over tensors ----------------------------------------- */

/* Per-batch-dim strides (elements) of operand t aligned to the batch shape
** bshape[nb]: missing and size-1 dims get 0. */
static void batch_strides(const Tensor *t, int nb, const int64_t *bshape, int64_t *st)
{
    int tb = t->ndim - 2; /* t's own batch dims */
    for (int i = 0; i < nb; i++) {
        int ti = tb - nb + i;
        st[i] = (ti >= 0 && t->sizes[ti] == bshape[i] && bshape[i] != 1) ? t->strides[ti] : 0;
    }
}

/* Whether dims (bshape[0..nb), m) with strides (st[0..nb), rs) of A walk
** rows at one uniform stride rs, so the whole batch is one tall matrix. */
static bool rows_fold(int nb, const int64_t *bshape, const int64_t *st, int64_t m, int64_t rs)
{
    int64_t expect = rs * m;
    for (int i = nb - 1; i >= 0; i--) {
        if (bshape[i] == 1)
            continue;
        if (st[i] != expect)
            return false;
        expect *= bshape[i];
    }
    return true;
}

/* The products of a batch that does not fold into one GEMM: product bi
** reads A and B at the offsets of its batch index. */
typedef struct BatchJob {
    bool use_blas;
    DType ct;
    int nb;
    const int64_t *bshape, *sa, *sb;
    int64_t m, n, k;
    NnMat a, b;
    char *c;
    double alpha, beta;
    atomic_int failed; /* set once, by the first product that fails ... */
    EpError err;       /* ... which alone writes its message here */
} BatchJob;

static void batch_items(void *ctx, int64_t begin, int64_t end)
{
    BatchJob *j = ctx;
    const int es = dtype_size(j->ct);
    for (int64_t bi = begin; bi < end; bi++) {
        int64_t oa = 0, ob = 0, rest = bi;
        for (int i = j->nb - 1; i >= 0; i--) {
            int64_t idx = rest % j->bshape[i];
            rest /= j->bshape[i];
            oa += idx * j->sa[i];
            ob += idx * j->sb[i];
        }
        NnMat ma = {(char *)j->a.data + oa * es, j->a.rs, j->a.cs}, mb = {(char *)j->b.data + ob * es, j->b.rs, j->b.cs};
        NnMat mc = {j->c + bi * j->m * j->n * es, j->n, 1};
        EpError err = {0};
        if (nn_gemm(j->use_blas, j->ct, j->m, j->n, j->k, j->alpha, ma, mb, j->beta, mc, &err) &&
            atomic_exchange(&j->failed, 1) == 0)
            j->err = err;
    }
}

EpStatus nn_bmm_into(OpCall *c, Tensor *out, Tensor *a, Tensor *b, double alpha, double beta)
{
    const DType ct = nn_gemm_type(out->dtype);
    const int nb = out->ndim - 2;
    const int64_t m = out->sizes[out->ndim - 2], n = out->sizes[out->ndim - 1];
    const int64_t k = a->sizes[a->ndim - 1];
    const int64_t *bshape = out->sizes;
    EpStatus rc = EP_OK;
    Tensor *A = NULL, *B = NULL, *C = NULL;
    if (tensor_numel(out) == 0)
        return EP_OK;
    /* operands in the compute type; strided views are fine for both paths */
    A = a->dtype == ct ? tensor_ref(a) : tensor_to_dtype(a, ct, c->err);
    B = b->dtype == ct ? tensor_ref(b) : tensor_to_dtype(b, ct, c->err);
    if (!A || !B) {
        rc = EP_ERR_EXEC;
        goto out;
    }
    if (out->dtype == ct) {
        C = tensor_ref(out);
    } else {
        C = beta != 0 ? tensor_to_dtype(out, ct, c->err) : tensor_empty(ct, out->ndim, out->sizes, c->err);
        if (!C) {
            rc = EP_ERR_EXEC;
            goto out;
        }
    }
    int64_t sa[EP_MAX_DIMS], sb[EP_MAX_DIMS];
    batch_strides(A, nb, bshape, sa);
    batch_strides(B, nb, bshape, sb);
    char *pa = tensor_data(A), *pb = tensor_data(B), *pc = tensor_data(C);
    const int64_t a_rs = A->strides[A->ndim - 2], a_cs = A->strides[A->ndim - 1];
    const int64_t b_rs = B->strides[B->ndim - 2], b_cs = B->strides[B->ndim - 1];
    int64_t nbatch = shape_numel(nb, bshape);
    bool b_shared = true;
    for (int i = 0; i < nb; i++)
        if (sb[i] != 0)
            b_shared = false;
    /* A shared right operand (linear on a 3-D input, conv weights) makes the
    ** whole batch one tall GEMM, which BLAS runs much faster than many
    ** small ones; the sums are the same. */
    if (nbatch > 1 && b_shared && rows_fold(nb, bshape, sa, m, a_rs)) {
        NnMat ma = {pa, a_rs, a_cs}, mb = {pb, b_rs, b_cs}, mc = {pc, n, 1};
        rc = nn_gemm(c->cfg->use_blas, ct, m * nbatch, n, k, alpha, ma, mb, beta, mc, c->err);
    } else {
        BatchJob j = {.use_blas = c->cfg->use_blas, .ct = ct, .nb = nb, .bshape = bshape, .sa = sa, .sb = sb,
                      .m = m, .n = n, .k = k, .a = {pa, a_rs, a_cs}, .b = {pb, b_rs, b_cs}, .c = pc,
                      .alpha = alpha, .beta = beta};
        atomic_init(&j.failed, 0);
        /* small products several to a chunk of the pool, big ones one to a
        ** chunk; the reference loops one after the other */
        int64_t work = m * n * k;
        int64_t grain = !j.use_blas ? nbatch : GEMM_BLOCK_WORK / (work > 0 ? work : 1) + 1;
        ep_parallel_for(nbatch, grain, batch_items, &j);
        if (atomic_load(&j.failed)) {
            *c->err = j.err;
            rc = j.err.code ? j.err.code : EP_ERR_EXEC;
        }
    }
    if (rc == EP_OK && C != out)
        rc = tensor_copy_into(out, C, c->err);
out:
    tensor_unref(A);
    tensor_unref(B);
    tensor_unref(C);
    return rc;
}
