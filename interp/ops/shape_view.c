/*
** shape_view.c -- view operators: results share the input's storage with
** new sizes, strides and offset (aten/src/ATen/native/TensorShape.cpp).
**
** The geometry helpers (shape_view, shape_slice, ...) are shared with the
** split, copy and join files through shape_int.h.  The in-place forms
** (unsqueeze_, t_, ...) and the *_copy forms reuse the view kernels from
** shape_forms.c.
*/
#include "shape_int.h"

#include <stdio.h>
#include <string.h>

/* ---- geometry helpers ---------------------------------------------------- */

Tensor *shape_make_view(OpCall *c, const Tensor *t, DType dtype, int ndim, const int64_t *sizes,
                        const int64_t *strides, int64_t offset)
{
    int64_t st[EP_MAX_DIMS];
    const int64_t lim = (int64_t)1 << 60;
    bool empty = false;
    for (int i = 0; i < ndim; i++)
        empty = empty || sizes[i] == 0;
    for (int i = 0; i < ndim; i++)
        st[i] = empty && (strides[i] > lim || strides[i] < -lim) ? 0 : strides[i];
    if (empty && offset > lim)
        offset = 0;
    return tensor_from_storage(t->storage, dtype, ndim, sizes, st, offset, c->err);
}

Tensor *shape_alias(OpCall *c, Tensor *t)
{
    return shape_make_view(c, t, t->dtype, t->ndim, t->sizes, t->strides, t->offset);
}

