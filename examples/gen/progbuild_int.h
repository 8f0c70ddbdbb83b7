/*
** progbuild_int.h -- ProgBuilder's structure, shared by progbuild.c (the
** builder and the JSON of each era) and progwrite.c (archives, inference).
*/
#ifndef EP_PROGBUILD_INT_H
#define EP_PROGBUILD_INT_H

#include <cjson/cJSON.h>

#include "progbuild.h"

typedef struct PbInput {
    InputKind kind;
    char *name;         /* placeholder */
    char *forward_name; /* user inputs: the forward() argument name */
    char *target;       /* FQN */
    bool persistent;
    Tensor *value;      /* weight, or example user input */
    bool is_sym;        /* a SymInt user input */
    int64_t sym_example;
    char *sym_expr;     /* its symbol ("s0"); NULL: the input's own name */
    int ndim;
    char *dims[EP_MAX_DIMS];
} PbInput;

typedef struct PbNode {
    char *target, *name;
    int nin;
    char **in_names;
    Arg *in_args;
    bool *in_kwarg;     /* written after '|': in the FX node's kwargs */
    int nout;
    Arg *outs;
    char *stack_trace, *module_stack, *source_fn, *torch_fn;
} PbNode;

typedef struct PbOutput {
    OutputKind kind;
    char *value;
    char *target;
} PbOutput;

typedef struct PbRange {
    char *symbol;
    int64_t min, max;
} PbRange;

/* What inference learned about one value. */
typedef struct PbMeta {
    bool is_tensor;
    DType dtype;
    int ndim;
    char *dims[EP_MAX_DIMS]; /* integer or symbolic text */
} PbMeta;

struct ProgBuilder {
    char *module_class;
    bool argn_names;    /* 2.1/2.2 placeholder names: arg0_1, arg1_1, ... */
    PbInput *inputs;
    int ninputs;
    PbNode *nodes;
    int nnodes;
    PbOutput *outputs;
    int noutputs;
    PbRange *ranges;
    int nranges;
    char **guards_code; /* pb_guard_code: written from schema 8 (PyTorch 2.9+) */
    int nguards_code;
    char *file, *func, *code;
    char *inner_frames;  /* pb_at_inner: frames below the pb_at one, or NULL */
    int line;
    char *module_path, *module_type;
    StrMap metas; /* value name -> PbMeta* */
    StrMap declared; /* value name -> PbMeta*: dims given by pb_unbacked */
    StrMap sym_exprs; /* SymInt/SymBool node output -> PbSymExpr*: pb_sym_value */
};

typedef struct PbSymExpr {
    char *expr;
    bool is_bool;
} PbSymExpr;

/* A TensorMeta JSON object in the dialect of era. */
cJSON *pb_tensor_meta_json(const ProgBuilder *pb, PbEra era, DType dtype, int ndim, char *const *dims,
                           bool requires_grad);
void pb_meta_free(void *p);

#endif
