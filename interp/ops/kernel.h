/*
** kernel.h -- what every kernel sees: the operator list, the calling
** convention, argument accessors and the helpers all families share.
** Kernel files include it (through their family's header); the registry's
** front, interp/ops.h, includes it too and adds lookup and binding.
**
** Every operator epdbg can run is one line of its family's .def file in
** this folder (ops.def includes them all):
**
**   OP(ID, "target", "schema", kernel, flags, shape_rule)
**
**   ID      enum suffix: OP_<ID>
**   target  the node target without "torch.ops.": "aten.add.Tensor",
**           "aten.relu.default", "_operator.add", "quantized_decomposed..."
**   schema  arguments and returns in native_functions.yaml notation:
**           "(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
**   kernel  EpStatus kernel(OpCall *c); several targets may share one
**   flags   OPF_* below
**   shape_rule  SR_* below: how the output sizes follow from the inputs'
**           over symbolic sizes (interp/shape_rules.h runs them)
**
** Adding an operator is that line plus its kernel function in one of the
** family's .c files.  From the list come the OpId enum and the kernels'
** declarations (here), and the table of entries (table.c), whose schemas
** the registry (interp/ops.c) parses once and whose targets it indexes, so
** nothing compares target strings at run time.
**
** Calling convention.  The loader binds a node's named inputs to the schema
** by name, fills defaults, and checks kinds, so a kernel receives argument i
** in schema order -- read only through the accessors below -- with these
** kinds (anything else is a loader bug):
**   Tensor            V_TENSOR (a Python number given for a Tensor becomes a
**                     0-d "wrapped number" tensor: Tensor.wrapped_number)
**                                              Tensor?      V_TENSOR or V_NONE
**   Tensor[]          V_LIST of V_TENSOR       Tensor?[]    V_LIST of V_TENSOR/V_NONE
**   int, SymInt       V_INT                    float        V_FLOAT (ints widened)
**   bool              V_BOOL                   str          V_STR
**   Scalar            V_INT, V_FLOAT or V_BOOL (as written in the program)
**   int[], SymInt[]   V_LIST of V_INT (int[N] given one value is expanded to N)
**   float[]           V_LIST of V_FLOAT        bool[]       V_LIST of V_BOOL
**   ScalarType        V_DTYPE                  Layout       V_LAYOUT
**   Device            V_DEVICE                 MemoryFormat V_MEMFMT
**   any "T?"          additionally V_NONE
** The kernel stores its results in c->outs[0 .. c->nouts-1] (nouts = the
** number of schema returns; a Tensor[] return is one V_LIST).  Outputs are
** OWNED by the caller afterwards; arguments stay borrowed.  A view op
** returns a new Tensor sharing the input's storage.  An in-place op (flag
** OPF_INPLACE) writes into args[0]'s tensor and returns a new reference to
** that same Tensor.  On failure a kernel returns ep_fail(c->err, ...) and
** leaves outs unset (or V_NONE); it must not leak what it allocated.
**
** The helpers declared here that are not inline (arg_int_list,
** arg_float_list, op_fail, result_type) are defined in kernel.c, op_invoke
** in table.c.  Kernels call down into interp/ (tensors, values, dtypes) and
** within this folder only; nothing in this folder calls the registry's
** front (interp/ops.c).
*/
#ifndef EP_OPS_KERNEL_H
#define EP_OPS_KERNEL_H

#include <math.h>

#include "../schema.h"

enum {
    OPF_INPLACE = 1 << 0,    /* mutates args[0] and returns it */
    OPF_VIEW = 1 << 1,       /* result shares storage with args[0] */
    OPF_RANDOM = 1 << 2,     /* draws random numbers */
    OPF_POSITIONAL = 1 << 3, /* Python-level op: bind node inputs by position */
    OPF_NO_OUTPUT = 1 << 4,  /* assertion-like: no result, runs for effect */
};

