/*
** test_profile_session.c -- profiling inside the debugger: the `profile`
** command through the same command table batch mode uses (exact counts
** checked against the program's own graph, iterations, time travel
** measuring again, sampling's structure, every error message, reports
** written through a temporary name), and the TUI's profile, graph and
** source panes drawn headless from a hand-made Profile whose shares are
** known.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paneshot.h"
#include "testutil.h"
#include "debugger/cmd.h"
#include "debugger/session.h"
#include "profiler/profile.h"
#include "tui/panes.h"
#include "tui/tui.h"
#include "tui/tui_int.h"

#define MLP "examples/mlp.pt2"

/* ---- the command, as batch mode runs it ------------------------------------------------ */

typedef struct Console {
    Session *s;
    StrBuf text;   /* everything the commands printed */
    Out out;
    CmdCtx c;
    EpError err;   /* of the last command */
} Console;

static void console_write(void *ctx, const char *text, size_t len)
{
    sb_appendn(ctx, text, len);
}

static Console *console_open(void)
{
    Console *k = ep_xcalloc(1, sizeof *k);
    k->s = test_session_open(MLP, NULL, true);
    sb_init(&k->text);
    k->out = (Out){console_write, &k->text};
    k->c = (CmdCtx){.s = k->s, .out = &k->out, .frame = -1, .list_node = -1};
    return k;
}

static void console_close(Console *k)
{
    session_free(k->s);
    sb_free(&k->text);
    free(k);
}

/* Run line; its output (the console's text from here on) stays in k->text. */
static EpStatus exec(Console *k, const char *line)
{
    sb_free(&k->text);
    sb_init(&k->text);
    memset(&k->err, 0, sizeof k->err);
    return cmd_execute(&k->c, line, &k->err);
}

static void exec_ok(Console *k, const char *line)
{
    EpStatus rc = exec(k, line);
    ck_assert_msg(rc == EP_OK, "%s: %s", line, k->err.msg);
}

/* line fails with a usage error whose message holds want. */
static void exec_fails(Console *k, const char *line, const char *want)
{
    EpStatus rc = exec(k, line);
    ck_assert_msg(rc != EP_OK, "%s succeeded: %s", line, k->text.data ? k->text.data : "");
    ck_assert_msg(strstr(k->err.msg, want), "%s: '%s' lacks '%s'", line, k->err.msg, want);
}

#define ASSERT_HAS(text, needle) ck_assert_msg(strstr((text), (needle)), "no '%s' in:\n%s", (needle), (text))

/* How many nodes of the program have the op target of row key. */
static int64_t nodes_of_op(Session *s, const char *op)
{
    int64_t n = 0;
    for (int i = 0; i < session_num_nodes(s); i++)
        n += strcmp(op_short_target(interp_node(session_interp(s), i)->target), op) == 0;
    return n;
}

/* profile start, run, run, profile stop: two iterations, every node
** measured twice, calls per iteration of each op equal to the nodes of
** that op in the graph, and every op of the graph in the report. */
START_TEST(test_exact_two_runs)
{
    Console *k = console_open();
    exec_ok(k, "profile");
    ASSERT_HAS(k->text.data, "No profile");
    exec_ok(k, "profile start");
    ASSERT_HAS(k->text.data, "Profiling (exact)");
    ck_assert(session_profiling(k->s));
    exec_ok(k, "run");
    exec_ok(k, "run");
    exec_ok(k, "profile");
    ASSERT_HAS(k->text.data, "Profiling (exact): 2 iterations, 20 node executions measured of 10 nodes.");
    exec_ok(k, "profile stop");
    ck_assert(!session_profiling(k->s));
    ASSERT_HAS(k->text.data, "Not profiling; the last profile (exact): 2 iterations");

    const Profile *p = session_profile(k->s);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->mode, PROFILE_EXACT);
    ck_assert_int_eq(p->iters, 2);
    int n = session_num_nodes(k->s);
    ck_assert_int_eq(p->nnodes, n);
    for (int i = 0; i < n; i++) {
        ck_assert_str_eq(p->nodes[i].name, interp_node(session_interp(k->s), i)->name);
        ck_assert_int_eq(p->nodes[i].time.count, 2);
    }
    ProfileRow *rows;
    int nrows = profile_rows(p, PROFILE_BY_OP, &rows);
    int64_t calls = 0;
    for (int r = 0; r < nrows; r++) {
        if (rows[r].first_node < 0)
            continue;
        ck_assert_msg(rows[r].calls == nodes_of_op(k->s, rows[r].key), "%s: %lld calls", rows[r].key,
                      (long long)rows[r].calls);
        calls += rows[r].calls;
    }
    ck_assert_int_eq(calls, n); /* every node once per iteration */

    /* the table names every op of the graph, and says two iterations */
    exec_ok(k, "profile report --by op");
    for (int r = 0; r < nrows; r++)
        if (rows[r].first_node >= 0)
            ASSERT_HAS(k->text.data, rows[r].key);
    profile_rows_free(rows, nrows);
    /* stopping kept the profile; nothing runs into it any more */
    exec_ok(k, "run");
    ck_assert_int_eq(session_profile(k->s)->iters, 2);
    console_close(k);
}
END_TEST