Tensor *shape_view(OpCall *c, Tensor *t, int n, const int64_t *sizes)
{
    int64_t shape[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (n > EP_MAX_DIMS) {
        op_fail(c, "tensors of rank %d are not supported (at most %d dims)", n, EP_MAX_DIMS);
        return NULL;
    }
    if (shape_infer_size(c, n, sizes, tensor_numel(t), shape) != EP_OK)
        return NULL;
    if (!shape_compute_stride(t->ndim, t->sizes, t->strides, n, shape, strides)) {
        op_fail(c, "view size is not compatible with input tensor's size and stride (at least one dimension "
                   "spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return shape_make_view(c, t, t->dtype, n, shape, strides, t->offset);
}

Tensor *shape_reshape(OpCall *c, Tensor *t, int n, const int64_t *sizes)
{
    int64_t shape[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    if (n > EP_MAX_DIMS) {
        op_fail(c, "tensors of rank %d are not supported (at most %d dims)", n, EP_MAX_DIMS);
        return NULL;
    }
    if (shape_infer_size(c, n, sizes, tensor_numel(t), shape) != EP_OK)
        return NULL;
    if (shape_compute_stride(t->ndim, t->sizes, t->strides, n, shape, strides))
        return shape_make_view(c, t, t->dtype, n, shape, strides, t->offset);
    Tensor *dense = shape_copy_as(c, t, t->dtype, MF_CONTIGUOUS);
    if (!dense)
        return NULL;
    shape_contiguous_strides(n, shape, strides);
    Tensor *r = shape_make_view(c, dense, dense->dtype, n, shape, strides, 0);
    tensor_unref(dense);
    return r;
}

Tensor *shape_slice(OpCall *c, Tensor *t, int64_t dim, const int64_t *start, const int64_t *end, int64_t step)
{
    int d;
    if (t->ndim == 0) {
        op_fail(c, "slice() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (shape_wrap_dim(c, dim, t->ndim, &d) != EP_OK)
        return NULL;
    if (step <= 0) {
        op_fail(c, "slice step must be positive");
        return NULL;
    }
    /* Python bounds: negatives count from the end, then both clamp */
    int64_t size = t->sizes[d];
    int64_t lo = start ? *start : 0, hi = end ? *end : INT64_MAX;
    if (lo < 0)
        lo += size;
    if (hi < 0)
        hi += size;
    lo = lo < 0 ? 0 : lo > size ? size : lo;
    hi = hi < lo ? lo : hi > size ? size : hi;
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    int64_t len = hi - lo;
    sizes[d] = len == 0 ? 0 : 1 + (len - 1) / step;
    /* a step longer than the dim leaves one element: its stride is moot */
    if (sizes[d] > 1)
        strides[d] = shape_wmul(strides[d], step);
    int64_t offset = shape_wadd(t->offset, shape_wmul(lo, t->strides[d]));
    return shape_make_view(c, t, t->dtype, t->ndim, sizes, strides, offset);
}

Tensor *shape_select(OpCall *c, Tensor *t, int64_t dim, int64_t index)
{
    int d;
    char buf[256];
    if (t->ndim == 0) {
        op_fail(c, "select() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (shape_wrap_dim(c, dim, t->ndim, &d) != EP_OK)
        return NULL;
    int64_t size = t->sizes[d];
    if (index < -size || index >= size) {
        op_fail(c, "select(): index %lld out of range for tensor of size %s at dimension %d", (long long)index,
                shape_str(t->ndim, t->sizes, buf, sizeof buf), d);
        return NULL;
    }
    if (index < 0)
        index += size;
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return shape_make_view(c, t, t->dtype, n, sizes, strides, shape_wadd(t->offset, shape_wmul(index, t->strides[d])));
}

Tensor *shape_narrow(OpCall *c, Tensor *t, int64_t dim, int64_t start, int64_t length)
{
    int d;
    if (t->ndim == 0) {
        op_fail(c, "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (length < 0) {
        op_fail(c, "narrow(): length must be non-negative.");
        return NULL;
    }
    if (shape_wrap_dim(c, dim, t->ndim, &d) != EP_OK)
        return NULL;
    int64_t size = t->sizes[d];
    if (start < -size || start > size) {
        op_fail(c, "start out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-size,
                (long long)size, (long long)start);
        return NULL;
    }
    if (start < 0)
        start += size;
    if (start > size - length) {
        op_fail(c, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start, (long long)length,
                (long long)size);
        return NULL;
    }
    int64_t end = start + length;
    return shape_slice(c, t, d, &start, &end, 1);
}

Tensor *shape_unsqueeze(OpCall *c, Tensor *t, int64_t dim)
{
    int d;
    if (t->ndim >= EP_MAX_DIMS) {
        op_fail(c, "tensors of rank %d are not supported (at most %d dims)", t->ndim + 1, EP_MAX_DIMS);
        return NULL;
    }
    if (shape_wrap_dim(c, dim, t->ndim + 1, &d) != EP_OK)
        return NULL;
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    for (int i = 0, k = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d >= t->ndim ? 1 : shape_wmul(t->sizes[d], t->strides[d]);
        } else {
            sizes[i] = t->sizes[k];
            strides[i] = t->strides[k++];
        }
    }
    return shape_make_view(c, t, t->dtype, t->ndim + 1, sizes, strides, t->offset);
}

Tensor *shape_transpose(OpCall *c, Tensor *t, int64_t dim0, int64_t dim1)
{
    int a, b;
    if (shape_wrap_dim(c, dim0, t->ndim, &a) != EP_OK || shape_wrap_dim(c, dim1, t->ndim, &b) != EP_OK)
        return NULL;
    if (t->ndim == 0 || a == b)
        return shape_alias(c, t);
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    sizes[a] = t->sizes[b];
    sizes[b] = t->sizes[a];
    strides[a] = t->strides[b];
    strides[b] = t->strides[a];
    return shape_make_view(c, t, t->dtype, t->ndim, sizes, strides, t->offset);
}

Tensor *shape_permute(OpCall *c, Tensor *t, int n, const int64_t *dims)
{
    if (n != t->ndim) {
        op_fail(c, "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                   "the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d",
                t->ndim, n);
        return NULL;
    }
    bool seen[EP_MAX_DIMS] = {false};
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int d;
        if (shape_wrap_dim(c, dims[i], n, &d) != EP_OK)
            return NULL;
        if (seen[d]) {
            op_fail(c, "permute(): duplicate dims are not allowed.");
            return NULL;
        }
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return shape_make_view(c, t, t->dtype, n, sizes, strides, t->offset);
}

Tensor *shape_expand(OpCall *c, Tensor *t, int n, const int64_t *target)
{
    char b1[256], b2[256];
    if (n < t->ndim) {
        op_fail(c, "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the "
                   "number of dimensions in the tensor (%d)", dtype_name(t->dtype),
                shape_str(t->ndim, t->sizes, b1, sizeof b1), shape_str(n, target, b2, sizeof b2), n, t->ndim);
        return NULL;
    }
    if (n > EP_MAX_DIMS) {
        op_fail(c, "tensors of rank %d are not supported (at most %d dims)", n, EP_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    /* align trailing dims; new leading dims get the stride a contiguous
    ** tensor would have there, unless they broadcast (stride 0) */
    for (int i = n - 1; i >= 0; i--) {
        int src = t->ndim - n + i;
        int64_t size = src >= 0 ? t->sizes[src] : 1;
        int64_t stride = src >= 0 ? t->strides[src] : (i + 1 < n ? shape_wmul(sizes[i + 1], strides[i + 1]) : 1);
        int64_t want = target[i];
        if (want == -1) {
            if (src < 0) {
                op_fail(c, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                           "dimension %d", i);
                return NULL;
            }
            want = size;
        } else if (want < 0) {
            op_fail(c, "Trying to create tensor with negative dimension %lld: %s", (long long)want,
                    shape_str(n, target, b1, sizeof b1));
            return NULL;
        }
        if (size != want) {
            if (size != 1) {
                op_fail(c, "The expanded size of the tensor (%lld) must match the existing size (%lld) at "
                           "non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s", (long long)want,
                        (long long)size, i, shape_str(n, target, b1, sizeof b1),
                        shape_str(t->ndim, t->sizes, b2, sizeof b2));
                return NULL;
            }
            size = want;
            stride = 0;
        }
        sizes[i] = size;
        strides[i] = stride;
    }
    if (shape_check_sizes(c, n, sizes) != EP_OK)
        return NULL;
    return shape_make_view(c, t, t->dtype, n, sizes, strides, t->offset);
}

Tensor *shape_diagonal(OpCall *c, Tensor *t, int64_t offset, int64_t dim1, int64_t dim2)
{
    int a, b;
    if (shape_wrap_dim(c, dim1, t->ndim, &a) != EP_OK || shape_wrap_dim(c, dim2, t->ndim, &b) != EP_OK)
        return NULL;
    if (t->ndim < 2 || a == b) {
        op_fail(c, "diagonal dimensions cannot be identical %lld, %lld", (long long)dim1, (long long)dim2);
        return NULL;
    }
    int64_t n;
    if (offset >= 0)
        n = t->sizes[b] - offset < t->sizes[a] ? t->sizes[b] - offset : t->sizes[a];
    else
        n = t->sizes[a] + offset < t->sizes[b] ? t->sizes[a] + offset : t->sizes[b];
    if (n < 0)
        n = 0;
    int64_t start = t->offset;
    /* an offset off the end gives no elements: leave the start alone */
    if (n > 0)
        start = shape_wadd(start, offset >= 0 ? shape_wmul(offset, t->strides[b])
                                              : shape_wmul(-offset, t->strides[a]));
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != a && i != b) {
            sizes[k] = t->sizes[i];
            strides[k++] = t->strides[i];
        }
    sizes[k] = n;
    strides[k++] = shape_wadd(t->strides[a], t->strides[b]);
    return shape_make_view(c, t, t->dtype, k, sizes, strides, start);
}

/* ---- kernels: reshaping -------------------------------------------------- */

/* view(Tensor(a) self, SymInt[] size) */
EpStatus k_view(OpCall *c)
{
    int64_t size[EP_MAX_DIMS];
    int n = shape_int_list_arg(c, 1, size, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_view(c, arg_tensor(c, 0), n, size));
}

/* reshape(Tensor(a) self, SymInt[] shape); also _unsafe_view, whose result
** PyTorch declares non-aliasing: where our inputs' layout differs from
** PyTorch's (a kernel of ours returned another stride order) copying
** instead of failing gives the same values with the same semantics. */
EpStatus k_reshape(OpCall *c)
{
    int64_t size[EP_MAX_DIMS];
    int n = shape_int_list_arg(c, 1, size, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_reshape(c, arg_tensor(c, 0), n, size));
}

/* view_as(self, other) / reshape_as(self, other) */
EpStatus k_view_as(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0), *other = arg_tensor(c, 1);
    if (c->op->id == OP_RESHAPE_AS)
        return shape_out(c, shape_reshape(c, t, other->ndim, other->sizes));
    return shape_out(c, shape_view(c, t, other->ndim, other->sizes));
}

/* _reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) */
EpStatus k_reshape_alias(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t size[EP_MAX_DIMS], stride[EP_MAX_DIMS];
    int n = shape_size_stride_args(c, 1, size, stride);
    if (n < 0)
        return c->err->code;
    if (shape_check_sizes(c, n, size) || shape_check_strides(c, n, stride))
        return c->err->code;
    return shape_out(c, shape_make_view(c, t, t->dtype, n, size, stride, t->offset));
}

/* view.dtype(Tensor(a) self, ScalarType dtype): reinterpret the bytes.  A
** different element size rescales the last dimension, which must then be
** contiguous. */
EpStatus k_view_dtype(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    DType to = arg_dtype(c, 1, t->dtype);
    int from_size = dtype_size(t->dtype), to_size = dtype_size(to);
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int n = t->ndim;
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    int64_t offset = t->offset;
    if (from_size != to_size) {
        if (n == 0)
            return op_fail(c, "self.dim() cannot be 0 to view %s as %s (different element sizes)",
                           dtype_name(t->dtype), dtype_name(to));
        if (strides[n - 1] != 1)
            return op_fail(c, "self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %lld",
                           dtype_name(t->dtype), dtype_name(to), (long long)strides[n - 1]);
        if (from_size > to_size) {
            int ratio = from_size / to_size;
            if (!ep_mul_i64(sizes[n - 1], ratio, &sizes[n - 1]))
                return op_fail(c, "numel: integer multiplication overflow");
            for (int i = 0; i < n - 1; i++)
                strides[i] = shape_wmul(strides[i], ratio);
            offset = shape_wmul(offset, ratio);
            if (shape_check_sizes(c, n, sizes))
                return c->err->code;
        } else {
            int ratio = to_size / from_size;
            if (sizes[n - 1] % ratio)
                return op_fail(c, "self.size(-1) must be divisible by %d to view %s as %s (different element "
                               "sizes), but got %lld", ratio, dtype_name(t->dtype), dtype_name(to),
                               (long long)sizes[n - 1]);
            if (offset % ratio)
                return op_fail(c, "self.storage_offset() must be divisible by %d to view %s as %s (different "
                               "element sizes), but got %lld", ratio, dtype_name(t->dtype), dtype_name(to),
                               (long long)offset);
            for (int i = 0; i < n - 1; i++)
                if (strides[i] % ratio)
                    return op_fail(c, "self.stride(%d) must be divisible by %d to view %s as %s (different element "
                                   "sizes), but got %lld", i, ratio, dtype_name(t->dtype), dtype_name(to),
                                   (long long)strides[i]);
            sizes[n - 1] /= ratio;
            for (int i = 0; i < n - 1; i++)
                strides[i] /= ratio;
            offset /= ratio;
        }
    }
    return shape_out(c, shape_make_view(c, t, to, n, sizes, strides, offset));
}

/* alias, detach, lift_fresh: the same tensor under a new name */
EpStatus k_alias(OpCall *c)
{
    return shape_out(c, shape_alias(c, arg_tensor(c, 0)));
}

/* detach_(Tensor(a!) self): nothing to detach from */
EpStatus k_detach_(OpCall *c)
{
    out_tensor(c, 0, tensor_ref(arg_tensor(c, 0)));
    return EP_OK;
}

/* flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) */
EpStatus k_flatten(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int a, b;
    if (shape_wrap_dim(c, arg_int(c, 1), t->ndim, &a) || shape_wrap_dim(c, arg_int(c, 2), t->ndim, &b))
        return c->err->code;
    if (a > b)
        return op_fail(c, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) {
        int64_t one = 1;
        return shape_out(c, shape_reshape(c, t, 1, &one));
    }
    if (a == b) { /* PyTorch returns self itself */
        out_tensor(c, 0, tensor_ref(t));
        return EP_OK;
    }
    int64_t sizes[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < a; i++)
        sizes[n++] = t->sizes[i];
    sizes[n] = 1;
    for (int i = a; i <= b; i++)
        sizes[n] *= t->sizes[i];
    n++;
    for (int i = b + 1; i < t->ndim; i++)
        sizes[n++] = t->sizes[i];
    return shape_out(c, shape_reshape(c, t, n, sizes));
}

/* ravel(Tensor(a) self): contiguous().view(-1) */
EpStatus k_ravel(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t all = -1;
    if (tensor_is_contiguous(t))
        return shape_out(c, shape_view(c, t, 1, &all));
    Tensor *dense = shape_copy_as(c, t, t->dtype, MF_CONTIGUOUS);
    if (!dense)
        return c->err->code;
    Tensor *r = shape_view(c, dense, 1, &all);
    tensor_unref(dense);
    return shape_out(c, r);
}

/* unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) */
EpStatus k_unflatten(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t want[EP_MAX_DIMS], got[EP_MAX_DIMS], sizes[EP_MAX_DIMS];
    char buf[256];
    int d;
    if (shape_wrap_dim(c, arg_int(c, 1), t->ndim, &d))
        return c->err->code;
    int n = shape_int_list_arg(c, 2, want, EP_MAX_DIMS);
    if (n < 0)
        return c->err->code;
    if (n == 0)
        return op_fail(c, "unflatten: sizes must be non-empty");
    if (t->ndim == 0)
        return op_fail(c, "dimension specified as 0 but tensor has no dimensions");
    if (t->ndim - 1 + n > EP_MAX_DIMS)
        return op_fail(c, "tensors of rank %d are not supported (at most %d dims)", t->ndim - 1 + n, EP_MAX_DIMS);
    EpError saved = *c->err;
    if (shape_infer_size(c, n, want, t->sizes[d], got) != EP_OK) {
        *c->err = saved;
        return op_fail(c, "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%lld) in the "
                       "input tensor", shape_str(n, want, buf, sizeof buf), d, (long long)t->sizes[d]);
    }
    int k = 0;
    for (int i = 0; i < d; i++)
        sizes[k++] = t->sizes[i];
    for (int i = 0; i < n; i++)
        sizes[k++] = got[i];
    for (int i = d + 1; i < t->ndim; i++)
        sizes[k++] = t->sizes[i];
    return shape_out(c, shape_view(c, t, k, sizes));
}

/* atleast_1d / atleast_2d / atleast_3d(Tensor self): self itself when it
** already has the rank, else a reshaped view */
EpStatus k_atleast(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int want = c->op->id == OP_ATLEAST_1D ? 1 : c->op->id == OP_ATLEAST_2D ? 2 : 3;
    if (t->ndim >= want) {
        out_tensor(c, 0, tensor_ref(t));
        return EP_OK;
    }
    int64_t sizes[3] = {1, 1, 1};
    if (t->ndim == 1) { /* [n] -> [1, n] or [1, n, 1] */
        sizes[1] = t->sizes[0];
    } else if (t->ndim == 2) { /* [m, n] -> [m, n, 1] */
        sizes[0] = t->sizes[0];
        sizes[1] = t->sizes[1];
    }
    return shape_out(c, shape_reshape(c, t, want, sizes));
}

/* ---- kernels: dims --------------------------------------------------------- */

/* permute(Tensor(a) self, int[] dims) */
EpStatus k_permute(OpCall *c)
{
    int64_t dims[EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 1, dims, EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_permute(c, arg_tensor(c, 0), n, dims));
}

/* transpose.int / swapaxes / swapdims(Tensor(a) self, int dim0, int dim1) */
EpStatus k_transpose(OpCall *c)
{
    return shape_out(c, shape_transpose(c, arg_tensor(c, 0), arg_int(c, 1), arg_int(c, 2)));
}

/* t(Tensor(a) self): transpose of a matrix, a vector or scalar as is */
EpStatus k_t(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    if (t->ndim > 2)
        return op_fail(c, "t() expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
    return shape_out(c, shape_transpose(c, t, 0, t->ndim < 2 ? 0 : 1));
}

/* numpy_T(Tensor(a) self): all dims reversed */
EpStatus k_numpy_t(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t dims[EP_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        dims[i] = t->ndim - 1 - i;
    return shape_out(c, shape_permute(c, t, t->ndim, dims));
}

/* mT / mH / adjoint(Tensor(a) self): the last two dims swapped (mH and
** adjoint also conjugate, a no-op for real dtypes) */
EpStatus k_matrix_t(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    if (t->ndim < 2) {
        const char *name = c->op->id == OP_MT ? "tensor.mT" : c->op->id == OP_MH ? "tensor.mH" : "tensor.adjoint()";
        return op_fail(c, "%s is only supported on matrices or batches of matrices. Got %d-D tensor.", name, t->ndim);
    }
    return shape_out(c, shape_transpose(c, t, -2, -1));
}

/* movedim.int / movedim.intlist / moveaxis: the dims in source move to the
** positions in destination; the others keep their order */
EpStatus k_movedim(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t src[EP_MAX_DIMS + 1], dst[EP_MAX_DIMS + 1], perm[EP_MAX_DIMS];
    char b1[256], b2[256];
    int ns = shape_int_list_arg(c, 1, src, EP_MAX_DIMS + 1);
    int nd = ns < 0 ? -1 : shape_int_list_arg(c, 2, dst, EP_MAX_DIMS + 1);
    if (nd < 0)
        return c->err->code;
    if (ns != nd)
        return op_fail(c, "movedim: Invalid source or destination dims: source (%s dims) should contain the same "
                       "number of dims as destination (%s dims)", shape_str(ns, src, b1, sizeof b1),
                       shape_str(nd, dst, b2, sizeof b2));
    bool src_used[EP_MAX_DIMS] = {false}, dst_used[EP_MAX_DIMS] = {false};
    int ndim = t->ndim;
    for (int i = 0; i < ns; i++) {
        int s, d;
        if (shape_wrap_dim(c, src[i], ndim, &s) || shape_wrap_dim(c, dst[i], ndim, &d))
            return c->err->code;
        if (src_used[s])
            return op_fail(c, "movedim: repeated dim in `source` (%s)", shape_str(ns, src, b1, sizeof b1));
        if (dst_used[d])
            return op_fail(c, "movedim: repeated dim in `destination` (%s)", shape_str(nd, dst, b1, sizeof b1));
        src_used[s] = dst_used[d] = true;
        if (ndim > 0)
            perm[d] = s;
    }
    if (ndim == 0)
        return shape_out(c, shape_alias(c, t));
    int next_src = 0;
    for (int d = 0; d < ndim; d++) {
        if (dst_used[d])
            continue;
        while (src_used[next_src])
            next_src++;
        perm[d] = next_src++;
    }
    return shape_out(c, shape_permute(c, t, ndim, perm));
}

/* squeeze(Tensor(a) self), squeeze.dim(self, int dim),
** squeeze.dims(self, int[] dim): drop size-1 dims (named ones of another
** size stay, without error) */
EpStatus k_squeeze(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    bool drop[EP_MAX_DIMS] = {false};
    if (c->op->id == OP_SQUEEZE) {
        for (int i = 0; i < t->ndim; i++)
            drop[i] = t->sizes[i] == 1;
    } else {
        int64_t dims[EP_MAX_DIMS + 1];
        int n = shape_int_list_arg(c, 1, dims, EP_MAX_DIMS + 1);
        if (n < 0)
            return c->err->code;
        bool seen[EP_MAX_DIMS + 1] = {false};
        for (int k = 0; k < n; k++) {
            int d;
            if (shape_wrap_dim(c, dims[k], t->ndim, &d))
                return c->err->code;
            if (seen[d])
                return op_fail(c, "dim %d appears multiple times in the list of dims", d);
            seen[d] = true;
            if (t->ndim > 0 && t->sizes[d] == 1)
                drop[d] = true;
        }
    }
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (!drop[i]) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    return shape_out(c, shape_make_view(c, t, t->dtype, n, sizes, strides, t->offset));
}

/* unsqueeze(Tensor(a) self, int dim) */
EpStatus k_unsqueeze(OpCall *c)
{
    return shape_out(c, shape_unsqueeze(c, arg_tensor(c, 0), arg_int(c, 1)));
}

/* expand(Tensor(a) self, SymInt[] size, *, bool implicit=False);
** broadcast_to(Tensor(a) self, SymInt[] size) */
EpStatus k_expand(OpCall *c)
{
    int64_t size[EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 1, size, EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_expand(c, arg_tensor(c, 0), n, size));
}

/* expand_as(Tensor(a) self, Tensor other) */
EpStatus k_expand_as(OpCall *c)
{
    Tensor *other = arg_tensor(c, 1);
    return shape_out(c, shape_expand(c, arg_tensor(c, 0), other->ndim, other->sizes));
}

/* broadcast_tensors(Tensor[] tensors) -> Tensor[]: every tensor expanded
** to the common broadcast shape */
EpStatus k_broadcast_tensors(OpCall *c)
{
    const ValueList *l = arg_list(c, 0);
    int64_t shape[EP_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        const Tensor *t = l->items[i].t;
        int64_t next[EP_MAX_DIMS];
        int nn = 0;
        if (!shape_broadcast(n, shape, t->ndim, t->sizes, &nn, next)) {
            /* name the first mismatching dim as PyTorch's infer_size does */
            int m = n > t->ndim ? n : t->ndim;
            for (int k = m - 1; k >= 0; k--) {
                int ia = n - m + k, ib = t->ndim - m + k;
                int64_t sa = ia >= 0 ? shape[ia] : 1, sb = ib >= 0 ? t->sizes[ib] : 1;
                if (sa != sb && sa != 1 && sb != 1)
                    return op_fail(c, "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                                   "non-singleton dimension %d", (long long)sa, (long long)sb, k);
            }
            return op_fail(c, "tensors do not broadcast");
        }
        n = nn;
        memcpy(shape, next, (size_t)n * sizeof *shape);
    }
    ValueList *out = value_list_new(l->n);
    for (int i = 0; i < l->n; i++) {
        Tensor *r = shape_expand(c, l->items[i].t, n, shape);
        if (!r) {
            Value tmp = {.kind = V_LIST};
            tmp.list = out;
            value_clear(&tmp);
            return c->err->code;
        }
        out->items[i] = value_tensor(r);
    }
    c->outs[0].kind = V_LIST;
    c->outs[0].list = out;
    return EP_OK;
}

/* ---- kernels: windows ------------------------------------------------------ */

/* slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None,
** SymInt? end=None, SymInt step=1) */
EpStatus k_slice(OpCall *c)
{
    int64_t start = arg_int(c, 2), end = arg_int(c, 3);
    return shape_out(c, shape_slice(c, arg_tensor(c, 0), arg_int(c, 1), arg_is_none(c, 2) ? NULL : &start,
                                    arg_is_none(c, 3) ? NULL : &end, arg_int(c, 4)));
}

/* select.int(Tensor(a) self, int dim, SymInt index) */
EpStatus k_select(OpCall *c)
{
    return shape_out(c, shape_select(c, arg_tensor(c, 0), arg_int(c, 1), arg_int(c, 2)));
}

/* narrow(Tensor(a) self, int dim, SymInt start, SymInt length);
** narrow.Tensor(self, int dim, Tensor start, SymInt length) */
EpStatus k_narrow(OpCall *c)
{
    int64_t start;
    if (c->op->id == OP_NARROW_TENSOR) {
        const Tensor *s = arg_tensor(c, 2);
        if (s->ndim != 0 || !dtype_is_integral(s->dtype) || s->dtype == DT_BOOL)
            return op_fail(c, "start must be an 0-dim integral Tensor.");
        start = tensor_item_i64(s);
    } else {
        start = arg_int(c, 2);
    }
    return shape_out(c, shape_narrow(c, arg_tensor(c, 0), arg_int(c, 1), start, arg_int(c, 3)));
}

/* as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride,
** SymInt? storage_offset=None) */
EpStatus k_as_strided(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t size[EP_MAX_DIMS], stride[EP_MAX_DIMS];
    int n = shape_size_stride_args(c, 1, size, stride);
    if (n < 0)
        return c->err->code;
    if (shape_check_sizes(c, n, size) || shape_check_strides(c, n, stride))
        return c->err->code;
    int64_t offset = arg_is_none(c, 3) ? t->offset : arg_int(c, 3);
    if (offset < 0)
        return op_fail(c, "Tensor: invalid storage offset %lld", (long long)offset);
    return shape_out(c, shape_make_view(c, t, t->dtype, n, size, stride, offset));
}

/* diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) */
EpStatus k_diagonal(OpCall *c)
{
    return shape_out(c, shape_diagonal(c, arg_tensor(c, 0), arg_int(c, 1), arg_int(c, 2), arg_int(c, 3)));
}

/* unfold(Tensor(a) self, int dimension, int size, int step): windows of
** size elements every step along dimension, as a new last dim */
EpStatus k_unfold(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t size = arg_int(c, 2), step = arg_int(c, 3);
    int d;
    if (shape_wrap_dim(c, arg_int(c, 1), t->ndim, &d))
        return c->err->code;
    if (t->ndim >= EP_MAX_DIMS)
        return op_fail(c, "tensors of rank %d are not supported (at most %d dims)", t->ndim + 1, EP_MAX_DIMS);
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size)
        return op_fail(c, "maximum size for tensor at dimension %d is %lld but size is %lld", d,
                       (long long)max_size, (long long)size);
    if (size < 0)
        return op_fail(c, "size is %lld but must be >= 0", (long long)size);
    if (step <= 0)
        return op_fail(c, "step is %lld but must be > 0", (long long)step);
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) {
        sizes[i] = t->sizes[i];
        strides[i] = t->strides[i];
    }
    if (t->ndim > 0) {
        sizes[d] = (t->sizes[d] - size) / step + 1;
        /* a single window's stride is moot (and step may be huge) */
        if (sizes[d] > 1)
            strides[d] = shape_wmul(step, t->strides[d]);
    }
    sizes[t->ndim] = size;
    strides[t->ndim] = t->ndim == 0 ? 1 : t->strides[d];
    return shape_out(c, shape_make_view(c, t, t->dtype, t->ndim + 1, sizes, strides, t->offset));
}
