/*
** test_hostile_paths.c -- files that are not files (issue 12): a named
** pipe, a device, a directory given as the model, an input, a script or the
** rc file is refused at once with one message naming it and what it is --
** never a read that blocks for a writer or streams forever.  Each run has
** the suite's timeout as its hang detector.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "examples/gen/progbuild.h"
#include "testutil.h"
#include "tui/keys.h"

/* A FIFO in a fresh folder (the caller frees the path and removes both). */
static char *make_fifo(char **dir)
{
    *dir = test_tmpdir();
    char *p = malloc(strlen(*dir) + 8);
    ck_assert_ptr_nonnull(p);
    sprintf(p, "%s/fifo", *dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    return p;
}

static void expect(const char *const *args, int code, const char *want)
{
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == code, "%s %s: exit %d, want %d\n%s", args[0], args[1], r.code, code, r.err);
    ck_assert_msg(strstr(r.err, want) != NULL, "%s: no \"%s\" in:\n%s", args[1], want, r.err);
    run_result_free(&r);
}

START_TEST(test_model_not_a_file)
{
    char *dir, *fifo = make_fifo(&dir);
    char want[600];
    snprintf(want, sizeof want, "epdbg: %s: is a named pipe (FIFO), not a regular file", fifo);
    expect((const char *[]){"info", fifo, NULL}, 2, want);
    expect((const char *[]){"run", fifo, NULL}, 2, "is a named pipe (FIFO), not a regular file");
    expect((const char *[]){"suggest", fifo, NULL}, 2, "is a named pipe (FIFO), not a regular file");
    expect((const char *[]){"info", "/dev/zero", NULL}, 2, "/dev/zero: is a character device, not a regular file");
    expect((const char *[]){"info", dir, NULL}, 2, "is a directory, not a regular file");
    unlink(fifo);
    rmdir(dir);
    free(fifo);
    free(dir);
}
END_TEST

START_TEST(test_input_not_a_file)
{
    char *dir, *fifo = make_fifo(&dir);
    char spec[600];
    snprintf(spec, sizeof spec, "x=%s", fifo);
    expect((const char *[]){"run", "examples/mlp.pt2", "--input", spec, NULL}, 2,
           "is a named pipe (FIFO), not a regular file");
    expect((const char *[]){"run", "examples/mlp.pt2", "--input", "/dev/zero", NULL}, 2,
           "/dev/zero: is a character device, not a regular file");
    /* the debugger's `set NAME = FILE`: an error, and the session goes on */
    char set[700];
    snprintf(set, sizeof set, "set x = %s", fifo);
    RunResult r = test_run_binary((const char *[]){"examples/mlp.pt2", "--batch", "-ex", set, "-ex", "info inputs",
                                                   NULL},
                                  NULL, NULL);
    ck_assert_msg(strstr(r.out, "is a named pipe (FIFO), not a regular file") ||
                      strstr(r.err, "is a named pipe (FIFO), not a regular file"),
                  "%s%s", r.out, r.err);
    run_result_free(&r);
    unlink(fifo);
    rmdir(dir);
    free(fifo);
    free(dir);
}
END_TEST

START_TEST(test_script_not_a_file)
{
    char *dir, *fifo = make_fifo(&dir);
    expect((const char *[]){"examples/mlp.pt2", "-x", "/dev/zero", NULL}, 1,
           "epdbg: -x /dev/zero: is a character device, not a regular file");
    expect((const char *[]){"examples/mlp.pt2", "-x", fifo, NULL}, 1, "is a named pipe (FIFO), not a regular file");
    unlink(fifo);
    rmdir(dir);
    free(fifo);
    free(dir);
}
END_TEST

