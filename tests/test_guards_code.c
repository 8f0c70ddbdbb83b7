/*
** test_guards_code.c -- the ExportedProgram's guards_code (PyTorch >= 2.9):
** the loader reads it in every era (absent, null, empty, filled), each
** guard translated over the inputs' recorded sizes (the condition checked
** against a hand-derived equivalent with sym_equal, and the text PyTorch's
** "Guard failed:" message shows), a guard epdbg cannot read refused with
** its JSON path and text (and exit 2 from the binary), a refusal by value
** from guard_code_translate's sizes mode.
**
** The programs are the generator's issue fixtures (make fixtures):
** view_multiple records x=[5*s0] y=[s0], args records args_0=[s0, 3]
** args_1=[s0, 3] with forward_arg_names args_0, args_1 (*args).
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixrecords.h"
#include "interp/guards_code.h"
#include "interp/program.h"
#include "interp/zipread.h"
#include "interp/zipwrite.h"
#include "testutil.h"

#define FIX "build/fixtures/"

/* The program JSON of fixture name's dynamic archive with guards_code set
** to the n strings (n < 0: the field removed; NULL strings: JSON null). */
static char *program_with_guards(const char *name, const char *const *guards, int n)
{
    char path[256];
    snprintf(path, sizeof path, FIX "issue_%s_dynamic.pt2", name);
    cJSON *prog = fixrec_program(path);
    cJSON_DeleteItemFromObjectCaseSensitive(prog, "guards_code");
    if (n >= 0 && !guards) {
        cJSON_AddNullToObject(prog, "guards_code");
    } else if (n >= 0) {
        cJSON *gc = cJSON_AddArrayToObject(prog, "guards_code");
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(gc, cJSON_CreateString(guards[i]));
    }
    char *text = cJSON_PrintUnformatted(prog);
    cJSON_Delete(prog);
    return text;
}

static ExportedProgram *load(const char *json)
{
    ExportedProgram *ep = NULL;
    EpError err = {0};
    EpStatus rc = program_load_json(json, strlen(json), "model.json", &ep, &err);
    ck_assert_msg(rc == EP_OK, "%s", err.msg);
    return ep;
}

/* ---- eras ------------------------------------------------------------------------ */

START_TEST(test_eras)
{
    /* before PyTorch 2.9 the field is absent; some writers put null or [] */
    static const char *const one[] = {"(L['x'].size()[0] // 5) != 1"};
    struct {
        int n;
        const char *const *guards;
        int want;
    } eras[] = {{-1, NULL, 0}, {0, NULL, 0}, {0, one, 0}, {1, one, 1}};
    for (size_t k = 0; k < EP_ARRAY_LEN(eras); k++) {
        char *json = program_with_guards("view_multiple", eras[k].guards, eras[k].n);
        ExportedProgram *ep = load(json);
        ck_assert_int_eq(ep_num_guards_code(ep), eras[k].want);
        ck_assert_ptr_null(ep_guard_code(ep, eras[k].want));
        if (eras[k].want) {
            const GuardCode *g = ep_guard_code(ep, 0);
            ck_assert_str_eq(g->text, "(L['x'].size()[0] // 5) != 1");
            ck_assert_str_eq(g->shown, "x.size()[0] // 5 != 1");
            /* x.size()[0] is recorded as 5*s0: (5*s0)//5 != 1 is s0 != 1 */
            SymExpr *want = sym_parse("Ne(s0, 1)", NULL, 0);
            ck_assert_msg(sym_equal(g->cond, want), "%s", sym_to_string(g->cond));
            sym_free(want);
        }
        program_free(ep);
        free(json);
    }
}
END_TEST

/* ---- translation ----------------------------------------------------------------- */

