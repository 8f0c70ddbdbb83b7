/*
** interp_plan.c -- turning a Graph into an executable GraphPlan (executing
** one is interp_run.c).
**
** Preparation does all the per-node work that does not depend on values:
** every name gets a slot in the environment array; each node's arguments are
** bound to its op's schema once (defaults filled, kinds checked) into a
** template; references to other values become fixups (a pointer into the
** template and a slot); outputs get slots; each value's last use is found
** so the runtime can free it right after.  Executing a node is then: copy
** the fixups, call the kernel through the registry, move the results into
** their slots, release what is dead.  A higher-order op's node gets its
** entry of hop.c's table, the plans of its subgraphs and slots for its
** results here, so running it needs nothing from this file.
*/
#include "interp_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int add_slot(GraphPlan *gp, const char *name)
{
    intptr_t had = (intptr_t)strmap_get_or_put(&gp->slot_of, name, (void *)(intptr_t)(gp->nslots + 1));
    return had ? (int)had - 1 : gp->nslots++;
}

static void node_plan_clear(NodePlan *np)
{
    /* fixup destinations hold borrowed pointers from the last run */
    for (int i = 0; i < np->nfix; i++)
        np->fix[i].dst->kind = V_NONE;
    for (int i = 0; i < np->nargs; i++)
        value_clear(&np->args[i]);
    free(np->args);
    free(np->fix);
    for (int i = 0; i < np->nouts; i++)
        free(np->outs[i].list_slots);
    free(np->outs);
    free(np->frees);
    free(np->mut_slots);
    free(np->learn);
    free(np->problem);
    for (int i = 0; i < np->nsub; i++)
        graph_plan_free(np->sub[i]);
    free(np->sub);
    free(np->operands);
    free(np->out_slots);
}

void graph_plan_free(GraphPlan *gp)
{
    if (!gp)
        return;
    for (int i = 0; i < gp->nnodes; i++)
        node_plan_clear(&gp->nodes[i]);
    free(gp->nodes);
    free(gp->input_slots);
    strmap_free(&gp->slot_of, NULL);
    free(gp);
}

/* ---- argument templates --------------------------------------------------- */

/* A reference found while building an argument template: input k (item j
** of a list, or -1), the slot it names, and whether the value is a symbolic
** scalar (for FIX_WRAP). */
typedef struct PendingRef {
    int input, item;
    int slot;
    bool scalar;
} PendingRef;

typedef struct RefList {
    PendingRef *items;
    int n, cap;
} RefList;

static void ref_push(RefList *l, int input, int item, int slot, bool scalar)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->items = ep_xrealloc(l->items, (size_t)l->cap * sizeof *l->items);
    }
    l->items[l->n++] = (PendingRef){input, item, slot, scalar};
}

