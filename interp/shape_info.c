/*
** shape_info.c -- recorded shapes with the ranges of their symbolic sizes
** (see shape_info.h).
*/
#include "shape_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ShapeInfo {
    const ExportedProgram *ep;
    SymRanges ranges;
    StrMap producer; /* unbacked symbol -> node index + 1 */
    StrMap cache;    /* "S:" or "I:" + expression text -> SymRange* (sizes / SymInts) */
};

int shape_info_node_outputs(const Node *node, const char **names, int max)
{
    int n = 0;
    for (int k = 0; k < node->noutputs; k++) {
        const Arg *a = &node->outputs[k];
        int nitems = a->n ? a->n : 1;
        for (int j = 0; j < nitems; j++) {
            const char *ref = a->n ? a->items[j].ref : a->ref;
            if (!ref)
                continue;
            if (names && n < max)
                names[n] = ref;
            n++;
        }
    }
    return n;
}

/* The bare symbol a recorded size or SymInt is, or NULL. */
static const char *bare_symbol(const SymDim *d)
{
    return d && d->is_expr && d->parsed ? sym_as_symbol(d->parsed) : NULL;
}

/* Bare symbols that are tensor sizes get [0, inf] unless a constraint gave
** them a range: sound, since sizes are never negative, and it lets sums
** and products of them be bounded below. */
static void note_sizes(ShapeInfo *si, const TensorMeta *m)
{
    for (int d = 0; m && d < m->ndim; d++) {
        const char *s = bare_symbol(&m->sizes[d]);
        SymRange r;
        if (s && !sym_ranges_get(&si->ranges, s, &r))
            sym_ranges_set(&si->ranges, s, 0, SYM_RANGE_POS_INF);
    }
}

/* Record node i as the maker of each bare symbol its outputs introduce
** that no input carries (inputs are seen first, so they win). */
static void note_symbols(ShapeInfo *si, const char *ref, int i, StrMap *known)
{
    const Graph *g = &si->ep->graph;
    const TensorMeta *m = graph_tensor_meta(g, ref);
    const SymDim *sd = strmap_get(&g->sym_int_values, ref);
    int nd = m ? m->ndim : 1;
    for (int d = 0; d < nd; d++) {
        const char *s = bare_symbol(m ? &m->sizes[d] : sd);
        if (!s || strmap_get(known, s))
            continue;
        strmap_put(known, s, (void *)1);
        if (i >= 0)
            strmap_put(&si->producer, s, (void *)(intptr_t)(i + 1));
    }
    note_sizes(si, m);
}

ShapeInfo *shape_info_new(const ExportedProgram *ep)
{
    ShapeInfo *si = ep_xcalloc(1, sizeof *si);
    si->ep = ep;
    sym_ranges_init(&si->ranges);
    strmap_init(&si->producer);
    strmap_init(&si->cache);
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *r = &ep->ranges[i];
        const char *s = r->parsed ? sym_as_symbol(r->parsed) : NULL;
        if (s)
            sym_ranges_set(&si->ranges, s, r->has_min ? r->min : SYM_RANGE_NEG_INF,
                           r->has_max ? r->max : SYM_RANGE_POS_INF);
    }
    StrMap known; /* symbols already seen, inputs first */
    strmap_init(&known);
    const Graph *g = &ep->graph;
    for (int k = 0; k < g->ninputs; k++)
        if (g->inputs[k].ref)
            note_symbols(si, g->inputs[k].ref, -1, &known);
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = &g->nodes[i];
        for (int k = 0; k < n->noutputs; k++) {
            const Arg *a = &n->outputs[k];
            int nitems = a->n ? a->n : 1;
            for (int j = 0; j < nitems; j++) {
                const char *ref = a->n ? a->items[j].ref : a->ref;
                if (ref)
                    note_symbols(si, ref, i, &known);
            }
        }
    }
    strmap_free(&known, NULL);
    return si;
}

void shape_info_free(ShapeInfo *si)
{
    if (!si)
        return;
    sym_ranges_free(&si->ranges);
    strmap_free(&si->producer, NULL);
    strmap_free(&si->cache, free);
    free(si);
}

const SymRanges *shape_info_ranges(const ShapeInfo *si)
{
    return &si->ranges;
}

bool shape_info_dim_range(ShapeInfo *si, const SymDim *d, bool is_size, SymRange *out)
{
    if (!d->is_expr) {
        *out = (SymRange){d->value, d->value};
        return true;
    }
    if (!d->parsed)
        return false;
    /* the same expression recurs on many nodes (every activation of a
    ** transformer is [s0, s1, 768]): compute its range once */
    char *key = ep_xasprintf("%c:%s", is_size ? 'S' : 'I', d->expr);
    SymRange *r = strmap_get(&si->cache, key);
    if (!r) {
        r = ep_xmalloc(sizeof *r);
        *r = sym_range(d->parsed, &si->ranges);
        if (is_size && r->lo < 0)
            r->lo = r->hi < 0 ? r->hi : 0; /* a size is >= 0; keep lo <= hi */
        strmap_put(&si->cache, key, r);
    }
    free(key);
    *out = *r;
    return true;
}

int shape_info_producer(const ShapeInfo *si, const char *sym)
{
    return (int)(intptr_t)strmap_get(&si->producer, sym) - 1;
}