/* A guard as PyTorch writes it, the text its message shows, and the
** condition over the recorded sizes (worked by hand from the fixture's
** records). */
static const struct {
    const char *fixture, *text, *shown, *cond;
} TRANSLATED[] = {
    /* #181097 and #150851's forms */
    {"view_multiple", "(L['x'].size()[0] // 5) != 1", "x.size()[0] // 5 != 1", "Ne(s0, 1)"},
    {"max_dims", "L['x'].size()[0] < L['y'].size()[0]", "x.size()[0] < y.size()[0]", "s0 < s1"},
    /* PythonMod's parentheses go, Python's % is Mod (floor semantics) */
    {"view_multiple", "((L['y'].size()[0] % 2)) == 0", "y.size()[0] % 2 == 0", "Eq(Mod(s0, 2), 0)"},
    /* and / or / not loosest, as in Python; not of a comparison */
    {"view_multiple", "L['x'].size()[0] <= 40 and not L['y'].size()[0] == 3",
     "x.size()[0] <= 40 and not y.size()[0] == 3", "And(5*s0 <= 40, Ne(s0, 3))"},
    {"view_multiple", "(L['y'].size()[0] != 1 or L['x'].size()[0] != 5) and L['y'].size()[0] >= 1",
     "(y.size()[0] != 1 or x.size()[0] != 5) and y.size()[0] >= 1", "And(Or(Ne(s0, 1), Ne(5*s0, 5)), s0 >= 1)"},
    /* max(), .size(d), .shape[d], a negative index; parentheses kept where needed */
    {"view_multiple", "max(L['x'].size()[0], L['y'].size(0)) >= 2 * (L['y'].shape[-1] + 1)",
     "max(x.size()[0], y.size(0)) >= 2 * (y.shape[-1] + 1)", "Max(5*s0, s0) >= 2*s0 + 2"},
    {"view_multiple", "-L['y'].size()[0] // 2 < 0", "-y.size()[0] // 2 < 0", "FloorDiv(-s0, 2) < 0"},
    {"view_multiple", "(L['y'].size()[0] - 1) ** 2 == 0", "(y.size()[0] - 1) ** 2 == 0", "Eq((s0 - 1)**2, 0)"},
    /* a chained comparison is Python's conjunction */
    {"view_multiple", "2 <= L['y'].size()[0] < 8", "2 <= y.size()[0] < 8", "And(2 <= s0, s0 < 8)"},
    /* the newer tracer's flat_args, a stride (recorded 1) */
    {"view_multiple", "L['flat_args'][1].size()[0] != 1 or L['x'].stride()[0] == 1",
     "y.size()[0] != 1 or x.stride()[0] == 1", "Or(Ne(s0, 1), Eq(1, 1))"},
    /* *args: L['args'][0] and, after _force_gm_signature_match, L['args_1'] */
    {"args", "L['args'][0].size()[0] >= 3", "args[0].size()[0] >= 3", "s0 >= 3"},
    {"args", "L['args_1'].size()[0] == L['args'][0].size()[0]", "args_1.size()[0] == args[0].size()[0]",
     "Eq(s0, s0)"},
    /* the message form, without L */
    {"view_multiple", "x.size()[0] // 5 != 1", "x.size()[0] // 5 != 1", "Ne(s0, 1)"},
};

START_TEST(test_translate)
{
    const int i = _i;
    char *json = program_with_guards(TRANSLATED[i].fixture, NULL, -1);
    ExportedProgram *ep = load(json);
    char why[256], *shown = NULL;
    SymExpr *e = guard_code_translate(ep, TRANSLATED[i].text, NULL, NULL, &shown, why, sizeof why);
    ck_assert_msg(e != NULL, "%s: %s", TRANSLATED[i].text, why);
    ck_assert_str_eq(shown, TRANSLATED[i].shown);
    SymExpr *want = sym_parse(TRANSLATED[i].cond, NULL, 0);
    ck_assert_ptr_nonnull(want);
    char *got = sym_to_string(e);
    ck_assert_msg(sym_equal(e, want), "%s: %s, want %s", TRANSLATED[i].text, got, TRANSLATED[i].cond);
    free(got);
    sym_free(want);
    sym_free(e);
    free(shown);
    program_free(ep);
    free(json);
}
END_TEST

/* Guards epdbg cannot read, each with its reason. */
static const struct {
    const char *text, *why;
} REFUSED[] = {
    {"L['z'].size()[0] == 1", "z is not a user input of the program"},
    {"L['x'].size()[1] == 1", "x.size()[1]: input x has 1 dimensions"},
    {"L['x'] == 1", "x is a tensor, not a SymInt input with a recorded value (a tensor's size is read with .size())"},
    {"L['x'].storage_offset() == 0",
     "a reference to an input reads .size(), .shape or .stride(), not this near 'storage_offset' (offset 7)"},
    {"L['y'].size()[0] in (1, 2)", "'in' and 'is' are not guards epdbg reads near 'in' (offset 17)"},
    {"L['y'].size()[0] & 1 == 0", "bitwise operators are not guards epdbg reads near '&' (offset 17)"},
    {"L['y'].size()[0] == ", "expected a number, a name or '(' at the end"},
    {"L['flat_args'][2].size()[0] == 1", "flat_args[2]: the program has 2 user inputs"},
    {"math.log(L['y'].size()[0]) > 1", "math.log() is not a function epdbg reads"},
    {"L['y'].size()[0] == 1)", "unexpected text after the guard near ')' (offset 21)"},
};

START_TEST(test_refused)
{
    const int i = _i;
    char *json = program_with_guards("view_multiple", NULL, -1);
    ExportedProgram *ep = load(json);
    char why[256];
    char *shown = NULL;
    SymExpr *e = guard_code_translate(ep, REFUSED[i].text, NULL, NULL, &shown, why, sizeof why);
    ck_assert_msg(e == NULL, "%s translated", REFUSED[i].text);
    ck_assert_ptr_null(shown);
    ck_assert_str_eq(why, REFUSED[i].why);
    program_free(ep);
    free(json);
}
END_TEST

/* ---- the loader refuses, with the path -------------------------------------------- */

