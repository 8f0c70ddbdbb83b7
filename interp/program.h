/*
** program.h -- the serialized ExportedProgram as epdbg holds it: the graph
** (nodes, their arguments and metadata, value descriptions), the graph
** signature, range constraints and module call graph.
**
** Read from the program JSON of every schema era (1, 2, 5.x, 8.x) by
** program_load_json.  Everything here is owned by the ExportedProgram and
** freed by program_free; nothing in it depends on the weights or on a run.
*/
#ifndef EP_PROGRAM_H
#define EP_PROGRAM_H

#include "dtype.h"
#include "ep.h"
#include "ops.h"
#include "strmap.h"
#include "symbolic/sym.h"

typedef struct Graph Graph;

/* Argument variants of the schema's Argument union. */
typedef enum ArgKind {
    ARG_NONE,
    ARG_TENSOR,        /* ref: a tensor value */
    ARG_TENSORS,       /* items: ARG_TENSOR */
    ARG_OPT_TENSOR,    /* as_optional_tensor: item ARG_TENSOR or ARG_NONE */
    ARG_OPT_TENSORS,   /* items: ARG_TENSOR / ARG_NONE */
    ARG_INT,
    ARG_INTS,
    ARG_FLOAT,
    ARG_FLOATS,
    ARG_BOOL,
    ARG_BOOLS,
    ARG_STRING,
    ARG_STRINGS,
    ARG_SYM_INT,       /* ref, or a literal int inside a list */
    ARG_SYM_INTS,      /* items: ARG_SYM_INT (ref) / ARG_INT */
    ARG_SYM_FLOAT,
    ARG_SYM_FLOATS,
    ARG_SYM_BOOL,
    ARG_SYM_BOOLS,
    ARG_SCALAR_TYPE,
    ARG_MEMORY_FORMAT,
    ARG_LAYOUT,
    ARG_DEVICE,
    ARG_GRAPH,         /* subgraph of a higher-order op */
    ARG_CUSTOM_OBJ,
    ARG_OPERATOR,
    ARG_COMPLEX,
    ARG_TOKEN,
    ARG_OTHER,         /* a variant epdbg does not know: kept by name */
} ArgKind;

typedef struct Arg {
    ArgKind kind;
    char *ref;        /* name of the referenced value (tensor, SymInt, ...) */
    Value lit;        /* literal payload: V_INT/V_FLOAT/V_BOOL/V_STR/V_DTYPE/... */
    int n;            /* list variants */
    struct Arg *items;
    Graph *graph;     /* ARG_GRAPH */
    char *variant;    /* ARG_OTHER: the JSON key */
} Arg;

typedef struct NamedArg {
    char *name;       /* schema argument name ("" for positional HOP operands) */
    Arg arg;
    int kind;         /* ArgumentKind: 0 unknown, 1 positional, 2 keyword */
} NamedArg;

/* One dimension (or stride, or SymInt value): a literal or an expression. */
typedef struct SymDim {
    int64_t value;     /* literal */
    char *expr;        /* expression text as written */
    SymExpr *parsed;   /* NULL when the text did not parse */
    int64_t hint;      /* the example value at export time */
    bool is_expr;
    bool has_hint;
} SymDim;

typedef struct TensorMeta {
    int scalar_type;   /* schema code; dtype below is DT_INVALID if unsupported */
    DType dtype;
    int ndim;
    /* ndim of each, in the TensorMeta's own block (a program has a
    ** TensorMeta per value: room for EP_MAX_DIMS would be 1.5 KB each) */
    SymDim *sizes;
    SymDim *strides;
    bool requires_grad;
    char *device;      /* "cpu", "cuda:0" */
    int layout;
} TensorMeta;

/* A SymBool/SymFloat value's description. */
typedef struct SymScalarMeta {
    bool is_expr;
    Value lit;         /* V_BOOL / V_FLOAT / V_INT literal */
    char *expr;
    SymExpr *parsed;
} SymScalarMeta;

/* Node metadata strings (any may be NULL). */
typedef struct NodeMeta {
    char *stack_trace;
    char *nn_module_stack;
    char *source_fn_stack;
    char *torch_fn;
    int nextra;
    char **extra_keys, **extra_values; /* every other key, e.g. "custom" */
} NodeMeta;

typedef struct Node {
    char *name;
    char *target;       /* as written: "torch.ops.aten.add.Tensor" */
    int ninputs;
    NamedArg *inputs;
    int noutputs;
    Arg *outputs;
    NodeMeta meta;
    bool is_hop_single_tensor_return;
    /* name, target, the inputs' names, the tensor references and the four
    ** known metadata strings are in the graph's name arena (read by
    ** node_reader.c), not each its own malloc: node_free leaves them */
    bool strings_in_arena;
    const OpDef *op;    /* NULL: epdbg has no kernel for target */
} Node;

struct Graph {
    int ninputs;
    Arg *inputs;        /* placeholders, parallel to the input specs */
    int noutputs;
    Arg *outputs;       /* parallel to the output specs */
    int nnodes;
    Node *nodes;
    StrMap tensor_values;   /* name -> TensorMeta* */
    StrMap sym_int_values;  /* name -> SymDim* */
    StrMap sym_bool_values; /* name -> SymScalarMeta* */
    StrMap sym_float_values;
    bool is_single_tensor_return;
    struct NameArena *names; /* the strings of its nodes that have strings_in_arena */
};

