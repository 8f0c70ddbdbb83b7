/*
** test_why.c -- the debugger's `why NAME.shape[DIM]` / `why NAME`
** (debugger/cmd_graph.c) on the generator's fixtures, with the exact text
** worked out by hand from their definitions (examples/gen/fixtures.c,
** tests/src/dyn_fixtures.md):
**   guard_derived: x [s0] + y[1:], y [s0 + 1], s0 in [2, 64], x of 5;
**   guard_mod: torch._check(x.shape[0] * y.shape[0] % 2 == 0), s0, s1 in
**     [2, 64], so s0*s1 in [4, 4096], x of 2, y of 3;
**   dyn_posemb: arange(T) indexes an 8-row table, so T - 1 < 8;
**   dyn_catslice: z [2, 2*s0 + 10], 2*s0 + 10 in [14, 138], y static 5.
** And the refusals: an unknown name, a dimension out of range, a tensor
** named without .shape[DIM].
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define FIX "build/fixtures/"

/* Run the debugger in batch mode on fixture with one -ex per command;
** stdout and stderr together. */
static char *run_why(const char *fixture, const char *const *cmds)
{
    const char *argv[32] = {fixture, "--batch"};
    int n = 2;
    for (int i = 0; cmds[i] && n < 30; i++) {
        argv[n++] = "-ex";
        argv[n++] = cmds[i];
    }
    argv[n] = NULL;
    RunResult r = test_run_binary(argv, NULL, NULL);
    char *all = malloc(strlen(r.out) + strlen(r.err) + 1);
    ck_assert_ptr_nonnull(all);
    strcpy(all, r.out);
    strcat(all, r.err);
    run_result_free(&r);
    return all;
}

#define ASSERT_HAS(out, text) ck_assert_msg(strstr((out), (text)) != NULL, "expected\n%s\nin\n%s", (text), (out))

