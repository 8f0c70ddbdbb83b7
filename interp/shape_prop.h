/*
** shape_prop.h -- running every node's shape rule (shape_rules.h) over a
** loaded program with symbolic input sizes: the symbolic shape of every
** value, and every condition the program imposes on the sizes, each with
** the node that imposes it (whose user source line srcinfo.h gives).
**
** The user inputs' shapes are the archive's recorded ones (tensor_values)
** unless the caller replaces some: give a placeholder a shape whose dims
** are fresh symbols to ask which sizes the program lets vary.  A node
** without a rule (SR_RECORDED, a higher-order op, an op epdbg lacks) takes
** its recorded output shape, and says why in its note.
*/
#ifndef EP_SHAPE_PROP_H
#define EP_SHAPE_PROP_H

#include "program.h"
#include "shape_rules.h"

/* A placeholder's chosen shape (borrowed by shape_prop_run). */
typedef struct ShapeInput {
    const char *name; /* the placeholder's value name */
    SymShape shape;
} ShapeInput;

typedef enum ShapeNodeStatus {
    SN_RULE,     /* the op's rule gave the outputs */
    SN_RECORDED, /* recorded shapes: no rule, or not for these arguments */
    SN_FAILED,   /* the rule found the arguments contradict the op */
} ShapeNodeStatus;

typedef struct ShapeNodeInfo {
    ShapeNodeStatus status;
    char note[256]; /* SN_RECORDED: why; SN_FAILED: the contradiction */
} ShapeNodeInfo;

typedef struct ShapeProp {
    const ExportedProgram *ep;
    int nnodes;
    ShapeNodeInfo *nodes;   /* parallel to ep->graph.nodes */
    StrMap values;          /* value name -> SymArg* (tensors, SymInts, lists) */
    ShapeConstraint *cons;  /* in node order */
    int ncons;
    SymRanges ranges;       /* the program's ranges of bare symbols */
    SymExpr *(*lift)(void *ctx, int node, const char *arg, int pos, int64_t value); /* ShapeLiftFn, or NULL */
    void *lift_ctx;
} ShapeProp;

/* Propagate through ep's top-level graph.  inputs (n of them, may be
** NULL) override the recorded shapes of those placeholders.  Fails with
** EP_ERR_FORMAT when an input has no recorded shape and none is given, or
** names no placeholder; a node's rule failing is not an error (its note). */
EpStatus shape_prop_run(const ExportedProgram *ep, const ShapeInput *inputs, int n, ShapeProp **out, EpError *err);
void shape_prop_free(ShapeProp *sp); /* NULL ok */

/* A literal size argument the caller may replace by an expression: the
** 5 of arange(end=5) in a program exported with static shapes, when the
** caller knows 5 was x.shape[0] (epdbg suggest).  Called for every int (or
** int list item) of a node argument whose schema name says it is a size
** (size, end, length, ...) before the node's rule runs (pos: the item's
** index in a list, else 0); returns a new expression to use instead, or
** NULL to keep the literal. */
typedef SymExpr *(*ShapeLiftFn)(void *ctx, int node, const char *arg, int pos, int64_t value);

typedef struct ShapePropOptions {
    const ShapeInput *inputs; /* as for shape_prop_run (may be NULL) */
    int ninputs;
    const SymRanges *ranges;  /* ranges of symbols the inputs introduce (added to the program's; may be NULL) */
    ShapeLiftFn lift;         /* may be NULL */
    void *lift_ctx;
    const SymBindings *hints; /* the traced sizes, for the rules' branches (ShapeCtx.hints); may be NULL */
} ShapePropOptions;

/* shape_prop_run with options. */
EpStatus shape_prop_run_opts(const ExportedProgram *ep, const ShapePropOptions *opt, ShapeProp **out, EpError *err);

/* The symbolic value called name, or NULL (borrowed). */
const SymArg *shape_prop_value(const ShapeProp *sp, const char *name);

/* The recorded shape of tensor value name as expressions; false when the
** archive recorded none or one of its sizes does not parse. */
bool shape_prop_recorded(const Graph *g, const char *name, SymShape *out);

#endif
