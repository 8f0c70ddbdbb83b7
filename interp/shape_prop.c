/*
** shape_prop.c -- shape_prop_run: binds each node's arguments to its
** schema as symbolic values (mirroring op_bind: positional then by name,
** defaults from the schema), runs the op's shape rule, and stores the
** outputs under their value names; falls back to the recorded shapes where
** there is no rule.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_prop.h"

static SymExpr *dim_expr(const SymDim *d)
{
    if (!d->is_expr)
        return sym_const(d->value);
    return d->parsed ? sym_canon(d->parsed) : NULL;
}

bool shape_prop_recorded(const Graph *g, const char *name, SymShape *out)
{
    out->ndim = 0;
    const TensorMeta *m = name ? graph_tensor_meta(g, name) : NULL;
    if (!m)
        return false;
    for (int i = 0; i < m->ndim; i++) {
        out->dims[i] = dim_expr(&m->sizes[i]);
        out->ndim = i + 1;
        if (!out->dims[i]) {
            sym_shape_free(out);
            return false;
        }
    }
    return true;
}

static void free_value(void *p)
{
    if (p) {
        sym_arg_clear(p);
        free(p);
    }
}

/* Store v (taken) as name's value. */
static void put(ShapeProp *sp, const char *name, SymArg *v)
{
    SymArg *h = ep_xcalloc(1, sizeof *h);
    *h = *v;
    memset(v, 0, sizeof *v);
    free_value(strmap_put(&sp->values, name, h));
}

const SymArg *shape_prop_value(const ShapeProp *sp, const char *name)
{
    return name ? strmap_get(&sp->values, name) : NULL;
}

/* The recorded value of one output (or input) argument into *v. */
static bool recorded_value(const Graph *g, const Arg *a, SymArg *v)
{
    memset(v, 0, sizeof *v);
    switch (a->kind) {
    case ARG_TENSOR:
        v->kind = SV_TENSOR;
        return shape_prop_recorded(g, a->ref, &v->shape);
    case ARG_SYM_INT: {
        const SymDim *d = a->ref ? strmap_get(&g->sym_int_values, a->ref) : NULL;
        if (!d)
            return false;
        v->kind = SV_INT;
        return (v->e = dim_expr(d)) != NULL;
    }
    case ARG_SYM_BOOL:
    case ARG_SYM_FLOAT: {
        const SymScalarMeta *m =
            a->ref ? strmap_get(a->kind == ARG_SYM_BOOL ? &g->sym_bool_values : &g->sym_float_values, a->ref) : NULL;
        if (!m)
            return false;
        if (m->is_expr && m->parsed) {
            v->kind = SV_INT;
            return (v->e = sym_clone(m->parsed)) != NULL;
        }
        v->kind = SV_LIT;
        v->lit = value_copy(&m->lit);
        return true;
    }
    default:
        return false;
    }
}

/* The node's outputs from the recorded metadata. */
static void use_recorded(ShapeProp *sp, const Node *n)
{
    const Graph *g = &sp->ep->graph;
    for (int k = 0; k < n->noutputs; k++) {
        const Arg *o = &n->outputs[k];
        const Arg *items = o->kind == ARG_TENSORS ? o->items : o;
        int cnt = o->kind == ARG_TENSORS ? o->n : 1;
        for (int j = 0; j < cnt; j++) {
            SymArg v;
            if (items[j].ref && recorded_value(g, &items[j], &v))
                put(sp, items[j].ref, &v);
            else
                sym_arg_clear(&v);
        }
    }
}

