/*
** guards.c -- the provenance of a program's guards, rebuilt from the graph
** (guards.h).  An expression is the exporter's record of a value
** (sym_int_values / sym_bool_values) when it has one, else it is rebuilt
** from the node that computes it (sym_size.int gives the input's recorded
** dimension, _operator.mod gives Mod(a, b), ...); a value neither way
** stands for itself under its own name, and takes its run-time value.
*/
#include "guards.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guards_code.h"
#include "srcinfo.h"

#define CHAIN_DEPTH 8   /* a guard's chain deeper than this is cut: it is read by a person */
#define CHAIN_LINES 24

struct Guards {
    const ExportedProgram *ep;
    const UserInput *inputs;
    int ninputs;
    /* Built on the first question that needs them (an explanation, an
    ** in-graph assert): opening a 100k-node graph asks none, and the two
    ** maps were ~4 % of its open.  lock guards the building. */
    pthread_mutex_t lock;
    bool indexed;
    StrMap producer;  /* value name -> node index + 1 */
    StrMap first_use; /* value name -> index + 1 of the first node taking it */
};

static void note_uses(Guards *g, const Arg *a, int i)
{
    if (a->ref)
        strmap_get_or_put(&g->first_use, a->ref, (void *)(intptr_t)(i + 1));
    for (int k = 0; k < a->n; k++)
        note_uses(g, &a->items[k], i);
}

static void note_outputs(Guards *g, const Arg *a, int i)
{
    if (a->ref)
        strmap_put(&g->producer, a->ref, (void *)(intptr_t)(i + 1));
    for (int k = 0; k < a->n; k++)
        note_outputs(g, &a->items[k], i);
}

Guards *guards_new(const ExportedProgram *ep, const UserInput *inputs, int n)
{
    Guards *g = ep_xcalloc(1, sizeof *g);
    g->ep = ep;
    g->inputs = inputs;
    g->ninputs = n;
    pthread_mutex_init(&g->lock, NULL);
    return g;
}

/* The producer and first-use maps of g, built once.  The questions take a
** const Guards (they change nothing a caller can see): the maps are a cache. */
static void index_graph(const Guards *cg)
{
    Guards *g = (Guards *)cg;
    pthread_mutex_lock(&g->lock);
    if (!g->indexed) {
        const ExportedProgram *ep = g->ep;
        /* the names are the graph's, which outlives the guards (g->ep) */
        strmap_init_borrowed(&g->producer);
        strmap_init_borrowed(&g->first_use);
        strmap_reserve(&g->producer, ep->graph.nnodes);
        strmap_reserve(&g->first_use, ep->graph.nnodes + ep->graph.ninputs);
        for (int i = 0; i < ep->graph.nnodes; i++) {
            const Node *nd = &ep->graph.nodes[i];
            for (int k = 0; k < nd->ninputs; k++)
                note_uses(g, &nd->inputs[k].arg, i);
            for (int k = 0; k < nd->noutputs; k++)
                note_outputs(g, &nd->outputs[k], i);
        }
        g->indexed = true;
    }
    pthread_mutex_unlock(&g->lock);
}

void guards_free(Guards *g)
{
    if (!g)
        return;
    if (g->indexed) {
        strmap_free(&g->producer, NULL);
        strmap_free(&g->first_use, NULL);
    }
    pthread_mutex_destroy(&g->lock);
    free(g);
}

static int producer_of(const Guards *g, const char *name)
{
    index_graph(g);
    return (int)(intptr_t)strmap_get(&g->producer, name) - 1;
}

/* "node 'eq' (_operator.eq)" and " at f.py:9 in forward: code" */
static void node_label(const Guards *g, int i, StrBuf *sb)
{
    const Node *n = &g->ep->graph.nodes[i];
    char src[512];
    const char *where = source_user_location(n->meta.stack_trace, src, sizeof src);
    sb_printf(sb, "node '%s' (%s)%s%s", n->name, op_short_target(n->target), where ? " at " : "", where ? where : "");
}

