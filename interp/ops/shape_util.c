/*
** shape_util.c -- helpers of the shape family: argument checks, PyTorch's
** stride rules (computeStride, infer_dense_strides, memory formats) and
** the allocations that follow them (empty_like, clone, _to_copy).
**
** Strides decide which later views succeed, so the layout rules here
** follow aten/src/ATen/native/TensorFactories.cpp (empty_like, clone),
** TensorConversions.cpp (_to_copy) and TensorUtils.cpp (computeStride).
*/
#include "shape_int.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- arguments ----------------------------------------------------------- */

EpStatus shape_wrap_dim(OpCall *c, int64_t dim, int ndim, int *out)
{
    if (dim_wrap(dim, ndim, out))
        return EP_OK;
    int64_t n = ndim > 0 ? ndim : 1;
    return op_fail(c, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                   (long long)-n, (long long)(n - 1), (long long)dim);
}

int shape_int_list_arg(OpCall *c, int i, int64_t *out, int max)
{
    int n = arg_int_list(c, i, out, max);
    if (n < 0) {
        if (arg_is_none(c, i))
            op_fail(c, "argument '%s' must be a list of ints, not None", c->op->schema->args[i].name);
        else
            op_fail(c, "argument '%s' has more than %d entries (epdbg's limit)", c->op->schema->args[i].name, max);
    }
    return n;
}

int shape_size_stride_args(OpCall *c, int i, int64_t *size, int64_t *stride)
{
    int n = shape_int_list_arg(c, i, size, EP_MAX_DIMS);
    int m = n < 0 ? -1 : shape_int_list_arg(c, i + 1, stride, EP_MAX_DIMS);
    if (m < 0)
        return -1;
    if (n != m) {
        op_fail(c, "mismatch in length of strides and shape");
        return -1;
    }
    return n;
}

EpStatus shape_check_layout(OpCall *c, int i)
{
    int layout = arg_layout(c, i, LAYOUT_STRIDED);
    if (layout == LAYOUT_STRIDED)
        return EP_OK;
    char buf[32];
    return op_fail(c, "layout %s is not supported: epdbg runs dense (torch.strided) tensors only",
                   layout_name(layout, buf));
}

/* The C++ type names c10 prints in its overflow message. */
static const char *cpp_type_name(DType t)
{
    switch (t) {
    case DT_BOOL: return "bool";
    case DT_U8: return "uint8_t";
    case DT_I8: return "int8_t";
    case DT_I16: return "int16_t";
    case DT_I32: return "int";
    case DT_I64: return "int64_t";
    case DT_F16: return "at::Half";
    case DT_BF16: return "at::BFloat16";
    case DT_F32: return "float";
    default: return "double";
    }
}

/* Largest finite value of a floating dtype. */
static double float_max(DType t)
{
    switch (t) {
    case DT_F16: return 65504.0;
    case DT_BF16: return 3.3895313892515355e38;
    case DT_F32: return FLT_MAX;
    default: return DBL_MAX;
    }
}

