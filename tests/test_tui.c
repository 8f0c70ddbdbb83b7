/*
** test_tui.c -- the full-screen debugger, driven for real in tmux.
**
** The binary runs inside a detached tmux session on a private socket (so a
** user's tmux server and config stay out of it); keys go in with
** send-keys and the screen comes back with capture-pane, and the tests
** assert on that text.  After `q` the shell prints the exit status, which
** must be 0 (under ASan a leak would make it 1).
**
** Also headless tests of the screen manager: tui_render onto a Grid.
*/
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "examples/gen/benchmodels.h"
#include "interp/npy.h"
#include "testutil.h"
#include "cli/cli.h"
#include "tui/tui.h"
#include "tui/tui_int.h"

/* ---- tmux -------------------------------------------------------------------------- */

typedef struct Tmux {
    char *dir;      /* scratch folder: socket, HOME */
    char *sock;
    bool alive;
} Tmux;

static bool have_tmux(void)
{
    return system("command -v tmux >/dev/null 2>&1") == 0;
}

/* Run tmux with args on t's socket; its stdout (new string) or NULL. */
static char *tmux(Tmux *t, const char *const *args)
{
    const char *argv[32] = {"tmux", "-S", t->sock, "-f", "/dev/null"};
    int n = 5;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execvp("tmux", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    StrBuf sb;
    sb_init(&sb);
    char buf[4096];
    ssize_t got;
    while ((got = read(fds[0], buf, sizeof buf)) > 0)
        sb_appendn(&sb, buf, (size_t)got);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    char *text = sb_take(&sb);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Start `epdbg ARGS` in a rows x cols tmux window, with HOME in the scratch
** folder (rc: the ~/.epdbgrc to write there, or NULL).  The shell then
** prints EPDBG-EXIT=status and runs tail (a shell command, "" for none) in
** the same terminal. */
static void tmux_start_then(Tmux *t, const char *args, int cols, int rows, const char *rc, const char *tail)
{
    memset(t, 0, sizeof *t);
    t->dir = test_tmpdir();
    t->sock = ep_xasprintf("%s/sock", t->dir);
    if (rc) {
        char *path = ep_xasprintf("%s/.epdbgrc", t->dir);
        FILE *f = fopen(path, "w");
        ck_assert(f != NULL);
        fputs(rc, f);
        fclose(f);
        free(path);
    }
    const char *bin = getenv("EPDBG_BIN") ? getenv("EPDBG_BIN") : "./epdbg";
    /* the exit status stays on screen after the program ends */
    /* no core file from the SIGQUIT test; $$ (the shell, exec'd into
    ** epdbg) goes to a file for the SIGTERM test */
    char *shell = ep_xasprintf("cd '%s' && ulimit -c 0; HOME='%s' TERM=screen sh -c 'echo $$ > %s/pid; exec %s %s'; "
                               "echo EPDBG-EXIT=$?; %s sleep 60",
                               test_project_dir(), t->dir, t->dir, bin, args, tail);
    char w[16], h[16];
    snprintf(w, sizeof w, "%d", cols);
    snprintf(h, sizeof h, "%d", rows);
    const char *a[] = {"new-session", "-d", "-s", "t", "-x", w, "-y", h, shell, NULL};
    char *out = tmux(t, a);
    ck_assert_msg(out != NULL, "tmux new-session failed");
    free(out);
    free(shell);
    t->alive = true;
}

static void tmux_start(Tmux *t, const char *args, int cols, int rows, const char *rc)
{
    tmux_start_then(t, args, cols, rows, rc, "");
}

static char *tmux_screen(Tmux *t)
{
    const char *a[] = {"capture-pane", "-p", "-t", "t", NULL};
    char *s = tmux(t, a);
    return s ? s : ep_xstrdup("");
}

/* Wait (up to 20 s: ASan is slow) until the screen contains text; the
** screen at the end (new string).  Fails the test when it never does. */
static char *tmux_wait(Tmux *t, const char *text)
{
    char *s = NULL;
    for (int i = 0; i < 400; i++) {
        free(s);
        s = tmux_screen(t);
        if (strstr(s, text))
            return s;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    ck_abort_msg("the screen never showed '%s'; it shows:\n%s", text, s);
    return s;
}

/* Wait for text, then release the screen. */
static void tmux_expect(Tmux *t, const char *text)
{
    free(tmux_wait(t, text));
}

/* Send keys: tmux key names ("Enter", "Tab", "Escape", "C-c") or, with
** literal, characters as typed. */
static void tmux_keys(Tmux *t, const char *keys, bool literal)
{
    const char *a[] = {"send-keys", "-t", "t", literal ? "-l" : keys, literal ? keys : NULL, NULL};
    char *out = tmux(t, a);
    ck_assert_msg(out != NULL, "send-keys %s failed", keys);
    free(out);
}

static void tmux_resize(Tmux *t, int cols, int rows)
{
    char w[16], h[16];
    snprintf(w, sizeof w, "%d", cols);
    snprintf(h, sizeof h, "%d", rows);
    const char *a[] = {"resize-window", "-t", "t", "-x", w, "-y", h, NULL};
    char *out = tmux(t, a);
    ck_assert_msg(out != NULL, "resize-window failed");
    free(out);
}

static void tmux_stop(Tmux *t);

/* q while a run is in progress asks; y quits with exit status 0; then stop. */
static void tmux_quit_confirmed(Tmux *t)
{
    tmux_keys(t, "q", true);
    tmux_expect(t, "Quit anyway?");
    tmux_keys(t, "y", true);
    tmux_expect(t, "EPDBG-EXIT=0");
    tmux_stop(t);
}

/* Remove a scratch file and its folder (test_tmpdir), freeing both names. */
static void remove_scratch(char *path, char *dir)
{
    remove(path);
    free(path);
    rmdir(dir);
    free(dir);
}

static void tmux_stop(Tmux *t)
{
    if (t->alive) {
        const char *a[] = {"kill-server", NULL};
        free(tmux(t, a));
    }
    remove(t->sock);
    char *rc = ep_xasprintf("%s/.epdbgrc", t->dir);
    remove(rc);
    free(rc);
    char *pid = ep_xasprintf("%s/pid", t->dir);
    remove(pid);
    free(pid);
    rmdir(t->dir);
    free(t->sock);
    free(t->dir);
}

#define SKIP_WITHOUT_TMUX()                                                                         \
    do {                                                                                            \
        if (!have_tmux()) {                                                                         \
            fprintf(stderr, "test_tui: tmux is not installed: the terminal tests are SKIPPED "      \
                            "(scripts/deps.sh installs it)\n");                                     \
            return;                                                                                 \
        }                                                                                           \
    } while (0)

/* ---- the tour -------------------------------------------------------------------------- */

/* What a newcomer does: open an example, step, set a breakpoint by key,
** continue to it, read the source and a value, search by regex, open the
** help, survive a tiny terminal, quit. */
START_TEST(test_tui_tour)
{
    SKIP_WITHOUT_TMUX();
    Tmux t;
    /* --no-blas: the slice printed below is compared digit for digit with
    ** PyTorch's, so it must not depend on the CPU's OpenBLAS kernels */
    tmux_start(&t, "examples/mlp.pt2 --source-dir examples/src --no-blas", 100, 30, NULL);
    char *s = tmux_wait(&t, "node 1/10");
    /* the panes, the first node under the cursor, the inputs bound */
    ck_assert_msg(strstr(s, "graph") && strstr(s, "source") && strstr(s, "inspector") && strstr(s, "console"),
                  "%s", s);
    ck_assert_msg(strstr(s, "linear") && strstr(s, "started"), "%s", s);
    free(s);

    tmux_keys(&t, "s", true);
    s = tmux_wait(&t, "node 2/10");
    ck_assert_msg(strstr(s, "(epdbg) step"), "%s", s);
    free(s);

    /* find gelu with a search, put a breakpoint on it, continue to it */
    tmux_keys(&t, "/", true);
    tmux_keys(&t, "gelu", true);
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "#5 'gelu'");
    tmux_keys(&t, "b", true);
    tmux_expect(&t, "Breakpoint 1 at #5 'gelu'");
    tmux_keys(&t, "c", true);
    s = tmux_wait(&t, "breakpoint 1");
    ck_assert_msg(strstr(s, "node 6/10"), "%s", s);
    /* the source pane shows the line from examples/src/mlp.py */
    ck_assert_msg(strstr(s, "nn.functional.gelu(self.fc2(h)"), "%s", s);
    free(s);

    /* run the node and print a slice: PyTorch's numbers */
    tmux_keys(&t, "s", true);
    tmux_expect(&t, "node 7/10");
    tmux_keys(&t, ":", true);
    tmux_keys(&t, "print gelu[0, :3]", true);
    tmux_keys(&t, "Enter", false);
    s = tmux_wait(&t, "tensor([");
    EpError err = {0};
    Tensor *gelu = npy_load_file("tests/refs/nodes_mlp/gelu.npy", &err);
    ck_assert_msg(gelu != NULL, "%s", err.msg);
    for (int i = 0; i < 3; i++) {
        char want[32];
        snprintf(want, sizeof want, "%.4f", tensor_get_f64(gelu, i));
        ck_assert_msg(strstr(s, want), "gelu[0, %d] = %s is not on the screen:\n%s", i, want, s);
    }
    tensor_unref(gelu);
    free(s);

    /* a regex search; ; and , for the next and previous match; / Enter
    ** repeats it too */
    tmux_keys(&t, "/", true);
    tmux_keys(&t, "linear_\\d", true);
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "#8 'linear_2'"); /* the first match after the selected node (#6) */
    tmux_keys(&t, "\\;", true); /* tmux reads a bare ; as its command separator */
    tmux_expect(&t, "#4 'linear_1'"); /* wrapped around */
    tmux_keys(&t, ",", true);
    tmux_expect(&t, "#8 'linear_2'");
    tmux_keys(&t, "/", true);
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "#4 'linear_1'");

    /* back in time, and the breakpoint list */
    tmux_keys(&t, "S", true);
    tmux_expect(&t, "(epdbg) reverse-step");
    tmux_expect(&t, "node 6/10");
    tmux_keys(&t, "B", true);
    tmux_expect(&t, "Num  Type");

    /* the help overlay */
    tmux_keys(&t, "?", true);
    s = tmux_wait(&t, "Keys");
    ck_assert_msg(strstr(s, "toggle a breakpoint on the selected node"), "%s", s);
    free(s);
    tmux_keys(&t, "Escape", false);

    /* zoom, a tiny terminal, and back */
    tmux_keys(&t, "z", true);
    tmux_expect(&t, "[zoomed]");
    tmux_keys(&t, "z", true);
    tmux_resize(&t, 40, 12);
    s = tmux_wait(&t, "node 6/10");
    ck_assert_msg(!strstr(s, "inspector"), "one pane at 40x12:\n%s", s);
    free(s);
    tmux_resize(&t, 100, 30);
    s = tmux_wait(&t, "inspector");
    ck_assert_msg(strstr(s, "graph") && strstr(s, "source"), "%s", s);
    free(s);

    /* q asks while a run is in progress; y quits; the exit status is 0 */
    tmux_quit_confirmed(&t);
}
END_TEST

