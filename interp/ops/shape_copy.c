/*
** shape_copy.c -- operators that copy: clone, contiguous, _to_copy and the
** to() family, copy / copy_, and the functional scatters that write a
** source into a view of a copy (slice_scatter, select_scatter,
** diagonal_scatter, as_strided_scatter) plus their backward twins.
**
** Layouts follow PyTorch (TensorFactories.cpp, TensorConversions.cpp,
** Copy.cpp, TensorShape.cpp) because later views depend on them: clone
** and _to_copy keep dense strides, the scatters keep self's strides.
*/
#include "shape_int.h"

#include <string.h>

#include "elementwise.h"
#include "interp/parallel.h"

/* ---- the dense copy fast path ---------------------------------------------- */

/* Elements per parallel chunk: a copy this small runs on the calling
** thread.  A copy gives the same bits whoever does it, so the chunks only
** need to write disjoint parts. */
#define COPY_GRAIN 65536
/* Side of the square tiles of a transposing copy: 32 x 8 bytes fit L1. */
#define COPY_TILE 32

/* A same-dtype copy after the iterator merged what it could: dim `last`
** is contiguous in dst; rows (b < 0) when it is contiguous in src too,
** else a transposing copy between dims b and last, src contiguous along b.
** An item is one row, or COPY_TILE rows of dim b (a strip of tiles). */
typedef struct DenseCopy {
    int ndim, es, last, b;
    int64_t shape[EP_MAX_DIMS];
    int64_t ds[EP_MAX_DIMS], ss[EP_MAX_DIMS]; /* bytes */
    char *dst;
    const char *src;
} DenseCopy;

/* n elements of width es from src (stride sstride bytes) to dst (stride
** dstride bytes), typed by width: a memcpy call per element costs more. */
static void copy_strided(int es, char *dst, int64_t dstride, const char *src, int64_t sstride, int64_t n)
{
    switch (es) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            *(uint8_t *)(dst + i * dstride) = *(const uint8_t *)(src + i * sstride);
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            *(uint16_t *)(dst + i * dstride) = *(const uint16_t *)(src + i * sstride);
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            *(uint32_t *)(dst + i * dstride) = *(const uint32_t *)(src + i * sstride);
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            *(uint64_t *)(dst + i * dstride) = *(const uint64_t *)(src + i * sstride);
        break;
    }
}

/* Items [begin, end): the index over the dims other than last (and b)
** walks like an odometer, dim b's strip number fastest. */
static void dense_copy_chunk(void *ctx, int64_t begin, int64_t end)
{
    const DenseCopy *d = ctx;
    const int last = d->last, b = d->b;
    const int64_t strips = b < 0 ? 1 : (d->shape[b] + COPY_TILE - 1) / COPY_TILE;
    int64_t idx[EP_MAX_DIMS] = {0};
    int64_t rest = begin / strips, strip = begin % strips;
    for (int i = last - 1; i >= 0; i--)
        if (i != b) {
            idx[i] = rest % d->shape[i];
            rest /= d->shape[i];
        }
    const int64_t n = d->shape[last];
    for (int64_t item = begin; item < end; item++) {
        char *dp = d->dst;
        const char *sp = d->src;
        for (int i = 0; i < last; i++)
            if (i != b) {
                dp += idx[i] * d->ds[i];
                sp += idx[i] * d->ss[i];
            }
        if (b < 0) {
            ew_copy_bytes(dp, sp, (size_t)(n * d->es));
        } else {
            /* Tile by tile through buf: the source's columns are read
            ** contiguously into buf's rows, then the destination's rows
            ** are written contiguously from buf's columns.  Going straight
            ** from one to the other would touch COPY_TILE lines a large
            ** power of two apart, which share one L1 set and evict each
            ** other. */
            uint64_t buf[COPY_TILE * COPY_TILE];
            const int es = d->es;
            int64_t r0 = strip * COPY_TILE, rn = d->shape[b] - r0 < COPY_TILE ? d->shape[b] - r0 : COPY_TILE;
            for (int64_t c0 = 0; c0 < n; c0 += COPY_TILE) {
                int64_t cn = n - c0 < COPY_TILE ? n - c0 : COPY_TILE;
                for (int64_t j = 0; j < cn; j++)
                    memcpy((char *)buf + j * COPY_TILE * es, sp + r0 * es + (c0 + j) * d->ss[last], (size_t)(rn * es));
                for (int64_t i = 0; i < rn; i++)
                    copy_strided(es, dp + (r0 + i) * d->ds[b] + c0 * es, es, (const char *)buf + i * es,
                                 COPY_TILE * es, cn);
            }
        }
        if (++strip < strips)
            continue;
        strip = 0;
        for (int i = last - 1; i >= 0; i--) {
            if (i == b)
                continue;
            if (++idx[i] < d->shape[i])
                break;
            idx[i] = 0;
        }
    }
}