/* Range of an integer dtype. */
static void int_range(DType t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case DT_U8: *lo = 0; *hi = 255; break;
    case DT_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case DT_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case DT_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

EpStatus shape_check_scalar_fits(OpCall *c, DType dtype, const Value *v)
{
    bool overflow = false;
    if (dtype == DT_BOOL || v->kind == V_BOOL)
        return EP_OK;
    if (v->kind == V_INT) {
        if (dtype_is_float(dtype)) {
            double m = float_max(dtype);
            overflow = (double)v->i > m || (double)v->i < -m;
        } else {
            int64_t lo, hi;
            int_range(dtype, &lo, &hi);
            /* c10 lets negative numbers wrap into unsigned types as long as
            ** their magnitude fits (uint8: -255 ... -1) */
            if (dtype == DT_U8)
                overflow = v->i > hi || (v->i < 0 && (0 - (uint64_t)v->i) > (uint64_t)hi);
            else
                overflow = v->i < lo || v->i > hi;
        }
    } else {
        double f = v->f;
        if (dtype_is_float(dtype)) {
            double m = float_max(dtype);
            overflow = !isinf(f) && !isnan(f) && (f > m || f < -m);
        } else {
            int64_t lo, hi;
            int_range(dtype, &lo, &hi);
            overflow = isnan(f) || f < (double)lo || f > (double)hi;
        }
    }
    if (overflow)
        return op_fail(c, "value cannot be converted to type %s without overflow", cpp_type_name(dtype));
    return EP_OK;
}

EpStatus shape_fill(OpCall *c, Tensor *t, const Value *v)
{
    EpStatus rc = shape_check_scalar_fits(c, t->dtype, v);
    if (rc)
        return rc;
    Tensor *s = v->kind == V_FLOAT ? tensor_scalar_f64(t->dtype, v->f, c->err)
                                   : tensor_scalar_i64(t->dtype, v->kind == V_BOOL ? v->b : v->i, c->err);
    if (!s)
        return c->err->code;
    rc = tensor_copy_into(t, s, c->err);
    tensor_unref(s);
    return rc;
}

/* ---- geometry ------------------------------------------------------------ */

EpStatus shape_infer_size(OpCall *c, int n, const int64_t *proposed, int64_t numel, int64_t *out)
{
    char buf[256];
    int infer = -1;
    int64_t known = 1;
    bool overflow = false;
    for (int i = 0; i < n; i++) {
        if (proposed[i] == -1) {
            if (infer >= 0)
                return op_fail(c, "only one dimension can be inferred");
            infer = i;
        } else if (proposed[i] >= 0) {
            overflow = overflow || !ep_mul_i64(known, proposed[i], &known);
        } else {
            return op_fail(c, "invalid shape dimension %lld", (long long)proposed[i]);
        }
        out[i] = proposed[i];
    }
    if (!overflow && (numel == known || (infer >= 0 && known > 0 && numel % known == 0))) {
        if (infer >= 0) {
            /* view(-1, 0) of an empty tensor could give any size there */
            if (known == 0)
                return op_fail(c, "cannot reshape tensor of 0 elements into shape %s because the unspecified "
                               "dimension size -1 can be any value and is ambiguous",
                               shape_str(n, proposed, buf, sizeof buf));
            out[infer] = numel / known;
        }
        return EP_OK;
    }
    return op_fail(c, "shape '%s' is invalid for input of size %lld", shape_str(n, proposed, buf, sizeof buf),
                   (long long)numel);
}

EpStatus shape_check_sizes(OpCall *c, int ndim, const int64_t *sizes)
{
    char buf[256];
    int64_t span = 1;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0)
            return op_fail(c, "Trying to create tensor with negative dimension %lld: %s", (long long)sizes[i],
                           shape_str(ndim, sizes, buf, sizeof buf));
        /* 2^60 leaves room for strides in bytes, which iterators use */
        if (!ep_mul_i64(span, sizes[i] > 1 ? sizes[i] : 1, &span) || span > ((int64_t)1 << 60))
            return op_fail(c, "numel: integer multiplication overflow for size %s",
                           shape_str(ndim, sizes, buf, sizeof buf));
    }
    return EP_OK;
}

EpStatus shape_check_strides(OpCall *c, int ndim, const int64_t *strides)
{
    char buf[256];
    for (int i = 0; i < ndim; i++) {
        if (strides[i] < 0)
            return op_fail(c, "as_strided: Negative strides are not supported at the moment, got strides: %s",
                           shape_str(ndim, strides, buf, sizeof buf));
        if (strides[i] > ((int64_t)1 << 60))
            return op_fail(c, "stride %lld is too large", (long long)strides[i]);
    }
    return EP_OK;
}