/* Stepping back and running again measures the nodes run again (also
** after a run has ended: finishing it again is measured, but is no new
** iteration), and starting again at node 0 is what makes an iteration. */
START_TEST(test_time_travel_counts_again)
{
    Console *k = console_open();
    int n = session_num_nodes(k->s);
    exec_ok(k, "profile start");
    exec_ok(k, "break #5");
    exec_ok(k, "run");            /* nodes 0..4 ran */
    exec_ok(k, "reverse-step 2"); /* before node 3 */
    exec_ok(k, "delete");
    exec_ok(k, "continue");       /* 3..9 */
    const Profile *p = session_profile(k->s);
    ck_assert_int_eq(p->iters, 1);
    for (int i = 0; i < n; i++)
        ck_assert_msg(p->nodes[i].time.count == (i == 3 || i == 4 ? 2 : 1), "node %d: %lld", i,
                      (long long)p->nodes[i].time.count);
    /* after the end: back two nodes and on to the end again: those two
    ** count twice (mlp has no end-of-run write-back to step over) */
    exec_ok(k, "reverse-step 2");
    exec_ok(k, "continue");
    p = session_profile(k->s);
    ck_assert_int_eq(p->iters, 1);
    ck_assert_int_eq(p->nodes[n - 1].time.count, 2);
    ck_assert_int_eq(p->nodes[n - 2].time.count, 2);
    ck_assert_int_eq(p->nodes[n - 3].time.count, 1);
    /* step by step: each start at node 0 is one more iteration */
    exec_ok(k, "restart");
    exec_ok(k, "step 3");
    exec_ok(k, "continue");
    p = session_profile(k->s);
    ck_assert_int_eq(p->iters, 2);
    ck_assert_int_eq(p->nodes[0].time.count, 2);
    ck_assert_int_eq(p->nodes[3].time.count, 3);
    ck_assert_int_eq(p->nodes[n - 1].time.count, 3);
    console_close(k);
}
END_TEST

/* A front end reading the profile from its progress callback, while the
** run is under way (the TUI redraws its panes there), still sees the
** whole run afterwards: the profile taken mid-run is not kept as current. */
typedef struct Peek {
    Session *s;
    int calls;
} Peek;

static void peek_profile(void *ctx, int node, int nnodes)
{
    (void)node;
    (void)nnodes;
    Peek *p = ctx;
    p->calls++;
    ck_assert_ptr_nonnull(session_profile(p->s));
}

START_TEST(test_profile_read_during_a_run_is_refreshed)
{
    Console *k = console_open();
    exec_ok(k, "profile start");
    Peek peek = {k->s, 0};
    session_set_progress(k->s, peek_profile, &peek);
    exec_ok(k, "run");
    ck_assert_int_ge(peek.calls, 1); /* the first node of the first command always reports */
    const Profile *p = session_profile(k->s);
    ck_assert_int_eq(p->iters, 1);
    for (int i = 0; i < p->nnodes; i++)
        ck_assert_int_eq(p->nodes[i].time.count, 1);
    session_set_progress(k->s, NULL, NULL);
    console_close(k);
}
END_TEST

