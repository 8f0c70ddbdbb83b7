/*
** progbuild.h -- building exported programs and writing them as real .pt2
** archives of a chosen era, for the bundled examples, the test fixtures and
** the benchmarks.
**
** A program is described with placeholders, nodes and outputs; node
** arguments use a compact text notation parsed by the builder:
**
**   %name            a tensor value            $name          a SymInt value
**   [%a, %b]         Tensor[]                  [%a, None]     Tensor?[]
**   [1, 2] [$s, 3]   int[] / SymInt[]          1.5 1e-05 -inf float
**   3 True None      int, bool, None           'tanh'         str
**   dtype:float32    device:cpu                memfmt:contiguous   layout:strided
**
** Schema 8 records whether each input was passed by keyword: an operator's
** keyword-only arguments are, as in every traced graph; inputs after a '|'
** are too, for nodes an export pass builds with explicit kwargs
** ("a=%x | dtype=dtype:float32 device=device:cpu").
**
**   pb_node(pb, "aten.linear.default", "linear", "input=%x weight=%w bias=%b",
**           "linear");
**
** Outputs are named the same way ("a, b" for tuples, "[a, b]" for a
** Tensor[] result, "$n" for a SymInt).  The writer runs the program through
** epdbg's own interpreter to record every value's dtype and shape in
** tensor_values (twice, with a second size for each symbol, to find which
** dims are symbolic), then writes the archive in the layout and JSON
** dialect of the chosen era.  Reference outputs of the generated files come
** from PyTorch (../shared/tools/oracle.py), which also checks those records.
*/
#ifndef EP_PROGBUILD_H
#define EP_PROGBUILD_H

#include "interp/program.h"

typedef enum PbEra {
    PB_ERA_2_1 = 1, /* schema 1: legacy zip, dict signature, TensorValue wrappers */
    PB_ERA_2_2 = 2, /* schema 2: legacy zip, all-key unions, no example inputs */
    PB_ERA_2_4 = 5, /* schema 5.3: legacy zip, single-key unions, example inputs */
    PB_ERA_2_11 = 8, /* schema 8.17: PT2 archive */
} PbEra;

typedef struct ProgBuilder ProgBuilder;

/* module_class: the exported nn.Module's class ("examples.src.mlp.MLP").
** argn_names: name placeholders arg0_1, arg1_1, ... as PyTorch 2.1/2.2 did,
** instead of p_<fqn>, b_<fqn>, c_<fqn> and the argument names. */
ProgBuilder *pb_new(const char *module_class, bool argn_names);
void pb_free(ProgBuilder *pb);

/* Source position and module scope recorded in the metadata of the nodes
** added next (stack_trace, nn_module_stack, source_fn_stack).  module_path
** "" is the top-level module; type is the module class. */
void pb_at(ProgBuilder *pb, const char *file, int line, const char *func, const char *code);
/* A frame called from the pb_at one (a submodule's forward), innermost
** last; pb_at starts over. */
void pb_at_inner(ProgBuilder *pb, const char *file, int line, const char *func, const char *code);
void pb_module(ProgBuilder *pb, const char *module_path, const char *module_type);

/* Placeholders, in the order they are added (parameters and buffers
** first, then user inputs, as torch.export orders them).  Tensors: the
** builder takes a reference. */
void pb_param(ProgBuilder *pb, const char *fqn, Tensor *t);
void pb_buffer(ProgBuilder *pb, const char *fqn, Tensor *t, bool persistent);
void pb_constant(ProgBuilder *pb, const char *fqn, Tensor *t);
/* dims: one text per dimension, an integer or a symbol name ("s0"). */
void pb_input(ProgBuilder *pb, const char *name, Tensor *example, const char *const *dims);
void pb_sym_input(ProgBuilder *pb, const char *name, int64_t example);
/* A SymInt input whose value is the symbol `symbol` (s0), as torch.export
** names it, rather than the input's own name. */
void pb_sym_input_as(ProgBuilder *pb, const char *name, const char *symbol, int64_t example);
/* The placeholder name given to a weight FQN or user input name. */
const char *pb_ph(const ProgBuilder *pb, const char *fqn_or_input);
void pb_range(ProgBuilder *pb, const char *symbol, int64_t min, int64_t max); /* INT64_MAX: no max */
/* A guard of the ExportedProgram's guards_code, Python source as PyTorch's
** ShapeGuardPythonPrinter writes it ("(L['x'].size()[0] // 5) != 1"); the
** 2.11-era archive carries them, older eras have no such field. */
void pb_guard_code(ProgBuilder *pb, const char *python);

void pb_node(ProgBuilder *pb, const char *target, const char *name, const char *args, const char *outputs);
/* Record the value `name`'s dims as given (one text per dimension, e.g.
** "u0"), not as inference finds them: the data-dependent sizes torch.export
** names with fresh unbacked symbols, which running twice cannot see. */
void pb_unbacked(ProgBuilder *pb, const char *name, int ndim, const char *const *dims);
/* Record the expression of SymInt (or SymBool, is_bool) node output name in
** sym_int_values (sym_bool_values), as torch.export does: "u0" for an
** item(), "Eq(Mod(s0, 4), 0)" for a check's condition. */
void pb_sym_value(ProgBuilder *pb, const char *name, const char *expr, bool is_bool);
void pb_output(ProgBuilder *pb, const char *name);
void pb_buffer_mutation(ProgBuilder *pb, const char *value, const char *fqn);
void pb_input_mutation(ProgBuilder *pb, const char *value, const char *input);

typedef struct PbWriteOptions {
    PbEra era;
    const char *root;          /* PT2 root folder (default: file base name) */
    bool whole_weights;        /* PT2: data/weights/model.pt instead of per-tensor files */
    bool no_example_inputs;
    const char *model_name;    /* PT2 program name (default "model") */
    const char *torch_version; /* recorded version (default by era) */
} PbWriteOptions;

/* Infer tensor_values and write path.  Errors name what failed. */
EpStatus pb_write(ProgBuilder *pb, const char *path, const PbWriteOptions *opt, EpError *err);
/* Several programs in one PT2 archive (models/<names[i]>.json), after
** pb_infer on each. */
EpStatus pb_write_pt2_programs(ProgBuilder **pbs, const char *const *names, int n, const char *path,
                               const PbWriteOptions *opt, EpError *err);
/* Run the program to record every value's dtype and shape (pb_write does
** this itself). */
EpStatus pb_infer(ProgBuilder *pb, EpError *err);
/* The program JSON alone (after pb_write inferred the values), caller frees. */
char *pb_program_json(ProgBuilder *pb, PbEra era);

/* printf into one of a ring of 16 static buffers: for building argument
** strings inline (pb_fmt("input=%%%s", name)).  Not reentrant; a text
** longer than 2047 bytes aborts (never a truncated program). */
const char *pb_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Deterministic pseudo-random tensors (no libm: identical everywhere). */
typedef struct PbRng {
    uint64_t state;
} PbRng;

Tensor *pb_uniform(PbRng *r, DType dtype, int ndim, const int64_t *sizes, double lo, double hi);
Tensor *pb_ints(PbRng *r, DType dtype, int ndim, const int64_t *sizes, int64_t lo, int64_t hi);

#endif
