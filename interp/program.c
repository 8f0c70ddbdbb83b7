/*
** program.c -- the loaded ExportedProgram's other half: freeing it, and the
** lookups and descriptions the layers above ask of it (program.h).
** program_load.c builds it from the JSON.
*/
#include "program.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program_int.h"

/* ---- freeing ------------------------------------------------------------- */

static void graph_free_contents(Graph *g);

/* own_refs: false for a node whose references are in its graph's arena */
static void arg_free_refs(Arg *a, bool own_refs)
{
    if (own_refs)
        free(a->ref);
    free(a->variant);
    value_clear(&a->lit);
    for (int i = 0; i < a->n; i++)
        arg_free_refs(&a->items[i], own_refs);
    free(a->items);
    if (a->graph) {
        graph_free_contents(a->graph);
        free(a->graph);
    }
    memset(a, 0, sizeof *a);
}

static void arg_free(Arg *a)
{
    arg_free_refs(a, true);
}

void symdim_clear(SymDim *d)
{
    free(d->expr);
    sym_free(d->parsed);
}

void tensor_meta_free(void *p)
{
    TensorMeta *m = p;
    if (!m)
        return;
    for (int i = 0; i < m->ndim; i++) {
        symdim_clear(&m->sizes[i]);
        symdim_clear(&m->strides[i]);
    }
    free(m->device);
    free(m);
}

void symdim_free(void *p)
{
    if (p) {
        symdim_clear(p);
        free(p);
    }
}

void sym_scalar_free(void *p)
{
    SymScalarMeta *m = p;
    if (!m)
        return;
    value_clear(&m->lit);
    free(m->expr);
    sym_free(m->parsed);
    free(m);
}

void node_free(Node *n)
{
    bool own = !n->strings_in_arena;
    if (own) {
        free(n->name);
        free(n->target);
    }
    for (int i = 0; i < n->ninputs; i++) {
        if (own)
            free(n->inputs[i].name);
        arg_free_refs(&n->inputs[i].arg, own);
    }
    free(n->inputs);
    for (int i = 0; i < n->noutputs; i++)
        arg_free_refs(&n->outputs[i], own);
    free(n->outputs);
    if (own) {
        free(n->meta.stack_trace);
        free(n->meta.nn_module_stack);
        free(n->meta.source_fn_stack);
        free(n->meta.torch_fn);
    }
    for (int i = 0; i < n->meta.nextra; i++) { /* always malloc'd */
        free(n->meta.extra_keys[i]);
        free(n->meta.extra_values[i]);
    }
    free(n->meta.extra_keys);
    free(n->meta.extra_values);
}

/* ---- the name arena ------------------------------------------------------------ */

typedef struct NameChunk {
    struct NameChunk *prev;
    size_t used, cap;
    char data[];
} NameChunk;

struct NameArena {
    NameChunk *top; /* the newest chunk; the older ones behind it */
};

enum { NAME_CHUNK = 64 << 10 };

NameArena *name_arena_new(void)
{
    return ep_xcalloc(1, sizeof(NameArena));
}

void name_arena_free(NameArena *a)
{
    if (!a)
        return;
    for (NameChunk *c = a->top, *prev; c; c = prev) {
        prev = c->prev;
        free(c);
    }
    free(a);
}

char *name_arena_alloc(NameArena *a, size_t n)
{
    NameChunk *c = a->top;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > NAME_CHUNK / 4 ? n : NAME_CHUNK; /* a long string: a chunk of its own */
        c = ep_xmalloc(sizeof *c + cap);
        c->used = 0;
        c->cap = cap;
        c->prev = a->top;
        a->top = c;
    }
    char *p = c->data + c->used;
    c->used += n;
    return p;
}

