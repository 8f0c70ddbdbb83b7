/*
** pytree.h -- flatten stored example inputs by the program's in_spec, and
** the forward's argument names behind the user inputs.
*/
#ifndef EP_PYTREE_H
#define EP_PYTREE_H

#include "pickle.h"
#include "value.h"

/* Flatten obj (the pickled (args, kwargs)) by in_spec (any of the three
** spec forms; NULL or "" flattens sequences and dicts in order).  Leaves
** become Values (tensors referenced); *leaves is a new array the caller
** frees after value_clear on each.  Errors name the input path
** ("inputs[0][1]") and what did not match. */
EpStatus pytree_flatten(const char *in_spec, const PyObj *obj, Value **leaves, int *n, EpError *err);

typedef struct ExportedProgram ExportedProgram;
typedef struct UserInput UserInput;

/* The names of the n user inputs in the user's forward, where the archive
** records one that differs from the placeholder: the signature's
** forward_arg_names when there is one per input; else a keyword argument's
** key from the in_spec's kwargs dict context; else, when every input is
** named the way 2.2-era dynamo named them (L['x'] -> l_x_), the name
** inside.  A new array of n new strings or NULLs. */
char **pytree_arg_names(const ExportedProgram *ep, const UserInput *inputs, int n);

#endif