/* A node argument as a symbolic value; false when it names an unknown
** value (msg says which). */
static bool sym_of_arg(const ShapeProp *sp, const Arg *a, SymArg *v, char *msg, size_t cap)
{
    memset(v, 0, sizeof *v);
    switch (a->kind) {
    case ARG_NONE:
        return true;
    case ARG_TENSOR:
    case ARG_SYM_INT:
    case ARG_SYM_BOOL:
    case ARG_SYM_FLOAT: {
        if (!a->ref) { /* a literal inside a SymInt list */
            if (a->lit.kind == V_INT) {
                v->kind = SV_INT;
                return (v->e = sym_const(a->lit.i)) != NULL;
            }
            v->kind = SV_LIT;
            v->lit = value_copy(&a->lit);
            return true;
        }
        const SymArg *have = shape_prop_value(sp, a->ref);
        if (!have) {
            snprintf(msg, cap, "uses '%s', which has no shape", a->ref);
            return false;
        }
        return sym_arg_copy(have, v);
    }
    case ARG_INT:
        v->kind = SV_INT;
        return (v->e = sym_const(a->lit.i)) != NULL;
    case ARG_OPT_TENSOR:
        return a->n == 1 ? sym_of_arg(sp, &a->items[0], v, msg, cap) : true;
    case ARG_TENSORS:
    case ARG_OPT_TENSORS:
    case ARG_INTS:
    case ARG_SYM_INTS:
    case ARG_FLOATS:
    case ARG_BOOLS:
    case ARG_STRINGS:
    case ARG_SYM_FLOATS:
    case ARG_SYM_BOOLS:
        v->kind = SV_LIST;
        v->items = ep_xcalloc((size_t)(a->n ? a->n : 1), sizeof *v->items);
        for (int j = 0; j < a->n; j++) {
            v->n = j + 1;
            if (!sym_of_arg(sp, &a->items[j], &v->items[j], msg, cap))
                return false;
        }
        return true;
    default:
        v->kind = SV_LIT;
        v->lit = value_copy(&a->lit);
        return true;
    }
}

/* A schema default as a symbolic value. */
static void sym_of_value(const Value *d, SymArg *v)
{
    memset(v, 0, sizeof *v);
    if (d->kind == V_NONE)
        return;
    if (d->kind == V_INT) {
        v->kind = SV_INT;
        v->e = sym_const(d->i);
        return;
    }
    if (d->kind == V_LIST) {
        v->kind = SV_LIST;
        v->items = ep_xcalloc((size_t)(d->list->n ? d->list->n : 1), sizeof *v->items);
        v->n = d->list->n;
        for (int j = 0; j < d->list->n; j++)
            sym_of_value(&d->list->items[j], &v->items[j]);
        return;
    }
    v->kind = SV_LIT;
    v->lit = value_copy(d);
}

/* Bind the node's inputs to the schema (mirrors op_bind and the plan's
** map_inputs_to_schema); msg says what is wrong on failure. */
static bool bind_args(const ShapeProp *sp, const Node *n, SymArg *args, char *msg, size_t cap)
{
    const OpDef *op = n->op;
    const OpSchema *s = op->schema;
    bool given[OP_MAX_ARGS] = {false};
    int next = 0;
    for (int k = 0; k < n->ninputs; k++) {
        const char *name = n->inputs[k].name;
        bool positional = (op->flags & OPF_POSITIONAL) || !name || !name[0];
        int idx = positional ? next : schema_arg_index(s, name);
        if (idx < 0 || idx >= s->nargs || given[idx]) {
            snprintf(msg, cap, "input %d (%s) does not fit the schema", k, name ? name : "");
            return false;
        }
        next = idx + 1;
        given[idx] = true;
        if (!sym_of_arg(sp, &n->inputs[k].arg, &args[idx], msg, cap))
            return false;
        /* a Python number where the schema wants a Tensor is a 0-d tensor */
        if (s->args[idx].type == ST_TENSOR && (args[idx].kind == SV_INT || args[idx].kind == SV_LIT)) {
            sym_arg_clear(&args[idx]);
            args[idx].kind = SV_TENSOR;
        }
    }
    for (int i = 0; i < s->nargs; i++)
        if (!given[i] && s->args[i].has_default)
            sym_of_value(&s->args[i].dflt, &args[i]);
    return true;
}

