/*
** shape_int.h -- helpers shared by the shape family (shape_*.c: views,
** copies, joins) and the factories (factory*.c).  Private to those files.
**
** Every helper that can fail takes the OpCall so that its message names the
** operator (op_fail); a helper returning Tensor* returns NULL with c->err
** set, and a NEW reference otherwise.  Tensor arguments are borrowed.
*/
#ifndef EP_SHAPE_INT_H
#define EP_SHAPE_INT_H

#include "kernel.h"

/* Most pieces a split may produce: the list is allocated up front, and an
** expanded tensor can have a dim far longer than memory could hold. */
#define SHAPE_MAX_PIECES ((int64_t)1 << 24)

/* ---- arguments ----------------------------------------------------------- */

/* Store r as output 0; r == NULL means the helper that made it failed. */
static inline EpStatus shape_out(OpCall *c, Tensor *r)
{
    if (!r)
        return c->err->code != EP_OK ? c->err->code : EP_ERR_EXEC;
    out_tensor(c, 0, r);
    return EP_OK;
}

/* maybe_wrap_dim with wrap_scalar: a 0-d tensor accepts 0 and -1.  Fails
** with PyTorch's "Dimension out of range" message. */
EpStatus shape_wrap_dim(OpCall *c, int64_t dim, int ndim, int *out);

/* Read int-list argument i into out (room for max).  Returns its length, or
** -1 after op_fail when it is None or longer than max. */
int shape_int_list_arg(OpCall *c, int i, int64_t *out, int max);
/* A size list (argument i) and a stride list (argument i + 1) of the same
** length, each with room for EP_MAX_DIMS.  Returns the length, or -1 after
** op_fail. */
int shape_size_stride_args(OpCall *c, int i, int64_t *size, int64_t *stride);

/* A Layout argument: None or torch.strided pass; sparse, mkldnn and unknown
** layouts fail naming the layout as torch prints it. */
EpStatus shape_check_layout(OpCall *c, int i);

/* Whether the Python number v fits dtype as c10's checked_convert demands
** (fill_, full, scalar_tensor): integers in range (unsigned types also take
** negatives down to -max, which wrap), floats within the finite range or
** infinite; anything goes to bool.  Fails with PyTorch's "value cannot be
** converted to type ... without overflow". */
EpStatus shape_check_scalar_fits(OpCall *c, DType dtype, const Value *v);

/* Write the Python number v into every element of t (t's geometry, any
** strides), after shape_check_scalar_fits.  t must be writable. */
EpStatus shape_fill(OpCall *c, Tensor *t, const Value *v);

/* ---- geometry ------------------------------------------------------------ */

/* PyTorch's infer_size: resolve one -1 in proposed[0..n-1] for numel
** elements into out.  Fails with PyTorch's messages. */
EpStatus shape_infer_size(OpCall *c, int n, const int64_t *proposed, int64_t numel, int64_t *out);

/* computeStride: strides that let (nn, nsizes) view memory laid out as
** (on, osizes, ostrides) without copying.  False when no such strides exist
** (a dimension of the view spans two non-contiguous chunks). */
bool shape_compute_stride(int on, const int64_t *osizes, const int64_t *ostrides, int nn, const int64_t *nsizes,
                          int64_t *nstrides);

/* TensorImpl::is_non_overlapping_and_dense. */
bool shape_non_overlapping_and_dense(int ndim, const int64_t *sizes, const int64_t *strides);
/* A stride-0 dimension of size > 1: several elements share one address. */
bool shape_has_internal_overlap(const Tensor *t);
/* infer_dense_strides: dense strides that keep the order of t's strides. */
void shape_infer_dense_strides(int ndim, const int64_t *sizes, const int64_t *strides, int64_t *out);
/* Tensor.suggest_memory_format(): MF_CHANNELS_LAST(_3D) when the strides
** look so, else MF_CONTIGUOUS. */
int shape_suggest_memory_format(const Tensor *t);
/* Tensor.is_contiguous(memory_format) for MF_CONTIGUOUS / channels-last. */
bool shape_is_contiguous_as(const Tensor *t, int memfmt);
/* Strides of a fresh tensor in memory format memfmt (not MF_PRESERVE);
** fails for channels-last formats of the wrong rank. */
EpStatus shape_format_strides(OpCall *c, int memfmt, int ndim, const int64_t *sizes, int64_t *strides);

/* Sizes a tensor may have: none negative, and the product of the sizes
** (zero sizes counted as 1, as contiguous strides multiply them) at most
** 2^60, so strides in bytes fit an int64.  Fails with PyTorch's "negative dimension" or an overflow
** message. */
EpStatus shape_check_sizes(OpCall *c, int ndim, const int64_t *sizes);

