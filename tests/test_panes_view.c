/*
** test_panes_view.c -- the source and inspector panes, drawn headless onto
** a grid and read back as text: the right lines of the user's Python, the
** recorded line when the file is missing, frame selection, values equal to
** PyTorch's, paging through a 3-d tensor, moving between a node's inputs
** and outputs, and every size down to nothing.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/npy.h"
#include "testutil.h"
#include "cli/cli.h"
#include "tui/panes.h"
#include "tui/tui.h"
#include "tui/tui_int.h"

#define FIX "build/fixtures/"

static const char *const SOURCE_DIRS[] = {"examples/src"};

/* A TUI on path, its inputs bound (input: a .npy for the one user input,
** or NULL for the archive's examples), stopped before node 0. */
static Tui *open_tui(const char *path, const char *input, Session **out)
{
    *out = test_session_open(path, input, true);
    return tui_new(*out, path, SOURCE_DIRS, 1, false);
}

static void close_tui(Tui *t, Session *s)
{
    tui_free(t);
    session_free(s);
}

/* Draw pane id alone on a rows x cols grid (kept in g for style checks);
** its text (new string).  $PV_SHOW prints it, for looking at a test. */
static char *draw_in(Tui *t, int id, int rows, int cols, bool focused, Grid *g)
{
    grid_resize(g, rows, cols);
    Canvas all = canvas_of(g);
    Canvas c = canvas_sub(&all, 0, 0, rows, cols);
    /* the rectangle a click is read against: a title row above the content */
    t->rects[id] = (PaneRect){0, 0, rows + 1, cols};
    tui_pane_class(id)->draw(t, t->pane_state[id], &c, focused);
    char *text = grid_text(g);
    if (getenv("PV_SHOW"))
        fprintf(stderr, "---- %s %dx%d\n%s", tui_pane_class(id)->name, rows, cols, text);
    return text;
}

static char *draw(Tui *t, int id, int rows, int cols)
{
    Grid g = {0};
    char *text = draw_in(t, id, rows, cols, true, &g);
    grid_free(&g);
    return text;
}

static char *title_of(Tui *t, int id)
{
    char buf[256] = "";
    tui_pane_class(id)->title(t, t->pane_state[id], buf, sizeof buf);
    return ep_xstrdup(buf);
}

static bool key(Tui *t, int id, int k, int rows)
{
    return tui_pane_class(id)->key(t, t->pane_state[id], k, rows);
}

/* Row r of text (new string; "" past the end). */
static char *row_of(const char *text, int r)
{
    for (int i = 0; i < r && text; i++) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    if (!text)
        return ep_xstrdup("");
    const char *nl = strchr(text, '\n');
    return ep_xstrndup(text, nl ? (size_t)(nl - text) : strlen(text));
}

/* The row of text that contains needle, or -1. */
static int find_row(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    if (!at)
        return -1;
    int r = 0;
    for (const char *p = text; p < at; p++)
        r += *p == '\n';
    return r;
}

/* Line n (1-based) of a file (new string). */
static char *file_line(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    char buf[1024] = "";
    for (int i = 0; i < n && fgets(buf, sizeof buf, f); i++)
        ;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ep_xstrdup(buf);
}

static void select_named(Tui *t, const char *name)
{
    EpError err = {0};
    int node = session_find_node(t->s, name, &err);
    ck_assert_msg(node >= 0, "%s: %s", name, err.msg);
    tui_select_node(t, node);
}

#define ASSERT_HAS(text, needle) ck_assert_msg(strstr((text), (needle)), "no '%s' in:\n%s", (needle), (text))
#define ASSERT_LACKS(text, needle) ck_assert_msg(!strstr((text), (needle)), "'%s' in:\n%s", (needle), (text))

/* ---- the source pane -------------------------------------------------------------------- */