/* Put every dim and expression of v into canonical form, so shapes read
** as PyTorch prints them (FloorDiv(4*s0, 4) is s0). */
static void canon_value(SymArg *v)
{
    for (int i = 0; i < v->shape.ndim; i++) {
        SymExpr *c = sym_canon(v->shape.dims[i]);
        if (c) {
            sym_free(v->shape.dims[i]);
            v->shape.dims[i] = c;
        }
    }
    if (v->e) {
        SymExpr *c = sym_canon(v->e);
        if (c) {
            sym_free(v->e);
            v->e = c;
        }
    }
    for (int j = 0; j < v->n; j++)
        canon_value(&v->items[j]);
}

/* Ops whose output holds the input's values (rearranged), so an arange's
** value range carries over. */
static bool keeps_values(const OpDef *op)
{
    static const ShapeRule keep[] = {SR_VIEW, SR_UNSQUEEZE, SR_SQUEEZE, SR_EXPAND, SR_PERMUTE, SR_SLICE, SR_FLATTEN};
    if ((op->flags & OPF_VIEW) || op->id == OP_TO_COPY || op->id == OP_CLONE)
        return true;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (op->shape_rule == keep[i])
            return true;
    return false;
}

/* Store the rule's outputs under the node's output names; false when
** they do not line up with the node's outputs. */
static bool store_outputs(ShapeProp *sp, const Node *n, SymArg *outs, int nrets)
{
    for (int k = 0; k < n->noutputs && k < nrets; k++) {
        const Arg *o = &n->outputs[k];
        if (o->kind == ARG_TENSORS) {
            if (outs[k].kind != SV_LIST || outs[k].n != o->n)
                return false;
        } else if (o->kind == ARG_TENSOR) {
            if (outs[k].kind != SV_TENSOR)
                return false;
        } else if (o->kind == ARG_SYM_INT || o->kind == ARG_SYM_BOOL || o->kind == ARG_SYM_FLOAT) {
            if (outs[k].kind != SV_INT && outs[k].kind != SV_LIT)
                return false;
        }
    }
    for (int k = 0; k < n->noutputs && k < nrets; k++) {
        const Arg *o = &n->outputs[k];
        canon_value(&outs[k]);
        if (o->kind == ARG_TENSORS) {
            for (int j = 0; j < o->n; j++)
                if (o->items[j].ref)
                    put(sp, o->items[j].ref, &outs[k].items[j]);
        } else if (o->ref && (o->kind == ARG_TENSOR || o->kind == ARG_SYM_INT || o->kind == ARG_SYM_BOOL ||
                              o->kind == ARG_SYM_FLOAT)) {
            put(sp, o->ref, &outs[k]);
        }
    }
    return true;
}

/* Names the archive gave the node's data-dependent sizes (u0, ...). */
static void unbacked_hints(const Graph *g, const Node *n, ShapeCtx *cx)
{
    memset(cx->unbacked_hint, 0, sizeof cx->unbacked_hint);
    if (n->noutputs < 1 || !n->outputs[0].ref)
        return;
    const Arg *o = &n->outputs[0];
    const SymExpr *e = NULL;
    if (o->kind == ARG_SYM_INT) {
        const SymDim *d = strmap_get(&g->sym_int_values, o->ref);
        e = d && d->is_expr ? d->parsed : NULL;
    } else if (o->kind == ARG_TENSOR) {
        const TensorMeta *m = graph_tensor_meta(g, o->ref);
        e = m && m->ndim > 0 && m->sizes[0].is_expr ? m->sizes[0].parsed : NULL;
    }
    cx->unbacked_hint[0] = e ? sym_as_symbol(e) : NULL;
}

/* Argument names whose ints are sizes (not dims, indices or steps). */
static bool is_size_arg(const char *name)
{
    static const char *const SIZE_ARGS[] = {"size", "sizes", "shape", "end", "length", "output_size"};
    for (size_t k = 0; name && k < sizeof SIZE_ARGS / sizeof SIZE_ARGS[0]; k++)
        if (strcmp(name, SIZE_ARGS[k]) == 0)
            return true;
    return false;
}