static void set_problem(NodePlan *np, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_problem(NodePlan *np, const char *fmt, ...)
{
    if (np->problem)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    np->problem = ep_xstrdup(buf);
}

/* A literal Arg (or one list item) to a Value; refs give placeholders and
** are recorded.  Returns false (with a problem set) for unsupported kinds. */
static bool template_item(GraphPlan *gp, NodePlan *np, const Arg *a, int input, int item, RefList *refs, Value *out)
{
    out->kind = V_NONE;
    switch (a->kind) {
    case ARG_NONE:
        return true;
    case ARG_TENSOR:
    case ARG_SYM_INT:
    case ARG_SYM_FLOAT:
    case ARG_SYM_BOOL: {
        int slot = graph_plan_slot(gp, a->ref);
        if (slot < 0) {
            set_problem(np, "uses '%s', which no earlier node or input defines", a->ref);
            return false;
        }
        bool scalar = a->kind != ARG_TENSOR;
        ref_push(refs, input, item, slot, scalar);
        if (a->kind == ARG_TENSOR) {
            out->kind = V_TENSOR;
            out->t = NULL;
        } else if (a->kind == ARG_SYM_INT) {
            *out = value_int(0);
        } else if (a->kind == ARG_SYM_FLOAT) {
            *out = value_float(0);
        } else {
            *out = value_bool(false);
        }
        return true;
    }
    case ARG_INT:
    case ARG_FLOAT:
    case ARG_BOOL:
    case ARG_STRING:
    case ARG_OPERATOR:
    case ARG_DEVICE:
        *out = value_copy(&a->lit);
        if (a->kind == ARG_OPERATOR)
            out->kind = V_STR;
        return true;
    case ARG_SCALAR_TYPE: {
        DType t = dtype_from_scalar_type((int)a->lit.i);
        if (t == DT_INVALID) {
            set_problem(np, "dtype %s is not supported by epdbg", scalar_type_name((int)a->lit.i));
            return false;
        }
        out->kind = V_DTYPE;
        out->i = t;
        return true;
    }
    case ARG_MEMORY_FORMAT:
        out->kind = V_MEMFMT;
        out->i = a->lit.i;
        return true;
    case ARG_LAYOUT:
        out->kind = V_LAYOUT;
        out->i = a->lit.i;
        return true;
    case ARG_OPT_TENSOR:
        return template_item(gp, np, &a->items[0], input, item, refs, out);
    default:
        break;
    }
    if (a->n >= 0 && (a->kind == ARG_TENSORS || a->kind == ARG_OPT_TENSORS || a->kind == ARG_INTS ||
                      a->kind == ARG_FLOATS || a->kind == ARG_BOOLS || a->kind == ARG_STRINGS ||
                      a->kind == ARG_SYM_INTS || a->kind == ARG_SYM_FLOATS || a->kind == ARG_SYM_BOOLS)) {
        if (item >= 0) {
            set_problem(np, "nested lists are not supported");
            return false;
        }
        out->kind = V_LIST;
        out->list = value_list_new(a->n);
        for (int j = 0; j < a->n; j++)
            if (!template_item(gp, np, &a->items[j], input, j, refs, &out->list->items[j]))
                return false;
        return true;
    }
    set_problem(np, "arguments of kind %s are not supported", a->kind == ARG_OTHER && a->variant
                                                                  ? a->variant : arg_kind_name(a->kind));
    return false;
}

/* Where input k of the node landed in the schema (mirrors op_bind). */
static void map_inputs_to_schema(const OpDef *op, const Node *n, int *schema_index)
{
    int next = 0;
    for (int k = 0; k < n->ninputs; k++) {
        const char *name = n->inputs[k].name;
        bool positional = (op->flags & OPF_POSITIONAL) || !name || !name[0];
        int idx = positional ? next : schema_arg_index(op->schema, name);
        schema_index[k] = idx;
        next = idx + 1;
    }
}

static void add_fixup(NodePlan *np, Value *dst, int slot, FixMode mode)
{
    if (mode == FIX_WRAP) {
        /* op_bind wrapped the placeholder scalar into a tensor; the real
        ** one is made from the run-time value at every call */
        value_clear(dst);
        dst->kind = V_TENSOR;
        dst->t = NULL;
    }
    np->fix = ep_xrealloc(np->fix, (size_t)(np->nfix + 1) * sizeof *np->fix);
    np->fix[np->nfix++] = (Fixup){dst, slot, mode};
}

/* ---- wrapped numbers shared ------------------------------------------------ */

/* A literal number where the schema wants a Tensor (add.Tensor's other=1.25)
** becomes a 0-d wrapped-number tensor in the template.  Every node giving the
** same literal shares one (a template is only read: the kernels get it again
** at every run already), made here before op_bind instead of by op_bind's
** conform for each node: on a 100k-node graph that was 100k tensors, a fifth
** of the pages touched while opening it.  Keyed by the value's kind and bits
** (so -0.0 and 0.0, NaN payloads, stay apart); open addressing, grown at
** half full. */
typedef struct WrapCache {
    struct WrapEntry {
        Tensor *t; /* NULL: empty */
        ValueKind kind;
        uint64_t bits;
    } *e;
    size_t cap, n;
} WrapCache;

static uint64_t wrap_bits(const Value *v)
{
    uint64_t b = 0;
    if (v->kind == V_FLOAT)
        memcpy(&b, &v->f, sizeof b);
    else
        b = v->kind == V_BOOL ? (uint64_t)v->b : (uint64_t)v->i;
    return b;
}

static size_t wrap_slot(const WrapCache *c, ValueKind kind, uint64_t bits)
{
    uint64_t h = (bits ^ ((uint64_t)kind << 59)) * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 32) & (c->cap - 1);
    while (c->e[i].t && !(c->e[i].kind == kind && c->e[i].bits == bits))
        i = (i + 1) & (c->cap - 1);
    return i;
}