/* ~/.epdbgrc linked to /dev/zero used to spin the TUI: refused, and an rc
** file that is not one (too many lines) is refused too. */
START_TEST(test_rc_not_a_file)
{
    Keymap km;
    keymap_defaults(&km);
    EpError err = {0};
    ck_assert_int_eq(keymap_load_rc(&km, "/dev/zero", &err), EP_ERR_USAGE);
    ck_assert_str_eq(err.msg, "/dev/zero: is a character device, not a regular file");
    char *dir = test_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/rc", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 10001; i++)
        fputs("# a comment\n", f);
    fclose(f);
    ck_assert_int_eq(keymap_load_rc(&km, path, &err), EP_ERR_USAGE);
    ck_assert_msg(strstr(err.msg, ": more than 10000 lines; an rc file binds keys, one per line"), "%s", err.msg);
    ck_assert_int_eq(keymap_load_rc(&km, "/nonexistent/epdbgrc", &err), EP_OK); /* absent: the defaults */
    keymap_free(&km);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

/* --timeout takes a whole number of seconds, 1 or more. */
START_TEST(test_timeout_usage)
{
    expect((const char *[]){"run", "examples/mlp.pt2", "--timeout", "0", NULL}, 1,
           "epdbg run: --timeout 0: expected a whole number of seconds, 1 or more");
    expect((const char *[]){"run", "examples/mlp.pt2", "--timeout", "2x", NULL}, 1,
           "epdbg run: --timeout 2x: expected a whole number of seconds, 1 or more");
    /* a run well within its time is untouched */
    RunResult r = test_run_binary((const char *[]){"run", "examples/mlp.pt2", "--timeout", "600", NULL}, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s", r.err);
    ck_assert(strstr(r.out, "out0 ") != NULL);
    run_result_free(&r);
}
END_TEST

/* --max-memory: the allocation that would pass it fails with the node, the
** tensor and the sizes; a bad size is a usage error. */
START_TEST(test_max_memory)
{
    char *dir = test_tmpdir(), rel[600];
    snprintf(rel, sizeof rel, "%s/examples/mlp.pt2", test_project_dir());
    char *model = realpath(rel, NULL);
    ck_assert_ptr_nonnull(model);
    /* run in a scratch folder: the failed run saves its replay file there */
    RunResult r = test_run_binary((const char *[]){"run", "--max-memory", "1K", model, NULL}, dir, NULL);
    ck_assert_msg(r.code == 4, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "epdbg: node 1 'relu' (aten.relu.default) at mlp.py:21 in forward: h = "
                                "torch.relu(self.fc1(x)): a float32 tensor [4, 32]: 512 B more would bring epdbg's "
                                "tensors to 1.2 KiB, over the memory limit of 1.0 KiB (--max-memory SIZE or "
                                "EPDBG_MAX_MEMORY sets it)") != NULL,
                  "%s", r.err);
    run_result_free(&r);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -f %s/*.npz; rmdir %s", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
    free(model);
    expect((const char *[]){"run", "examples/mlp.pt2", "--max-memory", "lots", NULL}, 1,
           "epdbg: --max-memory lots: expected a size such as 512M, 4G or 1.5G");
    r = test_run_binary((const char *[]){"run", "examples/mlp.pt2", "--max-memory=64M", NULL}, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s", r.err);
    run_result_free(&r);
}
END_TEST

/* A program without nodes (the output is the input): info, run and suggest
** take it; under the sanitizers, no qsort of a NULL array. */
START_TEST(test_graph_without_nodes)
{
    EpError err = {0};
    ProgBuilder *pb = pb_new("empty.Identity", false);
    int64_t sz[2] = {2, 3};
    Tensor *x = tensor_zeros(DT_F32, 2, sz, &err);
    pb_input(pb, "x", x, NULL); /* borrows the example */
    pb_output(pb, "x");
    char *dir = test_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/empty.pt2", dir);
    PbWriteOptions wo = {.era = PB_ERA_2_11};
    ck_assert_msg(pb_write(pb, path, &wo, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    tensor_unref(x);
    const char *cmds[][3] = {{"info", path, NULL}, {"run", path, NULL}, {"suggest", path, NULL}};
    for (int i = 0; i < 3; i++) {
        RunResult r = test_run_binary(cmds[i], NULL, NULL);
        ck_assert_msg(r.code == 0, "%s: exit %d\n%s", cmds[i][0], r.code, r.err);
        ck_assert_msg(!strstr(r.err, "runtime error"), "%s", r.err);
        run_result_free(&r);
    }
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

Suite *suite_hostile_paths(void)
{
    Suite *s = suite_create("hostile_paths");
    TCase *tc = tcase_create("paths");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_model_not_a_file);
    tcase_add_test(tc, test_input_not_a_file);
    tcase_add_test(tc, test_script_not_a_file);
    tcase_add_test(tc, test_rc_not_a_file);
    tcase_add_test(tc, test_timeout_usage);
    tcase_add_test(tc, test_max_memory);
    tcase_add_test(tc, test_graph_without_nodes);
    suite_add_tcase(s, tc);
    return s;
}
