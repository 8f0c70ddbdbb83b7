/*
** program_load.c -- the ExportedProgram JSON of every schema era into an
** ExportedProgram (program.h).
**
** Eras (see ../shared/docs/pt2-format.md section 2): schema 1 (PyTorch 2.1)
** and 2 (2.2) write integer schema_version and unions with every variant
** key present; schema 1 also has a dict-style graph signature, TensorValue
** wrappers and plain-string SymBool expressions.  From 5.x unions are
** single-key objects; 8.x adds Node.name, ArgumentKind, verifiers.  Unknown
** fields are ignored; a missing required field is an error naming its path.
*/
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards_code.h"
#include "json.h"
#include "program_int.h"

/* ---- arguments ------------------------------------------------------------ */

/* The loader's state: the JSON context plus the schema era. */
typedef struct Loader {
    JCtx j;
    int era; /* 1, 2 or the schema major (5, 8, ...) */
    /* The program's own graph's nodes and tensor_values when they are read
    ** in pieces (json_parse_holes), else NULL; pieces is their arena. */
    const char *text;
    const JsonHole *nodes_hole, *tv_hole;
    JsonArena *pieces;
} Loader;

#define SUB(name, parent, k) JPath name = {(parent), (k), 0}
#define IDX(name, parent, i) JPath name = {(parent), NULL, (i)}

static EpStatus parse_graph(Loader *L, const JPath *p, const cJSON *j, Graph *g);

/* A required string member of v, copied. */
static EpStatus parse_string_field(Loader *L, const JPath *p, const cJSON *v, const char *key, char **out)
{
    const cJSON *f;
    const char *s;
    EpStatus rc = jneed(&L->j, p, v, key, &f);
    if (rc)
        return rc;
    SUB(fp, p, key);
    if ((rc = jstr(&L->j, &fp, f, &s)))
        return rc;
    *out = ep_xstrdup(s);
    return EP_OK;
}

/* A value reference that is either {"name": x} or, in old files, "x". */
static EpStatus parse_name_ref(Loader *L, const JPath *p, const cJSON *v, char **out)
{
    if (cJSON_IsString(v)) {
        *out = ep_xstrdup(v->valuestring);
        return EP_OK;
    }
    return parse_string_field(L, p, v, "name", out);
}

/* OptionalTensorArgument: as_tensor (TensorArgument or bare name) | as_none. */
static EpStatus parse_optional_tensor(Loader *L, const JPath *p, const cJSON *v, Arg *out)
{
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    if (strcmp(key, "as_none") == 0) {
        out->kind = ARG_NONE;
        return EP_OK;
    }
    if (strcmp(key, "as_tensor") != 0)
        return jfail(&L->j, p, "unexpected optional-tensor variant '%s'", key);
    out->kind = ARG_TENSOR;
    SUB(tp, p, key);
    return parse_name_ref(L, &tp, val, &out->ref);
}

static EpStatus item_literal(Loader *L, const JPath *p, const cJSON *v, Arg *out, ArgKind hint)
{
    out->kind = hint;
    switch (hint) {
    case ARG_INT:
        out->lit.kind = V_INT;
        return jint(&L->j, p, v, &out->lit.i);
    case ARG_FLOAT:
        out->lit.kind = V_FLOAT;
        return jfloat(&L->j, p, v, &out->lit.f);
    case ARG_BOOL:
        out->lit.kind = V_BOOL;
        return jbool(&L->j, p, v, &out->lit.b);
    default: {
        const char *s;
        EpStatus rc = jstr(&L->j, p, v, &s);
        if (rc)
            return rc;
        out->lit.kind = V_STR;
        out->lit.s = ep_xstrdup(s);
        return EP_OK;
    }
    }
}

/* The scalar variants every union with literals shares (as_int, as_float,
** as_bool, as_string): parse one into out->lit.  Returns false (nothing
** parsed) for any other key. */
static bool literal_variant(Loader *L, const JPath *p, const char *key, const cJSON *val, Arg *out, EpStatus *rc)
{
    static const struct { const char *key; ArgKind kind; } literals[] = {
        {"as_int", ARG_INT}, {"as_float", ARG_FLOAT}, {"as_bool", ARG_BOOL}, {"as_string", ARG_STRING},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(literals); i++)
        if (strcmp(key, literals[i].key) == 0) {
            JPath vp = {p, key, 0};
            *rc = item_literal(L, &vp, val, out, literals[i].kind);
            return true;
        }
    return false;
}

/* SymIntArgument / SymBoolArgument / SymFloatArgument: as_name | literal. */
static EpStatus parse_sym_arg(Loader *L, const JPath *p, const cJSON *v, ArgKind ref_kind, Arg *out)
{
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    SUB(vp, p, key);
    if (strcmp(key, "as_name") == 0) {
        const char *s;
        if ((rc = jstr(&L->j, &vp, val, &s)))
            return rc;
        out->kind = ref_kind;
        out->ref = ep_xstrdup(s);
        return EP_OK;
    }
    if (literal_variant(L, p, key, val, out, &rc))
        return rc;
    return jfail(&L->j, p, "unexpected symbolic-argument variant '%s'", key);
}

/* Lists: allocate items and parse each with fn. */
typedef EpStatus (*ItemParser)(Loader *L, const JPath *p, const cJSON *v, Arg *out, ArgKind hint);

static EpStatus parse_list(Loader *L, const JPath *p, const cJSON *v, Arg *out, ItemParser fn, ArgKind hint)
{
    if (!cJSON_IsArray(v))
        return jfail(&L->j, p, "expected a list");
    int n = cJSON_GetArraySize(v);
    out->n = n;
    out->items = ep_xcalloc((size_t)(n ? n : 1), sizeof *out->items);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        IDX(ip, p, i);
        EpStatus rc = fn(L, &ip, e, &out->items[i], hint);
        if (rc)
            return rc;
    }
    return EP_OK;
}

static EpStatus item_tensor(Loader *L, const JPath *p, const cJSON *v, Arg *out, ArgKind hint)
{
    (void)hint;
    out->kind = ARG_TENSOR;
    return parse_name_ref(L, p, v, &out->ref);
}

static EpStatus item_opt_tensor(Loader *L, const JPath *p, const cJSON *v, Arg *out, ArgKind hint)
{
    (void)hint;
    return parse_optional_tensor(L, p, v, out);
}

static EpStatus item_sym(Loader *L, const JPath *p, const cJSON *v, Arg *out, ArgKind hint)
{
    return parse_sym_arg(L, p, v, hint, out);
}

/* A ScalarType, Layout or MemoryFormat code must be one of the schema's
** (dtype.h's tables): a code this epdbg does not know is a format error
** naming the JSON path, not a value some kernel misreads later. */
static EpStatus check_enum_code(Loader *L, const JPath *p, ArgKind kind, int64_t code)
{
    const char *what = kind == ARG_SCALAR_TYPE ? "ScalarType" : kind == ARG_LAYOUT ? "Layout" : "MemoryFormat";
    const SchemaEnumEntry *e = code < INT32_MIN || code > INT32_MAX ? NULL
                               : kind == ARG_SCALAR_TYPE          ? scalar_type_entry((int)code)
                               : kind == ARG_LAYOUT               ? layout_entry((int)code)
                                                                  : memory_format_entry((int)code);
    if (e)
        return EP_OK;
    return jfail(&L->j, p, "unknown %s code %lld (torch/_export/serde/schema.py has no such value)", what,
                 (long long)code);
}