START_TEST(test_load_refuses)
{
    static const char *const guards[] = {"L['y'].size()[0] >= 1", "L['z'].size()[0] == 1"};
    char *json = program_with_guards("view_multiple", guards, 2);
    ExportedProgram *ep = NULL;
    EpError err = {0};
    ck_assert_int_eq(program_load_json(json, strlen(json), "model.json", &ep, &err), EP_ERR_FORMAT);
    ck_assert_ptr_null(ep);
    ck_assert_str_eq(err.msg, "model.json: guards_code[1]: the guard 'L['z'].size()[0] == 1' is not one epdbg can "
                              "check: z is not a user input of the program");
    free(json);
    /* not a string */
    json = program_with_guards("view_multiple", NULL, -1);
    cJSON *prog = cJSON_Parse(json);
    free(json);
    cJSON *gc = cJSON_AddArrayToObject(prog, "guards_code");
    cJSON_AddItemToArray(gc, cJSON_CreateNumber(3));
    json = cJSON_PrintUnformatted(prog);
    cJSON_Delete(prog);
    ck_assert_int_eq(program_load_json(json, strlen(json), "model.json", &ep, &err), EP_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "model.json: guards_code[0]: ") == err.msg, "%s", err.msg);
    free(json);
}
END_TEST

/* The archive at src with its program JSON replaced by json, saved at dst. */
static void rewrite_archive(const char *src, const char *json, const char *dst)
{
    EpError err = {0};
    ZipArchive *z = zipa_open_file(src, &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    ZipWriter *w = zw_new(64);
    for (int i = 0; i < zipa_count(z); i++) {
        const char *n = zipa_name(z, i);
        size_t len = strlen(n);
        char *data;
        size_t dlen;
        if (len > 18 && strcmp(n + len - 18, "/models/model.json") == 0) {
            zw_add(w, n, json, strlen(json));
            continue;
        }
        ck_assert_msg(zipa_read(z, i, &data, &dlen, &err) == EP_OK, "%s", err.msg);
        zw_add(w, n, data, dlen);
        free(data);
    }
    ck_assert_msg(zw_save(w, dst, &err) == EP_OK, "%s", err.msg);
    zw_free(w);
    zipa_unref(z);
}

START_TEST(test_binary_exit_2)
{
    static const char *const guards[] = {"L['x'].size()[0] // 5 >= 1", "L['y'].size()[0] != L['w'].size()[0]"};
    char *dir = test_tmpdir();
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s/" FIX "issue_view_multiple_dynamic.pt2", test_project_dir());
    snprintf(dst, sizeof dst, "%s/bad_guard.pt2", dir);
    char *json = program_with_guards("view_multiple", guards, 2);
    rewrite_archive(src, json, dst);
    free(json);
    const char *args[] = {"info", dst, NULL};
    RunResult r = test_run_binary(args, dir, NULL);
    ck_assert_msg(r.code == 2, "exit %d\n%s%s", r.code, r.out, r.err);
    ck_assert_msg(strstr(r.err, "guards_code[1]: the guard 'L['y'].size()[0] != L['w'].size()[0]' is not one epdbg "
                                "can check: w is not a user input of the program") != NULL,
                  "%s", r.err);
    run_result_free(&r);
    unlink(dst);
    rmdir(dir);
    free(dir);
}
END_TEST

/* ---- values ------------------------------------------------------------------------- */

/* x (5,), y (1,): the sizes a bind would give. */
static bool sizes_5_1(void *ctx, int u, GuardRefKind kind, int d, int64_t *out)
{
    (void)ctx;
    if (kind != GREF_SIZE || d != 0 || u < 0 || u > 1)
        return false;
    *out = u == 0 ? 5 : 1;
    return true;
}

START_TEST(test_values)
{
    char *json = program_with_guards("view_multiple", NULL, -1);
    ExportedProgram *ep = load(json);
    char why[256], *shown = NULL;
    SymExpr *e = guard_code_translate(ep, "(L['x'].size()[0] // 5) != L['y'].size()[0]", sizes_5_1, NULL, &shown,
                                      why, sizeof why);
    ck_assert_msg(e != NULL, "%s", why);
    ck_assert_str_eq(shown, "5 // 5 != 1");
    SymValue v;
    SymBindings none;
    sym_bindings_init(&none);
    ck_assert_int_eq(sym_eval(e, &none, &v, NULL), SYM_OK);
    ck_assert(v.kind == SYMV_BOOL && !v.b); /* 5 // 5 = 1 */
    sym_free(e);
    free(shown);
    /* a size the inputs do not have */
    e = guard_code_translate(ep, "L['x'].stride()[0] == 1", sizes_5_1, NULL, NULL, why, sizeof why);
    ck_assert_ptr_null(e);
    ck_assert_str_eq(why, "x.stride()[0] has no value");
    program_free(ep);
    free(json);
}
END_TEST

Suite *suite_guards_code(void)
{
    Suite *s = suite_create("guards_code");
    TCase *tc = tcase_create("guards_code");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_eras);
    tcase_add_loop_test(tc, test_translate, 0, (int)EP_ARRAY_LEN(TRANSLATED));
    tcase_add_loop_test(tc, test_refused, 0, (int)EP_ARRAY_LEN(REFUSED));
    tcase_add_test(tc, test_load_refuses);
    tcase_add_test(tc, test_binary_exit_2);
    tcase_add_test(tc, test_values);
    suite_add_tcase(s, tc);
    return s;
}
