/*
** hop.c -- higher-order ops: graph nodes that run subgraphs.
**
** One table (HOPS, at the end) names each op, the subgraphs its node must
** carry and the function that runs it.  Plan building looks a node's
** target up once (hop_lookup) and keeps the entry on the node's plan, with
** the plans of the subgraphs and slots for the results; the runtime calls
** the entry's run function as it calls a kernel.  So this file only runs
** things: it evaluates operands and runs subgraph plans (interp_run.c),
** and never builds a plan.
**
** Subgraphs are embedded in the node's arguments (as_graph); operands are
** evaluated in the caller's environment and bound positionally to the
** subgraph's inputs (pt2-format.md 2.11):
**   cond(pred, true_graph, false_graph, operands)
**   while_loop(cond_graph, body_graph, carried_inputs, additional_inputs)
**   map_impl(body_graph, xs, pos_args)      body over dim 0 of each xs, stacked
**   wrap_with_set_grad_enabled(enabled, graph, *args)    just runs graph
**   wrap_with_autocast(device, dtype, enabled, cache, graph, *args)
**   invoke_subgraph(graph, identifier, *operands)
*/
#include "interp_int.h"

#include <stdlib.h>
#include <string.h>

#define WHILE_LOOP_LIMIT 100000000 /* iterations: a bound so a bad model cannot hang us */

/* Evaluate operands[from..] and flatten lists into one array of values. */
static EpStatus gather_operands(const GraphPlan *gp, const NodePlan *np, int from, int to, const Value *env,
                                Value **out, int *n, EpError *err)
{
    *out = NULL;
    *n = 0;
    for (int k = from; k < to; k++) {
        Value v;
        EpStatus rc = arg_eval(gp, np->operands[k], env, &v, err);
        if (rc) {
            for (int i = 0; i < *n; i++)
                value_clear(&(*out)[i]);
            free(*out);
            return rc;
        }
        int count = v.kind == V_LIST ? v.list->n : 1;
        *out = ep_xrealloc(*out, (size_t)(*n + count + 1) * sizeof **out);
        if (v.kind == V_LIST) {
            for (int j = 0; j < count; j++) {
                (*out)[(*n)++] = v.list->items[j];
                v.list->items[j].kind = V_NONE;
            }
            value_clear(&v);
        } else {
            (*out)[(*n)++] = v;
        }
    }
    return EP_OK;
}

static void clear_values(Value *v, int n)
{
    for (int i = 0; i < n; i++)
        value_clear(&v[i]);
    free(v);
}

/* Truth of a predicate: a bool literal, a SymBool, or a one-element tensor. */
static EpStatus truth(const Value *v, bool *out, EpError *err)
{
    if (value_is_scalar(v)) {
        *out = value_as_f64(v) != 0;
        return EP_OK;
    }
    if (v->kind == V_TENSOR && tensor_numel(v->t) == 1) {
        *out = tensor_item_f64(v->t) != 0;
        return EP_OK;
    }
    return ep_fail(err, EP_ERR_EXEC, "a predicate must be a bool or a one-element tensor");
}

/* Move results into the node's output slots. */
static EpStatus store_results(const NodePlan *np, Value *env, Value *res, int nres, const char *what, EpError *err)
{
    if (nres != np->nout_slots) {
        clear_values(res, nres);
        return ep_fail(err, EP_ERR_EXEC, "%s produced %d values, the program expects %d", what, nres,
                       np->nout_slots);
    }
    for (int i = 0; i < nres; i++) {
        int s = np->out_slots[i];
        if (s >= 0) {
            value_clear(&env[s]);
            env[s] = res[i];
        } else {
            value_clear(&res[i]);
        }
    }
    free(res);
    return EP_OK;
}

