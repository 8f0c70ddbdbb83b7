/*
** pane_inspector.c -- the inspector pane: one value of the run, with its
** statistics and a page of its elements, and the inputs and outputs of the
** selected node to move between.
**
**   linear: float32[4, 32]
**   min -1.377  max 1.782  mean 0.008518  std 0.6837
**   [:, :]  rows 0-3 of 4  cols 0-4 of 32
**   0 -0.6846  0.2902  0.0662 -0.0361 -0.6815
**   1  ...
**    in0 x: float32[4, 16]  min -1.92778  max 1.90009  mean 0.194473
**   *out0 linear: float32[4, 32]  min -1.3775  max 1.78197  mean 0.00851833
**
** ('*' marks the row of the value shown; NaN and Inf counts lead the
** statistics row when there are any.)
**
** A tensor is shown a 2-D page at a time: rows are its second-to-last dim,
** columns its last; the leading indices pick the page (the prefix shows
** them, `<` and `>` change them, scrolling down past a page's last row
** goes on into the next).  Only the elements on screen are ever formatted,
** with one notation per page chosen as torch chooses it (fixed, integer or
** scientific), so a tensor of any size draws in the same time.
**
** What is shown is worked out again after every change (changed()); the
** value itself is looked up at each use by its graph name, a hash lookup,
** so the pane never holds a pointer the run may have freed.
*/
#include "tui_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugger/format.h"

/* Stats for an input/output row read every element: past this many the row
** shows the type only (the value itself, once inspected, gets them). */
#define ROW_STATS_MAX ((int64_t)1 << 22)
/* Columns formatted at most per page row, whatever the width. */
#define MAX_PAGE_COLS 512
#define CELL_CAP 64
#define PRECISION 4

typedef struct IoRow {
    const char *name;   /* the value (borrowed from the program) */
    char label[16];     /* "in0", "out1" */
    char *summary;      /* "float32[4, 16]  min ..." (owned; NULL until first drawn) */
} IoRow;

typedef struct InspectorPane {
    StrMap producer;    /* output name -> defining node + 1 */
    StrMap node_names;  /* node name -> node + 1 */
    bool dirty;         /* work out what is shown before the next use */

    int node;           /* whose inputs and outputs are listed (-1: none) */
    IoRow *io;
    int nio;
    int io_cursor, io_top;

    char *name;         /* the value shown, as named (owned; NULL: none) */
    char *gname;        /* its name in the graph (owned; NULL: no such value) */
    int producer_node;  /* the node computing it, -1 for an input, parameter or buffer */

    /* the statistics of the tensor shown, and which tensor they are of */
    bool stats_valid;
    const void *stats_tensor, *stats_data;
    TensorStats stats;

    /* the page: N-d tensors as slice/row/col, 1-d as the first element in
    ** row, lists as the first item in row */
    int64_t slice, row, col;
    int page_rows, page_cols; /* data rows and columns at the last draw, for paging */
    int io_row0, io_nrows;    /* where the input/output rows were drawn, for clicks */
} InspectorPane;

/* ---- what is shown --------------------------------------------------------------------- */

static int shown_node(const Tui *t)
{
    int node = t->selected >= 0 ? t->selected : tui_current_node(t);
    return node >= 0 && node < t->nnodes ? node : -1;
}

static void clear_io(InspectorPane *p)
{
    for (int i = 0; i < p->nio; i++)
        free(p->io[i].summary);
    free(p->io);
    p->io = NULL;
    p->nio = 0;
}

static void list_io(const Interp *ip, InspectorPane *p, int node)
{
    clear_io(p);
    p->io_cursor = p->io_top = 0;
    if (node < 0)
        return;
    int nin = interp_node_num_inputs(ip, node), nout = interp_node_num_outputs(ip, node);
    p->io = ep_xcalloc((size_t)(nin + nout) + 1, sizeof *p->io);
    for (int k = 0; k < nin; k++) {
        const char *name = interp_node_input_name(ip, node, k, NULL);
        if (!name)
            continue;
        IoRow *r = &p->io[p->nio++];
        r->name = name;
        snprintf(r->label, sizeof r->label, "in%d", k);
    }
    for (int k = 0; k < nout; k++) {
        const char *name = interp_node_output_name(ip, node, k);
        if (!name)
            continue;
        IoRow *r = &p->io[p->nio++];
        r->name = name;
        snprintf(r->label, sizeof r->label, "out%d", k);
    }
}