/* The lines of examples/src/mlp.py around each node's line, the line
** itself highlighted; the node and its module on top. */
START_TEST(test_source_mlp)
{
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", "tests/refs/nodes_mlp/in0.npy", &s);
    select_named(t, "relu");
    Grid g = {0};
    char *text = draw_in(t, PANE_SOURCE, 12, 72, true, &g);
    ASSERT_HAS(text, "#1 relu  (top level)");
    ASSERT_HAS(text, "#0 forward at mlp.py:21");
    char *line21 = file_line("examples/src/mlp.py", 21), *line20 = file_line("examples/src/mlp.py", 20);
    char *want = ep_xasprintf("> 21  %s", line21);
    int r = find_row(text, want);
    ck_assert_msg(r >= 0, "no '%s' in:\n%s", want, text);
    /* the line being run is highlighted across the row, its neighbours not */
    ck_assert_int_eq(g.cells[r * g.cols + 40].style, ST_CURRENT);
    free(want);
    want = ep_xasprintf("  20  %s", line20);
    ck_assert_int_eq(find_row(text, want), r - 1);
    ck_assert_int_eq(g.cells[(r - 1) * g.cols + 6].style, ST_NORMAL);
    ck_assert_int_eq(g.cells[(r - 1) * g.cols + 2].style, ST_DIM); /* the line number */
    free(want);
    free(line20);
    free(line21);
    free(text);
    char *title = title_of(t, PANE_SOURCE);
    ck_assert_str_eq(title, "mlp.py:21");
    free(title);

    /* a node inside a module: its path and class; the view follows the selection */
    select_named(t, "layer_norm");
    text = draw_in(t, PANE_SOURCE, 12, 72, true, &g);
    ASSERT_HAS(text, "#2 layer_norm  norm (torch.nn.modules.normalization.LayerNorm)");
    ASSERT_HAS(text, "> 22          h = self.drop(self.norm(h))");
    free(text);

    /* scrolling: PgDn shows later lines, Home the first, and the view
    ** stays where it was put until another node is selected */
    ck_assert(key(t, PANE_SOURCE, TK_HOME, 12));
    text = draw(t, PANE_SOURCE, 12, 72);
    ASSERT_HAS(text, "   1  # The bundled MLP example");
    ASSERT_LACKS(text, "> 22");
    free(text);
    ck_assert(key(t, PANE_SOURCE, TK_PGDN, 12)); /* a page less one line */
    ck_assert(key(t, PANE_SOURCE, TK_DOWN, 12));
    text = draw(t, PANE_SOURCE, 12, 72);
    ASSERT_LACKS(text, "  10  ");
    ck_assert_int_eq(find_row(text, "  11  class MLP(nn.Module):"), 2);
    free(text);
    for (int i = 0; i < 10; i++)
        key(t, PANE_SOURCE, TK_PGDN, 12);
    text = draw(t, PANE_SOURCE, 12, 72);
    ASSERT_HAS(text, "  25          return torch.softmax(logits, dim=-1)");
    free(text);
    select_named(t, "softmax");
    text = draw(t, PANE_SOURCE, 12, 72);
    ASSERT_HAS(text, "> 25          return torch.softmax(logits, dim=-1)");
    ASSERT_HAS(text, "  24          logits");
    free(text);
    /* keys that are not the pane's go on to the bindings */
    ck_assert(!key(t, PANE_SOURCE, 's', 12));
    grid_free(&g);
    close_tui(t, s);
}
END_TEST