/* Every default key does what the help says: r u U f Enter Tab : and a key
** rebound in ~/.epdbgrc. */
START_TEST(test_tui_keys)
{
    SKIP_WITHOUT_TMUX();
    Tmux t;
    tmux_start(&t, "examples/mlp.pt2 --no-color", 100, 30, "# test rc\nbind x step\nbind s\n");
    tmux_expect(&t, "node 1/10");
    tmux_keys(&t, "x", true); /* rebound: step */
    tmux_expect(&t, "node 2/10");
    tmux_keys(&t, "n", true); /* next over norm, drop and fc2's calls to gelu */
    tmux_expect(&t, "(epdbg) next");
    tmux_expect(&t, "node 6/10");
    tmux_keys(&t, "s", true); /* unbound by the rc */
    tmux_expect(&t, "s is not bound");
    tmux_keys(&t, "f", true); /* finish: to the end of module fc1's call */
    tmux_expect(&t, "(epdbg) finish");
    tmux_keys(&t, "c", true);
    tmux_expect(&t, "finished");
    tmux_keys(&t, "C", true);
    tmux_expect(&t, "back at the start");
    tmux_keys(&t, "r", true);
    tmux_expect(&t, "(epdbg) run");
    tmux_expect(&t, "finished");
    /* Enter focuses the inspector on the selected node's output */
    tmux_keys(&t, "Enter", false);
    tmux_keys(&t, "z", true);
    tmux_expect(&t, "inspector");
    tmux_expect(&t, "[zoomed]");
    tmux_keys(&t, "z", true);
    /* Tab cycles the focus: from the inspector to shapes */
    tmux_keys(&t, "Tab", false);
    tmux_keys(&t, "z", true);
    char *s = tmux_wait(&t, "[zoomed]");
    ck_assert_msg(strstr(s, "shapes"), "%s", s);
    free(s);
    tmux_keys(&t, "z", true);
    /* the prompt: completion and history */
    tmux_keys(&t, ":", true);
    tmux_keys(&t, "info sig", true);
    tmux_keys(&t, "Tab", false);
    tmux_expect(&t, "info signature");
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "user_input");
    tmux_keys(&t, ":", true);
    tmux_keys(&t, "Up", false);
    tmux_expect(&t, "(epdbg) info signature");
    tmux_keys(&t, "Escape", false);
    /* finished: q quits at once */
    tmux_keys(&t, "q", true);
    tmux_expect(&t, "EPDBG-EXIT=0");
    tmux_stop(&t);
}
END_TEST