static EpStatus parse_device(Loader *L, const JPath *p, const cJSON *v, char **out)
{
    if (cJSON_IsString(v)) { /* some writers give "cpu" directly */
        *out = ep_xstrdup(v->valuestring);
        return EP_OK;
    }
    const cJSON *type;
    const char *ts;
    EpStatus rc = jneed(&L->j, p, v, "type", &type);
    if (rc)
        return rc;
    SUB(tp, p, "type");
    if ((rc = jstr(&L->j, &tp, type, &ts)))
        return rc;
    const cJSON *index = jget(v, "index");
    int64_t idx = 0;
    if (index) {
        SUB(xp, p, "index");
        if ((rc = jint(&L->j, &xp, index, &idx)))
            return rc;
        *out = ep_xasprintf("%s:%lld", ts, (long long)idx);
    } else {
        *out = ep_xstrdup(ts);
    }
    return EP_OK;
}

/* One Argument union. */
static EpStatus parse_arg(Loader *L, const JPath *p, const cJSON *v, Arg *out)
{
    const char *key;
    const cJSON *val;
    memset(out, 0, sizeof *out);
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    SUB(vp, p, key);
    if (strcmp(key, "as_none") == 0) {
        out->kind = ARG_NONE;
        return EP_OK;
    }
    if (strcmp(key, "as_tensor") == 0) {
        out->kind = ARG_TENSOR;
        return parse_name_ref(L, &vp, val, &out->ref);
    }
    if (strcmp(key, "as_tensors") == 0) {
        out->kind = ARG_TENSORS;
        return parse_list(L, &vp, val, out, item_tensor, ARG_TENSOR);
    }
    if (strcmp(key, "as_optional_tensor") == 0) {
        out->kind = ARG_OPT_TENSOR;
        out->n = 1;
        out->items = ep_xcalloc(1, sizeof *out->items);
        return parse_optional_tensor(L, &vp, val, &out->items[0]);
    }
    if (strcmp(key, "as_optional_tensors") == 0) {
        out->kind = ARG_OPT_TENSORS;
        return parse_list(L, &vp, val, out, item_opt_tensor, ARG_NONE);
    }
    static const struct { const char *key; ArgKind kind, item; } literal_lists[] = {
        {"as_ints", ARG_INTS, ARG_INT}, {"as_floats", ARG_FLOATS, ARG_FLOAT},
        {"as_bools", ARG_BOOLS, ARG_BOOL}, {"as_strings", ARG_STRINGS, ARG_STRING},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(literal_lists); i++)
        if (strcmp(key, literal_lists[i].key) == 0) {
            out->kind = literal_lists[i].kind;
            return parse_list(L, &vp, val, out, item_literal, literal_lists[i].item);
        }
    if (literal_variant(L, p, key, val, out, &rc))
        return rc;
    if (strcmp(key, "as_operator") == 0) {
        rc = item_literal(L, &vp, val, out, ARG_STRING);
        out->kind = ARG_OPERATOR;
        return rc;
    }
    static const struct { const char *key; ArgKind kind, ref; bool list; } syms[] = {
        {"as_sym_int", ARG_SYM_INT, ARG_SYM_INT, false},     {"as_sym_ints", ARG_SYM_INTS, ARG_SYM_INT, true},
        {"as_sym_float", ARG_SYM_FLOAT, ARG_SYM_FLOAT, false}, {"as_sym_floats", ARG_SYM_FLOATS, ARG_SYM_FLOAT, true},
        {"as_sym_bool", ARG_SYM_BOOL, ARG_SYM_BOOL, false},  {"as_sym_bools", ARG_SYM_BOOLS, ARG_SYM_BOOL, true},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(syms); i++)
        if (strcmp(key, syms[i].key) == 0) {
            if (syms[i].list) {
                out->kind = syms[i].kind;
                return parse_list(L, &vp, val, out, item_sym, syms[i].ref);
            }
            return parse_sym_arg(L, &vp, val, syms[i].ref, out);
        }
    static const struct { const char *key; ArgKind kind; } codes[] = {
        {"as_scalar_type", ARG_SCALAR_TYPE}, {"as_memory_format", ARG_MEMORY_FORMAT}, {"as_layout", ARG_LAYOUT},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(codes); i++)
        if (strcmp(key, codes[i].key) == 0) {
            out->kind = codes[i].kind;
            out->lit.kind = V_INT;
            if ((rc = jint(&L->j, &vp, val, &out->lit.i)))
                return rc;
            return check_enum_code(L, &vp, codes[i].kind, out->lit.i);
        }
    if (strcmp(key, "as_device") == 0) {
        out->kind = ARG_DEVICE;
        out->lit.kind = V_DEVICE;
        char *s;
        if ((rc = parse_device(L, &vp, val, &s)))
            return rc;
        out->lit.s = s;
        return EP_OK;
    }
    if (strcmp(key, "as_graph") == 0) {
        out->kind = ARG_GRAPH;
        const cJSON *name, *graph;
        if ((rc = jneed(&L->j, &vp, val, "name", &name)) || (rc = jneed(&L->j, &vp, val, "graph", &graph)))
            return rc;
        out->ref = ep_xstrdup(cJSON_IsString(name) ? name->valuestring : "?");
        out->graph = ep_xcalloc(1, sizeof *out->graph);
        SUB(gp, &vp, "graph");
        return parse_graph(L, &gp, graph, out->graph);
    }
    if (strcmp(key, "as_custom_obj") == 0) {
        out->kind = ARG_CUSTOM_OBJ;
        const cJSON *name = jget(val, "name");
        out->ref = ep_xstrdup(name && cJSON_IsString(name) ? name->valuestring : "?");
        return EP_OK;
    }
    if (strcmp(key, "as_complex") == 0) {
        out->kind = ARG_COMPLEX;
        return EP_OK;
    }
    /* A variant of the schema epdbg does not run: keep its name; the node
    ** fails with a clear message only if it is executed.  Any other key is
    ** no Argument at all. */
    static const char *const unrun[] = {"as_int_lists", "as_string_to_argument"};
    bool known = false;
    for (size_t i = 0; i < EP_ARRAY_LEN(unrun); i++)
        known |= strcmp(key, unrun[i]) == 0;
    if (!known)
        return jfail(&L->j, p, "unknown Argument variant '%s'", key);
    out->kind = ARG_OTHER;
    out->variant = ep_xstrdup(key);
    return EP_OK;
}

/* ---- symbolic values -------------------------------------------------------- */

static SymExpr *parse_expr_text(const char *text)
{
    return sym_parse(text, NULL, 0);
}

/* SymExpr {expr_str, hint} (hint: SymExprHint union, plain int in v1, null). */
static EpStatus parse_sym_expr(Loader *L, const JPath *p, const cJSON *v, SymDim *d)
{
    const cJSON *es;
    const char *text;
    EpStatus rc = jneed(&L->j, p, v, "expr_str", &es);
    if (rc)
        return rc;
    SUB(ep, p, "expr_str");
    if ((rc = jstr(&L->j, &ep, es, &text)))
        return rc;
    d->is_expr = true;
    d->expr = ep_xstrdup(text);
    d->parsed = parse_expr_text(text);
    const cJSON *hint = jget(v, "hint");
    if (hint) {
        SUB(hp, p, "hint");
        if (jis_int(hint)) {
            d->has_hint = true;
            return jint(&L->j, &hp, hint, &d->hint);
        }
        const char *hk;
        const cJSON *hv;
        if ((rc = junion(&L->j, &hp, hint, &hk, &hv)))
            return rc;
        if (strcmp(hk, "as_int") == 0 && jis_int(hv)) {
            d->has_hint = true;
            SUB(hvp, &hp, hk);
            return jint(&L->j, &hvp, hv, &d->hint);
        }
    }
    return EP_OK;
}