/* Offer each literal size of the node's arguments to the lift callback. */
static void lift_args(const ShapeProp *sp, int i, const OpSchema *s, SymArg *args)
{
    for (int k = 0; k < s->nargs; k++) {
        if (!is_size_arg(s->args[k].name))
            continue;
        SymArg *a = &args[k];
        int cnt = a->kind == SV_LIST ? a->n : a->kind == SV_INT ? 1 : 0;
        for (int j = 0; j < cnt; j++) {
            SymArg *item = a->kind == SV_LIST ? &a->items[j] : a;
            int64_t v;
            if (item->kind != SV_INT || !sym_as_int(item->e, &v))
                continue;
            SymExpr *e = sp->lift(sp->lift_ctx, i, s->args[k].name, j, v);
            if (e) {
                sym_free(item->e);
                item->e = e;
            }
        }
    }
}

static void run_node(ShapeProp *sp, ShapeCtx *cx, int i)
{
    const Node *n = &sp->ep->graph.nodes[i];
    ShapeNodeInfo *info = &sp->nodes[i];
    const OpDef *op = n->op;
    bool has_graph = false;
    for (int k = 0; k < n->ninputs; k++)
        has_graph |= n->inputs[k].arg.kind == ARG_GRAPH;
    if (!op || has_graph || !op->schema) {
        info->status = SN_RECORDED;
        snprintf(info->note, sizeof info->note, "%s", has_graph ? "higher-order op: recorded shapes"
                                                                : "no registry entry: recorded shapes");
        use_recorded(sp, n);
        return;
    }
    SymArg args[OP_MAX_ARGS], outs[OP_MAX_RETS];
    memset(args, 0, sizeof args);
    memset(outs, 0, sizeof outs);
    char msg[256] = "";
    ShapeRuleResult r = SRR_RECORDED;
    if (op->schema->nrets > OP_MAX_RETS || op->schema->nargs > OP_MAX_ARGS) {
        snprintf(msg, sizeof msg, "too many arguments");
    } else if (bind_args(sp, n, args, msg, sizeof msg)) {
        if (sp->lift)
            lift_args(sp, i, op->schema, args);
        cx->node = i;
        unbacked_hints(&sp->ep->graph, n, cx);
        r = shape_rule_run(cx, op, args, outs);
        snprintf(msg, sizeof msg, "%s", cx->err);
        if (r == SRR_OK && args[0].kind == SV_TENSOR && args[0].has_values && outs[0].kind == SV_TENSOR &&
            !outs[0].has_values && keeps_values(op)) {
            outs[0].has_values = true;
            outs[0].vlo = sym_clone(args[0].vlo);
            outs[0].vhi = sym_clone(args[0].vhi);
        }
        if (r == SRR_OK && !store_outputs(sp, n, outs, op->schema->nrets)) {
            r = SRR_RECORDED;
            snprintf(msg, sizeof msg, "%s: the rule's results do not match the node's outputs", op->target);
        }
    }
    /* bind_args and lift_args write only the schema's slots (the rules
    ** read args); clearing all OP_MAX_ARGS was 12 % of a run of a
    ** 100,000-node chain */
    int bound = op->schema->nargs < OP_MAX_ARGS ? op->schema->nargs : OP_MAX_ARGS;
    for (int k = 0; k < bound; k++)
        sym_arg_clear(&args[k]);
    for (int k = 0; k < OP_MAX_RETS; k++)
        sym_arg_clear(&outs[k]);
    info->status = r == SRR_OK ? SN_RULE : r == SRR_FAIL ? SN_FAILED : SN_RECORDED;
    snprintf(info->note, sizeof info->note, "%s", r == SRR_OK ? "" : msg);
    if (r != SRR_OK)
        use_recorded(sp, n);
}

