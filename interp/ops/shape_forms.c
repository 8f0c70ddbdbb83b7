/*
** shape_forms.c -- the in-place view operators (squeeze_, unsqueeze_, t_,
** as_strided_, ...) and the *_copy operators (view_copy, permute_copy,
** split_copy, ...), each run through the kernel of its plain view form.
**
** They reach that kernel through op_invoke, i.e. through the operator
** table, which in turn names them; they live apart from the view kernels
** and geometry helpers (shape_view.c) so that the files sharing those
** helpers stay out of that table loop.
*/
#include "shape_int.h"

#include <string.h>

/* Each in-place view op and *_copy op runs the view kernel of its plain
** form; the schemas agree argument for argument. */
static const struct { OpId from, to; } VIEW_FORMS[] = {
    {OP_SQUEEZE_, OP_SQUEEZE}, {OP_SQUEEZE__DIM, OP_SQUEEZE_DIM}, {OP_SQUEEZE__DIMS, OP_SQUEEZE_DIMS},
    {OP_UNSQUEEZE_, OP_UNSQUEEZE}, {OP_TRANSPOSE_, OP_TRANSPOSE}, {OP_SWAPAXES_, OP_TRANSPOSE},
    {OP_SWAPDIMS_, OP_TRANSPOSE}, {OP_T_, OP_T}, {OP_AS_STRIDED_, OP_AS_STRIDED},
    {OP_VIEW_COPY, OP_RESHAPE}, {OP_VIEW_COPY_DTYPE, OP_VIEW_DTYPE}, {OP_EXPAND_COPY, OP_EXPAND},
    {OP_PERMUTE_COPY, OP_PERMUTE}, {OP_TRANSPOSE_COPY, OP_TRANSPOSE}, {OP_T_COPY, OP_T},
    {OP_SQUEEZE_COPY, OP_SQUEEZE}, {OP_SQUEEZE_COPY_DIM, OP_SQUEEZE_DIM}, {OP_SQUEEZE_COPY_DIMS, OP_SQUEEZE_DIMS},
    {OP_UNSQUEEZE_COPY, OP_UNSQUEEZE}, {OP_SLICE_COPY, OP_SLICE}, {OP_SELECT_COPY, OP_SELECT},
    {OP_SPLIT_COPY, OP_SPLIT}, {OP_SPLIT_WITH_SIZES_COPY, OP_SPLIT_WITH_SIZES}, {OP_UNBIND_COPY, OP_UNBIND},
    {OP_AS_STRIDED_COPY, OP_AS_STRIDED}, {OP_DIAGONAL_COPY, OP_DIAGONAL}, {OP_ALIAS_COPY, OP_ALIAS},
    {OP_DETACH_COPY, OP_ALIAS}, {OP_UNFOLD_COPY, OP_UNFOLD}, {OP_RESHAPE_ALIAS_COPY, OP_RESHAPE_ALIAS},
    {OP_NARROW_COPY, OP_NARROW}, {OP_UNSAFE_SPLIT, OP_SPLIT}, {OP_UNSAFE_SPLIT_WITH_SIZES, OP_SPLIT_WITH_SIZES},
    {OP_UNSAFE_CHUNK, OP_CHUNK}, {OP_RESHAPE_COPY, OP_RESHAPE},
};

static EpStatus run_plain_form(OpCall *c, Value *out)
{
    for (size_t i = 0; i < EP_ARRAY_LEN(VIEW_FORMS); i++)
        if (VIEW_FORMS[i].from == c->op->id)
            return op_forward(c, VIEW_FORMS[i].to, out);
    return op_fail(c, "internal: no plain form registered");
}

/* squeeze_, unsqueeze_, transpose_, t_, as_strided_, ...: the view's
** geometry replaces self's (every holder of self sees the new shape, as
** with PyTorch's TensorImpl) */
EpStatus k_view_inplace(OpCall *c)
{
    Tensor *self = arg_tensor(c, 0);
    Value v = value_none();
    EpStatus rc = run_plain_form(c, &v);
    if (rc)
        return rc;
    Tensor *r = v.t;
    self->ndim = r->ndim;
    memcpy(self->sizes, r->sizes, sizeof self->sizes);
    memcpy(self->strides, r->strides, sizeof self->strides);
    self->offset = r->offset;
    value_clear(&v);
    out_tensor(c, 0, tensor_ref(self));
    return EP_OK;
}

/* view_copy, permute_copy, split_copy, ...: the view cloned contiguous
** (functionalization's definition of these ops; view_copy reshapes where
** the strides forbid a view, as TensorShape.cpp's view_copy does);
** unsafe_split / unsafe_chunk are the views themselves */
EpStatus k_view_copy(OpCall *c)
{
    Value v = value_none();
    EpStatus rc = run_plain_form(c, &v);
    if (rc)
        return rc;
    OpId id = c->op->id;
    if (id == OP_UNSAFE_SPLIT || id == OP_UNSAFE_SPLIT_WITH_SIZES || id == OP_UNSAFE_CHUNK) {
        c->outs[0] = v;
        return EP_OK;
    }
    if (v.kind == V_TENSOR) {
        Tensor *r = shape_copy_as(c, v.t, v.t->dtype, MF_CONTIGUOUS);
        value_clear(&v);
        return shape_out(c, r);
    }
    for (int i = 0; i < v.list->n; i++) {
        Value *e = &v.list->items[i];
        Tensor *r = shape_copy_as(c, e->t, e->t->dtype, MF_CONTIGUOUS);
        if (!r) {
            value_clear(&v);
            return c->err->code;
        }
        value_clear(e);
        *e = value_tensor(r);
    }
    c->outs[0] = v;
    return EP_OK;
}