/* Shape-rule families: each names one function of interp/shape_rules.c
** (its table maps them), which computes an operator's output sizes and the
** conditions it imposes from symbolic input sizes.  SR_RECORDED is the
** fallback for ops without a rule: the archive's recorded output shape. */
typedef enum ShapeRule {
    SR_RECORDED, SR_SAME, SR_BROADCAST, SR_REDUCE, SR_TOPK,
    SR_MM, SR_BMM, SR_ADDMM, SR_MATMUL, SR_LINEAR, SR_ATTENTION,
    SR_VIEW, SR_AS, SR_FLATTEN, SR_UNFLATTEN, SR_PERMUTE, SR_SQUEEZE, SR_UNSQUEEZE,
    SR_EXPAND, SR_SLICE, SR_SELECT, SR_CAT, SR_STACK, SR_SPLIT, SR_UNBIND, SR_REPEAT,
    SR_PAD, SR_CONV, SR_POOL,
    SR_INDEX_SELECT, SR_GATHER, SR_EMBEDDING,
    SR_FACTORY, SR_ARANGE, SR_SCALAR,
    SR_SYM, SR_SYM_SIZE, SR_UNBACKED, SR_ASSERT, SR_CONSTRAIN, SR_EFFECT,
    /* issue 11: the families of the ops that had none */
    SR_SIZED, SR_TRI_INDICES, SR_MULTINOMIAL,
    SR_INDEX, SR_TAKE, SR_TAKE_ALONG, SR_NONZERO_STATIC, SR_ONE_HOT, SR_SEARCHSORTED,
    SR_UNIQUE, SR_REPEAT_INTERLEAVE, SR_EMBEDDING_BAG,
    SR_VECMAT, SR_TENSORDOT, SR_EINSUM,
    SR_CONV_TRANSPOSE, SR_ADAPTIVE_POOL, SR_UPSAMPLE, SR_PIXEL_SHUFFLE, SR_GRID_SAMPLER,
    SR_IM2COL, SR_COL2IM,
    SR_BATCH_NORM, SR_LAYER_NORM, SR_GROUP_NORM, SR_SDPA, SR_DISTANCE, SR_QPARAMS,
    SR_RAVEL, SR_ATLEAST, SR_BROADCAST_TENSORS, SR_DIAGONAL, SR_DIAG_EMBED, SR_UNFOLD,
    SR_CHUNK, SR_MESHGRID, SR_STACK_VARIANT, SR_ROT90, SR_BLOCK_DIAG, SR_GLU,
    SR_COUNT
} ShapeRule;

typedef enum OpId {
#define OP(id, target, schema, fn, flags, rule) OP_##id,
#include "ops.def"
#undef OP
    OP_COUNT
} OpId;

typedef struct OpCall OpCall;
typedef EpStatus (*KernelFn)(OpCall *c);

/* One entry of the operator table (table.c): constant apart from schema,
** which the registry's ops_init parses from schema_text before any call
** and ops_shutdown frees. */
typedef struct OpDef {
    OpId id;
    const char *target;      /* "aten.add.Tensor" */
    const char *schema_text;
    KernelFn fn;
    unsigned flags;
    ShapeRule shape_rule;
    OpSchema *schema;        /* parsed by ops_init */
} OpDef;

/* ---- calling kernels ----------------------------------------------------- */

/* Settings kernels consult; one per interpreter, never NULL in a call. */
typedef struct KernelConfig {
    bool use_blas; /* GEMM and convolution through OpenBLAS (else the plain loops) */
} KernelConfig;

extern const KernelConfig KERNEL_CONFIG_DEFAULT;

struct OpCall {
    const OpDef *op;
    /* borrowed, schema order; named only by the accessors (see the poison
    ** after them), so a kernel cannot read an argument past their check */
    Value *arg_values;
    int nargs;
    Value *outs; /* filled by the kernel, owned by the caller */
    int nouts;
    EpError *err;
    const KernelConfig *cfg;
};

#define OP_MAX_RETS 12
#define OP_MAX_ARGS 32

/* Run operator id on args given in schema order; missing trailing args
** (nargs < schema nargs) take their defaults.  outs needs room for the
** schema's returns.  For kernels that build on other ops (the in-place and
** *_copy view forms on their plain view, _unsafe_masked_index on
** _unsafe_index).  Defined beside the table it dispatches through
** (table.c); the schemas must have been parsed (ops_init). */
EpStatus op_invoke(const OpCall *parent, OpId id, int nargs, const Value *args, Value *outs);

/* Declarations of every kernel function named in ops.def. */
#define OP(id, target, schema, fn, flags, rule) EpStatus fn(OpCall *c);
#include "ops.def"
#undef OP

