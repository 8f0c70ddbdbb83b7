/*
** test_shape_info.c -- every node's symbolic shape with the ranges of its
** sizes (interp/shape_info.h, `info shapes`, `epdbg info --shapes`):
** the generator's fixtures with exact text worked out by hand from their
** definitions (examples/gen/fixtures.c: x [s0, 4] and y [2*s0, 4] with s0
** in [2, 8]; x [s0] + y[1:] with s0 in [2, 64]; u0 = item()), interval
** arithmetic on sizes checked by hand, and a property over every corpus
** archive: the JSON lists every node, and every size each node has when
** run on the archive's reference inputs lies in the range listed for it.
*/
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugger/session.h"
#include "interp/shape_info.h"
#include "testutil.h"

#define FIX "build/fixtures/"

/* The text from the line starting with from to the end of out. */
static const char *from_line(const char *out, const char *from)
{
    const char *at = strstr(out, from);
    ck_assert_msg(at != NULL, "no '%s' in:\n%s", from, out);
    return at;
}

START_TEST(test_info_shapes_dynamic)
{
    RunResult r = test_run_binary((const char *[]){"info", FIX "dynamic.pt2", "--shapes", NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    /* s0 in [2, 8], so cat's (and add's) 2*s0 rows are in [4, 16]; the
    ** fixture records no type for the SymInt sym_size_int */
    ck_assert_str_eq(from_line(r.out, "  shapes "),
                     "  shapes      3 nodes (recorded at export; ranges from the range constraints)\n"
                     "    node         shape            ranges\n"
                     "    cat          float32[2*s0, 4] 2*s0 in [4, 16]\n"
                     "    add          float32[2*s0, 4] 2*s0 in [4, 16]\n"
                     "    sym_size_int -\n");
    run_result_free(&r);
    /* without --shapes: no table */
    r = test_run_binary((const char *[]){"info", FIX "dynamic.pt2", NULL}, NULL, NULL);
    ck_assert_ptr_null(strstr(r.out, "  shapes "));
    run_result_free(&r);
}
END_TEST

/* The debugger's list before and after the run (x of 5, y of 6), and one
** node's inputs and outputs. */
START_TEST(test_debugger_info_shapes_guard_derived)
{
    RunResult r = test_run_binary((const char *[]){FIX "guard_derived.pt2", "--batch", "-ex", "info shapes", "-ex",
                                                   "run", "-ex", "info shapes", "-ex", "info shapes add", NULL},
                                  NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "(epdbg) info shapes\n"
                                "    #      node    recorded    now ranges\n"
                                "=>  #0     slice_1 float32[s0] -   s0 in [2, 64]\n"
                                "    #1     add     float32[s0] -   s0 in [2, 64]\n"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "(epdbg) info shapes\n"
                                "    #      node    recorded    now        ranges\n"
                                "    #0     slice_1 float32[s0] float32[5] s0 in [2, 64]\n"
                                "    #1     add     float32[s0] float32[5] s0 in [2, 64]\n"),
                  "%s", r.out);
    /* y is [s0 + 1]: 6 now, in [3, 65] */
    ck_assert_msg(strstr(r.out, "        value                recorded                 now              ranges\n"
                                "  in0   x                    float32[s0]              float32[5]       s0 in [2, 64]\n"
                                "  in1   slice_1              float32[s0]              float32[5]       s0 in [2, 64]\n"
                                "  out0  add                  float32[s0]              float32[5]       s0 in [2, 64]\n"
                                "  symbols\n"
                                "    s0 = 5  (range [2, 64])\n"),
                  "%s", r.out);
    run_result_free(&r);
    r = test_run_binary((const char *[]){FIX "guard_derived.pt2", "--batch", "-ex", "info shapes slice_1", NULL},
                        NULL, NULL);
    ck_assert_msg(strstr(r.out, "  in0   y                    float32[s0 + 1]          float32[6]       s0 + 1 in [3, 65]\n"),
                  "%s", r.out);
    run_result_free(&r);
}
END_TEST

/* An unbacked u0 = item() with no recorded range: any integer, made by
** node 'item'; Mod(u0, 4) is in [0, 3] whatever u0 is (floor semantics). */
START_TEST(test_unbacked_item)
{
    RunResult r =
        test_run_binary((const char *[]){"info", FIX "guard_item.pt2", "--shapes", "--json", NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    cJSON *o = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(o);
    char *u = cJSON_PrintUnformatted(cJSON_GetObjectItem(o, "unbacked"));
    ck_assert_str_eq(u, "{\"u0\":{\"min\":null,\"max\":null,\"node\":\"item\"}}");
    free(u);
    cJSON *mod = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "shapes"), 1);
    char *m = cJSON_PrintUnformatted(mod);
    ck_assert_str_eq(m, "{\"node\":\"mod\",\"op\":\"_operator.mod\",\"outputs\":[{\"name\":\"mod\",\"type\":\"SymInt "
                        "Mod(u0, 4)\",\"value\":[\"Mod(u0, 4)\"],\"ranges\":[[0,3]]}]}");
    free(m);
    cJSON_Delete(o);
    run_result_free(&r);
    r = test_run_binary((const char *[]){"info", FIX "guard_item.pt2", "--shapes", NULL}, NULL, NULL);
    ck_assert_msg(strstr(r.out, "    item                   SymInt u0                 u0 in [-inf, inf] from 'item'\n"
                                "    mod                    SymInt Mod(u0, 4)         Mod(u0, 4) in [0, 3]\n"
                                "    eq                     SymBool Eq(Mod(u0, 4), 0)\n"),
                  "%s", r.out);
    run_result_free(&r);
}
END_TEST

static SymRange dim_range(ShapeInfo *si, const char *text, bool is_size)
{
    SymDim d = {.is_expr = true, .expr = (char *)text};
    d.parsed = sym_parse(text, NULL, 0);
    ck_assert_ptr_nonnull(d.parsed);
    SymRange r = {0, 0};
    ck_assert(shape_info_dim_range(si, &d, is_size, &r));
    sym_free(d.parsed);
    return r;
}

/* symint_range: the SymInt input n is s0 in [2, 8]; the API on sizes
** worked by hand over that range. */
START_TEST(test_ranges_by_hand)
{
    Model *m;
    EpError err = {0};
    ck_assert_msg(model_open(FIX "symint_range.pt2", NULL, &m, &err) == EP_OK, "%s", err.msg);
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_ptr_nonnull(ip);
    ShapeInfo *si = shape_info_new(interp_program(ip));
    SymRange r;
    ck_assert(sym_ranges_get(shape_info_ranges(si), "s0", &r));
    ck_assert(r.lo == 2 && r.hi == 8);
    r = dim_range(si, "2*s0 + 1", true); /* [5, 17] */
    ck_assert(r.lo == 5 && r.hi == 17);
    r = dim_range(si, "s0 - 5", false); /* a SymInt may be negative: [-3, 3] */
    ck_assert(r.lo == -3 && r.hi == 3);
    r = dim_range(si, "s0 - 5", true); /* a size may not: [0, 3] */
    ck_assert(r.lo == 0 && r.hi == 3);
    r = dim_range(si, "(s0//3)", true); /* [0, 2] */
    ck_assert(r.lo == 0 && r.hi == 2);
    SymDim lit = {.value = 3};
    ck_assert(shape_info_dim_range(si, &lit, true, &r) && r.lo == 3 && r.hi == 3);
    SymDim bad = {.is_expr = true, .expr = (char *)"s0 +"};
    ck_assert(!shape_info_dim_range(si, &bad, true, &r));
    ck_assert_int_eq(shape_info_num_unbacked(si), 0);
    char buf[64];
    ck_assert_str_eq(shape_info_range_text((SymRange){0, SYM_RANGE_POS_INF}, buf, sizeof buf), "[0, inf]");
    /* mul is static: a literal shape, no ranges */
    char *types = shape_info_node_types(si, interp_node(ip, 0)), *ranges = shape_info_node_ranges(si, interp_node(ip, 0));
    ck_assert_str_eq(types, "float32[3]");
    ck_assert_str_eq(ranges, "");
    free(types);
    free(ranges);
    shape_info_free(si);
    interp_free(ip);
    model_free(m);
}
END_TEST

/* Is value v within the range JSON pair p ([min|null, max|null])? */
static bool in_range(const cJSON *p, int64_t v)
{
    if (!cJSON_IsArray(p)) /* null: unreadable expression, no claim */
        return true;
    const cJSON *lo = cJSON_GetArrayItem(p, 0), *hi = cJSON_GetArrayItem(p, 1);
    return (cJSON_IsNull(lo) || (double)v >= lo->valuedouble) && (cJSON_IsNull(hi) || (double)v <= hi->valuedouble);
}

static bool json_has_symbol(const cJSON *shape)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, shape) if (cJSON_IsString(d)) return true;
    return false;
}

