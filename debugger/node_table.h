/*
** node_table.h -- what the debugger knows about each node of a program
** beyond the interpreter's view: the nn.Module it belongs to, how deeply
** it is nested, its Python stack trace, and the lookups from the names a
** user types (a node name, #N, a unique prefix, a value or FQN) to nodes
** and graph values.
**
** Built once from an interpreter when a session opens and never changed:
** the session (stepping by module scope) and its breakpoints (matching
** FILE:LINE and module locations) read the same table, which depends on
** nothing in the debugger above it.
*/
#ifndef EP_NODE_TABLE_H
#define EP_NODE_TABLE_H

#include "interp/interp.h"
#include "interp/srcinfo.h"

typedef struct NodeInfo {
    char *module_path;   /* innermost nn.Module, dotted ("" at the top) */
    char *module_type;   /* its class ("torch.nn.modules.linear.Linear") */
    int depth;           /* how many module scopes enclose the node */
    SourceFrame *frames; /* the Python stack trace, outermost first */
    int nframes;
    int user_frame;      /* the frame shown by default, numbered as gdb does
                         ** (#0 the innermost): the user's line, not torch's
                         ** (source_user_frame); 0 without frames */
} NodeInfo;

/* Frame #k of ni counted from the innermost (gdb's numbering), or NULL. */
const SourceFrame *node_info_frame(const NodeInfo *ni, int k);
/* The user's frame (#user_frame), or NULL without a stack trace. */
const SourceFrame *node_info_user_frame(const NodeInfo *ni);

typedef struct NodeTable NodeTable;

/* Parse every node's nn_module_stack and stack_trace metadata.  ip is
** borrowed and must outlive the table; its graph must not change. */
NodeTable *node_table_new(const Interp *ip);
void node_table_free(NodeTable *t); /* NULL ok */

int node_table_count(const NodeTable *t);
/* Node 0 <= node < node_table_count(t); the table owns the strings. */
const NodeInfo *node_table_info(const NodeTable *t, int node);

/* A node by name, by "#N" (its index), by the name of a value it defines,
** or by unique prefix of its name; -1 if none (err says why: unknown or
** ambiguous). */
int node_table_find(const NodeTable *t, const char *name, EpError *err);

/* The graph name (placeholder or node output) behind a user's name: the
** name itself, a user input's argument name, a parameter/buffer/constant
** FQN, or a node's name for its first output; NULL if none.  *node is the node defining it (-1 for a
** placeholder).  The string belongs to the interpreter's graph. */
const char *node_table_graph_name(const NodeTable *t, const char *name, int *node);

#endif