/* Without the file, the line the trace recorded and a hint; without a
** trace, a note. */
START_TEST(test_source_unreadable)
{
    Session *s;
    Tui *t = open_tui(FIX "dynamic.pt2", NULL, &s);
    select_named(t, "add");
    char *text = draw(t, PANE_SOURCE, 8, 70);
    ASSERT_HAS(text, "#0 forward at dynamic.py:7");
    ASSERT_HAS(text, "> 7  return torch.cat([x, x]) + y, x.shape[0]");
    ASSERT_HAS(text, "(file not readable here; --source-dir DIR)");
    free(text);
    /* two rows: the frame and the recorded line, no room for the hint */
    text = draw(t, PANE_SOURCE, 2, 70);
    ck_assert_str_eq(text, "#0 forward at dynamic.py:7\n> 7  return torch.cat([x, x]) + y, x.shape[0]\n");
    free(text);
    char *title = title_of(t, PANE_SOURCE);
    ck_assert_str_eq(title, "dynamic.py:7");
    free(title);
    close_tui(t, s);

    t = open_tui(FIX "inplace.pt2", NULL, &s);
    select_named(t, "mul");
    text = draw(t, PANE_SOURCE, 5, 60);
    ASSERT_HAS(text, "#3 mul");
    ASSERT_HAS(text, "(no stack trace recorded for this node)");
    free(text);
    ck_assert(key(t, PANE_SOURCE, TK_DOWN, 5)); /* nothing to scroll, and no harm */
    ck_assert(key(t, PANE_SOURCE, ']', 5));
    free(draw(t, PANE_SOURCE, 5, 60));
    close_tui(t, s);
}
END_TEST

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* The file is read once and kept: draws do not read it again; after a
** command the pane notices it appeared, changed or went. */
START_TEST(test_source_cache)
{
    Session *s;
    Tui *t = open_tui(FIX "dynamic.pt2", NULL, &s);
    char *dir = test_tmpdir();
    const char *dirs[] = {dir};
    t->cmd.source_dirs = dirs;
    t->cmd.nsource_dirs = 1;
    select_named(t, "add");
    char *text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "(file not readable here; --source-dir DIR)");
    free(text);
    /* found by its last path component inside the source folder */
    char *path = ep_xasprintf("%s/dynamic.py", dir);
    write_text(path, "import torch\n\n\nclass Dynamic:\n    def forward(self, x, y):\n        # two\n"
                     "        return torch.cat([x, x]) + y, x.shape[0]\n");
    text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "(file not readable here"); /* nothing ran: not looked at again */
    free(text);
    tui_command(t, "info breakpoints");
    text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "> 7          return torch.cat([x, x]) + y, x.shape[0]");
    ASSERT_HAS(text, "  6          # two");
    free(text);
    /* edited: read again; removed: the copy already read stays until a change */
    write_text(path, "import torch\n\n\nclass Dynamic:\n    def forward(self, x, y):\n        # an edit\n"
                     "        return torch.cat([x, x]) + y, x.shape[0]\n");
    text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "  6          # two");
    free(text);
    tui_command(t, "info breakpoints");
    text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "  6          # an edit");
    free(text);
    remove(path);
    text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "# an edit");
    free(text);
    tui_command(t, "info breakpoints");
    text = draw(t, PANE_SOURCE, 8, 60);
    ASSERT_HAS(text, "(file not readable here");
    free(text);
    /* a file shorter than the trace says: the recorded line, and why */
    write_text(path, "import torch\n");
    tui_command(t, "info breakpoints");
    text = draw(t, PANE_SOURCE, 8, 80);
    ASSERT_HAS(text, "> 7  return torch.cat([x, x]) + y, x.shape[0]");
    ASSERT_HAS(text, "(line 7 is past the end of ");
    free(text);
    remove(path);
    free(path);
    rmdir(dir);
    free(dir);
    close_tui(t, s);
}
END_TEST

/* Nested frames of nan_log's Scale inside NanLog: [ and ] pick the frame
** as `frame N` does, and the source follows. */
START_TEST(test_source_frames)
{
    Session *s;
    Tui *t = open_tui(FIX "nan_log.pt2", NULL, &s);
    select_named(t, "mul");
    Grid g = {0};
    char *text = draw_in(t, PANE_SOURCE, 12, 70, true, &g);
    ASSERT_HAS(text, "#0 mul  pre (numerics.Scale)");
    int r0 = find_row(text, "#0 forward at numerics.py:10");
    int r1 = find_row(text, "#1 forward at numerics.py:19");
    ck_assert_msg(r0 >= 0 && r1 == r0 + 1, "%s", text);
    ck_assert_int_eq(g.cells[r0 * g.cols + 30].style, ST_CURSOR); /* the selected frame */
    ck_assert_int_eq(g.cells[r1 * g.cols + 1].style, ST_NORMAL);
    ASSERT_HAS(text, "> 10          return x * 2.0 - 1.0");
    free(text);
    char *title = title_of(t, PANE_SOURCE);
    ck_assert_str_eq(title, "numerics.py:10  #0 of 2");
    free(title);

    /* ] goes to the caller: NanLog.forward's line 19 */
    ck_assert(key(t, PANE_SOURCE, ']', 12));
    ck_assert_int_eq(t->cmd.frame, 1);
    text = draw_in(t, PANE_SOURCE, 12, 70, true, &g);
    ASSERT_HAS(text, "> 19          h = self.pre(x)");
    ASSERT_LACKS(text, "> 10");
    ck_assert_int_eq(g.cells[r1 * g.cols + 30].style, ST_CURSOR);
    free(text);
    title = title_of(t, PANE_SOURCE);
    ck_assert_str_eq(title, "numerics.py:19  #1 of 2");
    free(title);
    /* `list` at the prompt agrees: the same frame */
    tui_command(t, "list");
    bool listed = false;
    for (int i = 0; i < t->log.n; i++)
        listed = listed || strstr(t->log.lines[i], "=> 19");
    ck_assert(listed);
    /* past the outermost frame: a note, the frame stays */
    ck_assert(key(t, PANE_SOURCE, TK_RIGHT, 12));
    ck_assert_int_eq(t->cmd.frame, 1);
    ck_assert_ptr_nonnull(t->status_note);
    ASSERT_HAS(t->status_note, "no frame #2");
    ck_assert(key(t, PANE_SOURCE, '[', 12));
    ck_assert_int_eq(t->cmd.frame, 0);
    ck_assert(key(t, PANE_SOURCE, TK_LEFT, 12));
    ck_assert_int_eq(t->cmd.frame, 0);
    /* a click on a frame row picks it; `frame N` typed moves the pane too */
    free(draw(t, PANE_SOURCE, 12, 70));
    tui_pane_class(PANE_SOURCE)->click(t, t->pane_state[PANE_SOURCE], r1, 5);
    ck_assert_int_eq(t->cmd.frame, 1);
    tui_command(t, "frame 0");
    text = draw(t, PANE_SOURCE, 12, 70);
    ASSERT_HAS(text, "> 10");
    free(text);
    /* a short pane shows the selected frame only */
    ck_assert(key(t, PANE_SOURCE, ']', 4));
    text = draw(t, PANE_SOURCE, 4, 70);
    ASSERT_HAS(text, "#1 forward at numerics.py:19");
    ASSERT_LACKS(text, "#0 forward");
    ASSERT_HAS(text, "> 19");
    free(text);
    /* the node without nesting: one frame */
    select_named(t, "log");
    ck_assert_int_eq(t->cmd.frame, -1);
    text = draw(t, PANE_SOURCE, 12, 70);
    ASSERT_HAS(text, "> 20          y = torch.log(h)");
    free(text);
    grid_free(&g);
    close_tui(t, s);
}
END_TEST

