/*
** elementwise.c -- the pointwise runner of the elementwise family: operand
** conversion, broadcasting, in-place checks and the blocked inner loop that
** feeds a kernel's typed functions (see elementwise.h).
*/
#include "elementwise.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../parallel.h"

/* Elements per gathered block: big enough to amortise the call per block,
** small enough that the operand buffers live on the stack (6 x 4 KiB). */
#define EW_BLOCK 512

/* ---- dtype names and casting rules --------------------------------------- */

static const char *const C_TYPE_NAMES[DT_COUNT] = {
    [DT_BOOL] = "bool", [DT_U8] = "uint8_t",  [DT_I8] = "int8_t",         [DT_I16] = "int16_t", [DT_I32] = "int",
    [DT_I64] = "int64_t", [DT_F16] = "at::Half", [DT_BF16] = "at::BFloat16", [DT_F32] = "float", [DT_F64] = "double",
};

const char *ew_c_type_name(DType t)
{
    return t >= 0 && t < DT_COUNT ? C_TYPE_NAMES[t] : "?";
}

bool ew_can_cast(DType from, DType to)
{
    if (dtype_is_float(from) && !dtype_is_float(to))
        return false;
    if (from != DT_BOOL && to == DT_BOOL)
        return false;
    return true;
}

DType ew_compute_dtype(DType t)
{
    return (t == DT_F16 || t == DT_BF16) ? DT_F32 : t;
}

double ew_float_max(DType t)
{
    switch (t) {
    case DT_F16: return 65504.0;
    case DT_BF16: return 3.38953138925153547590470800371487866880e38;
    case DT_F32: return 3.40282346638528859811704183484516925440e38;
    default: return 1.79769313486231570814527423731704356798e308;
    }
}

EpStatus ew_scalar_to_dtype(OpCall *c, const Value *v, DType t, void *dst)
{
    bool overflow = false;
    if (t == DT_BOOL) {
        /* Scalar::to<bool> is x != 0 for every number */
    } else if (v->kind == V_FLOAT) {
        double f = v->f;
        if (dtype_is_float(t)) {
            overflow = isfinite(f) && (f > ew_float_max(t) || f < -ew_float_max(t));
        } else {
            /* no NaN or infinity in integers; the unsigned wrap-around that
            ** integer sources get does not apply to floats */
            double lo = t == DT_U8 ? 0.0 : t == DT_I8 ? -128.0 : t == DT_I16 ? -32768.0
                        : t == DT_I32 ? -2147483648.0 : -9223372036854775808.0;
            double hi = t == DT_U8 ? 255.0 : t == DT_I8 ? 127.0 : t == DT_I16 ? 32767.0
                        : t == DT_I32 ? 2147483647.0 : 9223372036854775807.0;
            overflow = !(f >= lo && f <= hi);
        }
    } else if (v->kind == V_INT) {
        int64_t i = v->i;
        switch (t) {
        case DT_U8: overflow = i > 255 || i < -255; break; /* negatives wrap, as c10 allows */
        case DT_I8: overflow = i > 127 || i < -128; break;
        case DT_I16: overflow = i > 32767 || i < -32768; break;
        case DT_I32: overflow = i > INT32_MAX || i < INT32_MIN; break;
        case DT_F16: overflow = i > 65504 || i < -65504; break;
        default: break;
        }
    }
    if (overflow)
        return op_fail(c, "value cannot be converted to type %s without overflow", ew_c_type_name(t));
    if (dst) {
        if (v->kind == V_FLOAT)
            dtype_store_f64(t, dst, v->f);
        else
            dtype_store_i64(t, dst, v->kind == V_BOOL ? v->b : v->i);
    }
    return EP_OK;
}

/* ---- copying rows ------------------------------------------------------------ */

