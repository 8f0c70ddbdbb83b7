/*
** index_advanced.c -- advanced indexing: index.Tensor, _unsafe_index,
** index_put(_), _unsafe_index_put, _index_put_impl(_) and the masked
** variants inductor's decompositions emit.
**
** As ATen (TensorAdvancedIndexing.cpp, IndexingUtils.h): bool/uint8 masks
** become their nonzero() coordinates, int32 indices select what their int64
** copy selects, all index tensors broadcast to one shape B, and the result
** is self's dims before the indexed ones, then B, then the dims after --
** unless the indexed dims are not adjacent, in which case they move to the
** front first (x[[0, 1], :, [2, 3]] has shape [2, x.size(1)]).  Each result
** element then reads self at a byte offset computed once per element of B.
*/
#include "index.h"

#include <stdio.h>
#include <string.h>

typedef struct AdvIndex {
    Tensor *src;              /* self, indexed dims moved to the front when they were apart */
    int nidx;                 /* index tensors once masks are expanded */
    Tensor *idx[EP_MAX_DIMS]; /* int64, owned, in src's dim order */
    int before;               /* dims of src ahead of the indexed ones */
    int bnd;                  /* broadcast shape B of the index tensors */
    int64_t bshape[EP_MAX_DIMS];
    int rnd;                  /* result: src dims before, then B, then the dims after */
    int64_t rshape[EP_MAX_DIMS];
} AdvIndex;

static void adv_done(AdvIndex *ai)
{
    tensor_unref(ai->src);
    for (int i = 0; i < ai->nidx; i++)
        tensor_unref(ai->idx[i]);
    memset(ai, 0, sizeof *ai);
}

static bool is_mask_dtype(DType t) { return t == DT_BOOL || t == DT_U8; }

/* "[2, 3], [4]": the shapes of the index tensors, for the broadcast error. */
static void shapes_str(Tensor *const *ts, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len + 1 < cap; i++) {
        char one[256];
        if (!ts[i])
            continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "",
                                shape_str(ts[i]->ndim, ts[i]->sizes, one, sizeof one));
    }
}

/* Append int64 index tensors for one entry of the index list: a mask gives
** one column of its nonzero() per mask dim, an int32/int64 tensor itself,
** None a hole.  slots counts self dims consumed so far. */
static EpStatus expand_entry(OpCall *c, Tensor *self, Tensor *t, Tensor **slots, int *nslots)
{
    char b1[256], b2[256];
    if (!t) {
        if (*nslots >= self->ndim)
            return op_fail(c, "IndexError: too many indices for tensor of dimension %d", self->ndim);
        slots[(*nslots)++] = NULL;
        return EP_OK;
    }
    if (!is_mask_dtype(t->dtype)) {
        if (*nslots >= self->ndim)
            return op_fail(c, "IndexError: too many indices for tensor of dimension %d", self->ndim);
        Tensor *l = index_as_i64(t, c->err);
        if (!l)
            return EP_ERR_EXEC;
        slots[(*nslots)++] = l;
        return EP_OK;
    }
    if (*nslots + t->ndim > self->ndim)
        return op_fail(c, "IndexError: too many indices for tensor of dimension %d (got %d)", self->ndim,
                       *nslots + t->ndim);
    for (int j = 0; j < t->ndim; j++)
        if (t->sizes[j] != self->sizes[*nslots + j])
            return op_fail(c, "IndexError: The shape of the mask %s at index %d does not match the shape of the "
                              "indexed tensor %s at index %d", shape_str(t->ndim, t->sizes, b1, sizeof b1), j,
                           shape_str(self->ndim, self->sizes, b2, sizeof b2), *nslots + j);
    Tensor *nz = index_nonzero(t, false, c->err);
    if (!nz)
        return EP_ERR_EXEC;
    EpStatus rc = EP_OK;
    for (int j = 0; j < t->ndim && rc == EP_OK; j++) {
        int64_t n = nz->sizes[0], st = nz->strides[0];
        Tensor *col = tensor_as_strided(nz, 1, &n, &st, nz->offset + j * nz->strides[1], c->err);
        if (!col)
            rc = EP_ERR_EXEC;
        else
            slots[(*nslots)++] = col;
    }
    tensor_unref(nz);
    return rc;
}