/* Strides an as_strided-style geometry may have: none negative (PyTorch
** refuses those) and none above 2^60, so byte strides fit an int64 even
** where a zero or one size leaves them unchecked by the storage bounds. */
EpStatus shape_check_strides(OpCall *c, int ndim, const int64_t *strides);

/* ---- allocation ---------------------------------------------------------- */

/* A new contiguous tensor of sizes (checked); zeroed when zero is set. */
Tensor *shape_new_contiguous(OpCall *c, DType dtype, int ndim, const int64_t *sizes, bool zero);

/* A new tensor with exactly this geometry over a fresh storage just large
** enough for it; zeroed when zero is set.  Strides must be >= 0. */
Tensor *shape_new_strided(OpCall *c, DType dtype, int ndim, const int64_t *sizes, const int64_t *strides, bool zero);
/* empty_like(t, dtype, memory_format): MF_PRESERVE keeps t's strides when
** they are dense, else orders dense strides like t's. */
Tensor *shape_new_like(OpCall *c, const Tensor *t, DType dtype, int memfmt, bool zero);
/* _to_copy / clone: a new tensor laid out as shape_new_like says, holding
** t's values converted to dtype. */
Tensor *shape_copy_as(OpCall *c, Tensor *t, DType dtype, int memfmt);
/* Copy src into dst (same dtype and shape, separate storages) by rows of
** memcpy or by tiles of a transposing copy, in parallel when large (a copy
** gives the same bits on any thread count); false, having done nothing,
** when the layouts fit neither or under ew_set_reference_path, so the
** caller copies through tensor_copy_into (shape_copy.c). */
bool shape_copy_dense(Tensor *dst, const Tensor *src);
/* clone_preserve_strides: a private copy of the memory t addresses, with
** t's sizes and strides (the *_scatter ops and copy write into it).  An
** expanded t (internal overlap) is cloned densely instead.  whole_storage
** copies t's entire storage and keeps its offset, which as_strided_scatter
** needs because its geometry is relative to the storage. */
Tensor *shape_clone_preserve_strides(OpCall *c, Tensor *t, bool whole_storage);

/* ---- views (all share t's storage) --------------------------------------- */

/* Products and sums of view geometry wrap instead of overflowing: they can
** only exceed int64 for empty tensors with absurd strides, whose strides
** address nothing (shape_make_view then tames them). */
static inline int64_t shape_wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline int64_t shape_wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* A view of t's storage read as dtype with this geometry (bounds checked).
** In an empty view, strides beyond +-2^60 and an offset beyond 2^60 become
** 0 so that later byte offsets and strides stay in range. */
Tensor *shape_make_view(OpCall *c, const Tensor *t, DType dtype, int ndim, const int64_t *sizes,
                        const int64_t *strides, int64_t offset);

Tensor *shape_alias(OpCall *c, Tensor *t);
/* aten::view: sizes may hold one -1; fails when strides do not allow it. */
Tensor *shape_view(OpCall *c, Tensor *t, int n, const int64_t *sizes);
/* aten::reshape: a view when computeStride allows one, else a contiguous
** copy with the new shape. */
Tensor *shape_reshape(OpCall *c, Tensor *t, int n, const int64_t *sizes);
/* aten::slice.Tensor with Python bounds (clamped); start/end NULL = None. */
Tensor *shape_slice(OpCall *c, Tensor *t, int64_t dim, const int64_t *start, const int64_t *end, int64_t step);
Tensor *shape_select(OpCall *c, Tensor *t, int64_t dim, int64_t index);
Tensor *shape_narrow(OpCall *c, Tensor *t, int64_t dim, int64_t start, int64_t length);
Tensor *shape_unsqueeze(OpCall *c, Tensor *t, int64_t dim);
Tensor *shape_transpose(OpCall *c, Tensor *t, int64_t dim0, int64_t dim1);
Tensor *shape_permute(OpCall *c, Tensor *t, int n, const int64_t *dims);
/* aten::expand (sizes may hold -1 and new leading dims). */
Tensor *shape_expand(OpCall *c, Tensor *t, int n, const int64_t *sizes);
Tensor *shape_diagonal(OpCall *c, Tensor *t, int64_t offset, int64_t dim1, int64_t dim2);

/* ---- joins --------------------------------------------------------------- */

/* aten::cat over ts[0..n-1] with type promotion (legacy empty 1-D inputs
** skipped). */
Tensor *shape_cat(OpCall *c, int n, Tensor *const *ts, int64_t dim);
/* aten::flip over the wrapped dims dims[0..n-1]. */
Tensor *shape_flip(OpCall *c, Tensor *t, int n, const int64_t *dims);

#endif