/* SymInt union: as_int | as_expr (or a plain int in schema 1/2 places). */
static EpStatus parse_symint(Loader *L, const JPath *p, const cJSON *v, SymDim *d)
{
    memset(d, 0, sizeof *d);
    if (jis_int(v))
        return jint(&L->j, p, v, &d->value);
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    SUB(vp, p, key);
    if (strcmp(key, "as_int") == 0)
        return jint(&L->j, &vp, val, &d->value);
    if (strcmp(key, "as_expr") == 0)
        return parse_sym_expr(L, &vp, val, d);
    return jfail(&L->j, p, "unexpected SymInt variant '%s'", key);
}

/* SymBool / SymFloat union: as_bool|as_float literal or as_expr. */
static EpStatus parse_sym_scalar(Loader *L, const JPath *p, const cJSON *v, SymScalarMeta *m)
{
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    SUB(vp, p, key);
    if (strcmp(key, "as_expr") == 0) {
        m->is_expr = true;
        if (cJSON_IsString(val)) { /* schema 1: a plain string */
            m->expr = ep_xstrdup(val->valuestring);
        } else {
            SymDim d = {0};
            if ((rc = parse_sym_expr(L, &vp, val, &d))) {
                symdim_clear(&d);
                return rc;
            }
            m->expr = d.expr;
            sym_free(d.parsed);
        }
        m->parsed = parse_expr_text(m->expr);
        return EP_OK;
    }
    Arg a = {0};
    if (literal_variant(L, p, key, val, &a, &rc)) {
        m->lit = a.lit;
        return rc;
    }
    return jfail(&L->j, p, "unexpected symbolic value variant '%s'", key);
}

/* A TensorMeta with room for the rank v's sizes list gives (at most
** EP_MAX_DIMS: a longer list is refused by parse_tensor_meta). */
static TensorMeta *tensor_meta_new(const cJSON *v)
{
    const cJSON *inner = jget(v, "meta"); /* schema 1: TensorValue {meta} */
    if (inner && !jget(v, "dtype"))
        v = inner;
    const cJSON *sizes = jget(v, "sizes");
    int n = cJSON_IsArray(sizes) ? cJSON_GetArraySize(sizes) : 0;
    n = n < 0 ? 0 : n > EP_MAX_DIMS ? EP_MAX_DIMS : n;
    TensorMeta *m = ep_xcalloc(1, sizeof *m + 2 * (size_t)n * sizeof(SymDim));
    m->sizes = (SymDim *)(m + 1);
    m->strides = m->sizes + n;
    return m;
}

static EpStatus parse_tensor_meta(Loader *L, const JPath *p, const cJSON *v, TensorMeta *m)
{
    EpStatus rc;
    const cJSON *inner = jget(v, "meta"); /* schema 1: TensorValue {meta} */
    if (inner && !jget(v, "dtype"))
        v = inner;
    const cJSON *dt, *sizes;
    if ((rc = jneed(&L->j, p, v, "dtype", &dt)) || (rc = jneed(&L->j, p, v, "sizes", &sizes)))
        return rc;
    int64_t code;
    SUB(dp, p, "dtype");
    if ((rc = jint(&L->j, &dp, dt, &code)))
        return rc;
    if ((rc = check_enum_code(L, &dp, ARG_SCALAR_TYPE, code)))
        return rc;
    m->scalar_type = (int)code;
    m->dtype = dtype_from_scalar_type((int)code);
    SUB(sp, p, "sizes");
    if (!cJSON_IsArray(sizes))
        return jfail(&L->j, &sp, "expected a list");
    int n = cJSON_GetArraySize(sizes);
    if (n > EP_MAX_DIMS)
        return jfail(&L->j, &sp, "rank %d exceeds epdbg's limit of %d dimensions", n, EP_MAX_DIMS);
    int i = 0;
    for (const cJSON *e = sizes->child; e; e = e->next, i++) {
        IDX(ip, &sp, i);
        if ((rc = parse_symint(L, &ip, e, &m->sizes[i]))) {
            m->ndim = i + 1;
            return rc;
        }
        m->ndim = i + 1;
    }
    m->ndim = n;
    int64_t numel = 1;
    for (i = 0; i < n; i++) {
        const SymDim *d = &m->sizes[i];
        IDX(ip, &sp, i);
        if (!d->is_expr && d->value < 0)
            return jfail(&L->j, &ip, "negative size %lld", (long long)d->value);
        if (!d->is_expr && __builtin_mul_overflow(numel, d->value, &numel))
            return jfail(&L->j, &sp, "the sizes' product overflows 64 bits");
    }
    const cJSON *strides = jget(v, "strides");
    SUB(stp, p, "strides");
    if (strides && !cJSON_IsArray(strides))
        return jfail(&L->j, &stp, "expected a list");
    if (strides && cJSON_GetArraySize(strides) != n)
        return jfail(&L->j, &stp, "%d strides for %d sizes", cJSON_GetArraySize(strides), n);
    if (strides) {
        i = 0;
        for (const cJSON *e = strides->child; e; e = e->next, i++) {
            IDX(ip, &stp, i);
            if ((rc = parse_symint(L, &ip, e, &m->strides[i])))
                return rc;
        }
    }
    const cJSON *rg = jget(v, "requires_grad");
    m->requires_grad = cJSON_IsTrue(rg);
    const cJSON *dev = jget(v, "device");
    if (dev) {
        SUB(devp, p, "device");
        if ((rc = parse_device(L, &devp, dev, &m->device)))
            return rc;
    }
    const cJSON *layout = jget(v, "layout");
    int64_t lay = 7;
    if (layout) {
        SUB(lp, p, "layout");
        if ((rc = jint(&L->j, &lp, layout, &lay)) || (rc = check_enum_code(L, &lp, ARG_LAYOUT, lay)))
            return rc;
    }
    m->layout = (int)lay;
    return EP_OK;
}

/* ---- nodes and graphs --------------------------------------------------------- */

static char *dup_string_value(const cJSON *v)
{
    return cJSON_IsString(v) ? ep_xstrdup(v->valuestring) : NULL;
}

static EpStatus parse_node_meta(Loader *L, const JPath *p, const cJSON *v, NodeMeta *m)
{
    if (!v)
        return EP_OK;
    if (!cJSON_IsObject(v))
        return jfail(&L->j, p, "expected an object of strings");
    for (const cJSON *e = v->child; e; e = e->next) {
        SUB(ep, p, e->string);
        if (cJSON_IsNull(e))
            continue;
        if (!cJSON_IsString(e))
            return jfail(&L->j, &ep, "expected a string");
        node_meta_set(m, e->string, strlen(e->string), ep_xstrdup(e->valuestring));
    }
    return EP_OK;
}