/* ATen's make_info: validate and expand the index list, broadcast the index
** tensors and work out the result's geometry. */
static EpStatus adv_make(OpCall *c, Tensor *self, const ValueList *list, bool allow_masks, AdvIndex *ai)
{
    memset(ai, 0, sizeof *ai);
    if (list->n == 0)
        return op_fail(c, "at least one index must be provided");
    if (list->n > self->ndim)
        return op_fail(c, "IndexError: too many indices for tensor of dimension %d (got %d)", self->ndim,
                       list->n);
    for (int i = 0; i < list->n; i++) {
        const Tensor *t = list->items[i].kind == V_TENSOR ? list->items[i].t : NULL;
        if (!t)
            continue;
        if (!allow_masks && !index_dtype_ok(t->dtype))
            return op_fail(c, "_unsafe_index found unexpected index type %s", dtype_c10_name(t->dtype));
        if (!index_dtype_ok(t->dtype) && !is_mask_dtype(t->dtype))
            return op_fail(c, "IndexError: tensors used as indices must be long, int, byte or bool tensors");
    }

    Tensor *slots[EP_MAX_DIMS] = {NULL};
    int nslots = 0;
    EpStatus rc = EP_OK;
    for (int i = 0; i < list->n && rc == EP_OK; i++)
        rc = expand_entry(c, self, list->items[i].kind == V_TENSOR ? list->items[i].t : NULL, slots, &nslots);

    int first = -1, last = -1, ndef = 0;
    for (int i = 0; i < nslots && rc == EP_OK; i++) {
        if (!slots[i])
            continue;
        if (first < 0)
            first = i;
        last = i;
        ndef++;
    }
    if (rc == EP_OK && ndef == 0)
        rc = op_fail(c, "IndexError: at least one index tensor must select elements");

    /* broadcast the index tensors together */
    if (rc == EP_OK) {
        ai->bnd = 0;
        for (int i = 0; i < nslots; i++) {
            if (!slots[i])
                continue;
            int64_t tmp[EP_MAX_DIMS];
            int nt;
            if (!shape_broadcast(ai->bnd, ai->bshape, slots[i]->ndim, slots[i]->sizes, &nt, tmp)) {
                char shapes[1024];
                shapes_str(slots, nslots, shapes, sizeof shapes);
                rc = op_fail(c, "IndexError: shape mismatch: indexing tensors could not be broadcast together "
                                "with shapes %s", shapes);
                break;
            }
            ai->bnd = nt;
            memcpy(ai->bshape, tmp, sizeof tmp);
        }
    }
    if (rc != EP_OK) {
        for (int i = 0; i < nslots; i++)
            tensor_unref(slots[i]);
        return rc;
    }
    for (int i = nslots; i < self->ndim; i++)
        slots[i] = NULL;

    /* not adjacent: move the indexed dims to the front (transposeToFront) */
    bool adjacent = true;
    for (int i = first; i <= last; i++)
        if (!slots[i])
            adjacent = false;
    int perm[EP_MAX_DIMS], np = 0;
    if (adjacent) {
        for (int i = 0; i < self->ndim; i++)
            perm[np++] = i;
        ai->before = first;
    } else {
        for (int i = 0; i < self->ndim; i++)
            if (slots[i])
                perm[np++] = i;
        for (int i = 0; i < self->ndim; i++)
            if (!slots[i])
                perm[np++] = i;
        ai->before = 0;
    }
    int64_t psizes[EP_MAX_DIMS], pstrides[EP_MAX_DIMS];
    for (int i = 0; i < self->ndim; i++) {
        psizes[i] = self->sizes[perm[i]];
        pstrides[i] = self->strides[perm[i]];
        if (slots[perm[i]])
            ai->idx[ai->nidx++] = slots[perm[i]];
    }
    ai->src = tensor_as_strided(self, self->ndim, psizes, pstrides, self->offset, c->err);
    if (!ai->src) {
        adv_done(ai);
        return EP_ERR_EXEC;
    }

    int after = self->ndim - ai->before - ai->nidx;
    bool empty_indexed = false, empty_b = false;
    for (int j = 0; j < ai->nidx; j++)
        empty_indexed |= psizes[ai->before + j] == 0;
    for (int j = 0; j < ai->bnd; j++)
        empty_b |= ai->bshape[j] == 0;
    if (empty_indexed && !empty_b) {
        adv_done(ai);
        return op_fail(c, "IndexError: index is out of bounds for dimension with size 0");
    }
    ai->rnd = ai->before + ai->bnd + after;
    if (ai->rnd > EP_MAX_DIMS) {
        adv_done(ai);
        return op_fail(c, "indexing result would have %d dims (at most %d)", ai->rnd, EP_MAX_DIMS);
    }
    int r = 0;
    for (int i = 0; i < ai->before; i++)
        ai->rshape[r++] = psizes[i];
    for (int i = 0; i < ai->bnd; i++)
        ai->rshape[r++] = ai->bshape[i];
    for (int i = ai->before + ai->nidx; i < self->ndim; i++)
        ai->rshape[r++] = psizes[i];
    return EP_OK;
}