static const Arg *node_arg(const Node *n, int k)
{
    return k < n->ninputs ? &n->inputs[k].arg : NULL;
}

/* The argument named name, or else the k-th. */
static const Arg *node_arg_named(const Node *n, const char *name, int k)
{
    for (int j = 0; j < n->ninputs; j++)
        if (n->inputs[j].name && strcmp(n->inputs[j].name, name) == 0)
            return &n->inputs[j].arg;
    return node_arg(n, k);
}

static int user_input_of(const Guards *g, const char *placeholder)
{
    for (int u = 0; u < g->ninputs; u++)
        if (strcmp(g->inputs[u].name, placeholder) == 0)
            return u;
    return -1;
}

/* sd as text ("s0 + 1", "4"), new string. */
static char *dim_expr_text(const SymDim *sd)
{
    if (!sd->is_expr)
        return ep_xasprintf("%lld", (long long)sd->value);
    return sd->parsed ? sym_to_string(sd->parsed) : ep_xstrdup(sd->expr);
}

/* The exporter's record of SymInt/SymBool value name, as text, or NULL. */
static char *recorded_expr(const Guards *g, const char *name)
{
    const SymDim *d = strmap_get(&g->ep->graph.sym_int_values, name);
    if (d && (!d->is_expr || d->parsed))
        return dim_expr_text(d);
    const SymScalarMeta *m = strmap_get(&g->ep->graph.sym_bool_values, name);
    if (m && m->is_expr && m->parsed)
        return sym_to_string(m->parsed);
    return NULL;
}

/* Python operator text of the binary _operator/torch.sym ops the rebuilt
** expressions use; sym_parse reads Python's own syntax. */
static const struct {
    OpId id;
    const char *fmt; /* %s twice */
} BINARY_FORMS[] = {
    {OP_PY_ADD, "(%s) + (%s)"},  {OP_PY_SUB, "(%s) - (%s)"},       {OP_PY_MUL, "(%s)*(%s)"},
    {OP_PY_FLOORDIV, "(%s) // (%s)"}, {OP_PY_MOD, "(%s) %% (%s)"}, {OP_PY_EQ, "(%s) == (%s)"},
    {OP_PY_NE, "(%s) != (%s)"},  {OP_PY_LT, "(%s) < (%s)"},        {OP_PY_LE, "(%s) <= (%s)"},
    {OP_PY_GT, "(%s) > (%s)"},   {OP_PY_GE, "(%s) >= (%s)"},       {OP_SYM_MAX, "Max(%s, %s)"},
    {OP_SYM_MIN, "Min(%s, %s)"},
};

static char *value_expr(const Guards *g, const char *name, int depth);

static char *arg_expr(const Guards *g, const Arg *a, int depth)
{
    if (!a)
        return NULL;
    if (a->ref)
        return value_expr(g, a->ref, depth);
    if (a->lit.kind == V_INT)
        return ep_xasprintf("%lld", (long long)a->lit.i);
    if (a->lit.kind == V_BOOL)
        return ep_xstrdup(a->lit.b ? "True" : "False");
    return NULL;
}

/* Node i's result rebuilt from its arguments (Python syntax), or NULL. */
static char *rebuild(const Guards *g, int i, int depth)
{
    const Node *n = &g->ep->graph.nodes[i];
    if (!n->op)
        return NULL;
    if (n->op->id == OP_SYM_SIZE_INT) {
        const Arg *t = node_arg(n, 0), *d = node_arg(n, 1);
        const TensorMeta *m = t && t->ref ? graph_tensor_meta(&g->ep->graph, t->ref) : NULL;
        if (!m || !d || d->lit.kind != V_INT)
            return NULL;
        int64_t k = d->lit.i < 0 ? d->lit.i + m->ndim : d->lit.i;
        return k >= 0 && k < m->ndim ? dim_expr_text(&m->sizes[k]) : NULL;
    }
    if (strcmp(op_short_target(n->target), "aten.scalar_tensor.default") == 0) /* _assert_async's operand */
        return arg_expr(g, node_arg(n, 0), depth + 1);
    for (size_t f = 0; f < EP_ARRAY_LEN(BINARY_FORMS); f++) {
        if (BINARY_FORMS[f].id != n->op->id)
            continue;
        char *a = arg_expr(g, node_arg(n, 0), depth + 1), *b = arg_expr(g, node_arg(n, 1), depth + 1);
        char *r = a && b ? ep_xasprintf(BINARY_FORMS[f].fmt, a, b) : NULL;
        free(a);
        free(b);
        return r;
    }
    return NULL;
}

