/*
** interp_run.c -- executing plans: one node (its kernel, or its
** higher-order op through the table entry its plan holds), an argument
** against an environment, a whole subgraph.
**
** graph_run_node is the single place any node runs -- top-level nodes from
** interp_step, subgraph nodes from graph_run_sub -- so it is where the
** profiler seam lives (interp.h): it keeps RunCtx.now on the node
** executing and calls the hooks around it.
*/
#include "interp_int.h"

#include <stdlib.h>

#include "srcinfo.h"

static EpStatus store_output(Value *env, int slot, Value *v)
{
    if (slot < 0) {
        value_clear(v);
        return EP_OK;
    }
    value_clear(&env[slot]);
    env[slot] = *v;
    v->kind = V_NONE;
    return EP_OK;
}

static void learn_symbols(const NodePlan *np, const Value *env, RunCtx *ctx)
{
    for (int i = 0; i < np->nlearn; i++) {
        const SymLearn *l = &np->learn[i];
        if (l->slot < 0)
            continue;
        const Value *v = &env[l->slot];
        int64_t x;
        if (l->dim < 0 && v->kind == V_INT)
            x = v->i;
        else if (l->dim >= 0 && v->kind == V_TENSOR && l->dim < v->t->ndim)
            x = v->t->sizes[l->dim];
        else
            continue;
        int64_t old;
        if (!sym_bindings_get(ctx->syms, l->symbol, &old)) {
            sym_bindings_set(ctx->syms, l->symbol, x);
            if (ctx->n_new_syms == ctx->cap_new_syms) {
                ctx->cap_new_syms = ctx->cap_new_syms ? 2 * ctx->cap_new_syms : 16;
                ctx->new_syms = ep_xrealloc(ctx->new_syms, (size_t)ctx->cap_new_syms * sizeof *ctx->new_syms);
            }
            ctx->new_syms[ctx->n_new_syms++] = l->symbol;
        }
    }
}

/* An ordinary node: fill the argument template from env, call the kernel,
** move its results into their slots. */
static EpStatus run_kernel(const Node *n, const NodePlan *np, Value *env, RunCtx *ctx, EpError *err)
{
    for (int f = 0; f < np->nfix; f++) {
        const Fixup *fx = &np->fix[f];
        const Value *v = &env[fx->slot];
        if (v->kind == V_NONE) {
            /* a value used before it exists: only a corrupt graph (or
            ** a freed value) gets here */
            return ep_fail(err, EP_ERR_EXEC, "an input of %s has no value (used before it is computed)", n->name);
        }
        if (fx->mode == FIX_WRAP) {
            Tensor *t = value_wrap_number(v, err);
            if (!t)
                return EP_ERR_EXEC;
            fx->dst->kind = V_TENSOR;
            fx->dst->t = t;
        } else {
            *fx->dst = *v;
        }
    }
    Value outs[OP_MAX_RETS];
    for (int k = 0; k < np->nouts; k++) /* a kernel writes only its nouts */
        outs[k].kind = V_NONE;
    OpCall call = {np->op, np->args, np->nargs, outs, np->nouts, err, ctx->kcfg};
    EpStatus rc = np->op->fn(&call);
    for (int f = 0; f < np->nfix; f++)
        if (np->fix[f].mode == FIX_WRAP) {
            tensor_unref(np->fix[f].dst->t);
            np->fix[f].dst->t = NULL;
        }
    if (rc == EP_OK) {
        for (int k = 0; k < np->nouts; k++) {
            const OutBind *ob = &np->outs[k];
            if (!ob->is_list) {
                store_output(env, ob->slot, &outs[k]);
                continue;
            }
            if (outs[k].kind != V_LIST || outs[k].list->n != ob->nlist) {
                int got = outs[k].kind == V_LIST ? outs[k].list->n : 1;
                for (int j = k; j < np->nouts; j++)
                    value_clear(&outs[j]);
                return ep_fail(err, EP_ERR_EXEC, "%s returned %d tensors where the program expects %d",
                               np->op->target, got, ob->nlist);
            }
            for (int j = 0; j < ob->nlist; j++)
                store_output(env, ob->list_slots[j], &outs[k].list->items[j]);
            value_clear(&outs[k]);
        }
    } else {
        for (int k = 0; k < np->nouts; k++)
            value_clear(&outs[k]);
    }
    return rc;
}

/* What executing node i is, without the seam around it. */
static EpStatus run_node_body(const GraphPlan *gp, int i, Value *env, RunCtx *ctx, EpError *err)
{
    const NodePlan *np = &gp->nodes[i];
    const Node *n = &gp->g->nodes[i];
    if (np->problem)
        return ep_fail(err, EP_ERR_EXEC, "%s", np->problem);
    EpStatus rc = np->hop ? np->hop->run(gp, n, np, env, ctx, err) : run_kernel(n, np, env, ctx, err);
    if (rc)
        return rc;
    learn_symbols(np, env, ctx);
    if (!ctx->keep_values)
        for (int k = 0; k < np->nfrees; k++)
            value_clear(&env[np->frees[k]]);
    return EP_OK;
}