bool shape_copy_dense(Tensor *dst, const Tensor *src)
{
    if (ew_reference_path() || dst->dtype != src->dtype || tensor_same_storage(dst, src))
        return false;
    TensorIter it;
    Tensor *ops[2] = {dst, (Tensor *)src};
    if (iter_init(&it, dst->ndim, dst->sizes, 2, ops, NULL) != EP_OK || it.ndim == 0)
        return false;
    DenseCopy d = {.ndim = it.ndim, .es = dtype_size(dst->dtype), .last = it.ndim - 1, .b = -1,
                   .dst = it.base[0], .src = it.base[1]};
    for (int i = 0; i < it.ndim; i++) {
        d.shape[i] = it.shape[i];
        d.ds[i] = it.strides[0][i];
        d.ss[i] = it.strides[1][i];
    }
    if (d.ds[d.last] != d.es)
        return false;
    if (d.ss[d.last] != d.es) {
        for (int i = 0; i < d.last && d.b < 0; i++)
            if (d.ss[i] == d.es)
                d.b = i;
        if (d.b < 0)
            return false;
    } else if (d.shape[d.last] < 8) {
        return false; /* rows too short for a memcpy each: the iterator's loop */
    }
    int64_t items = 1;
    for (int i = 0; i < d.last; i++)
        if (i != d.b)
            items *= d.shape[i];
    int64_t per_item = d.shape[d.last];
    if (d.b >= 0) {
        items *= (d.shape[d.b] + COPY_TILE - 1) / COPY_TILE;
        per_item *= COPY_TILE;
    }
    int64_t grain = COPY_GRAIN / per_item;
    ep_parallel_for(items, grain > 0 ? grain : 1, dense_copy_chunk, &d);
    return true;
}

/* clone(Tensor self, *, MemoryFormat? memory_format=None) */
EpStatus k_clone(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    return shape_out(c, shape_copy_as(c, t, t->dtype, arg_memory_format(c, 1, MF_PRESERVE)));
}

/* lift_fresh_copy(Tensor self): a clone */
EpStatus k_lift_fresh_copy(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    return shape_out(c, shape_copy_as(c, t, t->dtype, MF_PRESERVE));
}

/* lift(Tensor self), and conj / resolve_conj / resolve_neg(Tensor(a) self):
** self itself.  lift only marks a tensor for functionalization; the
** others change nothing on real dtypes, the only ones epdbg runs. */
EpStatus k_self(OpCall *c)
{
    out_tensor(c, 0, tensor_ref(arg_tensor(c, 0)));
    return EP_OK;
}

/* contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format):
** self itself when already laid out so, else a clone in that format */
EpStatus k_contiguous(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int mf = arg_memory_format(c, 1, MF_CONTIGUOUS);
    /* is_contiguous(preserve) asks the default question */
    if (shape_is_contiguous_as(t, mf == MF_PRESERVE ? MF_CONTIGUOUS : mf)) {
        out_tensor(c, 0, tensor_ref(t));
        return EP_OK;
    }
    if (mf == MF_PRESERVE)
        return op_fail(c, "preserve memory format is unsupported by the contiguous operator");
    return shape_out(c, shape_copy_as(c, t, t->dtype, mf));
}

