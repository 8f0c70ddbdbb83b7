/*
** pane_profile.c -- the profile pane: where the time of the run went.
**
** With a profile (`profile start`, then run; session_profile), the top rows
** of one of its views (profile_rows) as a table with bars, `v` cycling the
** view op -> module -> line -> node:
**
**   profiling  exact  2 iterations  1.24 ms/iteration  by op  (v: view)
**    33.2% ██████▋              412.0 us    3  aten.linear.default
**
** A bar's length is the row's share of the profile's time (the module
** view: its total, submodules included; the others: the row's self time),
** in eighths of a cell.  Enter on a row jumps to its first node: the graph
** pane selects it (op, node and module views) or the source pane shows
** its line (line view).
**
** Without a profile, what the session measures anyway: the wall time each
** node took when it last ran (session_node_seconds), slowest first, with
** a hint line saying how to profile.
**
** Both lists are caches: the profile's rows are taken again only when
** tui_profile says the profile changed, the node times only when their
** count and sum changed, so moving the selection costs one pass and
** drawing costs the rows on screen.
*/
#include "tui_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Narrower than this, rows leave out the percentage. */
#define NARROW_COLS 32
/* Narrower than this, profile rows leave out the bar. */
#define BAR_MIN_COLS 48
#define BAR_MAX 20
#define HINT "profile start to profile (then run; `help profile`)"

typedef struct Timed {
    double secs;
    int node;
} Timed;

/* The order `v` goes through the views. */
static const ProfileBy VIEW_CYCLE[] = {PROFILE_BY_OP, PROFILE_BY_MODULE, PROFILE_BY_LINE, PROFILE_BY_NODE};
#define NVIEWS ((int)(sizeof VIEW_CYCLE / sizeof VIEW_CYCLE[0]))

typedef struct ProfilePane {
    /* the profile's view */
    const Profile *prof;  /* as tui_profile last gave it (borrowed; NULL: none) */
    unsigned long gen;    /* its generation the rows were taken at */
    int view;             /* index into VIEW_CYCLE */
    ProfileRow *rows;     /* owned */
    int nrows;
    double per_iter;      /* profile_total_seconds */
    /* without a profile: node times */
    Timed *order;         /* nodes that have a time, slowest first */
    int n;
    double total;         /* seconds of every node that has a time */
    bool dirty;
    int nnodes;
    /* the list on screen, either one */
    int cursor;           /* row under the cursor */
    int top;              /* first row on screen */
    bool follow;          /* keep the cursor on screen (off after wheel scrolling) */
} ProfilePane;

static int by_time_desc(const void *a, const void *b)
{
    const Timed *x = a, *y = b;
    if (x->secs != y->secs)
        return x->secs > y->secs ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node); /* ties in execution order */
}

/* The node times as they are now: how many nodes have one and their sum.
** A pass over the nodes' times without sorting, so checking whether the
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

static void rebuild_times(Tui *t, ProfilePane *p)
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
    ep_qsort(p->order, (size_t)p->n, sizeof *p->order, by_time_desc);
    p->dirty = false;
}

static void take_rows(ProfilePane *p)
{
    profile_rows_free(p->rows, p->nrows);
    p->rows = NULL;
    p->nrows = 0;
    if (p->prof) {
        p->nrows = profile_rows(p->prof, VIEW_CYCLE[p->view], &p->rows);
        p->per_iter = profile_total_seconds(p->prof);
    }
}

/* Rows in the list shown now. */
static int list_len(const ProfilePane *p)
{
    return p->prof ? p->nrows : p->n;
}

static void refresh(Tui *t, ProfilePane *p)
{
    unsigned long gen;
    const Profile *prof = tui_profile(t, &gen);
    if (gen != p->gen || prof != p->prof) {
        p->gen = gen;
        p->prof = prof;
        take_rows(p);
    }
    if (!prof && p->dirty)
        rebuild_times(t, p);
    int n = list_len(p);
    if (p->cursor >= n)
        p->cursor = n > 0 ? n - 1 : 0;
}

static void *profile_create(Tui *t)
{
    ProfilePane *p = ep_xcalloc(1, sizeof *p);
    p->nnodes = session_num_nodes(t->s);
    p->order = ep_xmalloc((size_t)(p->nnodes ? p->nnodes : 1) * sizeof *p->order);
    p->dirty = true;
    p->follow = true;
    p->gen = (unsigned long)-1; /* nothing taken yet */
    return p;
}

