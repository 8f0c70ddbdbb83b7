/*
** report_table.c -- the table report: a header saying what was measured
** and how, one view (profile.h) in the columns torch.profiler's
** key_averages().table() prints, and what memory the run held; with a
** --diff base, before/after/delta/ratio per node and per source line.
**
** Every table goes through one grid printer (cells as text, widths from
** the widest cell); the view's columns come from one table of columns,
** each saying which views show it and which data it needs.
*/
#include "profiler/report_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Cells wider than this are cut with "..." (names, code); the last column
** (input shapes) never is, since nothing follows it. */
#define CELL_MAX 64
/* Rows of the memory tables when o->top is 0. */
#define MEMORY_ROWS 10

/* ---- human units ------------------------------------------------------------- */

/* Seconds as ns/us/ms/s with three or four significant digits. */
static const char *fmt_time(char *buf, size_t cap, double s)
{
    double a = fabs(s);
    if (a == 0)
        snprintf(buf, cap, "0");
    else if (a < 1e-6)
        snprintf(buf, cap, "%.1f ns", s * 1e9);
    else if (a < 1e-3)
        snprintf(buf, cap, "%.2f us", s * 1e6);
    else if (a < 1)
        snprintf(buf, cap, "%.3f ms", s * 1e3);
    else
        snprintf(buf, cap, "%.3f s", s);
    return buf;
}

/* A quantity with decimal prefixes: "12.3 MB", "1.20 GFLOP". */
static const char *fmt_si(char *buf, size_t cap, double v, const char *unit)
{
    static const char *const prefix[] = {"", "K", "M", "G", "T", "P"};
    double a = fabs(v);
    size_t k = 0;
    while (a >= 1000 && k + 1 < EP_ARRAY_LEN(prefix)) {
        a /= 1000;
        v /= 1000;
        k++;
    }
    if (k == 0)
        snprintf(buf, cap, "%.0f %s", v, unit);
    else
        snprintf(buf, cap, "%.2f %s%s", v, prefix[k], unit);
    return buf;
}

static const char *fmt_bytes(char *buf, size_t cap, double b)
{
    return fmt_si(buf, cap, b, "B");
}

/* ---- the grid printer ---------------------------------------------------------- */

typedef struct Grid {
    int ncols;
    const char *title[16];
    bool right[16];
    char **cell; /* row-major, ncells of them (owned) */
    int ncells, cap;
} Grid;

static void grid_col(Grid *g, const char *title, bool right)
{
    g->title[g->ncols] = title;
    g->right[g->ncols++] = right;
}

