/*
** interp_int.h -- the interpreter's private structures, shared by its four
** files, which call one another in one direction only:
**
**   interp.c       binding, stepping, history      -> plan, run
**   interp_plan.c  Graph -> GraphPlan (slots, argument templates, frees,
**                  subgraph plans of higher-order ops)  -> hop (the table)
**   hop.c          the higher-order ops' table and run functions -> run
**   interp_run.c   executing a node, evaluating arguments, running a
**                  subgraph (calls a higher-order op through the pointer
**                  its plan holds, as it calls kernels through OpDef->fn)
*/
#ifndef EP_INTERP_INT_H
#define EP_INTERP_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "interp.h"

typedef struct GraphPlan GraphPlan;
typedef struct NodePlan NodePlan;
typedef struct RunCtx RunCtx;

/* At run time, copy env[slot] into *dst before the kernel call.  FIX_WRAP:
** the schema wants a Tensor where the graph passes a SymInt/SymFloat, so a
** 0-d wrapped-number tensor is made for the call and dropped after it. */
typedef enum FixMode { FIX_COPY, FIX_WRAP } FixMode;

typedef struct Fixup {
    Value *dst;
    int slot;
    FixMode mode;
} Fixup;

/* Where schema return k goes: one slot (or -1 to drop), or for a Tensor[]
** return a list of slots. */
typedef struct OutBind {
    int slot;
    int nlist;      /* > 0 (or is_list): list_slots holds one slot per element */
    bool is_list;
    int *list_slots;
} OutBind;

/* Bind a symbol from a value the node produces: a SymInt output that is a
** bare symbol (u0 from item()), or a tensor output dimension (u1 from the
** size of nonzero()). */
typedef struct SymLearn {
    int slot;
    int dim;         /* -1: the SymInt value itself */
    const char *symbol;
} SymLearn;

/* Run a higher-order-op node n (its plan np, in graph gp) against env:
** evaluate its operands, run its subgraph plans, store its results. */
typedef EpStatus (*HopRunFn)(const GraphPlan *gp, const Node *n, const NodePlan *np, Value *env, RunCtx *ctx,
                             EpError *err);

/* One higher-order op (hop.c's table): its name after "higher_order.",
** how many subgraphs its node must carry, and how it runs. */
typedef struct HopDef {
    const char *name;
    int nsubgraphs;
    HopRunFn run;
} HopDef;

struct NodePlan {
    const OpDef *op;
    Value *args;      /* template in schema order (owned), refs filled by fixups */
    int nargs;
    Fixup *fix;
    int nfix;
    OutBind *outs;
    int nouts;
    int *frees;       /* slots whose last use is this node */
    int nfrees;
    SymLearn *learn;
    int nlearn;
    char *problem;    /* why this node cannot run, or NULL */
    int *mut_slots;   /* slots of the tensors the op writes into (Tensor(a!)) */
    int nmut;
    /* higher-order ops */
    const HopDef *hop; /* NULL for an ordinary op */
    GraphPlan **sub;  /* subgraph plans in argument order */
    int nsub;
    Arg **operands;   /* the non-graph arguments, flattened, in order */
    int noperands;
    int *out_slots;   /* HOP results: one slot per node output element (-1 drop) */
    int nout_slots;
};

struct GraphPlan {
    const Graph *g;
    StrMap slot_of;     /* name -> (void *)(intptr_t)(slot + 1) */
    int nslots;
    int *input_slots;   /* per graph input: its slot, or -1 */
    NodePlan *nodes;
    int nnodes;
};

/* Context shared by all frames of one run. */
struct RunCtx {
    const KernelConfig *kcfg;
    SymBindings *syms;
    bool keep_values;
    int depth;          /* subgraph nesting, bounded */
    /* symbols the last node bound for the first time (for undoing it):
    ** as many as the node binds, so the array grows.  It belongs to one
    ** context: a copy (interp_eval_node) starts its own, since growing a
    ** shared one would leave the other holding a freed pointer. */
    const char **new_syms;
    int n_new_syms, cap_new_syms;
    /* The profiler seam (interp.h): the per-node hooks (NULL: none, the
    ** common case, tested once per node), and the node now executing,
    ** written only by graph_run_node.  interp_eval_node runs on a copy of
    ** the context without hooks, so its writes land in the copy's slot. */
    const InterpHooks *hooks;
    _Atomic(const Node *) now;
    _Atomic(const Node *) now_top; /* the node of the program's graph now executing */
};

/* The slot of a value name in gp, or -1.  Inline so the runtime
** (interp_run.c) reads plans without calling back into plan building. */
static inline int graph_plan_slot(const GraphPlan *gp, const char *name)
{
    intptr_t v = (intptr_t)strmap_get(&gp->slot_of, name);
    return v ? (int)v - 1 : -1;
}

/* ---- interp_plan.c ---- */

/* Build the plan of a graph (recursively for subgraphs).  Problems with a
** node are recorded on its plan, not returned; errors are structural. */
GraphPlan *graph_plan_new(const Graph *g, EpError *err);
void graph_plan_free(GraphPlan *gp);

/* The slots node i of gp writes its results to (up to max; returns the
** count, which may exceed max). */
int graph_node_output_slots(const GraphPlan *gp, int i, int *slots, int max);

/* ---- hop.c ---- */

/* The higher-order op a node target names ("torch.ops.higher_order.cond"),
** or NULL when it is not one epdbg knows. */
const HopDef *hop_lookup(const char *target);

/* ---- interp_run.c ---- */

/* Execute node i of gp with env (gp->nslots values): the one place every
** node runs, so it maintains ctx->now and fires ctx->hooks. */
EpStatus graph_run_node(const GraphPlan *gp, int i, Value *env, RunCtx *ctx, EpError *err);
/* Evaluate an argument (literal or reference) against env into an owned
** Value. */
EpStatus arg_eval(const GraphPlan *gp, const Arg *a, const Value *env, Value *out, EpError *err);

/* Run a whole subgraph on positional inputs (borrowed); outputs are new
** owned values, one per graph output. */
EpStatus graph_run_sub(const GraphPlan *gp, const Value *inputs, int ninputs, Value *outputs, RunCtx *ctx,
                       EpError *err);

#endif