EpStatus graph_run_node(const GraphPlan *gp, int i, Value *env, RunCtx *ctx, EpError *err)
{
    const Node *n = &gp->g->nodes[i];
    /* relaxed is enough: the only concurrent reader is a signal handler on
    ** this thread, and a Node never changes while the program is open */
    const Node *outer = atomic_load_explicit(&ctx->now, memory_order_relaxed);
    atomic_store_explicit(&ctx->now, n, memory_order_relaxed);
    if (ctx->depth == 0)
        atomic_store_explicit(&ctx->now_top, n, memory_order_relaxed);
    /* one call site for the body, so it is inlined here and a run without
    ** hooks pays only the two tests of h */
    const InterpHooks *h = ctx->hooks;
    InterpNodeRef ref;
    if (h) {
        ref = (InterpNodeRef){n, i, gp->g, ctx->depth};
        if (h->enter)
            h->enter(h->ud, &ref);
    }
    EpStatus rc = run_node_body(gp, i, env, ctx, err);
    if (h && h->leave)
        h->leave(h->ud, &ref, rc);
    atomic_store_explicit(&ctx->now, outer, memory_order_relaxed);
    if (ctx->depth == 0)
        atomic_store_explicit(&ctx->now_top, NULL, memory_order_relaxed);
    return rc;
}

EpStatus arg_eval(const GraphPlan *gp, const Arg *a, const Value *env, Value *out, EpError *err)
{
    out->kind = V_NONE;
    switch (a->kind) {
    case ARG_NONE:
        return EP_OK;
    case ARG_TENSOR:
    case ARG_SYM_INT:
    case ARG_SYM_FLOAT:
    case ARG_SYM_BOOL: {
        int s = graph_plan_slot(gp, a->ref);
        if (s < 0 || env[s].kind == V_NONE)
            return ep_fail(err, EP_ERR_EXEC, "value '%s' has not been computed", a->ref);
        *out = value_copy(&env[s]);
        return EP_OK;
    }
    case ARG_INT:
    case ARG_FLOAT:
    case ARG_BOOL:
    case ARG_STRING:
        *out = value_copy(&a->lit);
        return EP_OK;
    case ARG_SCALAR_TYPE:
        out->kind = V_DTYPE;
        out->i = dtype_from_scalar_type((int)a->lit.i);
        return EP_OK;
    case ARG_OPT_TENSOR:
        return arg_eval(gp, &a->items[0], env, out, err);
    case ARG_TENSORS:
    case ARG_OPT_TENSORS:
    case ARG_INTS:
    case ARG_FLOATS:
    case ARG_BOOLS:
    case ARG_STRINGS:
    case ARG_SYM_INTS:
    case ARG_SYM_FLOATS:
    case ARG_SYM_BOOLS: {
        ValueList *l = value_list_new(a->n);
        for (int j = 0; j < a->n; j++) {
            EpStatus rc = arg_eval(gp, &a->items[j], env, &l->items[j], err);
            if (rc) {
                Value tmp = {.kind = V_LIST};
                tmp.list = l;
                value_clear(&tmp);
                return rc;
            }
        }
        out->kind = V_LIST;
        out->list = l;
        return EP_OK;
    }
    default:
        return ep_fail(err, EP_ERR_EXEC, "cannot evaluate an argument of kind %s", arg_kind_name(a->kind));
    }
}

#define MAX_SUBGRAPH_DEPTH 64

EpStatus graph_run_sub(const GraphPlan *gp, const Value *inputs, int ninputs, Value *outputs, RunCtx *ctx,
                       EpError *err)
{
    const Graph *g = gp->g;
    if (ninputs != g->ninputs)
        return ep_fail(err, EP_ERR_EXEC, "a subgraph taking %d inputs was given %d", g->ninputs, ninputs);
    if (ctx->depth >= MAX_SUBGRAPH_DEPTH)
        return ep_fail(err, EP_ERR_EXEC, "subgraphs nested deeper than %d", MAX_SUBGRAPH_DEPTH);
    Value *env = ep_xcalloc((size_t)(gp->nslots ? gp->nslots : 1), sizeof *env);
    for (int i = 0; i < ninputs; i++)
        if (gp->input_slots[i] >= 0)
            env[gp->input_slots[i]] = value_copy(&inputs[i]);
    ctx->depth++;
    bool keep = ctx->keep_values;
    ctx->keep_values = false; /* subgraph internals are not inspectable */
    EpStatus rc = EP_OK;
    for (int i = 0; i < gp->nnodes && rc == EP_OK; i++) {
        rc = graph_run_node(gp, i, env, ctx, err);
        if (rc) {
            char where[512];
            const Node *n = &g->nodes[i];
            const char *src = source_user_location(n->meta.stack_trace, where, sizeof where);
            ep_error_prefix(err, "in subgraph node '%s' (%s)%s%s", n->name, op_short_target(n->target),
                            src ? " at " : "", src ? src : "");
        }
    }
    ctx->keep_values = keep;
    ctx->depth--;
    int nout = 0;
    for (int k = 0; k < g->noutputs && rc == EP_OK; k++, nout++)
        rc = arg_eval(gp, &g->outputs[k], env, &outputs[k], err);
    if (rc)
        for (int k = 0; k < nout; k++)
            value_clear(&outputs[k]);
    for (int s = 0; s < gp->nslots; s++)
        value_clear(&env[s]);
    free(env);
    return rc;
}