/* The expression of SymInt/SymBool value name, in SymPy's printing (new
** string): recorded, else rebuilt, else the name itself. */
static char *value_expr(const Guards *g, const char *name, int depth)
{
    char *rec = recorded_expr(g, name);
    if (rec)
        return rec;
    int i = producer_of(g, name);
    char *text = i >= 0 && depth < 64 ? rebuild(g, i, depth) : NULL;
    SymExpr *e = text ? sym_parse(text, NULL, 0) : NULL;
    free(text);
    char *out = e ? sym_to_string(e) : ep_xstrdup(name);
    sym_free(e);
    return out;
}

/* ---- where a symbol comes from -------------------------------------------------- */

/* The first user input dimension whose size is exactly sym (*d = -1: a
** SymInt input that is sym); with derived, else the first whose size
** mentions it.  -1 when none. */
static int input_of_symbol(const Guards *g, const char *sym, bool derived, int *d)
{
    for (int u = 0; u < g->ninputs; u++) {
        const UserInput *in = &g->inputs[u];
        if (in->kind == ARG_SYM_INT) {
            const SymDim *sd = strmap_get(&g->ep->graph.sym_int_values, in->name);
            const char *s = sd && sd->parsed ? sym_as_symbol(sd->parsed) : NULL;
            if (s && strcmp(s, sym) == 0) {
                *d = -1;
                return u;
            }
            continue;
        }
        for (int k = 0; in->meta && k < in->meta->ndim; k++) {
            const SymExpr *e = in->meta->sizes[k].is_expr ? in->meta->sizes[k].parsed : NULL;
            if (!e)
                continue;
            const char *s = sym_as_symbol(e);
            bool hit = s ? strcmp(s, sym) == 0 : false;
            if (!hit && derived) {
                const char *names[16];
                int ns = sym_symbols(e, names, 16);
                for (int j = 0; j < ns && j < 16; j++)
                    hit = hit || strcmp(names[j], sym) == 0;
            }
            if (hit) {
                *d = k;
                return u;
            }
        }
    }
    return -1;
}

/* The node whose output is sym: a SymInt recorded as the bare symbol, or a
** tensor with a dimension that is (item, nonzero, ...).  -1 if none. */
static int node_of_symbol(const Guards *g, const char *sym)
{
    const Graph *gr = &g->ep->graph;
    for (int i = 0; i < gr->nnodes; i++) {
        const Node *n = &gr->nodes[i];
        for (int k = 0; k < n->noutputs; k++) {
            const Arg *a = &n->outputs[k];
            int nitems = a->n ? a->n : 1;
            for (int j = 0; j < nitems; j++) {
                const char *ref = a->n ? a->items[j].ref : a->ref;
                if (!ref)
                    continue;
                const SymDim *sd = strmap_get(&gr->sym_int_values, ref);
                const char *s = sd && sd->parsed ? sym_as_symbol(sd->parsed) : NULL;
                if (s && strcmp(s, sym) == 0)
                    return i;
                const TensorMeta *m = graph_tensor_meta(gr, ref);
                for (int d = 0; m && d < m->ndim; d++) {
                    s = m->sizes[d].parsed ? sym_as_symbol(m->sizes[d].parsed) : NULL;
                    if (s && strcmp(s, sym) == 0)
                        return i;
                }
            }
        }
    }
    return -1;
}

static void range_of(const Guards *g, const char *sym, StrBuf *sb)
{
    int r = program_find_range(g->ep, sym);
    char buf[96];
    if (r >= 0)
        sb_printf(sb, "in %s", range_bounds_text(&g->ep->ranges[r], buf, sizeof buf));
    else
        sb_append(sb, "with no recorded range");
}