/* A program whose inputs are not stored opens with a dialog naming them;
** rejected inputs open with the guard's message. */
START_TEST(test_tui_missing_inputs)
{
    SKIP_WITHOUT_TMUX();
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/chain.pt2", dir);
    PbRng r = {3};
    ProgBuilder *pb = bench_chain_model(12, &r);
    PbWriteOptions opt = {.era = PB_ERA_2_11, .no_example_inputs = true};
    EpError err = {0};
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    Tmux t;
    tmux_start(&t, path, 100, 30, NULL);
    char *s = tmux_wait(&t, "--input");
    ck_assert_msg(strstr(s, "x: float32[1]"), "the dialog names the input:\n%s", s);
    /* and says how to give it, as typed here: `:run ...`, not `run` */
    ck_assert_msg(strstr(s, "`:run --input x=FILE`") && strstr(s, "`:set"), "the dialog's instruction:\n%s", s);
    ck_assert_msg(!strstr(s, "--input FILE.npy"), "one instruction, not the command line's too:\n%s", s);
    free(s);
    tmux_keys(&t, "Enter", false);
    tmux_keys(&t, "q", true);
    tmux_expect(&t, "EPDBG-EXIT=0");
    tmux_stop(&t);

    /* inputs the guards reject: the session's failure is the exit status,
    ** 3, as in batch mode */
    tmux_start(&t, "build/fixtures/dynamic.pt2 --input tests/refs/mlp/in0.npy --input tests/refs/mlp/in0.npy", 100,
               30, NULL);
    tmux_expect(&t, "do not satisfy");
    tmux_keys(&t, "Escape", false);
    tmux_keys(&t, "q", true);
    tmux_expect(&t, "EPDBG-EXIT=3");
    tmux_stop(&t);
    remove_scratch(path, dir);
}
END_TEST

