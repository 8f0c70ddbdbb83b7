/*
** shape_rules_int.h -- private to the shape rules (shape_rules*.c): the
** helpers every family uses and the rule functions the table names.
*/
#ifndef EP_SHAPE_RULES_INT_H
#define EP_SHAPE_RULES_INT_H

#include "shape_rules.h"

typedef ShapeRuleResult (*ShapeRuleFn)(ShapeCtx *cx, const OpDef *op, const SymArg *args, SymArg *outs);

/* Fail with a message (always SRR_FAIL), or fall back (SRR_RECORDED). */
ShapeRuleResult sr_fail(ShapeCtx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
ShapeRuleResult sr_recorded(ShapeCtx *cx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record cond (owned) as a condition of kind; a condition true for every
** value is dropped, one false for every value is an error (false, with
** cx->err naming why). */
bool sr_require(ShapeCtx *cx, ShapeConstraintKind kind, SymExpr *cond, const char *why);
/* Eq(a, b) as an SC_SPECIALIZE when exactly one side is a literal, else
** SC_EQUAL. */
bool sr_require_equal(ShapeCtx *cx, const SymExpr *a, const SymExpr *b, const char *why);

/* A branch PyTorch's shape function takes on cond: nothing when the
** ranges decide it or there are no hints; else the branch the hints take
** is recorded as a condition (cond, or its negation) of kind SC_RELATION,
** as torch.export guards on it.  false only out of memory. */
bool sr_branch(ShapeCtx *cx, SymExpr *cond, const char *why);

/* The argument's integer if it is a literal (or folds to one). */
bool sr_int(const SymArg *a, int64_t *v);
/* dim (possibly negative) into [0, ndim); false out of range. */
bool sr_dim(ShapeCtx *cx, int64_t dim, int ndim, int *out);
/* a OP b, simplified under the ranges where a comparison decides it:
** Min(a, b) is a when a <= b always.  NULL out of memory. */
SymExpr *sr_min(ShapeCtx *cx, const SymExpr *a, const SymExpr *b);
SymExpr *sr_max(ShapeCtx *cx, const SymExpr *a, const SymExpr *b);
/* How many steps of step (>= 1) fit in span: (span + step - 1) // step,
** the length of a strided range.  Takes span (freed); a new expression. */
SymExpr *sr_ceil_steps(SymExpr *span, int64_t step);
/* Is e certainly the literal v? */
bool sr_is(const SymExpr *e, int64_t v);
/* The product of dims [from, to) of s (1 when empty). */
SymExpr *sr_numel(const SymShape *s, int from, int to);
/* Broadcast a and b (PyTorch's rules: a literal 1 stretches; two
** different symbols must be equal) into out. */
bool sr_broadcast(ShapeCtx *cx, const SymShape *a, const SymShape *b, SymShape *out);
/* out becomes an SV_TENSOR taking s's dims (s left empty). */
void sr_set_tensor(SymArg *out, SymShape *s);
/* The rule's result s into out (as sr_set_tensor), or a failure -- s freed
** -- when one of its dims is NULL (an expression constructor ran out of
** memory). */
ShapeRuleResult sr_output_shape(ShapeCtx *cx, SymShape *s, SymArg *out);
/* Argument i by schema name; NULL when the schema has none. */
const SymArg *sr_arg(const OpDef *op, const SymArg *args, const char *name);

/* The rule functions, one per family (shape_rules.c, shape_rules_view.c,
** shape_rules_nn.c). */
#define SR_FN(name) ShapeRuleResult name(ShapeCtx *cx, const OpDef *op, const SymArg *args, SymArg *outs)
SR_FN(sr_same);
SR_FN(sr_broadcast_rule);
SR_FN(sr_reduce);
SR_FN(sr_topk);
SR_FN(sr_sym);
SR_FN(sr_sym_size);
SR_FN(sr_unbacked);
SR_FN(sr_assert);
SR_FN(sr_constrain);
SR_FN(sr_effect);
SR_FN(sr_factory);
SR_FN(sr_arange);
SR_FN(sr_scalar);
SR_FN(sr_view);
SR_FN(sr_as);
SR_FN(sr_flatten);
SR_FN(sr_unflatten);
SR_FN(sr_permute);
SR_FN(sr_squeeze);
SR_FN(sr_unsqueeze);
SR_FN(sr_expand);
SR_FN(sr_slice);
SR_FN(sr_select);
SR_FN(sr_cat);
SR_FN(sr_stack);
SR_FN(sr_split);
SR_FN(sr_unbind);
SR_FN(sr_repeat);
SR_FN(sr_pad);
SR_FN(sr_mm);
SR_FN(sr_bmm);
SR_FN(sr_addmm);
SR_FN(sr_matmul);
SR_FN(sr_linear);
SR_FN(sr_attention);
SR_FN(sr_conv);
SR_FN(sr_pool);
SR_FN(sr_index_select);
SR_FN(sr_gather);
SR_FN(sr_embedding);

#endif