/* ---- the inspector -------------------------------------------------------------------------- */

/* The numbers on a page row after its label (up to max). */
static int parse_numbers(const char *row, double *out, int max)
{
    int n = 0;
    const char *p = row;
    strtod(p, (char **)&p); /* the row label */
    while (n < max) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            break;
        out[n++] = v;
        p = end;
        if (*p == '.') /* integer-valued floats print as "3." */
            p++;
    }
    return n;
}

/* Each number of the page rows of text matches ref[row, col0 + j]. */
static void check_page(const char *text, const Tensor *ref, int first_row, int col0)
{
    int r = find_row(text, "rows ");
    ck_assert_msg(r >= 0, "%s", text);
    int64_t ncols = ref->sizes[ref->ndim - 1];
    int checked = 0;
    for (int i = 0;; i++) {
        char *line = row_of(text, r + 1 + i);
        double got[64];
        int n = parse_numbers(line, got, 64);
        long label = strtol(line, NULL, 10);
        free(line);
        if (n == 0)
            break;
        ck_assert_int_eq(label, first_row + i);
        for (int j = 0; j < n; j++) {
            double want = tensor_get_f64(ref, (first_row + i) * ncols + col0 + j);
            ck_assert_msg(fabs(got[j] - want) <= 1e-4 + 1e-4 * fabs(want), "[%d, %d]: shown %g, PyTorch %g\n%s",
                          first_row + i, col0 + j, got[j], want, text);
            checked++;
        }
    }
    ck_assert_msg(checked >= 4, "only %d numbers checked in:\n%s", checked, text);
}

static Tensor *load_ref(const char *name)
{
    EpError err = {0};
    char *path = ep_xasprintf("tests/refs/nodes_mlp/%s.npy", name);
    Tensor *t = npy_load_file(path, &err);
    ck_assert_msg(t != NULL, "%s: %s", path, err.msg);
    free(path);
    return t;
}