/* A chain of n matrix products of size x size float32 (mm0, mm1, ...; with
** quick_first, a quick relu comes first), slow on the reference loops
** (--no-blas): the model of the interrupt tests. */
static char *write_mm_chain(const char *dir, int n, int size, bool quick_first)
{
    char *path = ep_xasprintf("%s/slow.pt2", dir);
    PbRng r = {5};
    ProgBuilder *pb = pb_new("tests.Slow", false);
    int64_t sz[2] = {size, size};
    Tensor *w = pb_uniform(&r, DT_F32, 2, sz, -0.05, 0.05);
    pb_param(pb, "w", w);
    tensor_unref(w);
    Tensor *x = pb_uniform(&r, DT_F32, 2, sz, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    char prev[32] = "x", name[32];
    if (quick_first) {
        pb_node(pb, "aten.relu.default", "relu", "self=%x", "relu");
        snprintf(prev, sizeof prev, "relu");
    }
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "mm%d", i);
        pb_node(pb, "aten.mm.default", name, pb_fmt("self=%%%s mat2=%%p_w", prev), name);
        snprintf(prev, sizeof prev, "%s", name);
    }
    pb_output(pb, prev);
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    EpError err = {0};
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    return path;
}

/* A node whose innermost frame is torch's nn.Conv2d: the status line and
** the source pane go to the user's line; torch's frames stay listed,
** tagged. */
START_TEST(test_tui_user_frame)
{
    SKIP_WITHOUT_TMUX();
    Tmux t;
    tmux_start(&t, "build/fixtures/torch_frames.pt2", 120, 40, NULL);
    char *s = tmux_wait(&t, "node 1/2 at torch_frames.py:13");
    ck_assert_msg(!strstr(s, "conv.py:549 |"), "%s", s);
    ck_assert_msg(strstr(s, "#2 forward at torch_frames.py:13"), "the user's frame is listed:\n%s", s);
    ck_assert_msg(strstr(s, "#1 forward at conv.py:554  [torch]"), "torch's frame is tagged:\n%s", s);
    ck_assert_msg(strstr(s, "> 13          y = self.conv(x)"), "the file is shown at the line:\n%s", s);
    ck_assert_msg(!strstr(s, "not readable"), "%s", s);
    free(s);
    tmux_keys(&t, "s", true);
    tmux_expect(&t, "node 2/2 at torch_frames.py:14");
    tmux_quit_confirmed(&t);
}
END_TEST

/* Write the replay file of a failing `epdbg run MODEL EXTRA...` (paths
** relative to the project) into dir; its path (new string). */
static char *failed_run_replay(const char *dir, const char *model, const char *const *extra)
{
    char *model_abs = realpath(model, NULL);
    ck_assert_msg(model_abs != NULL, "%s missing", model);
    const char *args[8] = {"run", model_abs};
    int n = 2;
    char *abs[4] = {0};
    for (int i = 0; extra[i] && i < 4; i++)
        args[n++] = abs[i] = extra[i][0] == '-' ? ep_xstrdup(extra[i]) : realpath(extra[i], NULL);
    args[n] = NULL;
    RunResult r = test_run_binary(args, dir, NULL);
    ck_assert_msg(r.code != 0 && strstr(r.err, "replay with:"), "the run did not fail:\n%s", r.err);
    run_result_free(&r);
    for (int i = 0; i < 4; i++)
        free(abs[i]);
    free(model_abs);
    const char *base = strrchr(model, '/') + 1;
    return ep_xasprintf("%s/%.*s-replay.npz", dir, (int)(strlen(base) - 4), base);
}

/* `epdbg replay` on a terminal opens the debugger at the recorded failure:
** a NaN (catch nan re-armed, the NaN maker selected) and inputs the guards
** reject (the rejection shown, nothing run). */
START_TEST(test_tui_replay)
{
    SKIP_WITHOUT_TMUX();
    char *dir = test_tmpdir();
    char *nan = failed_run_replay(dir, "build/fixtures/nan_log.pt2", (const char *[]){"--stop-on-nan", NULL});
    Tmux t;
    char *args = ep_xasprintf("replay %s build/fixtures/nan_log.pt2", nan);
    tmux_start(&t, args, 120, 40, NULL);
    free(args);
    char *s = tmux_wait(&t, "Reproduced: the same failure as recorded.");
    ck_assert_msg(strstr(s, "(recorded: nan at node log)"), "%s", s);
    ck_assert_msg(strstr(s, "out0 (log) has 2 NaN and 0 Inf of 4 values"), "%s", s);
    free(s);
    tmux_keys(&t, "Escape", false);
    s = tmux_wait(&t, "node 3/4 at numerics.py:20 | NaN/Inf caught | 1 breakpoint");
    ck_assert_msg(strstr(s, ">*!#2 log"), "the NaN maker is the current node:\n%s", s);
    ck_assert_msg(strstr(s, "out0 (log) has 2 NaN"), "the status line says why:\n%s", s);
    free(s);
    /* the catch is armed: running again stops at the same node */
    tmux_keys(&t, "r", true);
    tmux_expect(&t, "Caught a non-finite value (breakpoint 1) after #2 'log'");
    tmux_quit_confirmed(&t);

    char *guard = failed_run_replay(dir, "build/fixtures/dynamic.pt2",
                                    (const char *[]){"--input", "tests/refs/mlp/in0.npy", "--input",
                                                     "tests/refs/mlp/in0.npy", NULL});
    args = ep_xasprintf("replay %s build/fixtures/dynamic.pt2", guard);
    tmux_start(&t, args, 120, 40, NULL);
    free(args);
    s = tmux_wait(&t, "Reproduced: the same failure as recorded.");
    ck_assert_msg(strstr(s, "(recorded: input)"), "%s", s);
    ck_assert_msg(strstr(s, "do not satisfy"), "%s", s);
    free(s);
    tmux_keys(&t, "Escape", false);
    tmux_expect(&t, "| failed |");
    tmux_keys(&t, "q", true);
    tmux_expect(&t, "EPDBG-EXIT=3");
    tmux_stop(&t);
    remove(nan);
    remove(guard);
    free(nan);
    free(guard);
    rmdir(dir);
    free(dir);
}
END_TEST