typedef enum InputKind {
    IN_USER_INPUT,
    IN_PARAMETER,
    IN_BUFFER,
    IN_TENSOR_CONSTANT,
    IN_CUSTOM_OBJ,
    IN_TOKEN,
    IN_CONSTANT_INPUT,
} InputKind;

typedef struct InputSpec {
    InputKind kind;
    Arg arg;            /* the placeholder */
    char *target;       /* parameter / buffer / constant FQN, custom object name */
    bool persistent;    /* buffers */
    char *name;         /* constant_input: the input's name */
    Value constant;     /* constant_input: its specialised value */
} InputSpec;

typedef enum OutputKind {
    OUT_USER_OUTPUT,
    OUT_LOSS_OUTPUT,
    OUT_BUFFER_MUTATION,
    OUT_GRADIENT_TO_PARAMETER,
    OUT_GRADIENT_TO_USER_INPUT,
    OUT_USER_INPUT_MUTATION,
    OUT_TOKEN,
    OUT_PARAMETER_MUTATION,
} OutputKind;

typedef struct OutputSpec {
    OutputKind kind;
    Arg arg;
    char *target;       /* mutated buffer / parameter / user input name */
} OutputSpec;

typedef struct RangeConstraint {
    char *expr;         /* the key: "s0", "u1", "s0 + 1" or srepr text */
    SymExpr *parsed;
    bool has_min, has_max; /* false: unbounded (-oo / oo) */
    int64_t min, max;
} RangeConstraint;

typedef struct ModuleCall {
    char *fqn;
    bool has_signature;
    char *in_spec, *out_spec;   /* tree-spec strings */
    int nforward_arg_names;
    char **forward_arg_names;
} ModuleCall;

/* One string of the program's guards_code (PyTorch >= 2.9; absent or []
** before): a guard on the inputs that ep.module() checks in its
** _guards_fn, read over the user inputs' recorded sizes (guards_code.h). */
typedef struct GuardCode {
    char *text;    /* as written: "(L['x'].size()[0] // 5) != 1" */
    char *shown;   /* as PyTorch's "Guard failed:" shows it: "x.size()[0] // 5 != 1" */
    SymExpr *cond; /* over the recorded sizes: Ne(FloorDiv(5*s0, 5), 1) */
} GuardCode;

typedef struct ExportedProgram {
    Graph graph;
    int ninput_specs;
    InputSpec *input_specs;
    int noutput_specs;
    OutputSpec *output_specs;
    int nranges;
    RangeConstraint *ranges;
    int nmodule_calls;
    ModuleCall *module_calls;
    int nguards_code;
    GuardCode *guards_code;         /* every string translated, or the load failed */
    /* provenance */
    int schema_major, schema_minor; /* schema 1 and 2: major = 1/2, minor = 0 */
    bool schema_is_int;             /* the 2.1/2.2 integer form */
    char *torch_version;            /* NULL when not recorded */
    char *dialect;                  /* "ATEN", "TRAINING" (verifiers or dialect) */
    StrMap opset_version;           /* namespace -> (intptr_t) version */
} ExportedProgram;

/* Parse the program JSON.  label names the member in errors.  Fails with
** EP_ERR_FORMAT naming the JSON path of a missing or malformed field; the
** v1 (PyTorch 2.1) signature form is refused with a message saying so. */
EpStatus program_load_json(const char *text, size_t len, const char *label, ExportedProgram **out,
                           EpError *err);
void program_free(ExportedProgram *ep);

/* Helpers over a loaded program. */
const TensorMeta *graph_tensor_meta(const Graph *g, const char *name);
/* "float32[s0, 32]": the dtype and symbolic shape the exporter recorded for
** tensor value name (new string), or NULL when it recorded none. */
char *graph_recorded_type(const Graph *g, const char *name);
/* "[s0, 3]" / "[2, 3]" into buf. */
const char *tensor_meta_shape_str(const TensorMeta *m, char *buf, size_t cap);
const char *input_kind_name(InputKind k);
const char *output_kind_name(OutputKind k);
const char *arg_kind_name(ArgKind k);
/* Short human description of an argument: "%x", "[%a, %b]", "3", "None". */
char *arg_describe(const Arg *a);
/* Index of the constraint whose key is expr (or whose parsed form is the
** bare symbol expr), or -1. */
int program_find_range(const ExportedProgram *ep, const char *symbol);
/* The guards of guards_code, for analyses that add them as conditions:
** ep_guard_code(ep, i)->cond, 0 <= i < ep_num_guards_code(ep). */
int ep_num_guards_code(const ExportedProgram *ep);
const GuardCode *ep_guard_code(const ExportedProgram *ep, int i);
/* "[2, 1024]" (an open end as -inf or inf) into buf, returned. */
const char *range_bounds_text(const RangeConstraint *r, char *buf, size_t cap);

#endif