static void input_dim_name(const Guards *g, int u, int d, StrBuf *sb)
{
    if (d < 0)
        sb_append(sb, user_input_name(&g->inputs[u]));
    else
        sb_printf(sb, "%s.shape[%d]", user_input_name(&g->inputs[u]), d);
}

void guards_explain_symbol(const Guards *g, const char *sym, const SymBindings *b, StrBuf *sb)
{
    int64_t v;
    sb_printf(sb, "\n  %s", sym);
    if (b && sym_bindings_get(b, sym, &v))
        sb_printf(sb, " = %lld", (long long)v);
    int d, u = input_of_symbol(g, sym, false, &d);
    if (u >= 0) {
        sb_append(sb, ": ");
        input_dim_name(g, u, d, sb);
        sb_append(sb, ", a Dim of the export's dynamic_shapes, ");
        range_of(g, sym, sb);
        return;
    }
    if ((u = input_of_symbol(g, sym, true, &d)) >= 0) {
        char *e = dim_expr_text(&g->inputs[u].meta->sizes[d]);
        sb_append(sb, ": solved from ");
        input_dim_name(g, u, d, sb);
        sb_printf(sb, " = %s, ", e);
        range_of(g, sym, sb);
        free(e);
        return;
    }
    int i = node_of_symbol(g, sym);
    if (i >= 0) {
        sb_append(sb, ": unbacked, produced by ");
        node_label(g, i, sb);
        return;
    }
    sb_append(sb, ": in no input and made by no node of the graph");
}

void guards_explain_use(const Guards *g, int ui, int d, const char *expr, StrBuf *sb)
{
    index_graph(g);
    int i = (int)(intptr_t)strmap_get(&g->first_use, g->inputs[ui].name) - 1;
    if (i < 0)
        return;
    sb_append(sb, "\n  ");
    input_dim_name(g, ui, d, sb);
    sb_printf(sb, " = %s: the input is first used by ", expr);
    node_label(g, i, sb);
}

/* ---- the chain behind a value --------------------------------------------------- */

/* One line per node computing value name, its arguments' nodes below it. */
static void explain_chain(const Guards *g, const char *name, int indent, int *budget, StrBuf *sb)
{
    int i = producer_of(g, name);
    if (i < 0 || indent > 2 * CHAIN_DEPTH || *budget <= 0)
        return;
    (*budget)--;
    const Node *n = &g->ep->graph.nodes[i];
    sb_printf(sb, "\n%*s", indent, "");
    char *e = value_expr(g, name, 0);
    bool is_size = n->op && n->op->id == OP_SYM_SIZE_INT;
    const Arg *t = is_size ? node_arg(n, 0) : NULL, *dim = is_size ? node_arg(n, 1) : NULL;
    int u = t && t->ref ? user_input_of(g, t->ref) : -1;
    if (u >= 0 && dim && dim->lit.kind == V_INT)
        sb_printf(sb, "%s.shape[%lld] = ", user_input_name(&g->inputs[u]), (long long)dim->lit.i);
    sb_printf(sb, "%s: ", e);
    free(e);
    node_label(g, i, sb);
    if (u >= 0)
        return; /* a user input's size: the chain's root */
    for (int k = 0; k < n->ninputs; k++) {
        const Arg *a = &n->inputs[k].arg;
        if (a->ref)
            explain_chain(g, a->ref, indent + 2, budget, sb);
    }
}

/* ---- values ----------------------------------------------------------------------- */

/* The values of e's symbols: bound ones from b, others (a value standing
** for itself) from value(). */
static void collect_values(const SymExpr *e, const SymBindings *b, GuardValueFn value, void *ctx, SymBindings *out)
{
    int ns = sym_symbols(e, NULL, 0);
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(e, names, ns);
    for (int k = 0; k < ns; k++) {
        int64_t v;
        const Value *x = value ? value(ctx, names[k]) : NULL;
        if (b && sym_bindings_get(b, names[k], &v))
            sym_bindings_set(out, names[k], v);
        else if (x && (x->kind == V_INT || x->kind == V_BOOL))
            sym_bindings_set(out, names[k], x->kind == V_INT ? x->i : x->b);
    }
    free(names);
}

