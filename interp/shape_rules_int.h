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
/* a OP b, taking (freeing) both; NULL when either is NULL or out of
** memory, so chains need one check at the end. */
SymExpr *sr_op(SymOp op, SymExpr *a, SymExpr *b);
SymExpr *sr_opc(SymOp op, SymExpr *a, int64_t c);
/* A shape from an int[] / SymInt[] argument; false when it is not one
** (or, with cx->err set, out of memory). */
bool sr_shape_list(ShapeCtx *cx, const SymArg *l, SymShape *s);
/* Give every Tensor return the shape s (copied); Tensor[] returns fall back. */
ShapeRuleResult sr_set_tensor_rets(ShapeCtx *cx, const OpDef *op, const SymShape *s, SymArg *outs);
/* A fresh data-dependent size: the name the archive gave the node's k-th
** one, else u<N>. */
SymExpr *sr_fresh_unbacked(ShapeCtx *cx, int k);
/* start or end of a slice into [0, size], clamped as PyTorch's sym slice
** does (a negative literal counts from the end). */
SymExpr *sr_slice_bound(ShapeCtx *cx, const SymExpr *v, const SymExpr *size);
/* The tensors of a Tensor[] argument into out (at most max), skipping the
** legacy 1-d empty ones when skip_empty; -1 when l is not a list of tensors. */
int sr_list_tensors(const SymArg *l, const SymShape **out, int max, bool skip_empty);
/* Element i of a per-spatial-dim int list (one value serves all; none or
** an empty list gives dflt). */
bool sr_nth(const SymArg *l, int i, const SymExpr *dflt, const SymExpr **out);
/* A sliding window's count: (in + 2*pad - dil*(k - 1) - 1) // stride + 1. */
SymExpr *sr_window_out(const SymExpr *in, const SymExpr *k, const SymExpr *st, const SymExpr *pad, const SymExpr *dil);
/* A list of SymArg tensors (n of them, each shape copied) into out. */
ShapeRuleResult sr_set_tensor_list(ShapeCtx *cx, SymShape *shapes, int n, SymArg *out);
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
SR_FN(sr_vecmat);
SR_FN(sr_tensordot);
SR_FN(sr_einsum);
/* shape_rules_index.c */
SR_FN(sr_sized);
SR_FN(sr_tri_indices);
SR_FN(sr_multinomial);
SR_FN(sr_index);
SR_FN(sr_take);
SR_FN(sr_take_along);
SR_FN(sr_nonzero_static);
SR_FN(sr_one_hot);
SR_FN(sr_searchsorted);
SR_FN(sr_unique);
SR_FN(sr_repeat_interleave);
SR_FN(sr_embedding_bag);
/* shape_rules_spatial.c */
SR_FN(sr_conv_transpose);
SR_FN(sr_adaptive_pool);
SR_FN(sr_upsample);
SR_FN(sr_pixel_shuffle);
SR_FN(sr_grid_sampler);
SR_FN(sr_im2col);
SR_FN(sr_col2im);
/* shape_rules_norm.c */
SR_FN(sr_batch_norm);
SR_FN(sr_layer_norm);
SR_FN(sr_group_norm);
SR_FN(sr_sdpa);
SR_FN(sr_distance);
SR_FN(sr_qparams);
/* shape_rules_shape.c (and sr_chunk in shape_rules_view.c) */
SR_FN(sr_ravel);
SR_FN(sr_atleast);
SR_FN(sr_broadcast_tensors);
SR_FN(sr_diagonal);
SR_FN(sr_diag_embed);
SR_FN(sr_unfold);
SR_FN(sr_chunk);
SR_FN(sr_meshgrid);
SR_FN(sr_stack_variant);
SR_FN(sr_rot90);
SR_FN(sr_block_diag);
SR_FN(sr_glu);

#endif
