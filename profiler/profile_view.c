/*
** profile_view.c -- the views of a Profile (profile.h): rows by op target,
** by node, by nn.Module path as a tree, and by the user's source line, each
** with the other row (dispatch, or samples outside nodes) last.
**
** Every view is built the same way: a key per node, nodes grouped by key,
** each group summed into a row.  So every node lands in exactly one row's
** self, and a view's self column adds up to profile_total_seconds.
**
** What a row sums: self, calls, samples, flops and bytes of its nodes; the
** module view's total, calls, samples, flops and bytes cover its subtree
** (the module and every submodule), so rates divide flops by total in every
** view (total equals self outside the module view).
*/
#include "profiler/profile.h"

#include <stdlib.h>
#include <string.h>

/* ---- the names of the views ----------------------------------------------- */

static const struct {
    const char *name;
    ProfileBy by;
} VIEWS[] = {
    {"op", PROFILE_BY_OP},
    {"node", PROFILE_BY_NODE},
    {"module", PROFILE_BY_MODULE},
    {"line", PROFILE_BY_LINE},
};

bool profile_by_lookup(const char *name, ProfileBy *by)
{
    for (size_t i = 0; name && i < EP_ARRAY_LEN(VIEWS); i++)
        if (strcmp(VIEWS[i].name, name) == 0) {
            *by = VIEWS[i].by;
            return true;
        }
    return false;
}

const char *profile_by_name(ProfileBy by)
{
    for (size_t i = 0; i < EP_ARRAY_LEN(VIEWS); i++)
        if (VIEWS[i].by == by)
            return VIEWS[i].name;
    return "?";
}

/* ---- what one node adds to a row -------------------------------------------- */

#define NO_SOURCE "(no source)"

/* Executions of node i per iteration: measured (exact), else once per
** iteration (sampling: only the graph's top-level nodes are profiled, and
** each runs once a run). */
static int64_t node_calls(const Profile *p, int i)
{
    if (p->mode == PROFILE_SAMPLE)
        return 1;
    int64_t count = p->nodes[i].time.count, iters = p->iters > 0 ? p->iters : 1;
    if (count <= 0)
        return 0;
    int64_t c = (count + iters / 2) / iters; /* nearest: a partial run adds one */
    return c > 0 ? c : 1;
}

/* A row being summed, with the raw times its mean is made of. */
typedef struct Acc {
    ProfileRow row;
    double raw_total;  /* exact: measured seconds of every execution */
    int64_t raw_count; /* and how many executions */
} Acc;

static void acc_self(Acc *a, const Profile *p, int i)
{
    double s = profile_node_seconds(p, i);
    a->row.self += s;
    if (a->row.first_node < 0 || i < a->row.first_node)
        a->row.first_node = i;
}

static void acc_total(Acc *a, const Profile *p, int i)
{
    const ProfileNode *n = &p->nodes[i];
    int64_t calls = node_calls(p, i);
    a->row.total += profile_node_seconds(p, i);
    a->row.calls += calls;
    a->row.samples += n->samples;
    a->row.flops += n->flops * (double)calls;
    a->row.bytes += n->bytes * (double)calls;
    a->raw_total += n->time.total;
    a->raw_count += n->time.count;
}

static char *dup_or_null(const char *s)
{
    return s ? ep_xstrdup(s) : NULL;
}

/* The row's mean and percentages, once every node is in. */
static void acc_finish(Acc *a, const Profile *p, double all)
{
    ProfileRow *r = &a->row;
    if (p->mode == PROFILE_EXACT && a->raw_count > 0)
        r->mean = a->raw_total / (double)a->raw_count;
    else
        r->mean = r->calls > 0 ? r->total / (double)r->calls : 0;
    r->pct = all > 0 ? 100.0 * r->self / all : 0;
    r->total_pct = all > 0 ? 100.0 * r->total / all : 0;
}

static Acc acc_new(char *key)
{
    Acc a = {0};
    a.row.key = key;
    a.row.first_node = -1;
    return a;
}

/* ---- flat views: group nodes by a key ----------------------------------------- */

typedef struct Keyed {
    char *key; /* owned */
    int node;
} Keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const Keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->node > y->node) - (x->node < y->node);
}

static char *node_key(const Profile *p, ProfileBy by, int i)
{
    const ProfileNode *n = &p->nodes[i];
    switch (by) {
    case PROFILE_BY_OP:
        return ep_xstrdup(n->target ? n->target : n->name ? n->name : "?");
    case PROFILE_BY_LINE:
        return n->file ? ep_xasprintf("%s:%d", n->file, n->line) : ep_xstrdup(NO_SOURCE);
    default:
        return ep_xstrdup(n->name ? n->name : "?");
    }
}