/* The shared wrapped tensor of scalar v (a new reference), or NULL when
** making it failed (op_bind then wraps it itself and says why). */
static Tensor *wrap_cached(WrapCache *c, const Value *v)
{
    uint64_t bits = wrap_bits(v);
    Tensor *had = c->cap ? c->e[wrap_slot(c, v->kind, bits)].t : NULL;
    if (had)
        return tensor_ref(had);
    if (2 * (c->n + 1) > c->cap) {
        WrapCache big = {ep_xcalloc(c->cap ? 2 * c->cap : 16, sizeof *big.e), c->cap ? 2 * c->cap : 16, c->n};
        for (size_t i = 0; i < c->cap; i++)
            if (c->e[i].t)
                big.e[wrap_slot(&big, c->e[i].kind, c->e[i].bits)] = c->e[i];
        free(c->e);
        *c = big;
    }
    EpError err;
    Tensor *t = value_wrap_number(v, &err);
    if (!t)
        return NULL;
    c->e[wrap_slot(c, v->kind, bits)] = (struct WrapEntry){t, v->kind, bits};
    c->n++;
    return tensor_ref(t);
}

static void wrap_cache_free(WrapCache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        tensor_unref(c->e[i].t);
    free(c->e);
}

/* Input k's literal number, when its schema slot is a Tensor, as the shared
** wrapped tensor (what op_bind's conform would make of it). */
static void wrap_literal(WrapCache *c, const OpDef *op, const Arg *a, int sidx, Value *v)
{
    const OpSchema *s = op->schema;
    if (!(a->kind == ARG_INT || a->kind == ARG_FLOAT || a->kind == ARG_BOOL) || !value_is_scalar(v) || sidx < 0 ||
        sidx >= s->nargs || s->args[sidx].type != ST_TENSOR)
        return;
    Tensor *t = wrap_cached(c, v);
    if (t)
        *v = value_tensor(t);
}

