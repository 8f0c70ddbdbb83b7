/*
** elementwise.h -- the pointwise machinery shared by the elementwise family
** (elementwise*.c): how an op's operands reach a typed inner loop, and the
** macros that stamp those loops once per compute type.
**
** The path of every pointwise kernel, as PyTorch's TensorIterator takes it:
**
**   operands --(convert to the op's common dtype)--> compute type --> fn
**   fn's result --(convert)--> output dtype
**
** The compute type is the common dtype itself, except that float16 and
** bfloat16 compute in float32 ("opmath") and round once when stored.  A
** kernel's typed functions see plain contiguous arrays of the compute type:
** the runner gathers strided or converted operands into small blocks, or
** passes the tensor's memory straight through when it already has the right
** type and unit stride.
*/
#ifndef EP_OPS_ELEMENTWISE_H
#define EP_OPS_ELEMENTWISE_H

#include "interp/dtype_vec.h"
#include "kernel.h"

#define EW_MAX_IN 4

/* Parameters a kernel's typed functions read (alpha, clamp bounds, ...),
** filled by the op before running: values for floating kernels in f[],
** for integer and bool kernels in i[]; each kernel's comment says which
** slots it reads (some keep mode flags in i[] for both). */
typedef struct EwArgs {
    double f[4];
    int64_t i[4];
    DType dtype;     /* the op's common dtype (set by ew_execute) */
    DType mid_dtype; /* float16/bfloat16: a kernel rounds its intermediate
                     ** result to it where PyTorch's Half arithmetic does;
                     ** anything else (the zero default): no rounding */
    bool zero_div;   /* set by integer division or remainder by zero */
} EwArgs;

/* A typed inner function: n results into out from in[0 .. nin-1], every
** array contiguous and of the kernel's compute type (bool outputs and
** loads are uint8 0/1). */
typedef void (*EwFn)(char *out, char *const *in, int64_t n, EwArgs *p);

/* One pointwise kernel: its typed functions indexed by compute dtype
** (float16 and bfloat16 compute in float32; the DT_BF16 slot, where set,
** is a one-pass bfloat16-to-bfloat16 loop of the float32 function: see
** EW_BF16_LOOP).  A NULL
** slot is a dtype PyTorch's kernel refuses; name is the kernel name PyTorch
** reports then ("\"hypot_cpu\" not implemented for 'Int'"). */
typedef struct EwKernel {
    const char *name;
    EwFn fn[DT_COUNT];
} EwKernel;

/* A pointwise call, described by the op and run by ew_execute. */
typedef struct EwCall {
    const EwKernel *kernel;
    int nin;
    Tensor *in[EW_MAX_IN]; /* borrowed; broadcast together */
    DType common;          /* operands are converted to this first */
    DType via[EW_MAX_IN];  /* per operand override of common (DT_INVALID:
                           ** none), e.g. float32 for a reduced-float op's
                           ** scalar, or bool for a condition */
    DType load[EW_MAX_IN]; /* per operand type fn reads (DT_INVALID: the
                           ** compute type of common) */
    bool bool_out;         /* fn writes bools (comparisons, predicates) */
    DType out_dtype;       /* dtype of a new result; DT_INVALID: the common
                           ** dtype, or bool when bool_out */
    Tensor *self_out;      /* in-place destination (also one of in[]), or NULL */
    bool any_out_dtype;    /* in place: store without PyTorch's can_cast check
                           ** (comparisons write 0/1 into any dtype) */
    EwArgs args;
} EwCall;

/* Copy n bytes from src to dst (not overlapping): the copy kernels' rows
** (cat, index_select, embedding, dense copies such as expand_copy), by a
** plain vector loop: glibc's memcpy switches to `rep movsb` from 2-4 KiB
** on, and GCC inlines a memcpy of bounded size as `rep movsq`, both 2-3x
** slower than a vector loop on some CPUs (AMD EPYC here) for such rows. */
void ew_copy_bytes(void *dst, const void *src, size_t n);

/* The float32 compute type of float16/bfloat16, else t itself. */
DType ew_compute_dtype(DType t);