/* ---- offsets ------------------------------------------------------------ */

typedef struct OffsetCtx {
    int64_t size, stride_bytes;
    int dim;           /* position among the index tensors, for the message */
    bool first;        /* the first index tensor assigns, the rest add */
    bool bad;
    int64_t bad_value;
} OffsetCtx;

static void offset_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    OffsetCtx *c = vctx;
    char *o = data[0];
    const char *ix = data[1];
    for (int64_t i = 0; i < n && !c->bad; i++, o += stride[0], ix += stride[1]) {
        int64_t v;
        memcpy(&v, ix, 8);
        if (v < -c->size || v >= c->size) {
            c->bad = true;
            c->bad_value = v;
            break;
        }
        if (v < 0)
            v += c->size;
        int64_t off = v * c->stride_bytes;
        if (!c->first) {
            int64_t prev;
            memcpy(&prev, o, 8);
            off += prev;
        }
        memcpy(o, &off, 8);
    }
}

/* Per element of B, the byte offset of the indexed element from the first
** element of ai->src, checking every index against its dim's size.  Returns
** the offsets viewed in the result's shape (0 strides outside B). */
static Tensor *adv_offsets(OpCall *c, const AdvIndex *ai)
{
    Tensor *offs = tensor_empty(DT_I64, ai->bnd, ai->bshape, c->err);
    if (!offs)
        return NULL;
    int es = dtype_size(ai->src->dtype);
    for (int j = 0; j < ai->nidx; j++) {
        TensorIter it;
        Tensor *ops[2] = {offs, ai->idx[j]};
        if (iter_init(&it, ai->bnd, ai->bshape, 2, ops, c->err) != EP_OK) {
            tensor_unref(offs);
            return NULL;
        }
        OffsetCtx ctx = {ai->src->sizes[ai->before + j], ai->src->strides[ai->before + j] * es, j, j == 0,
                         false, 0};
        iter_run(&it, offset_loop, &ctx);
        if (ctx.bad) {
            tensor_unref(offs);
            op_fail(c, "IndexError: index %lld is out of bounds for dimension %d with size %lld",
                    (long long)ctx.bad_value, ctx.dim, (long long)ctx.size);
            return NULL;
        }
    }
    int64_t st[EP_MAX_DIMS] = {0};
    int64_t bst[EP_MAX_DIMS];
    shape_contiguous_strides(ai->bnd, ai->bshape, bst);
    for (int i = 0; i < ai->bnd; i++)
        st[ai->before + i] = bst[i];
    Tensor *v = tensor_as_strided(offs, ai->rnd, ai->rshape, st, 0, c->err);
    tensor_unref(offs);
    return v;
}

/* ai->src in the result's shape: its own strides outside B, 0 across B (the
** offsets supply the movement there). */
static Tensor *adv_src_view(OpCall *c, const AdvIndex *ai)
{
    int64_t st[EP_MAX_DIMS];
    int r = 0;
    for (int i = 0; i < ai->before; i++)
        st[r++] = ai->src->strides[i];
    for (int i = 0; i < ai->bnd; i++)
        st[r++] = 0;
    for (int i = ai->before + ai->nidx; i < ai->src->ndim; i++)
        st[r++] = ai->src->strides[i];
    return tensor_as_strided(ai->src, ai->rnd, ai->rshape, st, ai->src->offset, c->err);
}