/* text with every bound symbol replaced by its value. */
static void subst_text(const char *text, const SymBindings *vals, StrBuf *sb)
{
    const char *p = text;
    while (*p) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            char name[128];
            int64_t v;
            size_t len = (size_t)(q - p);
            if (len < sizeof name) {
                memcpy(name, p, len);
                name[len] = '\0';
            }
            if (len < sizeof name && sym_bindings_get(vals, name, &v))
                sb_printf(sb, "%lld", (long long)v);
            else
                sb_appendn(sb, p, len);
            p = q;
        } else {
            sb_appendn(sb, p, 1);
            p++;
        }
    }
}

static void value_text(const SymValue *v, StrBuf *sb)
{
    if (v->kind == SYMV_BOOL)
        sb_append(sb, v->b ? "True" : "False");
    else if (v->kind == SYMV_FLOAT)
        sb_printf(sb, "%g", v->f);
    else
        sb_printf(sb, "%lld", (long long)v->i);
}

/* " with s0 = 6: Mod(6, 4) = 2": the symbols' values, then each operand of
** the node computing name that holds a symbol, substituted and evaluated. */
static void valued_detail(const Guards *g, const char *name, const SymExpr *e, const SymBindings *vals, StrBuf *sb)
{
    int ns = sym_symbols(e, NULL, 0);
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(e, names, ns);
    int shown = 0;
    for (int k = 0; k < ns; k++) {
        int64_t v;
        if (sym_bindings_get(vals, names[k], &v))
            sb_printf(sb, "%s%s = %lld", shown++ ? ", " : " with ", names[k], (long long)v);
    }
    free(names);
    int i = name ? producer_of(g, name) : -1;
    const Node *n = i >= 0 ? &g->ep->graph.nodes[i] : NULL;
    int nops = 0;
    for (int k = 0; n && k < n->ninputs && k < 2; k++) {
        const Arg *a = &n->inputs[k].arg;
        if (!a->ref)
            continue;
        char *t = value_expr(g, a->ref, 0);
        SymExpr *x = sym_parse(t, NULL, 0);
        SymValue out;
        const char *unbound;
        if (x && sym_symbols(x, NULL, 0) > 0 && !sym_as_symbol(x) && sym_eval(x, vals, &out, &unbound) == SYM_OK) {
            sb_append(sb, nops++ ? ", " : ": ");
            subst_text(t, vals, sb);
            sb_append(sb, " = ");
            value_text(&out, sb);
        }
        sym_free(x);
        free(t);
    }
}

/* ---- asserts ------------------------------------------------------------------------ */

static bool is_scalar_assert(const Node *n)
{
    return n->op && (n->op->id == OP_ASSERT_SCALAR || n->op->id == OP_FUNCTIONAL_ASSERT_SCALAR);
}

static bool is_range_assert(const Node *n)
{
    if (!n->op)
        return false;
    OpId id = n->op->id;
    return id == OP_SYM_CONSTRAIN_RANGE || id == OP_SYM_CONSTRAIN_RANGE_FOR_SIZE ||
           id == OP_FUNCTIONAL_SYM_CONSTRAIN_RANGE || id == OP_FUNCTIONAL_SYM_CONSTRAIN_RANGE_FOR_SIZE;
}

bool guards_is_assert(const Guards *g, int i)
{
    const Node *n = &g->ep->graph.nodes[i];
    if (!n->op)
        return false;
    OpId id = n->op->id;
    return is_scalar_assert(n) || is_range_assert(n) || id == OP_ASSERT_ASYNC || id == OP_ASSERT_ASYNC_MSG ||
           id == OP_FUNCTIONAL_ASSERT_ASYNC_MSG;
}