static void prepare_args(GraphPlan *gp, WrapCache *wraps, const Node *n, NodePlan *np)
{
    const OpDef *op = np->op;
    int ni = n->ninputs;
    /* most nodes take a few inputs: their scratch lives on the stack
    ** (three mallocs and frees per node less on a 100k-node graph) */
    enum { FEW = 8 };
    const char *names_few[FEW];
    Value vals_few[FEW];
    int sidx_few[FEW];
    bool few = ni <= FEW;
    const char **names = few ? names_few : ep_xcalloc((size_t)ni, sizeof *names);
    Value *vals = few ? vals_few : ep_xcalloc((size_t)ni, sizeof *vals);
    if (few)
        memset(vals_few, 0, sizeof vals_few);
    RefList refs = {0};
    bool ok = true;
    for (int k = 0; k < ni && ok; k++) {
        names[k] = n->inputs[k].name;
        ok = template_item(gp, np, &n->inputs[k].arg, k, -1, &refs, &vals[k]);
    }
    int *sidx = few ? sidx_few : ep_xcalloc((size_t)ni, sizeof *sidx);
    if (few)
        memset(sidx_few, 0, sizeof sidx_few);
    if (ok) {
        map_inputs_to_schema(op, n, sidx);
        for (int k = 0; k < ni; k++)
            wrap_literal(wraps, op, &n->inputs[k].arg, sidx[k], &vals[k]);
    }
    if (ok) {
        EpError err;
        np->nargs = op->schema->nargs;
        np->args = ep_xcalloc((size_t)(np->nargs ? np->nargs : 1), sizeof *np->args);
        if (op_bind(op, ni, names, vals, np->args, &err) != EP_OK) {
            set_problem(np, "%s", err.msg);
            free(np->args);
            np->args = NULL;
            np->nargs = 0;
            ok = false;
        }
    }
    if (ok) {
        for (int r = 0; r < refs.n; r++) {
            const PendingRef *pr = &refs.items[r];
            Value *arg = &np->args[sidx[pr->input]];
            if (pr->item < 0) {
                FixMode mode = (arg->kind == V_TENSOR && pr->scalar) ? FIX_WRAP : FIX_COPY;
                add_fixup(np, arg, pr->slot, mode);
                continue;
            }
            if (arg->kind != V_LIST)
                continue; /* cannot happen: lists bind to lists */
            int given = n->inputs[pr->input].arg.n;
            ValueList *l = arg->list;
            if (l->n == given) {
                Value *dst = &l->items[pr->item];
                add_fixup(np, dst, pr->slot, (dst->kind == V_TENSOR && pr->scalar) ? FIX_WRAP : FIX_COPY);
            } else { /* int[N] given one element: it was repeated N times */
                for (int j = 0; j < l->n; j++)
                    add_fixup(np, &l->items[j], pr->slot, FIX_COPY);
            }
        }
        /* which run-time values the op writes into: its Tensor(a!)
        ** arguments (args[0] of in-place ops), found through the fixups
        ** that fill those arguments */
        for (int a = 0; a < np->nargs; a++) {
            bool mutated = op->schema->args[a].mutated || (a == 0 && (op->flags & OPF_INPLACE));
            for (int f = 0; mutated && f < np->nfix; f++)
                if (np->fix[f].dst == &np->args[a]) {
                    np->mut_slots = ep_xrealloc(np->mut_slots, (size_t)(np->nmut + 1) * sizeof *np->mut_slots);
                    np->mut_slots[np->nmut++] = np->fix[f].slot;
                }
        }
    }
    for (int k = 0; k < ni; k++)
        value_clear(&vals[k]);
    if (!few) {
        free(vals);
        free(names);
        free(sidx);
    }
    free(refs.items);
}

/* ---- outputs ---------------------------------------------------------------- */

static int output_slot(GraphPlan *gp, const Arg *a)
{
    if (a->kind == ARG_NONE || !a->ref)
        return -1;
    return add_slot(gp, a->ref);
}

static void bind_list(GraphPlan *gp, OutBind *ob, const Arg *a)
{
    ob->slot = -1;
    ob->is_list = true;
    ob->nlist = a->n;
    ob->list_slots = ep_xcalloc((size_t)(a->n ? a->n : 1), sizeof *ob->list_slots);
    for (int j = 0; j < a->n; j++)
        ob->list_slots[j] = output_slot(gp, &a->items[j]);
}

