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

/* Strings that live as long as a graph, packed in large chunks: a 100k-node
** graph holds a million short names, and a malloc each was a tenth of
** opening it (and more to free).  A mark taken before a node is read lets
** a node the fast reader gives up on take its strings back. */
typedef struct NameArena NameArena;
typedef struct NameMark {
    void *chunk;
    size_t used;
} NameMark;
NameArena *name_arena_new(void);
void name_arena_free(NameArena *a); /* NULL ok */
/* s[0, n) and a terminating zero, in a. */
char *name_arena_dup(NameArena *a, const char *s, size_t n);
/* Room for n bytes in a (a string decoded into it). */
char *name_arena_alloc(NameArena *a, size_t n);
NameMark name_arena_mark(const NameArena *a);
void name_arena_rewind(NameArena *a, NameMark m);

/* The field of m a known metadata key names (stack_trace, ...), or NULL
** for any other key. */
char **node_meta_slot(NodeMeta *m, const char *key, size_t keylen);
/* Node.metadata's member key (keylen bytes) = value (taken): the known keys
** into their fields (the last written wins), any other into the extras. */
void node_meta_set(NodeMeta *m, const char *key, size_t keylen, char *value);
/* The name an old node (without Node.name) goes by: its first output's
** (NULL when it has none). */
char *node_first_output_name(const Node *n);
const char *node_first_output_ref(const Node *n); /* the same, not copied */

/* node_reader.c: the node whose JSON text is text[0, len) into *n, for the
** shapes it knows; false (n left zeroed, nothing allocated) for anything
** else, which the cJSON reader then parses.  index names a node with
** neither name nor outputs ("node_3"). */
bool node_read_fast(const char *text, size_t len, Node *n, int index);
/* node_read_fast of the node that begins text[0, len), with anything after
** it: how many bytes it took (it ends at its closing brace), 0 when it
** does not read it.  The nodes list is read with it, so that the text is
** not scanned once more to find where each node ends.  names: where its
** strings go (then n->strings_in_arena), or NULL for a malloc each. */
size_t node_read_prefix(const char *text, size_t len, Node *n, int index, NameArena *names);
/* A tensor_values entry's TensorMeta that begins text[0, len), as
** parse_tensor_meta builds it, for the shape schema 5 and later write
** (integer sizes and strides, a device, codes): the bytes it took, 0 (and
** nothing made) for anything else. */
size_t tensor_meta_read_prefix(const char *text, size_t len, TensorMeta **out);
/* Whether program_load_json uses node_read_fast (default true): the tests
** load every archive both ways and compare. */
void program_load_set_fast(bool on);
long program_load_fast_nodes(void); /* how many it has read in this process */
long program_load_fast_metas(void); /* tensor_values entries read by tensor_meta_read_prefix */

#endif