/* Ctrl-C during a long run stops it at the next node, shows where, and
** leaves the debugger running.  The model: 400 matrix products of 384x384
** float32 on the reference loops (--no-blas), a few seconds at least. */
START_TEST(test_tui_interrupt)
{
    SKIP_WITHOUT_TMUX();
    char *dir = test_tmpdir();
    char *path = write_mm_chain(dir, 400, 384, false);
    char *args = ep_xasprintf("%s --no-blas", path);
    Tmux t;
    tmux_start(&t, args, 100, 30, NULL);
    tmux_expect(&t, "node 1/400");
    tmux_keys(&t, "c", true);
    tmux_expect(&t, "Ctrl-C stops");
    tmux_keys(&t, "C-c", false);
    char *s = tmux_wait(&t, "| interrupted |");
    ck_assert_msg(strstr(s, "Interrupted at #"), "%s", s);
    ck_assert_msg(!strstr(s, "finished"), "%s", s);
    free(s);
    /* still alive: a step works, then quitting asks (the run is in progress) */
    tmux_keys(&t, "s", true);
    tmux_expect(&t, "(epdbg) step");
    tmux_quit_confirmed(&t);
    free(args);
    remove_scratch(path, dir);
}
END_TEST

/* A long node: the status line names the node being executed, not the
** last one the progress callback saw.  A quick relu, then matrix products
** of 1280x1280 on the reference loops: the session's callback runs before
** the relu and, less than 50 ms later, not before mm0.  Each product takes
** several of the ticker's 200 ms periods even on a fast CPU (about 1 s
** here), so the ticker sees mm0 running whatever the machine. */
START_TEST(test_tui_long_node_status)
{
    SKIP_WITHOUT_TMUX();
    char *dir = test_tmpdir();
    char *path = write_mm_chain(dir, 3, 1280, true);
    char *args = ep_xasprintf("%s --no-blas", path);
    Tmux t;
    tmux_start(&t, args, 120, 30, NULL);
    tmux_expect(&t, "node 1/4");
    tmux_keys(&t, "c", true);
    tmux_expect(&t, "running: node 2 of 4, 'mm0'");
    tmux_keys(&t, "C-c", false);
    char *s = tmux_wait(&t, "| interrupted |");
    ck_assert_msg(strstr(s, "Interrupted at #"), "%s", s);
    free(s);
    tmux_quit_confirmed(&t);
    free(args);
    remove_scratch(path, dir);
}
END_TEST

/* What the shell's terminal is left in, printed after epdbg ends. */
#define TTY_MODES "stty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' ' | sed 's/^/TTY: /'; echo;"

/* Ctrl-\ (SIGQUIT) and SIGTERM give the terminal back (cooked mode, the
** main screen) and end with 128+N, as shells expect. */
START_TEST(test_tui_fatal_signals)
{
    SKIP_WITHOUT_TMUX();
    Tmux t;
    tmux_start_then(&t, "examples/mlp.pt2", 100, 30, NULL, TTY_MODES);
    tmux_expect(&t, "node 1/10");
    tmux_keys(&t, "C-\\", false);
    char *s = tmux_wait(&t, "EPDBG-EXIT=131");
    free(s);
    s = tmux_wait(&t, "TTY: ");
    ck_assert_msg(strstr(s, "TTY: icanon echo"), "the terminal is not cooked after SIGQUIT:\n%s", s);
    ck_assert_msg(!strstr(s, "inspector"), "the last frame stayed on the screen:\n%s", s);
    free(s);
    tmux_stop(&t);

    tmux_start_then(&t, "examples/mlp.pt2", 100, 30, NULL, TTY_MODES);
    tmux_expect(&t, "node 1/10");
    char *pidfile = ep_xasprintf("%s/pid", t.dir);
    FILE *f = fopen(pidfile, "r");
    ck_assert_msg(f != NULL, "no %s", pidfile);
    int pid = 0;
    ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
    fclose(f);
    free(pidfile);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    free(tmux_wait(&t, "EPDBG-EXIT=143"));
    s = tmux_wait(&t, "TTY: ");
    ck_assert_msg(strstr(s, "TTY: icanon echo"), "the terminal is not cooked after SIGTERM:\n%s", s);
    ck_assert_msg(!strstr(s, "inspector"), "the last frame stayed on the screen:\n%s", s);
    free(s);
    tmux_stop(&t);
}
END_TEST

