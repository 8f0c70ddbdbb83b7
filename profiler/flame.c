/*
** flame.c -- the frame tree the trace and flame-graph writers share
** (module scopes -> op leaf, seconds per iteration), and escaped strings.
*/
#include "profiler/flame.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The child of parent named name, made if missing (kids grow by doubling
** when their count reaches a power of two). */
static int child(FlameTree *t, int parent, const char *name, bool take)
{
    FlameFrame *pf = &t->f[parent];
    for (int k = 0; k < pf->nkids; k++) {
        if (strcmp(t->f[pf->kids[k]].name, name) == 0) {
            if (take)
                free((char *)name);
            return pf->kids[k];
        }
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->f = ep_xrealloc(t->f, (size_t)t->cap * sizeof *t->f);
        pf = &t->f[parent];
    }
    int id = t->n++;
    t->f[id] = (FlameFrame){.name = take ? (char *)name : ep_xstrdup(name), .parent = parent,
                            .depth = pf->depth + 1, .node = -1, .base_node = -1};
    if ((pf->nkids & (pf->nkids - 1)) == 0)
        pf->kids = ep_xrealloc(pf->kids, (size_t)(pf->nkids ? 2 * pf->nkids : 1) * sizeof *pf->kids);
    pf->kids[pf->nkids++] = id;
    return id;
}

char *flame_scope_name(const ProfileScope *s)
{
    if (!s->type || !*s->type)
        return ep_xstrdup(s->path);
    const char *dot = strrchr(s->type, '.');
    return ep_xasprintf("%s (%s)", s->path, dot ? dot + 1 : s->type);
}

/* The leaf frame of node i of q: its scopes (the model itself, path "",
** left out), then its target. */
static int node_leaf(FlameTree *t, const Profile *q, int i)
{
    const ProfileNode *n = &q->nodes[i];
    int at = 0;
    for (int k = 0; k < n->nscopes; k++) {
        if (n->scopes[k].path && *n->scopes[k].path)
            at = child(t, at, flame_scope_name(&n->scopes[k]), true);
    }
    return child(t, at, n->target ? n->target : n->name, false);
}

static int cmp_kids(const void *a, const void *b, void *ud)
{
    const FlameTree *t = ud;
    return strcmp(t->f[*(const int *)a].name, t->f[*(const int *)b].name);
}

FlameTree *flame_new(const Profile *p, const Profile *base)
{
    FlameTree *t = ep_xcalloc(1, sizeof *t);
    t->p = p;
    t->base = base;
    t->other = -1;
    t->cap = 64;
    t->f = ep_xmalloc((size_t)t->cap * sizeof *t->f);
    t->f[0] = (FlameFrame){.name = ep_xstrdup("all"), .parent = -1, .node = -1, .base_node = -1};
    t->n = 1;
    t->leaf = ep_xcalloc((size_t)(p->nnodes > 0 ? p->nnodes : 1), sizeof *t->leaf);
    for (int i = 0; i < p->nnodes; i++) {
        int l = t->leaf[i] = node_leaf(t, p, i);
        FlameFrame *fr = &t->f[l];
        fr->self += profile_node_seconds(p, i);
        if (p->mode == PROFILE_SAMPLE)
            fr->samples += p->nodes[i].samples;
        if (fr->node < 0)
            fr->node = i;
    }
    for (int j = 0; base && j < base->nnodes; j++) {
        FlameFrame *fr = &t->f[node_leaf(t, base, j)];
        fr->base_self += profile_node_seconds(base, j);
        if (fr->base_node < 0)
            fr->base_node = j;
    }
    double other = profile_other_seconds(p), base_other = base ? profile_other_seconds(base) : 0;
    if (other > 0 || base_other > 0) {
        t->other = child(t, 0, p->mode == PROFILE_SAMPLE ? "(outside nodes)" : "(dispatch)", false);
        FlameFrame *fr = &t->f[t->other];
        fr->other = true;
        fr->self = other;
        fr->base_self = base_other;
        fr->samples = p->mode == PROFILE_SAMPLE ? p->outside_samples : 0;
    }
    /* children come after their parents, so one backward pass sums totals */
    for (int i = t->n - 1; i >= 0; i--) {
        FlameFrame *fr = &t->f[i];
        fr->total += fr->self;
        fr->base_total += fr->base_self;
        if (fr->parent >= 0) {
            t->f[fr->parent].total += fr->total;
            t->f[fr->parent].base_total += fr->base_total;
        }
        if (fr->nkids > 1)
            qsort_r(fr->kids, (size_t)fr->nkids, sizeof *fr->kids, cmp_kids, t);
    }
    return t;
}

void flame_free(FlameTree *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++) {
        free(t->f[i].name);
        free(t->f[i].kids);
    }
    free(t->f);
    free(t->leaf);
    free(t);
}

int flame_path(const FlameTree *t, int i, int *path)
{
    int d = t->f[i].depth;
    for (int k = d - 1; k >= 0; k--, i = t->f[i].parent)
        path[k] = i;
    return d;
}

int flame_max_depth(const FlameTree *t)
{
    int d = 0;
    for (int i = 0; i < t->n; i++)
        d = t->f[i].depth > d ? t->f[i].depth : d;
    return d;
}

void flame_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            putc(*c, f);
    }
    putc('"', f);
}

void flame_xml_string(FILE *f, const char *s, int max)
{
    if (!s)
        return;
    size_t n = strlen(s);
    if (max >= 0 && n > (size_t)max) {
        n = (size_t)max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            putc(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : c, f);
        }
    }
}