/* ---- index ---------------------------------------------------------------- */

typedef struct GatherCtx {
    int es;
} GatherCtx;

static void gather_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    const GatherCtx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t off;
        memcpy(&off, data[2] + i * stride[2], 8);
        index_copy_elem(data[0] + i * stride[0], data[1] + i * stride[1] + off, c->es);
    }
}

static EpStatus index_impl(OpCall *c, bool allow_masks)
{
    Tensor *self = arg_tensor(c, 0);
    AdvIndex ai;
    EpStatus rc = adv_make(c, self, arg_list(c, 1), allow_masks, &ai);
    if (rc)
        return rc;
    Tensor *out = tensor_empty(self->dtype, ai.rnd, ai.rshape, c->err);
    Tensor *srcv = NULL, *offs = NULL;
    if (!out) {
        rc = EP_ERR_EXEC;
    } else if (tensor_numel(out) > 0) {
        /* like ATen, indices are only checked when an element is read */
        offs = adv_offsets(c, &ai);
        srcv = offs ? adv_src_view(c, &ai) : NULL;
        TensorIter it;
        Tensor *ops[3] = {out, srcv, offs};
        rc = srcv ? iter_init(&it, ai.rnd, ai.rshape, 3, ops, c->err) : EP_ERR_EXEC;
        if (rc == EP_OK) {
            GatherCtx g = {dtype_size(self->dtype)};
            iter_run(&it, gather_loop, &g);
        }
    }
    tensor_unref(srcv);
    tensor_unref(offs);
    adv_done(&ai);
    return index_out(c, rc, out);
}

/* index.Tensor(Tensor self, Tensor?[] indices) -> Tensor */
EpStatus k_index_tensor(OpCall *c)
{
    return index_impl(c, true);
}

/* _unsafe_index.Tensor: index without masks (the caller promises in-range
** indices; we check them anyway, a crash is never the answer). */
EpStatus k_unsafe_index_tensor(OpCall *c)
{
    return index_impl(c, false);
}

/* ---- index_put ----------------------------------------------------------- */

typedef struct FillCtx {
    const char *elem;
    int es;
} FillCtx;

static void fill_mask_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    const FillCtx *c = vctx;
    for (int64_t i = 0; i < n; i++)
        if (data[1][i * stride[1]])
            index_copy_elem(data[0] + i * stride[0], c->elem, c->es);
}

/* ATen's canDispatchToMaskedFill: without accumulate, a one-element value
** and one bool/uint8 mask among Nones becomes masked_fill_(mask, value.item()),
** which converts the value to self's dtype (the general path demands equal
** dtypes).  Sets *done when it handled the call. */
static EpStatus try_masked_fill(OpCall *c, Tensor *self, const ValueList *list, Tensor *values, bool *done)
{
    *done = false;
    if (tensor_numel(values) != 1)
        return EP_OK;
    Tensor *mask = NULL;
    int at = 0, k = 0;
    for (int i = 0; i < list->n; i++) {
        Tensor *t = list->items[i].kind == V_TENSOR ? list->items[i].t : NULL;
        if (!t) {
            k++;
            continue;
        }
        if (!is_mask_dtype(t->dtype) || mask)
            return EP_OK;
        mask = t;
        at = k;
        k += t->ndim;
    }
    if (!mask)
        return EP_OK;
    char b1[256], b2[256];
    if (at + mask->ndim > self->ndim)
        return op_fail(c, "IndexError: too many indices for tensor of dimension %d", self->ndim);
    for (int j = 0; j < mask->ndim; j++)
        if (mask->sizes[j] != self->sizes[at + j])
            return op_fail(c, "IndexError: The shape of the mask %s at index %d does not match the shape of the "
                              "indexed tensor %s at index %d", shape_str(mask->ndim, mask->sizes, b1, sizeof b1),
                           j, shape_str(self->ndim, self->sizes, b2, sizeof b2), at + j);
    char elem[8];
    Value v = index_item(values);
    EpStatus rc = index_scalar_to(c, &v, self->dtype, elem);
    if (rc)
        return rc;
    /* the mask, seen in self's shape: its own strides over its dims */
    int64_t st[EP_MAX_DIMS] = {0};
    for (int j = 0; j < mask->ndim; j++)
        st[at + j] = mask->strides[j];
    Tensor *mv = tensor_as_strided(mask, self->ndim, self->sizes, st, mask->offset, c->err);
    if (!mv)
        return EP_ERR_EXEC;
    TensorIter it;
    Tensor *ops[2] = {self, mv};
    rc = iter_init(&it, self->ndim, self->sizes, 2, ops, c->err);
    if (rc == EP_OK) {
        FillCtx f = {elem, dtype_size(self->dtype)};
        iter_run(&it, fill_mask_loop, &f);
        *done = true;
    }
    tensor_unref(mv);
    return rc;
}

