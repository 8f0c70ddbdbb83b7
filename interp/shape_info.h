/*
** shape_info.h -- the dynamic shapes of a program without running it: each
** value's recorded (symbolic) shape and, per symbolic dimension, the range
** it may take given the program's range constraints ("2*s0 + 1 in [5,
** 129]" from "s0 in [2, 64]"), and for an unbacked symbol (u0) the node
** that makes it.
**
** Everything is read from the program alone (tensor_values,
** sym_int_values, range_constraints); the front ends (`info shapes` in the
** debugger, `epdbg info --shapes`) print it beside the shapes a run gives.
*/
#ifndef EP_SHAPE_INFO_H
#define EP_SHAPE_INFO_H

#include "ep.h"
#include "program.h"

typedef struct ShapeInfo ShapeInfo;

/* The analysis of ep's top-level graph (borrowed: ep must outlive it).
** One pass over the graph; ranges of expressions are computed on demand
** and cached by their text, so listing every node is linear in the graph. */
ShapeInfo *shape_info_new(const ExportedProgram *ep);
void shape_info_free(ShapeInfo *si); /* NULL ok */

/* The symbols' ranges: those of the range constraints whose key is a bare
** symbol, and [0, inf] for a symbol with none that is itself some tensor's
** size (a size is never negative).  Borrowed. */
const SymRanges *shape_info_ranges(const ShapeInfo *si);

/* The range of one recorded size or SymInt value d: [v, v] for a literal,
** sym_range over shape_info_ranges for an expression (for a tensor size,
** is_size, cut to [0, inf]).  false, *out untouched, when the expression
** did not parse. */
bool shape_info_dim_range(ShapeInfo *si, const SymDim *d, bool is_size, SymRange *out);

/* The node (index in ep->graph.nodes) whose output is the bare unbacked
** symbol sym (item, nonzero, ...), -1 for a symbol of the inputs or none. */
int shape_info_producer(const ShapeInfo *si, const char *sym);

/* The unbacked symbols, in graph order: how many, and the k-th one's name
** (borrowed) with the node that makes it in *node. */
int shape_info_num_unbacked(const ShapeInfo *si);
const char *shape_info_unbacked(const ShapeInfo *si, int k, int *node);

/* "float32[s0, 2*s0 + 1]" for a tensor value, "SymInt u0" / "SymInt 3"
** for a SymInt, "SymBool Eq(u0, 4)" for a symbolic SymBool, NULL for a value the exporter recorded nothing for.
** Newly allocated. */
char *shape_info_value_type(const ShapeInfo *si, const char *name);

/* Append to sb the range of every symbolic size (or SymInt) of value name,
** each distinct expression once and none already in seen (a list of texts
** the caller keeps across calls, freed with shape_info_seen_free):
** "s0 in [2, 64], 2*s0 + 1 in [5, 129]"; an unbacked symbol's producer
** follows it ("u0 in [0, inf] from 'item'"), an unreadable expression is
** "E (unreadable)".  Separated by ", " from what sb holds unless sb is
** empty. */
typedef struct ShapeSeen {
    int n, cap;
    const char **items; /* borrowed from the program */
} ShapeSeen;
void shape_info_value_ranges(ShapeInfo *si, const char *name, ShapeSeen *seen, StrBuf *sb);
void shape_info_seen_free(ShapeSeen *seen);

/* The recorded types of node's outputs, ", "-separated ("-" for none), and
** the ranges of all their symbolic sizes: both newly allocated. */
char *shape_info_node_types(const ShapeInfo *si, const Node *node);
char *shape_info_node_ranges(ShapeInfo *si, const Node *node);

/* The names node defines, lists flattened, in order (borrowed): how many,
** up to max stored in names (names may be NULL to count). */
int shape_info_node_outputs(const Node *node, const char **names, int max);

/* "[2, 64]", "[0, inf]", "[-inf, 3]" into buf. */
const char *shape_info_range_text(SymRange r, char *buf, size_t cap);

#endif