/* Sampling: counts may be 0 on a model this small; the structure holds. */
/* Threads of this process now. */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Wall-clock sampling in the debugger: the reader thread runs only while
** a command runs nodes, so a session sitting at the prompt costs nothing;
** the samples are still taken during runs. */
START_TEST(test_sampling_idle_session_has_no_reader)
{
    Console *k = console_open();
    exec_ok(k, "run"); /* OpenBLAS starts its own threads at its first call */
    int before = thread_count();
    exec_ok(k, "profile start --sample=1000");
    ck_assert_int_eq(thread_count(), before);
    exec_ok(k, "run");
    ck_assert_int_eq(thread_count(), before);
    ck_assert_int_eq(session_profile(k->s)->iters, 1);
    exec_ok(k, "profile stop");
    console_close(k);
}
END_TEST

START_TEST(test_sampling_structure)
{
    Console *k = console_open();
    exec_ok(k, "profile start --sample=5000 --clock cpu");
    ASSERT_HAS(k->text.data, "sampling at 5000 Hz (CPU clock)");
    exec_ok(k, "run");
    exec_ok(k, "run");
    exec_ok(k, "profile stop");
    ASSERT_HAS(k->text.data, "2 iterations");
    const Profile *p = session_profile(k->s);
    ck_assert_int_eq(p->mode, PROFILE_SAMPLE);
    ck_assert_int_eq(p->clock, PROFILE_CLOCK_CPU);
    ck_assert_int_eq(p->sample_hz, 5000);
    ck_assert_int_eq(p->iters, 2);
    int64_t inside = 0;
    for (int i = 0; i < p->nnodes; i++) {
        ck_assert_int_eq(p->nodes[i].time.count, 0);
        ck_assert(p->nodes[i].samples >= 0);
        inside += p->nodes[i].samples;
    }
    ck_assert_int_eq(inside + p->outside_samples, p->samples);
    exec_ok(k, "profile report --by node");
    ASSERT_HAS(k->text.data, interp_node(session_interp(k->s), 0)->name);
    /* a second profile replaces the first */
    exec_ok(k, "profile start");
    exec_ok(k, "run");
    ck_assert_int_eq(session_profile(k->s)->mode, PROFILE_EXACT);
    ck_assert_int_eq(session_profile(k->s)->iters, 1);
    console_close(k);
}
END_TEST

START_TEST(test_errors)
{
    Console *k = console_open();
    exec_fails(k, "profile report", "no profile to report");
    exec_fails(k, "profile stop", "not profiling");
    exec_fails(k, "profile start --sample=0", "bad sampling rate '0'");
    exec_fails(k, "profile start --sample=100001", "bad sampling rate '100001'");
    exec_fails(k, "profile start --sample=fast", "bad sampling rate 'fast'");
    exec_fails(k, "profile start --clock sundial --sample", "unknown clock 'sundial'");
    exec_fails(k, "profile start --clock cpu", "--clock is for sampling mode");
    exec_fails(k, "profile start --exact", "unexpected '--exact'");
    exec_fails(k, "profile pause", "unknown subcommand 'pause'");
    ck_assert(!session_profiling(k->s));
    exec_ok(k, "profile start --sample=1");
    exec_fails(k, "profile start", "already profiling");
    exec_ok(k, "profile stop");
    exec_fails(k, "profile stop", "not profiling");
    exec_ok(k, "profile start");
    exec_ok(k, "run");
    exec_fails(k, "profile report --by file", "unknown view 'file'");
    exec_fails(k, "profile report --format pdf", "unknown format 'pdf'");
    exec_fails(k, "profile report --top 0", "--top wants a positive count");
    exec_fails(k, "profile report --output", "--output needs a value");
    exec_fails(k, "profile report --depth 3", "unexpected '--depth'");
    exec_fails(k, "profile report --output /nonexistent-dir/p.json --format json", "/nonexistent-dir/p.json");
    exec_fails(k, "profile load /nonexistent-dir/p.json", "/nonexistent-dir/p.json");
    /* a report to a file: written whole, nothing left beside it */
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/p.json", dir);
    char *line = ep_xasprintf("profile report --format json --output %s", path);
    exec_ok(k, line);
    ASSERT_HAS(k->text.data, "Wrote the profile (json) to");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert(st.st_size > 2);
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(files, 1);
    /* read back, it is a profile of this program: load shows it */
    exec_fails(k, "profile load /dev/null", "");
    free(line);
    line = ep_xasprintf("profile load %s", path);
    exec_fails(k, line, "profiling is under way");
    exec_ok(k, "profile stop");
    exec_ok(k, line);
    ASSERT_HAS(k->text.data, "1 iteration");
    ck_assert_int_eq(session_profile(k->s)->iters, 1);
    remove(path);
    rmdir(dir);
    free(line);
    free(path);
    free(dir);
    /* help says what an iteration is */
    exec_ok(k, "help profile");
    ASSERT_HAS(k->text.data, "profile start [--sample[=HZ]] [--clock cpu|wall]");
    ASSERT_HAS(k->text.data, "measured again");
    console_close(k);
}
END_TEST

