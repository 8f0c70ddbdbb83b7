/*
** test_golden.c -- batch-mode transcripts compared with golden files.
**
** Each tests/golden/NAME.cmd is a debugger script whose header lines say
** how to run it:
**
**   # args: examples/mlp.pt2 --source-dir examples/src   (after `epdbg`)
**   # exit: 0                                             (expected status)
**   # needs: corpus                                       (skip without ../shared)
**
** The binary runs `epdbg ARGS --no-blas -x NAME.cmd` from the project
** root; its stdout must equal NAME.out byte for byte, its stderr NAME.err
** (or be empty).  --no-blas: OpenBLAS picks its kernels by CPU, so its
** last bits (and the error figures of `check numerics`) may differ from
** machine to machine, while the reference loops give the same bits on
** every machine.  The BLAS path is checked against PyTorch by the corpus
** and kernel suites.  The values inside the goldens were checked against PyTorch when
** they were written (tests/golden/README.md says how); the transcripts then
** hold every command's wording and numbers still.
**
** EPDBG_UPDATE_GOLDENS=1 rewrites the .out/.err files from the current
** output instead of comparing: for a developer who changed a message on
** purpose, followed by reviewing the diff.
*/
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/npy.h"
#include "testutil.h"

#define GOLDEN_DIR "tests/golden"
#define MAX_GOLDENS 256

static char *goldens[MAX_GOLDENS];
static int ngoldens;

static void find_goldens(void)
{
    if (ngoldens)
        return;
    glob_t g;
    if (glob(GOLDEN_DIR "/*.cmd", 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc && ngoldens < MAX_GOLDENS; i++)
        goldens[ngoldens++] = ep_xstrdup(g.gl_pathv[i]);
    globfree(&g);
}

/* The value of header "# key: value" in text, or NULL (new string). */
static char *header(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "# %s:", key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (line[0] != '#')
            break; /* the header ends at the first command */
        if (strncmp(line, pat, strlen(pat)) == 0) {
            const char *v = line + strlen(pat);
            while (*v == ' ')
                v++;
            size_t n = strcspn(v, "\n");
            return ep_xstrndup(v, n);
        }
    }
    return NULL;
}

/* The path with its extension replaced. */
static char *with_ext(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    return ep_xasprintf("%.*s%s", (int)(dot - path), path, ext);
}

static char *read_or_empty(const char *path)
{
    char *data;
    size_t len;
    EpError err;
    if (read_file(path, &data, &len, &err) != EP_OK)
        return ep_xstrdup("");
    return data;
}

/* The first line where got and want differ, with a little context. */
static void report_diff(const char *name, const char *got, const char *want)
{
    int line = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        if (*g == '\n')
            line++;
        g++;
        w++;
    }
    const char *gl = g, *wl = w;
    while (gl > got && gl[-1] != '\n')
        gl--;
    while (wl > want && wl[-1] != '\n')
        wl--;
    ck_abort_msg("%s differs from its golden at line %d:\n  got:  %.*s\n  want: %.*s\n(EPDBG_UPDATE_GOLDENS=1 rewrites "
                 "the goldens; review the diff)",
                 name, line, (int)strcspn(gl, "\n"), gl, (int)strcspn(wl, "\n"), wl);
}

START_TEST(test_golden_transcript)
{
    find_goldens();
    if (_i >= ngoldens)
        return;
    const char *cmd = goldens[_i];
    char *script = read_or_empty(cmd);
    char *args = header(script, "args");
    char *exit_text = header(script, "exit");
    char *needs = header(script, "needs");
    ck_assert_msg(args != NULL, "%s: no '# args:' header", cmd);
    if (needs && strcmp(needs, "corpus") == 0 && !test_corpus_dir()) {
        free(script);
        free(args);
        free(exit_text);
        free(needs);
        return; /* suite_golden says loudly that ../shared is absent */
    }
    const char *argv[64];
    int n = 0;
    for (char *tok = strtok(args, " "); tok && n < 60; tok = strtok(NULL, " "))
        argv[n++] = tok;
    argv[n++] = "--no-blas";
    argv[n++] = "-x";
    argv[n++] = cmd;
    argv[n] = NULL;
    RunResult r = test_run_binary(argv, NULL, NULL);
    char *out_path = with_ext(cmd, ".out"), *err_path = with_ext(cmd, ".err");
    int want_exit = exit_text ? atoi(exit_text) : 0;
    if (getenv("EPDBG_UPDATE_GOLDENS")) {
        EpError err;
        ck_assert(write_file_atomic(out_path, r.out, strlen(r.out), &err) == EP_OK);
        if (r.err[0])
            ck_assert(write_file_atomic(err_path, r.err, strlen(r.err), &err) == EP_OK);
        else
            remove(err_path);
    } else {
        char *want_out = read_or_empty(out_path), *want_err = read_or_empty(err_path);
        if (strcmp(r.out, want_out) != 0)
            report_diff(out_path, r.out, want_out);
        if (strcmp(r.err, want_err) != 0)
            report_diff(err_path, r.err, want_err);
        free(want_out);
        free(want_err);
    }
    ck_assert_msg(r.code == want_exit, "%s: exit %d, want %d\nstderr: %s", cmd, r.code, want_exit, r.err);
    run_result_free(&r);
    free(out_path);
    free(err_path);
    free(script);
    free(args);
    free(exit_text);
    free(needs);
}
END_TEST