static EpStatus parse_node(Loader *L, const JPath *p, const cJSON *v, Node *n, int index)
{
    EpStatus rc;
    const cJSON *target, *inputs, *outputs;
    if ((rc = jneed(&L->j, p, v, "target", &target)))
        return rc;
    SUB(tp, p, "target");
    const char *ts;
    if ((rc = jstr(&L->j, &tp, target, &ts)))
        return rc;
    n->target = ep_xstrdup(ts);
    if ((rc = jneed(&L->j, p, v, "inputs", &inputs)))
        return rc;
    SUB(inp, p, "inputs");
    if (!cJSON_IsArray(inputs))
        return jfail(&L->j, &inp, "expected a list");
    n->ninputs = cJSON_GetArraySize(inputs);
    n->inputs = ep_xcalloc((size_t)(n->ninputs ? n->ninputs : 1), sizeof *n->inputs);
    int i = 0;
    for (const cJSON *e = inputs->child; e; e = e->next, i++) {
        IDX(ip, &inp, i);
        const cJSON *name = jget(e, "name"), *arg;
        if ((rc = jneed(&L->j, &ip, e, "arg", &arg)))
            return rc;
        n->inputs[i].name = ep_xstrdup(name && cJSON_IsString(name) ? name->valuestring : "");
        const cJSON *kind = jget(e, "kind");
        n->inputs[i].kind = kind && cJSON_IsNumber(kind) ? kind->valueint : 0;
        SUB(ap, &ip, "arg");
        if ((rc = parse_arg(L, &ap, arg, &n->inputs[i].arg)))
            return rc;
    }
    outputs = jget(v, "outputs");
    SUB(outp, p, "outputs");
    if (outputs && !cJSON_IsArray(outputs))
        return jfail(&L->j, &outp, "expected a list");
    n->noutputs = outputs ? cJSON_GetArraySize(outputs) : 0;
    n->outputs = ep_xcalloc((size_t)(n->noutputs ? n->noutputs : 1), sizeof *n->outputs);
    i = 0;
    for (const cJSON *e = outputs ? outputs->child : NULL; e; e = e->next, i++) {
        IDX(op, &outp, i);
        if ((rc = parse_arg(L, &op, e, &n->outputs[i])))
            return rc;
    }
    const cJSON *meta = jget(v, "metadata");
    SUB(mp, p, "metadata");
    if ((rc = parse_node_meta(L, &mp, meta, &n->meta)))
        return rc;
    n->is_hop_single_tensor_return = cJSON_IsTrue(jget(v, "is_hop_single_tensor_return"));
    const cJSON *name = jget(v, "name");
    SUB(namep, p, "name");
    if (name && !cJSON_IsString(name))
        return jfail(&L->j, &namep, "expected a string");
    n->name = cJSON_IsString(name) && name->valuestring[0] ? ep_xstrdup(name->valuestring) : node_first_output_name(n);
    if (!n->name)
        n->name = ep_xasprintf("node_%d", index);
    n->op = op_lookup(n->target);
    return EP_OK;
}

static EpStatus parse_arg_list(Loader *L, const JPath *p, const cJSON *v, Arg **out, int *n)
{
    if (!cJSON_IsArray(v))
        return jfail(&L->j, p, "expected a list");
    *n = cJSON_GetArraySize(v);
    *out = ep_xcalloc((size_t)(*n ? *n : 1), sizeof **out);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        IDX(ip, p, i);
        EpStatus rc = parse_arg(L, &ip, e, &(*out)[i]);
        if (rc)
            return rc;
    }
    return EP_OK;
}

/* An optional member that, when present, must be a JSON object (a table
** keyed by name): a list there has members without keys. */
static EpStatus need_object(Loader *L, const JPath *p, const cJSON *v)
{
    return v && !cJSON_IsObject(v) ? jfail(&L->j, p, "expected an object") : EP_OK;
}

/* ---- the graph's structure -------------------------------------------------- */

/* Calls fn on each value name a (an input or output argument) refers to:
** tensors, symbolic scalars and the items of their lists. */
static void arg_refs(const Arg *a, void (*fn)(const char *name, void *ctx), void *ctx)
{
    switch (a->kind) {
    case ARG_TENSOR:
    case ARG_SYM_INT:
    case ARG_SYM_FLOAT:
    case ARG_SYM_BOOL:
        if (a->ref)
            fn(a->ref, ctx);
        break;
    case ARG_TENSORS:
    case ARG_OPT_TENSOR:
    case ARG_OPT_TENSORS:
    case ARG_SYM_INTS:
    case ARG_SYM_FLOATS:
    case ARG_SYM_BOOLS:
        for (int i = 0; i < a->n; i++)
            arg_refs(&a->items[i], fn, ctx);
        break;
    default:
        break;
    }
}

/* The walk of check_graph: the values defined so far (name -> the node
** index + 1 that defines it, -1 for a graph input) and the first fault. */
typedef struct GraphCheck {
    StrMap defined;
    int node;          /* the node being read, or -1 for the graph inputs/outputs */
    const char *bad;   /* the name at fault */
    enum { GC_OK, GC_UNDEFINED, GC_TWICE } fault;
} GraphCheck;

static void use_ref(const char *name, void *ctx)
{
    GraphCheck *gc = ctx;
    if (gc->fault == GC_OK && !strmap_get(&gc->defined, name)) {
        gc->fault = GC_UNDEFINED;
        gc->bad = name;
    }
}

static void def_ref(const char *name, void *ctx)
{
    GraphCheck *gc = ctx;
    if (gc->fault != GC_OK)
        return;
    if (strmap_get_or_put(&gc->defined, name, (void *)(intptr_t)(gc->node + 2))) { /* never NULL */
        gc->fault = GC_TWICE;
        gc->bad = name;
    }
}

/* The node (of g) defining name later in the list, or -1. */
static int later_definer(const Graph *g, int from, const char *name)
{
    for (int i = from; i < g->nnodes; i++)
        for (int k = 0; k < g->nodes[i].noutputs; k++) {
            const Arg *a = &g->nodes[i].outputs[k];
            if (a->ref && strcmp(a->ref, name) == 0)
                return i;
            for (int j = 0; j < a->n; j++)
                if (a->items[j].ref && strcmp(a->items[j].ref, name) == 0)
                    return i;
        }
    return -1;
}

/* Nodes are stored in execution order: every value a node or the graph's
** outputs use must be a graph input or an earlier node's output, defined
** once, and node names are unique.  Checked here so that `info` refuses
** what `run` could not execute (a cycle is a use before definition). */
static EpStatus check_graph(Loader *L, const JPath *p, const Graph *g)
{
    GraphCheck gc = {.node = -1, .fault = GC_OK};
    strmap_init_borrowed(&gc.defined);
    StrMap names;
    strmap_init_borrowed(&names);
    strmap_reserve(&gc.defined, g->ninputs + g->nnodes);
    strmap_reserve(&names, g->nnodes);
    EpStatus rc = EP_OK;
    SUB(np, p, "nodes");
    for (int i = 0; i < g->ninputs && gc.fault == GC_OK; i++)
        arg_refs(&g->inputs[i], def_ref, &gc);
    if (gc.fault == GC_TWICE) {
        SUB(ip, p, "inputs");
        rc = jfail(&L->j, &ip, "the graph input '%s' is named twice", gc.bad);
    }
    for (int i = 0; i < g->nnodes && !rc; i++) {
        const Node *n = &g->nodes[i];
        IDX(xp, &np, i);
        gc.node = i;
        if (strmap_get_or_put(&names, n->name, (void *)n)) {
            rc = jfail(&L->j, &xp, "node '%s' (%s): a second node of that name", n->name, n->target);
            break;
        }
        for (int k = 0; k < n->ninputs && gc.fault == GC_OK; k++)
            arg_refs(&n->inputs[k].arg, use_ref, &gc);
        if (gc.fault == GC_UNDEFINED) {
            int later = later_definer(g, i, gc.bad);
            if (later >= 0)
                rc = jfail(&L->j, &xp, "node '%s' (%s) uses '%s' before node %d '%s' defines it (the nodes are "
                           "out of order or form a cycle)", n->name, n->target, gc.bad, later, g->nodes[later].name);
            else
                rc = jfail(&L->j, &xp, "node '%s' (%s) uses '%s', which no graph input or node defines", n->name,
                           n->target, gc.bad);
            break;
        }
        for (int k = 0; k < n->noutputs && gc.fault == GC_OK; k++)
            arg_refs(&n->outputs[k], def_ref, &gc);
        if (gc.fault == GC_TWICE) {
            intptr_t at = (intptr_t)strmap_get(&gc.defined, gc.bad) - 2;
            rc = at < 0 ? jfail(&L->j, &xp, "node '%s' (%s) defines '%s', which is a graph input", n->name,
                                n->target, gc.bad)
                        : jfail(&L->j, &xp, "node '%s' (%s) defines '%s', which node %d '%s' already defines",
                                n->name, n->target, gc.bad, (int)at, g->nodes[at].name);
        }
    }
    gc.node = -1;
    for (int i = 0; i < g->noutputs && !rc && gc.fault == GC_OK; i++) {
        arg_refs(&g->outputs[i], use_ref, &gc);
        if (gc.fault == GC_UNDEFINED) {
            SUB(op, p, "outputs");
            IDX(ip, &op, i);
            rc = jfail(&L->j, &ip, "the graph returns '%s', which no graph input or node defines", gc.bad);
        }
    }
    strmap_free(&gc.defined, NULL);
    strmap_free(&names, NULL);
    return rc;
}