static void prepare_outputs(GraphPlan *gp, const Node *n, NodePlan *np)
{
    const OpSchema *s = np->op->schema;
    np->nouts = s->nrets;
    np->outs = ep_xcalloc((size_t)(s->nrets ? s->nrets : 1), sizeof *np->outs);
    for (int k = 0; k < s->nrets; k++)
        np->outs[k].slot = -1;
    if (s->nrets == 0 || n->noutputs == 0)
        return;
    if (s->nrets == 1 && s->rets[0].type == ST_TENSOR_LIST) {
        if (n->noutputs == 1 && n->outputs[0].kind == ARG_TENSORS) {
            bind_list(gp, &np->outs[0], &n->outputs[0]);
        } else { /* one Argument per element */
            Arg tmp = {.kind = ARG_TENSORS, .n = n->noutputs, .items = n->outputs};
            bind_list(gp, &np->outs[0], &tmp);
        }
        return;
    }
    if (n->noutputs == s->nrets) {
        for (int k = 0; k < s->nrets; k++) {
            const Arg *a = &n->outputs[k];
            if (a->kind == ARG_TENSORS)
                bind_list(gp, &np->outs[k], a);
            else
                np->outs[k].slot = output_slot(gp, a);
        }
        return;
    }
    if (n->noutputs == 1 && n->outputs[0].kind == ARG_TENSORS && n->outputs[0].n == s->nrets) {
        for (int k = 0; k < s->nrets; k++)
            np->outs[k].slot = output_slot(gp, &n->outputs[0].items[k]);
        return;
    }
    set_problem(np, "the node has %d outputs but %s returns %d values", n->noutputs, np->op->target, s->nrets);
}

/* Symbols this node's results reveal (see SymLearn). */
static void prepare_learning(GraphPlan *gp, const Node *n, NodePlan *np)
{
    const Graph *g = gp->g;
    for (int k = 0; k < n->noutputs; k++) {
        const Arg *a = &n->outputs[k];
        const Arg *items = a->kind == ARG_TENSORS ? a->items : a;
        int count = a->kind == ARG_TENSORS ? a->n : 1;
        for (int j = 0; j < count; j++) {
            const Arg *x = &items[j];
            if (!x->ref)
                continue;
            int slot = graph_plan_slot(gp, x->ref);
            if (x->kind == ARG_SYM_INT) {
                const SymDim *d = strmap_get(&g->sym_int_values, x->ref);
                const char *sym = d && d->parsed ? sym_as_symbol(d->parsed) : NULL;
                if (sym) {
                    np->learn = ep_xrealloc(np->learn, (size_t)(np->nlearn + 1) * sizeof *np->learn);
                    np->learn[np->nlearn++] = (SymLearn){slot, -1, sym};
                }
            } else if (x->kind == ARG_TENSOR) {
                const TensorMeta *m = graph_tensor_meta(g, x->ref);
                for (int d = 0; m && d < m->ndim; d++) {
                    const char *sym = m->sizes[d].parsed ? sym_as_symbol(m->sizes[d].parsed) : NULL;
                    if (!sym)
                        continue;
                    np->learn = ep_xrealloc(np->learn, (size_t)(np->nlearn + 1) * sizeof *np->learn);
                    np->learn[np->nlearn++] = (SymLearn){slot, d, sym};
                }
            }
        }
    }
}

/* Whether any value of g has a size or SymInt the exporter recorded as an
** expression: else no node reveals a symbol, and prepare_learning's two
** lookups per output (100k-node graphs: ~5 % of opening) are skipped. */
static bool graph_has_symbols(const Graph *g)
{
    for (int i = 0; i < g->sym_int_values.n; i++) {
        const SymDim *d = g->sym_int_values.entries[i].value;
        if (d && d->parsed)
            return true;
    }
    for (int i = 0; i < g->tensor_values.n; i++) {
        const TensorMeta *m = g->tensor_values.entries[i].value;
        for (int d = 0; m && d < m->ndim; d++)
            if (m->sizes[d].parsed)
                return true;
    }
    return false;
}

/* ---- higher-order ops ------------------------------------------------------ */