/* Plain vector loads and stores, four 32-byte vectors a step, then the
** last bytes by memcpy.  Neither glibc's memcpy nor GCC's inline one: for
** the rows of a few KiB that cat, index_select and embedding copy, glibc
** takes `rep movsb` above 2-4 KiB and GCC inlines a bounded memcpy as `rep
** movsq`, both slower here than a vector loop (`rep movsq` was a fifth of
** an expand copy's time on an AMD EPYC). */
typedef char EwBytes32 __attribute__((vector_size(32)));
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void ew_copy_bytes(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        EwBytes32 a, b, c, e;
        memcpy(&a, s + i, 32);
        memcpy(&b, s + i + 32, 32);
        memcpy(&c, s + i + 64, 32);
        memcpy(&e, s + i + 96, 32);
        memcpy(d + i, &a, 32);
        memcpy(d + i + 32, &b, 32);
        memcpy(d + i + 64, &c, 32);
        memcpy(d + i + 96, &e, 32);
    }
    if (i < n)
        memcpy(d + i, s + i, n - i);
}

/* ---- broadcasting --------------------------------------------------------- */

EpStatus ew_broadcast_shape(OpCall *c, int n, Tensor *const *ts, int *ndim, int64_t *shape)
{
    int nd = 0;
    for (int k = 0; k < n; k++)
        if (ts[k] && ts[k]->ndim > nd)
            nd = ts[k]->ndim;
    for (int i = 0; i < nd; i++)
        shape[i] = 1;
    /* tensor a is the first operand that set a dimension, as PyTorch's
    ** infer_size names the running shape "a" and the new one "b" */
    for (int k = 0; k < n; k++) {
        const Tensor *t = ts[k];
        if (!t)
            continue;
        for (int i = 0; i < t->ndim; i++) {
            int d = nd - t->ndim + i;
            int64_t s = t->sizes[i];
            if (s == shape[d] || s == 1)
                continue;
            if (shape[d] == 1) {
                shape[d] = s;
                continue;
            }
            return op_fail(c, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                           (long long)shape[d], (long long)s, i);
        }
    }
    *ndim = nd;
    return EP_OK;
}

/* ---- the blocked inner loop ------------------------------------------------ */

typedef struct EwRun {
    EwFn fn;
    EwFn fn_bf16; /* the kernel's one-pass bfloat16 loop, or NULL (EW_BF16_LOOP) */
    int nin;
    DType src[EW_MAX_IN];  /* operand dtype in memory */
    DType via[EW_MAX_IN];  /* dtype it is rounded to (PyTorch's common dtype) */
    DType load[EW_MAX_IN]; /* dtype fn reads */
    DType res;             /* dtype fn writes */
    DType dst;             /* output tensor dtype */
    EwArgs *args;
} EwRun;

/* Copy n elements of size es with element stride sstride into contiguous
** dst: typed by width, since a memcpy call per element costs more than the
** arithmetic of most kernels. */
static void gather_same(int es, void *dst, const void *src, int64_t sstride, int64_t n)
{
    switch (es) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            ((uint8_t *)dst)[i] = ((const uint8_t *)src)[i * sstride];
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i] = ((const uint16_t *)src)[i * sstride];
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            ((uint32_t *)dst)[i] = ((const uint32_t *)src)[i * sstride];
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i * sstride];
        break;
    }
}

/* n elements of src_t with element stride sstride into dst_t elements with
** element stride dstride: the float16/bfloat16 <-> float32 conversions every
** reduced-precision op makes get loops of their own. */
static void convert_run(DType dst_t, void *dst, int64_t dstride, DType src_t, const void *src, int64_t sstride,
                        int64_t n)
{
    if (dst_t == src_t && dstride == 1) {
        gather_same(dtype_size(src_t), dst, src, sstride, n);
    } else if (dstride == 1 && sstride == 1 && (dst_t == DT_F32 || src_t == DT_F32)) {
        dtype_convert(dst_t, dst, 1, src_t, src, 1, n); /* the vector loops for halves */
    } else if (dst_t == DT_F16 && src_t == DT_F32) {
        for (int64_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i * dstride] = f32_to_f16(((const float *)src)[i * sstride]);
    } else if (dst_t == DT_BF16 && src_t == DT_F32) {
        for (int64_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i * dstride] = f32_to_bf16(((const float *)src)[i * sstride]);
    } else {
        dtype_convert(dst_t, dst, dstride, src_t, src, sstride, n);
    }
}

