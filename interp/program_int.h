/*
** program_int.h -- what program_load.c and program.c share: freeing the
** parts the loader builds before they are linked into a program (a part
** whose parse fails is freed on its own).
*/
#ifndef EP_PROGRAM_INT_H
#define EP_PROGRAM_INT_H

#include "program.h"

void symdim_clear(SymDim *d);
void symdim_free(void *p);       /* a SymDim *, as a strmap's free callback */
void tensor_meta_free(void *p);  /* a TensorMeta * */
void sym_scalar_free(void *p);   /* a SymScalarMeta * */

#endif
