/*
** shape_reorder.c -- operators that move elements around without
** arithmetic: flip (fliplr, flipud), roll, rot90, tril / triu and padding
** (constant_pad_nd, pad, and the reflect / replicate / circular pads).
** Semantics: aten/src/ATen/native/TensorTransformations.cpp,
** TriangularOps.cpp, PadNd.cpp, ReflectionPad.cpp, ReplicationPadding.cpp.
*/
#include "shape_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- flip, roll, rot90 ----------------------------------------------------- */

Tensor *shape_flip(OpCall *c, Tensor *t, int n, const int64_t *dims)
{
    bool flip[EP_MAX_DIMS] = {false};
    int unique = 0;
    for (int i = 0; i < n; i++) {
        int d;
        if (shape_wrap_dim(c, dims[i], t->ndim, &d) != EP_OK)
            return NULL;
        if (!flip[d])
            unique++;
        flip[d] = true;
    }
    if (unique != n) {
        op_fail(c, "dims has duplicates, original flip dims size=%d, but unique flip dims size=%d", n, unique);
        return NULL;
    }
    /* read the input through a view that walks the flipped dims backwards */
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    int64_t offset = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        sizes[i] = t->sizes[i];
        strides[i] = t->strides[i];
        if (flip[i] && sizes[i] > 1) {
            offset = shape_wadd(offset, shape_wmul(sizes[i] - 1, strides[i]));
            strides[i] = shape_wmul(strides[i], -1);
        }
    }
    Tensor *out = shape_new_like(c, t, t->dtype, MF_PRESERVE, false);
    Tensor *view = out ? shape_make_view(c, t, t->dtype, t->ndim, sizes, strides, offset) : NULL;
    if (!view || tensor_copy_into(out, view, c->err) != EP_OK) {
        tensor_unref(out);
        out = NULL;
    }
    tensor_unref(view);
    return out;
}