/* After a run, a node's output as PyTorch computed it: header, statistics,
** and pages of numbers. */
START_TEST(test_inspector_values)
{
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", "tests/refs/nodes_mlp/in0.npy", &s);
    ck_assert_int_eq(tui_command(t, "continue"), EP_OK);
    ck_assert(interp_finished(session_interp(s)));
    const char *nodes[] = {"linear", "layer_norm", "linear_2", "softmax", "mean"};
    for (int k = 0; k < 5; k++) {
        select_named(t, nodes[k]);
        Tensor *ref = load_ref(nodes[k]);
        char *text = draw(t, PANE_INSPECTOR, 14, 80);
        char shape[64], head[128];
        snprintf(head, sizeof head, "%s: float32%s", nodes[k], shape_str(ref->ndim, ref->sizes, shape, sizeof shape));
        char *first = row_of(text, 0);
        ck_assert_str_eq(first, head);
        free(first);
        /* the statistics are the reference's */
        double mn = INFINITY, mx = -INFINITY;
        for (int64_t i = 0; i < tensor_numel(ref); i++) {
            double v = tensor_get_f64(ref, i);
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
        }
        char *stats = row_of(text, 1);
        double smin, smax;
        ck_assert_msg(sscanf(stats, "min %lf max %lf", &smin, &smax) == 2, "%s", stats);
        ck_assert_msg(fabs(smin - mn) <= 1e-3 * (1 + fabs(mn)) && fabs(smax - mx) <= 1e-3 * (1 + fabs(mx)),
                      "%s vs %g %g", stats, mn, mx);
        ASSERT_HAS(stats, "std ");
        free(stats);
        check_page(text, ref, 0, 0);
        free(text);
        /* one column right, one row down in a short pane: still PyTorch's numbers */
        if (ref->sizes[1] > 8) {
            free(draw(t, PANE_INSPECTOR, 7, 80));
            ck_assert(key(t, PANE_INSPECTOR, TK_RIGHT, 7));
            ck_assert(key(t, PANE_INSPECTOR, TK_DOWN, 7));
            text = draw(t, PANE_INSPECTOR, 7, 80);
            ASSERT_HAS(text, "rows 1-3 of 4  cols 1-");
            check_page(text, ref, 1, 1);
            free(text);
        }
        tensor_unref(ref);
    }
    /* the title names the value */
    char *title = title_of(t, PANE_INSPECTOR);
    ck_assert_str_eq(title, "mean");
    free(title);
    /* softmax rows sum to one: the whole row shows at 140 columns... */
    select_named(t, "softmax");
    char *text = draw(t, PANE_INSPECTOR, 14, 140);
    char *row = row_of(text, find_row(text, "rows ") + 1);
    double v[8];
    ck_assert_int_eq(parse_numbers(row, v, 8), 4);
    ck_assert_double_eq_tol(v[0] + v[1] + v[2] + v[3], 1.0, 5e-4);
    free(row);
    free(text);

    /* after a restart nothing is computed: say when it will be */
    ck_assert_int_eq(tui_command(t, "restart"), EP_OK);
    select_named(t, "gelu");
    text = draw(t, PANE_INSPECTOR, 10, 80);
    ASSERT_HAS(text, "gelu: float32[s0, 32]");
    ASSERT_HAS(text, "(not computed yet: node #5 runs later)");
    free(text);
    select_named(t, "linear");
    text = draw(t, PANE_INSPECTOR, 10, 80);
    ASSERT_HAS(text, "(not computed yet: node #0 runs next)");
    ASSERT_HAS(text, " in0 x: float32[4, 16]  min "); /* the input is bound */
    free(text);
    /* a parameter by its FQN */
    tui_inspect(t, "fc1.bias");
    text = draw(t, PANE_INSPECTOR, 10, 80);
    ASSERT_HAS(text, "fc1.bias: float32[32]");
    ASSERT_HAS(text, "[:]  0-");
    free(text);
    tui_inspect(t, "no_such_value");
    text = draw(t, PANE_INSPECTOR, 10, 80);
    ASSERT_HAS(text, "(no value named 'no_such_value')");
    free(text);
    close_tui(t, s);
}
END_TEST