/* Run e: check the kernel supports e->common, broadcast the operands, make
** or check the destination, convert and compute.  On success the result
** (new, or a new reference to e->self_out) is stored in c->outs[0].  Fails
** with PyTorch's wording on an unsupported dtype, shapes that do not
** broadcast, an in-place result that cannot be cast or reshaped into self,
** and integer division by zero ("ZeroDivisionError"). */
EpStatus ew_execute(OpCall *c, EwCall *e);

/* With on, every pointwise call takes the reference path: the broadcasting
** iterator and EW_BLOCK-element gathers, on the calling thread.  Tests
** compare the fast paths (long direct runs, broadcast biases, the pool's
** threads) with it; off (the default) gives the same bits faster. */
void ew_set_reference_path(bool on);
/* Whether it is on (the shape family's copies follow it too). */
bool ew_reference_path(void);

/* Set up *e for kernel k over nin operands with every override cleared. */
void ew_call_init(EwCall *e, const EwKernel *k, int nin, Tensor *const *in, DType common);

/* ---- common op shapes ---------------------------------------------------- */

enum {
    EWF_FLOAT = 1 << 0,         /* integer and bool operands compute in float32 */
    EWF_BOOL_OUT = 1 << 1,      /* result is bool (comparison, predicate) */
    EWF_OPMATH_SCALAR = 1 << 2, /* float16/bfloat16: a single-element last
                                ** operand keeps float32 precision */
    EWF_INPLACE = 1 << 3,       /* write into the first operand */
    EWF_SAME_DTYPE = 1 << 4,    /* result keeps the first operand's dtype */
};

/* The common dtype of operands in[] under flags: torch.result_type, the
** first operand's dtype under EWF_SAME_DTYPE, float32 for integers and bool
** under EWF_FLOAT. */
DType ew_common_dtype(int nin, Tensor *const *in, unsigned flags);

/* EWF_INPLACE for ops registered with OPF_INPLACE (add_, relu_ ...). */
static inline unsigned ew_inplace_flag(const OpCall *c)
{
    return (c->op->flags & OPF_INPLACE) ? EWF_INPLACE : 0u;
}

/* Run kernel k over operands in[0 .. nin-1] with ew_common_dtype.  args may
** be NULL.  Result in c->outs[0]. */
EpStatus ew_pointwise(OpCall *c, const EwKernel *k, int nin, Tensor *const *in, unsigned flags,
                      const EwArgs *args);

/* The C++ type name PyTorch's cast-overflow messages print ("int64_t",
** "at::Half"). */
const char *ew_c_type_name(DType t);

/* The largest finite value of floating dtype t (numeric_limits::max);
** float64's for any other dtype. */
double ew_float_max(DType t);

/* c10::canCast: no float to integral, no non-bool to bool. */
bool ew_can_cast(DType from, DType to);

/* c10::checked_convert of a Scalar into dtype t: fails with "value cannot be
** converted to type int8_t without overflow" where PyTorch does; on success
** stores the element (dtype t) at *dst when dst is not NULL. */
EpStatus ew_scalar_to_dtype(OpCall *c, const Value *v, DType t, void *dst);

/* A Scalar's value as int64, as c10 converts a double to an integer type:
** truncation, with nan and out-of-range values (undefined in C) giving
** INT64_MIN as x86 does. */
static inline int64_t ew_scalar_i64(const Value *v)
{
    if (v->kind == V_BOOL)
        return v->b;
    if (v->kind != V_FLOAT)
        return v->i;
    return (v->f > -9223372036854775808.0 && v->f < 9223372036854775808.0) ? (int64_t)v->f : INT64_MIN;
}

/* float32 x rounded to float16 or bfloat16 when t is one of them: the
** rounding c10::Half arithmetic applies to an intermediate. */
static inline float ew_round_to(DType t, float x)
{
    if (t == DT_F16)
        return f16_to_f32(f32_to_f16(x));
    if (t == DT_BF16)
        return bf16_to_f32(f32_to_bf16(x));
    return x;
}