/* flip(Tensor self, int[] dims) */
EpStatus k_flip(OpCall *c)
{
    int64_t dims[EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 1, dims, EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    return shape_out(c, shape_flip(c, arg_tensor(c, 0), n, dims));
}

/* fliplr(Tensor self): flip dim 1; flipud(Tensor self): flip dim 0 */
EpStatus k_flip_lr_ud(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    bool lr = c->op->id == OP_FLIPLR;
    if (t->ndim < (lr ? 2 : 1))
        return op_fail(c, "Input must be >= %d-d.", lr ? 2 : 1);
    int64_t dim = lr ? 1 : 0;
    return shape_out(c, shape_flip(c, t, 1, &dim));
}

/* t rolled by shift along dim d: element i moves to (i + shift) mod size.
** Two block copies into a fresh contiguous tensor. */
static Tensor *roll_dim(OpCall *c, Tensor *t, int d, int64_t shift)
{
    int64_t size = t->sizes[d];
    if (tensor_numel(t) == 0)
        return shape_copy_as(c, t, t->dtype, MF_PRESERVE);
    int64_t start = (size - shift % size) % size; /* first input index of the output */
    Tensor *out = shape_new_like(c, t, t->dtype, MF_CONTIGUOUS, false);
    if (!out)
        return NULL;
    int64_t head = size - start;
    int64_t src_lo[2] = {start, 0}, src_hi[2] = {size, start};
    int64_t dst_lo[2] = {0, head}, dst_hi[2] = {head, size};
    for (int k = 0; k < 2; k++) {
        if (src_lo[k] == src_hi[k])
            continue;
        Tensor *src = shape_slice(c, t, d, &src_lo[k], &src_hi[k], 1);
        Tensor *dst = src ? shape_slice(c, out, d, &dst_lo[k], &dst_hi[k], 1) : NULL;
        EpStatus rc = dst ? tensor_copy_into(dst, src, c->err) : c->err->code;
        tensor_unref(src);
        tensor_unref(dst);
        if (rc) {
            tensor_unref(out);
            return NULL;
        }
    }
    return out;
}

/* roll(Tensor self, SymInt[1] shifts, int[1] dims=[]): with no dims the
** flattened tensor is rolled and given its shape back */
EpStatus k_roll(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t shifts[EP_MAX_DIMS + 1], dims[EP_MAX_DIMS + 1];
    int ns = shape_int_list_arg(c, 1, shifts, EP_MAX_DIMS + 1);
    int nd = ns < 0 ? -1 : shape_int_list_arg(c, 2, dims, EP_MAX_DIMS + 1);
    if (nd < 0)
        return c->err->code;
    if (nd == 0) {
        if (ns != 1)
            return op_fail(c, "shifts and dimensions must align. shifts: %d, dims:%d", ns, nd);
        int64_t all = -1;
        Tensor *flat = shape_reshape(c, t, 1, &all);
        Tensor *rolled = flat ? roll_dim(c, flat, 0, shifts[0]) : NULL;
        Tensor *r = rolled ? shape_reshape(c, rolled, t->ndim, t->sizes) : NULL;
        tensor_unref(flat);
        tensor_unref(rolled);
        return shape_out(c, r);
    }
    if (ns != nd)
        return op_fail(c, "shifts and dimensions must align. shifts: %d, dims:%d", ns, nd);
    Tensor *cur = tensor_ref(t);
    for (int i = 0; i < nd && cur; i++) {
        int d;
        Tensor *next = NULL;
        if (shape_wrap_dim(c, dims[i], t->ndim, &d) == EP_OK) {
            if (t->ndim == 0) /* a scalar rolls onto itself */
                next = shape_copy_as(c, cur, cur->dtype, MF_PRESERVE);
            else
                next = roll_dim(c, cur, d, shifts[i]);
        }
        tensor_unref(cur);
        cur = next;
    }
    return shape_out(c, cur);
}

/* rot90(Tensor self, int k=1, int[] dims=[0,1]): k quarter turns from the
** first dim towards the second */
EpStatus k_rot90(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t k = arg_int(c, 1), dims[EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 2, dims, EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    int64_t nd = t->ndim;
    if (n != 2)
        return op_fail(c, "expected total rotation dims == 2, but got dims = %d", n);
    if (nd < 2)
        return op_fail(c, "expected total dims >= 2, but got total dims = %lld", (long long)nd);
    /* ranges first (PyTorch checks them second) so the gap cannot overflow */
    if (dims[0] >= nd || dims[0] < -nd)
        return op_fail(c, "Rotation dim0 out of range, dim0 = %lld", (long long)dims[0]);
    if (dims[1] >= nd || dims[1] < -nd)
        return op_fail(c, "Rotation dim1 out of range, dim1 = %lld", (long long)dims[1]);
    int64_t gap = dims[0] > dims[1] ? dims[0] - dims[1] : dims[1] - dims[0];
    if (dims[0] == dims[1] || gap == nd)
        return op_fail(c, "expected rotation dims to be different, but got dim0 = %lld and dim1 = %lld",
                       (long long)dims[0], (long long)dims[1]);
    k = (4 + k % 4) % 4;
    if (k == 0)
        return shape_out(c, shape_copy_as(c, t, t->dtype, MF_CONTIGUOUS));
    if (k == 2)
        return shape_out(c, shape_flip(c, t, 2, dims));
    /* a quarter turn: flip one dim, then swap the two (the result keeps
    ** the transposed strides, as PyTorch's transpose_ leaves them) */
    Tensor *f = shape_flip(c, t, 1, &dims[k == 1 ? 1 : 0]);
    Tensor *r = f ? shape_transpose(c, f, dims[0], dims[1]) : NULL;
    tensor_unref(f);
    return shape_out(c, r);
}

/* ---- tril / triu ----------------------------------------------------------- */

/* Zero the elements of every matrix (last two dims) of t outside the band:
** lower keeps column j <= i + k, upper keeps j >= i + k.  Any strides. */
static void zero_outside_band(Tensor *t, int64_t k, bool lower)
{
    int nd = t->ndim;
    int64_t rows = t->sizes[nd - 2], cols = t->sizes[nd - 1];
    int64_t rs = t->strides[nd - 2], cs = t->strides[nd - 1];
    if (rows == 0 || cols == 0)
        return;
    int64_t batch = tensor_numel(t) / (rows * cols);
    const size_t es = (size_t)dtype_size(t->dtype);
    char *base = tensor_data(t);
    /* clamping k keeps i + k from overflowing without changing the band */
    if (k > cols + 1)
        k = cols + 1;
    if (k < -rows - 1)
        k = -rows - 1;
    for (int64_t b = 0; b < batch; b++) {
        int64_t off = 0, rem = b;
        for (int i = nd - 3; i >= 0; i--) {
            off += (rem % t->sizes[i]) * t->strides[i];
            rem /= t->sizes[i];
        }
        for (int64_t i = 0; i < rows; i++) {
            int64_t j0 = lower ? i + k + 1 : 0, j1 = lower ? cols : i + k;
            j0 = j0 < 0 ? 0 : j0 > cols ? cols : j0;
            j1 = j1 < 0 ? 0 : j1 > cols ? cols : j1;
            char *row = base + (off + i * rs) * (int64_t)es;
            if (cs == 1 && j1 > j0) {
                memset(row + j0 * (int64_t)es, 0, (size_t)(j1 - j0) * es);
                continue;
            }
            for (int64_t j = j0; j < j1; j++)
                memset(row + j * cs * (int64_t)es, 0, es);
        }
    }
}

/* tril / triu(Tensor self, int diagonal=0) and the in-place tril_ / triu_ */
EpStatus k_tril_triu(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    OpId id = c->op->id;
    bool lower = id == OP_TRIL || id == OP_TRIL_;
    bool inplace = id == OP_TRIL_ || id == OP_TRIU_;
    if (t->ndim < 2)
        return op_fail(c, "%s: input tensor must have at least 2 dimensions", lower ? "tril" : "triu");
    if (inplace) {
        if (tensor_make_writable(t, c->err) != EP_OK)
            return c->err->code;
        zero_outside_band(t, arg_int(c, 1), lower);
        out_tensor(c, 0, tensor_ref(t));
        return EP_OK;
    }
    Tensor *r = shape_copy_as(c, t, t->dtype, MF_CONTIGUOUS);
    if (r)
        zero_outside_band(r, arg_int(c, 1), lower);
    return shape_out(c, r);
}

/* ---- padding ----------------------------------------------------------------- */

/* constant_pad_nd of t with pads (n entries: last dim's left, right, then
** the dim before ...) and fill value v.  Negative pads crop. */
static Tensor *constant_pad(OpCall *c, Tensor *t, int n, const int64_t *pad, const Value *v)
{
    if (n % 2) {
        op_fail(c, "Length of pad must be even but instead it equals %d", n);
        return NULL;
    }
    int l_inp = t->ndim, l_pad = n / 2, l_diff = l_inp - l_pad;
    if (l_inp < l_pad) {
        op_fail(c, "Length of pad should be no more than twice the number of dimensions of the input. Pad "
                   "length is %d while the input has %d dimensions.", n, l_inp);
        return NULL;
    }
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    bool grows = false;
    for (int i = l_diff; i < l_inp; i++) {
        int p = 2 * (l_inp - i - 1);
        int64_t sz;
        if (pad[p] == INT64_MIN || pad[p + 1] == INT64_MIN) {
            op_fail(c, "padding %lld is out of range", (long long)INT64_MIN);
            return NULL;
        }
        grows = grows || pad[p] > 0 || pad[p + 1] > 0;
        if (!ep_add_i64(t->sizes[i], pad[p], &sz) || !ep_add_i64(sz, pad[p + 1], &sz) || sz < 0) {
            op_fail(c, "The input size %lld, plus negative padding %lld and %lld resulted in a negative "
                       "output size, which is invalid. Check dimension %d of your input.",
                    (long long)t->sizes[i], (long long)pad[p], (long long)pad[p + 1], i);
            return NULL;
        }
        sizes[i] = sz;
    }
    /* the part of the input that survives negative pads ... */
    Tensor *in = tensor_ref(t);
    for (int i = l_diff; i < l_inp && in; i++) {
        int p = 2 * (l_inp - i - 1);
        int64_t lo = pad[p] < 0 ? -pad[p] : 0, hi = in->sizes[i] + (pad[p + 1] < 0 ? pad[p + 1] : 0);
        Tensor *next = lo < hi ? shape_slice(c, in, i, &lo, &hi, 1) : shape_slice(c, in, i, &lo, &lo, 1);
        tensor_unref(in);
        in = next;
    }
    if (!in)
        return NULL;
    if (!grows) {
        Tensor *r = shape_copy_as(c, in, in->dtype, MF_PRESERVE);
        tensor_unref(in);
        return r;
    }
    Tensor *out = NULL;
    if (shape_format_strides(c, shape_suggest_memory_format(t), l_inp, sizes, strides) == EP_OK)
        out = shape_new_strided(c, t->dtype, l_inp, sizes, strides, false);
    if (!out || shape_fill(c, out, v) != EP_OK) {
        tensor_unref(in);
        tensor_unref(out);
        return NULL;
    }
    /* ... goes where the positive pads leave room */
    Tensor *dst = tensor_ref(out);
    for (int i = l_diff; i < l_inp && dst; i++) {
        int p = 2 * (l_inp - i - 1);
        int64_t lo = pad[p] > 0 ? pad[p] : 0, hi = lo + in->sizes[i];
        Tensor *next = shape_slice(c, dst, i, &lo, &hi, 1);
        tensor_unref(dst);
        dst = next;
    }
    EpStatus rc = dst ? tensor_copy_into(dst, in, c->err) : c->err->code;
    tensor_unref(dst);
    tensor_unref(in);
    if (rc) {
        tensor_unref(out);
        return NULL;
    }
    return out;
}

/* constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) */
EpStatus k_constant_pad_nd(OpCall *c)
{
    int64_t pad[2 * EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 1, pad, 2 * EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    return shape_out(c, constant_pad(c, arg_tensor(c, 0), n, pad, arg_scalar(c, 2)));
}

enum { PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR };

/* Input index feeding output index j of a dim of size n padded by (l, r)
** (the ReflectionPad / ReplicationPad kernels' formulas; negative pads
** crop). */
static int64_t pad_source(int mode, int64_t j, int64_t n, int64_t l)
{
    int64_t i;
    if (mode == PAD_CIRCULAR) {
        i = (j - l) % n;
        return i < 0 ? i + n : i;
    }
    if (mode == PAD_REFLECT)
        i = j < l ? 2 * l - j : j < n + l ? j : 2 * (n + l - 1) - j;
    else
        i = j < l ? l : j < n + l ? j : n + l - 1;
    return i - (l > 0 ? l : 0) + (l < 0 ? -l : 0);
}

/* t padded along dim d by (l, r) in mode: the overlap with the input in
** one block copy, every padded position by its own. */
static Tensor *pad_dim(OpCall *c, Tensor *t, int d, int64_t l, int64_t r, int mode)
{
    char buf[256];
    int64_t n = t->sizes[d];
    const char *what = mode == PAD_REFLECT ? "reflect" : mode == PAD_REPLICATE ? "replicate" : "circular";
    if (mode == PAD_REFLECT && (l >= n || r >= n)) {
        op_fail(c, "Argument #4: Padding size should be less than the corresponding input dimension, but "
                   "got: padding (%lld, %lld) at dimension %d of input %s", (long long)l, (long long)r, d,
                shape_str(t->ndim, t->sizes, buf, sizeof buf));
        return NULL;
    }
    if (mode == PAD_CIRCULAR && (l > n || r > n)) {
        op_fail(c, "Padding value causes wrapping around more than once.");
        return NULL;
    }
    int64_t m;
    if (!ep_add_i64(n, l, &m) || !ep_add_i64(m, r, &m)) {
        op_fail(c, "padding (%lld, %lld) at dimension %d is too large", (long long)l, (long long)r, d);
        return NULL;
    }
    if (n < 1 || m < 1) {
        op_fail(c, "input (size %lld) is too small for %s padding (%lld, %lld) at dimension %d", (long long)n,
                what, (long long)l, (long long)r, d);
        return NULL;
    }
    int64_t sizes[EP_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    sizes[d] = m;
    Tensor *out = shape_new_contiguous(c, t->dtype, t->ndim, sizes, false);
    if (!out || tensor_numel(out) == 0) /* nothing to copy, however wide */
        return out;
    int64_t mid_lo = l > 0 ? l : 0, mid_hi = n + l < m ? n + l : m;
    EpStatus rc = EP_OK;
    for (int64_t j = 0; j < m && rc == EP_OK; j++) {
        int64_t slo, shi, dlo = j, dhi = j + 1;
        if (j == mid_lo && mid_lo < mid_hi) { /* the unpadded middle */
            slo = pad_source(mode, j, n, l);
            shi = slo + (mid_hi - mid_lo);
            dhi = mid_hi;
            j = mid_hi - 1;
        } else {
            slo = pad_source(mode, j, n, l);
            shi = slo + 1;
        }
        Tensor *src = shape_slice(c, t, d, &slo, &shi, 1);
        Tensor *dst = src ? shape_slice(c, out, d, &dlo, &dhi, 1) : NULL;
        rc = dst ? tensor_copy_into(dst, src, c->err) : c->err->code;
        tensor_unref(src);
        tensor_unref(dst);
    }
    if (rc) {
        tensor_unref(out);
        return NULL;
    }
    return out;
}

/* t padded in mode over its last n/2 dims (pad as constant_pad_nd). */
static Tensor *pad_nonconstant(OpCall *c, Tensor *t, int n, const int64_t *pad, int mode)
{
    Tensor *cur = tensor_ref(t);
    for (int k = 0; k < n / 2 && cur; k++) {
        Tensor *next = pad_dim(c, cur, t->ndim - 1 - k, pad[2 * k], pad[2 * k + 1], mode);
        tensor_unref(cur);
        cur = next;
    }
    return cur;
}

/* pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) */
EpStatus k_pad(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    const char *mode = arg_str(c, 2);
    int64_t pad[2 * EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 1, pad, 2 * EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    if (strcmp(mode, "constant") == 0) {
        Value v = value_float(arg_is_none(c, 3) ? 0.0 : arg_float(c, 3));
        return shape_out(c, constant_pad(c, t, n, pad, &v));
    }
    int m = strcmp(mode, "reflect") == 0 ? PAD_REFLECT : strcmp(mode, "replicate") == 0 ? PAD_REPLICATE
            : strcmp(mode, "circular") == 0 ? PAD_CIRCULAR : -1;
    if (m < 0)
        return op_fail(c, "Unrecognised padding mode %s", mode);
    if (!arg_is_none(c, 3) && arg_float(c, 3) != 0)
        return op_fail(c, "Padding mode \"%s\" doesn't take in value argument", mode);
    int dim = t->ndim;
    if (!((n == 2 && (dim == 2 || dim == 3)) || (n == 4 && (dim == 3 || dim == 4)) ||
          (n == 6 && (dim == 4 || dim == 5))))
        return op_fail(c, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    return shape_out(c, pad_nonconstant(c, t, n, pad, m));
}

/* reflection_pad{1,2,3}d / replication_pad{1,2,3}d(Tensor self, SymInt[N] padding)
** and _pad_circular(Tensor self, SymInt[] pad) */
EpStatus k_pad_mode(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    OpId id = c->op->id;
    int64_t pad[2 * EP_MAX_DIMS + 1];
    int n = shape_int_list_arg(c, 1, pad, 2 * EP_MAX_DIMS + 1);
    if (n < 0)
        return c->err->code;
    int mode = (id == OP_REFLECTION_PAD1D || id == OP_REFLECTION_PAD2D || id == OP_REFLECTION_PAD3D) ? PAD_REFLECT
               : id == OP_PAD_CIRCULAR ? PAD_CIRCULAR : PAD_REPLICATE;
    int k = n / 2; /* spatial dims; one batch/channel dim may precede them */
    if (mode != PAD_CIRCULAR && t->ndim != k + 1 && t->ndim != k + 2)
        return op_fail(c, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other "
                          "non-zero dimensions for input, but got: %dD", k + 1, k + 2, t->ndim);
    if (n % 2 || k > t->ndim)
        return op_fail(c, "padding size %d does not fit a %d-D input", n, t->ndim);
    return shape_out(c, pad_nonconstant(c, t, n, pad, mode));
}

/* ---- diagonals and blocks ------------------------------------------------------ */

/* out (owned) with src copied into view (a view of out, taken); out is
** returned, or NULL on failure. */
static Tensor *write_into(OpCall *c, Tensor *out, Tensor *view, const Tensor *src)
{
    EpStatus rc = view ? tensor_copy_into(view, src, c->err) : c->err->code;
    tensor_unref(view);
    if (rc) {
        tensor_unref(out);
        return NULL;
    }
    return out;
}

/* A zero-filled contiguous tensor. */
static Tensor *new_zeros(OpCall *c, DType dtype, int ndim, const int64_t *sizes)
{
    return shape_new_contiguous(c, dtype, ndim, sizes, true);
}

/* diag(Tensor self, int diagonal=0): a vector becomes the given diagonal of
** a square matrix, a matrix gives a copy of that diagonal (empty for an
** offset off the end, where PyTorch 1.13's own kernel overflowed; modern
** PyTorch uses diag_embed / diagonal_copy, followed here) */
EpStatus k_diag(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t k = arg_int(c, 1);
    if (t->ndim == 2) {
        Tensor *view = shape_diagonal(c, t, k, 0, 1);
        Tensor *r = view ? shape_copy_as(c, view, t->dtype, MF_CONTIGUOUS) : NULL;
        tensor_unref(view);
        return shape_out(c, r);
    }
    if (t->ndim != 1)
        return op_fail(c, "diag(): Supports 1D or 2D tensors. Got %dD", t->ndim);
    int64_t m, sizes[2];
    if (k == INT64_MIN || !ep_add_i64(t->sizes[0], k < 0 ? -k : k, &m))
        return op_fail(c, "diag(): diagonal %lld is too large", (long long)k);
    sizes[0] = sizes[1] = m;
    Tensor *out = new_zeros(c, t->dtype, 2, sizes);
    return shape_out(c, out ? write_into(c, out, shape_diagonal(c, out, k, 0, 1), t) : NULL);
}

/* diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1): the last
** dim of self becomes a diagonal over two new dims of a zero tensor */
EpStatus k_diag_embed(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t offset = arg_int(c, 1);
    int nd = t->ndim + 1, a, b;
    if (t->ndim == 0)
        return op_fail(c, "diag_embed(): input must have at least 1 dimension");
    if (nd > EP_MAX_DIMS)
        return op_fail(c, "tensors of rank %d are not supported (at most %d dims)", nd, EP_MAX_DIMS);
    if (shape_wrap_dim(c, arg_int(c, 2), nd, &a) || shape_wrap_dim(c, arg_int(c, 3), nd, &b))
        return c->err->code;
    if (a == b)
        return op_fail(c, "diagonal dimensions cannot be identical %lld, %lld", (long long)arg_int(c, 2),
                       (long long)arg_int(c, 3));
    int64_t n;
    if (offset == INT64_MIN || !ep_add_i64(t->sizes[t->ndim - 1], offset < 0 ? -offset : offset, &n))
        return op_fail(c, "diag_embed(): offset %lld is too large", (long long)offset);
    int lo = a < b ? a : b, hi = a < b ? b : a;
    int64_t sizes[EP_MAX_DIMS];
    for (int i = 0, k = 0; i < nd; i++)
        sizes[i] = (i == lo || i == hi) ? n : t->sizes[k++];
    Tensor *out = new_zeros(c, t->dtype, nd, sizes);
    return shape_out(c, out ? write_into(c, out, shape_diagonal(c, out, offset, a, b), t) : NULL);
}

/* block_diag(Tensor[] tensors): the inputs (as matrices; a vector is one
** row, a scalar 1x1) along the diagonal of a zero matrix, in the promoted
** dtype */
EpStatus k_block_diag(OpCall *c)
{
    const ValueList *l = arg_list(c, 0);
    int64_t rows = 0, cols = 0;
    Tensor **ts = ep_xmalloc((size_t)(l->n > 0 ? l->n : 1) * sizeof *ts);
    for (int i = 0; i < l->n; i++) {
        ts[i] = l->items[i].t;
        int nd = ts[i]->ndim;
        if (nd > 2) {
            free(ts);
            return op_fail(c, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %d has %d "
                              "dimensions", i, nd);
        }
        rows += nd == 2 ? ts[i]->sizes[0] : 1;
        cols += nd == 2 ? ts[i]->sizes[1] : nd == 1 ? ts[i]->sizes[0] : 1;
    }
    DType dtype = l->n ? result_type(l->n, ts, 0, NULL) : DT_F32;
    int64_t sizes[2] = {l->n ? rows : 1, cols};
    Tensor *out = new_zeros(c, dtype, 2, sizes);
    int64_t r0 = 0, c0 = 0;
    for (int i = 0; i < l->n && out; i++) {
        const Tensor *t = ts[i];
        int64_t h = t->ndim == 2 ? t->sizes[0] : 1, w = t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
        int64_t r1 = r0 + h, c1 = c0 + w;
        Tensor *band = shape_slice(c, out, 0, &r0, &r1, 1);
        Tensor *block = band ? shape_slice(c, band, 1, &c0, &c1, 1) : NULL;
        tensor_unref(band);
        /* tensor_copy_into broadcasts a vector or scalar over its block */
        out = write_into(c, out, block, t);
        r0 = r1;
        c0 = c1;
    }
    free(ts);
    return shape_out(c, out);
}

/* channel_shuffle / native_channel_shuffle(Tensor self, SymInt groups): the
** channels (dim 1) regrouped from [groups, C/groups] to [C/groups, groups] */
EpStatus k_channel_shuffle(OpCall *c)
{
    Tensor *t = arg_tensor(c, 0);
    int64_t g = arg_int(c, 1);
    char buf[256];
    if (t->ndim < 3)
        return op_fail(c, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes %s",
                       shape_str(t->ndim, t->sizes, buf, sizeof buf));
    if (g <= 0)
        return op_fail(c, "Number of groups to divide channels in must be positive. Value of groups:%lld",
                       (long long)g);
    if (t->sizes[1] % g)
        return op_fail(c, "Number of channels must be divisible by groups. Got %lld channels and %lld groups.",
                       (long long)t->sizes[1], (long long)g);
    if (t->ndim + 1 > EP_MAX_DIMS)
        return op_fail(c, "tensors of rank %d are not supported (at most %d dims)", t->ndim + 1, EP_MAX_DIMS);
    int64_t split[EP_MAX_DIMS];
    split[0] = t->sizes[0];
    split[1] = g;
    split[2] = t->sizes[1] / g;
    for (int i = 2; i < t->ndim; i++)
        split[i + 1] = t->sizes[i];
    Tensor *grouped = shape_reshape(c, t, t->ndim + 1, split);
    Tensor *swapped = grouped ? shape_transpose(c, grouped, 1, 2) : NULL;
    Tensor *dense = swapped ? shape_copy_as(c, swapped, t->dtype, MF_CONTIGUOUS) : NULL;
    Tensor *r = dense ? shape_view(c, dense, t->ndim, t->sizes) : NULL;
    tensor_unref(grouped);
    tensor_unref(swapped);
    tensor_unref(dense);
    return shape_out(c, r);
}
