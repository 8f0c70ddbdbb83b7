/*
** ops.c -- the operator registry's front: parsing every schema of the
** operator table once, looking operators up by node target, and binding a
** node's inputs to an operator's schema.
**
** The table itself, generated from interp/ops/ops.def, lives with the
** kernels it names (interp/ops/table.c); this file only calls down into it,
** so the kernels never depend on the registry.
*/
#include "ops.h"

#include "ops/nn.h"
#include "ops/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open-addressing hash of target -> OpId, built by ops_init.  Twice the
** table size rounded to a power of two keeps probes short. */
static int *lookup_slots;
static size_t lookup_mask;
static bool initialised;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

EpStatus ops_init(EpError *err)
{
    if (initialised)
        return EP_OK;
    size_t cap = 16;
    while (cap < 2 * (size_t)OP_COUNT)
        cap *= 2;
    lookup_slots = ep_xmalloc(cap * sizeof *lookup_slots);
    for (size_t i = 0; i < cap; i++)
        lookup_slots[i] = -1;
    lookup_mask = cap - 1;
    for (int id = 0; id < OP_COUNT; id++) {
        OpDef *d = &OP_TABLE[id];
        d->schema = schema_parse(d->schema_text, err);
        if (!d->schema) {
            ep_error_prefix(err, "internal: ops.def entry %s", d->target);
            ops_shutdown();
            return EP_ERR_EXEC;
        }
        size_t h = hash_str(d->target) & lookup_mask;
        while (lookup_slots[h] >= 0) {
            if (strcmp(OP_TABLE[lookup_slots[h]].target, d->target) == 0) {
                ops_shutdown();
                return ep_fail(err, EP_ERR_EXEC, "internal: ops.def lists %s twice", d->target);
            }
            h = (h + 1) & lookup_mask;
        }
        lookup_slots[h] = id;
    }
    initialised = true;
    return EP_OK;
}

void ops_shutdown(void)
{
    for (int id = 0; id < OP_COUNT; id++) {
        schema_free(OP_TABLE[id].schema);
        OP_TABLE[id].schema = NULL;
    }
    free(lookup_slots);
    lookup_slots = NULL;
    initialised = false;
    tensor_caches_drain();
}

const OpDef *op_get(OpId id)
{
    return (id >= 0 && id < OP_COUNT) ? &OP_TABLE[id] : NULL;
}

const char *op_short_target(const char *target)
{
    if (strncmp(target, "torch.ops.", 10) == 0)
        return target + 10;
    if (strncmp(target, "torch._ops.", 11) == 0) /* earliest 2.1 nightlies */
        return target + 11;
    return target;
}

const OpDef *op_lookup(const char *target)
{
    if (!initialised)
        return NULL;
    const char *t = op_short_target(target);
    size_t h = hash_str(t) & lookup_mask;
    while (lookup_slots[h] >= 0) {
        const OpDef *d = &OP_TABLE[lookup_slots[h]];
        if (strcmp(d->target, t) == 0)
            return d;
        h = (h + 1) & lookup_mask;
    }
    return NULL;
}

/* ---- binding arguments to schemas ---------------------------------------- */

static bool is_int_value(const Value *v) { return v->kind == V_INT || v->kind == V_BOOL; }