/* _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None,
** Device? device=None, bool? pin_memory=None, bool non_blocking=False,
** MemoryFormat? memory_format=None).  The device is a placement hint:
** epdbg computes everything on the CPU. */
EpStatus k_to_copy(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    if (shape_check_layout(c, 2))
        return c->err->code;
    return shape_out(c, shape_copy_as(c, t, arg_dtype(c, 1, t->dtype), arg_memory_format(c, 6, MF_PRESERVE)));
}

/* Tensor.to(): self itself when nothing changes and no copy is asked for
** (to_will_alias), else _to_copy.  Devices never count as a change. */
static EpStatus to_impl(OpCall *c, DType dtype, bool copy, int memfmt)
{
    Tensor *t = arg_tensor(c, 0);
    if (t->dtype == dtype && !copy && (memfmt == MF_PRESERVE || shape_suggest_memory_format(t) == memfmt)) {
        out_tensor(c, 0, tensor_ref(t));
        return EP_OK;
    }
    return shape_out(c, shape_copy_as(c, t, dtype, memfmt));
}

/* to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False,
** bool copy=False, MemoryFormat? memory_format=None) */
EpStatus k_to_dtype(OpCall *c)
{
    return to_impl(c, arg_dtype(c, 1, arg_tensor(c, 0)->dtype), arg_bool(c, 3), arg_memory_format(c, 4, MF_PRESERVE));
}

/* to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None,
** Device? device=None, bool? pin_memory=None, bool non_blocking=False,
** bool copy=False, MemoryFormat? memory_format=None) */
EpStatus k_to_dtype_layout(OpCall *c)
{
    if (shape_check_layout(c, 2))
        return c->err->code;
    return to_impl(c, arg_dtype(c, 1, arg_tensor(c, 0)->dtype), arg_bool(c, 6), arg_memory_format(c, 7, MF_PRESERVE));
}

/* to.device(Tensor(a) self, Device device, ScalarType dtype,
** bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) */
EpStatus k_to_device(OpCall *c)
{
    return to_impl(c, arg_dtype(c, 2, arg_tensor(c, 0)->dtype), arg_bool(c, 4), arg_memory_format(c, 5, MF_PRESERVE));
}

/* to.other(Tensor(a) self, Tensor other, bool non_blocking=False,
** bool copy=False, MemoryFormat? memory_format=None) */
EpStatus k_to_other(OpCall *c)
{
    return to_impl(c, arg_tensor(c, 1)->dtype, arg_bool(c, 3), arg_memory_format(c, 4, MF_PRESERVE));
}

/* type_as(Tensor self, Tensor other): self.to(other.options()) */
EpStatus k_type_as(OpCall *c)
{
    return to_impl(c, arg_tensor(c, 1)->dtype, false, MF_PRESERVE);
}

/* copy(Tensor self, Tensor src, bool non_blocking=False): the functional
** copy_: a fresh tensor with self's sizes and strides holding src
** (broadcast, converted to self's dtype).  PyTorch 1.13 returned
** src.to(self) instead, which may alias src; modern PyTorch is followed. */
EpStatus k_copy(OpCall *c)
{
    Tensor *r = shape_clone_preserve_strides(c, arg_tensor(c, 0), false);
    if (r && tensor_copy_into(r, arg_tensor(c, 1), c->err) != EP_OK) {
        tensor_unref(r);
        r = NULL;
    }
    return shape_out(c, r);
}

/* copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) */
EpStatus k_copy_(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    if (shape_has_internal_overlap(self))
        return op_fail(c, "unsupported operation: more than one element of the written-to tensor refers to a "
                          "single memory location. Please clone() the tensor before performing the operation.");
    if (tensor_copy_into(self, arg_tensor(c, 1), c->err) != EP_OK)
        return c->err->code;
    out_tensor(c, 0, tensor_ref(self));
    return EP_OK;
}

/* ---- scatters ------------------------------------------------------------ */

/* Copy src into view (a view of a private copy), which must have src's
** exact shape; takes the reference view. */
static EpStatus fill_view(OpCall *c, Tensor *view, const Tensor *src)
{
    char b1[256], b2[256];
    EpStatus rc;
    if (!shape_equal(view->ndim, view->sizes, src->ndim, src->sizes))
        rc = op_fail(c, "Expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                     shape_str(src->ndim, src->sizes, b1, sizeof b1),
                     shape_str(view->ndim, view->sizes, b2, sizeof b2));
    else
        rc = tensor_copy_into(view, src, c->err);
    tensor_unref(view);
    return rc;
}

