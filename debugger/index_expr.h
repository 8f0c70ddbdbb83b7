/*
** index_expr.h -- Python indexing on a tensor, for `print NAME[0, :5]` and
** `set NAME[1, 2] = 0.5`: the text between the brackets is parsed as
** torch's basic indexing (integers, negative from the end, slices with
** optional start, stop and step > 0, "...", and "None" for a new axis) and
** applied as a view, so writing through the result edits the original.
*/
#ifndef EP_INDEX_EXPR_H
#define EP_INDEX_EXPR_H

#include "interp/tensor.h"

/* A view of t (new reference) selected by expr ("0, :5", "..., -1",
** "1:3, ::2", "None, 0").  Errors say what is wrong and where, as torch
** does: "index 5 is out of bounds for dimension 0 with size 4", "too many
** indices for tensor of dimension 2", "bad index '1:x' (position 3)".
** Like torch, several "..." are accepted, and a single True/False adds an
** axis of size 1/0.  NULL with err (EP_ERR_USAGE) on failure. */
Tensor *tensor_index_expr(const Tensor *t, const char *expr, EpError *err);

/* Parse a Python scalar literal for `set`: "1.5", "-2", "1e-3", "inf",
** "-inf", "nan", "True", "False".  false if text is none of those. */
bool parse_scalar_literal(const char *text, double *out);

#endif
