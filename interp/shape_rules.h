/*
** shape_rules.h -- every operator's shape rule over symbolic sizes: from
** the symbolic shapes and SymInt expressions of a node's arguments, the
** shapes of its outputs and the conditions the operator imposes on the
** sizes (dims forced equal, a literal that pins a symbolic dim, bounds).
**
** Each registry entry names its rule family in its OP() line (the SR_*
** column, interp/ops/kernel.h); shape_rules.c maps each family to one
** function.  shape_prop.h runs them over a whole program.  Arguments arrive
** in schema order, as kernels get theirs (interp/ops/kernel.h), but
** symbolic: a tensor is its SymShape, an int or SymInt an expression.
*/
#ifndef EP_SHAPE_RULES_H
#define EP_SHAPE_RULES_H

#include "ops.h"
#include "symbolic/sym.h"
#include "tensor.h"

/* A symbolic shape: ndim expressions, each owned. */
typedef struct SymShape {
    int ndim;
    SymExpr *dims[EP_MAX_DIMS];
} SymShape;

void sym_shape_free(SymShape *s);
/* A deep copy into *out; false out of memory (out left empty). */
bool sym_shape_copy(const SymShape *s, SymShape *out);
/* "[s0, 3]" into buf. */
const char *sym_shape_str(const SymShape *s, char *buf, size_t cap);

/* One argument or result, symbolic. */
typedef enum SvKind {
    SV_NONE,
    SV_TENSOR, /* shape (+ a value range when known: arange/iota outputs) */
    SV_INT,    /* e: an int, SymInt, SymBool or SymFloat as an expression */
    SV_LIST,   /* items: int[] / SymInt[] / Tensor[] / Tensor?[] */
    SV_LIT,    /* lit: any other literal (float, bool, str, dtype, ...) */
} SvKind;

typedef struct SymArg {
    SvKind kind;
    SymShape shape;
    bool has_values;   /* SV_TENSOR: every element within [vlo, vhi] */
    SymExpr *vlo, *vhi;
    SymExpr *e;
    int n;
    struct SymArg *items;
    Value lit;
} SymArg;

void sym_arg_clear(SymArg *a); /* frees what it owns; leaves SV_NONE */
bool sym_arg_copy(const SymArg *a, SymArg *out);

typedef enum ShapeConstraintKind {
    SC_EQUAL,      /* two sizes must be equal: Eq(s0, s1) */
    SC_RELATION,   /* an affine or divisibility relation: Eq(s0, 2*s1), Eq(Mod(s0, 4), 0) */
    SC_SPECIALIZE, /* a literal in the program pins a symbolic size: Eq(s0, 8) */
    SC_BOUND,      /* a range: s0 <= 1024, an index within a size */
} ShapeConstraintKind;

const char *shape_constraint_kind_name(ShapeConstraintKind k);

typedef struct ShapeConstraint {
    SymExpr *cond;  /* owned */
    ShapeConstraintKind kind;
    int node;       /* index into the graph's nodes (-1: an input) */
    char why[120];  /* "aten.add.Tensor: broadcast of dim 1" */
} ShapeConstraint;

/* What a rule sees besides its arguments. */
typedef struct ShapeCtx {
    const SymRanges *ranges; /* the program's ranges, for simplifying; may be NULL */
    int node;                /* the node being run */
    const char *target;      /* its op, for messages */
    ShapeConstraint *cons;   /* grown by the rules (shape_ctx_free frees) */
    int ncons, capcons;
    int next_unbacked;       /* u<N> numbering for fresh data-dependent sizes */
    const char *unbacked_hint[8]; /* names the archive recorded for the node's
                                  ** data-dependent outputs (NULL: make one up) */
    char err[256];           /* a rule's failure, or why it fell back */
    /* The sizes the program is traced at (NULL: none).  With them a rule
    ** records the branches PyTorch's own shape functions take on symbolic
    ** sizes -- the guards torch.export emits from them (sr_branch) -- so
    ** that what epdbg suggest derives is what a re-export would accept. */
    const SymBindings *hints;
} ShapeCtx;

void shape_ctx_init(ShapeCtx *cx, const SymRanges *ranges);
void shape_ctx_free(ShapeCtx *cx);

typedef enum ShapeRuleResult {
    SRR_OK,       /* outs filled */
    SRR_FAIL,     /* the arguments contradict the op: cx->err says how */
    SRR_RECORDED, /* no rule (or not for these arguments): cx->err says why */
} ShapeRuleResult;

/* Run op's rule: args[0 .. schema nargs-1] in schema order (borrowed),
** outs[0 .. schema nrets-1] set (owned by the caller) on SRR_OK. */
ShapeRuleResult shape_rule_run(ShapeCtx *cx, const OpDef *op, const SymArg *args, SymArg *outs);

/* The family's name ("broadcast") and whether it is a real rule (not the
** recorded fallback). */
const char *shape_rule_name(ShapeRule r);
bool shape_rule_is_real(ShapeRule r);

#endif
