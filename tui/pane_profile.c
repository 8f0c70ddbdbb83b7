/*
** pane_profile.c -- the profile pane: where the time of the run went.
**
** Until the sampling profiler exists this shows the wall time each node
** took when it last ran in the session (session_node_seconds), slowest
** first, with its share of the time of everything run so far:
**
**   total 1.24 ms in 12 nodes
**    412.0 us  33.2%  #3 linear_1  aten.linear.default
**
** The sorted list is a cache, sorted again only when the times changed
** (changed() compares their count and sum), so moving the selection
** around costs one pass and drawing costs the rows on screen.
*/
#include "tui_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Narrower than this, rows leave out the percentage. */
#define NARROW_COLS 32

typedef struct Timed {
    double secs;
    int node;
} Timed;

typedef struct ProfilePane {
    Timed *order;    /* nodes that have a time, slowest first */
    int n;
    double total;    /* seconds of every node that has a time */
    bool dirty;
    int nnodes;
    int cursor;      /* row of order under the cursor */
    int top;         /* first row of order on screen */
    bool follow;     /* keep the cursor on screen (off after wheel scrolling) */
} ProfilePane;

static int by_time_desc(const void *a, const void *b)
{
    const Timed *x = a, *y = b;
    if (x->secs != y->secs)
        return x->secs > y->secs ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node); /* ties in execution order */
}

/* The times as they are now: how many nodes have one and their sum.  A
** pass over the nodes' times without sorting, so checking whether the
** cache is stale stays cheap when only the selection moved. */
static void fingerprint(const Tui *t, int nnodes, int *count, double *total)
{
    *count = 0;
    *total = 0;
    for (int i = 0; i < nnodes; i++) {
        double s = session_node_seconds(t->s, i);
        if (s >= 0) {
            (*count)++;
            *total += s;
        }
    }
}

static void rebuild(Tui *t, ProfilePane *p)
{
    p->n = 0;
    p->total = 0;
    for (int i = 0; i < p->nnodes; i++) {
        double s = session_node_seconds(t->s, i);
        if (s >= 0) {
            p->order[p->n++] = (Timed){s, i};
            p->total += s;
        }
    }
    qsort(p->order, (size_t)p->n, sizeof *p->order, by_time_desc);
    p->dirty = false;
    if (p->cursor >= p->n)
        p->cursor = p->n > 0 ? p->n - 1 : 0;
}

static void refresh(Tui *t, ProfilePane *p)
{
    if (p->dirty)
        rebuild(t, p);
}

static void *profile_create(Tui *t)
{
    ProfilePane *p = ep_xcalloc(1, sizeof *p);
    p->nnodes = session_num_nodes(t->s);
    p->order = ep_xmalloc((size_t)(p->nnodes ? p->nnodes : 1) * sizeof *p->order);
    p->dirty = true;
    p->follow = true;
    return p;
}

static void profile_destroy(void *state)
{
    ProfilePane *p = state;
    if (!p)
        return;
    free(p->order);
    free(p);
}