/* The graph name of what the user called name (a value, a node, an input's
** placeholder or argument name, or a parameter/buffer FQN), and the node
** computing it; NULL when nothing is called that. */
static char *graph_name(const Interp *ip, const InspectorPane *p, const char *name, int *producer)
{
    *producer = -1;
    intptr_t n = (intptr_t)strmap_get(&p->producer, name);
    if (n > 0) {
        *producer = (int)n - 1;
        return ep_xstrdup(name);
    }
    const ExportedProgram *ep = interp_program(ip);
    for (int i = 0; i < ep->ninput_specs; i++) {
        const char *ph = ep->graph.inputs[i].ref;
        if (ph && (strcmp(ph, name) == 0 || (ep->input_specs[i].target && strcmp(ep->input_specs[i].target, name) == 0)))
            return ep_xstrdup(ph);
    }
    int input = interp_find_user_input(ip, name); /* by the forward's argument name */
    if (input >= 0)
        return ep_xstrdup(interp_user_input(ip, input)->name);
    n = (intptr_t)strmap_get(&p->node_names, name);
    if (n > 0 && interp_node_num_outputs(ip, (int)n - 1) > 0) {
        *producer = (int)n - 1;
        return ep_xstrdup(interp_node_output_name(ip, (int)n - 1, 0));
    }
    return NULL;
}

static void resolve(Tui *t, InspectorPane *p)
{
    p->dirty = false;
    p->stats_valid = false;
    const Interp *ip = session_interp(t->s);
    int node = shown_node(t);
    if (node != p->node) {
        list_io(ip, p, node);
        p->node = node;
    } else {
        for (int i = 0; i < p->nio; i++) {
            free(p->io[i].summary);
            p->io[i].summary = NULL;
        }
    }
    const char *want = t->inspect;
    if (!want && node >= 0 && interp_node_num_outputs(ip, node) > 0)
        want = interp_node_output_name(ip, node, 0);
    if (!want || !p->name || strcmp(want, p->name) != 0) {
        /* another value: start at its beginning, the cursor on its row */
        free(p->name);
        p->name = want ? ep_xstrdup(want) : NULL;
        p->slice = p->row = p->col = 0;
        for (int i = 0; i < p->nio; i++)
            if (want && strcmp(p->io[i].name, want) == 0) {
                p->io_cursor = i;
                break;
            }
    }
    free(p->gname);
    p->gname = p->name ? graph_name(ip, p, p->name, &p->producer_node) : NULL;
}

/* The value shown now, or NULL (why says why, if given). */
static const Value *shown_value(Tui *t, InspectorPane *p, char *why, size_t cap)
{
    if (p->dirty)
        resolve(t, p);
    const Interp *ip = session_interp(t->s);
    const Value *v = p->gname ? interp_value(ip, p->gname) : NULL;
    if (v || !why)
        return v;
    if (!p->name)
        snprintf(why, cap, "(nothing to show: the node has no outputs)");
    else if (!p->gname)
        snprintf(why, cap, "(no value named '%s')", p->name);
    else if (!interp_bound(ip))
        snprintf(why, cap, "(no value: the program is not running)");
    else if (p->producer_node >= interp_pc(ip))
        snprintf(why, cap, "(not computed yet: node #%d runs %s)", p->producer_node,
                 p->producer_node == interp_pc(ip) ? "next" : "later");
    else
        snprintf(why, cap, "(no value now)");
    return NULL;
}

/* "float32[s0, 32]" as recorded for name, "" if nothing is. */
static void recorded_type(const Interp *ip, const char *name, char *buf, size_t cap)
{
    char *type = graph_recorded_type(&interp_program(ip)->graph, name);
    snprintf(buf, cap, "%s", type ? type : "");
    free(type);
}

/* ---- numbers ------------------------------------------------------------------------------ */

typedef enum NumMode { NUM_FIXED, NUM_SCI, NUM_INTEGRAL, NUM_INT, NUM_BOOL } NumMode;

/* How one page's numbers are written: torch's rule over the elements
** shown -- integer-valued floats as "3.", scientific when the magnitudes
** span more than 1000x or leave [1e-4, 1e8], fixed otherwise. */
typedef struct NumFormat {
    NumMode mode;
    /* accumulated by num_scan */
    int64_t n;
    double lo, hi;
    bool all_int;
} NumFormat;

static void num_begin(NumFormat *f, DType dt)
{
    memset(f, 0, sizeof *f);
    f->all_int = true;
    f->mode = dt == DT_BOOL ? NUM_BOOL : dtype_is_float(dt) ? NUM_FIXED : NUM_INT;
}