int shape_info_num_unbacked(const ShapeInfo *si)
{
    return si->producer.n;
}

const char *shape_info_unbacked(const ShapeInfo *si, int k, int *node)
{
    *node = (int)(intptr_t)si->producer.entries[k].value - 1;
    return si->producer.entries[k].key;
}

const char *shape_info_range_text(SymRange r, char *buf, size_t cap)
{
    char lo[32], hi[32];
    if (r.lo == SYM_RANGE_NEG_INF)
        snprintf(lo, sizeof lo, "-inf");
    else
        snprintf(lo, sizeof lo, "%lld", (long long)r.lo);
    if (r.hi == SYM_RANGE_POS_INF)
        snprintf(hi, sizeof hi, "inf");
    else
        snprintf(hi, sizeof hi, "%lld", (long long)r.hi);
    snprintf(buf, cap, "[%s, %s]", lo, hi);
    return buf;
}

char *shape_info_value_type(const ShapeInfo *si, const char *name)
{
    const Graph *g = &si->ep->graph;
    char *t = graph_recorded_type(g, name);
    if (t)
        return t;
    const SymScalarMeta *sb = name ? strmap_get(&g->sym_bool_values, name) : NULL;
    if (sb && sb->is_expr) {
        char *e = sb->parsed ? sym_to_string(sb->parsed) : NULL;
        t = ep_xasprintf("SymBool %s", e ? e : sb->expr);
        free(e);
        return t;
    }
    const SymDim *sd = name ? strmap_get(&g->sym_int_values, name) : NULL;
    if (!sd)
        return NULL;
    if (!sd->is_expr)
        return ep_xasprintf("SymInt %lld", (long long)sd->value);
    char *e = sd->parsed ? sym_to_string(sd->parsed) : NULL;
    t = ep_xasprintf("SymInt %s", e ? e : sd->expr);
    free(e);
    return t;
}

static bool seen_has(const ShapeSeen *seen, const char *text)
{
    for (int i = 0; i < seen->n; i++) /* a node's handful of dims: a list will do */
        if (strcmp(seen->items[i], text) == 0)
            return true;
    return false;
}

static void seen_add(ShapeSeen *seen, const char *text)
{
    if (seen->n == seen->cap) {
        seen->cap = seen->cap ? 2 * seen->cap : 8;
        seen->items = ep_xrealloc(seen->items, (size_t)seen->cap * sizeof *seen->items);
    }
    seen->items[seen->n++] = text;
}

void shape_info_seen_free(ShapeSeen *seen)
{
    free(seen->items);
    *seen = (ShapeSeen){0};
}

static void dim_range_text(ShapeInfo *si, const SymDim *d, bool is_size, ShapeSeen *seen, StrBuf *sb)
{
    if (!d->is_expr || seen_has(seen, d->expr))
        return;
    seen_add(seen, d->expr);
    if (sb->len)
        sb_append(sb, ", ");
    SymRange r;
    if (!shape_info_dim_range(si, d, is_size, &r)) {
        sb_printf(sb, "%s (unreadable)", d->expr);
        return;
    }
    char *e = sym_to_string(d->parsed);
    char buf[80];
    sb_printf(sb, "%s in %s", e ? e : d->expr, shape_info_range_text(r, buf, sizeof buf));
    free(e);
    const char *s = sym_as_symbol(d->parsed);
    int p = s ? shape_info_producer(si, s) : -1;
    if (p >= 0)
        sb_printf(sb, " from '%s'", si->ep->graph.nodes[p].name);
}

void shape_info_value_ranges(ShapeInfo *si, const char *name, ShapeSeen *seen, StrBuf *sb)
{
    const Graph *g = &si->ep->graph;
    const TensorMeta *m = name ? graph_tensor_meta(g, name) : NULL;
    for (int d = 0; m && d < m->ndim; d++)
        dim_range_text(si, &m->sizes[d], true, seen, sb);
    const SymDim *sd = !m && name ? strmap_get(&g->sym_int_values, name) : NULL;
    if (sd)
        dim_range_text(si, sd, false, seen, sb);
}

char *shape_info_node_types(const ShapeInfo *si, const Node *node)
{
    StrBuf sb;
    sb_init(&sb);
    int n = shape_info_node_outputs(node, NULL, 0);
    const char **names = ep_xmalloc((size_t)(n ? n : 1) * sizeof *names);
    shape_info_node_outputs(node, names, n);
    for (int k = 0; k < n; k++) {
        char *t = shape_info_value_type(si, names[k]);
        sb_printf(&sb, "%s%s", k ? ", " : "", t ? t : "-");
        free(t);
    }
    if (n == 0)
        sb_append(&sb, "-");
    free(names);
    return sb_take(&sb);
}

char *shape_info_node_ranges(ShapeInfo *si, const Node *node)
{
    StrBuf sb;
    sb_init(&sb);
    ShapeSeen seen = {0};
    int n = shape_info_node_outputs(node, NULL, 0);
    const char **names = ep_xmalloc((size_t)(n ? n : 1) * sizeof *names);
    shape_info_node_outputs(node, names, n);
    for (int k = 0; k < n; k++)
        shape_info_value_ranges(si, names[k], &seen, &sb);
    free(names);
    shape_info_seen_free(&seen);
    return sb_take(&sb);
}
