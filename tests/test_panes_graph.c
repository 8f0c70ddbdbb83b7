/*
** test_panes_graph.c -- the graph, shapes and profile panes of the TUI,
** rendered headless onto a Grid and read back as text: module folding,
** the cursor and the selection, shapes symbolic and concrete, search,
** the symbols and guards, timings sorted, tiny panes, and a 100,000-node
** graph.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/gen/benchmodels.h"
#include "paneshot.h"
#include "testutil.h"
#include "cli/cli.h"
#include "tui/pane_graph.h"
#include "tui/panes.h"
#include "tui/tui.h"
#include "tui/tui_int.h"

#define FIX "build/fixtures/"

/* Open path with its example inputs (or none when bind is false), stopped
** at node 0 when bound, and a TUI over it. */
static Tui *open_tui(const char *path, bool bind)
{
    return tui_new(test_session_open(path, NULL, bind), path, NULL, 0, false);
}

static void close_tui(Tui *t)
{
    Session *s = t->s;
    tui_free(t);
    session_free(s);
}

static void run_ok(Tui *t, const char *line)
{
    ck_assert_msg(tui_command(t, line) == EP_OK, "%s failed: %s", line,
                  t->log.n ? t->log.lines[t->log.n - 1] : "");
}

/* Line k of text (new string; "" past the end). */
static char *line_at(const char *text, int k)
{
    const char *p = text;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return ep_xstrdup("");
    const char *e = strchr(p, '\n');
    return e ? ep_xstrndup(p, (size_t)(e - p)) : ep_xstrdup(p);
}

/* The first line of text containing needle, and its index in *row; NULL
** (row -1) if none. */
static char *line_with(const char *text, const char *needle, int *row)
{
    int k = 0;
    for (const char *p = text; *p; k++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *line = ep_xstrndup(p, len);
        if (strstr(line, needle)) {
            if (row)
                *row = k;
            return line;
        }
        free(line);
        if (!e)
            break;
        p = e + 1;
    }
    if (row)
        *row = -1;
    return NULL;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

/* Lines of text that are not blank. */
static int filled_lines(const char *text)
{
    int n = 0;
    for (int k = 0; k < count_lines(text); k++) {
        char *l = line_at(text, k);
        n += l[0] != '\0';
        free(l);
    }
    return n;
}

#define ASSERT_HAS(text, needle) ck_assert_msg(strstr((text), (needle)) != NULL, "no '%s' in:\n%s", (needle), (text))
#define ASSERT_LACKS(text, needle) ck_assert_msg(strstr((text), (needle)) == NULL, "'%s' unexpected in:\n%s", (needle), (text))

static bool pane_key(Tui *t, int id, int key)
{
    return tui_pane_class(id)->key(t, t->pane_state[id], key, 10);
}

/* Column of the first cell of row whose code point is ch, or -1. */
static int cell_col(const Grid *g, int row, uint32_t ch)
{
    for (int c = 0; c < g->cols; c++)
        if (g->cells[row * g->cols + c].ch == ch)
            return c;
    return -1;
}

static Style cell_style(const Grid *g, int row, int col)
{
    return (Style)g->cells[row * g->cols + col].style;
}

/* ---- graph pane --------------------------------------------------------------------- */

START_TEST(test_graph_mlp_rows)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    Shot s = shot(t, PANE_GRAPH, 20, 100);
    /* five module calls, each a header over its one node; the functional
    ** ops between them sit at the top level */
    ck_assert_int_eq(filled_lines(s.text), 15);
    char *l0 = line_at(s.text, 0), *l1 = line_at(s.text, 1), *l2 = line_at(s.text, 2);
    ASSERT_HAS(l0, "▾ fc1 (Linear)  1 node");
    /* the run stands before node 0: '>' marks it; not computed yet, so
    ** only the recorded shape */
    ck_assert_msg(strncmp(l1, ">", 1) == 0, "%s", l1);
    ASSERT_HAS(l1, "#0 linear");
    ASSERT_HAS(l1, "aten.linear.default");
    ASSERT_HAS(l1, "float32[s0, 32]");
    ASSERT_LACKS(l1, "= [");
    ASSERT_HAS(l1, "fc1");
    /* relu is outside every module: no indentation */
    ck_assert_msg(strncmp(l2 + 3, "#1 relu", 7) == 0, "%s", l2);
    char *l = line_with(s.text, "#2 layer_norm", NULL);
    ck_assert_ptr_nonnull(l);
    ck_assert_msg(strncmp(l + 3, "  #2 layer_norm", 15) == 0, "nested rows are indented: '%s'", l);
    free(l);
    ASSERT_HAS(s.text, "▾ norm (LayerNorm)  1 node");
    ASSERT_HAS(s.text, "▾ drop (Dropout)");
    ASSERT_HAS(s.text, "▾ fc2 (Linear)");
    ASSERT_HAS(s.text, "▾ head (Linear)");
    l = line_with(s.text, "#6 mean", NULL);
    ASSERT_HAS(l, "aten.mean.dim");
    ASSERT_HAS(l, "float32[s0, 1]");
    free(l);
    free(l0);
    free(l1);
    free(l2);
    shot_free(&s);

    /* after the run: concrete shapes beside the symbolic ones, done style */
    run_ok(t, "run");
    s = shot(t, PANE_GRAPH, 20, 100);
    int row;
    l = line_with(s.text, "#0 linear", &row);
    ASSERT_HAS(l, "float32[s0, 32] = [4, 32]");
    int hash = (int)(strstr(l, "#0") - l);
    ck_assert_int_eq(cell_style(&s.g, row, hash), ST_DONE);
    free(l);
    l = line_with(s.text, "#8 linear_2", NULL);
    ASSERT_HAS(l, "float32[s0, 4] = [4, 4]");
    free(l);
    shot_free(&s);
    close_tui(t);
}
END_TEST