/* Convert one value to what schema slot a expects; the result is owned. */
static EpStatus conform(const OpDef *op, const SchemaArg *a, const Value *v, Value *out, EpError *err)
{
    if (v->kind == V_NONE) {
        if (a->optional || a->type == ST_ANY || a->type == ST_GENERATOR) {
            out->kind = V_NONE;
            return EP_OK;
        }
        return ep_fail(err, EP_ERR_FORMAT, "%s: argument '%s' (%s) cannot be None", op->target, a->name,
                       schema_type_name(a->type));
    }
    switch (a->type) {
    case ST_ANY:
        *out = value_copy(v);
        return EP_OK;
    case ST_TENSOR:
        if (v->kind == V_TENSOR) {
            *out = value_copy(v);
            return EP_OK;
        }
        if (value_is_scalar(v)) { /* a Python number for a Tensor: wrap it */
            Tensor *t = value_wrap_number(v, err);
            if (!t)
                return EP_ERR_EXEC;
            *out = value_tensor(t);
            return EP_OK;
        }
        break;
    case ST_INT:
        if (is_int_value(v)) {
            *out = value_int(v->kind == V_BOOL ? v->b : v->i);
            return EP_OK;
        }
        break;
    case ST_FLOAT:
        if (v->kind == V_FLOAT || is_int_value(v)) {
            *out = value_float(value_as_f64(v));
            return EP_OK;
        }
        break;
    case ST_BOOL:
        if (v->kind == V_BOOL || (v->kind == V_INT && (v->i == 0 || v->i == 1))) {
            *out = value_bool(v->kind == V_BOOL ? v->b : v->i != 0);
            return EP_OK;
        }
        break;
    case ST_SCALAR:
        if (value_is_scalar(v)) {
            *out = *v;
            return EP_OK;
        }
        break;
    case ST_STR:
        if (v->kind == V_STR) {
            *out = value_copy(v);
            return EP_OK;
        }
        break;
    case ST_SCALAR_TYPE:
        if (v->kind == V_DTYPE) {
            *out = *v;
            return EP_OK;
        }
        break;
    case ST_LAYOUT:
    case ST_MEMFMT: { /* a code, also given as a plain int: it must be the schema's */
        bool layout = a->type == ST_LAYOUT;
        if (v->kind != (layout ? V_LAYOUT : V_MEMFMT) && v->kind != V_INT)
            break;
        int code = v->i < 0 || v->i > INT32_MAX ? -1 : (int)v->i;
        if (!(layout ? layout_entry(code) : memory_format_entry(code)))
            return ep_fail(err, EP_ERR_FORMAT, "%s: argument '%s' has unknown %s code %lld", op->target, a->name,
                           layout ? "Layout" : "MemoryFormat", (long long)v->i);
        out->kind = layout ? V_LAYOUT : V_MEMFMT;
        out->i = code;
        return EP_OK;
    }
    case ST_DEVICE:
        if (v->kind == V_DEVICE || v->kind == V_STR) {
            out->kind = V_DEVICE;
            out->s = ep_xstrdup(v->s);
            return EP_OK;
        }
        break;
    case ST_GENERATOR:
        break; /* only None is accepted */
    case ST_INT_LIST:
    case ST_FLOAT_LIST:
    case ST_BOOL_LIST:
    case ST_STR_LIST:
    case ST_SCALAR_LIST:
    case ST_TENSOR_LIST:
    case ST_OPT_TENSOR_LIST: {
        /* a bare scalar where a list is expected: torch expands int[N] x=1 */
        if (v->kind != V_LIST) {
            if (a->type == ST_INT_LIST && is_int_value(v)) {
                int n = a->fixed_len > 0 ? a->fixed_len : 1;
                out->kind = V_LIST;
                out->list = value_list_new(n);
                for (int i = 0; i < n; i++)
                    out->list->items[i] = value_int(v->kind == V_BOOL ? v->b : v->i);
                return EP_OK;
            }
            break;
        }
        const ValueList *l = v->list;
        int n = l->n;
        if (a->type == ST_INT_LIST && a->fixed_len > 1 && n == 1)
            n = a->fixed_len; /* int[2] given [k] means [k, k] */
        ValueList *r = value_list_new(n);
        for (int i = 0; i < n; i++) {
            const Value *e = &l->items[l->n == n ? i : 0];
            Value *o = &r->items[i];
            bool ok = true;
            switch (a->type) {
            case ST_INT_LIST:
                ok = is_int_value(e);
                if (ok)
                    *o = value_int(e->kind == V_BOOL ? e->b : e->i);
                break;
            case ST_FLOAT_LIST:
                ok = value_is_scalar(e);
                if (ok)
                    *o = value_float(value_as_f64(e));
                break;
            case ST_BOOL_LIST:
                ok = e->kind == V_BOOL;
                if (ok)
                    *o = *e;
                break;
            case ST_SCALAR_LIST:
                ok = value_is_scalar(e);
                if (ok)
                    *o = *e;
                break;
            case ST_STR_LIST:
                ok = e->kind == V_STR;
                if (ok)
                    *o = value_copy(e);
                break;
            case ST_TENSOR_LIST:
                ok = e->kind == V_TENSOR;
                if (ok)
                    *o = value_copy(e);
                break;
            default: /* ST_OPT_TENSOR_LIST */
                ok = e->kind == V_TENSOR || e->kind == V_NONE;
                if (ok)
                    *o = value_copy(e);
                break;
            }
            if (!ok) {
                Value tmp = {.kind = V_LIST};
                tmp.list = r;
                value_clear(&tmp);
                return ep_fail(err, EP_ERR_FORMAT, "%s: argument '%s' expects %s, item %d is %s", op->target,
                               a->name, schema_type_name(a->type), i, value_kind_name(e->kind));
            }
        }
        out->kind = V_LIST;
        out->list = r;
        return EP_OK;
    }
    }
    return ep_fail(err, EP_ERR_FORMAT, "%s: argument '%s' expects %s, got %s", op->target, a->name,
                   schema_type_name(a->type), value_kind_name(v->kind));
}

