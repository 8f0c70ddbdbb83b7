/*
** value.h -- the runtime values that flow between graph nodes and into
** kernels: tensors, SymInt/SymFloat/SymBool scalars, literals and lists.
**
** Ownership: a Value stored in the interpreter's environment or returned by
** a kernel OWNS what it points to (a tensor reference, a list); value_clear
** releases it.  A Value passed to a kernel as an argument is BORROWED.
*/
#ifndef EP_VALUE_H
#define EP_VALUE_H

#include "tensor.h"

typedef enum ValueKind {
    V_NONE,
    V_TENSOR, /* t */
    V_INT,    /* i: int, SymInt */
    V_FLOAT,  /* f: float, SymFloat */
    V_BOOL,   /* b: bool, SymBool */
    V_STR,    /* s (NUL terminated) */
    V_DTYPE,  /* i: a DType */
    V_LAYOUT, /* i: schema Layout code (7 = strided) */
    V_MEMFMT, /* i: schema MemoryFormat code */
    V_DEVICE, /* s: "cpu", "cuda:0" ... */
    V_LIST,   /* list: Tensor[], Tensor?[], int[], float[], bool[], ... */
} ValueKind;

typedef struct ValueList ValueList;

typedef struct Value {
    ValueKind kind;
    union {
        Tensor *t;
        int64_t i;
        double f;
        bool b;
        const char *s;
        ValueList *list;
    };
} Value;

struct ValueList {
    int n;
    Value items[];
};

static inline Value value_none(void) { Value v = {.kind = V_NONE}; return v; }
static inline Value value_int(int64_t i) { Value v = {.kind = V_INT}; v.i = i; return v; }
static inline Value value_float(double f) { Value v = {.kind = V_FLOAT}; v.f = f; return v; }
static inline Value value_bool(bool b) { Value v = {.kind = V_BOOL}; v.b = b; return v; }
/* Steals the reference t. */
static inline Value value_tensor(Tensor *t) { Value v = {.kind = V_TENSOR}; v.t = t; return v; }

/* A list of n V_NONE items (fill them in). */
ValueList *value_list_new(int n);
/* A V_LIST of the n integers v (an int[] argument: dims, sizes, strides). */
Value value_int_list(int n, const int64_t *v);
/* Release what v owns and set it to V_NONE. */
void value_clear(Value *v);
/* A deep-enough copy: tensors get a new reference (not a data copy), lists
** and strings are duplicated. */
Value value_copy(const Value *v);
/* A value as the array a .npy file holds for it (new reference): a tensor
** itself, a scalar as a 0-d int64/float64/bool tensor.  NULL for values
** with no array form (None, strings, lists, ...), err then saying which
** kind it is (EP_ERR_USAGE), or when memory runs out. */
Tensor *value_to_array(const Value *v, EpError *err);
/* A Python number (int, float or bool scalar) passed where an op's schema
** wants a Tensor, as PyTorch wraps it: a 0-d int64/float64/bool tensor
** marked wrapped_number, so type promotion treats it as a scalar (new
** reference; NULL when memory runs out). */
Tensor *value_wrap_number(const Value *v, EpError *err);
/* A full copy: tensors get new storage holding their values (contiguous),
** so writes into one never show in the other.  EP_ERR_EXEC when memory
** runs out (*out is then V_NONE). */
EpStatus value_clone(const Value *v, Value *out, EpError *err);
/* value_clone of n values into a new array (*out, n entries, owned). */
EpStatus values_clone(const Value *v, int n, Value **out, EpError *err);

/* Numeric view of a scalar value (int, float, bool). */
static inline double value_as_f64(const Value *v)
{
    return v->kind == V_FLOAT ? v->f : v->kind == V_BOOL ? (double)v->b : (double)v->i;
}
static inline bool value_is_scalar(const Value *v)
{
    return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL;
}

const char *value_kind_name(ValueKind k);
/* One-line description: "tensor float32[2, 3]", "int 4", "[int 1, int 2]". */
char *value_describe(const Value *v);

#endif
