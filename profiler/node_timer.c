/*
** node_timer.c -- per-node wall time through the interpreter's hooks.
**
** enter stamps the start of a top-level node, leave charges the elapsed
** time to it; both return at once for subgraph nodes (depth > 0), whose
** time is already inside their higher-order node's interval.  The stamp is
** one field, not a stack: top-level nodes never nest.
*/
#include "profiler/node_timer.h"

#include <stdlib.h>
#include <time.h>

typedef struct NodeTime {
    double last;  /* seconds of the last run; -1: never ran */
    double total; /* seconds of every run */
    long calls;
} NodeTime;

struct NodeTimer {
    int nnodes;
    NodeTime *nodes;
    struct timespec start; /* when the top-level node now running was entered */
};

NodeTimer *node_timer_new(int nnodes)
{
    NodeTimer *t = ep_xcalloc(1, sizeof *t);
    t->nnodes = nnodes > 0 ? nnodes : 0;
    t->nodes = ep_xcalloc((size_t)(t->nnodes ? t->nnodes : 1), sizeof *t->nodes);
    node_timer_reset(t);
    return t;
}

void node_timer_free(NodeTimer *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t);
}

void node_timer_reset(NodeTimer *t)
{
    for (int i = 0; i < t->nnodes; i++)
        t->nodes[i] = (NodeTime){.last = -1, .total = 0, .calls = 0};
}

static void on_enter(void *ud, const InterpNodeRef *n)
{
    if (n->depth != 0)
        return;
    NodeTimer *t = ud;
    clock_gettime(CLOCK_MONOTONIC, &t->start);
}

static void on_leave(void *ud, const InterpNodeRef *n, EpStatus rc)
{
    (void)rc; /* a failed node's time is still time the run spent */
    NodeTimer *t = ud;
    if (n->depth != 0 || n->index < 0 || n->index >= t->nnodes)
        return;
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    double secs = (double)(end.tv_sec - t->start.tv_sec) + (double)(end.tv_nsec - t->start.tv_nsec) * 1e-9;
    NodeTime *nt = &t->nodes[n->index];
    nt->last = secs;
    nt->total += secs;
    nt->calls++;
}

InterpHooks node_timer_hooks(NodeTimer *t)
{
    return (InterpHooks){.enter = on_enter, .leave = on_leave, .ud = t};
}

double node_timer_last(const NodeTimer *t, int i)
{
    return i >= 0 && i < t->nnodes ? t->nodes[i].last : -1;
}

long node_timer_calls(const NodeTimer *t, int i)
{
    return i >= 0 && i < t->nnodes ? t->nodes[i].calls : 0;
}

double node_timer_total(const NodeTimer *t, int i)
{
    return i >= 0 && i < t->nnodes ? t->nodes[i].total : 0;
}