/* n elements of src_t with element stride sstride into contiguous dst. */
static void convert_block(DType dst_t, void *dst, DType src_t, const void *src, int64_t sstride, int64_t n)
{
    if (sstride == 0 && n > 1) { /* a broadcast scalar: convert once, replicate */
        convert_run(dst_t, dst, 1, src_t, src, 0, 1);
        gather_same(dtype_size(dst_t), dst, dst, 0, n);
        return;
    }
    convert_run(dst_t, dst, 1, src_t, src, sstride, n);
}

/* Operand k's block as fn wants it: the tensor's memory itself when it
** already is contiguous and of the load type, else converted into buf. */
static char *gather(const EwRun *r, int k, char *p, int64_t stride, int64_t m, char *buf, char *tmp)
{
    DType src = r->src[k], via = r->via[k], load = r->load[k];
    int es = dtype_size(src);
    if (src == load && via == load && stride == es)
        return p;
    if (via == src || via == load) {
        convert_block(load, buf, src, p, stride / es, m);
    } else { /* round through the common dtype, e.g. float64 -> float16 -> float32 */
        convert_block(via, tmp, src, p, stride / es, m);
        convert_block(load, buf, via, tmp, 1, m);
    }
    return buf;
}

/* The reference path (ew_set_reference_path): every call through the
** broadcasting iterator, fn called per EW_BLOCK, on the calling thread. */
static bool reference_path;

void ew_set_reference_path(bool on)
{
    reference_path = on;
}

bool ew_reference_path(void)
{
    return reference_path;
}

/* Whether r's run can go to its one-pass bfloat16 loop: output and every
** operand contiguous bfloat16, which the float32 function reads widened,
** each a bfloat16 value to begin with (not rounded through another dtype),
** and the result rounded straight to bfloat16.  Off on the reference path,
** which the tests compare it with. */
static bool ew_bf16_direct(const EwRun *r, const int64_t *stride)
{
    if (!r->fn_bf16 || reference_path || r->dst != DT_BF16 || r->res != DT_F32 || stride[0] != 2)
        return false;
    for (int k = 0; k < r->nin; k++)
        if (r->src[k] != DT_BF16 || r->via[k] != DT_BF16 || r->load[k] != DT_F32 || stride[k + 1] != 2)
            return false;
    return true;
}

static void ew_inner(char **data, const int64_t *stride, int64_t n, void *ctx)
{
    const EwRun *r = ctx;
    const int ds = dtype_size(r->dst);
    const bool direct_out = r->res == r->dst && stride[0] == ds;
    bool direct = direct_out && !reference_path;
    for (int k = 0; k < r->nin && direct; k++)
        direct = r->src[k] == r->load[k] && r->via[k] == r->load[k] && stride[k + 1] == dtype_size(r->src[k]);
    if (direct) { /* nothing to gather or convert: one call over the run */
        r->fn(data[0], data + 1, n, r->args);
        return;
    }
    if (ew_bf16_direct(r, stride)) { /* bfloat16 throughout: one pass */
        r->fn_bf16(data[0], data + 1, n, r->args);
        return;
    }
    _Alignas(16) char bufs[EW_MAX_IN][EW_BLOCK * 8];
    _Alignas(16) char tmp[EW_BLOCK * 8];
    _Alignas(16) char obuf[EW_BLOCK * 8];
    char *in[EW_MAX_IN];
    for (int64_t off = 0; off < n; off += EW_BLOCK) {
        int64_t m = n - off < EW_BLOCK ? n - off : EW_BLOCK;
        for (int k = 0; k < r->nin; k++) {
            /* a broadcast operand (stride 0) is converted and replicated
            ** once: every later block is no longer than the first */
            if (off == 0 || stride[k + 1] != 0 || reference_path)
                in[k] = gather(r, k, data[k + 1] + off * stride[k + 1], stride[k + 1], m, bufs[k], tmp);
        }
        char *o = data[0] + off * stride[0];
        if (direct_out) {
            r->fn(o, in, m, r->args);
        } else {
            r->fn(obuf, in, m, r->args);
            convert_run(r->dst, o, stride[0] / ds, r->res, obuf, 1, m);
        }
    }
}

/* ---- the flat path: contiguous operands, in parallel --------------------------- */

/* Elements per chunk of a parallel pointwise call: a call this small or
** smaller runs in one chunk on the calling thread, since waking a worker
** (tens of microseconds, milliseconds on a busy machine) costs more than
** the arithmetic.  Chunks write disjoint parts of the output, so the bits
** do not depend on the thread count. */
#define EW_GRAIN 65536