/* The keys gdb users expect: F11 step, F10 next, Shift-F11 finish, n is
** next even right after a search, u runs to the selected node (until),
** F9 toggles a breakpoint there, F5 continues; ? lists the differences
** from gdb. */
START_TEST(test_tui_gdb_keys)
{
    SKIP_WITHOUT_TMUX();
    Tmux t;
    tmux_start(&t, "examples/mlp.pt2 --no-color", 120, 30, NULL);
    tmux_expect(&t, "node 1/10");
    tmux_keys(&t, "F11", false);
    tmux_expect(&t, "(epdbg) step");
    tmux_expect(&t, "node 2/10");
    tmux_keys(&t, "F10", false);
    tmux_expect(&t, "(epdbg) next");
    tmux_expect(&t, "node 6/10");
    tmux_keys(&t, "S-F11", false);
    tmux_expect(&t, "(epdbg) finish");
    /* after a search, n is still next */
    tmux_keys(&t, "C", true);
    tmux_expect(&t, "back at the start");
    tmux_keys(&t, "/", true);
    tmux_keys(&t, "layer_norm", true);
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "#2 'layer_norm'");
    tmux_keys(&t, "n", true);
    tmux_expect(&t, "(epdbg) next");
    tmux_expect(&t, "node 2/10");
    /* run to the cursor */
    tmux_keys(&t, "/", true);
    tmux_keys(&t, "linear_2", true);
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "#8 'linear_2'");
    tmux_keys(&t, "u", true);
    tmux_expect(&t, "(epdbg) until #8");
    tmux_expect(&t, "node 9/10");
    /* F9 on the selected node, then run and F5 */
    tmux_keys(&t, "/", true);
    tmux_keys(&t, "gelu", true);
    tmux_keys(&t, "Enter", false);
    tmux_expect(&t, "#5 'gelu'");
    tmux_keys(&t, "F9", false);
    tmux_expect(&t, "Breakpoint 1 at #5 'gelu'");
    tmux_keys(&t, "r", true);
    tmux_expect(&t, "breakpoint 1");
    tmux_expect(&t, "node 6/10");
    tmux_keys(&t, "F5", false);
    tmux_expect(&t, "finished");
    /* the help: the F-keys and the differences from gdb */
    tmux_keys(&t, "?", true);
    char *s = tmux_wait(&t, "Keys");
    ck_assert_msg(strstr(s, "S-F11") && strstr(s, "until the selected node"), "%s", s);
    free(s);
    for (int i = 0; i < 5; i++)
        tmux_keys(&t, "PgDn", false);
    s = tmux_wait(&t, "Differences from gdb");
    ck_assert_msg(strstr(s, "at the prompt f is frame"), "%s", s);
    free(s);
    tmux_keys(&t, "Escape", false);
    tmux_keys(&t, "q", true);
    tmux_expect(&t, "EPDBG-EXIT=0");
    tmux_stop(&t);
}
END_TEST