typedef struct PutCtx {
    int es;
    IndexCombineFn combine; /* NULL: plain assignment */
} PutCtx;

static void put_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    const PutCtx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t off;
        memcpy(&off, data[2] + i * stride[2], 8);
        char *dst = data[0] + i * stride[0] + off;
        const char *src = data[1] + i * stride[1];
        if (c->combine)
            c->combine(dst, src, IRED_SUM);
        else
            index_copy_elem(dst, src, c->es);
    }
}

static bool expandable_to(int na, const int64_t *a, int nb, const int64_t *b)
{
    if (na > nb)
        return false;
    for (int i = 0; i < na; i++) {
        int64_t x = a[na - 1 - i], y = b[nb - 1 - i];
        if (x != y && x != 1)
            return false;
    }
    return true;
}

/* self[indices] = values (or += with accumulate), in place. */
static EpStatus index_put_core(OpCall *c, Tensor *self, const ValueList *list, Tensor *values, bool accumulate,
                               bool allow_masks)
{
    if (list->n > self->ndim)
        return op_fail(c, "IndexError: too many indices for tensor of dimension %d (got %d)", self->ndim,
                       list->n);
    /* before any view of self is taken, so the views see the private bytes */
    EpStatus rc = tensor_make_writable(self, c->err);
    if (rc)
        return rc;
    if (!accumulate && allow_masks) {
        bool done;
        rc = try_masked_fill(c, self, list, values, &done);
        if (rc || done)
            return rc;
    }
    rc = index_check_no_overlap(c, self, values);
    for (int i = 0; i < list->n && rc == EP_OK; i++)
        if (list->items[i].kind == V_TENSOR)
            rc = index_check_no_overlap(c, self, list->items[i].t);
    if (rc)
        return rc;
    AdvIndex ai;
    rc = adv_make(c, self, list, allow_masks, &ai);
    if (rc)
        return rc;
    char b1[256], b2[256];
    Tensor *vals = NULL, *dstv = NULL, *offs = NULL;
    if (!expandable_to(values->ndim, values->sizes, ai.rnd, ai.rshape)) {
        rc = op_fail(c, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of "
                        "shape %s", shape_str(values->ndim, values->sizes, b1, sizeof b1),
                     shape_str(ai.rnd, ai.rshape, b2, sizeof b2));
    } else if (values->dtype != self->dtype) {
        rc = op_fail(c, "Index put requires the source and destination dtypes match, got %s for the destination "
                        "and %s for the source.", dtype_c10_name(self->dtype), dtype_c10_name(values->dtype));
    } else if (shape_numel(ai.rnd, ai.rshape) > 0) {
        /* values sharing self's storage in a way the check above could not
        ** rule out: read them from a copy */
        vals = index_source_copy(self, values, c->err);
        offs = vals ? adv_offsets(c, &ai) : NULL;
        dstv = offs ? adv_src_view(c, &ai) : NULL;
        TensorIter it;
        Tensor *ops[3] = {dstv, vals, offs};
        rc = dstv ? iter_init(&it, ai.rnd, ai.rshape, 3, ops, c->err) : EP_ERR_EXEC;
        if (rc == EP_OK) {
            PutCtx p = {dtype_size(self->dtype), accumulate ? index_combine_fn(self->dtype) : NULL};
            iter_run(&it, put_loop, &p);
        }
    }
    tensor_unref(vals);
    tensor_unref(dstv);
    tensor_unref(offs);
    adv_done(&ai);
    return rc;
}