char *name_arena_dup(NameArena *a, const char *s, size_t n)
{
    char *p = name_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

NameMark name_arena_mark(const NameArena *a)
{
    return (NameMark){a->top, a->top ? a->top->used : 0};
}

void name_arena_rewind(NameArena *a, NameMark m)
{
    while (a->top != m.chunk) {
        NameChunk *prev = a->top->prev;
        free(a->top);
        a->top = prev;
    }
    if (a->top)
        a->top->used = m.used;
}

/* ---- nodes: what both readers of a node share ------------------------------ */

char **node_meta_slot(NodeMeta *m, const char *key, size_t keylen)
{
    static const struct { const char *key; size_t off; } slots[] = {
        {"stack_trace", offsetof(NodeMeta, stack_trace)},         {"nn_module_stack", offsetof(NodeMeta, nn_module_stack)},
        {"source_fn_stack", offsetof(NodeMeta, source_fn_stack)}, {"source_fn", offsetof(NodeMeta, source_fn_stack)},
        {"torch_fn", offsetof(NodeMeta, torch_fn)},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(slots); i++)
        if (strncmp(key, slots[i].key, keylen) == 0 && slots[i].key[keylen] == '\0')
            return (char **)((char *)m + slots[i].off);
    return NULL;
}

void node_meta_set(NodeMeta *m, const char *key, size_t keylen, char *value)
{
    /* a key written twice: the last one wins, as in Python's json */
    char **slot = node_meta_slot(m, key, keylen);
    if (slot) {
        free(*slot);
        *slot = value;
        return;
    }
    m->extra_keys = ep_xrealloc(m->extra_keys, (size_t)(m->nextra + 1) * sizeof *m->extra_keys);
    m->extra_values = ep_xrealloc(m->extra_values, (size_t)(m->nextra + 1) * sizeof *m->extra_values);
    m->extra_keys[m->nextra] = ep_xstrndup(key, keylen);
    m->extra_values[m->nextra] = value;
    m->nextra++;
}

const char *node_first_output_ref(const Node *n)
{
    for (int i = 0; i < n->noutputs; i++) {
        const Arg *a = &n->outputs[i];
        if (a->ref)
            return a->ref;
        for (int k = 0; k < a->n; k++)
            if (a->items[k].ref)
                return a->items[k].ref;
    }
    return NULL;
}

char *node_first_output_name(const Node *n)
{
    const char *ref = node_first_output_ref(n);
    return ref ? ep_xstrdup(ref) : NULL;
}

static void graph_free_contents(Graph *g)
{
    for (int i = 0; i < g->ninputs; i++)
        arg_free(&g->inputs[i]);
    free(g->inputs);
    for (int i = 0; i < g->noutputs; i++)
        arg_free(&g->outputs[i]);
    free(g->outputs);
    for (int i = 0; i < g->nnodes; i++)
        node_free(&g->nodes[i]);
    free(g->nodes);
    name_arena_free(g->names);
    strmap_free(&g->tensor_values, tensor_meta_free);
    strmap_free(&g->sym_int_values, symdim_free);
    strmap_free(&g->sym_bool_values, sym_scalar_free);
    strmap_free(&g->sym_float_values, sym_scalar_free);
}

void program_free(ExportedProgram *ep)
{
    if (!ep)
        return;
    graph_free_contents(&ep->graph);
    for (int i = 0; i < ep->ninput_specs; i++) {
        arg_free(&ep->input_specs[i].arg);
        free(ep->input_specs[i].target);
        free(ep->input_specs[i].name);
        value_clear(&ep->input_specs[i].constant);
    }
    free(ep->input_specs);
    for (int i = 0; i < ep->noutput_specs; i++) {
        arg_free(&ep->output_specs[i].arg);
        free(ep->output_specs[i].target);
    }
    free(ep->output_specs);
    for (int i = 0; i < ep->nranges; i++) {
        free(ep->ranges[i].expr);
        sym_free(ep->ranges[i].parsed);
    }
    free(ep->ranges);
    for (int i = 0; i < ep->nmodule_calls; i++) {
        ModuleCall *m = &ep->module_calls[i];
        free(m->fqn);
        free(m->in_spec);
        free(m->out_spec);
        for (int k = 0; k < m->nforward_arg_names; k++)
            free(m->forward_arg_names[k]);
        free(m->forward_arg_names);
    }
    free(ep->module_calls);
    for (int i = 0; i < ep->nguards_code; i++) {
        free(ep->guards_code[i].text);
        free(ep->guards_code[i].shown);
        sym_free(ep->guards_code[i].cond);
    }
    free(ep->guards_code);
    free(ep->torch_version);
    free(ep->dialect);
    strmap_free(&ep->opset_version, NULL);
    free(ep);
}

/* ---- helpers ---------------------------------------------------------------------- */

const TensorMeta *graph_tensor_meta(const Graph *g, const char *name)
{
    return strmap_get(&g->tensor_values, name);
}

const char *tensor_meta_shape_str(const TensorMeta *m, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < m->ndim && len < cap; i++) {
        const SymDim *d = &m->sizes[i];
        const char *sep = i ? ", " : "";
        if (d->is_expr) {
            char *s = d->parsed ? sym_to_string(d->parsed) : NULL;
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep, s ? s : d->expr);
            free(s);
        } else {
            len += (size_t)snprintf(buf + len, cap - len, "%s%lld", sep, (long long)d->value);
        }
    }
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
    return buf;
}

const char *input_kind_name(InputKind k)
{
    static const char *names[] = {"user_input", "parameter", "buffer", "tensor_constant",
                                  "custom_obj", "token", "constant_input"};
    return (k >= 0 && k <= IN_CONSTANT_INPUT) ? names[k] : "?";
}