/* A 3-d value paged through: the prefix names the slice, < and > move
** it, scrolling down runs on into the next slice; only the page's
** elements are drawn. */
START_TEST(test_inspector_3d)
{
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", "tests/refs/nodes_mlp/in0.npy", &s);
    ck_assert_int_eq(tui_command(t, "continue"), EP_OK);
    EpError err = {0};
    int64_t sizes[3] = {3, 5, 40};
    Tensor *x = tensor_empty(DT_F32, 3, sizes, &err);
    float *d = tensor_data(x);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 40; k++)
                d[(i * 5 + j) * 40 + k] = (float)(i + j * 0.1 + k * 0.001) + 0.5f;
    ck_assert_int_eq(session_set_value(s, "relu", value_tensor(x), &err), EP_OK);
    select_named(t, "relu");
    /* 8 rows: header, stats, page line, 4 data rows, the cursor's input/output row */
    char *text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "relu: float32[3, 5, 40]");
    ASSERT_HAS(text, "[0, :, :]  rows 0-3 of 5  cols 0-");
    ASSERT_HAS(text, "0 0.5000 0.5010 0.5020");
    ASSERT_HAS(text, "3 0.8000 0.8010");
    ASSERT_HAS(text, "*out0 relu: float32[3, 5, 40]");
    free(text);
    ck_assert(key(t, PANE_INSPECTOR, '>', 8));
    text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "[1, :, :]  rows 0-3 of 5");
    ASSERT_HAS(text, "0 1.5000 1.5010");
    free(text);
    /* down past the slice's last row: the next slice */
    ck_assert(key(t, PANE_INSPECTOR, TK_PGDN, 9));
    text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "[1, :, :]  rows 1-4 of 5");
    ASSERT_HAS(text, "4 1.9000");
    free(text);
    ck_assert(key(t, PANE_INSPECTOR, TK_DOWN, 9));
    text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "[2, :, :]  rows 0-3 of 5");
    ASSERT_HAS(text, "0 2.5000");
    free(text);
    ck_assert(key(t, PANE_INSPECTOR, '>', 8)); /* the last slice stays */
    ck_assert(key(t, PANE_INSPECTOR, TK_UP, 9)); /* ... and up goes back */
    text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "[1, :, :]  rows 1-4 of 5");
    free(text);
    /* columns: Right to the end stops with the last column on screen */
    for (int i = 0; i < 100; i++)
        key(t, PANE_INSPECTOR, TK_RIGHT, 8);
    text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "of 40");
    ASSERT_HAS(text, "-39 of 40");
    ASSERT_HAS(text, "1.6390\n");
    free(text);
    key(t, PANE_INSPECTOR, TK_HOME, 8);
    key(t, PANE_INSPECTOR, '<', 8);
    text = draw(t, PANE_INSPECTOR, 8, 50);
    ASSERT_HAS(text, "[0, :, :]  rows 0-3 of 5  cols 0-");
    free(text);

    /* a big tensor draws a page, not the tensor */
    int64_t big[3] = {16, 256, 1024};
    Tensor *y = tensor_zeros(DT_F32, 3, big, &err);
    ck_assert_ptr_nonnull(y);
    ((float *)tensor_data(y))[5] = NAN;
    ck_assert_int_eq(session_set_value(s, "relu", value_tensor(y), &err), EP_OK);
    tui_inspect(t, "relu");
    text = draw(t, PANE_INSPECTOR, 40, 200);
    ASSERT_HAS(text, "NaN 1");
    ASSERT_HAS(text, "  0  0.  0.  0.  0.  0. nan  0.");
    free(text);
    /* how long a draw takes is measured in bench/tui.c, not asserted */
    close_tui(t, s);
}
END_TEST

/* The node's inputs and outputs: ] and Enter (or a click) inspect one,
** Backspace goes back to the node's output. */
START_TEST(test_inspector_io)
{
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", "tests/refs/nodes_mlp/in0.npy", &s);
    ck_assert_int_eq(tui_command(t, "continue"), EP_OK);
    select_named(t, "linear");
    Grid g = {0};
    char *text = draw_in(t, PANE_INSPECTOR, 16, 90, true, &g);
    int r_x = find_row(text, " in0 x: float32[4, 16]  min ");
    int r_w = find_row(text, " in1 p_fc1_weight: float32[32, 16]  min ");
    int r_b = find_row(text, " in2 p_fc1_bias: float32[32]  min ");
    int r_o = find_row(text, "*out0 linear: float32[4, 32]  min ");
    ck_assert_msg(r_x > 2 && r_w == r_x + 1 && r_b == r_x + 2 && r_o == r_x + 3, "%s", text);
    ck_assert_int_eq(g.cells[r_o * g.cols + 3].style, ST_CURSOR); /* the cursor starts on the value shown */
    free(text);
    /* [ twice: the weight; Enter shows it */
    ck_assert(key(t, PANE_INSPECTOR, '[', 16));
    ck_assert(key(t, PANE_INSPECTOR, '[', 16));
    ck_assert(key(t, PANE_INSPECTOR, TK_ENTER, 16));
    ck_assert_str_eq(t->inspect, "p_fc1_weight");
    text = draw_in(t, PANE_INSPECTOR, 16, 90, true, &g);
    ASSERT_HAS(text, "p_fc1_weight: float32[32, 16]\n");
    r_w = find_row(text, "*in1 p_fc1_weight");
    ck_assert_msg(r_w > 2, "%s", text);
    ASSERT_HAS(text, " out0 linear");
    ck_assert_int_eq(g.cells[r_w * g.cols + 3].style, ST_CURSOR);
    free(text);
    /* Backspace: the node's output again */
    ck_assert(key(t, PANE_INSPECTOR, TK_BACKSPACE, 16));
    ck_assert_ptr_null(t->inspect);
    text = draw(t, PANE_INSPECTOR, 16, 90);
    ASSERT_HAS(text, "linear: float32[4, 32]\n");
    free(text);
    /* a click on the input row inspects it: the user input, PyTorch's */
    tui_pane_class(PANE_INSPECTOR)->click(t, t->pane_state[PANE_INSPECTOR], r_x, 10);
    ck_assert_str_eq(t->inspect, "x");
    text = draw(t, PANE_INSPECTOR, 16, 90);
    ASSERT_HAS(text, "x: float32[4, 16]\n");
    Tensor *ref = load_ref("in0");
    check_page(text, ref, 0, 0);
    tensor_unref(ref);
    free(text);
    /* through the whole screen: a click where the row is drawn */
    grid_resize(&g, 40, 130);
    tui_inspect(t, NULL);
    tui_render(t, &g);
    text = grid_text(&g);
    int row = find_row(text, "*out0 linear") - 1; /* the row above: in2 */
    ck_assert_msg(row >= 0, "%s", text);
    char *line = row_of(text, row);
    ck_assert_msg(strstr(line, " in2 p_fc1_bias"), "%s", text);
    int col = (int)(strstr(line, " in2 p_fc1_bias") - line);
    free(line);
    free(text);
    tui_click(t, row, col + 4);
    ck_assert_int_eq(t->focus, PANE_INSPECTOR);
    ck_assert_str_eq(t->inspect, "p_fc1_bias");
    tui_key(t, TK_BACKSPACE);
    ck_assert_ptr_null(t->inspect);
    /* too short for the list: ] says where the cursor went */
    free(draw(t, PANE_INSPECTOR, 5, 60));
    ck_assert(key(t, PANE_INSPECTOR, '[', 5));
    ck_assert_ptr_nonnull(t->status_note);
    ck_assert_str_eq(t->status_note, "in2 p_fc1_bias  (Enter inspects it)");
    ck_assert(key(t, PANE_INSPECTOR, TK_ENTER, 5));
    ck_assert_str_eq(t->inspect, "p_fc1_bias");
    grid_free(&g);
    close_tui(t, s);

    /* values that are not tensors: their text */
    t = open_tui(FIX "dynamic.pt2", NULL, &s);
    ck_assert_int_eq(tui_command(t, "continue"), EP_OK);
    select_named(t, "sym_size_int");
    text = draw(t, PANE_INSPECTOR, 8, 60);
    ASSERT_HAS(text, "sym_size_int: int\n3\n");
    free(text);
    select_named(t, "cat");
    text = draw(t, PANE_INSPECTOR, 12, 60);
    ASSERT_HAS(text, "cat: float32[6, 4]");
    ASSERT_HAS(text, " in0 x: float32[3, 4]");
    free(text);
    close_tui(t, s);
}
END_TEST