/* index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) */
EpStatus k_index_put_(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    EpStatus rc = index_put_core(c, self, arg_list(c, 1), arg_tensor(c, 2), arg_bool(c, 3), true);
    if (rc)
        return rc;
    out_tensor(c, 0, tensor_ref(self));
    return EP_OK;
}

/* index_put: index_put_ on clone(self, memory_format=preserve).  Also
** _unsafe_index_put and the functional _index_put_impl. */
EpStatus k_index_put(OpCall *c)
{
    Tensor *r = index_clone_preserve(arg_tensor(c, 0), c->err);
    if (!r)
        return EP_ERR_EXEC;
    EpStatus rc = index_put_core(c, r, arg_list(c, 1), arg_tensor(c, 2), arg_bool(c, 3), true);
    return index_out(c, rc, r);
}

/* ---- masked variants (inductor's decompositions) ----------------------------- */

typedef struct ClampCtx {
    int64_t lo, hi;
} ClampCtx;

static void clamp_loop(char **data, const int64_t *stride, int64_t n, void *vctx)
{
    const ClampCtx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, data[0] + i * stride[0], 8);
        v = v < c->lo ? c->lo : v > c->hi ? c->hi : v;
        memcpy(data[0] + i * stride[0], &v, 8);
    }
}

/* The index list with every index clamped to [-size, size - 1] of its dim
** (bool indices are refused: they would make the shape data-dependent). */
static EpStatus clamp_indices(OpCall *c, Tensor *self, const ValueList *list, Value *out)
{
    out->kind = V_LIST;
    out->list = value_list_new(list->n);
    for (int i = 0; i < list->n; i++) {
        Tensor *t = list->items[i].kind == V_TENSOR ? list->items[i].t : NULL;
        if (!t)
            continue;
        if (!index_dtype_ok(t->dtype))
            return op_fail(c, "_unsafe_masked_index found unexpected index type %s", dtype_c10_name(t->dtype));
        if (i >= self->ndim)
            return op_fail(c, "IndexError: too many indices for tensor of dimension %d (got %d)", self->ndim,
                           list->n);
        Tensor *cl = tensor_to_dtype(t, DT_I64, c->err);
        if (!cl)
            return EP_ERR_EXEC;
        out->list->items[i] = value_tensor(cl);
        TensorIter it;
        Tensor *ops[1] = {cl};
        if (iter_init(&it, cl->ndim, cl->sizes, 1, ops, c->err) != EP_OK)
            return EP_ERR_EXEC;
        ClampCtx cc = {-self->sizes[i], self->sizes[i] - 1};
        iter_run(&it, clamp_loop, &cc);
    }
    return EP_OK;
}

/* Where mask is false (or true when `when` is set), write elem into dst;
** mask broadcasts to dst. */
static EpStatus fill_by_mask(OpCall *c, Tensor *dst, Tensor *mask, const char *elem, bool when)
{
    Tensor *m = mask;
    if (!when) {
        m = tensor_to_dtype(mask, DT_BOOL, c->err);
        if (!m)
            return EP_ERR_EXEC;
        uint8_t *p = tensor_data(m);
        for (int64_t i = 0; i < tensor_numel(m); i++)
            p[i] = !p[i];
    } else if (m->dtype != DT_BOOL) {
        m = tensor_to_dtype(mask, DT_BOOL, c->err);
        if (!m)
            return EP_ERR_EXEC;
    } else {
        tensor_ref(m);
    }
    TensorIter it;
    Tensor *ops[2] = {dst, m};
    EpStatus rc = iter_init(&it, dst->ndim, dst->sizes, 2, ops, c->err);
    if (rc == EP_OK) {
        FillCtx f = {elem, dtype_size(dst->dtype)};
        iter_run(&it, fill_mask_loop, &f);
    }
    tensor_unref(m);
    return rc;
}

