/*
** test_suggest_debug.c -- `suggest` in the debugger (debugger/cmd_graph.c)
** and the guard tree and suggested fix of the TUI's shapes pane
** (tui/pane_shapes.c), on the generator's fixtures.  The expected text is
** tests/src/dyn_fixtures.md's, worked out by hand from the models:
**   dyn_broadcast: x (4, 3) + y (4, 1): broadcasting ties y.shape[0] to
**     x.shape[0], so both get the one Dim;
**   dyn_derived: x [s0] + y[1:], y [s0 + 1], s0 in [2, 64]: y of 7 with x
**     of 5 is refused, since y must be 5 + 1 = 6;
**   dyn_pad32: x [1, 1, s0, 4], s0 in [224, 1024], and the in-graph assert
**     Ne(Mod(s0, 32), 0) from `if pad_H > 0:` (dyn_pad32.py:14): a height
**     of 256 (a multiple of 32) is refused, 230 (the example) passes.
** Batch mode runs the binary as users do; the session and the pane run in
** process.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugger/cmd.h"
#include "debugger/inputs.h"
#include "interp/npy.h"
#include "paneshot.h"
#include "testutil.h"
#include "tui/tui.h"

#define FIX "build/fixtures/"

#define ASSERT_HAS(out, text) ck_assert_msg(strstr((out), (text)) != NULL, "expected\n%s\nin\n%.3000s", (text), (out))

/* dir/name.npy: float32 of the given sizes, all ones (new path). */
static char *write_ones(const char *dir, const char *name, int ndim, const int64_t *sizes)
{
    EpError err = {0};
    Tensor *t = tensor_empty(DT_F32, ndim, sizes, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    for (int64_t k = 0; k < tensor_numel(t); k++)
        ((float *)tensor_data(t))[k] = 1;
    char *path = ep_xasprintf("%s/%s.npy", dir, name);
    ck_assert_msg(npy_save_file(path, t, &err) == EP_OK, "%s", err.msg);
    tensor_unref(t);
    return path;
}

/* The refused inputs of dyn_derived: x of 5, y of 7, in a new folder. */
typedef struct Files {
    char *dir;
    char *path[2];
    int n;
} Files;

static Files derived_refused(void)
{
    Files f = {.dir = test_tmpdir(), .n = 2};
    f.path[0] = write_ones(f.dir, "x", 1, (int64_t[]){5});
    f.path[1] = write_ones(f.dir, "y", 1, (int64_t[]){7});
    return f;
}

static void files_free(Files *f)
{
    for (int i = 0; i < f->n; i++) {
        unlink(f->path[i]);
        free(f->path[i]);
    }
    rmdir(f->dir);
    free(f->dir);
}

/* ---- batch mode ----------------------------------------------------------------- */

START_TEST(test_batch_broadcast)
{
    const char *argv[] = {FIX "dyn_broadcast_static.pt2", "-ex", "suggest --dynamic x:0=batch", "--batch", NULL};
    RunResult r = test_run_binary(argv, NULL, NULL);
    ck_assert_msg(r.code == 0, "exit %d\n%s%s", r.code, r.out, r.err);
    /* the whole line, as pasted into the export call */
    ASSERT_HAS(r.out, "(epdbg) suggest --dynamic x:0=batch\n");
    ASSERT_HAS(r.out, "\ndynamic_shapes = {\"x\": {0: batch}, \"y\": {0: batch}}\n");
    run_result_free(&r);
}
END_TEST

/* A session opened on refused inputs keeps them, and `suggest` explains
** them; a request for an input that does not exist is one error line, and
** the script goes on. */
START_TEST(test_batch_refused_inputs)
{
    Files f = derived_refused();
    char *x = ep_xasprintf("x=%s", f.path[0]), *y = ep_xasprintf("y=%s", f.path[1]);
    const char *argv[] = {FIX "dyn_derived_dynamic.pt2", "--input", x, "--input", y, "-ex", "suggest",
                          "-ex", "suggest --dynamic z:0", "-ex", "echo still here", "--batch", NULL};
    RunResult r = test_run_binary(argv, NULL, NULL);
    /* the session stands on the refusal from the start: exit 3 */
    ck_assert_msg(r.code == 3, "exit %d\n%s%s", r.code, r.out, r.err);
    ASSERT_HAS(r.out, "The inputs do not satisfy the program: input y.shape[0] is 7");
    const char *sug = strstr(r.out, "(epdbg) suggest\n");
    ck_assert_msg(sug != NULL, "no suggest in\n%s", r.out);
    ASSERT_HAS(sug, "y.shape[0] is 7, but with x.shape[0] = 5 it must be 6");
    ASSERT_HAS(sug, "(epdbg) suggest --dynamic z:0\n"
                    "error: --dynamic z:0: no input 'z'; the inputs are x, y\n"
                    "(epdbg) echo still here\n"
                    "still here\n");
    run_result_free(&r);
    free(x);
    free(y);
    files_free(&f);
}
END_TEST

/* ---- in process: the command's errors --------------------------------------------- */

static void to_buf(void *ctx, const char *text, size_t len)
{
    sb_appendn(ctx, text, len);
}

START_TEST(test_command_errors)
{
    Session *s = test_session_open(FIX "dyn_broadcast_static.pt2", NULL, true);
    StrBuf sb;
    sb_init(&sb);
    Out out = {to_buf, &sb};
    CmdCtx c = {.s = s, .out = &out, .frame = -1, .list_node = -1};
    static const struct {
        const char *line, *msg;
    } BAD[] = {
        {"suggest --dynamic z:0", "--dynamic z:0: no input 'z'; the inputs are x, y"},
        {"suggest --dynamic x:2", "--dynamic x:2: x has 2 dimensions, so dim 2 does not exist"},
        {"suggest --dynamic", "--dynamic needs NAME:DIM[=DIMNAME] (x:0=batch)"},
        {"suggest --dynamic x:0 --dynamic x:-2", "--dynamic x:-2: the same dimension as --dynamic x:0"},
        {"suggest --fast", "suggest: unknown argument '--fast'"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(BAD); i++) {
        EpError err = {0};
        ck_assert_int_eq(cmd_execute(&c, BAD[i].line, &err), EP_ERR_USAGE);
        ck_assert_msg(strncmp(err.msg, BAD[i].msg, strlen(BAD[i].msg)) == 0, "%s: %s", BAD[i].line, err.msg);
    }
    ck_assert_msg(sb.len == 0, "an error printed %s", sb.data);
    /* the session goes on: the same request, spelt right */
    EpError err = {0};
    ck_assert_msg(cmd_execute(&c, "suggest --dynamic=x:0=batch --no-run", &err) == EP_OK, "%s", err.msg);
    ASSERT_HAS(sb.data, "\ndynamic_shapes = {\"x\": {0: batch}, \"y\": {0: batch}}\n");
    sb_free(&sb);
    session_free(s);
}
END_TEST

/* ---- the TUI ------------------------------------------------------------------------------- */

/* A session on path with the inputs in files (the archive's examples when
** n is 0), started: the guards may refuse them. */
static Session *open_with(const char *path, const char *const *files, int n)
{
    SessionOptions so = {.model_path = path, .kernels = {.use_blas = true}};
    EpError err = {0};
    Session *s = session_open(&so, &err);
    ck_assert_msg(s != NULL, "%s: %s", path, err.msg);
    InputArgs ia = {0};
    for (int i = 0; i < n; i++)
        input_args_add(&ia, files[i]);
    Value *vals;
    int nv;
    ck_assert_msg(inputs_load(session_interp(s), &ia, NULL, &vals, &nv, &err) == EP_OK, "%s", err.msg);
    input_args_free(&ia);
    session_set_inputs(s, vals, nv);
    for (int i = 0; i < nv; i++)
        value_clear(&vals[i]);
    free(vals);
    session_restart(s, &err);
    return s;
}

static void close_tui(Tui *t)
{
    Session *s = t->s;
    tui_free(t);
    session_free(s);
}

/* The line of text holding needle (new string), failing the test if none. */
static char *line_with(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    ck_assert_msg(p != NULL, "expected\n%s\nin\n%.3000s", needle, text);
    const char *b = p;
    while (b > text && b[-1] != '\n')
        b--;
    return ep_xstrndup(b, strcspn(b, "\n"));
}

/* The shapes pane of dyn_pad32 on its example (a height of 230): the
** input's guard, the assert with its chain and source lines, no fix. */
START_TEST(test_pane_guard_tree)
{
    Tui *t = tui_new(open_with(FIX "dyn_pad32_dynamic.pt2", NULL, 0), FIX "dyn_pad32_dynamic.pt2", NULL, 0, false);
    Shot sh = shot(t, PANE_SHAPES, 60, 200);
    ASSERT_HAS(sh.text, "\nguards\n");
    ASSERT_HAS(sh.text, "\n  x.shape[2] = s0  in [224, 1024]\n");
    ASSERT_HAS(sh.text, "s0 = 230: x.shape[2], a Dim of the export's dynamic_shapes, in [224, 1024]\n");
    ASSERT_HAS(sh.text, "\nasserts\n");
    /* the assert, valued: 230 = 7 * 32 + 6 */
    ASSERT_HAS(sh.text, "\n  Ne(Mod(s0, 32), 0) with s0 = 230: Mod(230, 32) = 6\n");
    char *l = line_with(sh.text, "checked by node '_assert_scalar_default'");
    ASSERT_HAS(l, "at dyn_pad32.py:14 in forward: if pad_H > 0:");
    free(l);
    /* the chain: ne <- mod <- sym_size_int, the root on line 12 */
    l = line_with(sh.text, "Mod(s0, 32): node 'mod' (_operator.mod)");
    ASSERT_HAS(l, "at dyn_pad32.py:14");
    free(l);
    l = line_with(sh.text, "x.shape[2] = s0: node 'sym_size_int' (aten.sym_size.int)");
    ASSERT_HAS(l, "at dyn_pad32.py:12 in forward: H = x.shape[2]");
    free(l);
    ck_assert_msg(!strstr(sh.text, "suggested fix"), "a fix without a refusal:\n%s", sh.text);
    shot_free(&sh);
    close_tui(t);
}
END_TEST

/* A refusal at `run` in the TUI: the status line points at the pane,
** which offers the fix (the solver's Python) and scrolls to it; the
** console's `suggest` gives the same Python with its reasons. */
START_TEST(test_pane_suggested_fix)
{
    Tui *t = tui_new(open_with(FIX "dyn_pad32_dynamic.pt2", NULL, 0), FIX "dyn_pad32_dynamic.pt2", NULL, 0, false);
    char *dir = test_tmpdir();
    char *file = write_ones(dir, "x", 4, (int64_t[]){1, 1, 256, 4});
    char *line = ep_xasprintf("run --input x=%s", file);
    tui_command(t, line);
    ck_assert(session_inputs_rejected(t->s));
    /* the console says where the fix is, below the refusal */
    ck_assert(t->log.n >= 2);
    ASSERT_HAS(t->log.lines[t->log.n - 2], "error: input x.shape[2] is 256");
    ck_assert_str_eq(t->log.lines[t->log.n - 1], TUI_GUARD_HINT);
    /* back from the console, the status line points at the pane */
    tui_key(t, TK_ESC);
    Grid g = {0};
    grid_resize(&g, 40, 300);
    tui_render(t, &g);
    char *screen = grid_text(&g);
    char *status = line_with(screen, "inputs refused");
    ASSERT_HAS(status, "| failed |");
    ASSERT_HAS(status, "inputs refused (shapes pane, :suggest): input x.shape[2] is 256");
    free(status);
    free(screen);
    grid_free(&g);

    Shot sh = shot(t, PANE_SHAPES, 12, 200);
    /* the pane scrolled to the fix, the last section: all of it on screen */
    ck_assert_msg(strncmp(sh.text, "inputs", 6) != 0, "not scrolled:\n%s", sh.text);
    ASSERT_HAS(sh.text, "\nsuggested fix  (`:suggest` explains it)\n");
    ASSERT_HAS(sh.text, "\n  from torch.export import Dim\n");
    char *dims = line_with(sh.text, "dynamic_shapes = ");
    shot_free(&sh);
    sh = shot(t, PANE_SHAPES, 200, 200);
    ASSERT_HAS(sh.text, "\n  Ne(Mod(s0, 32), 0) with s0 = 256: Mod(256, 32) = 0\n");
    shot_free(&sh);

    ck_assert_int_eq(tui_command(t, "suggest"), EP_OK);
    StrBuf log;
    sb_init(&log);
    for (int i = 0; i < t->log.n; i++)
        sb_printf(&log, "%s\n", t->log.lines[i]);
    const char *at = strstr(log.data, "(epdbg) suggest\n");
    ck_assert_msg(at != NULL, "no suggest in the console:\n%s", log.data);
    ASSERT_HAS(at, "from torch.export import Dim\n");
    ASSERT_HAS(at, dims + strspn(dims, " "));
    ASSERT_HAS(at, "x.shape[2] is 256, which fails the program's in-graph check Ne(Mod(s0, 32), 0)");
    sb_free(&log);
    free(dims);

    /* accepted inputs again (a height of 230 = 7 * 32 + 6): the fix goes */
    char *good = write_ones(dir, "x230", 4, (int64_t[]){1, 1, 230, 4});
    char *again = ep_xasprintf("run --input x=%s", good);
    ck_assert_int_eq(tui_command(t, again), EP_OK);
    ck_assert(!session_inputs_rejected(t->s));
    sh = shot(t, PANE_SHAPES, 200, 200);
    ck_assert_msg(!strstr(sh.text, "suggested fix"), "the fix stayed:\n%s", sh.text);
    shot_free(&sh);
    free(again);
    unlink(good);
    free(good);
    free(line);
    unlink(file);
    free(file);
    rmdir(dir);
    free(dir);
    close_tui(t);
}
END_TEST

/* Opened on refused inputs: the dialog says where the fix is, and the pane
** has it from the first draw. */
START_TEST(test_tui_opened_refused)
{
    Files f = derived_refused();
    const char *files[] = {f.path[0], f.path[1]};
    char *x = ep_xasprintf("x=%s", files[0]), *y = ep_xasprintf("y=%s", files[1]);
    const char *named[] = {x, y};
    Tui *t = tui_new(open_with(FIX "dyn_derived_dynamic.pt2", named, 2), FIX "dyn_derived_dynamic.pt2", NULL, 0,
                     false);
    ck_assert(t->dialog != NULL);
    ASSERT_HAS(t->dialog, "input y.shape[0] is 7");
    ASSERT_HAS(t->dialog, TUI_GUARD_HINT);
    Shot sh = shot(t, PANE_SHAPES, 200, 200);
    ASSERT_HAS(sh.text, "\n  y.shape[0] = s0 + 1  in [3, 65]\n");
    ASSERT_HAS(sh.text, "y.shape[0] = s0 + 1: the input is first used by node 'slice_1' (aten.slice.Tensor) at "
                        "dyn_derived.py:10");
    ASSERT_HAS(sh.text, "\nsuggested fix");
    ASSERT_HAS(sh.text, "\"y\": {0: ");
    shot_free(&sh);
    close_tui(t);
    free(x);
    free(y);
    files_free(&f);
}
END_TEST

Suite *suite_suggest_debug(void)
{
    Suite *s = suite_create("suggest_debug");
    TCase *tc = tcase_create("suggest_debug");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_batch_broadcast);
    tcase_add_test(tc, test_batch_refused_inputs);
    tcase_add_test(tc, test_command_errors);
    tcase_add_test(tc, test_pane_guard_tree);
    tcase_add_test(tc, test_pane_suggested_fix);
    tcase_add_test(tc, test_tui_opened_refused);
    suite_add_tcase(s, tc);
    return s;
}
