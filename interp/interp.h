/*
** interp.h -- the stepping interpreter over an exported graph.
**
** All state lives in one Interp: the prepared plan of every node (arguments
** bound to the op's schema once, at creation), the environment of live
** values, the program counter and the symbol bindings of the run.  A front
** end (batch, TUI, `epdbg run`) binds inputs, then steps node by node or
** runs to a stop condition, and reads values, nodes and metadata through
** the functions below; nothing needs to reach inside.
**
**   Interp *ip = interp_new(model, &opts, &err);
**   interp_bind(ip, inputs, n, &err);        (or interp_bind_sample_inputs)
**   while (!interp_finished(ip)) interp_step(ip, &err);
**   interp_user_output(ip, 0) ...
*/
#ifndef EP_INTERP_H
#define EP_INTERP_H

#include "archive.h"

typedef struct Interp Interp;

typedef struct InterpOptions {
    /* Keep every intermediate alive (a debugger inspecting past values);
    ** otherwise each is freed after its last use. */
    bool keep_values;
    /* Also record an undo log so the run can step backwards (time travel):
    ** for each executed node its outputs, the bytes its in-place writes
    ** replaced, and the symbols it bound.  Implies keep_values. */
    bool history;
    KernelConfig kernels;
} InterpOptions;

extern const InterpOptions INTERP_OPTIONS_DEFAULT;

/* What a user input is, for messages and for `epdbg info`. */
typedef struct UserInput {
    const char *name;       /* placeholder name */
    char *arg_name;         /* the user's forward argument name when the archive
                            ** records one that differs (2.2-era dynamo names
                            ** placeholders l_x_; a keyword argument's key),
                            ** else NULL; see pytree_arg_names */
    ArgKind kind;           /* ARG_TENSOR, ARG_SYM_INT, ARG_SYM_FLOAT, ARG_SYM_BOOL, ... */
    const TensorMeta *meta; /* tensors: dtype and symbolic shape (may be NULL) */
    int spec_index;         /* index in the program's input specs */
} UserInput;

/* The name a user calls input u by: the forward's argument where the
** archive records one (x), else the graph's placeholder. */
static inline const char *user_input_name(const UserInput *u)
{
    return u->arg_name ? u->arg_name : u->name;
}

/* Prepare model's program for running.  Nodes whose op epdbg lacks, or
** whose arguments do not fit the op's schema, are recorded (see
** interp_check_supported) and fail only when executed. */
Interp *interp_new(Model *model, const InterpOptions *opt, EpError *err);
void interp_free(Interp *ip); /* NULL ok */

const Model *interp_model(const Interp *ip);
int interp_num_user_inputs(const Interp *ip);
const UserInput *interp_user_input(const Interp *ip, int i);
/* The user input a user calls name: its placeholder (l_x_) or its argument
** name (x); -1 if none.  Every command naming an input (run --input, set,
** print, watch, display, ...) looks it up here, so all take both. */
int interp_find_user_input(const Interp *ip, const char *name);
/* One line per user input: "x: float32[s0, 3] (s0 in [2, 1024]; 0 and 1
** also accepted at run time, as PyTorch does)", "n: SymInt = s1 (...)". */
char *interp_describe_inputs(const Interp *ip);
/* A graph value (an output, say): the recorded dtype and symbolic shape of
** a tensor, "float32[s0, 4]"; "SymInt = 5*s77 (s77 in [0, inf])" for a
** SymInt; else the argument as written ("%x").  New string. */
char *interp_describe_value(const Interp *ip, const Arg *a);

/* Fail (EP_ERR_EXEC) naming the first node that cannot run and how many
** others cannot; EP_OK when every node has a kernel and well-formed args. */
EpStatus interp_check_supported(const Interp *ip, EpError *err);
/* "node 12 'add_3' (aten.add.Tensor) at model.py:35 in forward: x + y"
** (new string), as error messages name nodes. */
char *interp_describe_node(const Interp *ip, int i);
/* Why node i cannot run, or NULL. */
const char *interp_node_problem(const Interp *ip, int i);