START_TEST(test_graph_folding)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    ck_assert(pane_key(t, PANE_GRAPH, '-'));
    Shot s = shot(t, PANE_GRAPH, 20, 100);
    ck_assert_int_eq(filled_lines(s.text), 10);
    const char *want[] = {"▸ fc1 (Linear)", "#1 relu", "▸ norm (LayerNorm)", "▸ drop (Dropout)", "▸ fc2 (Linear)",
                          "#5 gelu", "#6 mean", "#7 add", "▸ head (Linear)", "#9 softmax"};
    for (int k = 0; k < 10; k++) {
        char *l = line_at(s.text, k);
        ASSERT_HAS(l, want[k]);
        free(l);
    }
    /* the folded fc1 holds the node the run is at */
    char *l0 = line_at(s.text, 0);
    ck_assert_msg(l0[0] == '>', "%s", l0);
    free(l0);
    shot_free(&s);

    /* Home, then Enter on the header unfolds it; Down goes onto its node */
    ck_assert(pane_key(t, PANE_GRAPH, TK_HOME));
    ck_assert(pane_key(t, PANE_GRAPH, TK_ENTER));
    s = shot(t, PANE_GRAPH, 20, 100);
    ck_assert_int_eq(filled_lines(s.text), 11);
    char *l = line_at(s.text, 0);
    ASSERT_HAS(l, "▾ fc1 (Linear)");
    free(l);
    ck_assert_int_eq(cell_style(&s.g, 0, 5), ST_CURSOR);
    shot_free(&s);
    ck_assert(pane_key(t, PANE_GRAPH, TK_DOWN));
    ck_assert(pane_key(t, PANE_GRAPH, 'j'));
    ck_assert_int_eq(t->selected, 1);
    ck_assert(pane_key(t, PANE_GRAPH, 'j'));
    ck_assert_int_eq(t->selected, 1); /* a header: the selection stays */
    /* Right unfolds norm, Left folds it again */
    ck_assert(pane_key(t, PANE_GRAPH, TK_RIGHT));
    s = shot(t, PANE_GRAPH, 20, 100);
    ASSERT_HAS(s.text, "▾ norm (LayerNorm)");
    ASSERT_HAS(s.text, "#2 layer_norm");
    shot_free(&s);
    ck_assert(pane_key(t, PANE_GRAPH, TK_LEFT));
    s = shot(t, PANE_GRAPH, 20, 100);
    ASSERT_HAS(s.text, "▸ norm (LayerNorm)");
    ASSERT_LACKS(s.text, "#2 layer_norm");
    shot_free(&s);

    /* a selection from outside unfolds what hides it */
    tui_select_node(t, 4);
    s = shot(t, PANE_GRAPH, 20, 100);
    int row;
    l = line_with(s.text, "#4 linear_1", &row);
    ck_assert_ptr_nonnull(l);
    free(l);
    ASSERT_HAS(s.text, "▾ fc2 (Linear)");
    ck_assert_int_eq(cell_style(&s.g, row, 6), ST_CURSOR);
    shot_free(&s);

    /* + unfolds everything */
    ck_assert(pane_key(t, PANE_GRAPH, '+'));
    s = shot(t, PANE_GRAPH, 20, 100);
    ck_assert_int_eq(filled_lines(s.text), 15);
    shot_free(&s);

    /* a click on a header toggles it */
    tui_pane_class(PANE_GRAPH)->click(t, t->pane_state[PANE_GRAPH], 0, 4);
    s = shot(t, PANE_GRAPH, 20, 100);
    l = line_at(s.text, 0);
    ASSERT_HAS(l, "▸ fc1 (Linear)");
    free(l);
    shot_free(&s);
    /* and on a node selects it */
    tui_pane_class(PANE_GRAPH)->click(t, t->pane_state[PANE_GRAPH], 1, 4);
    ck_assert_int_eq(t->selected, 1);
    /* Enter on a node inspects it, and its key binding focuses the inspector */
    ck_assert(pane_key(t, PANE_GRAPH, 'j'));
    ck_assert(pane_key(t, PANE_GRAPH, 'j'));
    ck_assert_int_eq(t->selected, 2);
    t->focus = PANE_GRAPH;
    tui_key(t, TK_ENTER);
    ck_assert_int_eq(t->selected, 2);
    ck_assert_ptr_null(t->inspect);
    ck_assert_int_eq(t->focus, PANE_INSPECTOR);
    close_tui(t);
}
END_TEST