/* Every corpus archive: `info --shapes --json` parses and lists every node
** of the program in order; run on its reference inputs, every output a
** node computes has the rank recorded and each size (or SymInt value) in
** the range listed for it. */
START_TEST(test_corpus_ranges_hold)
{
    char *const *stems;
    int n = test_corpus_archives(&stems);
    if (n == 0)
        return; /* the corpus suite says loudly that ../shared is absent */
    int dynamic = 0, checked = 0;
    for (int a = 0; a < n; a++) {
        char *path = test_corpus_archive_path(stems[a]);
        char *ref = ep_xasprintf("%s/%s.ref", test_corpus_dir(), stems[a]);
        RunResult r = test_run_binary((const char *[]){"info", path, "--shapes", "--json", NULL}, NULL, NULL);
        ck_assert_msg(r.code == 0, "%s: %s", path, r.err);
        cJSON *o = cJSON_Parse(r.out);
        ck_assert_msg(o != NULL, "%s: --shapes --json does not parse", path);
        if (cJSON_GetObjectItem(o, "models")) { /* several programs: the stored references are the default's */
            cJSON_Delete(o);
            run_result_free(&r);
            free(ref);
            free(path);
            continue;
        }
        Session *s = test_session_open(path, ref, true);
        Interp *ip = session_interp(s);
        EpError err = {0};
        ck_assert_msg(session_continue(s, 1, &err) == EP_OK && interp_finished(ip), "%s: %s", path, err.msg);
        const cJSON *shapes = cJSON_GetObjectItem(o, "shapes");
        ck_assert_int_eq(cJSON_GetArraySize(shapes), interp_num_nodes(ip));
        bool sym = false;
        for (int i = 0; i < interp_num_nodes(ip); i++) {
            const cJSON *e = cJSON_GetArrayItem(shapes, i);
            ck_assert_str_eq(cJSON_GetObjectItem(e, "node")->valuestring, interp_node(ip, i)->name);
            const cJSON *out;
            cJSON_ArrayForEach(out, cJSON_GetObjectItem(e, "outputs"))
            {
                const char *name = cJSON_GetObjectItem(out, "name")->valuestring;
                const cJSON *shape = cJSON_GetObjectItem(out, "shape"), *value = cJSON_GetObjectItem(out, "value");
                const cJSON *ranges = cJSON_GetObjectItem(out, "ranges");
                const Value *v = interp_value(ip, name);
                if (!v || (!shape && !value))
                    continue; /* freed, or nothing recorded */
                sym = sym || json_has_symbol(shape ? shape : value);
                if (shape && v->kind == V_TENSOR) {
                    ck_assert_msg(cJSON_GetArraySize(shape) == v->t->ndim, "%s: %s has rank %d", path, name,
                                  v->t->ndim);
                    for (int d = 0; d < v->t->ndim; d++)
                        ck_assert_msg(in_range(cJSON_GetArrayItem(ranges, d), v->t->sizes[d]),
                                      "%s: %s.shape[%d] = %lld outside its listed range", path, name, d,
                                      (long long)v->t->sizes[d]);
                    checked++;
                } else if (value && v->kind == V_INT) {
                    ck_assert_msg(in_range(cJSON_GetArrayItem(ranges, 0), v->i), "%s: %s = %lld outside its range",
                                  path, name, (long long)v->i);
                    checked++;
                }
            }
        }
        dynamic += sym;
        session_free(s);
        cJSON_Delete(o);
        run_result_free(&r);
        free(ref);
        free(path);
    }
    ck_assert_int_gt(dynamic, 0);
    ck_assert_int_gt(checked, 100);
    fprintf(stderr, "shape_info: %d corpus archives with symbolic shapes, %d values checked against their ranges\n",
            dynamic, checked);
}
END_TEST

Suite *suite_shape_info(void)
{
    Suite *s = suite_create("shape_info");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_info_shapes_dynamic);
    tcase_add_test(tc, test_debugger_info_shapes_guard_derived);
    tcase_add_test(tc, test_unbacked_item);
    tcase_add_test(tc, test_ranges_by_hand);
    suite_add_tcase(s, tc);
    TCase *corpus = tcase_create("corpus");
    tcase_set_timeout(corpus, 600);
    tcase_add_test(corpus, test_corpus_ranges_hold);
    suite_add_tcase(s, corpus);
    return s;
}