/* A higher-order node: its subgraph arguments get plans of their own (in
** argument order), its other arguments become operands that hop.c
** evaluates in this graph's environment, and each output element a slot
** (-1 to drop). */
static EpStatus prepare_hop(GraphPlan *gp, const Node *n, NodePlan *np, EpError *err)
{
    for (int k = 0; k < n->ninputs; k++) {
        const Arg *a = &n->inputs[k].arg;
        if (a->kind == ARG_GRAPH) {
            GraphPlan *sub = graph_plan_new(a->graph, err);
            if (!sub)
                return EP_ERR_FORMAT;
            np->sub = ep_xrealloc(np->sub, (size_t)(np->nsub + 1) * sizeof *np->sub);
            np->sub[np->nsub++] = sub;
        } else {
            np->operands = ep_xrealloc(np->operands, (size_t)(np->noperands + 1) * sizeof *np->operands);
            np->operands[np->noperands++] = (Arg *)a;
        }
    }
    for (int k = 0; k < n->noutputs; k++) {
        const Arg *a = &n->outputs[k];
        bool list = a->kind == ARG_TENSORS || a->kind == ARG_SYM_INTS;
        for (int j = 0; j < (list ? a->n : 1); j++) {
            const Arg *x = list ? &a->items[j] : a;
            np->out_slots = ep_xrealloc(np->out_slots, (size_t)(np->nout_slots + 1) * sizeof *np->out_slots);
            np->out_slots[np->nout_slots++] = x->ref && x->kind != ARG_NONE ? add_slot(gp, x->ref) : -1;
        }
    }
    if (np->nsub != np->hop->nsubgraphs)
        set_problem(np, "%s takes %d subgraphs, the node has %d", op_short_target(n->target), np->hop->nsubgraphs,
                    np->nsub);
    return EP_OK;
}

/* ---- whole graphs ---------------------------------------------------------------- */

static void note_use(int *last_use, int slot, int node)
{
    if (slot >= 0 && last_use[slot] != INT_MAX)
        last_use[slot] = node;
}

static void note_arg_uses(const GraphPlan *gp, const Arg *a, int *last_use, int node)
{
    if (a->ref && (a->kind == ARG_TENSOR || a->kind == ARG_SYM_INT || a->kind == ARG_SYM_FLOAT ||
                   a->kind == ARG_SYM_BOOL))
        note_use(last_use, graph_plan_slot(gp, a->ref), node);
    for (int j = 0; j < a->n; j++)
        note_arg_uses(gp, &a->items[j], last_use, node);
}

/* Mark values used inside subgraphs too?  Subgraphs have their own plans
** and environments: a HOP passes values in as operands, so only its
** operands count as uses here. */
static void compute_frees(GraphPlan *gp)
{
    const Graph *g = gp->g;
    int *last_use = ep_xmalloc((size_t)(gp->nslots ? gp->nslots : 1) * sizeof *last_use);
    int *producer = ep_xmalloc((size_t)(gp->nslots ? gp->nslots : 1) * sizeof *producer);
    for (int s = 0; s < gp->nslots; s++) {
        last_use[s] = -1;
        producer[s] = -1;
    }
    for (int i = 0; i < g->noutputs; i++) { /* graph outputs live to the end */
        const Arg *a = &g->outputs[i];
        if (a->ref) {
            int s = graph_plan_slot(gp, a->ref);
            if (s >= 0)
                last_use[s] = INT_MAX;
        }
        for (int j = 0; j < a->n; j++)
            if (a->items[j].ref) {
                int s = graph_plan_slot(gp, a->items[j].ref);
                if (s >= 0)
                    last_use[s] = INT_MAX;
            }
    }
    for (int i = 0; i < gp->nnodes; i++) {
        const Node *n = &g->nodes[i];
        const NodePlan *np = &gp->nodes[i];
        if (np->op && !np->hop && !np->problem) {
            /* bound without a problem: its fixups hold the slot of every
            ** value its inputs name (prepare_args), found once already */
            for (int f = 0; f < np->nfix; f++)
                note_use(last_use, np->fix[f].slot, i);
        } else {
            for (int k = 0; k < n->ninputs; k++)
                note_arg_uses(gp, &n->inputs[k].arg, last_use, i);
        }
        for (int k = 0; k < n->noutputs; k++) {
            const Arg *a = &n->outputs[k];
            if (a->ref) {
                int s = graph_plan_slot(gp, a->ref);
                if (s >= 0 && producer[s] < 0)
                    producer[s] = i;
            }
            for (int j = 0; j < a->n; j++)
                if (a->items[j].ref) {
                    int s = graph_plan_slot(gp, a->items[j].ref);
                    if (s >= 0 && producer[s] < 0)
                        producer[s] = i;
                }
        }
    }
    for (int s = 0; s < gp->nslots; s++) {
        int at = last_use[s];
        if (at == INT_MAX)
            continue;
        if (at < 0)
            at = producer[s]; /* never used: drop right after it is made */
        if (at < 0)
            continue;         /* an unused placeholder: the caller's to keep */
        NodePlan *np = &gp->nodes[at];
        np->frees = ep_xrealloc(np->frees, (size_t)(np->nfrees + 1) * sizeof *np->frees);
        np->frees[np->nfrees++] = s;
    }
    free(last_use);
    free(producer);
}