const char *output_kind_name(OutputKind k)
{
    static const char *names[] = {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter",
                                  "gradient_to_user_input", "user_input_mutation", "token",
                                  "parameter_mutation"};
    return (k >= 0 && k <= OUT_PARAMETER_MUTATION) ? names[k] : "?";
}

const char *arg_kind_name(ArgKind k)
{
    static const char *names[] = {
        "None", "Tensor", "Tensor[]", "Tensor?", "Tensor?[]", "int", "int[]", "float", "float[]", "bool",
        "bool[]", "str", "str[]", "SymInt", "SymInt[]", "SymFloat", "SymFloat[]", "SymBool", "SymBool[]",
        "ScalarType", "MemoryFormat", "Layout", "Device", "Graph", "CustomObj", "Operator", "complex",
        "Token", "unknown",
    };
    return (k >= 0 && k <= ARG_OTHER) ? names[k] : "?";
}

static void describe_arg(StrBuf *sb, const Arg *a)
{
    switch (a->kind) {
    case ARG_NONE: sb_append(sb, "None"); break;
    case ARG_TENSOR:
    case ARG_SYM_INT:
    case ARG_SYM_FLOAT:
    case ARG_SYM_BOOL:
    case ARG_CUSTOM_OBJ:
    case ARG_TOKEN: sb_printf(sb, "%%%s", a->ref ? a->ref : "?"); break;
    case ARG_INT: sb_printf(sb, "%lld", (long long)a->lit.i); break;
    case ARG_FLOAT: {
        /* as Python writes a float: 2.0, not 2 */
        char num[64];
        snprintf(num, sizeof num, "%.9g", a->lit.f);
        sb_append(sb, num);
        if (!strpbrk(num, ".eEin"))
            sb_append(sb, ".0");
        break;
    }
    case ARG_BOOL: sb_append(sb, a->lit.b ? "True" : "False"); break;
    case ARG_STRING:
    case ARG_OPERATOR: sb_printf(sb, "'%s'", a->lit.s ? a->lit.s : ""); break;
    case ARG_SCALAR_TYPE: sb_printf(sb, "torch.%s", scalar_type_name((int)a->lit.i)); break;
    case ARG_MEMORY_FORMAT: {
        char buf[32];
        sb_append(sb, memory_format_name((int)a->lit.i, buf));
        break;
    }
    case ARG_LAYOUT: {
        char buf[32];
        sb_append(sb, layout_name((int)a->lit.i, buf));
        break;
    }
    case ARG_DEVICE: sb_printf(sb, "device('%s')", a->lit.s ? a->lit.s : "?"); break;
    case ARG_GRAPH: sb_printf(sb, "<graph %s>", a->ref ? a->ref : "?"); break;
    case ARG_OPT_TENSOR: describe_arg(sb, &a->items[0]); break;
    case ARG_OTHER: sb_printf(sb, "<%s>", a->variant ? a->variant : "?"); break;
    case ARG_COMPLEX: sb_append(sb, "<complex>"); break;
    default: /* lists */
        sb_append(sb, "[");
        for (int i = 0; i < a->n; i++) {
            if (i)
                sb_append(sb, ", ");
            describe_arg(sb, &a->items[i]);
        }
        sb_append(sb, "]");
        break;
    }
}

char *arg_describe(const Arg *a)
{
    StrBuf sb;
    sb_init(&sb);
    describe_arg(&sb, a);
    return sb_take(&sb);
}

int program_find_range(const ExportedProgram *ep, const char *symbol)
{
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *r = &ep->ranges[i];
        if (strcmp(r->expr, symbol) == 0)
            return i;
        const char *s = r->parsed ? sym_as_symbol(r->parsed) : NULL;
        if (s && strcmp(s, symbol) == 0)
            return i;
    }
    return -1;
}

int ep_num_guards_code(const ExportedProgram *ep)
{
    return ep->nguards_code;
}

const GuardCode *ep_guard_code(const ExportedProgram *ep, int i)
{
    return i >= 0 && i < ep->nguards_code ? &ep->guards_code[i] : NULL;
}

const char *range_bounds_text(const RangeConstraint *r, char *buf, size_t cap)
{
    char lo[32] = "-inf", hi[32] = "inf";
    if (r->has_min)
        snprintf(lo, sizeof lo, "%lld", (long long)r->min);
    if (r->has_max)
        snprintf(hi, sizeof hi, "%lld", (long long)r->max);
    snprintf(buf, cap, "[%s, %s]", lo, hi);
    return buf;
}

char *graph_recorded_type(const Graph *g, const char *name)
{
    const TensorMeta *m = name ? graph_tensor_meta(g, name) : NULL;
    if (!m)
        return NULL;
    char shape[512];
    return ep_xasprintf("%s%s", scalar_type_name(m->scalar_type), tensor_meta_shape_str(m, shape, sizeof shape));
}