/* An operand of a flat call is read at element i as data[i % period]:
** period n for an operand of out's shape, 1 for a single element (stride 0),
** or the size of out's trailing dimensions that the operand equals (a bias
** broadcast over the leading dimensions). */
typedef struct EwFlat {
    const EwRun *run;
    char *data[1 + EW_MAX_IN];
    int64_t period[1 + EW_MAX_IN];
    int64_t stride[1 + EW_MAX_IN]; /* bytes; 0 for a single element */
    int64_t n;
    bool periodic; /* some operand has a period other than 1 and n */
    atomic_bool zero_div;
} EwFlat;

static void ew_flat_chunk(void *ctx, int64_t begin, int64_t end)
{
    EwFlat *f = ctx;
    EwRun r = *f->run;
    EwArgs args = *r.args; /* this chunk's own: zero_div is set per chunk */
    args.zero_div = false;
    r.args = &args;
    const int nops = 1 + r.nin;
    const int64_t *stride = f->stride;
    if (!f->periodic) { /* one run */
        char *data[1 + EW_MAX_IN];
        for (int k = 0; k < nops; k++)
            data[k] = f->data[k] + begin * stride[k];
        ew_inner(data, stride, end - begin, &r);
        if (args.zero_div)
            atomic_store(&f->zero_div, true);
        return;
    }
    /* in segments that end where a periodic operand wraps around */
    for (int64_t pos = begin; pos < end;) {
        int64_t stop = end;
        char *data[1 + EW_MAX_IN];
        data[0] = f->data[0] + pos * stride[0];
        for (int k = 1; k < nops; k++) {
            int64_t per = f->period[k];
            if (per == 1) {
                data[k] = f->data[k];
                continue;
            }
            int64_t at = pos % per;
            data[k] = f->data[k] + at * stride[k];
            if (pos - at + per < stop)
                stop = pos - at + per;
        }
        ew_inner(data, stride, stop - pos, &r);
        pos = stop;
    }
    if (args.zero_div)
        atomic_store(&f->zero_div, true);
}

/* The element count of t's shape once its leading 1s are dropped, if that
** shape is the trailing dimensions of out's shape; else 0. */
static int64_t trailing_period(const Tensor *t, const Tensor *out)
{
    int nd = 0;
    while (nd < t->ndim && t->sizes[nd] == 1)
        nd++;
    int rank = t->ndim - nd;
    if (rank > out->ndim)
        return 0;
    if (!shape_equal(rank, t->sizes + nd, rank, out->sizes + out->ndim - rank))
        return 0;
    return shape_numel(rank, t->sizes + nd);
}

/* Fill f for a flat call if out is contiguous and every operand is
** contiguous with one of the periods above (a periodic one only when its
** runs are long enough to beat the iterator); false otherwise. */
static bool flat_call(EwFlat *f, Tensor *out, Tensor *const *in, int nin)
{
    if (reference_path || !tensor_is_contiguous(out))
        return false;
    int64_t n = tensor_numel(out);
    f->n = n;
    f->data[0] = tensor_data(out);
    f->period[0] = n;
    f->stride[0] = dtype_size(out->dtype);
    f->periodic = false;
    for (int k = 0; k < nin; k++) {
        Tensor *t = in[k];
        int64_t numel = tensor_numel(t);
        int64_t per;
        if (numel == 1)
            per = 1;
        else if (!tensor_is_contiguous(t))
            return false;
        else if (shape_equal(t->ndim, t->sizes, out->ndim, out->sizes))
            per = n;
        else if ((per = trailing_period(t, out)) < EW_BLOCK)
            return false;
        f->data[k + 1] = tensor_data(t);
        f->period[k + 1] = per;
        /* a single element is broadcast with stride 0, except into a
        ** one-element out, which reads it in place like any operand */
        f->stride[k + 1] = per == 1 && n > 1 ? 0 : dtype_size(t->dtype);
        f->periodic |= per != 1 && per != n;
    }
    atomic_init(&f->zero_div, false);
    return true;
}

/* ---- the strided path: the iterator's runs, in parallel ------------------------ */

