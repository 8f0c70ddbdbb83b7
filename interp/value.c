/*
** value.c -- runtime values: lists, release, copies, descriptions.
*/
#include "value.h"

#include <stdlib.h>
#include <string.h>

ValueList *value_list_new(int n)
{
    ValueList *l = ep_xmalloc(sizeof *l + (size_t)(n > 0 ? n : 0) * sizeof(Value));
    l->n = n;
    for (int i = 0; i < n; i++)
        l->items[i].kind = V_NONE;
    return l;
}

Value value_int_list(int n, const int64_t *v)
{
    Value r = {.kind = V_LIST};
    r.list = value_list_new(n);
    for (int i = 0; i < n; i++)
        r.list->items[i] = value_int(v[i]);
    return r;
}

void value_clear(Value *v)
{
    switch (v->kind) {
    case V_TENSOR:
        tensor_unref(v->t);
        break;
    case V_STR:
    case V_DEVICE:
        free((char *)v->s);
        break;
    case V_LIST:
        if (v->list) {
            for (int i = 0; i < v->list->n; i++)
                value_clear(&v->list->items[i]);
            free(v->list);
        }
        break;
    default:
        break;
    }
    v->kind = V_NONE;
}

Value value_copy(const Value *v)
{
    Value r = *v;
    switch (v->kind) {
    case V_TENSOR:
        if (v->t) /* NULL: a placeholder the interpreter fills at run time */
            tensor_ref(v->t);
        break;
    case V_STR:
    case V_DEVICE:
        r.s = ep_xstrdup(v->s);
        break;
    case V_LIST:
        r.list = value_list_new(v->list->n);
        for (int i = 0; i < v->list->n; i++)
            r.list->items[i] = value_copy(&v->list->items[i]);
        break;
    default:
        break;
    }
    return r;
}

Tensor *value_wrap_number(const Value *v, EpError *err)
{
    Tensor *t = v->kind == V_FLOAT ? tensor_scalar_f64(DT_F64, v->f, err)
                : v->kind == V_BOOL ? tensor_scalar_i64(DT_BOOL, v->b, err)
                                    : tensor_scalar_i64(DT_I64, v->i, err);
    if (t)
        t->wrapped_number = true;
    return t;
}

Tensor *value_to_array(const Value *v, EpError *err)
{
    switch (v->kind) {
    case V_TENSOR: return tensor_ref(v->t);
    case V_INT: return tensor_scalar_i64(DT_I64, v->i, err);
    case V_FLOAT: return tensor_scalar_f64(DT_F64, v->f, err);
    case V_BOOL: return tensor_scalar_i64(DT_BOOL, v->b, err);
    default:
        ep_fail(err, EP_ERR_USAGE, "a %s has no array form", value_kind_name(v->kind));
        return NULL;
    }
}

EpStatus value_clone(const Value *v, Value *out, EpError *err)
{
    *out = value_copy(v);
    if (out->kind == V_TENSOR && out->t) {
        Tensor *t = tensor_to_dtype(out->t, out->t->dtype, err);
        tensor_unref(out->t);
        out->t = t;
        if (!t) {
            out->kind = V_NONE;
            return EP_ERR_EXEC;
        }
    } else if (out->kind == V_LIST) {
        for (int i = 0; i < out->list->n; i++) {
            Value c;
            if (value_clone(&out->list->items[i], &c, err)) {
                value_clear(out);
                return EP_ERR_EXEC;
            }
            value_clear(&out->list->items[i]);
            out->list->items[i] = c;
        }
    }
    return EP_OK;
}

EpStatus values_clone(const Value *v, int n, Value **out, EpError *err)
{
    *out = ep_xcalloc((size_t)(n ? n : 1), sizeof **out);
    for (int i = 0; i < n; i++) {
        if (value_clone(&v[i], &(*out)[i], err)) {
            for (int j = 0; j < i; j++)
                value_clear(&(*out)[j]);
            free(*out);
            *out = NULL;
            return EP_ERR_EXEC;
        }
    }
    return EP_OK;
}

const char *value_kind_name(ValueKind k)
{
    static const char *names[] = {
        [V_NONE] = "None", [V_TENSOR] = "tensor", [V_INT] = "int", [V_FLOAT] = "float",
        [V_BOOL] = "bool", [V_STR] = "str", [V_DTYPE] = "dtype", [V_LAYOUT] = "layout",
        [V_MEMFMT] = "memory_format", [V_DEVICE] = "device", [V_LIST] = "list",
    };
    return (k >= 0 && k <= V_LIST) ? names[k] : "?";
}

static void describe_into(StrBuf *sb, const Value *v)
{
    char buf[512];
    switch (v->kind) {
    case V_TENSOR:
        sb_printf(sb, "tensor %s%s", dtype_name(v->t->dtype), shape_str(v->t->ndim, v->t->sizes, buf, sizeof buf));
        break;
    case V_INT: sb_printf(sb, "int %lld", (long long)v->i); break;
    case V_FLOAT: sb_printf(sb, "float %.9g", v->f); break;
    case V_BOOL: sb_printf(sb, "bool %s", v->b ? "True" : "False"); break;
    case V_STR: sb_printf(sb, "str '%s'", v->s); break;
    case V_DTYPE: sb_printf(sb, "dtype %s", dtype_name((DType)v->i)); break;
    case V_LAYOUT: sb_printf(sb, "layout %s", layout_name((int)v->i, buf)); break;
    case V_MEMFMT: sb_printf(sb, "memory_format %s", memory_format_name((int)v->i, buf)); break;
    case V_DEVICE: sb_printf(sb, "device %s", v->s); break;
    case V_LIST:
        sb_append(sb, "[");
        for (int i = 0; i < v->list->n; i++) {
            if (i)
                sb_append(sb, ", ");
            describe_into(sb, &v->list->items[i]);
        }
        sb_append(sb, "]");
        break;
    default:
        sb_append(sb, "None");
        break;
    }
}

char *value_describe(const Value *v)
{
    StrBuf sb;
    sb_init(&sb);
    describe_into(&sb, v);
    return sb_take(&sb);
}
