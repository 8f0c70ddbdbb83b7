/*
** flame.h -- what the trace and flame-graph writers (report_chrome.c,
** report_speedscope.c, report_folded.c, report_svg.c) share: the frame
** tree of a Profile, and strings written escaped for JSON and XML.
**
** The frame tree is the flame graph's hierarchy: under the root, a
** node's nn.Module scopes (outermost first, the model itself left out)
** and then its op target as the leaf; nodes outside any module hang under
** the root; the other time (profile_other_seconds: "(dispatch)" in exact
** mode, "(outside nodes)" in sampling mode) is a frame of its own under
** the root.  Frames with the same name under the same parent are one
** frame, so the nodes of one op in one module add up in one leaf.
** Weights are seconds per iteration (profile_node_seconds).
**
** With a base profile (--diff) the tree is the union of both profiles'
** stacks, each frame carrying both weights.
*/
#ifndef EP_FLAME_H
#define EP_FLAME_H

#include <stdio.h>

#include "profile.h"

typedef struct FlameFrame {
    char *name;           /* "encoder.layers.0 (TransformerEncoderLayer)", "aten.addmm.default" */
    int parent;           /* -1 for the root */
    int depth;            /* 0 for the root */
    int *kids;            /* children, sorted by name (owned) */
    int nkids;
    int node;             /* an op leaf's first node in p (graph order), else -1 */
    int base_node;        /* the same in the base profile, else -1 */
    bool other;           /* the "(dispatch)" / "(outside nodes)" frame */
    double self, total;   /* seconds per iteration in p: its own nodes; with descendants */
    double base_self, base_total; /* the same in the base (0 without one) */
    int64_t samples;      /* sampling: samples of its own nodes */
} FlameFrame;

typedef struct FlameTree {
    FlameFrame *f;        /* f[0] is the root, "all"; parents before children */
    int n, cap;
    int *leaf;            /* p's node i -> its leaf frame (p->nnodes entries) */
    int other;            /* the other frame, or -1 when it weighs nothing in both */
    const Profile *p, *base;
} FlameTree;

/* The tree of p (and base, NULL for none).  Caller frees with flame_free. */
FlameTree *flame_new(const Profile *p, const Profile *base);
void flame_free(FlameTree *t); /* NULL ok */

/* The frames from the root's child down to frame i (the root left out),
** written to path (room for t->f[i].depth entries); returns the count. */
int flame_path(const FlameTree *t, int i, int *path);
/* The deepest frame depth in t (the root is 0). */
int flame_max_depth(const FlameTree *t);

/* The timeline in whole nanoseconds, ready for trace events that must
** nest exactly: each node of an iteration starts no earlier than the one
** before it ended, each iteration no earlier than the one before it
** ended, and an iteration's span covers its nodes.  Without a timeline
** (sampling mode) one iteration is laid out from the seconds per
** iteration, node after node in graph order, the other time last. */
typedef struct FlameTimeline {
    int iters;            /* kept iterations (1 when estimated) */
    int first_iter;       /* the first kept one's number among the profile's, from 0 */
    bool estimated;       /* laid out from seconds per iteration */
    int64_t *iter_s, *iter_e; /* each iteration's span */
    int64_t *s, *e;       /* node i of iteration k at [k * nnodes + i]; s < 0: did not run */
    int64_t other_s, other_e; /* estimated: the other time's span (empty when 0) */
} FlameTimeline;

FlameTimeline *flame_timeline_new(const Profile *p); /* caller frees */
void flame_timeline_free(FlameTimeline *tl);          /* NULL ok */

/* One event of an iteration on a trace's single track. */
typedef struct FlameSpan {
    int frame;            /* its frame in the tree (a scope, or a node's leaf) */
    int node;             /* the node, or -1 for a module scope */
    int depth;            /* the frame's depth: 1 directly under the iteration */
    int64_t s, e;         /* nanoseconds, as the timeline has them */
} FlameSpan;

/* The events of kept iteration k in preorder (an enclosing event before
** everything it encloses): the first `limit` nodes that ran (all: < 0),
** and for each run of consecutive nodes sharing a module scope one event
** of that scope spanning them exactly.  New array in *out (caller frees);
** returns the count. */
int flame_spans(const FlameTree *t, const FlameTimeline *tl, int k, int limit, FlameSpan **out);

/* Which kept iterations a trace capped at max node events writes: the
** last ones that fit whole (returns the first one's index; *limit = -1),
** or when one iteration has more nodes than that, only its first max
** nodes (*limit = max).  *dropped: what is left out, for the file's
** metadata (new string, caller frees), or NULL when nothing is. */
int flame_keep(const FlameTimeline *tl, int nnodes, int max, int *limit, char **dropped);

/* A module scope's frame name: its dotted path and the type's last
** component, "encoder.layers.0 (TransformerEncoderLayer)" (new string). */
char *flame_scope_name(const ProfileScope *s);

/* s as a JSON string, quotes included ("null" for NULL). */
void flame_json_string(FILE *f, const char *s);
/* s escaped for XML text and attribute values (&, <, >, ", '; control
** characters XML cannot hold become '?'), at most max bytes of s (< 0: all). */
void flame_xml_string(FILE *f, const char *s, int max);
/* A write to f failed: EP_ERR_EXEC naming what was written. */
EpStatus flame_write_status(FILE *f, const char *what, EpError *err);

#endif
