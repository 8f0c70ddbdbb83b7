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

/* The program JSON of the archive at path (caller deletes). */
static cJSON *program_json(const char *path)
{
    EpError err = {0};
    ZipArchive *z = zipa_open_file(path, &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    int found = -1;
    for (int i = 0; i < zipa_count(z); i++) {
        const char *n = zipa_name(z, i);
        size_t len = strlen(n);
        if (len > 18 && strcmp(n + len - 18, "/models/model.json") == 0)
            found = i;
    }
    ck_assert_msg(found >= 0, "%s has no models/model.json", path);
    char *data;
    size_t len;
    ck_assert_msg(zipa_read(z, found, &data, &len, &err) == EP_OK, "%s", err.msg);
    cJSON *j = cJSON_Parse(data);
    ck_assert_msg(j != NULL, "%s: the program does not parse", path);
    free(data);
    zipa_unref(z);
    return j;
}

/* A recorded size: its integer, or its expression, a bare symbol's srepr
** (Symbol('s0', integer=True, positive=True)) shown as its name. */
static void size_text(const cJSON *s, StrBuf *out, bool *literal)
{
    const cJSON *i = cJSON_GetObjectItem(s, "as_int");
    if (i) {
        sb_printf(out, "%lld", (long long)i->valuedouble);
        return;
    }
    *literal = false;
    const char *e = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "as_expr"), "expr_str")->valuestring;
    char name[32];
    int n = 0;
    if (sscanf(e, "Symbol('%31[^']', integer=True, positive=True)%n", name, &n) == 1 && e[n] == '\0')
        sb_append(out, name);
    else
        sb_append(out, e);
}

/* "x=[s0, 3] y=[s0, 1]": the recorded sizes of the user inputs; *literal:
** every size an integer. */
static char *input_dims(const cJSON *prog, int n, const char *const *names, bool *literal)
{
    const cJSON *tv = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(prog, "graph_module"), "graph"),
                                          "tensor_values");
    StrBuf b;
    sb_init(&b);
    *literal = true;
    for (int i = 0; i < n; i++) {
        const cJSON *sizes = cJSON_GetObjectItem(cJSON_GetObjectItem(tv, names[i]), "sizes");
        ck_assert_msg(sizes != NULL, "no tensor_values entry for input %s", names[i]);
        sb_printf(&b, "%s%s=[", i ? " " : "", names[i]);
        for (int d = 0; d < cJSON_GetArraySize(sizes); d++) {
            if (d)
                sb_append(&b, ", ");
            size_text(cJSON_GetArrayItem(sizes, d), &b, literal);
        }
        sb_append(&b, "]");
    }
    return b.data;
}

/* "s0:[2, 64] s0 + 1:[3, 65]", the range constraints in recorded order. */
static char *ranges_text(const cJSON *prog)
{
    StrBuf b;
    sb_init(&b);
    sb_append(&b, "");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(prog, "range_constraints"))
    {
        const cJSON *mx = cJSON_GetObjectItem(r, "max_val");
        sb_printf(&b, "%s%s:[%lld, ", b.len ? " " : "", r->string,
                  (long long)cJSON_GetObjectItem(r, "min_val")->valuedouble);
        if (cJSON_IsNumber(mx))
            sb_printf(&b, "%lld]", (long long)mx->valuedouble);
        else
            sb_append(&b, "oo]");
    }
    return b.data;
}

static void shape_text(const Tensor *t, char *buf, size_t cap)
{
    size_t at = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    snprintf(buf + at, cap > at ? cap - at : 0, "]");
}

/* Run on the archive's example inputs; the one output's shape and two
** elements. */
static void check_run(const char *path, const char *want_shape, const int64_t at[2], const float want[2])
{
    Model *m;
    EpError err = {0};
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s", err.msg);
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip != NULL, "%s", err.msg);
    ck_assert_msg(interp_bind_sample_inputs(ip, &err) == EP_OK, "%s: %s", path, err.msg);
    ck_assert_msg(interp_run(ip, &err) == EP_OK, "%s: %s", path, err.msg);
    ck_assert_int_eq(interp_num_user_outputs(ip), 1);
    const Value *v = interp_user_output(ip, 0);
    ck_assert(v && v->kind == V_TENSOR && v->t->dtype == DT_F32);
    char shape[128];
    shape_text(v->t, shape, sizeof shape);
    ck_assert_msg(strcmp(shape, want_shape) == 0, "%s: output %s, want %s", path, shape, want_shape);
    for (int k = 0; k < 2 && !isnan(want[k]); k++) {
        Tensor *c = tensor_contiguous((Tensor *)v->t, &err);
        ck_assert_msg(c != NULL, "%s", err.msg);
        int64_t n = tensor_numel(c), idx = at[k] < 0 ? n + at[k] : at[k];
        ck_assert(idx >= 0 && idx < n);
        float got = ((const float *)tensor_data(c))[idx];
        ck_assert_msg(got == want[k], "%s: output[%lld] = %g, want %g", path, (long long)at[k], got, want[k]);
        tensor_unref(c);
    }
    interp_free(ip);
    model_free(m);
}

START_TEST(test_runs_and_records)
{
    const int i = _i;
    char path[256];
    for (int dyn = 0; dyn < 2; dyn++) {
        snprintf(path, sizeof path, FIX "dyn_%s_%s.pt2", FIXTURES[i].name, dyn ? "dynamic" : "static");
        check_run(path, dyn ? FIXTURES[i].out_dynamic : FIXTURES[i].out_static, FIXTURES[i].at, FIXTURES[i].want);
        cJSON *prog = program_json(path);
        bool literal;
        char *dims = input_dims(prog, FIXTURES[i].ninputs, FIXTURES[i].inputs, &literal);
        char *ranges = ranges_text(prog);
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

/* A float32 (int64 for item's a) input of the given sizes, ones. */
static char *write_input(const char *dir, const BadInput *b)
{
    EpError err = {0};
    DType dt = strcmp(b->name, "a") == 0 ? DT_I64 : DT_F32;
    Tensor *t = tensor_empty(dt, b->ndim, b->sizes, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    for (int64_t k = 0; k < tensor_numel(t); k++) {
        if (dt == DT_I64)
            ((int64_t *)tensor_data(t))[k] = 4;
        else
            ((float *)tensor_data(t))[k] = 1;
    }
    char *path = ep_xasprintf("%s/%s.npy", dir, b->name);
    ck_assert_msg(npy_save_file(path, t, &err) == EP_OK, "%s", err.msg);
    tensor_unref(t);
    return path;
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