EpStatus flame_write_status(FILE *f, const char *what, EpError *err)
{
    if (fflush(f) != 0 || ferror(f))
        return ep_fail(err, EP_ERR_EXEC, "writing the %s: %s", what, strerror(errno ? errno : EIO));
    return EP_OK;
}

static int64_t to_ns(double secs)
{
    return (int64_t)llround(secs * 1e9);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

FlameTimeline *flame_timeline_new(const Profile *p)
{
    FlameTimeline *tl = ep_xcalloc(1, sizeof *tl);
    bool have = p->timeline_iters > 0 && p->start && p->dur && p->iter_start && p->iter_wall;
    tl->estimated = !have;
    tl->iters = have ? p->timeline_iters : 1;
    tl->first_iter = have && p->iters > tl->iters ? p->iters - tl->iters : 0;
    size_t cells = (size_t)tl->iters * (size_t)(p->nnodes > 0 ? p->nnodes : 1);
    tl->iter_s = ep_xcalloc((size_t)tl->iters, sizeof *tl->iter_s);
    tl->iter_e = ep_xcalloc((size_t)tl->iters, sizeof *tl->iter_e);
    tl->s = ep_xcalloc(cells, sizeof *tl->s);
    tl->e = ep_xcalloc(cells, sizeof *tl->e);
    if (!have) {
        int64_t at = 0;
        for (int i = 0; i < p->nnodes; i++) {
            tl->s[i] = at;
            at = tl->e[i] = at + max64(to_ns(profile_node_seconds(p, i)), 0);
        }
        tl->other_s = at;
        tl->other_e = at + max64(to_ns(profile_other_seconds(p)), 0);
        tl->iter_e[0] = tl->other_e;
        return tl;
    }
    int64_t floor = 0; /* the previous iteration's end */
    for (int k = 0; k < tl->iters; k++) {
        int64_t at = floor, first = -1;
        for (int i = 0; i < p->nnodes; i++) {
            size_t c = (size_t)k * (size_t)p->nnodes + (size_t)i;
            if (p->start[c] < 0) {
                tl->s[c] = tl->e[c] = -1;
                continue;
            }
            tl->s[c] = max64(to_ns(p->start[c]), at);
            at = tl->e[c] = max64(to_ns(p->start[c] + p->dur[c]), tl->s[c]);
            if (first < 0)
                first = tl->s[c];
        }
        int64_t is = max64(to_ns(p->iter_start[k]), floor);
        tl->iter_s[k] = first >= 0 && first < is ? first : is;
        floor = tl->iter_e[k] = max64(max64(to_ns(p->iter_start[k] + p->iter_wall[k]), at), tl->iter_s[k]);
    }
    return tl;
}

void flame_timeline_free(FlameTimeline *tl)
{
    if (!tl)
        return;
    free(tl->iter_s);
    free(tl->iter_e);
    free(tl->s);
    free(tl->e);
    free(tl);
}

int flame_spans(const FlameTree *t, const FlameTimeline *tl, int k, int limit, FlameSpan **out)
{
    const Profile *p = t->p;
    int depth = flame_max_depth(t) + 1;
    int *path = ep_xmalloc((size_t)depth * sizeof *path);
    int *open = ep_xmalloc((size_t)depth * sizeof *open); /* indexes into sp */
    int nopen = 0, n = 0, cap = 16, taken = 0;
    FlameSpan *sp = ep_xmalloc((size_t)cap * sizeof *sp);
    int64_t last_end = 0;
    for (int i = 0; i < p->nnodes && (limit < 0 || taken < limit); i++) {
        size_t c = (size_t)k * (size_t)p->nnodes + (size_t)i;
        if (tl->s[c] < 0)
            continue;
        taken++;
        int d = flame_path(t, t->leaf[i], path), scopes = d - 1, common = 0;
        while (common < nopen && common < scopes && sp[open[common]].frame == path[common])
            common++;
        while (nopen > common)
            sp[open[--nopen]].e = last_end;
        if (n + scopes - nopen + 1 > cap) {
            cap = 2 * (n + depth);
            sp = ep_xrealloc(sp, (size_t)cap * sizeof *sp);
        }
        while (nopen < scopes) {
            sp[n] = (FlameSpan){path[nopen], -1, nopen + 1, tl->s[c], -1};
            open[nopen++] = n++;
        }
        sp[n++] = (FlameSpan){t->leaf[i], i, d, tl->s[c], tl->e[c]};
        last_end = tl->e[c];
    }
    while (nopen > 0)
        sp[open[--nopen]].e = last_end;
    free(path);
    free(open);
    *out = sp;
    return n;
}

int flame_keep(const FlameTimeline *tl, int nnodes, int max, int *limit, char **dropped)
{
    int keep = max / (nnodes > 0 ? nnodes : 1);
    *limit = -1;
    *dropped = NULL;
    if (keep < 1) {
        keep = 1;
        *limit = max;
    }
    int first = tl->iters > keep ? tl->iters - keep : 0;
    if (*limit >= 0)
        *dropped = ep_xasprintf("all nodes after the first %d of iteration %d, and the %d kept iterations before it "
                                "(at most %d node events)",
                                max, tl->first_iter + first + 1, first, max);
    else if (first > 0)
        *dropped = ep_xasprintf("the first %d of %d kept iterations (at most %d node events)", first, tl->iters, max);
    return first;
}