/* ---- the TUI, from a hand-made profile ---------------------------------------------------- */

/* Node i took (i + 1) microseconds per iteration, over 2 iterations, no
** dispatch: shares (i + 1) / 55 of mlp's 10 nodes. */
static Profile *made_profile(Session *s)
{
    int n = session_num_nodes(s);
    Profile *p = ep_xcalloc(1, sizeof *p);
    p->model_path = ep_xstrdup(MLP);
    p->mode = PROFILE_EXACT;
    p->iters = 2;
    p->nnodes = n;
    p->peak_node = -1;
    p->nodes = ep_xcalloc((size_t)n, sizeof *p->nodes);
    for (int i = 0; i < n; i++) {
        const Node *nd = interp_node(session_interp(s), i);
        ProfileNode *pn = &p->nodes[i];
        pn->name = ep_xstrdup(nd->name);
        pn->target = ep_xstrdup(op_short_target(nd->target));
        const SourceFrame *f = node_info_user_frame(session_node_info(s, i));
        if (f) {
            pn->file = ep_xstrdup(f->file);
            pn->line = f->line;
            pn->code = f->code ? ep_xstrdup(f->code) : NULL;
        }
        pn->time.count = 2;
        pn->time.total = 2 * (i + 1) * 1e-6;
        pn->time.mean = pn->time.min = pn->time.max = pn->time.median = pn->time.p90 = (i + 1) * 1e-6;
        p->wall += pn->time.total;
    }
    return p;
}


/* Row r of a shot (new string). */
static char *row_text(const Shot *s, int r)
{
    const char *p = s->text;
    for (int i = 0; i < r && p; i++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (!p)
        return ep_xstrdup("");
    const char *e = strchr(p, '\n');
    return ep_xstrndup(p, e ? (size_t)(e - p) : strlen(p));
}

/* The code point of cell (r, c). */
static uint32_t cell(const Shot *s, int r, int c)
{
    return s->g.cells[r * s->g.cols + c].ch;
}

/* Eighths of a cell a bar on row r takes: full blocks 8, U+2589 7 ... U+258F 1. */
static int bar_eighths(const Shot *s, int r)
{
    int e = 0;
    for (int c = 0; c < s->g.cols; c++) {
        uint32_t ch = cell(s, r, c);
        if (ch == 0x2588)
            e += 8;
        else if (ch >= 0x2589 && ch <= 0x258F)
            e += 8 - (int)(ch - 0x2588);
    }
    return e;
}

#define NVIEW_KEYS 4 /* `v` presses that go round the views */

static bool key(Tui *t, int id, int k)
{
    return tui_pane_class(id)->key(t, t->pane_state[id], k, 20);
}

static Tui *tui_with_profile(Session **s)
{
    *s = test_session_open(MLP, NULL, true);
    EpError err = {0};
    ck_assert_int_eq(session_profile_adopt(*s, made_profile(*s), &err), EP_OK);
    return tui_new(*s, MLP, (const char *const[]){"examples/src"}, 1, false);
}

/* The node view: heaviest first, bars of (i + 1) / 55 of the bar's width,
** Enter selecting the row's node in the graph. */
START_TEST(test_pane_profile_rows_and_bars)
{
    Session *s;
    Tui *t = tui_with_profile(&s);
    ck_assert(key(t, PANE_PROFILE, 'v')); /* op -> module */
    ck_assert(key(t, PANE_PROFILE, 'v')); /* -> line */
    ck_assert(key(t, PANE_PROFILE, 'v')); /* -> node */
    enum { COLS = 100, BAR = 20 }; /* the bar: a fifth of the width, at most 20 */
    Shot sh = shot(t, PANE_PROFILE, 14, COLS);
    char *head = row_text(&sh, 0);
    ASSERT_HAS(head, "profile  exact  2 iterations  55.0 us/iteration");
    ASSERT_HAS(head, "by node");
    free(head);
    int n = session_num_nodes(s);
    for (int r = 1; r <= n; r++) {
        int node = n - r; /* node 9 (10 us) first */
        char *l = row_text(&sh, r);
        ASSERT_HAS(l, interp_node(session_interp(s), node)->name);
        double frac = (node + 1) / 55.0;
        char pct[16];
        snprintf(pct, sizeof pct, "%.1f%%", 100 * frac);
        ASSERT_HAS(l, pct);
        ck_assert_msg(bar_eighths(&sh, r) == (int)(frac * BAR * 8 + 0.5), "row %d: %d eighths", r,
                      bar_eighths(&sh, r));
        free(l);
    }
    shot_free(&sh);
    /* Enter on the third row: node 7 selected, the graph focused */
    ck_assert(key(t, PANE_PROFILE, TK_DOWN));
    ck_assert(key(t, PANE_PROFILE, TK_DOWN));
    ck_assert(key(t, PANE_PROFILE, TK_ENTER));
    ck_assert_int_eq(t->selected, n - 3);
    ck_assert_int_eq(t->focus, PANE_GRAPH);
    /* every size down to nothing, the other panes with their profile columns too */
    static const int SIZES[][2] = {{0, 0}, {1, 10}, {3, 20}, {2, 1}, {1, 1}, {16, 36}, {5, 40}, {4, 60}};
    static const int IDS[] = {PANE_PROFILE, PANE_GRAPH, PANE_SOURCE};
    for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; k++)
        for (size_t v = 0; v < NVIEW_KEYS; v++) {
            for (size_t id = 0; id < sizeof IDS / sizeof IDS[0]; id++) {
                Shot tiny = shot(t, IDS[id], SIZES[k][0], SIZES[k][1]);
                shot_free(&tiny);
            }
            key(t, PANE_PROFILE, 'v');
        }
    tui_free(t);
    session_free(s);
}
END_TEST