/* The broadcast shape of n tensors (NULLs skipped), or PyTorch's "The size
** of tensor a (3) must match the size of tensor b (4) at non-singleton
** dimension 1". */
EpStatus ew_broadcast_shape(OpCall *c, int n, Tensor *const *ts, int *ndim, int64_t *shape);

/* The Scalar argument i as a wrapped tensor and kernel k run on (self,
** scalar) or (scalar, self): the .Scalar overloads of binary ops. */
EpStatus ew_binary_scalar(OpCall *c, const EwKernel *k, int self_arg, int scalar_arg, bool scalar_first,
                          unsigned flags, const EwArgs *args);

/* clamp with Scalar bounds (min or max may be NULL or None): the bounds
** promote a non-floating self (int tensor, float bound: float32), in place
** only when that keeps self's dtype; with both bounds a nan bound gives nan.
** relu and hardtanh run on it.  Result in c->outs[0]. */
EpStatus ew_clamp_scalar(OpCall *c, Tensor *self, const Value *min, const Value *max, bool inplace);

/* ---- stamping typed loops ------------------------------------------------- */

/*
** EW_LOOP1/2/3(FN, TYPE, UTYPE, OTYPE, expr) define
**   static void FN(char *out, char *const *in, int64_t n, EwArgs *p)
** computing out[i] = expr for every i, where the expression sees the
** operands as a, b, c (of type T = TYPE), U (= UTYPE, the unsigned type of
** the same width, for wrapping integer arithmetic), and the parameters p.
** OTYPE is the output element type (T, or uint8_t for bool results).
**
** The EW_*_TYPES(STAMP, NAME, expr) lists stamp one function per compute
** type, named NAME_f32, NAME_f64, NAME_u8 ... NAME_i64, NAME_b; the
** EW_*_SLOTS(NAME) lists put them into an EwKernel's table.
*/
#define EW_LOOP_HEAD(FN, TYPE, UTYPE, OTYPE)                                                    \
    static void FN(char *out_, char *const *in_, int64_t n, EwArgs *p)                           \
    {                                                                                            \
        typedef TYPE T;                                                                          \
        typedef UTYPE U;                                                                         \
        OTYPE *out = (OTYPE *)(void *)out_;                                                      \
        EP_UNUSED(p);                                                                            \
        EP_UNUSED(in_);                                                                          \
        EP_UNUSED(sizeof(U));

#define EW_LOOP1(FN, TYPE, UTYPE, OTYPE, ...)                                                   \
    EW_LOOP_HEAD(FN, TYPE, UTYPE, OTYPE)                                                         \
    const T *in0 = (const T *)(const void *)in_[0];                                              \
    for (int64_t i = 0; i < n; i++) {                                                            \
        const T a = in0[i];                                                                      \
        EP_UNUSED(a);                                                                            \
        out[i] = (OTYPE)(__VA_ARGS__);                                                           \
    }                                                                                            \
    }

#define EW_LOOP2(FN, TYPE, UTYPE, OTYPE, ...)                                                   \
    EW_LOOP_HEAD(FN, TYPE, UTYPE, OTYPE)                                                         \
    const T *in0 = (const T *)(const void *)in_[0];                                              \
    const T *in1 = (const T *)(const void *)in_[1];                                              \
    for (int64_t i = 0; i < n; i++) {                                                            \
        const T a = in0[i], b = in1[i];                                                          \
        EP_UNUSED(a);                                                                            \
        EP_UNUSED(b);                                                                            \
        out[i] = (OTYPE)(__VA_ARGS__);                                                           \
    }                                                                                            \
    }

#define EW_LOOP3(FN, TYPE, UTYPE, OTYPE, ...)                                                   \
    EW_LOOP_HEAD(FN, TYPE, UTYPE, OTYPE)                                                         \
    const T *in0 = (const T *)(const void *)in_[0];                                              \
    const T *in1 = (const T *)(const void *)in_[1];                                              \
    const T *in2 = (const T *)(const void *)in_[2];                                              \
    for (int64_t i = 0; i < n; i++) {                                                            \
        const T a = in0[i], b = in1[i], c = in2[i];                                              \
        EP_UNUSED(a);                                                                            \
        EP_UNUSED(b);                                                                            \
        EP_UNUSED(c);                                                                            \
        out[i] = (OTYPE)(__VA_ARGS__);                                                           \
    }                                                                                            \
    }