static bool load_fast = true;
static long nodes_read_fast;

void program_load_set_fast(bool on)
{
    load_fast = on;
}

long program_load_fast_nodes(void)
{
    return nodes_read_fast;
}

static long metas_read_fast;

long program_load_fast_metas(void)
{
    return metas_read_fast;
}

/* The nodes list read one item at a time from the text: by node_read_fast
** when it knows the node's shape, else through cJSON.  Any failure makes
** program_load_json read the whole document again as one tree, so that
** errors are told exactly as then. */
static EpStatus parse_nodes_in_pieces(Loader *L, const JPath *np, const JsonHole *h, Graph *g)
{
    size_t pos = 0, at;
    JsonPiece key;
    int got, cap = 0;
    while ((got = json_hole_item(L->text, h, &pos, &key, &at)) == 1) {
        if (g->nnodes == cap) {
            cap = cap ? 2 * cap : 256;
            g->nodes = ep_xrealloc(g->nodes, (size_t)cap * sizeof *g->nodes);
        }
        Node *n = &g->nodes[g->nnodes];
        if (load_fast && !g->names)
            g->names = name_arena_new();
        size_t end = load_fast ? node_read_prefix(L->text + at, h->end - 1 - at, n, g->nnodes, g->names) : 0;
        if (end) { /* where it ends is known: no other pass over its text */
            end += at;
            g->nnodes++;
            nodes_read_fast++;
        } else {
            if (!(end = json_hole_value_end(L->text, h, at)))
                return EP_ERR_FORMAT;
            json_arena_reset(L->pieces);
            const cJSON *e = json_parse_piece(L->pieces, (JsonPiece){L->text + at, end - at});
            if (!e)
                return EP_ERR_FORMAT;
            memset(n, 0, sizeof *n);
            IDX(xp, np, g->nnodes);
            g->nnodes++;
            EpStatus rc = parse_node(L, &xp, e, n, g->nnodes - 1);
            if (rc)
                return rc;
        }
        if (json_hole_after(L->text, h, end, &pos) < 0)
            return EP_ERR_FORMAT;
    }
    if (!g->nodes)
        g->nodes = ep_xcalloc(1, sizeof *g->nodes);
    return got < 0 ? EP_ERR_FORMAT : EP_OK;
}

/* A key of plain bytes (no escape, no control byte), its quotes included. */
static bool plain_key(JsonPiece key)
{
    for (size_t i = 1; i + 1 < key.len; i++)
        if ((unsigned char)key.text[i] < 0x20 || key.text[i] == '\\')
            return false;
    return key.len >= 2;
}

/* The tensor_values table read one entry at a time, as the nodes are:
** tensor_meta_read_prefix when it knows the entry's shape, else cJSON. */
static EpStatus parse_tensor_values_in_pieces(Loader *L, const JPath *tvp, const JsonHole *h, Graph *g)
{
    size_t pos = 0, at;
    JsonPiece key;
    int got;
    while ((got = json_hole_item(L->text, h, &pos, &key, &at)) == 1) {
        TensorMeta *m = NULL;
        size_t end = load_fast && plain_key(key) ? tensor_meta_read_prefix(L->text + at, h->end - 1 - at, &m) : 0;
        if (end) {
            end += at;
            metas_read_fast++;
            char few[128], *name = key.len - 2 < sizeof few ? few : ep_xmalloc(key.len - 1);
            memcpy(name, key.text + 1, key.len - 2);
            name[key.len - 2] = '\0';
            tensor_meta_free(strmap_put(&g->tensor_values, name, m));
            if (name != few)
                free(name);
        } else {
            if (!(end = json_hole_value_end(L->text, h, at)))
                return EP_ERR_FORMAT;
            json_arena_reset(L->pieces);
            const cJSON *k = json_parse_piece(L->pieces, key),
                        *e = json_parse_piece(L->pieces, (JsonPiece){L->text + at, end - at});
            if (!cJSON_IsString(k) || !e)
                return EP_ERR_FORMAT;
            SUB(ep, tvp, k->valuestring);
            m = tensor_meta_new(e);
            EpStatus rc = parse_tensor_meta(L, &ep, e, m);
            tensor_meta_free(strmap_put(&g->tensor_values, k->valuestring, m));
            if (rc)
                return rc;
        }
        if (json_hole_after(L->text, h, end, &pos) < 0)
            return EP_ERR_FORMAT;
    }
    return got < 0 ? EP_ERR_FORMAT : EP_OK;
}

static EpStatus parse_graph(Loader *L, const JPath *p, const cJSON *j, Graph *g)
{
    EpStatus rc;
    const cJSON *inputs, *outputs, *nodes;
    strmap_init(&g->tensor_values);
    strmap_init(&g->sym_int_values);
    strmap_init(&g->sym_bool_values);
    strmap_init(&g->sym_float_values);
    if ((rc = jneed(&L->j, p, j, "inputs", &inputs)) || (rc = jneed(&L->j, p, j, "outputs", &outputs)) ||
        (rc = jneed(&L->j, p, j, "nodes", &nodes)))
        return rc;
    SUB(ip, p, "inputs");
    if ((rc = parse_arg_list(L, &ip, inputs, &g->inputs, &g->ninputs)))
        return rc;
    SUB(op, p, "outputs");
    if ((rc = parse_arg_list(L, &op, outputs, &g->outputs, &g->noutputs)))
        return rc;
    SUB(np, p, "nodes");
    if (!cJSON_IsArray(nodes))
        return jfail(&L->j, &np, "expected a list");
    const JsonHole *nodes_hole = L->nodes_hole, *tv_hole = L->tv_hole;
    L->nodes_hole = L->tv_hole = NULL; /* the program's graph only: subgraphs are in the tree */
    if (nodes_hole) {
        if ((rc = parse_nodes_in_pieces(L, &np, nodes_hole, g)))
            return rc;
    } else {
        g->nnodes = cJSON_GetArraySize(nodes);
        g->nodes = ep_xcalloc((size_t)(g->nnodes ? g->nnodes : 1), sizeof *g->nodes);
        int i = 0;
        for (const cJSON *e = nodes->child; e; e = e->next, i++) {
            IDX(xp, &np, i);
            if ((rc = parse_node(L, &xp, e, &g->nodes[i], i)))
                return rc;
        }
    }
    const cJSON *tv, *siv;
    if ((rc = jtable(&L->j, p, j, "tensor_values", &tv)) || (rc = jtable(&L->j, p, j, "sym_int_values", &siv)))
        return rc;
    SUB(tvp, p, "tensor_values");
    if ((rc = need_object(L, &tvp, tv)))
        return rc;
    if (tv_hole && (rc = parse_tensor_values_in_pieces(L, &tvp, tv_hole, g)))
        return rc;
    for (const cJSON *e = tv ? tv->child : NULL; e; e = e->next) {
        SUB(ep, &tvp, e->string);
        TensorMeta *m = tensor_meta_new(e);
        rc = parse_tensor_meta(L, &ep, e, m);
        tensor_meta_free(strmap_put(&g->tensor_values, e->string, m));
        if (rc)
            return rc;
    }
    SUB(sip, p, "sym_int_values");
    if ((rc = need_object(L, &sip, siv)))
        return rc;
    for (const cJSON *e = siv ? siv->child : NULL; e; e = e->next) {
        SUB(ep, &sip, e->string);
        SymDim *d = ep_xcalloc(1, sizeof *d);
        rc = parse_symint(L, &ep, e, d);
        symdim_free(strmap_put(&g->sym_int_values, e->string, d));
        if (rc)
            return rc;
    }
    static const char *scalar_tables[] = {"sym_bool_values", "sym_float_values"};
    for (int t = 0; t < 2; t++) {
        const cJSON *tab;
        if ((rc = jtable(&L->j, p, j, scalar_tables[t], &tab)))
            return rc;
        SUB(tp, p, scalar_tables[t]);
        if ((rc = need_object(L, &tp, tab)))
            return rc;
        for (const cJSON *e = tab ? tab->child : NULL; e; e = e->next) {
            SUB(ep, &tp, e->string);
            SymScalarMeta *m = ep_xcalloc(1, sizeof *m);
            rc = parse_sym_scalar(L, &ep, e, m);
            sym_scalar_free(strmap_put(t == 0 ? &g->sym_bool_values : &g->sym_float_values, e->string, m));
            if (rc)
                return rc;
        }
    }
    g->is_single_tensor_return = cJSON_IsTrue(jget(j, "is_single_tensor_return"));
    return check_graph(L, p, g);
}