START_TEST(test_graph_markers_and_title)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    run_ok(t, "step 3");
    run_ok(t, "break relu");
    Shot s = shot(t, PANE_GRAPH, 20, 100);
    int row;
    char *l = line_with(s.text, "#1 relu", &row);
    ck_assert_msg(l[1] == '*', "breakpoint marker: '%s'", l);
    ck_assert_int_eq(cell_style(&s.g, row, 1), ST_BREAK);
    free(l);
    /* three nodes ran: the current one is #3 */
    l = line_with(s.text, "#3 dropout", &row);
    ck_assert_msg(l[0] == '>', "current marker: '%s'", l);
    free(l);
    l = line_with(s.text, "#4 linear_1", &row);
    ck_assert_int_eq(cell_style(&s.g, row, cell_col(&s.g, row, '#')), ST_NORMAL);
    free(l);
    shot_free(&s);
    char title[256] = "";
    tui_pane_class(PANE_GRAPH)->title(t, t->pane_state[PANE_GRAPH], title, sizeof title);
    ck_assert_str_eq(title, "4/10");
    close_tui(t);
}
END_TEST

START_TEST(test_graph_nan_marker)
{
    Tui *t = open_tui(FIX "nan_log.pt2", true);
    run_ok(t, "run");
    Shot s = shot(t, PANE_GRAPH, 10, 80);
    int row;
    char *l = line_with(s.text, "#2 log", &row);
    ck_assert_ptr_nonnull(l);
    ck_assert_msg(l[2] == '!', "NaN marker: '%s'", l);
    ck_assert_int_eq(cell_style(&s.g, row, 2), ST_NAN);
    free(l);
    ASSERT_HAS(s.text, "▾ pre");
    shot_free(&s);
    close_tui(t);
}
END_TEST