/*
** EW_VLOOP1/2/3 stamp the same functions for kernels whose expression the
** compiler can vectorize (arithmetic, comparisons, clamps: no libm call).
** The expression becomes an inline function of one element (FN_one); the
** loop runs it in fixed blocks of EW_VEC elements, which -O2's cheap
** vectorizer takes, and the loop is built for AVX2 with FMA (x86-64-v3)
** and plain x86-64, picked at load time (target_clones), so the default
** build runs on any x86-64.  No AVX-512 clone: these loops stream memory,
** and 512-bit stores made them 3-5 % slower (1M-element add, mul, sub,
** div, rsub, hardswish on an AVX-512 EPYC; Intel's AVX-512 lowers the
** clock besides).  The clones give the same bits: IEEE +, -, *, / and
** comparisons round alike in every instruction set, and -std=c11 keeps the
** compiler from fusing a * b + c (op_fma fuses where PyTorch does).  The parameters are read from a local
** copy, which a store to out cannot change (an integer division by zero is
** copied back).  ivdep: out is a separate array or exactly one of the
** inputs (ew_execute copies an operand that overlaps it otherwise), so no
** iteration reads what an earlier one wrote.
*/
#define EW_VEC 64
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EW_SIMD __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EW_SIMD
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define EW_IVDEP _Pragma("GCC ivdep")
#else
#define EW_IVDEP /* clang (the fuzzing build) has no such pragma */
#endif