static void num_scan(NumFormat *f, const Tensor *t, int64_t flat)
{
    if (f->mode == NUM_BOOL || f->mode == NUM_INT)
        return;
    double v = tensor_get_f64(t, flat);
    if (!isfinite(v) || v == 0)
        return;
    double a = fabs(v);
    if (f->n == 0 || a < f->lo)
        f->lo = a;
    if (f->n == 0 || a > f->hi)
        f->hi = a;
    if (v != nearbyint(v))
        f->all_int = false;
    f->n++;
}

static void num_end(NumFormat *f)
{
    if (f->mode != NUM_FIXED)
        return;
    if (f->n == 0 || f->all_int)
        f->mode = f->n && (f->hi / f->lo > 1000.0 || f->hi > 1e8) ? NUM_SCI : NUM_INTEGRAL;
    else
        f->mode = f->hi / f->lo > 1000.0 || f->hi > 1e8 || f->lo < 1e-4 ? NUM_SCI : NUM_FIXED;
}

/* The element at flat as f writes it; *odd is set for NaN and infinities. */
static int num_text(const NumFormat *f, const Tensor *t, int64_t flat, char *buf, bool *odd)
{
    *odd = false;
    if (f->mode == NUM_BOOL)
        return snprintf(buf, CELL_CAP, "%s", tensor_get_i64(t, flat) ? "True" : "False");
    if (f->mode == NUM_INT)
        return snprintf(buf, CELL_CAP, "%lld", (long long)tensor_get_i64(t, flat));
    double v = tensor_get_f64(t, flat);
    if (!isfinite(v)) {
        *odd = true;
        return snprintf(buf, CELL_CAP, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
    }
    if (f->mode == NUM_SCI)
        return snprintf(buf, CELL_CAP, "%.*e", PRECISION, v);
    if (f->mode == NUM_INTEGRAL)
        return snprintf(buf, CELL_CAP, "%.0f.", v);
    return snprintf(buf, CELL_CAP, "%.*f", PRECISION, v);
}

static int digits64(int64_t n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

/* ---- the page ------------------------------------------------------------------------------ */

/* The geometry of a tensor's pages: nd >= 2 as slices of rows x cols;
** 1-d as one slice of one long row (wrapped when drawn). */
typedef struct PageGeom {
    int64_t nslices, nrows, ncols;
} PageGeom;

static PageGeom geom_of(const Tensor *t)
{
    PageGeom g = {1, 1, 1};
    if (t->ndim == 1) {
        g.ncols = t->sizes[0];
    } else if (t->ndim >= 2) {
        g.nrows = t->sizes[t->ndim - 2];
        g.ncols = t->sizes[t->ndim - 1];
        for (int d = 0; d < t->ndim - 2; d++)
            g.nslices *= t->sizes[d];
    }
    return g;
}

/* "[1, 0, :, :]" for slice of t into buf. */
static void slice_prefix(const Tensor *t, int64_t slice, char *buf, size_t cap)
{
    int64_t idx[EP_MAX_DIMS];
    for (int d = t->ndim - 3; d >= 0; d--) {
        idx[d] = slice % t->sizes[d];
        slice /= t->sizes[d];
    }
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && len < cap; d++)
        len += d < t->ndim - 2 ? (size_t)snprintf(buf + len, cap - len, "%s%lld", d ? ", " : "", (long long)idx[d])
                               : (size_t)snprintf(buf + len, cap - len, "%s:", d ? ", " : "");
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
}

/* Keep the scroll position inside the tensor. */
static void clamp_page(InspectorPane *p, const PageGeom *g, int h)
{
    if (p->slice >= g->nslices)
        p->slice = g->nslices - 1;
    if (p->slice < 0)
        p->slice = 0;
    int64_t last_row = g->nrows - (h > 0 ? h : 1);
    if (p->row > last_row)
        p->row = last_row;
    if (p->row < 0)
        p->row = 0;
    if (p->col >= g->ncols)
        p->col = g->ncols - 1;
    if (p->col < 0)
        p->col = 0;
}

/* Choose the notation for the elements of rows [r0, r0+h) and columns
** [c0, c0+k) of a slice starting at flat offset base, ncols elements a
** row. */
static void page_mode(const Tensor *t, int64_t base, int64_t ncols, int64_t r0, int h, int64_t c0, int64_t k,
                      NumFormat *f)
{
    num_begin(f, t->dtype);
    for (int r = 0; r < h; r++)
        for (int64_t c = 0; c < k; c++)
            num_scan(f, t, base + (r0 + r) * ncols + c0 + c);
    num_end(f);
}

/* The fewest columns any number takes in f's notation. */
static int min_width(const NumFormat *f)
{
    switch (f->mode) {
    case NUM_FIXED: return PRECISION + 2;  /* "0.0000" */
    case NUM_SCI: return PRECISION + 6;    /* "1.0000e+00" */
    case NUM_INTEGRAL: return 2;           /* "0." */
    case NUM_BOOL: return 4;               /* "True" */
    default: return 1;
    }
}

/* The widest of those elements as f writes them. */
static int page_width(const Tensor *t, int64_t base, int64_t ncols, int64_t r0, int h, int64_t c0, int64_t k,
                      const NumFormat *f)
{
    int width = 1;
    char buf[CELL_CAP];
    for (int r = 0; r < h; r++)
        for (int64_t c = 0; c < k; c++) {
            bool odd;
            int n = num_text(f, t, base + (r0 + r) * ncols + c0 + c, buf, &odd);
            if (n > width)
                width = n;
        }
    return width;
}

/* How many columns of cells fit in avail: the notation from the kmax
** that could show, the width from those that still could in it. */
static int fit_columns(const Tensor *t, int64_t base, int64_t ncols, int64_t r0, int h, int64_t c0, int64_t kmax,
                       int avail, NumFormat *f, int *width)
{
    page_mode(t, base, ncols, r0, h, c0, kmax, f);
    int64_t k = avail / (min_width(f) + 1) + 1;
    if (k > kmax)
        k = kmax;
    *width = page_width(t, base, ncols, r0, h, c0, k, f);
    int fit = (avail + 1) / (*width + 1);
    if (fit > k)
        fit = (int)k;
    return fit > 0 ? fit : 1;
}

/* One row of cells at canvas row, after a label of label_w columns. */
static void draw_cells(Canvas *c, int row, int col, const Tensor *t, const NumFormat *f, int width, int64_t first,
                       int k)
{
    char buf[CELL_CAP];
    for (int j = 0; j < k; j++) {
        bool odd;
        int n = num_text(f, t, first + j, buf, &odd);
        canvas_print(c, row, col + width - n, odd ? ST_NAN : ST_NORMAL, buf);
        col += width + 1;
    }
}

/* A page of an N-d tensor (N >= 2) in at most rows rows: the numbers that
** fit the width.  Returns the rows used. */
static int draw_matrix(InspectorPane *p, Canvas *c, int top, int rows, const Tensor *t, const PageGeom *g)
{
    char prefix[256];
    int h = rows >= 2 ? rows - 1 : rows; /* the first row names the page when there is room */
    clamp_page(p, g, h);
    if (g->nrows - p->row < h)
        h = (int)(g->nrows - p->row);
    int label_w = digits64(g->nrows - 1) + 1;
    int avail = c->cols - label_w;
    int64_t kmax = avail / 2 + 1;
    if (kmax > g->ncols - p->col)
        kmax = g->ncols - p->col;
    if (kmax > MAX_PAGE_COLS)
        kmax = MAX_PAGE_COLS;
    if (kmax < 1)
        kmax = 1;
    int64_t base = p->slice * g->nrows * g->ncols;
    NumFormat f;
    int width;
    int k = fit_columns(t, base, g->ncols, p->row, h, p->col, kmax, avail, &f, &width);
    p->page_rows = h;
    p->page_cols = k;
    if (rows >= 2) {
        slice_prefix(t, p->slice, prefix, sizeof prefix);
        canvas_printf(c, top++, 0, ST_DIM, "%s  rows %lld-%lld of %lld  cols %lld-%lld of %lld", prefix,
                      (long long)p->row, (long long)(p->row + h - 1), (long long)g->nrows, (long long)p->col,
                      (long long)(p->col + k - 1), (long long)g->ncols);
    }
    for (int r = 0; r < h; r++) {
        canvas_printf(c, top + r, 0, ST_DIM, "%*lld", label_w - 1, (long long)(p->row + r));
        draw_cells(c, top + r, label_w, t, &f, width, base + (p->row + r) * g->ncols + p->col, k);
    }
    return (rows >= 2) + h;
}

/* A 1-d tensor wrapped into rows of as many numbers as fit; p->row is the
** first element shown (a multiple of the row length).  Returns the rows
** used. */
static int draw_vector(InspectorPane *p, Canvas *c, int top, int rows, const Tensor *t)
{
    int64_t n = t->sizes[0];
    int h = rows >= 2 ? rows - 1 : rows;
    int label_w = digits64(n - 1) + 1;
    int avail = c->cols - label_w;
    int64_t kmax = avail / 2 + 1;
    if (kmax > MAX_PAGE_COLS)
        kmax = MAX_PAGE_COLS;
    if (kmax < 1)
        kmax = 1;
    if (p->row >= n)
        p->row = n - 1;
    if (p->row < 0)
        p->row = 0;
    /* the notation from the elements that could show from here, the
    ** width from those that still could in it */
    int64_t window = (int64_t)h * kmax;
    if (window > n - p->row)
        window = n - p->row;
    NumFormat f;
    page_mode(t, p->row, 0, 0, 1, 0, window, &f);
    int64_t k2 = avail / (min_width(&f) + 1) + 1;
    if (window > h * k2)
        window = h * k2;
    int width = page_width(t, p->row, 0, 0, 1, 0, window, &f);
    int k = (avail + 1) / (width + 1);
    if (k > kmax)
        k = (int)kmax;
    if (k < 1)
        k = 1;
    p->row -= p->row % k;
    p->page_rows = h;
    p->page_cols = k;
    if (rows >= 2) {
        int64_t last = p->row + (int64_t)h * k;
        canvas_printf(c, top++, 0, ST_DIM, "[:]  %lld-%lld of %lld", (long long)p->row,
                      (long long)((last < n ? last : n) - 1), (long long)n);
    }
    int used = rows >= 2;
    for (int r = 0; r < h; r++) {
        int64_t first = p->row + (int64_t)r * k;
        if (first >= n)
            break;
        int here = n - first < k ? (int)(n - first) : k;
        canvas_printf(c, top + r, 0, ST_DIM, "%*lld", label_w - 1, (long long)first);
        draw_cells(c, top + r, label_w, t, &f, width, first, here);
        used++;
    }
    return used;
}

/* The page of t in at most rows rows from top; returns the rows used. */
static int draw_tensor_page(InspectorPane *p, Canvas *c, int top, int rows, const Tensor *t)
{
    if (rows <= 0)
        return 0;
    if (tensor_numel(t) == 0) {
        canvas_print(c, top, 0, ST_DIM, "(no elements)");
        return 1;
    }
    if (t->ndim == 0) {
        NumFormat f;
        page_mode(t, 0, 0, 0, 1, 0, 1, &f);
        char buf[CELL_CAP];
        bool odd;
        num_text(&f, t, 0, buf, &odd);
        canvas_print(c, top, 0, odd ? ST_NAN : ST_NORMAL, buf);
        p->page_rows = p->page_cols = 1;
        return 1;
    }
    PageGeom g = geom_of(t);
    return t->ndim == 1 ? draw_vector(p, c, top, rows, t) : draw_matrix(p, c, top, rows, t, &g);
}

/* A list, one item a row from p->row (tensors described, not printed:
** they may be large).  Returns the rows used. */
static int draw_list_page(InspectorPane *p, Canvas *c, int top, int rows, const ValueList *list)
{
    if (rows <= 0)
        return 0;
    if (p->row > list->n - rows)
        p->row = list->n - rows;
    if (p->row < 0)
        p->row = 0;
    int r = 0;
    for (; r < rows && p->row + r < list->n; r++) {
        const Value *item = &list->items[p->row + r];
        char *text = item->kind == V_TENSOR || item->kind == V_LIST ? value_describe(item) : format_value(item, NULL);
        canvas_printf(c, top + r, 0, ST_NORMAL, "[%lld] %s", (long long)(p->row + r), text);
        free(text);
    }
    p->page_rows = rows;
    return r;
}

/* ---- header, statistics, inputs and outputs ------------------------------------------------- */

static void draw_stats(InspectorPane *p, Canvas *c, int row, const Tensor *t)
{
    if (!p->stats_valid || p->stats_tensor != (const void *)t || p->stats_data != t->storage->data) {
        tensor_stats(t, &p->stats);
        p->stats_valid = true;
        p->stats_tensor = t;
        p->stats_data = t->storage->data;
    }
    const TensorStats *st = &p->stats;
    if (st->numel == 0) {
        canvas_print(c, row, 0, ST_DIM, "(empty)");
        return;
    }
    /* the counts that mean trouble first, where a narrow pane still shows them */
    int col = 0;
    if (st->nan)
        col = canvas_printf(c, row, col, ST_NAN, "NaN %lld  ", (long long)st->nan);
    if (st->inf)
        col = canvas_printf(c, row, col, ST_NAN, "inf %lld  ", (long long)st->inf);
    if (t->dtype == DT_BOOL)
        canvas_printf(c, row, col, ST_NORMAL, "true %lld of %lld", (long long)(st->numel - st->zeros),
                      (long long)st->numel);
    else if (st->nan + st->inf == st->numel)
        canvas_print(c, row, col, ST_NAN, "no finite values");
    else
        canvas_printf(c, row, col, ST_NORMAL, "min %.4g  max %.4g  mean %.4g  std %.4g", st->min, st->max, st->mean,
                      st->std);
}

/* "float32[4, 16]  min ... " for an input/output row (new string). */
static char *io_summary(const Interp *ip, const char *name, int producer)
{
    const Value *v = interp_value(ip, name);
    if (v && v->kind == V_TENSOR && tensor_numel(v->t) > ROW_STATS_MAX) {
        char shape[256];
        return ep_xasprintf("%s%s  (Enter: stats)", dtype_name(v->t->dtype),
                            shape_str(v->t->ndim, v->t->sizes, shape, sizeof shape));
    }
    if (v)
        return format_value_stats(v);
    char rec[320];
    recorded_type(ip, name, rec, sizeof rec);
    const char *why = !interp_bound(ip) ? "no value" : producer >= interp_pc(ip) ? "not computed yet" : "no value now";
    return ep_xasprintf("%s%s(%s)", rec, rec[0] ? "  " : "", why);
}

/* Rows the input/output list gets at least, out of left: all of it when
** there is room, one row (the cursor's) when short, none when shorter. */
static int io_rows_for(int left, int nio)
{
    if (nio == 0 || left < 4)
        return 0;
    if (left < 8)
        return 1;
    int want = left / 3 > 2 ? left / 3 : 2;
    return nio < want ? nio : want;
}

static void draw_io(Tui *t, InspectorPane *p, Canvas *c, int top, int rows, bool focused)
{
    if (rows <= 0)
        return;
    const Interp *ip = session_interp(t->s);
    if (p->io_cursor >= p->nio)
        p->io_cursor = p->nio - 1;
    if (p->io_cursor < 0)
        p->io_cursor = 0;
    if (p->io_cursor < p->io_top)
        p->io_top = p->io_cursor;
    if (p->io_cursor >= p->io_top + rows)
        p->io_top = p->io_cursor - rows + 1;
    if (p->io_top > p->nio - rows)
        p->io_top = p->nio - rows;
    if (p->io_top < 0)
        p->io_top = 0;
    for (int r = 0; r < rows && p->io_top + r < p->nio; r++) {
        int i = p->io_top + r;
        IoRow *io = &p->io[i];
        if (!io->summary) {
            intptr_t n = (intptr_t)strmap_get(&p->producer, io->name);
            io->summary = io_summary(ip, io->name, (int)n - 1);
        }
        Style st = ST_NORMAL;
        if (i == p->io_cursor) {
            st = focused ? ST_CURSOR : ST_CURSOR_DIM;
            canvas_fill_row(c, top + r, st);
        }
        bool shown = p->gname && strcmp(io->name, p->gname) == 0;
        int col = canvas_printf(c, top + r, 0, st, "%c%s %s: ", shown ? '*' : ' ', io->label, io->name);
        canvas_print(c, top + r, col, st == ST_NORMAL ? ST_DIM : st, io->summary);
    }
}

/* An int, float, bool, string...: its Python text on one row. */
static void draw_scalar(Canvas *c, int row, const Value *v)
{
    char *text = format_value(v, NULL);
    char *nl = strchr(text, '\n');
    canvas_printn(c, row, 0, ST_NORMAL, text, nl ? (int)(nl - text) : (int)strlen(text));
    free(text);
}

static void draw_header(const Interp *ip, const InspectorPane *p, Canvas *c, const Value *v)
{
    char type[320];
    if (v && v->kind == V_TENSOR) {
        char shape[256];
        snprintf(type, sizeof type, "%s%s", dtype_name(v->t->dtype), shape_str(v->t->ndim, v->t->sizes, shape,
                                                                                  sizeof shape));
    } else if (v && v->kind == V_LIST) {
        snprintf(type, sizeof type, "list[%d]", v->list->n);
    } else if (v) {
        snprintf(type, sizeof type, "%s", value_kind_name(v->kind));
    } else {
        recorded_type(ip, p->gname, type, sizeof type);
    }
    int col = canvas_printf(c, 0, 0, ST_KEY, "%s", p->name ? p->name : "(none)");
    if (type[0])
        canvas_printf(c, 0, col, ST_NORMAL, ": %s", type);
}

static void inspector_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    InspectorPane *p = state;
    canvas_clear(c, ST_NORMAL);
    p->io_nrows = 0;
    char why[256];
    const Value *v = shown_value(t, p, why, sizeof why);
    if (c->rows <= 0 || c->cols <= 0)
        return;
    const Interp *ip = session_interp(t->s);
    if (p->node < 0 && !p->name) {
        canvas_print(c, 0, 0, ST_DIM, "(no node selected)");
        return;
    }
    draw_header(ip, p, c, v);
    if (c->rows < 2)
        return;
    if (!v)
        canvas_print(c, 1, 0, ST_DIM, why);
    else if (v->kind == V_TENSOR)
        draw_stats(p, c, 1, v->t);
    else if (v->kind == V_LIST)
        canvas_printf(c, 1, 0, ST_DIM, "%d items", v->list->n);
    else
        draw_scalar(c, 1, v);
    /* the page first, leaving the list its least; the list then takes
    ** what the page did not use, right below it */
    int left = c->rows - 2;
    int io_min = io_rows_for(left, p->nio);
    int used = 0;
    if (v && v->kind == V_TENSOR)
        used = draw_tensor_page(p, c, 2, left - io_min, v->t);
    else if (v && v->kind == V_LIST)
        used = draw_list_page(p, c, 2, left - io_min, v->list);
    p->io_row0 = 2 + used;
    p->io_nrows = left - used < p->nio ? left - used : p->nio;
    draw_io(t, p, c, p->io_row0, p->io_nrows, focused);
}

