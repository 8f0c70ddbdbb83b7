/*
** guards.h -- where each guard of a program comes from, rebuilt offline
** from the graph alone: which input dimension (a Dim of the export's
** dynamic_shapes) or which node (item, nonzero, ...) gave each symbol, the
** chain of nodes (sym_size.int -> mod -> eq -> _assert_scalar) behind an
** in-graph assert with each node's user source line, and the messages of
** a failing guard with the values substituted.
**
** The tree is the one tlparse draws from export-time logs; every fact here
** is read from the archive (node arguments, sym_int_values/sym_bool_values,
** tensor_values, stack traces), so it works on any archive offline.
*/
#ifndef EP_GUARDS_H
#define EP_GUARDS_H

#include "interp.h"

typedef struct Guards Guards;

/* The analysis of ep's top-level graph with its n user inputs (borrowed:
** both must outlive the Guards). */
Guards *guards_new(const ExportedProgram *ep, const UserInput *inputs, int n);
void guards_free(Guards *g); /* NULL ok */

/* Where symbol sym comes from, as one line appended to sb (indented by two
** spaces, starting with a newline): "s0 = 5: x.shape[0], a Dim of the
** export's dynamic_shapes, in [2, 8]", "s0: solved from y.shape[0] =
** s0 + 1", "u0 = 7: produced by node 'item' (aten.item.default) at f.py:5
** in forward: n = t.item()".  b gives the value when bound (may be NULL). */
void guards_explain_symbol(const Guards *g, const char *sym, const SymBindings *b, StrBuf *sb);

/* "\n  y.shape[0] = s0 + 1: first used by node 'slice' (aten.slice.Tensor)
** at f.py:9 in forward: ..." for user input ui's dimension d (nothing when
** no node uses the input). */
void guards_explain_use(const Guards *g, int ui, int d, const char *expr, StrBuf *sb);

/* Looks up a graph value by name at run time (NULL: not available). */
typedef const Value *(*GuardValueFn)(void *ctx, const char *name);

/* Before running: evaluate every in-graph _assert_scalar whose expression
** depends only on symbols the inputs bound (b), as the run would, and fail
** with EP_ERR_INPUT naming the input dimension that gave the symbol, the
** expression with its values and the node chain.  EP_OK when all hold or
** cannot be decided yet (unbacked symbols: the run checks those). */
EpStatus guards_check_asserts(const Guards *g, const SymBindings *b, EpError *err);

/* When inputs are bound: every guard of the export's guards_code (PyTorch
** >= 2.9), evaluated on the n user inputs' actual sizes as ep.module()'s
** _guards_fn does; the first false one fails with EP_ERR_INPUT naming the
** sizes it reads, the guard as written and with the values, its index in
** guards_code and, over the recorded sizes, its condition and where each
** symbol comes from (b: the symbols the inputs bound). */
EpStatus guards_check_code(const Guards *g, const Value *inputs, int n, const SymBindings *b, EpError *err);

/* Whether node i of the top-level graph is an in-graph assert
** (_assert_scalar, _assert_async, sym_constrain_range*, their functional
** forms). */
bool guards_is_assert(const Guards *g, int i);

/* Rewrite err, the failure of assert node i, as "Runtime assertion failed:
** Eq(Mod(u0, 4), 0) with u0 = 6: Mod(6, 4) = 2" followed by the node chain
** and where each unbacked symbol came from.  b: the run's symbols; value
** (with ctx) reads node values the symbols do not name. */
void guards_explain_failure(const Guards *g, int i, const SymBindings *b, GuardValueFn value, void *ctx,
                            EpError *err);

#endif