EpStatus op_bind(const OpDef *op, int n, const char *const *names, const Value *vals, Value *args,
                 EpError *err)
{
    const OpSchema *s = op->schema;
    bool given[OP_MAX_ARGS] = {false};
    if (s->nargs > OP_MAX_ARGS)
        return ep_fail(err, EP_ERR_EXEC, "internal: %s has too many arguments", op->target);
    for (int i = 0; i < s->nargs; i++)
        args[i].kind = V_NONE;
    EpStatus rc = EP_OK;
    int next_positional = 0;
    for (int k = 0; k < n && rc == EP_OK; k++) {
        int idx;
        bool positional = (op->flags & OPF_POSITIONAL) || !names || !names[k] || !names[k][0];
        if (positional) {
            idx = next_positional++;
            if (idx >= s->nargs) {
                rc = ep_fail(err, EP_ERR_FORMAT, "%s: too many arguments (%d; it takes %d)", op->target, n, s->nargs);
                break;
            }
        } else {
            idx = schema_arg_index(s, names[k]);
            if (idx < 0) {
                rc = ep_fail(err, EP_ERR_FORMAT, "%s: unknown argument '%s' (schema %s)", op->target, names[k],
                             op->schema_text);
                break;
            }
            next_positional = idx + 1;
        }
        if (given[idx]) {
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: argument '%s' given twice", op->target, s->args[idx].name);
            break;
        }
        given[idx] = true;
        rc = conform(op, &s->args[idx], &vals[k], &args[idx], err);
    }
    for (int i = 0; i < s->nargs && rc == EP_OK; i++) {
        if (given[i])
            continue;
        const SchemaArg *a = &s->args[i];
        if (a->has_default)
            args[i] = value_copy(&a->dflt);
        else if (a->optional)
            args[i].kind = V_NONE;
        else
            rc = ep_fail(err, EP_ERR_FORMAT, "%s: missing argument '%s' (%s)", op->target, a->name,
                         schema_type_name(a->type));
    }
    if (rc != EP_OK)
        for (int i = 0; i < s->nargs; i++)
            value_clear(&args[i]);
    return rc;
}

void ops_set_blas_threads(int n)
{
    nn_blas_set_threads(n);
}

int ops_blas_threads(void)
{
    return nn_blas_threads();
}
