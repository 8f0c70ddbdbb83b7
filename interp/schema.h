/*
** schema.h -- operator schemas in native_functions.yaml notation, parsed
** (schema.c) into the argument and return lists that the registry binds a
** node's inputs against (ops.c) and that kernels consult through
** c->op->schema (interp/ops/kernel.h).
**
**   "(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
**
** The types live here, below both the registry and the kernels, so that
** neither has to include the other to read a schema.
*/
#ifndef EP_SCHEMA_H
#define EP_SCHEMA_H

#include "value.h"

typedef enum SchemaType {
    ST_TENSOR,
    ST_TENSOR_LIST,     /* Tensor[] */
    ST_OPT_TENSOR_LIST, /* Tensor?[] */
    ST_INT,             /* int, SymInt */
    ST_FLOAT,
    ST_BOOL,
    ST_STR,
    ST_SCALAR,
    ST_SCALAR_TYPE,
    ST_LAYOUT,
    ST_DEVICE,
    ST_MEMFMT,
    ST_GENERATOR,
    ST_INT_LIST,   /* int[], int[N], SymInt[] */
    ST_FLOAT_LIST,
    ST_BOOL_LIST,
    ST_STR_LIST,
    ST_SCALAR_LIST,
    ST_ANY, /* Python-level ops: whatever the program passes */
} SchemaType;

typedef struct SchemaArg {
    const char *name;
    SchemaType type;
    bool optional;   /* T? */
    bool kwarg_only; /* after '*' */
    bool mutated;    /* Tensor(a!) */
    bool has_default;
    int fixed_len;   /* N of int[N]; 0 if unsized */
    Value dflt;      /* owned by the schema */
} SchemaArg;

typedef struct SchemaRet {
    const char *name; /* may be NULL */
    SchemaType type;
    bool optional;
} SchemaRet;

typedef struct OpSchema {
    int nargs;
    SchemaArg *args;
    int nrets;
    SchemaRet *rets;
} OpSchema;

/* Parse "(Tensor self, int dim=0) -> Tensor".  NULL with err on bad text. */
OpSchema *schema_parse(const char *text, EpError *err);
void schema_free(OpSchema *s);
/* Index of the argument called name, or -1. */
int schema_arg_index(const OpSchema *s, const char *name);
const char *schema_type_name(SchemaType t);

#endif