/* --batch: Ctrl-C while `continue` runs stops it at the next node and the
** script goes on (the next command's output appears); the interruption is
** not a failure, so the exit status is 0. */
START_TEST(test_batch_interrupt)
{
    char *dir = test_tmpdir();
    char *path = write_mm_chain(dir, 400, 384, false);
    const char *bin = getenv("EPDBG_BIN") ? getenv("EPDBG_BIN") : "./epdbg";
    int in[2], out[2];
    ck_assert(pipe(in) == 0 && pipe(out) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(bin, bin, path, "--no-blas", "--batch", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    const char script[] = "continue\nwhere\n";
    ck_assert(write(in[1], script, sizeof script - 1) == (ssize_t)(sizeof script - 1));
    close(in[1]);
    StrBuf sb;
    sb_init(&sb);
    bool echoed = false, stopped = false, sent = false;
    for (;;) {
        /* once `continue` is running, Ctrl-C it (again each second, in
        ** case the first came before the run started) */
        struct pollfd pfd = {out[0], POLLIN, 0};
        int ready = poll(&pfd, 1, 1000);
        if (ready > 0) {
            char buf[4096];
            ssize_t got = read(out[0], buf, sizeof buf);
            if (got <= 0)
                break;
            sb_appendn(&sb, buf, (size_t)got);
        }
        echoed = echoed || (sb.data && strstr(sb.data, "(epdbg) continue\n"));
        stopped = stopped || (sb.data && strstr(sb.data, "Interrupted"));
        if (echoed && !stopped && (!sent || ready == 0)) {
            kill(pid, SIGINT);
            sent = true;
        }
    }
    close(out[0]);
    int status;
    waitpid(pid, &status, 0);
    char *text = sb_take(&sb);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d:\n%s", status, text);
    ck_assert_msg(strstr(text, "Interrupted at #"), "%s", text);
    ck_assert_msg(strstr(text, "(epdbg) where\nAt #"), "the next command did not run:\n%s", text);
    ck_assert_msg(!strstr(text, "finished"), "%s", text);
    free(text);
    remove_scratch(path, dir);
}
END_TEST

/* Not a terminal: a one-line hint and exit 1. */
START_TEST(test_tui_not_a_terminal)
{
    const char *args[] = {"examples/mlp.pt2", NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "not a terminal") && strstr(r.err, "--batch"), "%s", r.err);
    ck_assert_int_eq((int)(strchr(r.err, '\n') - r.err + 1), (int)strlen(r.err)); /* one line */
    run_result_free(&r);
}
END_TEST

/* ---- headless ---------------------------------------------------------------------------- */

static Tui *open_tui(const char *path, Session **s)
{
    DebugArgs a = {0};
    a.path = path;
    char *note = NULL;
    ck_assert(debug_session_open(&a, true, s, &note) == EP_OK);
    free(note);
    static const char *const dirs[] = {"examples/src"};
    return tui_new(*s, path, dirs, 1, false);
}

static char *render(Tui *t, int rows, int cols)
{
    Grid g = {0};
    grid_resize(&g, rows, cols);
    tui_render(t, &g);
    char *text = grid_text(&g);
    grid_free(&g);
    return text;
}

/* The layout at 80x24 shows every pane; smaller, the focused one alone;
** no size crashes. */
START_TEST(test_layout_sizes)
{
    Session *s;
    Tui *t = open_tui("examples/cnn.pt2", &s);
    char *text = render(t, 24, 80);
    const char *panes[] = {"graph", "source", "inspector", "shapes", "profile", "console"};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(strstr(text, panes[i]), "no %s pane at 80x24:\n%s", panes[i], text);
    ck_assert_msg(strstr(text, "cnn.pt2 | node 1/"), "%s", text);
    free(text);
    text = render(t, 12, 40);
    ck_assert_msg(strstr(text, "graph") && !strstr(text, "inspector"), "%s", text);
    free(text);
    for (int rows = 0; rows < 30; rows += 3)
        for (int cols = 0; cols < 120; cols += 7)
            free(render(t, rows, cols));
    tui_key(t, '?');
    for (int rows = 0; rows < 30; rows += 5)
        free(render(t, rows, 30));
    tui_key(t, TK_ESC);
    tui_free(t);
    session_free(s);
}
END_TEST

/* Whether the screen text holds needle, with the line breaks taken out
** (a wrapped line continues on the next row). */
static bool screen_has_joined(const char *screen, const char *needle)
{
    char *joined = ep_xstrdup(screen);
    char *w = joined;
    for (const char *r = screen; *r; r++)
        if (*r != '\n')
            *w++ = *r;
    *w = '\0';
    bool found = strstr(joined, needle) != NULL;
    free(joined);
    return found;
}

/* Long console lines wrap instead of losing their end, at every size; on a
** terminal too small for the console, a typed command's output takes the
** screen until Esc. */
START_TEST(test_console_wrap)
{
    char name[200];
    memset(name, 'q', sizeof name);
    snprintf(name + 150, sizeof name - 150, "ENDMARK");
    char *line = ep_xasprintf("break %s", name);
    static const int SIZES[][2] = {{24, 80}, {30, 100}, {40, 60}, {12, 40}, {8, 30}};
    for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; k++) {
        int rows = SIZES[k][0], cols = SIZES[k][1];
        Session *s;
        Tui *t = open_tui("examples/mlp.pt2", &s);
        free(render(t, rows, cols)); /* the layout the command runs in */
        ck_assert_int_ne(tui_command(t, line), EP_OK);
        char *text = render(t, rows, cols);
        /* the error's last words, past column 150 */
        ck_assert_msg(screen_has_joined(text, "ENDMARK' (`info graph` lists them)"),
                      "the end of the error is cut off at %dx%d:\n%s", cols, rows, text);
        bool small = rows < 24 || cols < 80;
        ck_assert_int_eq(t->focus, small ? PANE_CONSOLE : PANE_GRAPH);
        free(text);
        if (small) {
            /* Esc gives the screen back to the graph */
            tui_key(t, TK_ESC);
            ck_assert_int_eq(t->focus, PANE_GRAPH);
            text = render(t, rows, cols);
            ck_assert_msg(!strstr(text, "ENDMARK"), "%dx%d:\n%s", cols, rows, text);
            free(text);
        }
        tui_free(t);
        session_free(s);
    }
    free(line);

    /* scrolling counts screen rows: Home reaches the first line, End the last */
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", &s);
    tui_command(t, "help");
    tui_command(t, line = ep_xasprintf("break %s", name));
    free(line);
    free(render(t, 30, 100));
    t->focus = PANE_CONSOLE;
    tui_key(t, TK_HOME);
    char *text = render(t, 30, 100);
    ck_assert_msg(strstr(text, "(epdbg) help"), "%s", text);
    ck_assert_msg(!strstr(text, "ENDMARK"), "%s", text);
    free(text);
    tui_key(t, TK_END);
    text = render(t, 30, 100);
    ck_assert_msg(strstr(text, "ENDMARK"), "%s", text);
    free(text);
    tui_free(t);
    session_free(s);
}
END_TEST

/* Keys through the bindings move the session; a click focuses a pane. */
START_TEST(test_keys_headless)
{
    Session *s;
    Tui *t = open_tui("examples/mlp.pt2", &s);
    free(render(t, 30, 100));
    tui_key(t, 's');
    tui_key(t, 's');
    ck_assert_int_eq(interp_pc(session_interp(s)), 2);
    ck_assert_int_eq(t->selected, 2);
    tui_key(t, 'S');
    ck_assert_int_eq(interp_pc(session_interp(s)), 1);
    tui_key(t, ':');
    const char *line = "goto linear_2";
    for (const char *p = line; *p; p++)
        tui_key(t, *p);
    tui_key(t, TK_ENTER);
    ck_assert_int_eq(interp_pc(session_interp(s)), 8);
    ck_assert_int_eq(t->selected, 8);
    /* an unknown command lands in the console as an error */
    ck_assert_int_ne(tui_command(t, "frobnicate"), EP_OK);
    ck_assert_str_eq(t->log.lines[t->log.n - 1], "error: unknown command 'frobnicate' (try `help`)");
    /* a click in the console pane's rectangle focuses it */
    free(render(t, 30, 100));
    const PaneRect *r = &t->rects[PANE_CONSOLE];
    tui_click(t, r->top + 2, r->left + 3);
    ck_assert_int_eq(t->focus, PANE_CONSOLE);
    tui_free(t);
    session_free(s);
}
END_TEST