GraphPlan *graph_plan_new(const Graph *g, EpError *err)
{
    GraphPlan *gp = ep_xcalloc(1, sizeof *gp);
    WrapCache wraps = {0};
    bool symbolic = graph_has_symbols(g);
    gp->g = g;
    strmap_init_borrowed(&gp->slot_of);
    strmap_reserve(&gp->slot_of, g->ninputs + g->nnodes);
    gp->input_slots = ep_xcalloc((size_t)(g->ninputs ? g->ninputs : 1), sizeof *gp->input_slots);
    for (int i = 0; i < g->ninputs; i++)
        gp->input_slots[i] = g->inputs[i].ref ? add_slot(gp, g->inputs[i].ref) : -1;
    gp->nnodes = g->nnodes;
    gp->nodes = ep_xcalloc((size_t)(g->nnodes ? g->nnodes : 1), sizeof *gp->nodes);
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = &g->nodes[i];
        NodePlan *np = &gp->nodes[i];
        np->hop = hop_lookup(n->target);
        if (np->hop) {
            if (prepare_hop(gp, n, np, err) != EP_OK) {
                wrap_cache_free(&wraps);
                graph_plan_free(gp);
                return NULL;
            }
            continue;
        }
        np->op = n->op;
        if (!np->op) {
            set_problem(np, "epdbg has no kernel for %s", op_short_target(n->target));
            /* its outputs still get slots so later nodes can name them */
            for (int k = 0; k < n->noutputs; k++) {
                output_slot(gp, &n->outputs[k]);
                for (int j = 0; j < n->outputs[k].n; j++)
                    output_slot(gp, &n->outputs[k].items[j]);
            }
            continue;
        }
        prepare_args(gp, &wraps, n, np);
        prepare_outputs(gp, n, np);
        if (symbolic)
            prepare_learning(gp, n, np);
    }
    wrap_cache_free(&wraps);
    compute_frees(gp);
    return gp;
}

int graph_node_output_slots(const GraphPlan *gp, int i, int *slots, int max)
{
    const NodePlan *np = &gp->nodes[i];
    int n = 0;
    if (np->hop) {
        for (int k = 0; k < np->nout_slots; k++)
            if (np->out_slots[k] >= 0 && n++ < max)
                slots[n - 1] = np->out_slots[k];
        return n;
    }
    for (int k = 0; k < np->nouts; k++) {
        const OutBind *ob = &np->outs[k];
        if (!ob->is_list) {
            if (ob->slot >= 0 && n++ < max)
                slots[n - 1] = ob->slot;
            continue;
        }
        for (int j = 0; j < ob->nlist; j++)
            if (ob->list_slots[j] >= 0 && n++ < max)
                slots[n - 1] = ob->list_slots[j];
    }
    return n;
}
