/*
** test_layers.c -- scripts/check-layers.sh, which `make check` runs on the
** real tree, run here on small trees of its own: one that keeps every rule
** passes, and each rule broken once is reported with the file, the line
** and the rule, and a nonzero status.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "interp/ep.h"
#include "testutil.h"

typedef struct Tree {
    char *root;
} Tree;

static void write_file(const Tree *t, const char *path, const char *text)
{
    char *full = ep_xasprintf("%s/%s", t->root, path);
    char *dir = ep_xstrdup(full);
    for (char *p = dir + strlen(t->root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    free(dir);
    FILE *f = fopen(full, "w");
    ck_assert_msg(f != NULL, "cannot write %s", full);
    fputs(text, f);
    fclose(f);
    free(full);
}

static const char README_OK[] = "# mini\n\n## Layout\n\n"
                                "symbolic/ sym.c sym.h\n"
                                "interp/ run.c run.h ops/k.[ch]\n"
                                "debugger/ session.[ch]\n"
                                "tui/ pane.c\n"
                                "cli/ cli.c\n"
                                "main.c\n\n## Tests\n\nnothing.c is named here, outside the Layout\n";

/* A tree that keeps every rule: each layer uses only the ones below. */
static Tree tree_ok(void)
{
    Tree t = {test_tmpdir()};
    char *cmd = ep_xasprintf("mkdir -p %s/scripts && cp %s/scripts/check-layers.sh %s/scripts/", t.root,
                             test_project_dir(), t.root);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    write_file(&t, "README.md", README_OK);
    write_file(&t, "symbolic/sym.h", "int sym_value(int x);\n");
    write_file(&t, "symbolic/sym.c", "#include \"sym.h\"\nint sym_value(int x) { return x + 1; }\n");
    write_file(&t, "interp/run.h", "#include \"symbolic/sym.h\"\nint run(int x);\n");
    write_file(&t, "interp/run.c", "#include \"run.h\"\n#include \"ops/k.h\"\n"
                                   "int run(int x) { return kernel(sym_value(x)); }\n");
    write_file(&t, "interp/ops/k.h", "int kernel(int x);\n");
    write_file(&t, "interp/ops/k.c", "#include \"k.h\"\nint kernel(int x) { return 2 * x; }\n");
    write_file(&t, "debugger/session.h", "#include \"interp/run.h\"\nint session(int x);\n");
    write_file(&t, "debugger/session.c", "#include \"session.h\"\nint session(int x) { return run(x); }\n");
    write_file(&t, "tui/pane.c", "#include \"debugger/session.h\"\n#include <stdio.h>\n"
                                 "int pane(void);\nint pane(void) { return session(1); }\n");
    write_file(&t, "cli/cli.c", "#include \"debugger/session.h\"\nint cli(void);\n"
                                "int cli(void) { return session(2); }\n");
    write_file(&t, "main.c", "int cli(void);\nint pane(void);\nint main(void) { return cli() + pane(); }\n");
    return t;
}

static void tree_free(Tree *t)
{
    char *cmd = ep_xasprintf("rm -rf '%s'", t->root);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(t->root);
}

/* Compile every .c of the tree into BUILD/ (for the nm check). */
static void tree_build(const Tree *t)
{
    char *cmd = ep_xasprintf("cd %s && for c in $(find symbolic interp debugger tui cli main.c -name '*.c'); do "
                             "mkdir -p build/$(dirname $c) && cc -I. -c $c -o build/${c%%.c}.o || exit 1; done",
                             t->root);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
}