/* ~/.epdbgrc: bindings and a clear error naming the line. */
START_TEST(test_rc_file)
{
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/rc", dir);
    FILE *f = fopen(path, "w");
    fputs("# keys\nbind F5 continue\nbind C-n next 3\nbind q\n\nbind Meta-x step\n", f);
    fclose(f);
    Keymap km;
    keymap_defaults(&km);
    EpError err = {0};
    ck_assert_int_eq(keymap_load_rc(&km, path, &err), EP_ERR_USAGE);
    ck_assert_msg(strstr(err.msg, ":6: unknown key 'Meta-x'"), "%s", err.msg);
    ck_assert_str_eq(keymap_lookup(&km, TK_F5), "continue");
    ck_assert_str_eq(keymap_lookup(&km, TK_CTRL('n')), "next 3");
    ck_assert_ptr_null(keymap_lookup(&km, 'q'));
    ck_assert_str_eq(keymap_lookup(&km, 's'), "step");
    keymap_free(&km);
    remove_scratch(path, dir);
}
END_TEST

/* Random keys at random sizes, on the examples and every corpus archive:
** whatever a user presses, in any order, at any terminal size, nothing
** crashes, leaks or reads out of bounds (the ASan run checks). */
START_TEST(test_random_keys)
{
    static const int KEYS[] = {'s', 'n', 'c', 'r', 'b', 'B', 'u', 'S', 'C', 'f', TK_ENTER, '/', ';', ',', TK_F5, TK_F9, TK_F10, TK_F11, TK_S_F11, ':', TK_TAB,
                               TK_BTAB, 'z', '?', TK_ESC, TK_UP, TK_DOWN, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
                               TK_LEFT, TK_RIGHT, '[', ']', '<', '>', '-', '+', ' ', TK_BACKSPACE, 'x', '.',
                               '1', TK_RESIZE, TK_WHEEL_UP, TK_WHEEL_DOWN, TK_MOUSE, TK_CTRL('c'), 'q'};
    const int NKEYS = (int)(sizeof KEYS / sizeof KEYS[0]);
    const char *models[64] = {"examples/mlp.pt2", "examples/cnn.pt2", "examples/cnn_legacy.pt2",
                              "build/fixtures/nan_log.pt2", "build/fixtures/dynamic.pt2"};
    int nmodels = 5;
    char *owned[64];
    int nowned = 0;
    const char *corpus = test_corpus_dir();
    if (corpus) {
        const char *names[] = {"hades-pid__exported_program.pt2", "velox__dynamic_shape_test.pt2",
                               "velox__in_place_test.pt2", "velox__index_put_fork_test.pt2",
                               "velox__view_interleave_test.pt2", "braggnn__int8_16_8_4_2-sz11.pth"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            models[nmodels++] = owned[nowned++] = ep_xasprintf("%s/%s", corpus, names[i]);
    }
    unsigned seed = 12345;
    for (int m = 0; m < nmodels; m++) {
        Session *s;
        Tui *t = open_tui(models[m], &s);
        Grid g = {0};
        for (int k = 0; k < 300 && !t->quit; k++) {
            seed = seed * 1103515245u + 12345u;
            int key = KEYS[(seed >> 16) % (unsigned)NKEYS];
            if (key == 'q' && k < 290)
                key = 'z';
            if (key == TK_MOUSE) {
                t->mouse_row = (int)((seed >> 8) % 40);
                t->mouse_col = (int)((seed >> 4) % 120);
            }
            tui_key(t, key);
            if (k % 3 == 0) {
                seed = seed * 1103515245u + 12345u;
                int rows = (int)((seed >> 16) % 50), cols = (int)((seed >> 8) % 140);
                grid_resize(&g, rows, cols);
                tui_render(t, &g);
            }
        }
        grid_free(&g);
        tui_free(t);
        session_free(s);
    }
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
}
END_TEST

Suite *suite_tui(void)
{
    Suite *s = suite_create("tui");
    TCase *tc = tcase_create("tui");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_layout_sizes);
    tcase_add_test(tc, test_keys_headless);
    tcase_add_test(tc, test_rc_file);
    tcase_add_test(tc, test_random_keys);
    tcase_add_test(tc, test_tui_not_a_terminal);
    tcase_add_test(tc, test_tui_tour);
    tcase_add_test(tc, test_tui_keys);
    tcase_add_test(tc, test_tui_missing_inputs);
    tcase_add_test(tc, test_tui_user_frame);
    tcase_add_test(tc, test_tui_replay);
    tcase_add_test(tc, test_tui_interrupt);
    tcase_add_test(tc, test_tui_long_node_status);
    tcase_add_test(tc, test_tui_fatal_signals);
    tcase_add_test(tc, test_tui_gdb_keys);
    tcase_add_test(tc, test_batch_interrupt);
    tcase_add_test(tc, test_console_wrap);
    suite_add_tcase(s, tc);
    return s;
}
