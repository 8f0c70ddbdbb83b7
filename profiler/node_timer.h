/*
** node_timer.h -- wall time per node of the program's graph, measured
** through the interpreter's hooks (interp.h, "the profiler seam").
**
** A NodeTimer reads CLOCK_MONOTONIC when a top-level node is entered and
** when it is left, so a node's time is its kernel (or, for a higher-order
** node, everything its subgraphs ran) and nothing around it: not the
** stepping loop, not a front end redrawing between nodes.  Subgraph nodes
** are not timed on their own; their time is part of their top-level node.
** A node that fails is timed too (its run up to the failure).
**
**   NodeTimer *t = node_timer_new(interp_num_nodes(ip));
**   InterpHooks h = node_timer_hooks(t);
**   interp_set_hooks(ip, &h);
**   ... interp_step / interp_run ...
**   node_timer_last(t, i)
**
** The timer only observes: it never changes what the interpreter computes.
** It keeps, per node, the time of the last run, the number of runs and
** their sum; a later profiler adds to this (samples, memory), not replaces.
*/
#ifndef EP_NODE_TIMER_H
#define EP_NODE_TIMER_H

#include "interp/interp.h"

typedef struct NodeTimer NodeTimer;

/* A timer for a graph of nnodes top-level nodes, with nothing timed yet. */
NodeTimer *node_timer_new(int nnodes);
void node_timer_free(NodeTimer *t); /* NULL ok; uninstall its hooks first */

/* Hooks that feed t, for interp_set_hooks on an Interp whose program has
** the timer's node count.  t must outlive their installation. */
InterpHooks node_timer_hooks(NodeTimer *t);

/* Wall time of node i's last run in seconds, -1 if it has not run (or i is
** out of range). */
double node_timer_last(const NodeTimer *t, int i);
/* How many times node i ran, and their summed time in seconds (0 if none). */
long node_timer_calls(const NodeTimer *t, int i);
double node_timer_total(const NodeTimer *t, int i);

/* Forget every time (as if nothing had run). */
void node_timer_reset(NodeTimer *t);

#endif