bool shape_compute_stride(int on, const int64_t *osizes, const int64_t *ostrides, int nn, const int64_t *nsizes,
                          int64_t *nstrides)
{
    if (on == 0) { /* a scalar views as any all-ones shape */
        for (int i = 0; i < nn; i++)
            nstrides[i] = 1;
        return true;
    }
    int64_t numel = shape_numel(on, osizes);
    if (numel == 0) {
        /* any strides address no memory: copy them when the shape stays,
        ** else take the strides a fresh tensor would get */
        if (shape_equal(on, osizes, nn, nsizes)) {
            memcpy(nstrides, ostrides, (size_t)nn * sizeof *nstrides);
            return true;
        }
        /* unsigned: absurd sizes of an empty tensor may overflow, and
        ** the strides address nothing anyway */
        uint64_t st = 1;
        for (int i = nn - 1; i >= 0; i--) {
            nstrides[i] = (int64_t)st;
            st *= nsizes[i] > 1 ? (uint64_t)nsizes[i] : 1;
        }
        return true;
    }
    /* Walk the old dims from the innermost, grouping them into chunks that
    ** are contiguous with each other; each chunk must be covered exactly
    ** by a run of new dims, which then stride through it. */
    int vd = nn - 1;
    int64_t chunk_base = ostrides[on - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int td = on - 1; td >= 0; td--) {
        tensor_numel *= osizes[td];
        bool chunk_ends = td == 0 || (osizes[td - 1] != 1 && ostrides[td - 1] != tensor_numel * chunk_base);
        if (!chunk_ends)
            continue;
        while (vd >= 0 && (view_numel < tensor_numel || nsizes[vd] == 1)) {
            nstrides[vd] = view_numel * chunk_base;
            view_numel *= nsizes[vd];
            vd--;
        }
        if (view_numel != tensor_numel)
            return false;
        if (td > 0) {
            chunk_base = ostrides[td - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return vd == -1;
}

bool shape_non_overlapping_and_dense(int ndim, const int64_t *sizes, const int64_t *strides)
{
    if (ndim == 1)
        return sizes[0] < 2 || strides[0] == 1;
    /* dims of size >= 2 by increasing stride must tile memory exactly */
    int perm[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < ndim; i++)
        if (sizes[i] >= 2)
            perm[n++] = i;
    for (int i = 1; i < n; i++) { /* insertion sort: n <= 16 */
        int d = perm[i], j = i;
        while (j > 0 && strides[perm[j - 1]] > strides[d]) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = d;
    }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (strides[perm[i]] != expected)
            return false;
        expected *= sizes[perm[i]];
    }
    return true;
}

bool shape_has_internal_overlap(const Tensor *t)
{
    if (shape_non_overlapping_and_dense(t->ndim, t->sizes, t->strides))
        return false;
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->sizes[i] > 1)
            return true;
    return false;
}

/* TensorIterator's order between two dims: -1 keep a before b, 1 swap,
** 0 undecided.  Stride-0 (broadcast) dims never move. */
static int dense_order(const int64_t *sizes, const int64_t *strides, int a, int b)
{
    if (strides[a] == 0 || strides[b] == 0)
        return 0;
    if (strides[a] < strides[b])
        return -1;
    if (strides[a] > strides[b])
        return 1;
    return sizes[a] > sizes[b] ? 1 : 0;
}

void shape_infer_dense_strides(int ndim, const int64_t *sizes, const int64_t *strides, int64_t *out)
{
    if (ndim == 0)
        return;
    /* perm lists dims from the fastest-moving one; it starts as the
    ** contiguous order and is insertion-sorted the way TensorIterator
    ** sorts, so results match the layouts PyTorch propagates */
    int perm[EP_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int i = 1; i < ndim; i++) {
        int d1 = i;
        for (int j = 1; j <= i; j++) {
            int d0 = i - j;
            int cmp = dense_order(sizes, strides, perm[d0], perm[d1]);
            if (cmp > 0) {
                int tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    int64_t st = 1;
    for (int i = 0; i < ndim; i++) {
        out[perm[i]] = st;
        if (sizes[perm[i]] > 1)
            st *= sizes[perm[i]];
    }
}

/* is_channels_last_strides_2d_s4 / _3d_s5: dims visited from the
** innermost of the channels-last order must have growing strides;
** ambiguous all-size-1 cases fall back to NCHW. */
static bool strides_like_channels_last(int ndim, const int64_t *sizes, const int64_t *strides)
{
    static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    const int *order = ndim == 4 ? order4 : order5;
    if (strides[1] == 0)
        return false;
    int64_t min = 0;
    for (int k = 0; k < ndim; k++) {
        int d = order[k];
        if (sizes[d] == 0 || strides[d] < min)
            return false;
        if (d == 0 && min == strides[1])
            return false;
        min = strides[d];
        if (sizes[d] > 1)
            min *= sizes[d];
    }
    return true;
}

int shape_suggest_memory_format(const Tensor *t)
{
    if (t->ndim == 4 && strides_like_channels_last(4, t->sizes, t->strides))
        return MF_CHANNELS_LAST;
    if (t->ndim == 5 && strides_like_channels_last(5, t->sizes, t->strides))
        return MF_CHANNELS_LAST_3D;
    return MF_CONTIGUOUS;
}

bool shape_is_contiguous_as(const Tensor *t, int memfmt)
{
    static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    if (memfmt == MF_CHANNELS_LAST || memfmt == MF_CHANNELS_LAST_3D) {
        int want = memfmt == MF_CHANNELS_LAST ? 4 : 5;
        if (t->ndim != want)
            return false;
        const int *order = want == 4 ? order4 : order5;
        int64_t expected = 1;
        for (int k = 0; k < want; k++) {
            int d = order[k];
            if (t->sizes[d] != 1) {
                if (t->strides[d] != expected)
                    return false;
                expected *= t->sizes[d];
            }
        }
        return true;
    }
    return tensor_is_contiguous(t);
}

EpStatus shape_format_strides(OpCall *c, int memfmt, int ndim, const int64_t *sizes, int64_t *strides)
{
    if (shape_check_sizes(c, ndim, sizes) != EP_OK)
        return c->err->code;
    switch (memfmt) {
    case MF_CONTIGUOUS:
        shape_contiguous_strides(ndim, sizes, strides);
        return EP_OK;
    case MF_CHANNELS_LAST:
        if (ndim != 4)
            return op_fail(c, "required rank 4 tensor to use channels_last format");
        /* NHWC; PyTorch does not clamp zero sizes here */
        strides[1] = 1;
        strides[3] = sizes[1];
        strides[2] = strides[3] * sizes[3];
        strides[0] = strides[2] * sizes[2];
        return EP_OK;
    case MF_CHANNELS_LAST_3D:
        if (ndim != 5)
            return op_fail(c, "required rank 5 tensor to use channels_last_3d format");
        strides[1] = 1;
        strides[4] = sizes[1];
        strides[3] = strides[4] * sizes[4];
        strides[2] = strides[3] * sizes[3];
        strides[0] = strides[2] * sizes[2];
        return EP_OK;
    default:
        return op_fail(c, "unsupported memory format code %d", memfmt);
    }
}

/* ---- allocation ---------------------------------------------------------- */

Tensor *shape_new_strided(OpCall *c, DType dtype, int ndim, const int64_t *sizes, const int64_t *strides, bool zero)
{
    char buf[256];
    if (ndim > EP_MAX_DIMS) {
        op_fail(c, "tensors of rank %d are not supported (at most %d dims)", ndim, EP_MAX_DIMS);
        return NULL;
    }
    int64_t numel = 1, last = 0; /* last: offset of the farthest element */
    bool overflow = false;
    if (shape_check_strides(c, ndim, strides) != EP_OK)
        return NULL;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            op_fail(c, "Trying to create tensor with negative dimension %lld: %s", (long long)sizes[i],
                    shape_str(ndim, sizes, buf, sizeof buf));
            return NULL;
        }
        int64_t span;
        overflow = overflow || !ep_mul_i64(numel, sizes[i], &numel);
        if (sizes[i] > 0)
            overflow = overflow || !ep_mul_i64(sizes[i] - 1, strides[i], &span) || !ep_add_i64(last, span, &last);
    }
    int64_t nbytes = 0;
    if (!overflow && numel > 0)
        overflow = !ep_mul_i64(last + 1, dtype_size(dtype), &nbytes);
    if (overflow || nbytes > ((int64_t)1 << 46)) {
        op_fail(c, "a tensor of size %s is too large", shape_str(ndim, sizes, buf, sizeof buf));
        return NULL;
    }
    Storage *s = storage_new((size_t)nbytes);
    if (!s) {
        op_fail(c, "out of memory allocating %lld bytes", (long long)nbytes);
        return NULL;
    }
    if (zero && nbytes)
        memset(s->data, 0, (size_t)nbytes);
    Tensor *t = tensor_from_storage(s, dtype, ndim, sizes, strides, 0, c->err);
    storage_unref(s);
    return t;
}

Tensor *shape_new_contiguous(OpCall *c, DType dtype, int ndim, const int64_t *sizes, bool zero)
{
    int64_t strides[EP_MAX_DIMS];
    if (ndim > EP_MAX_DIMS) {
        op_fail(c, "tensors of rank %d are not supported (at most %d dims)", ndim, EP_MAX_DIMS);
        return NULL;
    }
    if (shape_format_strides(c, MF_CONTIGUOUS, ndim, sizes, strides) != EP_OK)
        return NULL;
    return shape_new_strided(c, dtype, ndim, sizes, strides, zero);
}

Tensor *shape_new_like(OpCall *c, const Tensor *t, DType dtype, int memfmt, bool zero)
{
    int64_t strides[EP_MAX_DIMS];
    if (memfmt == MF_PRESERVE) {
        if (shape_non_overlapping_and_dense(t->ndim, t->sizes, t->strides))
            memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
        else
            shape_infer_dense_strides(t->ndim, t->sizes, t->strides, strides);
    } else if (shape_format_strides(c, memfmt, t->ndim, t->sizes, strides) != EP_OK) {
        return NULL;
    }
    return shape_new_strided(c, dtype, t->ndim, t->sizes, strides, zero);
}

Tensor *shape_copy_as(OpCall *c, Tensor *t, DType dtype, int memfmt)
{
    Tensor *r = shape_new_like(c, t, dtype, memfmt, false);
    if (r && !tensor_copy_flat(r, t) && !shape_copy_dense(r, t) && tensor_copy_into(r, t, c->err) != EP_OK) {
        tensor_unref(r);
        return NULL;
    }
    return r;
}

Tensor *shape_clone_preserve_strides(OpCall *c, Tensor *t, bool whole_storage)
{
    const int es = dtype_size(t->dtype);
    if (whole_storage) {
        Storage *s = storage_new(t->storage->nbytes);
        if (!s) {
            op_fail(c, "out of memory copying a %zu-byte storage", t->storage->nbytes);
            return NULL;
        }
        memcpy(s->data, t->storage->data, t->storage->nbytes);
        Tensor *r = tensor_from_storage(s, t->dtype, t->ndim, t->sizes, t->strides, t->offset, c->err);
        storage_unref(s);
        return r;
    }
    if (shape_has_internal_overlap(t))
        return shape_copy_as(c, t, t->dtype, MF_PRESERVE);
    if (tensor_numel(t) == 0)
        return shape_new_strided(c, t->dtype, t->ndim, t->sizes, t->strides, true);
    /* PyTorch copies the whole storage; copying only the span t addresses
    ** gives the same sizes and strides without duplicating a large base
    ** tensor that t is a small view of */
    int64_t lo = t->offset, hi = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        int64_t span = (t->sizes[i] - 1) * t->strides[i];
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    size_t nbytes = (size_t)(hi - lo + 1) * (size_t)es;
    Storage *s = storage_new(nbytes);
    if (!s) {
        op_fail(c, "out of memory allocating %zu bytes", nbytes);
        return NULL;
    }
    memcpy(s->data, (const char *)t->storage->data + lo * es, nbytes);
    Tensor *r = tensor_from_storage(s, t->dtype, t->ndim, t->sizes, t->strides, t->offset - lo, c->err);
    storage_unref(s);
    return r;
}