START_TEST(test_graph_cnn)
{
    Tui *t = open_tui("examples/cnn.pt2", true);
    run_ok(t, "run");
    int64_t s0;
    ck_assert(sym_bindings_get(interp_symbols(session_interp(t->s)), "s0", &s0));
    Shot s = shot(t, PANE_GRAPH, 20, 120);
    ASSERT_HAS(s.text, "▾ conv1 (Conv2d)");
    ASSERT_HAS(s.text, "▾ bn1 (BatchNorm2d)");
    char want[64];
    snprintf(want, sizeof want, "float32[s0, 8, 8, 8] = [%lld, 8, 8, 8]", (long long)s0);
    char *l = line_with(s.text, "#3 max_pool2d", NULL);
    ASSERT_HAS(l, want);
    ASSERT_HAS(l, "aten.max_pool2d.default");
    free(l);
    shot_free(&s);
    close_tui(t);
}
END_TEST

/* The real pane size at 80x24 and tiny ones: nothing breaks, the important
** part comes first. */
START_TEST(test_graph_small_sizes)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    int sizes[][2] = {{0, 0}, {1, 10}, {3, 20}, {2, 1}, {1, 1}, {16, 36}, {5, 40}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int id = 0; id < PANE_COUNT; id++) {
            if (id != PANE_GRAPH && id != PANE_SHAPES && id != PANE_PROFILE)
                continue;
            Shot s = shot(t, id, sizes[k][0], sizes[k][1]);
            ck_assert_int_eq(count_lines(s.text), sizes[k][0] > 0 && sizes[k][1] > 0 ? sizes[k][0] : 0);
            shot_free(&s);
        }
    }
    /* at the graph pane's width in an 80x24 screen the name still shows */
    Shot s = shot(t, PANE_GRAPH, 16, 36);
    char *l = line_with(s.text, "#4 linear_1", NULL);
    ck_assert_ptr_nonnull(l);
    free(l);
    shot_free(&s);
    s = shot(t, PANE_GRAPH, 3, 20);
    l = line_at(s.text, 0);
    ASSERT_HAS(l, "▾ fc1");
    free(l);
    shot_free(&s);
    run_ok(t, "run");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        Shot p = shot(t, PANE_PROFILE, sizes[k][0], sizes[k][1]);
        shot_free(&p);
    }
    close_tui(t);
}
END_TEST

START_TEST(test_graph_search)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    void *st = t->pane_state[PANE_GRAPH];
    EpError err = {0};
    ck_assert_int_eq(pane_graph_search(t, st, "linear_\\d", -1, +1, &err), 4);
    ck_assert_int_eq(pane_graph_search(t, st, "linear_\\d", 4, +1, &err), 8);
    ck_assert_int_eq(pane_graph_search(t, st, "linear_\\d", 8, +1, &err), 4); /* wraps */
    ck_assert_int_eq(pane_graph_search(t, st, "linear_\\d", 4, -1, &err), 8); /* backwards, wrapping */
    ck_assert_int_eq(pane_graph_search(t, st, "linear_\\d", -1, -1, &err), 8);
    /* op targets and module paths match too */
    ck_assert_int_eq(pane_graph_search(t, st, "mean\\.dim", 0, +1, &err), 6);
    ck_assert_int_eq(pane_graph_search(t, st, "^head$", 0, +1, &err), 8);
    ck_assert_int_eq(pane_graph_search(t, st, "^linear$", 0, +1, &err), 0); /* only itself */
    ck_assert_int_eq(pane_graph_search(t, st, "no_such_node", 0, +1, &err), -1);
    ASSERT_HAS(err.msg, "no match");
    /* the rows show where the last search matches */
    t->search = ep_xstrdup("ar_\\d");
    Shot s = shot(t, PANE_GRAPH, 20, 100);
    int row;
    char *l = line_with(s.text, "#4 linear_1", &row);
    int at = (int)(strstr(l, "ar_1") - l);
    ck_assert_int_eq(cell_style(&s.g, row, at - 1), ST_NORMAL);
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(cell_style(&s.g, row, at + k), ST_MATCH);
    ck_assert_int_eq(cell_style(&s.g, row, at + 4), ST_NORMAL);
    free(l);
    shot_free(&s);
    ck_assert_int_eq(pane_graph_search(t, st, "relu(", 0, +1, &err), -1);
    ASSERT_HAS(err.msg, "bad regular expression");
    ASSERT_HAS(err.msg, "offset 5");
    close_tui(t);
}
END_TEST