/* The detail and shapes of a row, from its first node. */
static void row_describe(ProfileRow *r, const Profile *p, ProfileBy by)
{
    const ProfileNode *n = &p->nodes[r->first_node];
    if (by == PROFILE_BY_NODE)
        r->detail = dup_or_null(n->target);
    else if (by == PROFILE_BY_LINE)
        r->detail = dup_or_null(n->file ? n->code : NULL);
    if (by == PROFILE_BY_OP || by == PROFILE_BY_NODE)
        r->input_shapes = dup_or_null(n->input_shapes);
}

/* Heaviest self first; equal ones in graph order, so views are stable. */
static int cmp_row_self(const void *a, const void *b)
{
    const Acc *x = a, *y = b;
    if (x->row.self != y->row.self)
        return x->row.self < y->row.self ? 1 : -1;
    return (x->row.first_node > y->row.first_node) - (x->row.first_node < y->row.first_node);
}

static int flat_rows(const Profile *p, ProfileBy by, Acc **out)
{
    int nn = p->nnodes;
    Keyed *k = ep_xmalloc((size_t)(nn ? nn : 1) * sizeof *k);
    for (int i = 0; i < nn; i++)
        k[i] = (Keyed){node_key(p, by, i), i};
    ep_qsort(k, (size_t)nn, sizeof *k, cmp_keyed);
    Acc *acc = ep_xmalloc((size_t)(nn + 1) * sizeof *acc); /* + the other row */
    int n = 0;
    for (int i = 0; i < nn; i++) {
        if (n == 0 || strcmp(k[i].key, acc[n - 1].row.key) != 0) {
            acc[n++] = acc_new(k[i].key);
        } else {
            free(k[i].key);
        }
        acc_self(&acc[n - 1], p, k[i].node);
        acc_total(&acc[n - 1], p, k[i].node);
    }
    free(k);
    for (int i = 0; i < n; i++)
        row_describe(&acc[i].row, p, by);
    ep_qsort(acc, (size_t)n, sizeof *acc, cmp_row_self);
    *out = acc;
    return n;
}

/* ---- the module tree ------------------------------------------------------------ */

typedef struct Module {
    Acc acc;       /* key: the dotted path ("" the model) */
    int parent;    /* -1 for the model */
    int *kids, nkids;
} Module;

typedef struct Tree {
    Module *m;
    int n, cap;
} Tree;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The path's parent: everything before its last '.', "" for a top-level one. */
static char *path_parent(const char *path)
{
    const char *dot = strrchr(path, '.');
    return ep_xstrndup(path, dot ? (size_t)(dot - path) : 0);
}

static int tree_find(char *const *paths, int n, const char *path)
{
    char *const *hit = bsearch(&path, paths, (size_t)n, sizeof *paths, cmp_str);
    return hit ? (int)(hit - paths) : -1;
}

static const char *innermost(const ProfileNode *nd)
{
    const char *path = nd->nscopes > 0 ? nd->scopes[nd->nscopes - 1].path : NULL;
    return path ? path : "";
}

/* Every node's innermost scope path and each of its dotted prefixes, and
** "", sorted, unique (so each path's parent is in the list, and every path
** has a node under it).  New array of new strings. */
static int module_paths(const Profile *p, char ***out)
{
    int n = 0, cap = 16;
    char **paths = ep_xmalloc((size_t)cap * sizeof *paths);
    paths[n++] = ep_xstrdup("");
    for (int i = 0; i < p->nnodes; i++) {
        char *path = ep_xstrdup(innermost(&p->nodes[i]));
        while (path[0]) {
            if (n == cap) {
                cap *= 2;
                paths = ep_xrealloc(paths, (size_t)cap * sizeof *paths);
            }
            paths[n++] = path;
            path = path_parent(path);
        }
        free(path);
    }
    ep_qsort(paths, (size_t)n, sizeof *paths, cmp_str);
    int u = 0;
    for (int i = 0; i < n; i++) {
        if (u > 0 && strcmp(paths[i], paths[u - 1]) == 0)
            free(paths[i]);
        else
            paths[u++] = paths[i];
    }
    *out = paths;
    return u;
}

