/*
** index.h -- helpers shared by the indexing family (interp/ops/index*.c):
** index dtypes, one-element typed combining, Scalar conversion with c10's
** overflow rules, memory-overlap checks, clones and sort keys.
**
** Private to interp/ops/index*.c.
*/
#ifndef EP_OPS_INDEX_H
#define EP_OPS_INDEX_H

#include "kernel.h"

/* ---- dtypes and messages --------------------------------------------- */


/* True for the integer dtypes ATen accepts as indices (int32, int64). */
static inline bool index_dtype_ok(DType t) { return t == DT_I64 || t == DT_I32; }

/* An index tensor as a contiguous int64 tensor in logical order: t itself
** (new reference) when it already is, else a converted copy.  NULL with err
** set when memory runs out. */
Tensor *index_as_i64(Tensor *t, EpError *err);

/* ---- small shared steps -------------------------------------------------- */

/* Wrap dim for a tensor of rank ndim (a 0-d tensor takes 0 and -1), or fail
** with PyTorch's "IndexError: Dimension out of range" message. */
EpStatus index_wrap_dim(OpCall *c, int64_t dim, int ndim, int *out);

/* t seen with at least one dim (ATen's ensure_nonempty_dim/size): t itself
** (new reference), or a 0-d t as [1].  NULL with err set on failure. */
Tensor *index_at_least_1d(Tensor *t, EpError *err);

/* The ending of a kernel with one result: out (stolen; may be NULL when rc
** is a failure) becomes output 0 when rc is EP_OK and is dropped otherwise.
** Returns rc. */
static inline EpStatus index_out(OpCall *c, EpStatus rc, Tensor *out)
{
    if (rc) {
        tensor_unref(out);
        return rc;
    }
    out_tensor(c, 0, out);
    return EP_OK;
}

/* ---- one-element combining --------------------------------------------- */

typedef enum IndexReduce {
    IRED_ASSIGN, /* dst = src */
    IRED_SUM,    /* dst += src (bool: or) */
    IRED_PROD,   /* dst *= src (bool: and) */
    IRED_MEAN,   /* accumulates like SUM; the caller divides afterwards */
    IRED_AMAX,   /* dst = max(dst, src), a NaN src or dst sticks */
    IRED_AMIN,
} IndexReduce;

typedef void (*IndexCombineFn)(char *dst, const char *src, IndexReduce op);

/* The combining function for elements of dtype t.  Integers wrap, float16
** and bfloat16 compute in float32 and round the result (as c10's operators
** on Half do), so repeated combining rounds after every step as PyTorch's
** serial CPU loops do. */
IndexCombineFn index_combine_fn(DType t);

/* The identity PyTorch initialises a reduction slot with when include_self
** is false: 0 (sum, mean), 1 (prod), -inf or the lowest value (amax), +inf
** or the largest value (amin).  Writes one element of dtype t. */
void index_reduce_identity(DType t, IndexReduce op, void *out);

/* dst /= count for a MEAN slot: true division for floats, floor division
** for integers (count > 0). */
void index_div_count(DType t, char *dst, int64_t count);

/* The end of a "mean" reduction into the contiguous dst: each element i
** that received counts[i] > 0 contributions is divided by that count, plus
** one when include_self (self's own value is part of the sum). */
void index_divide_counts(Tensor *dst, const int64_t *counts, bool include_self);

/* ---- loops along one dim (scatter/gather, index_select/index_add ...) ---- */

/* What the loops below do with each index.  The element an index picks is
** idx * stride_bytes away from the loop's pointer into the indexed operand,
** whose stride along the dim the caller has set to 0. */
typedef struct IndexAlong {
    int es;                 /* element size in bytes */
    int64_t size;           /* length of the indexed dim */
    int64_t stride_bytes;   /* its stride in the indexed operand, in bytes */
    bool wrap_negative;     /* an index in [-size, 0) counts from the end */
    const char *value;      /* index_put_loop: this element instead of src */
    IndexCombineFn combine; /* index_put_loop: dst = dst op src; NULL: dst = src */
    IndexReduce op;
    bool add_scaled;        /* index_put_loop: dst += alpha * src (index_add) in
                            ** dtype's arithmetic: floats in double, rounded
                            ** once (and the product first with round_product),
                            ** integers wrapping */
    DType dtype;
    double alpha_f;         /* alpha for floating dtypes */
    int64_t alpha_i;        /* alpha for integral dtypes */
    bool round_product;
    int64_t *counts;        /* when set: hits per element of the written
                            ** tensor, by element offset from count_base */
    char *count_base;
    bool bad;               /* an index was out of range: the loop stopped */
    int64_t bad_value;      /* that index, as given */
} IndexAlong;

/* TensorIter loops (iter_run) with an IndexAlong as context.
**   index_gather_loop: data = {dst, src pinned along dim, index}:
**     dst = src[index]
**   index_put_loop: data = {dst pinned along dim, index[, src]}:
**     dst[index] = src or value, or combined with them as the context says
** index is int64; the loops stop at the first index out of range. */
void index_gather_loop(char **data, const int64_t *stride, int64_t n, void *ctx);
void index_put_loop(char **data, const int64_t *stride, int64_t n, void *ctx);