/* Nested module calls (Sequential -> Linear) from a real export. */
START_TEST(test_graph_corpus_nested)
{
    const char *corpus = test_corpus_dir();
    if (!corpus)
        return;
    char *path = ep_xasprintf("%s/hades-pid__exported_program.pt2", corpus);
    if (access(path, R_OK) != 0) {
        free(path);
        return;
    }
    Tui *t = open_tui(path, false);
    Shot s = shot(t, PANE_GRAPH, 30, 120);
    int hrow, nrow;
    char *h = line_with(s.text, "▾ feature (Sequential)", &hrow);
    ck_assert_msg(h != NULL, "%s", s.text);
    char *l = line_with(s.text, "#1 addmm", &nrow);
    ck_assert_ptr_nonnull(l);
    /* the inner Linear's header is indented under feature, its nodes under it */
    char *inner = line_at(s.text, hrow + 1);
    ck_assert_msg(strncmp(inner + 3, "  ▾ 0 (Linear)  2 nodes", strlen("  ▾ 0 (Linear)  2 nodes")) == 0, "'%s'", inner);
    ck_assert_msg(strncmp(l + 3, "    #1 addmm", 12) == 0, "'%s'", l);
    ASSERT_HAS(l, "float32[2, 256]");
    ASSERT_HAS(l, "feature.0");
    free(inner);
    free(l);
    free(h);
    shot_free(&s);
    /* folding everything leaves the top-level groups */
    ck_assert(pane_key(t, PANE_GRAPH, '-'));
    s = shot(t, PANE_GRAPH, 30, 120);
    l = line_at(s.text, 0);
    ASSERT_HAS(l, "▸ feature (Sequential)");
    free(l);
    ASSERT_LACKS(s.text, "(Linear)");
    shot_free(&s);
    close_tui(t);
    free(path);
}
END_TEST

/* A 100,000-node chain: what shows at the top, the middle and the end.
** Under AddressSanitizer writing the archive alone takes minutes (the
** generator's allocations), so the sanitizer build draws a 10,000-node
** chain instead: the pane's code paths are the same. */
#if defined(__SANITIZE_ADDRESS__)
#define HUGE_NODES 10000
#else
#define HUGE_NODES 100000
#endif

START_TEST(test_graph_huge)
{
    enum { N = HUGE_NODES };
    PbRng r = {1};
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/chain.pt2", dir);
    EpError err = {0};
    PbWriteOptions opt = {.era = PB_ERA_2_11, .no_example_inputs = true};
    ProgBuilder *pb = bench_chain_model(N, &r);
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    Tui *t = open_tui(path, false);
    ck_assert_int_eq(t->nnodes, N);
    const Interp *ip = session_interp(t->s);
    Shot s = shot(t, PANE_GRAPH, 20, 100);
    char want[128];
    for (int k = 0; k < 20; k++) {
        char *l = line_at(s.text, k);
        snprintf(want, sizeof want, "#%d %s ", k, interp_node(ip, k)->name);
        ASSERT_HAS(l, want);
        free(l);
    }
    shot_free(&s);
    /* End: the last page */
    ck_assert(pane_key(t, PANE_GRAPH, TK_END));
    ck_assert_int_eq(t->selected, N - 1);
    s = shot(t, PANE_GRAPH, 20, 100);
    for (int k = 0; k < 20; k++) {
        char *l = line_at(s.text, k);
        snprintf(want, sizeof want, "#%d %s ", N - 20 + k, interp_node(ip, N - 20 + k)->name);
        ASSERT_HAS(l, want);
        free(l);
    }
    shot_free(&s);
    /* a selection in the middle scrolls there, a third down the pane */
    tui_select_node(t, N / 2);
    s = shot(t, PANE_GRAPH, 21, 100);
    int row;
    snprintf(want, sizeof want, "#%d %s ", N / 2, interp_node(ip, N / 2)->name);
    char *l = line_with(s.text, want, &row);
    ck_assert_msg(l != NULL, "%s", s.text);
    ck_assert_int_eq(row, 7);
    free(l);
    l = line_at(s.text, 0);
    snprintf(want, sizeof want, "#%d ", N / 2 - 7);
    ASSERT_HAS(l, want);
    free(l);
    shot_free(&s);
    /* PgUp moves a page less one row */
    ck_assert(tui_pane_class(PANE_GRAPH)->key(t, t->pane_state[PANE_GRAPH], TK_PGUP, 21));
    ck_assert_int_eq(t->selected, N / 2 - 20);
    ck_assert_int_eq(pane_graph_search(t, t->pane_state[PANE_GRAPH], interp_node(ip, N - 3)->name, 0, -1, &err),
                     N - 3);
    close_tui(t);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}
