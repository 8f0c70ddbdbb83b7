/*
** ops.h -- the operator registry: what the loader and the interpreter use to
** turn a node's target and inputs into a call of a kernel.
**
** ops_init parses the schema of every entry of the operator table once and
** indexes the targets in a hash table, so loading looks each node's target
** up once and nothing compares target strings at run time; op_bind then
** matches a node's inputs to the schema.  The operator list (one OP() line
** per operator in interp/ops/<family>.def), the OpDef and OpCall types and
** the kernel calling convention are in ops/kernel.h, included here.
*/
#ifndef EP_OPS_H
#define EP_OPS_H

#include "ops/kernel.h"
#include "schema.h"

/* Parse every schema once; reports a malformed table entry (a bug). */
EpStatus ops_init(EpError *err);
void ops_shutdown(void);
const OpDef *op_get(OpId id);
/* A node target ("torch.ops.aten.add.Tensor" or "aten.add.Tensor" or
** "_operator.add") to its registry entry, or NULL if epdbg lacks it. */
const OpDef *op_lookup(const char *target);
/* The name users know ("aten.add.Tensor") from a full target string. */
const char *op_short_target(const char *target);

/* Threads for the kernels and GEMMs (ep_set_threads; default the machine's
** cores; results do not depend on it); `--threads N` sets it. */
void ops_set_blas_threads(int n);
int ops_blas_threads(void);

/* Bind values to op's schema: names[i] (NULL = positional) with vals[i].
** Fills args[0 .. schema nargs-1] with OWNED copies (tensors referenced,
** lists duplicated), taking defaults for what is missing and converting
** where the schema allows (int to float, a single int to int[N]).  Fails
** with a message naming the argument on an unknown or duplicate name, a
** missing required argument, or a value of the wrong kind.  A V_TENSOR with
** t == NULL is accepted as a placeholder for a tensor known only at run
** time (the interpreter's fixups).  Ops flagged OPF_POSITIONAL bind in order
** whatever the names say. */
EpStatus op_bind(const OpDef *op, int n, const char *const *names, const Value *vals, Value *args,
                 EpError *err);

#endif