/* Set value name of the run to v (stolen) and show it. */
static char *show_set(Tui *t, const char *name, Value v, int rows, int cols)
{
    EpError err = {0};
    ck_assert_msg(session_set_value(t->s, name, v, &err) == EP_OK, "%s", err.msg);
    tui_inspect(t, name);
    return draw(t, PANE_INSPECTOR, rows, cols);
}

/* Each kind of value the way it reads best: integers and booleans as
** such, a 0-d tensor as its number, an empty one, a list item by item,
** magnitudes far apart in scientific notation. */
START_TEST(test_inspector_kinds)
{
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", "tests/refs/nodes_mlp/in0.npy", &s);
    ck_assert_int_eq(tui_command(t, "continue"), EP_OK);
    EpError err = {0};
    int64_t sz[2] = {2, 3};
    Tensor *i64 = tensor_empty(DT_I64, 2, sz, &err);
    for (int i = 0; i < 6; i++)
        ((int64_t *)tensor_data(i64))[i] = (i - 2) * 1000;
    char *text = show_set(t, "relu", value_tensor(i64), 10, 60);
    ASSERT_HAS(text, "relu: int64[2, 3]\nmin -2000  max 3000");
    ASSERT_HAS(text, "0 -2000 -1000     0\n1  1000  2000  3000\n");
    free(text);

    Tensor *b = tensor_empty(DT_BOOL, 1, sz + 1, &err);
    uint8_t *bd = tensor_data(b);
    bd[0] = 1, bd[1] = 0, bd[2] = 1;
    text = show_set(t, "relu", value_tensor(b), 10, 60);
    ASSERT_HAS(text, "relu: bool[3]\ntrue 2 of 3\n[:]  0-2 of 3\n0  True False  True\n");
    free(text);

    Tensor *sc = tensor_scalar_f64(DT_F32, -2.5, &err);
    text = show_set(t, "relu", value_tensor(sc), 10, 60);
    ASSERT_HAS(text, "relu: float32[]\nmin -2.5  max -2.5  mean -2.5");
    ASSERT_HAS(text, "\n-2.5000\n");
    free(text);

    int64_t none[2] = {0, 4};
    Tensor *e = tensor_empty(DT_F32, 2, none, &err);
    text = show_set(t, "relu", value_tensor(e), 10, 60);
    ASSERT_HAS(text, "relu: float32[0, 4]\n(empty)\n(no elements)\n");
    free(text);

    Tensor *wide = tensor_empty(DT_F32, 2, sz, &err);
    float *w = tensor_data(wide);
    for (int i = 0; i < 6; i++)
        w[i] = (float)pow(10, i - 2) * (i % 2 ? -1 : 1);
    w[4] = INFINITY;
    text = show_set(t, "relu", value_tensor(wide), 10, 80);
    ASSERT_HAS(text, "inf 1  min -1000  max 1  mean ");
    ASSERT_HAS(text, "0  1.0000e-02 -1.0000e-01  1.0000e+00\n1 -1.0000e+01         inf -1.0000e+03\n");
    free(text);

    ValueList *l = value_list_new(3);
    l->items[0] = value_tensor(tensor_zeros(DT_F32, 2, sz, &err));
    l->items[1] = value_int(7);
    l->items[2] = value_float(0.5);
    text = show_set(t, "relu", (Value){.kind = V_LIST, .list = l}, 10, 60);
    ASSERT_HAS(text, "relu: list[3]\n3 items\n[0] tensor float32[2, 3]\n[1] 7\n[2] 0.5\n");
    free(text);
    ck_assert(key(t, PANE_INSPECTOR, TK_DOWN, 10));
    ck_assert(key(t, PANE_INSPECTOR, TK_END, 10));
    free(draw(t, PANE_INSPECTOR, 3, 60));
    text = draw(t, PANE_INSPECTOR, 3, 60);
    ASSERT_HAS(text, "\n[2] 0.5\n");
    free(text);

    text = show_set(t, "relu", value_float(1e-5), 10, 60);
    ASSERT_HAS(text, "relu: float\n1e-05\n");
    free(text);
    ck_assert(key(t, PANE_INSPECTOR, TK_DOWN, 10)); /* nothing to scroll: the text stays */
    text = draw(t, PANE_INSPECTOR, 10, 60);
    ASSERT_HAS(text, "relu: float\n1e-05\n");
    free(text);
    close_tui(t, s);
}
END_TEST