/* " (s0 in [4, 64], u0 with no recorded range)" */
static void ranges_text(const Guards *g, const SymExpr *e, StrBuf *sb)
{
    int ns = sym_symbols(e, NULL, 0);
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(e, names, ns);
    for (int k = 0; k < ns; k++) {
        sb_printf(sb, "%s%s ", k ? ", " : " (", names[k]);
        range_of(g, names[k], sb);
    }
    if (ns)
        sb_append(sb, ")");
    free(names);
}

/* Every symbol's origin, then the assert node and its chain. */
static void explain_assert(const Guards *g, int i, const char *operand, const SymExpr *e, const SymBindings *vals,
                           StrBuf *sb)
{
    int ns = sym_symbols(e, NULL, 0);
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(e, names, ns);
    for (int k = 0; k < ns; k++)
        if (producer_of(g, names[k]) < 0 || node_of_symbol(g, names[k]) >= 0) /* not a value named for itself */
            guards_explain_symbol(g, names[k], vals, sb);
    free(names);
    sb_append(sb, "\n  checked by ");
    node_label(g, i, sb);
    int budget = CHAIN_LINES;
    if (operand && producer_of(g, operand) >= 0) {
        sb_append(sb, ", computed by:");
        explain_chain(g, operand, 4, &budget, sb);
    }
}

EpStatus guards_check_asserts(const Guards *g, const SymBindings *b, EpError *err)
{
    for (int i = 0; i < g->ep->graph.nnodes; i++) {
        const Node *n = &g->ep->graph.nodes[i];
        const Arg *a = is_scalar_assert(n) ? node_arg(n, 0) : NULL;
        if (!a)
            continue;
        char *text = arg_expr(g, a, 0);
        SymExpr *e = text ? sym_parse(text, NULL, 0) : NULL;
        SymValue v;
        const char *unbound;
        /* only symbols the inputs bound: values named for themselves and
        ** unbacked symbols are the run's to check */
        if (e && sym_symbols(e, NULL, 0) > 0 && sym_eval(e, b, &v, &unbound) == SYM_OK &&
            (v.kind == SYMV_BOOL ? !v.b : v.kind == SYMV_INT ? v.i == 0 : v.f == 0)) {
            StrBuf sb;
            sb_init(&sb);
            int ns = sym_symbols(e, NULL, 0), named = 0;
            const char **names = ep_xmalloc((size_t)ns * sizeof *names);
            sym_symbols(e, names, ns);
            for (int k = 0; k < ns; k++) { /* "input x.shape[0] is 3 and y.shape[0] is 5" */
                int d, u = input_of_symbol(g, names[k], false, &d);
                int64_t val;
                if (u < 0 || !sym_bindings_get(b, names[k], &val))
                    continue;
                sb_append(&sb, named++ ? " and " : "input ");
                input_dim_name(g, u, d, &sb);
                sb_printf(&sb, " is %lld", (long long)val);
            }
            free(names);
            sb_append(&sb, named ? (named > 1 ? ", which fail" : ", which fails") : "the inputs fail");
            sb_append(&sb, " the program's in-graph check ");
            sb_append(&sb, text);
            ranges_text(g, e, &sb);
            valued_detail(g, a->ref, e, b, &sb);
            explain_assert(g, i, a->ref, e, b, &sb);
            ep_fail(err, EP_ERR_INPUT, "%s", sb.data);
            sb_free(&sb);
            sym_free(e);
            free(text);
            return EP_ERR_INPUT;
        }
        sym_free(e);
        free(text);
    }
    return EP_OK;
}