/* out (owned) gets src written through view; out is the result. */
static EpStatus scatter_finish(OpCall *c, Tensor *out, Tensor *view, const Tensor *src)
{
    if (!view) {
        tensor_unref(out);
        return c->err->code;
    }
    if (fill_view(c, view, src) != EP_OK) {
        tensor_unref(out);
        return c->err->code;
    }
    out_tensor(c, 0, out);
    return EP_OK;
}

/* slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None,
** SymInt? end=None, SymInt step=1) */
EpStatus k_slice_scatter(OpCall *c)
{
    Tensor *out = shape_clone_preserve_strides(c, arg_tensor(c, 0), false);
    if (!out)
        return c->err->code;
    int64_t start = arg_int(c, 3), end = arg_int(c, 4);
    Tensor *view = shape_slice(c, out, arg_int(c, 2), arg_is_none(c, 3) ? NULL : &start,
                               arg_is_none(c, 4) ? NULL : &end, arg_int(c, 5));
    return scatter_finish(c, out, view, arg_tensor(c, 1));
}

/* select_scatter(Tensor self, Tensor src, int dim, SymInt index) */
EpStatus k_select_scatter(OpCall *c)
{
    Tensor *out = shape_clone_preserve_strides(c, arg_tensor(c, 0), false);
    if (!out)
        return c->err->code;
    Tensor *view = shape_select(c, out, arg_int(c, 2), arg_int(c, 3));
    return scatter_finish(c, out, view, arg_tensor(c, 1));
}

/* diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) */
EpStatus k_diagonal_scatter(OpCall *c)
{
    Tensor *out = shape_clone_preserve_strides(c, arg_tensor(c, 0), false);
    if (!out)
        return c->err->code;
    Tensor *view = shape_diagonal(c, out, arg_int(c, 2), arg_int(c, 3), arg_int(c, 4));
    return scatter_finish(c, out, view, arg_tensor(c, 1));
}

/* as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride,
** SymInt? storage_offset=None): the geometry addresses self's storage, so
** the whole storage is copied */
EpStatus k_as_strided_scatter(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    int64_t size[EP_MAX_DIMS], stride[EP_MAX_DIMS];
    int n = shape_size_stride_args(c, 2, size, stride);
    if (n < 0)
        return c->err->code;
    if (shape_check_sizes(c, n, size) || shape_check_strides(c, n, stride))
        return c->err->code;
    Tensor *out = shape_clone_preserve_strides(c, self, true);
    if (!out)
        return c->err->code;
    int64_t offset = arg_is_none(c, 4) ? self->offset : arg_int(c, 4);
    Tensor *view = offset < 0 ? NULL : shape_make_view(c, out, out->dtype, n, size, stride, offset);
    if (offset < 0)
        op_fail(c, "Tensor: invalid storage offset %lld", (long long)offset);
    return scatter_finish(c, out, view, arg_tensor(c, 1));
}

/* slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim,
** SymInt start, SymInt end, SymInt step) and select_backward(Tensor
** grad_output, SymInt[] input_sizes, int dim, SymInt index): zeros of the
** input's size with the gradient written into the slice */
EpStatus k_slice_select_backward(OpCall *c)
{
    Tensor *grad = arg_tensor(c, 0);
    int64_t sizes[EP_MAX_DIMS];
    int n = shape_int_list_arg(c, 1, sizes, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    Tensor *out = shape_new_contiguous(c, grad->dtype, n, sizes, true);
    if (!out)
        return c->err->code;
    Tensor *view;
    if (c->op->id == OP_SELECT_BACKWARD) {
        view = shape_select(c, out, arg_int(c, 2), arg_int(c, 3));
    } else {
        int64_t start = arg_int(c, 3), end = arg_int(c, 4);
        view = shape_slice(c, out, arg_int(c, 2), &start, &end, arg_int(c, 5));
    }
    return scatter_finish(c, out, view, grad);
}