/* "412.0 us", "3.21 ms", "1.204 s" into buf. */
static const char *format_time(double s, char *buf, size_t cap)
{
    if (s < 1e-3)
        snprintf(buf, cap, "%.1f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, cap, "%.2f ms", s * 1e3);
    else
        snprintf(buf, cap, "%.3f s", s);
    return buf;
}

static void profile_title(Tui *t, void *state, char *buf, size_t cap)
{
    ProfilePane *p = state;
    refresh(t, p);
    if (p->n == 0) {
        snprintf(buf, cap, "no run yet");
        return;
    }
    char tm[32];
    snprintf(buf, cap, "%d/%d  %s", p->cursor + 1, p->n, format_time(p->total, tm, sizeof tm));
}

static void profile_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    ProfilePane *p = state;
    canvas_clear(c, ST_NORMAL);
    refresh(t, p);
    if (c->rows <= 0 || c->cols <= 0)
        return;
    if (p->n == 0) {
        canvas_print(c, 0, 1, ST_DIM, "No timings yet: run the program (r)");
        return;
    }
    char tm[32];
    canvas_printf(c, 0, 1, ST_KEY, "total %s in %d node%s (wall time of each node's last run)",
                  format_time(p->total, tm, sizeof tm), p->n, p->n == 1 ? "" : "s");
    int rows = c->rows - 1; /* below the total line */
    if (rows <= 0)
        return;
    if (p->follow) {
        if (p->cursor < p->top)
            p->top = p->cursor;
        else if (p->cursor >= p->top + rows)
            p->top = p->cursor - rows + 1;
    }
    if (p->top > p->n - rows)
        p->top = p->n - rows;
    if (p->top < 0)
        p->top = 0;
    const Interp *ip = session_interp(t->s);
    for (int r = 0; r < rows && p->top + r < p->n; r++) {
        int k = p->top + r;
        int node = p->order[k].node;
        const Node *nd = interp_node(ip, node);
        Style st = ST_NORMAL;
        if (k == p->cursor) {
            st = focused ? ST_CURSOR : ST_CURSOR_DIM;
            canvas_fill_row(c, r + 1, st);
        }
        double pct = p->total > 0 ? 100.0 * p->order[k].secs / p->total : 0;
        int col = canvas_printf(c, r + 1, 0, st, "%9s ", format_time(p->order[k].secs, tm, sizeof tm));
        /* a narrow pane keeps the name rather than the share */
        if (c->cols >= NARROW_COLS)
            col = canvas_printf(c, r + 1, col, st, "%5.1f%%  ", pct);
        col = canvas_printf(c, r + 1, col, st, "#%d %s", node, nd->name);
        canvas_print(c, r + 1, col + 2, st == ST_NORMAL ? ST_DIM : st, op_short_target(nd->target));
    }
}

static bool profile_key(Tui *t, void *state, int key, int c_rows)
{
    ProfilePane *p = state;
    refresh(t, p);
    if (p->n == 0)
        return false;
    int page = c_rows > 2 ? c_rows - 2 : 1;
    int to = p->cursor;
    switch (key) {
    case TK_UP:
    case 'k':
        to--;
        break;
    case TK_DOWN:
    case 'j':
        to++;
        break;
    case TK_PGUP:
        to -= page;
        break;
    case TK_PGDN:
        to += page;
        break;
    case TK_HOME:
        to = 0;
        break;
    case TK_END:
        to = p->n - 1;
        break;
    case TK_WHEEL_UP:
    case TK_WHEEL_DOWN:
        p->top += key == TK_WHEEL_UP ? -3 : 3;
        if (p->top > p->n - 1)
            p->top = p->n - 1;
        if (p->top < 0)
            p->top = 0;
        p->follow = false;
        return true;
    case TK_ENTER:
        tui_select_node(t, p->order[p->cursor].node);
        return true;
    default:
        return false;
    }
    p->cursor = to < 0 ? 0 : to >= p->n ? p->n - 1 : to;
    p->follow = true;
    return true;
}

static void profile_click(Tui *t, void *state, int row, int col)
{
    (void)col;
    ProfilePane *p = state;
    refresh(t, p);
    int k = p->top + row - 1; /* row 0 is the total line */
    if (row < 1 || k >= p->n)
        return;
    p->cursor = k;
    p->follow = true;
    tui_select_node(t, p->order[k].node);
}

static void profile_changed(Tui *t, void *state)
{
    ProfilePane *p = state;
    int count;
    double total;
    fingerprint(t, p->nnodes, &count, &total);
    if (count != p->n || total != p->total)
        p->dirty = true;
}

const PaneClass PANE_PROFILE_CLASS = {
    .name = "profile",
    .create = profile_create,
    .destroy = profile_destroy,
    .title = profile_title,
    .draw = profile_draw,
    .key = profile_key,
    .click = profile_click,
    .changed = profile_changed,
};