END_TEST

/* ---- shapes pane ---------------------------------------------------------------------- */

START_TEST(test_shapes_mlp)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    Shot s = shot(t, PANE_SHAPES, 12, 80);
    ASSERT_HAS(s.text, "inputs\n");
    ASSERT_HAS(s.text, "  x: float32[s0, 16]  = [4, 16]  s0 in [2, 1024]\n");
    ASSERT_HAS(s.text, "symbols\n");
    ASSERT_HAS(s.text, "  s0 = 4  in [2, 1024]\n");
    ASSERT_LACKS(s.text, "derived");
    shot_free(&s);
    char title[128];
    tui_pane_class(PANE_SHAPES)->title(t, t->pane_state[PANE_SHAPES], title, sizeof title);
    ck_assert_str_eq(title, "1 bound, 0 unbound");
    close_tui(t);

    /* before any input is bound */
    t = open_tui("examples/mlp.pt2", false);
    s = shot(t, PANE_SHAPES, 12, 80);
    ASSERT_HAS(s.text, "  x: float32[s0, 16]  (not bound)  s0 in [2, 1024]\n");
    ASSERT_HAS(s.text, "  s0 not bound yet  in [2, 1024]\n");
    shot_free(&s);
    close_tui(t);
}
END_TEST

START_TEST(test_shapes_derived)
{
    Tui *t = open_tui(FIX "dynamic.pt2", true);
    int64_t s0;
    ck_assert(sym_bindings_get(interp_symbols(session_interp(t->s)), "s0", &s0));
    Shot s = shot(t, PANE_SHAPES, 12, 80);
    char want[128];
    snprintf(want, sizeof want, "  y: float32[2*s0, 4]  = [%lld, 4]  s0 in [2, 8]\n", (long long)(2 * s0));
    ASSERT_HAS(s.text, want);
    snprintf(want, sizeof want, "derived\n  2*s0 = %lld\n", (long long)(2 * s0));
    ASSERT_HAS(s.text, want);
    shot_free(&s);
    run_ok(t, "run");
    s = shot(t, PANE_GRAPH, 5, 100);
    char *l = line_with(s.text, "#2 sym_size_int", NULL);
    snprintf(want, sizeof want, "SymInt = %lld", (long long)s0);
    ASSERT_HAS(l, want);
    free(l);
    l = line_with(s.text, "#0 cat", NULL);
    snprintf(want, sizeof want, "float32[2*s0, 4] = [%lld, 4]", (long long)(2 * s0));
    ASSERT_HAS(l, want);
    free(l);
    shot_free(&s);
    /* scrolling: one row shows one line at a time */
    s = shot(t, PANE_SHAPES, 1, 80);
    ck_assert_str_eq(s.text, "inputs\n");
    shot_free(&s);
    ck_assert(pane_key(t, PANE_SHAPES, TK_DOWN));
    s = shot(t, PANE_SHAPES, 1, 80);
    ASSERT_HAS(s.text, "  x: float32[s0, 4]");
    shot_free(&s);
    ck_assert(pane_key(t, PANE_SHAPES, TK_END));
    s = shot(t, PANE_SHAPES, 2, 80);
    /* the last section is the guard tree (test_suggest_debug.c checks it whole) */
    char end[256];
    snprintf(end, sizeof end, "    s0 = %lld: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 8]\n"
             "    y.shape[0] = 2*s0: the input is first used by node 'add'", (long long)s0);
    ck_assert_msg(strncmp(s.text, end, strlen(end)) == 0, "%s", s.text);
    shot_free(&s);
    close_tui(t);

    t = open_tui(FIX "symint_input.pt2", true);
    s = shot(t, PANE_SHAPES, 12, 80);
    ASSERT_HAS(s.text, "  n: ");
    ASSERT_HAS(s.text, "= 5");
    ASSERT_HAS(s.text, "  x: float32[3]  = [3]\n");
    shot_free(&s);
    close_tui(t);
}
END_TEST