void guards_explain_failure(const Guards *g, int i, const SymBindings *b, GuardValueFn value, void *ctx,
                            EpError *err)
{
    const Node *n = &g->ep->graph.nodes[i];
    const Arg *a = node_arg(n, 0);
    char *text = a ? arg_expr(g, a, 0) : NULL;
    SymExpr *e = text ? sym_parse(text, NULL, 0) : NULL;
    if (!e) {
        free(text);
        return; /* nothing to add to the kernel's own message */
    }
    SymBindings vals;
    sym_bindings_init(&vals);
    collect_values(e, b, value, ctx, &vals);
    StrBuf sb;
    sb_init(&sb);
    const Arg *lo = node_arg_named(n, "min", 1), *hi = node_arg_named(n, "max", 2);
    SymValue v = {0};
    const char *unbound;
    bool have = sym_eval(e, &vals, &v, &unbound) == SYM_OK && v.kind == SYMV_INT;
    bool for_size = n->op && (n->op->id == OP_SYM_CONSTRAIN_RANGE_FOR_SIZE ||
                              n->op->id == OP_FUNCTIONAL_SYM_CONSTRAIN_RANGE_FOR_SIZE);
    /* a range node can also fail on its own bounds (max < min): that message stands */
    bool outside = have && ((lo && lo->lit.kind == V_INT && v.i < lo->lit.i) ||
                            (!(lo && lo->lit.kind == V_INT) && for_size && v.i < 0) ||
                            (hi && hi->lit.kind == V_INT && v.i > hi->lit.i));
    if (is_range_assert(n) && !outside) {
        sb_free(&sb);
    } else if (is_range_assert(n)) {
        sb_append(&sb, "Runtime assertion failed: ");
        if (lo && lo->lit.kind == V_INT)
            sb_printf(&sb, "%lld <= ", (long long)lo->lit.i);
        else if (for_size)
            sb_append(&sb, "0 <= ");
        sb_append(&sb, text);
        if (hi && hi->lit.kind == V_INT)
            sb_printf(&sb, " <= %lld", (long long)hi->lit.i);
    } else if (is_scalar_assert(n)) {
        sb_printf(&sb, "Runtime assertion failed: %s", text);
    } else {
        sb_printf(&sb, "Runtime assertion failed: %s, computed as %s", err->msg, text);
    }
    if (sb.data) {
        valued_detail(g, a->ref, e, &vals, &sb);
        explain_assert(g, i, a->ref, e, &vals, &sb);
        ep_fail(err, err->code ? err->code : EP_ERR_EXEC, "%s", sb.data);
        sb_free(&sb);
    }
    sym_bindings_free(&vals);
    sym_free(e);
    free(text);
}

/* ---- guards_code --------------------------------------------------------------- */

#define CODE_REFS 16 /* the sizes one guard's message names */

/* The bound inputs' sizes, and which of them a guard read. */
typedef struct CodeValues {
    const Value *inputs;
    int n;
    int nrefs;
    struct {
        int u, d;
        GuardRefKind kind;
        int64_t v;
    } refs[CODE_REFS];
} CodeValues;

static bool actual_value(void *ctx, int u, GuardRefKind kind, int d, int64_t *out)
{
    CodeValues *c = ctx;
    const Value *v = u >= 0 && u < c->n ? &c->inputs[u] : NULL;
    if (!v)
        return false;
    if (kind == GREF_VALUE && v->kind == V_INT)
        *out = v->i;
    else if (kind != GREF_VALUE && v->kind == V_TENSOR && d >= 0 && d < v->t->ndim)
        *out = kind == GREF_SIZE ? v->t->sizes[d] : v->t->strides[d];
    else
        return false;
    for (int k = 0; k < c->nrefs; k++)
        if (c->refs[k].u == u && c->refs[k].d == d && c->refs[k].kind == kind)
            return true;
    if (c->nrefs < CODE_REFS) {
        c->refs[c->nrefs].u = u;
        c->refs[c->nrefs].d = d;
        c->refs[c->nrefs].kind = kind;
        c->refs[c->nrefs++].v = *out;
    }
    return true;
}

/* "input x.shape[0] is 5 and y.shape[0] is 1" */
static void code_refs_text(const Guards *g, const CodeValues *c, StrBuf *sb)
{
    for (int k = 0; k < c->nrefs; k++) {
        const char *name = user_input_name(&g->inputs[c->refs[k].u]);
        sb_append(sb, k == 0 ? "input " : k == c->nrefs - 1 ? " and " : ", ");
        if (c->refs[k].kind == GREF_VALUE)
            sb_append(sb, name);
        else
            sb_printf(sb, "%s.%s[%d]", name, c->refs[k].kind == GREF_SIZE ? "shape" : "stride()", c->refs[k].d);
        sb_printf(sb, " is %lld", (long long)c->refs[k].v);
    }
    if (c->nrefs == 0)
        sb_append(sb, "the inputs");
}