static void inspector_title(Tui *t, void *state, char *buf, size_t cap)
{
    InspectorPane *p = state;
    if (p->dirty)
        resolve(t, p);
    snprintf(buf, cap, "%s", p->name ? p->name : "");
}

/* ---- keys ------------------------------------------------------------------------------------ */

/* Move the rows of a tensor's page by n (negative: up); past the end of a
** slice the next one starts, as if the slices were one long list. */
static void scroll_tensor_rows(InspectorPane *p, const Tensor *t, int64_t n)
{
    int h = p->page_rows > 0 ? p->page_rows : 1;
    if (t->ndim == 1) {
        int64_t k = p->page_cols > 0 ? p->page_cols : 1;
        int64_t last = (t->sizes[0] - 1) / k * k - (int64_t)(h - 1) * k;
        p->row += n * k;
        if (p->row > last)
            p->row = last;
        if (p->row < 0)
            p->row = 0;
        return;
    }
    if (t->ndim < 2)
        return;
    PageGeom g = geom_of(t);
    if (n > 0) {
        if (p->row + h < g.nrows)
            p->row = p->row + n < g.nrows - h ? p->row + n : g.nrows - h;
        else if (p->slice + 1 < g.nslices) {
            p->slice++;
            p->row = 0;
        }
    } else if (n < 0) {
        if (p->row > 0)
            p->row = p->row + n > 0 ? p->row + n : 0;
        else if (p->slice > 0) {
            p->slice--;
            p->row = g.nrows - h > 0 ? g.nrows - h : 0;
        }
    }
}