/* Bind the user inputs (in signature order; tensors referenced, not
** copied) and check them as the exported program's guards do: count, rank,
** static dims, symbolic dims consistent across inputs, range constraints,
** dtypes and specialised constants.  A violation is EP_ERR_INPUT with a
** message naming the input and dimension.  Resets the run to node 0. */
EpStatus interp_bind(Interp *ip, const Value *inputs, int n, EpError *err);
/* interp_bind on full copies of inputs (value_clone): a program that
** mutates a user input writes into the copy, so the caller's values stay
** as given (for a replay file, a restart, a second run).  Memory running
** out is EP_ERR_EXEC. */
EpStatus interp_bind_copy(Interp *ip, const Value *inputs, int n, EpError *err);
/* Same with the archive's stored example inputs (EP_ERR_USAGE when the
** archive has none: the message lists the inputs the program takes, and
** the caller says how to give them). */
EpStatus interp_bind_sample_inputs(Interp *ip, EpError *err);
/* The sample inputs as Values (new array; caller clears each and frees). */
EpStatus interp_sample_inputs(const Interp *ip, Value **vals, int *n, EpError *err);

/* Execute the node at the program counter and advance.  On failure the
** message names the node, its target and the innermost source frame, and
** the program counter stays on the failing node. */
EpStatus interp_step(Interp *ip, EpError *err);
/* Step until the end; then the mutations of the graph signature (buffers,
** user inputs) are applied. */
EpStatus interp_run(Interp *ip, EpError *err);

/* Undo the last executed node (or the end-of-run mutations when the run
** has finished): its outputs vanish, what it wrote in place is restored, the
** program counter moves back.  Needs the history option; EP_ERR_USAGE at
** the start of the run. */
EpStatus interp_step_back(Interp *ip, EpError *err);
/* How many steps interp_step_back can undo. */
int interp_history_len(const Interp *ip);

/* Whether node i writes into one of its inputs (an in-place op). */
bool interp_node_mutates(const Interp *ip, int i);
/* Replace the value called name (a placeholder or a node output) with v
** (stolen): what a debugger's `set` does before continuing. */
EpStatus interp_set_value(Interp *ip, const char *name, Value v, EpError *err);

/* Evaluate node i once more, off the record: the run's values, program
** counter, symbols and history are untouched.  Each input the node reads
** comes from subst(ctx, name) when that returns non-NULL (borrowed), else
** from the run's current value.  Tensors the op writes in place are copied
** first, so the run's own never change.  The node's outputs, in the order
** of interp_node_output_name, go to outs (owned by the caller, up to max;
** *nouts is the node's output count).  A numerics check runs a node in
** float64 this way; `compare` feeds it reference values. */
typedef const Value *(*ValueSubst)(void *ctx, const char *name);
EpStatus interp_eval_node(Interp *ip, int i, ValueSubst subst, void *ctx, Value *outs, int max, int *nouts,
                          EpError *err);

/* ---- the profiler seam ----------------------------------------------------
**
** The interpreter tells observers (profiler/, the session's timing) which
** node runs, two ways, both fed from the one place every node executes:
**
**   - hooks, called around each node: enter before it runs, leave after
**     it ran or failed (with its status), properly nested -- a
**     higher-order node (cond, while_loop, map_impl, ...) is entered, then
**     its subgraph nodes are entered and left, once per execution, in
**     execution order (a while_loop body once per iteration), then the
**     higher-order node is left.  Every enter is matched by one leave.
**   - the "now" slot: the node executing at this instant, innermost first
**     (a subgraph node while it runs, its higher-order node again after),
**     NULL when none runs.  A signal handler on the interpreting thread
**     (a sampling profiler's SIGPROF) reads it with
**     atomic_load_explicit(slot, memory_order_relaxed).
**
** interp_eval_node (off-the-record evaluation, numerics) fires no hook and
** leaves the slot as the run set it.  With no hooks set a node costs one
** predictable branch more, and two relaxed stores for the slot. */

/* A node as the hooks see it (valid during the call only). */
typedef struct InterpNodeRef {
    const Node *node;   /* the node (borrowed from the program) */
    int index;          /* its index in graph->nodes */
    const Graph *graph; /* the graph holding it: the program's, or a subgraph */
    int depth;          /* 0: the program's graph; 1: a subgraph of one of its nodes; ... */
} InterpNodeRef;