/* ---- signature ------------------------------------------------------------------ */

static EpStatus parse_constant_value(Loader *L, const JPath *p, const cJSON *v, Value *out)
{
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    if (strcmp(key, "as_none") == 0) {
        out->kind = V_NONE;
        return EP_OK;
    }
    Arg a = {0};
    if (!literal_variant(L, p, key, val, &a, &rc))
        return jfail(&L->j, p, "unexpected constant variant '%s'", key);
    *out = a.lit; /* the value moves out of the temporary */
    return rc;
}

/* A struct field holding a TensorArgument / TokenArgument ({name}). */
static EpStatus parse_named_field(Loader *L, const JPath *p, const cJSON *v, ArgKind kind, Arg *out)
{
    const cJSON *arg;
    EpStatus rc = jneed(&L->j, p, v, "arg", &arg);
    if (rc)
        return rc;
    SUB(ap, p, "arg");
    out->kind = kind;
    return parse_name_ref(L, &ap, arg, &out->ref);
}

static EpStatus parse_input_spec(Loader *L, const JPath *p, const cJSON *v, InputSpec *s)
{
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    SUB(vp, p, key);
    if (strcmp(key, "user_input") == 0) {
        s->kind = IN_USER_INPUT;
        const cJSON *arg;
        if ((rc = jneed(&L->j, &vp, val, "arg", &arg)))
            return rc;
        SUB(ap, &vp, "arg");
        return parse_arg(L, &ap, arg, &s->arg);
    }
    if (strcmp(key, "parameter") == 0) {
        s->kind = IN_PARAMETER;
        if ((rc = parse_named_field(L, &vp, val, ARG_TENSOR, &s->arg)))
            return rc;
        return parse_string_field(L, &vp, val, "parameter_name", &s->target);
    }
    if (strcmp(key, "buffer") == 0) {
        s->kind = IN_BUFFER;
        if ((rc = parse_named_field(L, &vp, val, ARG_TENSOR, &s->arg)))
            return rc;
        const cJSON *pers = jget(val, "persistent");
        s->persistent = pers ? cJSON_IsTrue(pers) : true;
        return parse_string_field(L, &vp, val, "buffer_name", &s->target);
    }
    if (strcmp(key, "tensor_constant") == 0 || strcmp(key, "constant_tensor") == 0) {
        s->kind = IN_TENSOR_CONSTANT;
        if ((rc = parse_named_field(L, &vp, val, ARG_TENSOR, &s->arg)))
            return rc;
        return parse_string_field(L, &vp, val, "tensor_constant_name", &s->target);
    }
    if (strcmp(key, "custom_obj") == 0) {
        s->kind = IN_CUSTOM_OBJ;
        if ((rc = parse_named_field(L, &vp, val, ARG_CUSTOM_OBJ, &s->arg)))
            return rc;
        return parse_string_field(L, &vp, val, "custom_obj_name", &s->target);
    }
    if (strcmp(key, "token") == 0) {
        s->kind = IN_TOKEN;
        return parse_named_field(L, &vp, val, ARG_TOKEN, &s->arg);
    }
    if (strcmp(key, "constant_input") == 0) {
        s->kind = IN_CONSTANT_INPUT;
        const cJSON *value;
        if ((rc = parse_string_field(L, &vp, val, "name", &s->name)))
            return rc;
        if ((rc = jneed(&L->j, &vp, val, "value", &value)))
            return rc;
        SUB(cp, &vp, "value");
        return parse_constant_value(L, &cp, value, &s->constant);
    }
    return jfail(&L->j, p, "unknown input spec kind '%s'", key);
}

static EpStatus parse_output_spec(Loader *L, const JPath *p, const cJSON *v, OutputSpec *s)
{
    const char *key;
    const cJSON *val;
    EpStatus rc = junion(&L->j, p, v, &key, &val);
    if (rc)
        return rc;
    SUB(vp, p, key);
    static const struct { const char *key; OutputKind kind; const char *target; } kinds[] = {
        {"loss_output", OUT_LOSS_OUTPUT, NULL},
        {"buffer_mutation", OUT_BUFFER_MUTATION, "buffer_name"},
        {"gradient_to_parameter", OUT_GRADIENT_TO_PARAMETER, "parameter_name"},
        {"gradient_to_user_input", OUT_GRADIENT_TO_USER_INPUT, "user_input_name"},
        {"user_input_mutation", OUT_USER_INPUT_MUTATION, "user_input_name"},
        {"parameter_mutation", OUT_PARAMETER_MUTATION, "parameter_name"},
    };
    if (strcmp(key, "user_output") == 0) {
        s->kind = OUT_USER_OUTPUT;
        const cJSON *arg;
        if ((rc = jneed(&L->j, &vp, val, "arg", &arg)))
            return rc;
        SUB(ap, &vp, "arg");
        return parse_arg(L, &ap, arg, &s->arg);
    }
    if (strcmp(key, "token") == 0) {
        s->kind = OUT_TOKEN;
        return parse_named_field(L, &vp, val, ARG_TOKEN, &s->arg);
    }
    for (size_t i = 0; i < EP_ARRAY_LEN(kinds); i++)
        if (strcmp(key, kinds[i].key) == 0) {
            s->kind = kinds[i].kind;
            if ((rc = parse_named_field(L, &vp, val, ARG_TENSOR, &s->arg)))
                return rc;
            return kinds[i].target ? parse_string_field(L, &vp, val, kinds[i].target, &s->target) : EP_OK;
        }
    return jfail(&L->j, p, "unknown output spec kind '%s'", key);
}