/* iter_run(it, loop, s), in chunks over the pool when it is large: each
** chunk with its own copy of s, chunks cut only where they write disjoint
** elements of written (operand 0, which must not overlap itself, else the
** loop runs here), so the result is the serial loop's for any thread
** count.  An index out of range is reported in s as the serial loop would:
** the first one met. */
void index_run(const TensorIter *it, IterLoop loop, IndexAlong *s, const Tensor *written);

/* ---- Scalars ------------------------------------------------------------ */

/* Store the Python number v (V_INT, V_FLOAT or V_BOOL) as one element of
** dtype t, refusing values c10's checked_convert refuses ("value cannot be
** converted to type int8_t without overflow"). */
EpStatus index_scalar_to(OpCall *c, const Value *v, DType t, void *out);

/* A one-element tensor's value as a Python number (Tensor.item()). */
Value index_item(const Tensor *t);

/* ---- memory overlap (ATen's assert_no_overlap family) --------------------- */

/* Fails like PyTorch when the tensor written and a tensor read share
** memory that PyTorch can prove overlaps. */
EpStatus index_check_no_overlap(OpCall *c, const Tensor *written, const Tensor *read);
/* Fails when several elements of t are one memory location (an expanded
** tensor) and the op is about to write into it. */
EpStatus index_check_no_internal_overlap(OpCall *c, const Tensor *t);
bool index_non_overlapping_and_dense(const Tensor *t);

/* ---- copies ------------------------------------------------------------- */

/* clone(memory_format=preserve): a private copy with t's strides when t is
** dense, else contiguous.  NULL with err set on failure. */
Tensor *index_clone_preserve(Tensor *t, EpError *err);
/* A private contiguous copy (clone(memory_format=contiguous)). */
Tensor *index_clone_contiguous(Tensor *t, EpError *err);
/* What an op with an in-place form writes into: for the out-of-place form
** a contiguous copy of self (ATen's structured kernels allocate a fresh
** contiguous output); in place self itself (new reference), made writable
** after PyTorch's overlap checks against index and source (may be NULL).
** NULL with c->err set on failure. */
Tensor *index_result_for(OpCall *c, bool inplace, Tensor *self, Tensor *index, Tensor *source);
/* What an op writing into out reads source from: source itself (new
** reference), or a private contiguous copy when the two share storage in a
** way the overlap checks could not rule out, so that the writes cannot
** change what is read.  NULL with err set on failure. */
Tensor *index_source_copy(Tensor *out, Tensor *source, EpError *err);

/* Copy one element of es bytes. */
static inline void index_copy_elem(char *dst, const char *src, int es)
{
    switch (es) {
    case 1: *dst = *src; break;
    case 2: __builtin_memcpy(dst, src, 2); break;
    case 4: __builtin_memcpy(dst, src, 4); break;
    default: __builtin_memcpy(dst, src, 8); break;
    }
}

/* Whether the element at p is nonzero: any bit set other than a float's
** sign bit (so -0.0 is zero and NaN is not). */
bool index_elem_nonzero(DType t, const char *p);

/* nonzero(t): int64 [n, t->ndim] coordinates of the nonzero elements in
** row-major order.  col_major gives PyTorch's default Fortran-order strides
** (1, n); otherwise the result is contiguous. */
Tensor *index_nonzero(Tensor *t, bool col_major, EpError *err);

/* ---- sort keys ------------------------------------------------------------- */

/* Elements reduced to something C compares like PyTorch compares them:
** integers (and bool) as int64, floating types as double (exact for every
** float dtype).  NaN sorts after everything, as torch.sort puts it. */
typedef struct IndexKeys {
    bool is_float;
    int64_t n;
    int64_t *i; /* is_float == false */
    double *f;  /* is_float == true */
} IndexKeys;

/* Keys of t's elements in logical order (t converted to dtype first when
** dtype is not DT_INVALID).  Fails only when memory runs out. */
EpStatus index_keys_init(IndexKeys *k, Tensor *t, DType dtype, EpError *err);
void index_keys_done(IndexKeys *k);
/* -1, 0, 1 ordering keys a and b with NaN last (NaN == NaN here). */
int index_keys_cmp(const IndexKeys *k, int64_t a, int64_t b);
/* Equality as the == operator says (NaN != NaN). */
bool index_keys_equal(const IndexKeys *k, int64_t a, int64_t b);
/* Stable ascending sort of order[0..n-1] (positions into k) by key. */
void index_keys_sort(const IndexKeys *k, int64_t *order, int64_t n);

/* Stable merge sort of order[0..n-1] by cmp(ctx, a, b) (<0, 0, >0).  Falls
** back to an insertion sort (slow, still correct) when memory runs out. */
typedef int (*IndexCmpFn)(const void *ctx, int64_t a, int64_t b);
void index_sort(int64_t *order, int64_t n, IndexCmpFn cmp, const void *ctx);
/* Store key j into element p of dtype t. */
void index_keys_store(const IndexKeys *k, int64_t j, DType t, void *p);

#endif
