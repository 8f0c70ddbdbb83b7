/*
** table.h -- the operator table built from ops.def (table.c), indexed by
** OpId.
**
** Only the registry's front (interp/ops.c) includes this: ops_init fills
** each entry's schema before the first call and ops_shutdown frees them.
** Everyone else reaches entries read-only, through op_get, op_lookup or a
** call's c->op.
*/
#ifndef EP_OPS_TABLE_H
#define EP_OPS_TABLE_H

#include "kernel.h"

extern OpDef OP_TABLE[OP_COUNT];

#endif