/* ---- profile pane -------------------------------------------------------------------------- */

START_TEST(test_profile_sorted)
{
    Tui *t = open_tui("examples/mlp.pt2", true);
    Shot s = shot(t, PANE_PROFILE, 12, 80);
    ASSERT_HAS(s.text, "No timings yet: run the program (r)");
    shot_free(&s);
    run_ok(t, "run");
    s = shot(t, PANE_PROFILE, 12, 80);
    char *l0 = line_at(s.text, 0);
    ASSERT_HAS(l0, "total ");
    ASSERT_HAS(l0, " in 10 nodes");
    free(l0);
    /* rows 1..10: every node once, slowest first, percentages adding up */
    double last = 1e30, pct_sum = 0;
    bool seen[10] = {0};
    for (int k = 1; k <= 10; k++) {
        char *l = line_at(s.text, k);
        char *hash = strchr(l, '#');
        ck_assert_msg(hash != NULL, "row %d: '%s'", k, l);
        int node = atoi(hash + 1);
        ck_assert(node >= 0 && node < 10 && !seen[node]);
        seen[node] = true;
        double secs = session_node_seconds(t->s, node);
        ck_assert(secs >= 0 && secs <= last);
        last = secs;
        ASSERT_HAS(l, interp_node(session_interp(t->s), node)->name);
        ASSERT_HAS(l, op_short_target(interp_node(session_interp(t->s), node)->target));
        double pct;
        ck_assert(sscanf(strchr(l, '%') - 5, "%lf", &pct) == 1);
        pct_sum += pct;
        free(l);
    }
    ck_assert_msg(pct_sum > 99.0 && pct_sum < 101.0, "%g", pct_sum);
    shot_free(&s);
    /* Enter on the second row selects that node */
    s = shot(t, PANE_PROFILE, 12, 80);
    char *l2 = line_at(s.text, 2);
    int second = atoi(strchr(l2, '#') + 1);
    free(l2);
    shot_free(&s);
    ck_assert(pane_key(t, PANE_PROFILE, TK_DOWN));
    ck_assert(pane_key(t, PANE_PROFILE, TK_ENTER));
    ck_assert_int_eq(t->selected, second);
    /* scrolled in a small pane: the cursor row stays on screen */
    for (int k = 0; k < 8; k++)
        ck_assert(pane_key(t, PANE_PROFILE, TK_DOWN));
    s = shot(t, PANE_PROFILE, 4, 80);
    ck_assert_int_eq(cell_style(&s.g, 3, 2), ST_CURSOR);
    shot_free(&s);
    char title[128];
    tui_pane_class(PANE_PROFILE)->title(t, t->pane_state[PANE_PROFILE], title, sizeof title);
    ck_assert_msg(strncmp(title, "10/10  ", 7) == 0, "%s", title);
    close_tui(t);
}
END_TEST

Suite *suite_panes_graph(void)
{
    Suite *s = suite_create("panes_graph");
    TCase *tc = tcase_create("panes");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_graph_mlp_rows);
    tcase_add_test(tc, test_graph_folding);
    tcase_add_test(tc, test_graph_markers_and_title);
    tcase_add_test(tc, test_graph_nan_marker);
    tcase_add_test(tc, test_graph_cnn);
    tcase_add_test(tc, test_graph_small_sizes);
    tcase_add_test(tc, test_graph_search);
    tcase_add_test(tc, test_graph_corpus_nested);
    tcase_add_test(tc, test_graph_huge);
    tcase_add_test(tc, test_shapes_mlp);
    tcase_add_test(tc, test_shapes_derived);
    tcase_add_test(tc, test_profile_sorted);
    suite_add_tcase(s, tc);
    return s;
}