static bool tensor_key(Tui *t, InspectorPane *p, const Tensor *x, int key, int page)
{
    PageGeom g = geom_of(x);
    switch (key) {
    case TK_UP:
        scroll_tensor_rows(p, x, -1);
        return true;
    case TK_DOWN:
        scroll_tensor_rows(p, x, 1);
        return true;
    case TK_PGUP:
        scroll_tensor_rows(p, x, -page);
        return true;
    case TK_PGDN:
        scroll_tensor_rows(p, x, page);
        return true;
    case TK_WHEEL_UP:
        scroll_tensor_rows(p, x, -3);
        return true;
    case TK_WHEEL_DOWN:
        scroll_tensor_rows(p, x, 3);
        return true;
    case TK_LEFT:
        if (x->ndim >= 2 && p->col > 0)
            p->col--;
        return true;
    case TK_RIGHT:
        if (x->ndim >= 2 && p->col + (p->page_cols > 0 ? p->page_cols : 1) < g.ncols)
            p->col++;
        return true;
    case TK_HOME:
        p->row = p->col = 0;
        return true;
    case TK_END:
        p->row = x->ndim == 1 ? x->sizes[0] : g.nrows;
        if (x->ndim == 1)
            scroll_tensor_rows(p, x, 0);
        return true; /* the draw clamps it to the last page */
    case '<':
    case '>':
        if (x->ndim < 3) {
            tui_note(t, "%s has no leading dims to step through", p->name);
            return true;
        }
        p->slice += key == '>' ? 1 : -1;
        if (p->slice < 0)
            p->slice = 0;
        if (p->slice >= g.nslices)
            p->slice = g.nslices - 1;
        return true;
    default:
        return false;
    }
}