static void profile_destroy(void *state)
{
    ProfilePane *p = state;
    if (!p)
        return;
    profile_rows_free(p->rows, p->nrows);
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
    char tm[32];
    if (p->prof) {
        snprintf(buf, cap, "by %s  %d/%d  %s/iteration", profile_by_name(VIEW_CYCLE[p->view]),
                 p->nrows ? p->cursor + 1 : 0, p->nrows, format_time(p->per_iter, tm, sizeof tm));
        return;
    }
    if (p->n == 0) {
        snprintf(buf, cap, "no run yet");
        return;
    }
    snprintf(buf, cap, "%d/%d  %s", p->cursor + 1, p->n, format_time(p->total, tm, sizeof tm));
}

/* Scroll so the cursor is on screen (rows of list shown). */
static void place(ProfilePane *p, int rows)
{
    int n = list_len(p);
    if (p->follow) {
        if (p->cursor < p->top)
            p->top = p->cursor;
        else if (p->cursor >= p->top + rows)
            p->top = p->cursor - rows + 1;
    }
    if (p->top > n - rows)
        p->top = n - rows;
    if (p->top < 0)
        p->top = 0;
}

/* ---- drawing: the profile ------------------------------------------------------- */

/* A bar of frac (0..1) of width cells, in eighths: full blocks, then the
** partial one (U+2589 is 7/8 ... U+258F 1/8); screen.c has ASCII stand-ins. */
static void draw_bar(Canvas *c, int row, int col, int width, double frac, Style st)
{
    static const char *const PART[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int eighths = (int)(frac * width * 8 + 0.5);
    int k = 0;
    for (; k < eighths / 8; k++)
        canvas_print(c, row, col + k, st, "█");
    if (eighths % 8)
        canvas_print(c, row, col + k, st, PART[eighths % 8]);
}

/* "profiling  exact  2 iterations  1.24 ms/iteration  by op  (v: view)" */
static void draw_profile_header(Tui *t, const ProfilePane *p, Canvas *c)
{
    const Profile *pr = p->prof;
    char tm[32], mode[64];
    if (pr->mode == PROFILE_EXACT)
        snprintf(mode, sizeof mode, "exact");
    else
        snprintf(mode, sizeof mode, "sampling %d Hz %s", pr->sample_hz, pr->clock == PROFILE_CLOCK_CPU ? "cpu" : "wall");
    int col = canvas_print(c, 0, 1, ST_KEY, session_profiling(t->s) ? "profiling" : "profile");
    col = canvas_printf(c, 0, col + 2, ST_NORMAL, "%s  %d iteration%s  %s/iteration", mode, pr->iters,
                        pr->iters == 1 ? "" : "s", format_time(p->per_iter, tm, sizeof tm));
    if (pr->mode == PROFILE_SAMPLE)
        col = canvas_printf(c, 0, col, ST_NORMAL, "  %lld samples", (long long)pr->samples);
    if (pr->partial)
        col = canvas_print(c, 0, col + 2, ST_ERROR, "partial");
    canvas_printf(c, 0, col + 2, ST_DIM, "by %s  (v: view)", profile_by_name(VIEW_CYCLE[p->view]));
}

static void draw_profile(Tui *t, ProfilePane *p, Canvas *c, bool focused)
{
    draw_profile_header(t, p, c);
    int rows = c->rows - 1;
    if (rows <= 0)
        return;
    if (p->nrows == 0) {
        canvas_print(c, 1, 1, ST_DIM, "(nothing measured yet: run the program)");
        return;
    }
    place(p, rows);
    ProfileBy by = VIEW_CYCLE[p->view];
    int bar_w = c->cols >= BAR_MIN_COLS ? (c->cols / 5 < BAR_MAX ? c->cols / 5 : BAR_MAX) : 0;
    char tm[32];
    for (int r = 0; r < rows && p->top + r < p->nrows; r++) {
        int k = p->top + r;
        const ProfileRow *row = &p->rows[k];
        Style st = ST_NORMAL;
        if (k == p->cursor) {
            st = focused ? ST_CURSOR : ST_CURSOR_DIM;
            canvas_fill_row(c, r + 1, st);
        }
        /* the module view is a tree: its bars say what each subtree costs */
        double pct = by == PROFILE_BY_MODULE ? row->total_pct : row->pct;
        double secs = by == PROFILE_BY_MODULE ? row->total : row->self;
        int col = 0;
        if (c->cols >= NARROW_COLS)
            col = canvas_printf(c, r + 1, col, st, "%6.1f%% ", pct);
        if (bar_w > 0) {
            draw_bar(c, r + 1, col, bar_w, pct / 100, st == ST_NORMAL ? ST_DONE : st);
            col += bar_w + 1;
        }
        col = canvas_printf(c, r + 1, col, st, "%9s ", format_time(secs, tm, sizeof tm));
        if (c->cols >= NARROW_COLS)
            col = canvas_printf(c, r + 1, col, st, "%5lld  ", (long long)row->calls);
        col += 2 * row->depth;
        const char *key = row->key[0] ? row->key : "(model)";
        col = canvas_print(c, r + 1, col, st, key);
        if (row->detail)
            canvas_print(c, r + 1, col + 2, st == ST_NORMAL ? ST_DIM : st, row->detail);
    }
}

/* ---- drawing: node times ----------------------------------------------------------- */

static void draw_times(Tui *t, ProfilePane *p, Canvas *c, bool focused)
{
    if (p->n == 0) {
        canvas_print(c, 0, 1, ST_DIM, "No timings yet: run the program (r)");
        if (c->rows > 1)
            canvas_print(c, 1, 1, ST_DIM, HINT);
        return;
    }
    char tm[32];
    canvas_printf(c, 0, 1, ST_KEY, "total %s in %d node%s (wall time of each node's last run)",
                  format_time(p->total, tm, sizeof tm), p->n, p->n == 1 ? "" : "s");
    /* the hint takes the last row when the list leaves one free */
    bool hint = c->rows >= p->n + 2;
    int rows = c->rows - 1 - (hint ? 1 : 0);
    if (hint)
        canvas_print(c, c->rows - 1, 1, ST_DIM, HINT);
    if (rows <= 0)
        return;
    place(p, rows);
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

static void profile_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    ProfilePane *p = state;
    canvas_clear(c, ST_NORMAL);
    refresh(t, p);
    if (c->rows <= 0 || c->cols <= 0)
        return;
    if (p->prof)
        draw_profile(t, p, c, focused);
    else
        draw_times(t, p, c, focused);
}

/* ---- keys ------------------------------------------------------------------------------ */

/* Enter on row k: the node it stands for, shown where it makes sense. */
static void jump(Tui *t, ProfilePane *p, int k, bool focus)
{
    if (!p->prof) {
        tui_select_node(t, p->order[k].node);
        return;
    }
    const ProfileRow *row = &p->rows[k];
    if (row->first_node < 0) {
        tui_note(t, "%s is the time between nodes: no node to show", row->key);
        return;
    }
    bool line = VIEW_CYCLE[p->view] == PROFILE_BY_LINE;
    if (line)
        t->cmd.frame = -1; /* the user's frame: the line the row is */
    tui_select_node(t, row->first_node);
    if (focus)
        tui_focus(t, line ? PANE_SOURCE : PANE_GRAPH);
}

static bool profile_key(Tui *t, void *state, int key, int c_rows)
{
    ProfilePane *p = state;
    refresh(t, p);
    if (key == 'v' && p->prof) {
        p->view = (p->view + 1) % NVIEWS;
        take_rows(p);
        p->cursor = p->top = 0;
        p->follow = true;
        return true;
    }
    int n = list_len(p);
    if (n == 0)
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
        to = n - 1;
        break;
    case TK_WHEEL_UP:
    case TK_WHEEL_DOWN:
        p->top += key == TK_WHEEL_UP ? -3 : 3;
        if (p->top > n - 1)
            p->top = n - 1;
        if (p->top < 0)
            p->top = 0;
        p->follow = false;
        return true;
    case TK_ENTER:
        jump(t, p, p->cursor, true);
        return true;
    default:
        return false;
    }
    p->cursor = to < 0 ? 0 : to >= n ? n - 1 : to;
    p->follow = true;
    return true;
}

static void profile_click(Tui *t, void *state, int row, int col)
{
    (void)col;
    ProfilePane *p = state;
    refresh(t, p);
    int k = p->top + row - 1; /* row 0 is the header line */
    if (row < 1 || k >= list_len(p))
        return;
    p->cursor = k;
    p->follow = true;
    jump(t, p, k, false); /* the click focused this pane: it keeps the focus */
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