/* Every size from nothing up, with keys in between: no crash, nothing
** drawn outside. */
START_TEST(test_panes_tiny)
{
    const char *models[] = {"examples/mlp.pt2", FIX "nan_log.pt2", FIX "inplace.pt2"};
    for (int m = 0; m < 3; m++) {
        Session *s;
        Tui *t = open_tui(models[m], NULL, &s);
        tui_command(t, "step 2");
        int sizes[][2] = {{0, 0}, {1, 10}, {3, 20}, {0, 5}, {5, 0}, {1, 1}, {2, 3}, {4, 12}, {6, 40}, {2, 80}};
        for (int id = PANE_SOURCE; id <= PANE_INSPECTOR; id++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                int rows = sizes[i][0], cols = sizes[i][1];
                char *text = draw(t, id, rows, cols);
                /* nothing past the canvas */
                int r = 0;
                for (const char *p = text; *p; p++)
                    r += *p == '\n';
                ck_assert_int_le(r, rows);
                free(text);
                const int keys[] = {TK_DOWN, TK_PGDN, TK_RIGHT, ']', '>', TK_END, TK_UP, '[', '<', TK_LEFT, TK_HOME};
                for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                    key(t, id, keys[k], rows);
                    free(draw(t, id, rows, cols));
                }
                tui_pane_class(id)->click(t, t->pane_state[id], rows - 1, 0);
                free(draw(t, id, rows, cols));
            }
        /* the first row of a 1x10 inspector is the value's name */
        char *text = draw(t, PANE_INSPECTOR, 1, 10);
        ck_assert_int_gt((int)strlen(text), 1);
        free(text);
        close_tui(t, s);
    }
}
END_TEST

Suite *suite_panes_view(void)
{
    Suite *s = suite_create("panes_view");
    TCase *tc = tcase_create("panes_view");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_source_mlp);
    tcase_add_test(tc, test_source_unreadable);
    tcase_add_test(tc, test_source_cache);
    tcase_add_test(tc, test_source_frames);
    tcase_add_test(tc, test_inspector_values);
    tcase_add_test(tc, test_inspector_3d);
    tcase_add_test(tc, test_inspector_io);
    tcase_add_test(tc, test_inspector_kinds);
    tcase_add_test(tc, test_panes_tiny);
    suite_add_tcase(s, tc);
    return s;
}