static EpStatus run_sub(const GraphPlan *sub, Value *in, int nin, Value **out, int *nout, RunCtx *ctx, EpError *err)
{
    *nout = sub->g->noutputs;
    *out = ep_xcalloc((size_t)(*nout ? *nout : 1), sizeof **out);
    EpStatus rc = graph_run_sub(sub, in, nin, *out, ctx, err);
    if (rc) {
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    return rc;
}

/* Element i along dim 0 of t, as a view. */
static Tensor *select0(Tensor *t, int64_t i, EpError *err)
{
    return tensor_as_strided(t, t->ndim - 1, t->sizes + 1, t->strides + 1, t->offset + i * t->strides[0], err);
}

static EpStatus run_map(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env, RunCtx *ctx,
                       EpError *err)
{
    (void)n;
    /* operands: xs (a list), then pos_args (a list) */
    if (np->noperands < 1)
        return ep_fail(err, EP_ERR_EXEC, "map_impl without mapped inputs");
    Value *xs, *pos;
    int nxs, npos;
    EpStatus rc = gather_operands(gp, np, 0, 1, env, &xs, &nxs, err);
    if (rc)
        return rc;
    rc = gather_operands(gp, np, 1, np->noperands, env, &pos, &npos, err);
    if (rc) {
        clear_values(xs, nxs);
        return rc;
    }
    int64_t len = -1;
    for (int i = 0; i < nxs && rc == EP_OK; i++) {
        if (xs[i].kind != V_TENSOR || xs[i].t->ndim == 0)
            rc = ep_fail(err, EP_ERR_EXEC, "map_impl maps over tensors with a leading dimension");
        else if (len >= 0 && xs[i].t->sizes[0] != len)
            rc = ep_fail(err, EP_ERR_EXEC, "map_impl inputs differ in their leading size");
        else
            len = xs[i].t->sizes[0];
    }
    const GraphPlan *body = np->sub[0];
    int nres = body->g->noutputs;
    Value *steps = ep_xcalloc((size_t)((len > 0 ? len : 1) * (nres ? nres : 1)), sizeof *steps);
    Value *in = ep_xcalloc((size_t)(nxs + npos + 1), sizeof *in);
    for (int64_t i = 0; i < len && rc == EP_OK; i++) {
        for (int j = 0; j < nxs && rc == EP_OK; j++) {
            Tensor *t = select0(xs[j].t, i, err);
            if (!t)
                rc = EP_ERR_EXEC;
            else
                in[j] = value_tensor(t);
        }
        for (int j = 0; j < npos; j++)
            in[nxs + j] = pos[j];
        Value *out = NULL;
        int nout = 0;
        if (rc == EP_OK)
            rc = run_sub(body, in, nxs + npos, &out, &nout, ctx, err);
        for (int j = 0; j < nxs; j++)
            value_clear(&in[j]);
        for (int k = 0; k < nout; k++)
            steps[i * nres + k] = out[k];
        free(out);
    }
    free(in);
    Value *res = ep_xcalloc((size_t)(nres ? nres : 1), sizeof *res);
    const OpDef *stack = op_lookup("aten.stack.default");
    for (int k = 0; k < nres && rc == EP_OK; k++) {
        if (!stack) {
            rc = ep_fail(err, EP_ERR_EXEC, "map_impl needs aten.stack, which is not registered");
            break;
        }
        Value list = {.kind = V_LIST};
        list.list = value_list_new((int)(len > 0 ? len : 0));
        for (int64_t i = 0; i < len; i++) {
            list.list->items[i] = steps[i * nres + k];
            steps[i * nres + k].kind = V_NONE;
        }
        Value args[2] = {list, value_int(0)};
        OpCall call = {stack, args, 2, &res[k], 1, err, ctx->kcfg};
        rc = stack->fn(&call);
        value_clear(&list);
    }
    for (int64_t i = 0; i < (len > 0 ? len : 0) * nres; i++)
        value_clear(&steps[i]);
    free(steps);
    clear_values(xs, nxs);
    clear_values(pos, npos);
    if (rc) {
        clear_values(res, nres);
        return rc;
    }
    return store_results(np, env, res, nres, "map_impl", err);
}

static EpStatus run_while(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env, RunCtx *ctx,
                         EpError *err)
{
    (void)n;
    Value *carried, *extra;
    int nc, ne;
    EpStatus rc = gather_operands(gp, np, 0, 1, env, &carried, &nc, err);
    if (rc)
        return rc;
    rc = gather_operands(gp, np, 1, np->noperands, env, &extra, &ne, err);
    if (rc) {
        clear_values(carried, nc);
        return rc;
    }
    Value *in = ep_xcalloc((size_t)(nc + ne + 1), sizeof *in);
    for (long iter = 0; rc == EP_OK; iter++) {
        if (iter >= WHILE_LOOP_LIMIT) {
            rc = ep_fail(err, EP_ERR_EXEC, "while_loop ran %d iterations without its condition turning false",
                         WHILE_LOOP_LIMIT);
            break;
        }
        for (int j = 0; j < nc; j++)
            in[j] = carried[j];
        for (int j = 0; j < ne; j++)
            in[nc + j] = extra[j];
        Value *c = NULL;
        int ncond = 0;
        rc = run_sub(np->sub[0], in, nc + ne, &c, &ncond, ctx, err);
        bool go = false;
        if (rc == EP_OK)
            rc = ncond == 1 ? truth(&c[0], &go, err)
                            : ep_fail(err, EP_ERR_EXEC, "while_loop condition returned %d values", ncond);
        if (c)
            clear_values(c, ncond);
        if (rc || !go)
            break;
        Value *next = NULL;
        int nnext = 0;
        rc = run_sub(np->sub[1], in, nc + ne, &next, &nnext, ctx, err);
        if (rc)
            break;
        if (nnext != nc) {
            clear_values(next, nnext);
            rc = ep_fail(err, EP_ERR_EXEC, "while_loop body returned %d values for %d carried", nnext, nc);
            break;
        }
        for (int j = 0; j < nc; j++) {
            value_clear(&carried[j]);
            carried[j] = next[j];
        }
        free(next);
    }
    free(in);
    clear_values(extra, ne);
    if (rc) {
        clear_values(carried, nc);
        return rc;
    }
    return store_results(np, env, carried, nc, "while_loop", err);
}

/* Run subgraph sub on operands[first..] and store its results as the
** node's. */
static EpStatus run_region(const GraphPlan *gp, const Node *n, const NodePlan *np, const GraphPlan *sub,
                           int first, Value *env, RunCtx *ctx, EpError *err)
{
    Value *ops = NULL, *res = NULL;
    int nops = 0, nres = 0;
    EpStatus rc = gather_operands(gp, np, first, np->noperands, env, &ops, &nops, err);
    if (rc)
        return rc;
    rc = run_sub(sub, ops, nops, &res, &nres, ctx, err);
    clear_values(ops, nops);
    if (rc)
        return rc;
    return store_results(np, env, res, nres, op_short_target(n->target), err);
}

/* cond(pred, true_graph, false_graph, operands) */
static EpStatus run_cond(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env, RunCtx *ctx,
                         EpError *err)
{
    if (np->noperands < 1)
        return ep_fail(err, EP_ERR_EXEC, "cond without a predicate");
    Value pred;
    bool b = false;
    EpStatus rc = arg_eval(gp, np->operands[0], env, &pred, err);
    if (rc == EP_OK)
        rc = truth(&pred, &b, err);
    value_clear(&pred);
    if (rc)
        return rc;
    return run_region(gp, n, np, np->sub[b ? 0 : 1], 1, env, ctx, err);
}

static EpStatus run_wrap_grad(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env, RunCtx *ctx,
                              EpError *err)
{
    /* operand 0 is the grad-mode flag: inference ignores it */
    return run_region(gp, n, np, np->sub[0], 1, env, ctx, err);
}

static EpStatus run_wrap_autocast(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env, RunCtx *ctx,
                                  EpError *err)
{
    /* device_type, dtype, enabled, cache_enabled, then the operands;
    ** epdbg runs the region in the program's own dtypes */
    return run_region(gp, n, np, np->sub[0], np->noperands >= 4 ? 4 : np->noperands, env, ctx, err);
}

static EpStatus run_invoke_subgraph(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env,
                                    RunCtx *ctx, EpError *err)
{
    /* the identifier string comes first when present */
    int first = np->noperands > 0 && np->operands[0]->kind == ARG_STRING ? 1 : 0;
    return run_region(gp, n, np, np->sub[0], first, env, ctx, err);
}

static const HopDef HOPS[] = {
    {"cond", 2, run_cond},
    {"while_loop", 2, run_while},
    {"map_impl", 1, run_map},
    {"wrap_with_set_grad_enabled", 1, run_wrap_grad},
    {"wrap_with_autocast", 1, run_wrap_autocast},
    {"invoke_subgraph", 1, run_invoke_subgraph},
};

const HopDef *hop_lookup(const char *target)
{
    const char *t = op_short_target(target);
    if (strncmp(t, "higher_order.", 13) != 0)
        return NULL;
    t += 13;
    for (size_t i = 0; i < EP_ARRAY_LEN(HOPS); i++)
        if (strcmp(t, HOPS[i].name) == 0)
            return &HOPS[i];
    return NULL;
}