START_TEST(test_why_derived)
{
    char *out = run_why(FIX "guard_derived.pt2", (const char *[]){"why y.shape[0]", "why add.shape[-1]", NULL});
    /* x + y[1:] broadcasts s0 with s0: nothing to require, so only the range */
    ASSERT_HAS(out, "(epdbg) why y.shape[0]\n"
                    "y.shape[0] = s0 + 1   (in [3, 65])\n"
                    "  s0 = 5: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                    "  constrained by: no condition of the program; only the range above\n");
    ASSERT_HAS(out, "(epdbg) why add.shape[-1]\n"
                    "add.shape[-1] = s0   (in [2, 64])\n"
                    "  s0 = 5: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n");
    free(out);
}
END_TEST

START_TEST(test_why_mod_assert)
{
    char *out = run_why(FIX "guard_mod.pt2", (const char *[]){"why mul", "why x.shape[0]", NULL});
    static const char ASSERT_LINE[] =
        "  constrained by:\n"
        "    Eq(Mod(s0*s1, 2), 0) (bound: Runtime assertion failed for expression Eq(Mod(s0*s1, 2), 0) on node eq) "
        "at node '_assert_scalar_default' (aten._assert_scalar.default) at guards.py:17 in forward: "
        "torch._check(cells % 2 == 0)\n";
    ASSERT_HAS(out, "(epdbg) why mul\n"
                    "mul = s0*s1   (in [4, 4096])\n"
                    "  s0 = 2: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                    "  s1 = 3: y.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n");
    ASSERT_HAS(out, ASSERT_LINE);
    /* x.shape[0] alone: its one symbol, and the same assert (it names s0) */
    ASSERT_HAS(out, "(epdbg) why x.shape[0]\n"
                    "x.shape[0] = s0   (in [2, 64])\n"
                    "  s0 = 2: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n");
    ck_assert_ptr_nonnull(strstr(strstr(out, "(epdbg) why x.shape[0]"), ASSERT_LINE));
    free(out);
}
END_TEST

START_TEST(test_why_posemb_bound)
{
    char *out = run_why(FIX "dyn_posemb_dynamic.pt2",
                        (const char *[]){"why x.shape[0]", "why x.shape[1]", "why embedding.shape[1]", NULL});
    /* arange(T) has values 0 .. T-1, each below the table's 8 rows */
    ASSERT_HAS(out, "(epdbg) why x.shape[0]\n"
                    "x.shape[0] = s0   (in [2, 64])\n"
                    "  s0 = 5: x.shape[0], a Dim of the export's dynamic_shapes, in [2, 64]\n"
                    "  constrained by:\n"
                    "    s0 - 1 < 8 (bound: embedding index below the rows) at node 'embedding' "
                    "(aten.embedding.default) at dyn_posemb.py:15 in forward: return x + self.pos(pos)\n");
    ASSERT_HAS(out, "(epdbg) why x.shape[1]\n"
                    "x.shape[1] = 4\n"
                    "  fixed: the input's own size (the export's dynamic_shapes gave this dimension no Dim)\n");
    ASSERT_HAS(out, "(epdbg) why embedding.shape[1]\n"
                    "embedding.shape[1] = 4\n"
                    "  fixed by node 'embedding' (aten.embedding.default) at dyn_posemb.py:15 in forward: "
                    "return x + self.pos(pos)\n");
    free(out);
}
END_TEST

START_TEST(test_why_catslice)
{
    char *out = run_why(FIX "dyn_catslice_dynamic.pt2",
                        (const char *[]){"why z.shape[1]", "why add.shape[1]", "why y.shape[1]", "why cat.shape[0]",
                                         NULL});
    ASSERT_HAS(out, "(epdbg) why z.shape[1]\n"
                    "z.shape[1] = 2*s0 + 10   (in [14, 138])\n"
                    "  s0 = 3: x.shape[1], a Dim of the export's dynamic_shapes, in [2, 64]\n");
    /* cat gives s0 + 5 columns: s0 in [2, 64] -> [7, 69] */
    ASSERT_HAS(out, "(epdbg) why add.shape[1]\n"
                    "add.shape[1] = s0 + 5   (in [7, 69])\n");
    ASSERT_HAS(out, "(epdbg) why y.shape[1]\n"
                    "y.shape[1] = 5\n"
                    "  fixed: the input's own size (the export's dynamic_shapes gave this dimension no Dim)\n");
    ASSERT_HAS(out, "(epdbg) why cat.shape[0]\n"
                    "cat.shape[0] = 2\n"
                    "  fixed by node 'cat' (aten.cat.default) at dyn_catslice.py:11 in forward: "
                    "return torch.cat((x, y), 1) + z[:, ::2]\n");
    free(out);
}
END_TEST

START_TEST(test_why_errors)
{
    char *out = run_why(FIX "guard_derived.pt2", (const char *[]){"why nope.shape[0]", "why x.shape[1]", "why x",
                                                                  "why x.shape[one]", "why", "help why", NULL});
    ASSERT_HAS(out, "no value 'nope' in the program (`info graph` lists the nodes)\n");
    ASSERT_HAS(out, "x.shape[1] is out of range: x has 1 dimension\n");
    ASSERT_HAS(out, "'x' is a tensor: ask about one size, why x.shape[DIM]\n");
    ASSERT_HAS(out, "usage: why NAME.shape[DIM] or why NAME (a SymInt value) (bad dimension in 'x.shape[one]')\n");
    ASSERT_HAS(out, "why NAME.shape[DIM] | why NAME\n  what constrains a size");
    free(out);
}
END_TEST

Suite *suite_why(void)
{
    Suite *s = suite_create("why");
    TCase *tc = tcase_create("why");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_why_derived);
    tcase_add_test(tc, test_why_mod_assert);
    tcase_add_test(tc, test_why_posemb_bound);
    tcase_add_test(tc, test_why_catslice);
    tcase_add_test(tc, test_why_errors);
    suite_add_tcase(s, tc);
    return s;
}