/* ---- argument accessors ----------------------------------------------------
** One accessor per kind of argument; a kernel reads argument i through the
** accessor of its schema type (c->op->schema->args[i].type), which the
** loader has made the value's kind.  Reading a Layout with arg_int, say,
** would see a code, not a number; so, in the debug build (the asan variant,
** which defines EPDBG_CHECK_CONTRACTS), each accessor asserts that the schema type
** is one it serves and otherwise stops the program naming the operator, the
** argument and the accessor -- SQLite checks its opcodes' operands the same
** way.  The kernel suite runs every operator, so a kernel using the wrong
** accessor fails it.  ST_ANY (Python-level ops) passes any accessor.
**
**   accessor           schema types
**   arg_is_none        any
**   arg_tensor         Tensor, Tensor?
**   arg_int            int, SymInt, Scalar            arg_float   float, Scalar
**   arg_bool           bool, SymBool                  arg_str     str
**   arg_scalar         Scalar (the Value as written)  arg_value   the types the kernel names
**   arg_list           any list type                  arg_int_list int[], SymInt[], int
**                                                     (an int as a one-item list: kernels
**                                                     shared by .dim and .dims overloads)
**   arg_float_list     float[], float (likewise)
**   arg_dtype          ScalarType                     arg_layout  Layout
**   arg_memory_format  MemoryFormat                   arg_device  Device
**   op_forward         all arguments, handed unread to another operator */

#define SCHEMA_BIT(t) (1u << (t))
enum {
    SCHEMA_LIST_BITS = SCHEMA_BIT(ST_TENSOR_LIST) | SCHEMA_BIT(ST_OPT_TENSOR_LIST) | SCHEMA_BIT(ST_INT_LIST) |
                       SCHEMA_BIT(ST_FLOAT_LIST) | SCHEMA_BIT(ST_BOOL_LIST) | SCHEMA_BIT(ST_STR_LIST) |
                       SCHEMA_BIT(ST_SCALAR_LIST),
};

/* Print "internal error: <target> reads argument 'name' (type) with
** accessor" and abort: a kernel bug, never a property of the input. */
void arg_kind_violation(const OpCall *c, int i, const char *accessor) __attribute__((noreturn));

/* The contract check every accessor makes in the debug build; a no-op in
** release, where it would cost ~20 instructions a node of dispatch. */
static inline void arg_expect(const OpCall *c, int i, unsigned types, const char *accessor)
{
#ifdef EPDBG_CHECK_CONTRACTS
    if (i < 0 || i >= c->nargs ||
        !((types | SCHEMA_BIT(ST_ANY)) & SCHEMA_BIT(c->op->schema->args[i].type)))
        arg_kind_violation(c, i, accessor);
#else
    (void)c, (void)i, (void)types, (void)accessor;
#endif
}

