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
void node_free(Node *n);         /* what n owns, not n */

/* Node.metadata's member key (keylen bytes) = value (taken): the known keys
** into their fields (the last written wins), any other into the extras. */
void node_meta_set(NodeMeta *m, const char *key, size_t keylen, char *value);
/* The name an old node (without Node.name) goes by: its first output's
** (NULL when it has none). */
char *node_first_output_name(const Node *n);

/* node_reader.c: the node whose JSON text is text[0, len) into *n, for the
** shapes it knows; false (n left zeroed, nothing allocated) for anything
** else, which the cJSON reader then parses.  index names a node with
** neither name nor outputs ("node_3"). */
bool node_read_fast(const char *text, size_t len, Node *n, int index);
/* node_read_fast of the node that begins text[0, len), with anything after
** it: how many bytes it took (it ends at its closing brace), 0 when it
** does not read it.  The nodes list is read with it, so that the text is
** not scanned once more to find where each node ends. */
size_t node_read_prefix(const char *text, size_t len, Node *n, int index);
/* Whether program_load_json uses node_read_fast (default true): the tests
** load every archive both ways and compare. */
void program_load_set_fast(bool on);
long program_load_fast_nodes(void); /* how many it has read in this process */

#endif