/* Called on the interpreting thread, around every node executed by
** interp_step/interp_run (subgraph nodes included).  A hook must not
** step, bind, free or re-hook the interpreter; either pointer may be NULL. */
typedef struct InterpHooks {
    void (*enter)(void *ud, const InterpNodeRef *n);
    void (*leave)(void *ud, const InterpNodeRef *n, EpStatus rc); /* rc: EP_OK or why the node failed */
    void *ud;           /* passed back to both */
} InterpHooks;

/* Install hooks (copied; NULL, or both functions NULL, removes them).  One
** set at a time: a later call replaces the earlier.  Not from inside a hook. */
void interp_set_hooks(Interp *ip, const InterpHooks *hooks);
/* The hooks installed now (all NULL when none): a profiler keeps them to
** call them on and to put them back. */
InterpHooks interp_hooks(const Interp *ip);

/* The address of the "now" slot, stable for ip's lifetime. */
const _Atomic(const Node *) *interp_now_slot(const Interp *ip);
/* The same for the node of the program's graph executing (a higher-order
** node while its subgraphs run), NULL when none: what a sampler charges
** a sample to, with no map from subgraph nodes to their callers. */
const _Atomic(const Node *) *interp_now_top_slot(const Interp *ip);

/* A tensor alive in the run (interp_live_tensors). */
typedef struct InterpLiveTensor {
    const char *name;   /* the graph value holding it (borrowed) */
    const Tensor *t;    /* borrowed */
    int64_t bytes;      /* of its storage */
} InterpLiveTensor;

/* The largest tensors the run holds now among the user inputs and the
** nodes' outputs of the program's graph, whose storage epdbg allocated
** (views of the archive's weights do not count), each storage once,
** largest first: up to max into out.  Returns how many.  A profiler calls
** it where memory peaks; it allocates, so not from a signal handler. */
int interp_live_tensors(const Interp *ip, InterpLiveTensor *out, int max);

bool interp_bound(const Interp *ip);
bool interp_finished(const Interp *ip);
int interp_pc(const Interp *ip);           /* index of the next node */
int interp_num_nodes(const Interp *ip);
const Node *interp_node(const Interp *ip, int i);
const ExportedProgram *interp_program(const Interp *ip);

/* The current value called name (a placeholder, a node output), or NULL
** when it does not exist, has not been computed, or was freed. */
const Value *interp_value(const Interp *ip, const char *name);
/* The values node i reads and writes, by position: its inputs are the
** references among its arguments in order (tensors and SymInts, lists
** flattened: in0, in1, ...), its outputs the names it defines (out0, ...).
** Names are borrowed; the schema argument an input came from is given too.
** Return NULL past the end. */
int interp_node_num_inputs(const Interp *ip, int i);
const char *interp_node_input_name(const Interp *ip, int i, int k, const char **arg_name);
int interp_node_num_outputs(const Interp *ip, int i);
const char *interp_node_output_name(const Interp *ip, int i, int k);

/* Whether an output of node i (which has run) holds NaN or Inf.  If so,
** *detail (caller frees) says how many, and which of the node's inputs were
** already non-finite -- or that all were finite, so the node made them.
** Outputs already freed (a run without keep_values) are not checked. */
bool interp_node_nonfinite(const Interp *ip, int i, char **detail);
/* "  in0 (x): 3 NaN, 0 Inf of 8\n" for each non-finite tensor input of
** node i ("" if none); caller frees. */
char *interp_nonfinite_inputs(const Interp *ip, int i);

/* Where each of the program's guards comes from (interp/guards.h), made
** once with the Interp (borrowed). */
typedef struct Guards Guards;
const Guards *interp_guards(const Interp *ip);

/* The symbols bound so far in this run (s0, u0, ...). */
const SymBindings *interp_symbols(const Interp *ip);

int interp_num_user_outputs(const Interp *ip);
/* User output i after a finished run (borrowed), or NULL. */
const Value *interp_user_output(const Interp *ip, int i);
/* Name of the graph value user output i refers to ("add_3"), or NULL for a
** literal output. */
const char *interp_user_output_name(const Interp *ip, int i);

#endif