static inline bool arg_is_none(const OpCall *c, int i)
{
    arg_expect(c, i, ~0u, "arg_is_none");
    return c->arg_values[i].kind == V_NONE;
}
/* The tensor, or NULL for None. */
static inline Tensor *arg_tensor(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_TENSOR), "arg_tensor");
    return c->arg_values[i].kind == V_TENSOR ? c->arg_values[i].t : NULL;
}
static inline int64_t arg_int(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_INT) | SCHEMA_BIT(ST_SCALAR), "arg_int");
    const Value *v = &c->arg_values[i];
    return v->kind == V_INT ? v->i : v->kind == V_BOOL ? v->b : (int64_t)v->f;
}
static inline double arg_float(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_FLOAT) | SCHEMA_BIT(ST_SCALAR), "arg_float");
    return value_as_f64(&c->arg_values[i]);
}
static inline bool arg_bool(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_BOOL), "arg_bool");
    const Value *v = &c->arg_values[i];
    return v->kind == V_BOOL ? v->b : v->kind == V_INT ? v->i != 0 : v->f != 0;
}
static inline const char *arg_str(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_STR), "arg_str");
    return c->arg_values[i].kind == V_STR ? c->arg_values[i].s : NULL;
}
/* A Scalar argument as the program wrote it (V_INT, V_FLOAT, V_BOOL; V_NONE
** for a None Scalar?). */
static inline const Value *arg_scalar(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_SCALAR), "arg_scalar");
    return &c->arg_values[i];
}
/* The raw Value of an argument whose kinds the kernel dispatches on itself
** (a Tensor-or-Scalar operand, a SymInt-or-SymFloat, ...); types is the
** set of schema types the kernel handles. */
static inline const Value *arg_value(const OpCall *c, int i, unsigned types)
{
    arg_expect(c, i, types, "arg_value");
    return &c->arg_values[i];
}
static inline const ValueList *arg_list(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_LIST_BITS, "arg_list");
    return c->arg_values[i].kind == V_LIST ? c->arg_values[i].list : NULL;
}
/* dtype argument, or dflt when None. */
static inline DType arg_dtype(const OpCall *c, int i, DType dflt)
{
    arg_expect(c, i, SCHEMA_BIT(ST_SCALAR_TYPE), "arg_dtype");
    return c->arg_values[i].kind == V_DTYPE ? (DType)c->arg_values[i].i : dflt;
}
/* Layout code (LAYOUT_STRIDED ...), or dflt when None. */
static inline int arg_layout(const OpCall *c, int i, int dflt)
{
    arg_expect(c, i, SCHEMA_BIT(ST_LAYOUT), "arg_layout");
    return c->arg_values[i].kind == V_LAYOUT ? (int)c->arg_values[i].i : dflt;
}
/* MemoryFormat code (MF_CONTIGUOUS ...), or dflt when None. */
static inline int arg_memory_format(const OpCall *c, int i, int dflt)
{
    arg_expect(c, i, SCHEMA_BIT(ST_MEMFMT), "arg_memory_format");
    return c->arg_values[i].kind == V_MEMFMT ? (int)c->arg_values[i].i : dflt;
}
/* Device ("cpu", "cuda:0"), or NULL when None. */
static inline const char *arg_device(const OpCall *c, int i)
{
    arg_expect(c, i, SCHEMA_BIT(ST_DEVICE), "arg_device");
    return c->arg_values[i].kind == V_DEVICE ? c->arg_values[i].s : NULL;
}
/* Copy an int list into out (room for max); returns its length, or -1 if the
** argument is None or longer than max.  An int argument reads as a list of
** one. */
int arg_int_list(const OpCall *c, int i, int64_t *out, int max);
/* The same for a float list (upsample's scale_factors); a float reads as a
** list of one. */
int arg_float_list(const OpCall *c, int i, double *out, int max);

/* Run operator id on this call's own arguments (a form whose schema is the
** plain op's: squeeze_copy on squeeze, ...); that kernel reads them through
** its accessors. */
static inline EpStatus op_forward(const OpCall *c, OpId id, Value *outs)
{
    return op_invoke(c, id, c->nargs, c->arg_values, outs);
}

/* From here on the compiler rejects any mention of the argument array, so
** every read of an argument goes through an accessor above and its check.
** kernel.c, which defines the out-of-line accessors, is the one file that
** asks for the array (EP_KERNEL_ACCESSORS); building an OpCall with a
** positional initializer, as the interpreter and op_invoke do, names no
** field. */
#ifndef EP_KERNEL_ACCESSORS
#pragma GCC poison arg_values
#endif

/* Store t (stolen) as output k. */
static inline void out_tensor(OpCall *c, int k, Tensor *t) { c->outs[k] = value_tensor(t); }

/* Failure helper that names the operator: "aten.add.Tensor: <message>". */
EpStatus op_fail(OpCall *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- shared helpers for kernels ------------------------------------------ */

/* torch.result_type over tensor operands and scalar operands, following
** PyTorch's three tiers: dimensioned tensors > zero-dim tensors > Python
** scalars, each contributing only when its category (bool < int < float) is
** higher than what the tiers above gave.  A float Python scalar over integer
** tensors gives float32 (the default dtype).  tensors may contain NULLs
** (skipped); wrapped-number tensors count as Python scalars; scalars are
** Values of kind V_INT/V_FLOAT/V_BOOL. */
DType result_type(int ntensors, Tensor *const *tensors, int nscalars, const Value *scalars);

/* x * y + z rounded once, in x's type (float or double), for the kernels
** PyTorch builds with FMA: its AVX2 and AVX-512 kernels are compiled with
** FMA and GCC contracts a product added to a value, so some of its results
** (add/sub with alpha, addcmul, lerp, interpolation, batch norm) round once
** where the plain C expression rounds twice (checked against PyTorch 1.13
** on random inputs).  fma is exact IEEE on every CPU: the instruction in a
** clone that has it, libm's exact software fallback elsewhere (slower, the
** same bits). */
#define op_fma(x, y, z) _Generic((x), float: fmaf, double: fma)(x, y, z)

#endif