/* Run the check (with the build folder when build is true): its exit
** status, and its output in *out (caller frees). */
static int run_check(const Tree *t, bool build, char **out)
{
    char *cmd = ep_xasprintf("sh %s/scripts/check-layers.sh %s 2>&1", t->root, build ? "build" : "");
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    StrBuf sb;
    sb_init(&sb);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        sb_appendn(&sb, buf, n);
    int status = pclose(p);
    free(cmd);
    *out = sb_take(&sb);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void expect_broken(const Tree *t, bool build, const char *line)
{
    char *out;
    int rc = run_check(t, build, &out);
    ck_assert_msg(rc == 1, "exit %d, want 1:\n%s", rc, out);
    ck_assert_msg(strstr(out, line) != NULL, "no \"%s\" in:\n%s", line, out);
    free(out);
}

START_TEST(test_clean_tree_passes)
{
    Tree t = tree_ok();
    tree_build(&t);
    char *out;
    int rc = run_check(&t, true, &out);
    ck_assert_msg(rc == 0 && strstr(out, "every include and call points down"), "exit %d:\n%s", rc, out);
    free(out);
    tree_free(&t);
}
END_TEST

START_TEST(test_upward_include)
{
    Tree t = tree_ok();
    write_file(&t, "interp/run.c", "#include \"run.h\"\n#include \"debugger/session.h\"\n"
                                   "int run(int x) { return x; }\n");
    expect_broken(&t, false, "interp/run.c:2: includes \"debugger/session.h\": interp/ may not depend on debugger/");
    tree_free(&t);
}
END_TEST

/* An include next to the file resolves there first: "session.h" from
** tui/ is tui's own only if tui/session.h exists. */
START_TEST(test_relative_include_resolves)
{
    Tree t = tree_ok();
    write_file(&t, "symbolic/sym.c", "#include \"../interp/run.h\"\nint sym_value(int x) { return x; }\n");
    expect_broken(&t, false, "symbolic/sym.c:1: includes \"../interp/run.h\": symbolic/ may not depend on interp/");
    tree_free(&t);
}
END_TEST

START_TEST(test_siblings)
{
    Tree t = tree_ok();
    write_file(&t, "cli/cli.h", "int cli(void);\n");
    write_file(&t, "README.md", "## Layout\nsym.[ch] run.[ch] ops/k.[ch] session.[ch] pane.c cli.[ch] main.c "
                                "symbolic/ interp/ debugger/ tui/ cli/\n");
    write_file(&t, "tui/pane.c", "#include \"cli/cli.h\"\nint pane(void);\nint pane(void) { return cli(); }\n");
    expect_broken(&t, false, "tui/pane.c:1: includes \"cli/cli.h\": tui/ may not depend on cli/");
    tree_free(&t);
}
END_TEST

START_TEST(test_curses_outside_screen)
{
    Tree t = tree_ok();
    write_file(&t, "tui/pane.c", "#include <curses.h>\nint pane(void);\nint pane(void) { return 0; }\n");
    expect_broken(&t, false, "tui/pane.c:1: includes curses: only tui/screen.c talks to curses");
    tree_free(&t);
}
END_TEST

START_TEST(test_readme_names_every_file)
{
    Tree t = tree_ok();
    write_file(&t, "debugger/watch.c", "int watch(void);\nint watch(void) { return 0; }\n");
    expect_broken(&t, false, "README.md: the Layout section does not name debugger/watch.c");
    /* a folder without its paragraph */
    write_file(&t, "README.md", "## Layout\nsym.[ch] run.[ch] ops/k.[ch] session.[ch] watch.c pane.c cli.c main.c "
                                "symbolic/ interp/ debugger/ tui/\n## Tests\ncli/\n");
    expect_broken(&t, false, "README.md: the Layout section has no paragraph for cli/");
    tree_free(&t);
}
END_TEST

/* A call that bypasses the headers (a prototype written by hand) is found
** in the objects. */
START_TEST(test_upward_call_in_objects)
{
    Tree t = tree_ok();
    write_file(&t, "debugger/session.c", "#include \"session.h\"\nint pane(void);\n"
                                         "int session(int x) { return run(x) + pane(); }\n");
    char *out;
    ck_assert_int_eq(run_check(&t, false, &out), 0); /* the includes are fine */
    free(out);
    tree_build(&t);
    expect_broken(&t, true, "debugger/session.c: calls tui/pane.c (pane): debugger/ may not depend on tui/");
    tree_free(&t);
}
END_TEST

START_TEST(test_loop_between_folders)
{
    Tree t = tree_ok();
    write_file(&t, "interp/ops/k.c", "#include \"k.h\"\n#include \"interp/run.h\"\n"
                                     "int kernel(int x) { return x > 9 ? x : run(x + 1); }\n");
    tree_build(&t);
    expect_broken(&t, true, "interp/ops/k.c <-> interp/run.c: files of different folders call each other");
    tree_free(&t);
}
END_TEST

Suite *suite_layers(void)
{
    Suite *s = suite_create("layers");
    TCase *tc = tcase_create("layers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_clean_tree_passes);
    tcase_add_test(tc, test_upward_include);
    tcase_add_test(tc, test_relative_include_resolves);
    tcase_add_test(tc, test_siblings);
    tcase_add_test(tc, test_curses_outside_screen);
    tcase_add_test(tc, test_readme_names_every_file);
    tcase_add_test(tc, test_upward_call_in_objects);
    tcase_add_test(tc, test_loop_between_folders);
    suite_add_tcase(s, tc);
    return s;
}
