/*
** reduce.h -- helpers shared by the reduction, scan, sort and softmax
** kernels (interp/ops/reduce*.c); private to that family.
**
** Every kernel of the family works on "rows": the input is gathered into a
** contiguous buffer whose kept dimensions come first and whose folded (or
** scanned, or sorted) dimensions come last, so each result element owns one
** contiguous run of `rowlen` inputs.  That costs one copy when the folded
** dimensions are not already innermost, and buys kernels that are plain
** loops over a pointer, written once per compute type.
**
** Compute types: integers and bools are gathered as int64, float16,
** bfloat16 and float32 as float (PyTorch's "opmath" for the reduced float
** types), float64 as double.  The macros that stamp the typed loops take
** the element type as an identifier (int64_t, float, double).
*/
#ifndef EP_OPS_REDUCE_H
#define EP_OPS_REDUCE_H

#include "kernel.h"

/* Which dimensions of an input a reduction folds, and the result shape. */
typedef struct ReducePlan {
    int ndim;                       /* rank of the input */
    bool reduced[EP_MAX_DIMS];      /* dims folded away */
    bool all;                       /* no dims named: fold everything */
    int out_ndim;                   /* rank of the result */
    int64_t out_sizes[EP_MAX_DIMS]; /* result shape, keepdim honoured */
    int64_t nrows;                  /* result elements */
    int64_t rowlen;                 /* inputs folded into each of them */
} ReducePlan;

/* Plan a reduction of t over dims[0 .. ndims-1] (negative dims allowed; a
** 0-d tensor accepts 0 and -1).  ndims == 0 folds every dim, as PyTorch's
** dim=None and dim=[] do.  Fails with PyTorch's messages on a dim out of
** range or named twice. */
EpStatus reduce_plan(OpCall *c, const Tensor *t, const int64_t *dims, int ndims, bool keepdim,
                     ReducePlan *p);

/* reduce_plan with the dims taken from argument `arg` of the call, which
** may be an int, an int list, or None (every dim); arg < 0 (an overload
** without a dim argument) also folds every dim. */
EpStatus reduce_plan_arg(OpCall *c, const Tensor *t, int arg, bool keepdim, ReducePlan *p);

/* The folds PyTorch refuses on empty inputs (max, amax, argmax, mode ...):
** with nothing named, an empty input has no reduction dim; a named dim of
** size zero has no identity.  fn is PyTorch's name for the message. */
EpStatus reduce_check_nonempty(OpCall *c, const Tensor *t, const ReducePlan *p, const char *fn,
                               bool long_hint);

/* t gathered as p->nrows contiguous rows of p->rowlen elements of dtype
** (kept dims first, then folded dims, each group in order).  Returns a new
** reference; no copy when t already has that layout and dtype.  NULL with
** err set when memory runs out. */
Tensor *reduce_rows(Tensor *t, const ReducePlan *p, DType dtype, EpError *err);

/* The inverse of reduce_rows for results with one element per input (scans,
** sorts, softmax): write rows, laid out as reduce_rows gives for a plan
** folding dim d of dst (with dst->sizes[d] elements per row), into dst,
** converting dtype.  rows is borrowed; dst is written in place. */
EpStatus reduce_unrows(Tensor *dst, int d, Tensor *rows, EpError *err);

/* A plan that moves the single dim d last (keepdim), for kernels that work
** along one dimension; d must already be wrapped. */
void reduce_plan_one(const Tensor *t, int d, ReducePlan *p);

/* Wrap dim for a tensor of rank ndim (0-d tensors take 0 and -1) with
** PyTorch's "Dimension out of range" message on failure. */
EpStatus reduce_wrap_dim(OpCall *c, int64_t dim, int ndim, int *out);

/* The end of a fold: res (stolen; one value per result element, in a
** compute type) converted to dtype and stored as output k.  Fails only when
** memory runs out. */
EpStatus reduce_out(OpCall *c, int k, Tensor *res, DType dtype);

/* The compute type of a dtype: int64, float (f16/bf16/f32) or double. */
DType reduce_compute_dtype(DType t);

/* Sum of x[0 .. n-1] in double, pairwise so that long float64 rows stay
** accurate; skip_nan leaves NaNs out (nansum). */
double reduce_sum_float(const float *x, int64_t n, bool skip_nan);
double reduce_sum_double(const double *x, int64_t n, bool skip_nan);

/* v rounded to the precision of dtype t (identity for non-float types):
** where PyTorch computes in float16/bfloat16 step by step (products,
** logsumexp) epdbg rounds each step the same way. */
double reduce_round_to(DType t, double v);


/* NaN tests for the loops stamped per compute type (REDUCE_ISNAN(T, v)):
** spelled as functions so that integer instances compile to nothing
** instead of a self-comparison the compiler warns about. */
static inline bool reduce_isnan_int64_t(int64_t v) { (void)v; return false; }
static inline bool reduce_isnan_float(float v) { return v != v; }
static inline bool reduce_isnan_double(double v) { return v != v; }
#define REDUCE_ISNAN(T, v) reduce_isnan_##T(v)

#endif
