/*
** format.h -- values printed the way PyTorch prints them, for `print`,
** `display` and every other command that shows a tensor: torch's repr with
** its default print options (precision 4, summarised past 1000 elements
** with 3 edge items, line width 80, scientific notation chosen as torch
** chooses it), plus a hex view of the raw element bits for print/x.
*/
#ifndef EP_FORMAT_H
#define EP_FORMAT_H

#include "interp/value.h"

typedef struct PrintOptions {
    int precision;      /* digits after the point (torch default 4) */
    int64_t threshold;  /* summarise tensors with more elements (1000) */
    int edgeitems;      /* items kept at each end of a summarised dim (3) */
    int linewidth;      /* characters per line (80) */
    int sci_mode;       /* -1: torch's automatic choice, 0: never, 1: always */
    bool hex;           /* print/x: each element's raw bits, 0x-prefixed */
} PrintOptions;

/* torch.set_printoptions' defaults. */
extern const PrintOptions PRINT_OPTIONS_DEFAULT;

/* repr(t) as modern PyTorch prints a CPU tensor: "tensor([[ 0.1000, -2.0000],
** ...])", summarised with "..." past the threshold, a ", dtype=torch.X"
** suffix for dtypes other than float32, int64 and bool, "tensor([], size=(0,
** 3))" for empty tensors (which name every dtype but float32, as torch's
** do).  po->hex keeps that layout with each element's bits.  po NULL means
** PRINT_OPTIONS_DEFAULT; out-of-range options are clamped (precision to
** 0..100).  A tensor that would show more than 2^20 elements prints as
** "tensor(..., size=(...))".  t NULL gives "None".  New string, caller
** frees. */
char *format_tensor(const Tensor *t, const PrintOptions *po);

/* Any value as Python would print it: tensors as above, ints, floats as
** Python's repr ("0.1", "1e-05", "inf", "nan"), True/False, None, strings
** quoted, dtypes "torch.float32", lists "[...]" of those; layouts and
** memory formats as "torch.strided", devices as "device(type='cpu')".
** With po->hex, ints and floats show their 64 bits ("0x3ff0000000000000")
** and bools 0x01/0x00.  po NULL: defaults.  New string, caller frees. */
char *format_value(const Value *v, const PrintOptions *po);

/* One line that summarises a value rather than printing it: for a tensor
** its dtype, shape and statistics over every element ("float32[2, 3]  min
** -1.25  max 3  mean 0.1"; "  (empty)", "  all NaN", "  true 3 of 4" for
** bool, "  NaN N" / "  inf N" counts when there are any), "int 7",
** "float 0.5", "bool True", and value_describe's text for anything else.
** Reads every element: O(numel).  New string, caller frees. */
char *format_value_stats(const Value *v);

#endif