/* A call the broadcasting iterator walks (a transposed or sliced operand, a
** broadcast other than a trailing bias): items are its inner runs, a
** chunk's first run found from its number and the next ones like an
** odometer.  Runs write disjoint parts of out, so the bits do not depend on
** the thread count. */
typedef struct EwRows {
    const TensorIter *it;
    const EwRun *run;
    atomic_bool zero_div;
} EwRows;

static void ew_rows_chunk(void *ctx, int64_t begin, int64_t end)
{
    EwRows *w = ctx;
    EwRun r = *w->run;
    EwArgs args = *r.args; /* this chunk's own: zero_div is set per chunk */
    args.zero_div = false;
    r.args = &args;
    iter_run_rows(w->it, begin, end, ew_inner, &r);
    if (args.zero_div)
        atomic_store(&w->zero_div, true);
}

/* Walk it with ew_inner: in chunks over the pool when it is large and
** has runs to split, else (and on the reference path) on this thread. */
static void ew_strided(const TensorIter *it, EwRun *r)
{
    if (reference_path || it->numel <= EW_GRAIN || it->ndim < 2) {
        iter_run(it, ew_inner, r);
        return;
    }
    int64_t inner = it->shape[it->ndim - 1];
    EwRows w = {.it = it, .run = r};
    atomic_init(&w.zero_div, false);
    ep_parallel_for(iter_rows(it), EW_GRAIN / inner > 0 ? EW_GRAIN / inner : 1, ew_rows_chunk, &w);
    if (atomic_load(&w.zero_div))
        r->args->zero_div = true;
}

/* ---- running a call ---------------------------------------------------------- */

void ew_call_init(EwCall *e, const EwKernel *k, int nin, Tensor *const *in, DType common)
{
    memset(e, 0, sizeof *e);
    e->kernel = k;
    e->nin = nin;
    for (int i = 0; i < nin; i++) {
        e->in[i] = in[i];
        e->via[i] = DT_INVALID;
        e->load[i] = DT_INVALID;
    }
    e->common = common;
    e->out_dtype = DT_INVALID;
}

static bool same_geometry(const Tensor *a, const Tensor *b)
{
    return a->storage == b->storage && a->offset == b->offset && a->dtype == b->dtype &&
           shape_equal(a->ndim, a->sizes, b->ndim, b->sizes) &&
           (a->ndim == 0 || memcmp(a->strides, b->strides, (size_t)a->ndim * sizeof a->strides[0]) == 0);
}