/* The names a v1 (PyTorch 2.1) signature gives to graph values. */
static const char *v1_map_get(const cJSON *map, const char *name)
{
    const cJSON *v = jget(map, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool v1_list_has(const cJSON *list, const char *name)
{
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
            return true;
    return false;
}

static const char *arg_value_name(const Arg *a)
{
    return a->ref;
}

/* Schema 1 signature: dicts of placeholder -> FQN and name lists.  Turned
** into the input/output specs of later schemas, in graph order. */
static EpStatus parse_v1_signature(Loader *L, const JPath *p, const cJSON *sig, ExportedProgram *ep)
{
    const cJSON *params = jget(sig, "inputs_to_parameters"), *buffers = jget(sig, "inputs_to_buffers");
    const cJSON *user_in = jget(sig, "user_inputs"), *user_out = jget(sig, "user_outputs");
    const cJSON *mutate = jget(sig, "buffers_to_mutate");
    Graph *g = &ep->graph;
    ep->ninput_specs = g->ninputs;
    ep->input_specs = ep_xcalloc((size_t)(g->ninputs ? g->ninputs : 1), sizeof *ep->input_specs);
    for (int i = 0; i < g->ninputs; i++) {
        InputSpec *s = &ep->input_specs[i];
        const char *name = arg_value_name(&g->inputs[i]);
        const char *fqn;
        s->arg.kind = g->inputs[i].kind;
        s->arg.ref = name ? ep_xstrdup(name) : NULL;
        if (name && (fqn = v1_map_get(params, name))) {
            s->kind = IN_PARAMETER;
            s->target = ep_xstrdup(fqn);
        } else if (name && (fqn = v1_map_get(buffers, name))) {
            s->kind = IN_BUFFER;
            s->persistent = true;
            s->target = ep_xstrdup(fqn);
        } else if (name && v1_list_has(user_in, name)) {
            s->kind = IN_USER_INPUT;
        } else {
            IDX(ip, p, i);
            return jfail(&L->j, &ip, "graph input %s is neither a parameter, a buffer nor a user input",
                         name ? name : "?");
        }
    }
    ep->noutput_specs = g->noutputs;
    ep->output_specs = ep_xcalloc((size_t)(g->noutputs ? g->noutputs : 1), sizeof *ep->output_specs);
    for (int i = 0; i < g->noutputs; i++) {
        OutputSpec *s = &ep->output_specs[i];
        const char *name = arg_value_name(&g->outputs[i]);
        const char *fqn;
        s->arg.kind = g->outputs[i].kind;
        s->arg.ref = name ? ep_xstrdup(name) : NULL;
        if (name && (fqn = v1_map_get(mutate, name))) {
            s->kind = OUT_BUFFER_MUTATION;
            s->target = ep_xstrdup(fqn);
        } else {
            s->kind = OUT_USER_OUTPUT;
            (void)user_out; /* every other output is the user's */
        }
    }
    return EP_OK;
}

static EpStatus parse_signature(Loader *L, const JPath *p, const cJSON *sig, ExportedProgram *ep)
{
    const cJSON *ins = jget(sig, "input_specs"), *outs = jget(sig, "output_specs");
    if (!ins && (jget(sig, "user_inputs") || jget(sig, "inputs_to_parameters")))
        return parse_v1_signature(L, p, sig, ep);
    EpStatus rc;
    if ((rc = jneed(&L->j, p, sig, "input_specs", &ins)) || (rc = jneed(&L->j, p, sig, "output_specs", &outs)))
        return rc;
    SUB(ip, p, "input_specs");
    SUB(op, p, "output_specs");
    if (!cJSON_IsArray(ins))
        return jfail(&L->j, &ip, "expected a list");
    if (!cJSON_IsArray(outs))
        return jfail(&L->j, &op, "expected a list");
    ep->ninput_specs = cJSON_GetArraySize(ins);
    ep->input_specs = ep_xcalloc((size_t)(ep->ninput_specs ? ep->ninput_specs : 1), sizeof *ep->input_specs);
    int i = 0;
    for (const cJSON *e = ins->child; e; e = e->next, i++) {
        IDX(xp, &ip, i);
        if ((rc = parse_input_spec(L, &xp, e, &ep->input_specs[i])))
            return rc;
    }
    ep->noutput_specs = cJSON_GetArraySize(outs);
    ep->output_specs = ep_xcalloc((size_t)(ep->noutput_specs ? ep->noutput_specs : 1), sizeof *ep->output_specs);
    i = 0;
    for (const cJSON *e = outs->child; e; e = e->next, i++) {
        IDX(xp, &op, i);
        if ((rc = parse_output_spec(L, &xp, e, &ep->output_specs[i])))
            return rc;
    }
    if (ep->ninput_specs != ep->graph.ninputs)
        return jfail(&L->j, &ip, "%d input specs for %d graph inputs", ep->ninput_specs, ep->graph.ninputs);
    if (ep->noutput_specs != ep->graph.noutputs)
        return jfail(&L->j, &op, "%d output specs for %d graph outputs", ep->noutput_specs, ep->graph.noutputs);
    return EP_OK;
}

/* ---- the rest of the program ---------------------------------------------------------- */

/* A range bound: integer, float (inf), "Infinity" string, or null. */
static EpStatus parse_bound(Loader *L, const JPath *p, const cJSON *v, bool *has, int64_t *out)
{
    *has = false;
    if (!v)
        return EP_OK;
    if (jis_int(v)) {
        *has = true;
        return jint(&L->j, p, v, out);
    }
    double d;
    EpStatus rc = jfloat(&L->j, p, v, &d);
    if (rc)
        return rc;
    if (d >= 9.2e18 || d <= -9.2e18)
        return EP_OK; /* +-inf or beyond int64: unbounded */
    *has = true;
    *out = (int64_t)d;
    return EP_OK;
}

static EpStatus parse_ranges(Loader *L, const JPath *p, const cJSON *rc_json, ExportedProgram *ep)
{
    if (!rc_json)
        return EP_OK;
    if (!cJSON_IsObject(rc_json))
        return jfail(&L->j, p, "expected an object (symbol -> {min_val, max_val})");
    int n = cJSON_GetArraySize(rc_json);
    ep->ranges = ep_xcalloc((size_t)(n ? n : 1), sizeof *ep->ranges);
    for (const cJSON *e = rc_json->child; e; e = e->next) {
        SUB(ep_, p, e->string);
        if (!cJSON_IsObject(e))
            return jfail(&L->j, &ep_, "expected an object {min_val, max_val}");
        RangeConstraint *r = &ep->ranges[ep->nranges++];
        r->expr = ep_xstrdup(e->string);
        r->parsed = parse_expr_text(e->string);
        SUB(minp, &ep_, "min_val");
        SUB(maxp, &ep_, "max_val");
        EpStatus rc = parse_bound(L, &minp, jget(e, "min_val"), &r->has_min, &r->min);
        if (!rc)
            rc = parse_bound(L, &maxp, jget(e, "max_val"), &r->has_max, &r->max);
        if (rc)
            return rc;
        /* sys.maxsize - 1 was the old Dim default maximum: treat as unbounded */
        if (r->has_max && r->max >= INT64_MAX - 1)
            r->has_max = false;
        if (r->has_min && r->min <= INT64_MIN + 1)
            r->has_min = false;
    }
    return EP_OK;
}

static EpStatus parse_module_calls(Loader *L, const JPath *p, const cJSON *gm, ExportedProgram *ep)
{
    const cJSON *mcg = jget(gm, "module_call_graph");
    SUB(mp, p, "module_call_graph");
    if (mcg && !cJSON_IsArray(mcg))
        return jfail(&L->j, &mp, "expected a list");
    int n = mcg ? cJSON_GetArraySize(mcg) : 0;
    const cJSON *call_spec = jget(gm, "call_spec"); /* schema 1 */
    ep->module_calls = ep_xcalloc((size_t)(n + 1), sizeof *ep->module_calls);
    int i = 0;
    for (const cJSON *e = mcg ? mcg->child : NULL; e; e = e->next, i++) {
        ModuleCall *m = &ep->module_calls[ep->nmodule_calls++];
        const cJSON *fqn = jget(e, "fqn");
        m->fqn = ep_xstrdup(cJSON_IsString(fqn) ? fqn->valuestring : "");
        const cJSON *sig = jget(e, "signature");
        if (!sig)
            continue;
        m->has_signature = true;
        m->in_spec = dup_string_value(jget(sig, "in_spec"));
        m->out_spec = dup_string_value(jget(sig, "out_spec"));
        const cJSON *names = jget(sig, "forward_arg_names");
        if (cJSON_IsArray(names)) {
            m->forward_arg_names = ep_xcalloc((size_t)cJSON_GetArraySize(names) + 1, sizeof(char *));
            for (const cJSON *x = names->child; x; x = x->next)
                if (cJSON_IsString(x))
                    m->forward_arg_names[m->nforward_arg_names++] = ep_xstrdup(x->valuestring);
        }
    }
    if (call_spec && (ep->nmodule_calls == 0 || !ep->module_calls[0].has_signature)) {
        ModuleCall *m = &ep->module_calls[ep->nmodule_calls++];
        m->fqn = ep_xstrdup("");
        m->has_signature = true;
        m->in_spec = dup_string_value(jget(call_spec, "in_spec"));
        m->out_spec = dup_string_value(jget(call_spec, "out_spec"));
    }
    return EP_OK;
}

/* guards_code: absent (before PyTorch 2.9) or a list of Python source
** strings.  Each is translated now, over the inputs the signature and
** module call graph name: a guard epdbg cannot read is refused here, with
** its path and text, rather than skipped when inputs are checked. */
static EpStatus parse_guards_code(Loader *L, const JPath *p, const cJSON *gc, ExportedProgram *ep)
{
    if (!gc)
        return EP_OK;
    if (!cJSON_IsArray(gc))
        return jfail(&L->j, p, "expected a list of strings");
    int n = cJSON_GetArraySize(gc), i = 0;
    ep->guards_code = ep_xcalloc((size_t)(n ? n : 1), sizeof *ep->guards_code);
    for (const cJSON *e = gc->child; e; e = e->next, i++) {
        IDX(ip, p, i);
        const char *text;
        EpStatus rc = jstr(&L->j, &ip, e, &text);
        if (rc)
            return rc;
        GuardCode *g = &ep->guards_code[ep->nguards_code++];
        g->text = ep_xstrdup(text);
        char why[512];
        g->cond = guard_code_translate(ep, text, NULL, NULL, &g->shown, why, sizeof why);
        if (!g->cond)
            return jfail(&L->j, &ip, "the guard '%s' is not one epdbg can check: %s", text, why);
    }
    return EP_OK;
}

/* The program's graph at either place a writer puts it: its nodes and
** tensor_values are most of the text. */
static const char *const HOLE_PATHS[4][5] = {
    {"graph_module", "graph", "nodes", NULL},
    {"graph_module", "graph", "tensor_values", NULL},
    {"exported_program", "graph_module", "graph", "nodes", NULL},
    {"exported_program", "graph_module", "graph", "tensor_values", NULL},
};

/* program_load_json, with in_pieces the graph's big members read one item
** at a time (*pieces_used: whether they were). */
static EpStatus load_program(const char *text, size_t len, const char *label, bool in_pieces, bool *pieces_used,
                             ExportedProgram **out, EpError *err)
{
    *out = NULL;
    *pieces_used = false;
    JsonArena *arena;
    JsonHole holes[4];
    for (int h = 0; h < 4; h++)
        holes[h] = (JsonHole){HOLE_PATHS[h], 0, 0};
    cJSON *root = in_pieces ? json_parse_holes(text, len, label, holes, 4, &arena, err)
                            : json_parse_arena(text, len, label, &arena, err);
    if (!root)
        return EP_ERR_FORMAT;
    Loader L = {{label, err}, 0, text, NULL, NULL, NULL};
    int at = jget(root, "graph_module") ? 0 : 2; /* the body chosen below */
    if (holes[at].end || holes[at + 1].end) {
        *pieces_used = true;
        L.nodes_hole = holes[at].end ? &holes[at] : NULL;
        L.tv_hole = holes[at + 1].end ? &holes[at + 1] : NULL;
        L.pieces = json_arena_new();
    }
    ExportedProgram *ep = ep_xcalloc(1, sizeof *ep);
    strmap_init(&ep->opset_version);
    strmap_init(&ep->graph.tensor_values);
    strmap_init(&ep->graph.sym_int_values);
    strmap_init(&ep->graph.sym_bool_values);
    strmap_init(&ep->graph.sym_float_values);
    EpStatus rc;
    const cJSON *gm, *graph, *sig, *sv;
    JPath top = {NULL, NULL, 0};
    const JPath *tp = NULL;
    (void)top;
    /* some writers nest the program one level down */
    const cJSON *body = jget(root, "graph_module") ? root : jget(root, "exported_program");
    if (!body)
        body = root;
    if ((rc = jneed(&L.j, tp, body, "graph_module", &gm)))
        goto done;
    sv = jget(body, "schema_version");
    if (sv && jis_int(sv)) {
        int64_t v;
        jint(&L.j, tp, sv, &v);
        ep->schema_major = (int)v;
        ep->schema_is_int = true;
    } else if (sv && cJSON_IsObject(sv)) {
        const cJSON *ma = jget(sv, "major"), *mi = jget(sv, "minor");
        ep->schema_major = ma && cJSON_IsNumber(ma) ? ma->valueint : 0; /* saturated, never UB */
        ep->schema_minor = mi && cJSON_IsNumber(mi) ? mi->valueint : 0;
    } else if (sv) {
        SUB(svp, tp, "schema_version");
        rc = jfail(&L.j, &svp, "expected an integer or {major, minor}");
        goto done;
    }
    L.era = ep->schema_major;
    SUB(gmp, tp, "graph_module");
    if ((rc = jneed(&L.j, &gmp, gm, "graph", &graph)))
        goto done;
    SUB(gp, &gmp, "graph");
    if ((rc = parse_graph(&L, &gp, graph, &ep->graph)))
        goto done;
    if ((rc = jneed(&L.j, &gmp, gm, "signature", &sig)))
        goto done;
    SUB(sp, &gmp, "signature");
    if ((rc = parse_signature(&L, &sp, sig, ep)))
        goto done;
    const cJSON *ranges, *opset;
    if ((rc = jtable(&L.j, tp, body, "range_constraints", &ranges)) ||
        (rc = jtable(&L.j, tp, body, "opset_version", &opset)))
        goto done;
    SUB(rp, tp, "range_constraints");
    if ((rc = parse_ranges(&L, &rp, ranges, ep)))
        goto done;
    if ((rc = parse_module_calls(&L, &gmp, gm, ep)))
        goto done;
    SUB(gcp, tp, "guards_code"); /* after the inputs and their names it refers to */
    if ((rc = parse_guards_code(&L, &gcp, jget(body, "guards_code"), ep)))
        goto done;
    ep->torch_version = dup_string_value(jget(body, "torch_version"));
    const cJSON *verifiers = jget(body, "verifiers");
    if (cJSON_IsArray(verifiers) && verifiers->child && cJSON_IsString(verifiers->child))
        ep->dialect = ep_xstrdup(verifiers->child->valuestring);
    else
        ep->dialect = dup_string_value(jget(body, "dialect"));
    /* valueint: cJSON's saturated int (casting a huge double is undefined) */
    for (const cJSON *e = opset ? opset->child : NULL; e; e = e->next)
        if (cJSON_IsNumber(e))
            strmap_put(&ep->opset_version, e->string, (void *)(intptr_t)e->valueint);
done:
    json_arena_free(arena);
    json_arena_free(L.pieces);
    if (rc) {
        program_free(ep);
        return rc;
    }
    *out = ep;
    return EP_OK;
}

EpStatus program_load_json(const char *text, size_t len, const char *label, ExportedProgram **out, EpError *err)
{
    bool pieces;
    EpStatus rc = load_program(text, len, label, true, &pieces, out, err);
    if (rc && pieces) /* told as the whole document tells it */
        rc = load_program(text, len, label, false, &pieces, out, err);
    return rc;
}