static void inspect_row(Tui *t, InspectorPane *p, int i)
{
    if (i < 0 || i >= p->nio)
        return;
    p->io_cursor = i;
    tui_inspect(t, p->io[i].name);
}

static bool inspector_key(Tui *t, void *state, int key, int c_rows)
{
    InspectorPane *p = state;
    const Value *v = shown_value(t, p, NULL, 0);
    int page = p->page_rows > 1 ? p->page_rows - 1 : 1;
    (void)c_rows;
    switch (key) {
    case '[':
    case ']':
        if (key == '[' && p->io_cursor > 0)
            p->io_cursor--;
        if (key == ']' && p->io_cursor + 1 < p->nio)
            p->io_cursor++;
        /* too short a pane to show the list: say where the cursor is */
        if (p->io_nrows == 0 && p->io_cursor < p->nio)
            tui_note(t, "%s %s  (Enter inspects it)", p->io[p->io_cursor].label, p->io[p->io_cursor].name);
        return true;
    case TK_ENTER:
        if (p->nio)
            inspect_row(t, p, p->io_cursor);
        return true;
    case TK_BACKSPACE:
        tui_inspect(t, NULL);
        return true;
    default:
        break;
    }
    if (v && v->kind == V_TENSOR)
        return tensor_key(t, p, v->t, key, page);
    if (!v || v->kind != V_LIST) /* one row: nothing to scroll, but the keys are the pane's */
        return key == TK_UP || key == TK_DOWN || key == TK_PGUP || key == TK_PGDN || key == TK_LEFT ||
               key == TK_RIGHT || key == TK_HOME || key == TK_END || key == '<' || key == '>';
    switch (key) {
    case TK_UP:
    case TK_WHEEL_UP:
        p->row -= key == TK_UP ? 1 : 3;
        break;
    case TK_DOWN:
    case TK_WHEEL_DOWN:
        p->row += key == TK_DOWN ? 1 : 3;
        break;
    case TK_PGUP:
        p->row -= page;
        break;
    case TK_PGDN:
        p->row += page;
        break;
    case TK_HOME:
        p->row = 0;
        break;
    case TK_END:
        p->row = v->list->n; /* the draw clamps it to the last page */
        break;
    case TK_LEFT:
    case TK_RIGHT:
    case '<':
    case '>':
        return true;
    default:
        return false;
    }
    if (p->row < 0)
        p->row = 0;
    return true;
}