/* A tensor of shape (broadcast of t and mask) holding t's values. */
static Tensor *expand_with(OpCall *c, Tensor *t, const Tensor *mask)
{
    int nd;
    int64_t sh[EP_MAX_DIMS];
    char b1[256], b2[256];
    if (!shape_broadcast(t->ndim, t->sizes, mask->ndim, mask->sizes, &nd, sh)) {
        op_fail(c, "the size of mask %s does not broadcast with %s", shape_str(mask->ndim, mask->sizes, b1, sizeof b1),
                shape_str(t->ndim, t->sizes, b2, sizeof b2));
        return NULL;
    }
    if (shape_equal(nd, sh, t->ndim, t->sizes))
        return tensor_ref(t);
    Tensor *r = tensor_empty(t->dtype, nd, sh, c->err);
    if (r && tensor_copy_into(r, t, c->err) != EP_OK) {
        tensor_unref(r);
        r = NULL;
    }
    return r;
}

/* _unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill):
** where(mask, self[clamped indices], fill), reading self only where the
** mask is set.  An empty self gives `fill` everywhere. */
EpStatus k_unsafe_masked_index(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0), *mask = arg_tensor(c, 1);
    const ValueList *list = arg_list(c, 2);
    Value clamped = value_none();
    char elem[8];
    EpStatus rc = clamp_indices(c, self, list, &clamped);
    if (rc == EP_OK)
        rc = index_scalar_to(c, arg_scalar(c, 3), self->dtype, elem);
    Tensor *base = NULL;
    if (rc == EP_OK && tensor_numel(self) == 0) {
        /* indexed dims of size 0 become 1 so that indexing finds an element */
        int64_t sz[EP_MAX_DIMS];
        for (int i = 0; i < self->ndim; i++)
            sz[i] = (i < list->n && list->items[i].kind == V_TENSOR && self->sizes[i] == 0) ? 1 : self->sizes[i];
        base = tensor_empty(self->dtype, self->ndim, sz, c->err);
        if (!base) {
            rc = EP_ERR_EXEC;
        } else {
            for (int64_t i = 0; i < tensor_numel(base); i++)
                index_copy_elem((char *)tensor_data(base) + i * dtype_size(base->dtype), elem, dtype_size(base->dtype));
        }
    } else if (rc == EP_OK) {
        base = tensor_ref(self);
    }
    Value out = value_none();
    if (rc == EP_OK) {
        Value args[2] = {value_tensor(base), clamped};
        rc = op_invoke(c, OP_UNSAFE_INDEX_TENSOR, 2, args, &out);
    }
    Tensor *r = NULL;
    if (rc == EP_OK && tensor_numel(self) > 0) {
        r = expand_with(c, out.t, mask);
        rc = r ? fill_by_mask(c, r, mask, elem, false) : EP_ERR_EXEC;
    } else if (rc == EP_OK) {
        r = tensor_ref(out.t);
    }
    value_clear(&out);
    tensor_unref(base);
    value_clear(&clamped);
    return index_out(c, rc, r);
}

/* _unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices,
** Tensor values): the backward of _unsafe_masked_index -- values where the
** mask is set, accumulated into a copy of self at the clamped indices. */
EpStatus k_unsafe_masked_index_put_accumulate(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0), *mask = arg_tensor(c, 1), *values = arg_tensor(c, 3);
    if (tensor_numel(self) == 0) {
        Tensor *r = index_clone_preserve(self, c->err);
        if (!r)
            return EP_ERR_EXEC;
        out_tensor(c, 0, r);
        return EP_OK;
    }
    Value clamped = value_none();
    EpStatus rc = clamp_indices(c, self, arg_list(c, 2), &clamped);
    Tensor *mv = NULL, *r = NULL;
    char zero[8] = {0};
    if (rc == EP_OK) {
        Tensor *e = expand_with(c, values, mask);
        mv = e ? index_clone_contiguous(e, c->err) : NULL;
        tensor_unref(e);
        rc = mv ? fill_by_mask(c, mv, mask, zero, false) : EP_ERR_EXEC;
    }
    if (rc == EP_OK) {
        r = index_clone_preserve(self, c->err);
        rc = r ? index_put_core(c, r, clamped.list, mv, true, false) : EP_ERR_EXEC;
    }
    tensor_unref(mv);
    value_clear(&clamped);
    return index_out(c, rc, r);
}