/* The goldens cover the commands: every command name of `help` appears in
** at least one script, so a new command cannot ship without a transcript. */
START_TEST(test_goldens_cover_commands)
{
    find_goldens();
    StrBuf all;
    sb_init(&all);
    for (int i = 0; i < ngoldens; i++) {
        char *s = read_or_empty(goldens[i]);
        sb_append(&all, s);
        free(s);
    }
    const char *const commands[] = {
        "run", "restart", "step", "next", "finish", "continue", "until", "reverse-step", "reverse-continue",
        "goto", "where", "record", "break", "tbreak", "catch nan", "delete", "disable", "enable", "watch",
        "info breakpoints", "info watchpoints", "print", "print/x", "stats", "display", "undisplay", "dump",
        "set", "info node", "info args", "info shapes", "info symbols", "info signature", "info graph",
        "backtrace", "list", "frame", "up", "down", "check numerics", "compare", "help", "echo", "info display",
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "\n%s", commands[i]);
        ck_assert_msg(strstr(all.data, pat), "no golden script uses `%s`", commands[i]);
    }
    sb_free(&all);
}
END_TEST

/* Every corpus archive with PyTorch references goes through a debugger
** session that steps, inspects, goes back, hunts NaN, runs to the end and
** compares every value it can with PyTorch's files (compare DIR reads the
** .ref folder's in*.npy and out*.npy), then runs the float64 shadow: the
** session must agree with PyTorch on every output and no command may fail. */
START_TEST(test_corpus_sessions)
{
    const char *corpus = test_corpus_dir();
    if (!corpus)
        return; /* suite_golden says loudly that ../shared is absent */
    glob_t g;
    char *pattern = ep_xasprintf("%s/*.ref", corpus);
    int found = glob(pattern, 0, NULL, &g);
    free(pattern);
    ck_assert_msg(found == 0 && g.gl_pathc > 0, "no .ref folders in %s", corpus);
    int sessions = 0;
    for (size_t k = 0; k < g.gl_pathc; k++) {
        const char *ref = g.gl_pathv[k];
        /* the archive beside the folder: NAME.pt2, or NAME.pth (one was
        ** committed with that extension) */
        char *pt2 = ep_xasprintf("%.*s.pt2", (int)(strlen(ref) - 4), ref);
        if (access(pt2, R_OK) != 0)
            memcpy(pt2 + strlen(pt2) - 3, "pth", 3);
        char *compare = ep_xasprintf("compare %s", ref);
        const char *argv[] = {pt2, "--inputs", ref, "--no-blas", "-ex", "info graph", "-ex", "step", "-ex",
                              "info node", "-ex", "backtrace", "-ex", "info shapes", "-ex", "reverse-step", "-ex",
                              "catch nan", "-ex", "continue", "-ex", "delete", "-ex", "goto end", "-ex", compare,
                              "-ex", "check numerics", "-ex", "where", NULL};
        RunResult r = test_run_binary(argv, NULL, NULL);
        ck_assert_msg(r.code == 0, "%s: exit %d\n%s%s", pt2, r.code, r.out, r.err);
        ck_assert_msg(strstr(r.out, "; 0 differ.\nAll references match.") != NULL, "%s: compare:\n%s", pt2, r.out);
        ck_assert_msg(strstr(r.out, "\nFloat64 shadow check of ") != NULL, "%s:\n%s", pt2, r.out);
        ck_assert_msg(strstr(r.out, "\nerror:") == NULL, "%s:\n%s", pt2, r.out);
        run_result_free(&r);
        free(compare);
        free(pt2);
        sessions++;
    }
    globfree(&g);
    ck_assert_int_ge(sessions, 50);
}
END_TEST

static void free_goldens(void)
{
    for (int i = 0; i < ngoldens; i++)
        free(goldens[i]);
    ngoldens = 0;
}

Suite *suite_golden(void)
{
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("transcripts");
    tcase_set_timeout(tc, 120);
    find_goldens();
    tcase_add_loop_test(tc, test_golden_transcript, 0, ngoldens ? ngoldens : 1);
    tcase_add_test(tc, test_goldens_cover_commands);
    tcase_add_test(tc, test_corpus_sessions);
    tcase_add_unchecked_fixture(tc, NULL, free_goldens);
    suite_add_tcase(s, tc);
    return s;
}