static void inspector_click(Tui *t, void *state, int row, int col)
{
    (void)col;
    InspectorPane *p = state;
    if (p->dirty)
        return; /* the rows drawn are not what would be drawn now */
    if (row >= p->io_row0 && row < p->io_row0 + p->io_nrows)
        inspect_row(t, p, p->io_top + row - p->io_row0);
}

/* ---- lifetime -------------------------------------------------------------------------------- */

static void *inspector_create(Tui *t)
{
    InspectorPane *p = ep_xcalloc(1, sizeof *p);
    strmap_init(&p->producer);
    strmap_init(&p->node_names);
    const Interp *ip = session_interp(t->s);
    /* name -> node once, so finding what computes a value never walks the graph */
    for (int i = 0; i < t->nnodes; i++) {
        strmap_put(&p->node_names, interp_node(ip, i)->name, (void *)(intptr_t)(i + 1));
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
            const char *name = interp_node_output_name(ip, i, k);
            if (name)
                strmap_put(&p->producer, name, (void *)(intptr_t)(i + 1));
        }
    }
    p->node = -1;
    p->producer_node = -1;
    p->dirty = true;
    return p;
}

static void inspector_destroy(void *state)
{
    InspectorPane *p = state;
    if (!p)
        return;
    clear_io(p);
    strmap_free(&p->producer, NULL);
    strmap_free(&p->node_names, NULL);
    free(p->name);
    free(p->gname);
    free(p);
}

static void inspector_changed(Tui *t, void *state)
{
    (void)t;
    InspectorPane *p = state;
    p->dirty = true;
}

/* The inspector pane (tui_int.h): state per TUI, created by tui_new, freed
** by tui_free; it reads the session and t->inspect, and acts only through
** tui_inspect and tui_note. */
const PaneClass PANE_INSPECTOR_CLASS = {
    .name = "inspector",
    .create = inspector_create,
    .destroy = inspector_destroy,
    .title = inspector_title,
    .draw = inspector_draw,
    .key = inspector_key,
    .click = inspector_click,
    .changed = inspector_changed,
};