/* The failure of guard i: its values, what PyTorch does, the condition over
** the recorded sizes and where its symbols come from. */
static EpStatus code_fail(const Guards *g, int i, const CodeValues *c, const char *valued, const char *outcome,
                          const SymBindings *b, EpError *err)
{
    const GuardCode *gc = &g->ep->guards_code[i];
    StrBuf sb;
    sb_init(&sb);
    code_refs_text(g, c, &sb);
    sb_printf(&sb, ", which %s the export's guard %s: %s%s%s", c->nrefs > 1 ? "fail" : "fails", gc->shown,
              valued ? valued : "", valued ? " " : "", outcome);
    sb_printf(&sb, "\n  it is guards_code[%d] of the archive, which ep.module() checks since PyTorch 2.9: PyTorch "
                   "refuses these inputs too (Guard failed: %s)", i, gc->shown);
    /* in Python, as the guard is written; the canonical form where it is
    ** the shorter (FloorDiv(5*s0, 5) != 1 is s0 != 1, but s0 < s1 is not
    ** clearer as s0 - s1 <= -1) */
    SymExpr *canon = sym_canon(gc->cond);
    char *raw = sym_to_python(gc->cond), *folded = canon ? sym_to_python(canon) : NULL;
    bool use_canon = folded && strlen(folded) < strlen(raw);
    sb_printf(&sb, "\n  over the recorded sizes it reads %s", use_canon ? folded : raw);
    free(raw);
    free(folded);
    const SymExpr *e = canon ? canon : gc->cond;
    int ns = sym_symbols(e, NULL, 0), shown = 0;
    const char **names = ep_xmalloc((size_t)(ns ? ns : 1) * sizeof *names);
    sym_symbols(e, names, ns);
    for (int k = 0; k < ns; k++) {
        int64_t v;
        if (b && sym_bindings_get(b, names[k], &v))
            sb_printf(&sb, "%s%s = %lld", shown++ ? ", " : " with ", names[k], (long long)v);
    }
    for (int k = 0; k < ns; k++)
        guards_explain_symbol(g, names[k], b, &sb);
    free(names);
    sym_free(canon);
    EpStatus rc = ep_fail(err, EP_ERR_INPUT, "%s", sb.data);
    sb_free(&sb);
    return rc;
}

EpStatus guards_check_code(const Guards *g, const Value *inputs, int n, const SymBindings *b, EpError *err)
{
    const ExportedProgram *ep = g->ep;
    SymBindings none;
    sym_bindings_init(&none);
    EpStatus rc = EP_OK;
    for (int i = 0; i < ep->nguards_code && rc == EP_OK; i++) {
        CodeValues c = {.inputs = inputs, .n = n};
        char why[256] = "", *valued = NULL;
        /* PyTorch evaluates the guard's Python on the inputs themselves:
        ** so does this, the references replaced by the actual sizes */
        SymExpr *e = guard_code_translate(ep, ep->guards_code[i].text, actual_value, &c, &valued, why, sizeof why);
        SymValue v = {0};
        const char *unbound;
        SymStatus st = e ? sym_eval(e, &none, &v, &unbound) : SYM_DOMAIN;
        if (!e) {
            char outcome[300];
            snprintf(outcome, sizeof outcome, "cannot be evaluated (%s)", why);
            rc = code_fail(g, i, &c, NULL, outcome, b, err);
        } else if (st != SYM_OK) {
            rc = code_fail(g, i, &c, valued, "is undefined (division by zero)", b, err);
        } else if (v.kind == SYMV_BOOL ? !v.b : v.kind == SYMV_INT ? v.i == 0 : v.f == 0) {
            rc = code_fail(g, i, &c, valued, "is False", b, err);
        }
        sym_free(e);
        free(valued);
    }
    sym_bindings_free(&none);
    return rc;
}
