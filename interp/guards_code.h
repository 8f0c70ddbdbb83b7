/*
** guards_code.h -- the ExportedProgram's guards_code (PyTorch >= 2.9) read
** as conditions over the user inputs' recorded sizes.
**
** torch.export keeps, besides the graph's in-graph asserts, the guards its
** tracer made on the inputs' sizes as Python source, printed by
** ShapeGuardPythonPrinter (torch/export/exported_program.py,
** _convert_guards_to_code): an input's size is its source,
** L['x'].size()[0] (L['args'][0] for an item of *args, L['kwargs']['k'],
** L['flat_args'][i] from the newer tracer), the operators are Python's
** (//, %, ==, !=, <, <=, and, or, not, max(), min(), math.floor(), ...).
** ep.module() compiles them into its _guards_fn and refuses inputs with
** "Guard failed: x.size()[0] // 5 != 1" (torch/export/_unlift.py).
**
** Here each string becomes SymPy text that sym_parse reads, every size
** reference replaced by the size the exporter recorded for it (s0, 5*s0,
** a literal), so a guard is a condition over the same symbols as the
** rest of the program; and the text PyTorch's message shows (the L[...]
** prefix dropped, redundant parentheses removed as ast.unparse does).
*/
#ifndef EP_GUARDS_CODE_H
#define EP_GUARDS_CODE_H

#include "interp.h"

/* What a size reference reads of user input u. */
typedef enum GuardRefKind {
    GREF_SIZE,   /* x.size()[d], x.shape[d] */
    GREF_STRIDE, /* x.stride()[d] */
    GREF_VALUE,  /* a SymInt input itself (d = -1) */
} GuardRefKind;

/* The actual value a reference reads (the bound inputs); false: none. */
typedef bool (*GuardSizeFn)(void *ctx, int u, GuardRefKind kind, int d, int64_t *out);

/* Translate the guard text of ep.  Size references become the recorded
** sizes, or with sizes != NULL the values sizes() gives (then the result
** has no symbols left).  Returns a new condition and, if shown != NULL, a
** new string: the guard as PyTorch's message shows it ("x.size()[0] // 5
** != 1"), or with sizes its values in place of the references ("5 // 5 !=
** 1").  NULL when the text is not a guard epdbg reads (an input it does not
** name, a function it does not know, a syntax error): why gets a sentence. */
SymExpr *guard_code_translate(const ExportedProgram *ep, const char *text, GuardSizeFn sizes, void *ctx,
                              char **shown, char *why, size_t whycap);

#endif