static const ShapeInput *chosen(const ShapeInput *inputs, int n, const char *name)
{
    for (int i = 0; i < n && name; i++)
        if (inputs[i].name && strcmp(inputs[i].name, name) == 0)
            return &inputs[i];
    return NULL;
}

EpStatus shape_prop_run(const ExportedProgram *ep, const ShapeInput *inputs, int n, ShapeProp **out, EpError *err)
{
    ShapePropOptions o = {.inputs = inputs, .ninputs = n};
    return shape_prop_run_opts(ep, &o, out, err);
}

EpStatus shape_prop_run_opts(const ExportedProgram *ep, const ShapePropOptions *opt, ShapeProp **out, EpError *err)
{
    const ShapeInput *inputs = opt->inputs;
    int n = opt->inputs ? opt->ninputs : 0;
    *out = NULL;
    const Graph *g = &ep->graph;
    for (int i = 0; i < n; i++) {
        bool found = false;
        for (int k = 0; k < g->ninputs; k++)
            found |= g->inputs[k].ref && inputs[i].name && strcmp(g->inputs[k].ref, inputs[i].name) == 0;
        if (!found)
            return ep_fail(err, EP_ERR_FORMAT, "shape input '%s' names no placeholder of the program",
                           inputs[i].name ? inputs[i].name : "(null)");
    }
    ShapeProp *sp = ep_xcalloc(1, sizeof *sp);
    sp->ep = ep;
    sp->nnodes = g->nnodes;
    sp->nodes = ep_xcalloc((size_t)(g->nnodes ? g->nnodes : 1), sizeof *sp->nodes);
    strmap_init(&sp->values);
    sym_ranges_init(&sp->ranges);
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *rc = &ep->ranges[i];
        const char *s = rc->parsed ? sym_as_symbol(rc->parsed) : NULL;
        if (s)
            sym_ranges_set(&sp->ranges, s, rc->has_min ? rc->min : SYM_RANGE_NEG_INF,
                           rc->has_max ? rc->max : SYM_RANGE_POS_INF);
    }
    for (int i = 0; opt->ranges && i < opt->ranges->n; i++)
        sym_ranges_set(&sp->ranges, opt->ranges->items[i].name, opt->ranges->items[i].range.lo,
                       opt->ranges->items[i].range.hi);
    sp->lift = opt->lift;
    sp->lift_ctx = opt->lift_ctx;
    for (int k = 0; k < g->ninputs; k++) {
        const Arg *a = &g->inputs[k];
        const ShapeInput *c = chosen(inputs, n, a->ref);
        SymArg v = {0};
        if (c) {
            v.kind = SV_TENSOR;
            if (!sym_shape_copy(&c->shape, &v.shape)) {
                shape_prop_free(sp);
                return ep_fail(err, EP_ERR_EXEC, "out of memory");
            }
        } else if (!a->ref || !recorded_value(g, a, &v)) {
            sym_arg_clear(&v);
            if (a->kind == ARG_TENSOR || a->kind == ARG_SYM_INT) {
                shape_prop_free(sp);
                return ep_fail(err, EP_ERR_FORMAT, "input '%s' has no recorded shape; give one",
                               a->ref ? a->ref : "?");
            }
            continue;
        }
        put(sp, a->ref, &v);
    }
    ShapeCtx cx;
    shape_ctx_init(&cx, &sp->ranges);
    cx.hints = opt->hints;
    for (int i = 0; i < g->nnodes; i++)
        run_node(sp, &cx, i);
    sp->cons = cx.cons;
    sp->ncons = cx.ncons;
    *out = sp;
    return EP_OK;
}

void shape_prop_free(ShapeProp *sp)
{
    if (!sp)
        return;
    for (int i = 0; i < sp->ncons; i++)
        sym_free(sp->cons[i].cond);
    free(sp->cons);
    strmap_free(&sp->values, free_value);
    sym_ranges_free(&sp->ranges);
    free(sp->nodes);
    free(sp);
}
