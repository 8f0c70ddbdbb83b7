/*
** test_dyn_fixtures.c -- the dynamic-shape fixtures of issue 11
** (examples/gen/fixtures_dynamic.c, tests/src/dyn_fixtures.md), each in a
** static and a dynamic export: they run on their example inputs with the
** values the models give by hand; the archive records exactly the
** symbolic input sizes and range constraints the document gives; the
** static export has literal sizes only; a wrong-size input to the dynamic
** export is refused (exit 3, naming the input).
*/
#include <check.h>
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/interp.h"
#include "interp/npy.h"
#include "interp/zipread.h"
#include "fixrecords.h"
#include "testutil.h"

#define FIX "build/fixtures/"

/* A wrong input for the dynamic export: its name, its sizes. */
typedef struct BadInput {
    const char *name;
    int ndim;
    int64_t sizes[4];
} BadInput;

/* One row per fixture: the user inputs in order, what the dynamic
** export's archive records, the output shape of each export, two output
** elements by flat index (-1: the last) and their hand-worked values (NaN:
** random weights, shapes only), and a wrong input set (all inputs, in
** order). */
static const struct {
    const char *name;
    int ninputs;
    const char *inputs[3];
    const char *dyn_dims;   /* "x=[s0, 3] y=[s0, 1]" as recorded */
    const char *dyn_ranges; /* "s0:[2, 64]", range_constraints in order */
    const char *static_ranges;
    const char *out_static, *out_dynamic;
    int64_t at[2];
    float want[2];
    int nbad;
    BadInput bad[3];
    const char *bad_name; /* the input the refusal must name */
} FIXTURES[] = {
    {"broadcast", 2, {"x", "y"}, "x=[s0, 3] y=[s0, 1]", "s0:[2, 64]", "", "[4, 3]", "[4, 3]",
     /* x[i][j] = 3i + j, y[i] = 100 + 100i */
     {0, 11}, {100, 411}, 2, {{"x", 2, {5, 3}}, {"y", 2, {4, 1}}}, "y"},
    {"derived", 2, {"x", "y"}, "x=[s0] y=[s0 + 1]", "s0:[2, 64] s0 + 1:[3, 65]", "", "[5]", "[5]",
     /* x[k] = k, y[k] = 10k: x + y[1:] = 11k + 10 */
     {0, 4}, {10, 54}, 2, {{"x", 1, {5}}, {"y", 1, {7}}}, "y"},
    {"reshape", 1, {"x"}, "x=[s0, 6]", "s0:[2, 64]", "", "[4, 3]", "[4, 3]",
     /* x = 0..23: pairs summed, 2m + 1 */
     {0, 11}, {1, 45}, 1, {{"x", 2, {4, 5}}}, "x"},
    {"convpool", 1, {"x"}, "x=[1, 3, s0, s1]", "s0:[4, 256] s1:[4, 256]", "", "[1, 4, 4, 4]", "[1, 4, 4, 4]",
     {0, 0}, {NAN, NAN}, 1, {{"x", 4, {1, 4, 10, 10}}}, "x"},
    {"pad32", 1, {"x"}, "x=[1, 1, s0, 4]", "s0:[224, 1024]", "", "[1, 1, 32, 4]", "[1, 1, 256, 4]",
     /* ones * 2, the padded rows 0 */
     {0, -1}, {2, 0}, 1, {{"x", 4, {1, 1, 230, 5}}}, "x"},
    {"catslice", 3, {"x", "y", "z"}, "x=[2, s0] y=[2, 5] z=[2, 2*s0 + 10]", "s0:[2, 64] 2*s0 + 10:[14, 138]", "",
     "[2, 8]", "[2, 8]",
     /* out[1][7] = y[1][4] + z[1][14] = 19 + 3000 */
     {0, 15}, {0, 3019}, 3, {{"x", 2, {2, 3}}, {"y", 2, {2, 5}}, {"z", 2, {2, 17}}}, "z"},
    {"posemb", 1, {"x"}, "x=[s0, 4]", "s0:[2, 64]", "", "[5, 4]", "[5, 4]",
     /* 0.5 + weight[i][j] = 0.5 + 10i + j */
     {0, 19}, {0.5f, 43.5f}, 1, {{"x", 2, {5, 3}}}, "x"},
    {"branch", 1, {"x"}, "x=[s0, 3]", "s0:[3, 6]", "", "[4, 3]", "[4, 3]", {0, 11}, {0, 22}, 1,
     {{"x", 2, {7, 3}}}, "x"},
    {"item", 2, {"a", "b"}, "a=[1] b=[s0]", "u0:[1, 16] s0:[2, 64]", "u0:[1, 16]", "[1, 144]", "[1, 144]",
     /* zeros(4, 18, 2) + [1, 2] */
     {0, 143}, {1, 2}, 2, {{"a", 1, {1}}, {"b", 1, {70}}}, "b"},
};