/* s with control characters (a tab in a source line, a newline in a
** reason) as spaces, so each row stays one line (new string). */
static char *one_line(const char *s)
{
    char *t = ep_xstrdup(s ? s : "");
    for (char *c = t; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    return t;
}

static void grid_cell(Grid *g, const char *text)
{
    if (g->ncells == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->cell = ep_xrealloc(g->cell, (size_t)g->cap * sizeof *g->cell);
    }
    g->cell[g->ncells++] = one_line(text);
}

/* Cut a cell to CELL_MAX characters (bytes; the names are ASCII). */
static void cut(char *s)
{
    if (strlen(s) > CELL_MAX)
        memcpy(s + CELL_MAX - 3, "...", 4);
}

static void grid_print(FILE *f, Grid *g, const char *indent)
{
    int w[16] = {0};
    for (int c = 0; c < g->ncols; c++)
        w[c] = (int)strlen(g->title[c]);
    for (int i = 0; i < g->ncells; i++) {
        int c = i % g->ncols;
        if (c < g->ncols - 1)
            cut(g->cell[i]);
        int len = (int)strlen(g->cell[i]);
        if (len > w[c])
            w[c] = len;
    }
    int rule = 0;
    for (int c = 0; c < g->ncols; c++)
        rule += w[c] + (c ? 2 : 0);
    StrBuf line;
    sb_init(&line);
    for (int r = -1; r < g->ncells / g->ncols; r++) {
        line.len = 0;
        sb_append(&line, indent);
        for (int c = 0; c < g->ncols; c++) {
            const char *s = r < 0 ? g->title[c] : g->cell[r * g->ncols + c];
            sb_printf(&line, g->right[c] ? "%s%*s" : "%s%-*s", c ? "  " : "", w[c], s);
        }
        while (line.len > 0 && line.data[line.len - 1] == ' ') /* the last column's padding */
            line.len--;
        line.data[line.len] = '\0';
        fprintf(f, "%s\n", line.data);
        if (r < 0) {
            fputs(indent, f);
            for (int i = 0; i < rule; i++)
                fputc('-', f);
            fputc('\n', f);
        }
    }
    sb_free(&line);
    for (int i = 0; i < g->ncells; i++)
        free(g->cell[i]);
    free(g->cell);
    memset(g, 0, sizeof *g);
}

/* ---- the header ------------------------------------------------------------------ */

static const char *str_or(const char *s, const char *dflt)
{
    return s && s[0] ? s : dflt;
}

/* One header line: "Label:" padded, then the text on one line. */
static void header_line(FILE *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void header_line(FILE *f, const char *label, const char *fmt, ...)
{
    char *buf;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *text = one_line(buf);
    fprintf(f, "%-12s %s\n", label, text);
    free(text);
    free(buf);
}

static void write_header(FILE *f, const Profile *p)
{
    char t[64], a[64], b[64];
    header_line(f, "Model:", "%s, program \"%s\"", str_or(p->model_path, "(unknown)"), str_or(p->program, "model"));
    header_line(f, "Inputs:", "%s", str_or(p->inputs, "(none)"));
    if (p->mode == PROFILE_SAMPLE)
        header_line(f, "Mode:", "sampling at %d Hz, %s clock: %" PRId64 " samples, %" PRId64 " outside nodes",
                p->sample_hz, p->clock == PROFILE_CLOCK_CPU ? "process CPU" : "wall", p->samples, p->outside_samples);
    else
        header_line(f, "Mode:", "exact, timer cost %s per node (subtracted)", fmt_time(t, sizeof t, p->timer_cost));
    header_line(f, "Iterations:", "%d measured after %d warm-up, %s wall per iteration", p->iters, p->warmup,
            fmt_time(t, sizeof t, p->wall / (p->iters > 0 ? p->iters : 1)));
    header_line(f, "Threads:", "%d", p->threads);
    if (p->peak_gflops > 0 || p->peak_gbps > 0)
        header_line(f, "Machine:", "%s, peaks %s/s sgemm, %s/s memory", str_or(p->machine, "(unknown CPU)"),
                fmt_si(a, sizeof a, p->peak_gflops * 1e9, "FLOP"), fmt_si(b, sizeof b, p->peak_gbps * 1e9, "B"));
    else
        header_line(f, "Machine:", "%s, peaks not measured", str_or(p->machine, "(unknown CPU)"));
    if (p->partial)
        header_line(f, "PARTIAL:", "%s", str_or(p->reason, "stopped early"));
}

/* ---- a view ------------------------------------------------------------------------ */

typedef struct View {
    const Profile *p;
    ProfileBy by;
    const ProfileRow *rows;
    int nrows;
    bool flops, bytes, peaks, shapes, sample; /* what the data has */
} View;

typedef void (*CellFn)(const View *v, const ProfileRow *r, char *buf, size_t cap);

/* The name of a row: the module view indents the last path component
** under its parent and adds the module's class name. */
static void cell_name(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    if (v->by != PROFILE_BY_MODULE || r->first_node < 0) {
        snprintf(buf, cap, "%s", r->key);
        return;
    }
    const char *leaf = strrchr(r->key, '.');
    leaf = r->key[0] ? (leaf ? leaf + 1 : r->key) : str_or(v->p->program, "model");
    const char *type = r->detail ? strrchr(r->detail, '.') : NULL;
    type = type ? type + 1 : r->detail;
    int depth = r->depth < 20 ? r->depth : 20; /* a deep tree stays readable */
    snprintf(buf, cap, "%*s%s%s%s%s", 2 * depth, "", leaf, type ? " (" : "", type ? type : "", type ? ")" : "");
}

static void cell_detail(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    snprintf(buf, cap, "%s", r->first_node >= 0 && r->detail ? r->detail : "");
}

static void cell_self_pct(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    snprintf(buf, cap, "%.2f %%", r->pct);
}

static void cell_self(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    fmt_time(buf, cap, r->self);
}

static void cell_total_pct(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    snprintf(buf, cap, "%.2f %%", r->total_pct);
}

static void cell_total(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    fmt_time(buf, cap, r->total);
}

static void cell_mean(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    if (r->first_node < 0)
        snprintf(buf, cap, "-");
    else
        fmt_time(buf, cap, r->mean);
}

static void cell_calls(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    if (r->first_node < 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%" PRId64, r->calls);
}

static void cell_samples(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    snprintf(buf, cap, "%" PRId64, r->samples);
}

static void cell_flops(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    if (r->flops > 0)
        fmt_si(buf, cap, r->flops, "FLOP");
    else
        snprintf(buf, cap, "-");
}

/* Rates over the row's total (its flops cover the same nodes). */
static double gflops_of(const ProfileRow *r)
{
    return r->flops > 0 && r->total > 0 ? r->flops / r->total / 1e9 : 0;
}

static double gbps_of(const ProfileRow *r)
{
    return r->bytes > 0 && r->total > 0 ? r->bytes / r->total / 1e9 : 0;
}

/* A rate with three significant digits below 1 (a slow op's 0.004 GB/s
** is not 0), two decimals above; "-" when unknown. */
static void fmt_rate(char *buf, size_t cap, double g)
{
    if (g <= 0)
        snprintf(buf, cap, "-");
    else if (g < 1)
        snprintf(buf, cap, "%.3g", g);
    else
        snprintf(buf, cap, "%.2f", g);
}

static void cell_gflops(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    fmt_rate(buf, cap, gflops_of(r));
}

static void cell_gbps(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    fmt_rate(buf, cap, gbps_of(r));
}

/* The share of this machine's peak: whichever of compute and memory the
** row comes closer to (the roofline's binding one), and which it is. */
static void cell_peak(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    double fl = v->p->peak_gflops > 0 ? gflops_of(r) / v->p->peak_gflops : 0;
    double mem = v->p->peak_gbps > 0 ? gbps_of(r) / v->p->peak_gbps : 0;
    if (fl <= 0 && mem <= 0)
        snprintf(buf, cap, "-");
    else if (fl >= mem)
        snprintf(buf, cap, "%.1f %% flop", 100 * fl);
    else
        snprintf(buf, cap, "%.1f %% mem", 100 * mem);
}

static void cell_shapes(const View *v, const ProfileRow *r, char *buf, size_t cap)
{
    EP_UNUSED(v);
    snprintf(buf, cap, "%s", r->input_shapes ? r->input_shapes : "");
}

#define V_OP (1u << PROFILE_BY_OP)
#define V_NODE (1u << PROFILE_BY_NODE)
#define V_MODULE (1u << PROFILE_BY_MODULE)
#define V_LINE (1u << PROFILE_BY_LINE)
#define V_ALL (V_OP | V_NODE | V_MODULE | V_LINE)

typedef enum Need { NEED_NONE, NEED_FLOPS, NEED_BYTES, NEED_PEAKS, NEED_SHAPES, NEED_SAMPLES } Need;

/* The columns, in the order printed.  Name and detail titles depend on
** the view (COLUMN_TITLES). */
static const struct {
    const char *title; /* NULL: the view's own title */
    bool right;
    unsigned views;
    Need need;
    CellFn cell;
} COLUMNS[] = {
    {NULL, false, V_ALL, NEED_NONE, cell_name},
    {NULL, false, V_NODE | V_LINE, NEED_NONE, cell_detail},
    {"Self %", true, V_ALL, NEED_NONE, cell_self_pct},
    {"Self", true, V_ALL, NEED_NONE, cell_self},
    {"Total %", true, V_OP | V_NODE | V_MODULE, NEED_NONE, cell_total_pct},
    {"Total", true, V_OP | V_NODE | V_MODULE, NEED_NONE, cell_total},
    {"Mean", true, V_ALL, NEED_NONE, cell_mean},
    {"Calls", true, V_ALL, NEED_NONE, cell_calls},
    {"Samples", true, V_ALL, NEED_SAMPLES, cell_samples},
    {"FLOPs", true, V_ALL, NEED_FLOPS, cell_flops},
    {"GFLOP/s", true, V_ALL, NEED_FLOPS, cell_gflops},
    {"GB/s", true, V_ALL, NEED_BYTES, cell_gbps},
    {"% Peak", true, V_ALL, NEED_PEAKS, cell_peak},
    {"Input Shapes", false, V_OP | V_NODE, NEED_SHAPES, cell_shapes},
};

/* Indexed by ProfileBy: the name column's and the detail column's titles. */
static const char *const COLUMN_TITLES[][2] = {
    [PROFILE_BY_OP] = {"Name", ""},
    [PROFILE_BY_NODE] = {"Node", "Op"},
    [PROFILE_BY_MODULE] = {"Module", ""},
    [PROFILE_BY_LINE] = {"Line", "Code"},
};

static bool column_shown(const View *v, int c)
{
    if (!(COLUMNS[c].views & (1u << v->by)))
        return false;
    switch (COLUMNS[c].need) {
    case NEED_FLOPS:
        return v->flops;
    case NEED_BYTES:
        return v->bytes;
    case NEED_PEAKS:
        return v->peaks && (v->flops || v->bytes);
    case NEED_SHAPES:
        return v->shapes;
    case NEED_SAMPLES:
        return v->sample;
    default:
        return true;
    }
}

static void write_view(FILE *f, const Profile *p, ProfileBy by, int top)
{
    View v = {.p = p, .by = by, .sample = p->mode == PROFILE_SAMPLE,
              .peaks = p->peak_gflops > 0 || p->peak_gbps > 0};
    ProfileRow *rows;
    int n = profile_rows(p, by, &rows);
    v.rows = rows;
    v.nrows = n;
    for (int i = 0; i < n; i++) {
        v.flops |= rows[i].flops > 0;
        v.bytes |= rows[i].bytes > 0;
        v.shapes |= rows[i].input_shapes != NULL;
    }
    Grid g = {0};
    int ncol = 0;
    for (int c = 0; c < (int)EP_ARRAY_LEN(COLUMNS); c++)
        if (column_shown(&v, c)) {
            const char *title = COLUMNS[c].title ? COLUMNS[c].title : COLUMN_TITLES[by][c == 0 ? 0 : 1];
            grid_col(&g, title, COLUMNS[c].right);
            ncol++;
        }
    /* the top rows and, whatever the limit, the other row (the last) */
    int shown = top > 0 && top < n - 1 ? top : n - 1;
    for (int i = 0; i < n; i++) {
        if (i >= shown && i < n - 1)
            continue;
        for (int c = 0; c < (int)EP_ARRAY_LEN(COLUMNS); c++)
            if (column_shown(&v, c)) {
                char buf[512];
                COLUMNS[c].cell(&v, &rows[i], buf, sizeof buf);
                grid_cell(&g, buf);
            }
    }
    fprintf(f, "\nBy %s (seconds per iteration, %s):\n", profile_by_name(by),
            by == PROFILE_BY_MODULE ? "a tree, heaviest total first" : "heaviest self first");
    grid_print(f, &g, "");
    if (shown < n - 1)
        fprintf(f, "(%d more rows not shown)\n", n - 1 - shown);
    char t[64];
    fprintf(f, "Self time total: %s per iteration\n", fmt_time(t, sizeof t, profile_total_seconds(p)));
    profile_rows_free(rows, n);
}

/* ---- memory --------------------------------------------------------------------------- */

static int cmp_alloc(const void *a, const void *b, void *profile)
{
    const Profile *p = profile;
    int x = *(const int *)a, y = *(const int *)b;
    int64_t bx = p->nodes[x].alloc_bytes, by = p->nodes[y].alloc_bytes;
    if (bx != by)
        return bx < by ? 1 : -1;
    return (x > y) - (x < y);
}

static const char *node_name(const Profile *p, int i)
{
    return i >= 0 && i < p->nnodes && p->nodes[i].name ? p->nodes[i].name : "?";
}

static void write_memory(FILE *f, const Profile *p, int top)
{
    char a[64], b[64], c[64];
    int limit = top > 0 ? top : MEMORY_ROWS;
    fprintf(f, "\nMemory (tensor bytes):\n");
    if (p->peak_node >= 0 && p->peak_node < p->nnodes)
        fprintf(f, "  Peak live: %s, reached at node %s (%s)\n", fmt_bytes(a, sizeof a, (double)p->peak_live),
                node_name(p, p->peak_node), str_or(p->nodes[p->peak_node].target, "?"));
    else
        fprintf(f, "  Peak live: %s\n", fmt_bytes(a, sizeof a, (double)p->peak_live));
    if (p->npeak_tensors > 0) {
        fprintf(f, "  Largest tensors alive at the peak:\n");
        Grid g = {0};
        grid_col(&g, "Tensor", false);
        grid_col(&g, "Bytes", true);
        grid_col(&g, "Type", false);
        for (int i = 0; i < p->npeak_tensors && i < limit; i++) {
            grid_cell(&g, p->peak_tensors[i].name);
            grid_cell(&g, fmt_bytes(a, sizeof a, (double)p->peak_tensors[i].bytes));
            grid_cell(&g, p->peak_tensors[i].desc);
        }
        grid_print(f, &g, "    ");
    }
    int *order = ep_xmalloc((size_t)(p->nnodes ? p->nnodes : 1) * sizeof *order);
    int n = 0;
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i].alloc_bytes > 0)
            order[n++] = i;
    qsort_r(order, (size_t)n, sizeof *order, cmp_alloc, (void *)p);
    if (n > 0) {
        fprintf(f, "  Top nodes by bytes allocated (last execution):\n");
        Grid g = {0};
        grid_col(&g, "Node", false);
        grid_col(&g, "Op", false);
        grid_col(&g, "Allocated", true);
        grid_col(&g, "Freed", true);
        grid_col(&g, "Live after", true);
        for (int k = 0; k < n && k < limit; k++) {
            const ProfileNode *nd = &p->nodes[order[k]];
            grid_cell(&g, node_name(p, order[k]));
            grid_cell(&g, nd->target);
            grid_cell(&g, fmt_bytes(a, sizeof a, (double)nd->alloc_bytes));
            grid_cell(&g, fmt_bytes(b, sizeof b, (double)nd->freed_bytes));
            grid_cell(&g, fmt_bytes(c, sizeof c, (double)nd->live_after));
        }
        grid_print(f, &g, "    ");
    }
    free(order);
}

/* ---- --diff ---------------------------------------------------------------------------- */

static void fmt_delta(char *buf, size_t cap, double d)
{
    buf[0] = d > 0 ? '+' : d < 0 ? '-' : '\0';
    buf[1] = '\0';
    fmt_time(buf + (buf[0] != '\0'), cap - 1, fabs(d));
}

static void fmt_ratio(char *buf, size_t cap, double before, double after)
{
    if (before > 0)
        snprintf(buf, cap, "%.2fx", after / before);
    else
        snprintf(buf, cap, "%s", after > 0 ? "new" : "-");
}

static void diff_line(Grid *g, const char *key, const char *detail, double before, double after)
{
    char t[64];
    grid_cell(g, key);
    grid_cell(g, detail);
    grid_cell(g, fmt_time(t, sizeof t, before));
    grid_cell(g, fmt_time(t, sizeof t, after));
    fmt_delta(t, sizeof t, after - before);
    grid_cell(g, t);
    fmt_ratio(t, sizeof t, before, after);
    grid_cell(g, t);
}

/* One view of both profiles side by side, largest change first. */
static void write_diff_view(FILE *f, const Profile *p, const Profile *base, ProfileBy by, int top)
{
    ReportDiffRow *d;
    int n = report_diff_rows(p, base, by, &d);
    bool detail = by == PROFILE_BY_LINE || by == PROFILE_BY_NODE;
    Grid g = {0};
    grid_col(&g, COLUMN_TITLES[by][0], false);
    grid_col(&g, detail ? COLUMN_TITLES[by][1] : "", false);
    grid_col(&g, "Before", true);
    grid_col(&g, "After", true);
    grid_col(&g, "Delta", true);
    grid_col(&g, "Ratio", true);
    int shown = top > 0 && top < n ? top : n;
    double before_all = 0, after_all = 0;
    for (int i = 0; i < n; i++) {
        before_all += d[i].before;
        after_all += d[i].after;
        if (i < shown)
            diff_line(&g, d[i].key, detail ? d[i].detail : NULL, d[i].before, d[i].after);
    }
    diff_line(&g, "(all)", NULL, before_all, after_all);
    fprintf(f, "\nDiff by %s (seconds per iteration, largest change first):\n", profile_by_name(by));
    grid_print(f, &g, "");
    if (shown < n)
        fprintf(f, "(%d more rows not shown)\n", n - shown);
    report_diff_rows_free(d, n);
}

static void write_diff(FILE *f, const Profile *p, const ReportOptions *o)
{
    const Profile *base = o->base;
    char a[64], b[64];
    fputc('\n', f);
    header_line(f, "Before:", "%s (%s per iteration, %d iterations)", str_or(base->model_path, "(base)"),
            fmt_time(a, sizeof a, profile_total_seconds(base)), base->iters);
    header_line(f, "After:", "%s (%s per iteration, %d iterations)", str_or(p->model_path, "(this run)"),
            fmt_time(b, sizeof b, profile_total_seconds(p)), p->iters);
    /* the chosen view when it is another, then per node and per line */
    if (o->by == PROFILE_BY_OP || o->by == PROFILE_BY_MODULE)
        write_diff_view(f, p, base, o->by, o->top);
    write_diff_view(f, p, base, PROFILE_BY_NODE, o->top);
    write_diff_view(f, p, base, PROFILE_BY_LINE, o->top);
}

EpStatus report_table(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(err);
    static const ReportOptions defaults = {.by = PROFILE_BY_OP};
    if (!o)
        o = &defaults;
    write_header(f, p);
    if (o->base) {
        write_diff(f, p, o);
        return EP_OK;
    }
    ProfileBy by = o->by;
    if ((unsigned)by >= EP_ARRAY_LEN(COLUMN_TITLES))
        by = PROFILE_BY_OP;
    write_view(f, p, by, o->top);
    write_memory(f, p, o->top);
    return EP_OK;
}