EpStatus ew_execute(OpCall *c, EwCall *e)
{
    const DType compute = ew_compute_dtype(e->common);
    EwFn fn = e->kernel->fn[compute];
    if (!fn)
        return op_fail(c, "\"%s\" not implemented for '%s'", e->kernel->name, dtype_c10_name(e->common));
    int ndim;
    int64_t shape[EP_MAX_DIMS];
    EpStatus rc = ew_broadcast_shape(c, e->nin, e->in, &ndim, shape);
    if (rc)
        return rc;
    Tensor *out;
    if (e->self_out) {
        Tensor *self = e->self_out;
        char b1[256], b2[256];
        if (!shape_equal(ndim, shape, self->ndim, self->sizes))
            return op_fail(c, "output with shape %s doesn't match the broadcast shape %s",
                           shape_str(self->ndim, self->sizes, b1, sizeof b1), shape_str(ndim, shape, b2, sizeof b2));
        if (!e->any_out_dtype && !e->bool_out && !ew_can_cast(e->common, self->dtype))
            return op_fail(c, "result type %s can't be cast to the desired output type %s",
                           dtype_c10_name(e->common), dtype_c10_name(self->dtype));
        rc = tensor_make_writable(self, c->err);
        if (rc)
            return rc;
        out = tensor_ref(self);
    } else {
        DType od = e->out_dtype != DT_INVALID ? e->out_dtype : e->bool_out ? DT_BOOL : e->common;
        out = tensor_empty(od, ndim, shape, c->err);
        if (!out)
            return c->err->code;
    }
    /* An operand that overlaps the destination other than element for
    ** element would read values already overwritten: work from a copy. */
    Tensor *ops[1 + EW_MAX_IN];
    Tensor *copies[EW_MAX_IN] = {NULL};
    ops[0] = out;
    for (int k = 0; k < e->nin; k++) {
        Tensor *t = e->in[k];
        if (e->self_out && tensor_same_storage(t, out) && !same_geometry(t, out) && tensor_numel(t) > 0) {
            copies[k] = tensor_to_dtype(t, t->dtype, c->err);
            if (!copies[k]) {
                rc = c->err->code;
                goto done;
            }
            t = copies[k];
        }
        ops[k + 1] = t;
    }
    EwRun r;
    r.fn = fn;
    r.fn_bf16 = e->kernel->fn[DT_BF16];
    r.nin = e->nin;
    for (int k = 0; k < e->nin; k++) {
        r.src[k] = ops[k + 1]->dtype;
        r.via[k] = e->via[k] != DT_INVALID ? e->via[k] : e->common;
        r.load[k] = e->load[k] != DT_INVALID ? e->load[k] : ew_compute_dtype(r.via[k]);
    }
    r.res = e->bool_out ? DT_BOOL : compute;
    r.dst = out->dtype;
    e->args.dtype = e->common;
    e->args.zero_div = false;
    r.args = &e->args;
    EwFlat flat;
    if (flat_call(&flat, out, ops + 1, e->nin)) {
        /* every operand is contiguous, of out's shape, one element, or a
        ** bias over out's last dimensions: typed calls over long runs, no
        ** broadcasting iterator, and the pool's threads on large tensors
        ** (most nodes of a graph of small ops take this path too) */
        if (flat.n <= EW_GRAIN && !flat.periodic) { /* small: straight in */
            ew_inner(flat.data, flat.stride, flat.n, &r);
        } else {
            flat.run = &r;
            ep_parallel_for(flat.n, EW_GRAIN, ew_flat_chunk, &flat);
            if (atomic_load(&flat.zero_div))
                e->args.zero_div = true;
        }
    } else {
        TensorIter it;
        rc = iter_init(&it, out->ndim, out->sizes, 1 + e->nin, ops, c->err);
        if (rc)
            goto done;
        ew_strided(&it, &r);
    }
    if (e->args.zero_div)
        rc = op_fail(c, "ZeroDivisionError");
done:
    for (int k = 0; k < e->nin; k++)
        tensor_unref(copies[k]);
    if (rc) {
        tensor_unref(out);
        return rc;
    }
    out_tensor(c, 0, out);
    return EP_OK;
}

DType ew_common_dtype(int nin, Tensor *const *in, unsigned flags)
{
    DType common = (flags & EWF_SAME_DTYPE) ? in[0]->dtype : result_type(nin, in, 0, NULL);
    if ((flags & EWF_FLOAT) && dtype_is_integral(common))
        common = DT_F32; /* the default dtype */
    return common;
}

EpStatus ew_pointwise(OpCall *c, const EwKernel *k, int nin, Tensor *const *in, unsigned flags,
                      const EwArgs *args)
{
    DType common = ew_common_dtype(nin, in, flags);
    EwCall e;
    ew_call_init(&e, k, nin, in, common);
    e.bool_out = (flags & EWF_BOOL_OUT) != 0;
    if ((flags & EWF_OPMATH_SCALAR) && (common == DT_F16 || common == DT_BF16) && tensor_numel(in[nin - 1]) == 1)
        e.via[nin - 1] = DT_F32; /* PyTorch reads the scalar as opmath */
    if (flags & EWF_INPLACE) {
        e.self_out = in[0];
        e.any_out_dtype = e.bool_out;
    }
    if (args)
        e.args = *args;
    return ew_execute(c, &e);
}

EpStatus ew_binary_scalar(OpCall *c, const EwKernel *k, int self_arg, int scalar_arg, bool scalar_first,
                          unsigned flags, const EwArgs *args)
{
    Tensor *s = value_wrap_number(arg_scalar(c, scalar_arg), c->err);
    if (!s)
        return c->err->code;
    Tensor *in[2] = {arg_tensor(c, self_arg), s};
    if (scalar_first) {
        in[0] = s;
        in[1] = arg_tensor(c, self_arg);
    }
    EpStatus rc = ew_pointwise(c, k, 2, in, flags, args);
    tensor_unref(s);
    return rc;
}