/* The op view sums nodes of one op; the line view jumps to the source. */
START_TEST(test_pane_profile_views_jump)
{
    Session *s;
    Tui *t = tui_with_profile(&s);
    const Profile *p = session_profile(s);
    ProfileRow *rows;
    int nrows = profile_rows(p, PROFILE_BY_OP, &rows);
    Shot sh = shot(t, PANE_PROFILE, 14, 100);
    char *l = row_text(&sh, 1);
    ASSERT_HAS(l, rows[0].key);
    free(l);
    shot_free(&sh);
    /* the first op row's bar: its self share of the bar */
    sh = shot(t, PANE_PROFILE, 14, 100);
    ck_assert_int_eq(bar_eighths(&sh, 1), (int)(rows[0].pct / 100 * 20 * 8 + 0.5));
    shot_free(&sh);
    ck_assert(key(t, PANE_PROFILE, TK_ENTER));
    ck_assert_int_eq(t->selected, rows[0].first_node);
    profile_rows_free(rows, nrows);
    t->focus = PANE_PROFILE;
    ck_assert(key(t, PANE_PROFILE, 'v'));
    ck_assert(key(t, PANE_PROFILE, 'v')); /* line */
    nrows = profile_rows(p, PROFILE_BY_LINE, &rows);
    sh = shot(t, PANE_PROFILE, 14, 100);
    l = row_text(&sh, 0);
    ASSERT_HAS(l, "by line");
    free(l);
    shot_free(&sh);
    ck_assert(key(t, PANE_PROFILE, TK_ENTER));
    ck_assert_int_eq(t->selected, rows[0].first_node);
    ck_assert_int_eq(t->focus, PANE_SOURCE);
    profile_rows_free(rows, nrows);
    tui_free(t);
    session_free(s);
}
END_TEST