START_TEST(test_runs_and_records)
{
    const int i = _i;
    char path[256];
    for (int dyn = 0; dyn < 2; dyn++) {
        snprintf(path, sizeof path, FIX "dyn_%s_%s.pt2", FIXTURES[i].name, dyn ? "dynamic" : "static");
        fixrec_check_run(path, dyn ? FIXTURES[i].out_dynamic : FIXTURES[i].out_static, FIXTURES[i].at, FIXTURES[i].want);
        cJSON *prog = fixrec_program(path);
        bool literal;
        char *dims = fixrec_input_dims(prog, FIXTURES[i].ninputs, FIXTURES[i].inputs, &literal);
        char *ranges = fixrec_ranges(prog);
        if (dyn) {
            ck_assert_str_eq(dims, FIXTURES[i].dyn_dims);
            ck_assert_str_eq(ranges, FIXTURES[i].dyn_ranges);
        } else { /* literal sizes only; a range only for an unbacked item() */
            ck_assert_msg(literal, "%s: input sizes %s", path, dims);
            ck_assert_str_eq(ranges, FIXTURES[i].static_ranges);
        }
        free(dims);
        free(ranges);
        cJSON_Delete(prog);
    }
}
END_TEST

/* A float32 input of the given sizes, ones (int64 4s for item's a). */
static char *write_input(const char *dir, const BadInput *b)
{
    bool ints = strcmp(b->name, "a") == 0;
    return fixrec_write_npy(dir, b->name, ints ? DT_I64 : DT_F32, b->ndim, b->sizes, ints ? 4 : 1);
}

START_TEST(test_wrong_size_refused)
{
    const int i = _i;
    char *dir = test_tmpdir();
    char rel[256], *model = NULL;
    snprintf(rel, sizeof rel, "%s/" FIX "dyn_%s_dynamic.pt2", test_project_dir(), FIXTURES[i].name);
    model = realpath(rel, NULL); /* the run's working directory is dir */
    ck_assert_msg(model != NULL, "%s is missing (make fixtures)", rel);
    const char *args[16] = {"run", model};
    char *files[3];
    int na = 2;
    for (int k = 0; k < FIXTURES[i].nbad; k++) {
        files[k] = write_input(dir, &FIXTURES[i].bad[k]);
        args[na++] = "--input";
        args[na++] = files[k];
    }
    args[na] = NULL;
    RunResult r = test_run_binary(args, dir, NULL);
    ck_assert_msg(r.code == 3, "%s: exit %d, want 3\n%s", model, r.code, r.err);
    char needle[64];
    snprintf(needle, sizeof needle, "%s.shape", FIXTURES[i].bad_name);
    ck_assert_msg(strstr(r.err, needle) != NULL, "%s: the refusal does not name %s:\n%s", model, needle, r.err);
    run_result_free(&r);
    for (int k = 0; k < FIXTURES[i].nbad; k++) {
        unlink(files[k]);
        free(files[k]);
    }
    rmdir(dir);
    free(dir);
    free(model);
}
END_TEST

Suite *suite_dyn_fixtures(void)
{
    Suite *s = suite_create("dyn_fixtures");
    TCase *tc = tcase_create("dyn_fixtures");
    tcase_set_timeout(tc, 60);
    int n = (int)EP_ARRAY_LEN(FIXTURES);
    tcase_add_loop_test(tc, test_runs_and_records, 0, n);
    tcase_add_loop_test(tc, test_wrong_size_refused, 0, n);
    suite_add_tcase(s, tc);
    return s;
}