/* Children heaviest total first; equal ones in graph order. */
static int cmp_kid(const void *a, const void *b, void *modules)
{
    const Module *m = modules;
    const Acc *x = &m[*(const int *)a].acc, *y = &m[*(const int *)b].acc;
    if (x->row.total != y->row.total)
        return x->row.total < y->row.total ? 1 : -1;
    return (x->row.first_node > y->row.first_node) - (x->row.first_node < y->row.first_node);
}

static int module_rows(const Profile *p, Acc **out)
{
    char **paths;
    int n = module_paths(p, &paths);
    Module *m = ep_xcalloc((size_t)n, sizeof *m);
    for (int i = 0; i < n; i++) {
        m[i].acc = acc_new(paths[i]);
        char *parent = path_parent(paths[i]);
        m[i].parent = paths[i][0] ? tree_find(paths, n, parent) : -1;
        free(parent);
    }
    /* types, from the scopes that name them */
    for (int i = 0; i < p->nnodes; i++)
        for (int s = 0; s < p->nodes[i].nscopes; s++) {
            const ProfileScope *sc = &p->nodes[i].scopes[s];
            int at = tree_find(paths, n, sc->path ? sc->path : "");
            if (at >= 0 && !m[at].acc.row.detail && sc->type)
                m[at].acc.row.detail = ep_xstrdup(sc->type);
        }
    /* self to the innermost module, total to it and every ancestor */
    for (int i = 0; i < p->nnodes; i++) {
        int at = tree_find(paths, n, innermost(&p->nodes[i]));
        acc_self(&m[at].acc, p, i);
        for (int a = at; a >= 0; a = m[a].parent) {
            acc_total(&m[a].acc, p, i);
            if (m[a].acc.row.first_node < 0 || i < m[a].acc.row.first_node)
                m[a].acc.row.first_node = i;
        }
    }
    for (int i = 0; i < n; i++)
        if (m[i].parent >= 0) {
            Module *par = &m[m[i].parent];
            par->kids = ep_xrealloc(par->kids, (size_t)(par->nkids + 1) * sizeof *par->kids);
            par->kids[par->nkids++] = i;
        }
    for (int i = 0; i < n; i++)
        if (m[i].nkids > 1) /* a leaf's kids is NULL, which qsort_r may not take */
            qsort_r(m[i].kids, (size_t)m[i].nkids, sizeof *m[i].kids, cmp_kid, m);
    /* preorder with an explicit stack: a path of many dots must not
    ** exhaust the C stack */
    Acc *acc = ep_xmalloc((size_t)(n + 1) * sizeof *acc);
    int *stack = ep_xmalloc((size_t)n * sizeof *stack), *depth = ep_xmalloc((size_t)n * sizeof *depth);
    int top = 0, k = 0;
    stack[top] = tree_find(paths, n, "");
    depth[top++] = 0;
    while (top > 0) {
        top--;
        int at = stack[top], d = depth[top];
        acc[k] = m[at].acc;
        acc[k++].row.depth = d;
        for (int c = m[at].nkids - 1; c >= 0; c--) { /* pushed last = visited first */
            stack[top] = m[at].kids[c];
            depth[top++] = d + 1;
        }
    }
    for (int i = 0; i < n; i++)
        free(m[i].kids);
    free(m);
    free(paths); /* the strings moved into the rows */
    free(stack);
    free(depth);
    *out = acc;
    return k;
}

/* ---- the views -------------------------------------------------------------------- */

int profile_rows(const Profile *p, ProfileBy by, ProfileRow **rows)
{
    Acc *acc;
    int n = by == PROFILE_BY_MODULE ? module_rows(p, &acc) : flat_rows(p, by, &acc);
    /* the other row, never hidden */
    bool sample = p->mode == PROFILE_SAMPLE;
    Acc *o = &acc[n++];
    *o = acc_new(ep_xstrdup(sample ? "(outside nodes)" : "(dispatch)"));
    o->row.detail = ep_xstrdup(sample ? "samples outside any node" : "the interpreter between kernels");
    o->row.self = o->row.total = profile_other_seconds(p);
    o->row.samples = sample ? p->outside_samples : 0;
    double all = profile_total_seconds(p);
    ProfileRow *r = ep_xmalloc((size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) {
        acc_finish(&acc[i], p, all);
        r[i] = acc[i].row;
    }
    free(acc);
    *rows = r;
    return n;
}

void profile_rows_free(ProfileRow *rows, int n)
{
    if (!rows)
        return;
    for (int i = 0; i < n; i++) {
        free(rows[i].key);
        free(rows[i].detail);
        free(rows[i].input_shapes);
    }
    free(rows);
}