/* Graph heat: quarters of the hottest node's share (node 9: 10 us). */
START_TEST(test_pane_graph_heat)
{
    Session *s;
    Tui *t = tui_with_profile(&s);
    Shot sh = shot(t, PANE_GRAPH, 30, 120);
    /* node i's level: ceil(4 (i + 1) / 10) -> 1 1 2 2 2 3 3 4 4 4 */
    static const uint32_t WANT[10] = {0x2591, 0x2591, 0x2592, 0x2592, 0x2592, 0x2593, 0x2593, 0x2588, 0x2588, 0x2588};
    int found = 0;
    for (int r = 0; r < sh.g.rows; r++) {
        char *l = row_text(&sh, r);
        char *hash = strstr(l, "#");
        if (hash && (hash == l || hash[-1] == ' ')) {
            int node = atoi(hash + 1);
            ck_assert(node >= 0 && node < 10);
            ck_assert_msg(cell(&sh, r, 3) == WANT[node], "node %d: U+%04X", node, (unsigned)cell(&sh, r, 3));
            found++;
        }
        free(l);
    }
    ck_assert_int_eq(found, 10);
    shot_free(&sh);
    tui_free(t);
    session_free(s);
    /* no profile: no heat column, the names where they always were */
    s = test_session_open(MLP, NULL, true);
    t = tui_new(s, MLP, NULL, 0, false);
    sh = shot(t, PANE_GRAPH, 30, 120);
    for (int r = 0; r < sh.g.rows; r++)
        ck_assert(cell(&sh, r, 3) < 0x2591 || cell(&sh, r, 3) > 0x2593);
    shot_free(&sh);
    tui_free(t);
    session_free(s);
}
END_TEST

/* Source: the selected node's line carries the share of every node on it. */
START_TEST(test_pane_source_hot_lines)
{
    Session *s;
    Tui *t = tui_with_profile(&s);
    const Profile *p = session_profile(s);
    int node = session_num_nodes(s) - 1;
    tui_select_node(t, node);
    const ProfileNode *pn = &p->nodes[node];
    ck_assert_ptr_nonnull(pn->file);
    double share = 0;
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i].file && strcmp(p->nodes[i].file, pn->file) == 0 && p->nodes[i].line == pn->line)
            share += (i + 1) / 55.0;
    char want[64];
    snprintf(want, sizeof want, "> %d  %5.1f%%", pn->line, 100 * share);
    Shot sh = shot(t, PANE_SOURCE, 16, 100);
    ASSERT_HAS(sh.text, want);
    shot_free(&sh);
    tui_free(t);
    session_free(s);
}
END_TEST

/* No profile: the node times as before, and how to get a profile. */
START_TEST(test_pane_profile_hint)
{
    Session *s = test_session_open(MLP, NULL, true);
    Tui *t = tui_new(s, MLP, NULL, 0, false);
    Shot sh = shot(t, PANE_PROFILE, 14, 100);
    ASSERT_HAS(sh.text, "profile start to profile");
    shot_free(&sh);
    ck_assert_int_eq(tui_command(t, "run"), EP_OK);
    sh = shot(t, PANE_PROFILE, 14, 100);
    ASSERT_HAS(sh.text, "wall time of each node's last run");
    ASSERT_HAS(sh.text, "profile start to profile");
    shot_free(&sh);
    /* profiling from the console: the pane switches to the profile */
    ck_assert_int_eq(tui_command(t, "profile start"), EP_OK);
    ck_assert_int_eq(tui_command(t, "run"), EP_OK);
    sh = shot(t, PANE_PROFILE, 14, 100);
    char *head = row_text(&sh, 0);
    ASSERT_HAS(head, "profiling  exact  1 iteration");
    free(head);
    shot_free(&sh);
    tui_free(t);
    session_free(s);
}
END_TEST

Suite *suite_profile_session(void)
{
    Suite *s = suite_create("profile_session");
    TCase *tc = tcase_create("session");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_exact_two_runs);
    tcase_add_test(tc, test_time_travel_counts_again);
    tcase_add_test(tc, test_profile_read_during_a_run_is_refreshed);
    tcase_add_test(tc, test_sampling_idle_session_has_no_reader);
    tcase_add_test(tc, test_sampling_structure);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("panes");
    tcase_set_timeout(tp, 120);
    tcase_add_test(tp, test_pane_profile_rows_and_bars);
    tcase_add_test(tp, test_pane_profile_views_jump);
    tcase_add_test(tp, test_pane_graph_heat);
    tcase_add_test(tp, test_pane_source_hot_lines);
    tcase_add_test(tp, test_pane_profile_hint);
    suite_add_tcase(s, tp);
    return s;
}