#define EW_VONE_HEAD(FN, TYPE, UTYPE, OTYPE)                                                    \
    static inline __attribute__((always_inline)) OTYPE FN##_one(TYPE a, TYPE b, TYPE c, EwArgs *p) \
    {                                                                                            \
        typedef TYPE T;                                                                          \
        typedef UTYPE U;                                                                         \
        EP_UNUSED(a);                                                                            \
        EP_UNUSED(b);                                                                            \
        EP_UNUSED(c);                                                                            \
        EP_UNUSED(p);                                                                            \
        EP_UNUSED(sizeof(T));                                                                    \
        EP_UNUSED(sizeof(U));

/* The loop over NIN inputs (1 to 3; the unused ones alias in0). */
#define EW_VLOOP_BODY(FN, TYPE, OTYPE, NIN)                                                     \
    EW_SIMD static void FN(char *out_, char *const *in_, int64_t n, EwArgs *p_)                  \
    {                                                                                            \
        EwArgs pl = *p_;                                                                         \
        OTYPE *out = (OTYPE *)(void *)out_;                                                      \
        const TYPE *in0 = (const TYPE *)(const void *)in_[0];                                    \
        const TYPE *in1 = (const TYPE *)(const void *)in_[NIN > 1 ? 1 : 0];                      \
        const TYPE *in2 = (const TYPE *)(const void *)in_[NIN > 2 ? 2 : 0];                      \
        EP_UNUSED(in0);                                                                          \
        EP_UNUSED(in1);                                                                          \
        EP_UNUSED(in2);                                                                          \
        int64_t i = 0;                                                                           \
        for (; i + EW_VEC <= n; i += EW_VEC) {                                                   \
            EW_IVDEP for (int j = 0; j < EW_VEC; j++)                                            \
                out[i + j] = FN##_one(in0[i + j], in1[i + j], in2[i + j], &pl);                  \
        }                                                                                        \
        for (; i < n; i++)                                                                       \
            out[i] = FN##_one(in0[i], in1[i], in2[i], &pl);                                      \
        if (pl.zero_div)                                                                         \
            p_->zero_div = true;                                                                 \
    }

/*
** bfloat16 in, bfloat16 out, in one pass: EW_FLOAT_TYPES stamps NAME_bf16
** for the EW_VLOOP kernels (EW_VLOOPn_BF16; the other stamps add nothing),
** and EW_FLOAT_SLOTS_BF16 puts it in the kernel's DT_BF16 slot, which the
** runner calls when every operand and the output are contiguous bfloat16.
** Each block of EW_VEC elements is widened (bfloat16 is float32's upper
** half: exact), computed by the float32 function's own element function,
** and rounded to bfloat16 once (dtype_vec.h's lane conversions, the bits of
** f32_to_bf16): the bits of the three passes the runner makes otherwise
** (widen a block, compute it, narrow it), which took twice PyTorch's
** time on a bfloat16 neg or sqrt.
*/
/* Unlike the float32 loops these keep an AVX-512 clone: widening and
** rounding are most of their work, and sixteen lanes did it in 0.73 of the
** AVX2 clone's time (bfloat16 neg, sqrt, rsqrt, relu on 1M values). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EW_SIMD_BF16 __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EW_SIMD_BF16
#endif
#define EW_BF16_LOOP(NAME, NIN)                                                                 \
    EW_SIMD_BF16 static void NAME##_bf16(char *out_, char *const *in_, int64_t n, EwArgs *p_)         \
    {                                                                                            \
        EwArgs pl = *p_;                                                                         \
        uint16_t *out = (uint16_t *)(void *)out_;                                                \
        const uint16_t *in0 = (const uint16_t *)(const void *)in_[0];                            \
        const uint16_t *in1 = (const uint16_t *)(const void *)in_[NIN > 1 ? 1 : 0];              \
        const uint16_t *in2 = (const uint16_t *)(const void *)in_[NIN > 2 ? 2 : 0];              \
        int64_t i = 0;                                                                           \
        for (; i + EW_VEC <= n; i += EW_VEC) {                                                   \
            float t[EW_VEC];                                                                     \
            EW_IVDEP for (int j = 0; j < EW_VEC; j++)                                            \
                t[j] = NAME##_f32_one(bf16_to_f32_lane(in0[i + j]), bf16_to_f32_lane(in1[i + j]),      \
                                      bf16_to_f32_lane(in2[i + j]), &pl);                           \
            EW_IVDEP for (int j = 0; j < EW_VEC; j++)                                            \
                out[i + j] = f32_to_bf16_lane(t[j]);                                               \
        }                                                                                        \
        for (; i < n; i++)                                                                       \
            out[i] = f32_to_bf16_lane(                                                             \
                NAME##_f32_one(bf16_to_f32_lane(in0[i]), bf16_to_f32_lane(in1[i]), bf16_to_f32_lane(in2[i]), &pl)); \
        if (pl.zero_div)                                                                         \
            p_->zero_div = true;                                                                 \
    }
#define EW_VLOOP1_BF16(NAME) EW_BF16_LOOP(NAME, 1)
#define EW_VLOOP2_BF16(NAME) EW_BF16_LOOP(NAME, 2)
#define EW_VLOOP3_BF16(NAME) EW_BF16_LOOP(NAME, 3)
#define EW_LOOP1_BF16(NAME)
#define EW_LOOP2_BF16(NAME)
#define EW_LOOP3_BF16(NAME)

#define EW_VLOOP1(FN, TYPE, UTYPE, OTYPE, ...)                                                  \
    EW_VONE_HEAD(FN, TYPE, UTYPE, OTYPE) return (OTYPE)(__VA_ARGS__); }                          \
    EW_VLOOP_BODY(FN, TYPE, OTYPE, 1)
#define EW_VLOOP2(FN, TYPE, UTYPE, OTYPE, ...)                                                  \
    EW_VONE_HEAD(FN, TYPE, UTYPE, OTYPE) return (OTYPE)(__VA_ARGS__); }                          \
    EW_VLOOP_BODY(FN, TYPE, OTYPE, 2)
#define EW_VLOOP3(FN, TYPE, UTYPE, OTYPE, ...)                                                  \
    EW_VONE_HEAD(FN, TYPE, UTYPE, OTYPE) return (OTYPE)(__VA_ARGS__); }                          \
    EW_VLOOP_BODY(FN, TYPE, OTYPE, 3)

/* Result of the compute type (T) or bool (uint8_t) for each type list. */
#define EW_FLOAT_TYPES(STAMP, NAME, ...)                                                        \
    STAMP(NAME##_f32, float, float, float, __VA_ARGS__)                                          \
    STAMP(NAME##_f64, double, double, double, __VA_ARGS__)                                       \
    STAMP##_BF16(NAME)
#define EW_INT_TYPES(STAMP, NAME, ...)                                                          \
    STAMP(NAME##_u8, uint8_t, uint8_t, uint8_t, __VA_ARGS__)                                     \
    STAMP(NAME##_i8, int8_t, uint8_t, int8_t, __VA_ARGS__)                                       \
    STAMP(NAME##_i16, int16_t, uint16_t, int16_t, __VA_ARGS__)                                   \
    STAMP(NAME##_i32, int32_t, uint32_t, int32_t, __VA_ARGS__)                                   \
    STAMP(NAME##_i64, int64_t, uint64_t, int64_t, __VA_ARGS__)
#define EW_BOOL_TYPE(STAMP, NAME, ...) STAMP(NAME##_b, uint8_t, uint8_t, uint8_t, __VA_ARGS__)

#define EW_FLOAT_TYPES_TO_BOOL(STAMP, NAME, ...)                                                \
    STAMP(NAME##_f32, float, float, uint8_t, __VA_ARGS__)                                        \
    STAMP(NAME##_f64, double, double, uint8_t, __VA_ARGS__)
#define EW_INT_TYPES_TO_BOOL(STAMP, NAME, ...)                                                  \
    STAMP(NAME##_u8, uint8_t, uint8_t, uint8_t, __VA_ARGS__)                                     \
    STAMP(NAME##_i8, int8_t, uint8_t, uint8_t, __VA_ARGS__)                                      \
    STAMP(NAME##_i16, int16_t, uint16_t, uint8_t, __VA_ARGS__)                                   \
    STAMP(NAME##_i32, int32_t, uint32_t, uint8_t, __VA_ARGS__)                                   \
    STAMP(NAME##_i64, int64_t, uint64_t, uint8_t, __VA_ARGS__)

#define EW_FLOAT_SLOTS(NAME) [DT_F32] = NAME##_f32, [DT_F64] = NAME##_f64
#define EW_FLOAT_SLOTS_BF16(NAME) EW_FLOAT_SLOTS(NAME), [DT_BF16] = NAME##_bf16
#define EW_INT_SLOTS(NAME)                                                                      \
    [DT_U8] = NAME##_u8, [DT_I8] = NAME##_i8, [DT_I16] = NAME##_i16, [DT_I32] = NAME##_i32,     \
    [DT_I64] = NAME##_i64
#define EW_BOOL_SLOT(NAME) [DT_BOOL] = NAME##_b

/* Inside a stamped float loop: x rounded to p->mid_dtype when that is
** float16 or bfloat16 (PyTorch's Half arithmetic), else x unchanged. */
#define EW_ROUND_MID(x)                                                                         \
    ((p->mid_dtype == DT_F16 || p->mid_dtype == DT_BF16) ? (T)ew_round_to(p->mid_dtype, (float)(x)) : (x))

/* Signed-integer helpers for expressions: the most negative value of T
** (for INT_MIN / -1, which C leaves undefined and PyTorch wraps). */
#define EW_IS_SIGNED(T) ((T)-1 < (T)0)
#define EW_TMIN(T) (EW_IS_SIGNED(T) ? (T)((U)1 << (sizeof(T) * 8 - 1)) : (T)0)
/* x < 0 for an integer x of type T, without comparing unsigned types with
** zero (which the compiler flags as always false) */
#define EW_IS_NEG(x) (EW_IS_SIGNED(T) && ((uint64_t)(U)(x) >> (sizeof(T) * 8 - 1)) != 0)

#endif
