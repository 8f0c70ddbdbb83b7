/*
** test_fuzz_regress.c -- every finding of the fuzzers (fuzz/README.md) and
** of the hostile-file review of issue 12, fed to the code that failed: each
** input must now get one clean error naming the place, with no sanitizer
** report (this suite runs under ASan/UBSan/LeakSanitizer in `make check`).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugger/record.h"
#include "debugger/session.h"
#include "interp/npy.h"
#include "interp/program.h"
#include "symbolic/sym.h"
#include "testutil.h"

static void assert_has(const char *msg, const char *want)
{
    ck_assert_msg(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
}

/* ---- .npy / .npz ------------------------------------------------------------ */

/* A .npy whose header (hlen bytes announced) ends inside the shape digits:
** the buffer is exactly as long as the file, so reading a digit past it is
** a heap over-read ASan reports. */
START_TEST(test_npy_header_ends_in_digits)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1234";
    size_t hlen = sizeof dict - 1, len = 10 + hlen;
    unsigned char *b = malloc(len);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)hlen;
    b[9] = 0;
    memcpy(b + 10, dict, hlen);
    EpError err = {0};
    ck_assert_ptr_null(npy_load_mem(b, len, "cut.npy", &err));
    ck_assert_int_eq(err.code, EP_ERR_FORMAT);
    assert_has(err.msg, "cut.npy: header: bad 'shape'");
    /* a dimension too large for int64 is said, not wrapped */
    static const char huge[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }";
    hlen = sizeof huge - 1;
    b = realloc(b, 10 + hlen);
    b[8] = (unsigned char)hlen;
    memcpy(b + 10, huge, hlen);
    ck_assert_ptr_null(npy_load_mem(b, 10 + hlen, "huge.npy", &err));
    assert_has(err.msg, "huge.npy: header: dimension too large in 'shape'");
    free(b);
}
END_TEST

/* Found by fuzz_npy: a shape with a 0 and sizes whose product overflows
** int64 has no elements, but its strides overflowed (UBSan); dimensions
** not separated by commas were taken too. */
START_TEST(test_npy_shape_product)
{
    static const struct { const char *dict, *want; } cases[] = {
        {"{'descr': '>f2', 'fortran_order': False, 'shape': (2, 0, 9223372036854775807, 60), }",
         "e.npy: header: 'shape' too large"},
        {"{'descr': '|f4', 'fortran_order': False, 'shape': (0, 9223372036854775807), }",
         "e.npy: header: 'shape' too large"}, /* in bytes */
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 2), }", "e.npy: header: bad 'shape'"},
    };
    for (size_t c = 0; c < EP_ARRAY_LEN(cases); c++) {
        size_t hlen = strlen(cases[c].dict), len = 10 + hlen;
        unsigned char *b = malloc(len);
        memcpy(b, "\x93NUMPY\x01\x00", 8);
        b[8] = (unsigned char)hlen;
        b[9] = 0;
        memcpy(b + 10, cases[c].dict, hlen);
        EpError err = {0};
        ck_assert_ptr_null(npy_load_mem(b, len, "e.npy", &err));
        assert_has(err.msg, cases[c].want);
        free(b);
    }
}
END_TEST

/* Rewrite a 32-bit little-endian field at offset off of every record with
** signature sig (local headers "PK\3\4", central entries "PK\1\2"). */
static void patch_records(unsigned char *b, size_t len, const char *sig, size_t off, uint32_t v, int width)
{
    for (size_t i = 0; i + off + 4 <= len; i++)
        if (memcmp(b + i, sig, 4) == 0)
            for (int k = 0; k < width; k++)
                b[i + off + (size_t)k] = (unsigned char)(v >> (8 * k));
}

/* An .npz whose only member is patched after writing (fix_up); the error
** npz_load gives. */
static void npz_patched_fails(void (*fix_up)(unsigned char *, size_t), const char *want)
{
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/bomb.npz", dir);
    EpError err = {0};
    Tensor *t = tensor_zeros(DT_F32, 1, (int64_t[]){4}, &err);
    NpzEntry e = {(char *)"a", t};
    ck_assert_int_eq(npz_save(path, &e, 1, &err), EP_OK);
    tensor_unref(t);
    char *data;
    size_t len;
    ck_assert_int_eq(read_file(path, &data, &len, &err), EP_OK);
    fix_up((unsigned char *)data, len);
    ck_assert_int_eq(write_file_atomic(path, data, len, &err), EP_OK);
    free(data);
    NpzArchive z;
    ck_assert_int_eq(npz_load(path, &z, &err), EP_ERR_FORMAT);
    assert_has(err.msg, path);
    assert_has(err.msg, want);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

/* 4 GiB declared: allocated before reading, found by fuzz_npy (OOM) */
static void declare_4gib(unsigned char *b, size_t len)
{
    patch_records(b, len, "PK\3\4", 22, 0xfc000000u, 4);
    patch_records(b, len, "PK\1\2", 24, 0xfc000000u, 4);
}

static void declare_4gib_deflated(unsigned char *b, size_t len)
{
    declare_4gib(b, len);
    patch_records(b, len, "PK\3\4", 8, 8, 2);
    patch_records(b, len, "PK\1\2", 10, 8, 2);
}

START_TEST(test_npz_member_sizes)
{
    npz_patched_fails(declare_4gib, "member a.npy: stored with 144 bytes but declares 4227858432");
    npz_patched_fails(declare_4gib_deflated, "declares 4227858432 bytes from 144 compressed, more than deflate can produce");
}
END_TEST

/* A replay file with two metadata members: the second replaced (and
** leaked) the first's strings. */
START_TEST(test_record_twice)
{
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/twice-replay.npz", dir);
    EpError err = {0};
    static const char *texts[2] = {"{\"model\": \"first.pt2\"}", "{\"model\": \"other.pt2\"}"};
    NpzEntry e[2] = {{(char *)"__epdbg__", NULL}, {(char *)"__epdbg_X", NULL}};
    for (int i = 0; i < 2; i++) {
        int64_t n = (int64_t)strlen(texts[i]);
        e[i].t = tensor_zeros(DT_U8, 1, &n, &err);
        memcpy(tensor_data(e[i].t), texts[i], (size_t)n);
    }
    ck_assert_int_eq(npz_save(path, e, 2, &err), EP_OK);
    for (int i = 0; i < 2; i++)
        tensor_unref(e[i].t);
    char *data;
    size_t len;
    ck_assert_int_eq(read_file(path, &data, &len, &err), EP_OK);
    for (char *p = data; (p = memmem(p, len - (size_t)(p - data), "__epdbg_X.npy", 13)); p += 13)
        p[8] = '_';
    ck_assert_int_eq(write_file_atomic(path, data, len, &err), EP_OK);
    free(data);
    RecordMeta meta;
    ck_assert_msg(record_load_meta(path, &meta, &err) == EP_OK, "%s", err.msg);
    ck_assert_str_eq(meta.model_path, "first.pt2");
    record_meta_free(&meta);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}
END_TEST

/* ---- break conditions ---------------------------------------------------------- */

/* `break relu if ` + 100,000 '-' or '!' recursed once per character. */
START_TEST(test_condition_depth)
{
    static const struct { char c; const char *tail; const char *want; } cases[] = {
        {'-', "1", "nested more than 100 deep"},
        {'!', "nan", "nested more than 100 deep"},
        {'(', "1", "nested more than 100 deep"},
    };
    size_t n = 100000;
    char *text = malloc(n + 8);
    for (size_t c = 0; c < EP_ARRAY_LEN(cases); c++) {
        memset(text, cases[c].c, n);
        strcpy(text + n, cases[c].tail);
        EpError err = {0};
        ck_assert_ptr_null(bpcond_parse(text, &err));
        ck_assert_int_eq(err.code, EP_ERR_USAGE);
        assert_has(err.msg, cases[c].want);
    }
    /* a flat chain builds a tree as deep as it is long: bounded too */
    strcpy(text, "1");
    for (size_t i = 1; i + 2 < n; i += 2)
        memcpy(text + i, "+1", 3);
    EpError err = {0};
    ck_assert_ptr_null(bpcond_parse(text, &err));
    assert_has(err.msg, "more than 1000 operators");
    free(text);
    /* what people write still parses: 60 levels, a few hundred operators */
    char ok[1200] = "";
    for (int i = 0; i < 30; i++)
        strcat(ok, "-(");
    strcat(ok, "max");
    for (int i = 0; i < 30; i++)
        strcat(ok, ")");
    for (int i = 0; i < 200; i++)
        strcat(ok, "+1");
    BpCond *c = bpcond_parse(ok, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    bpcond_free(c);
}
END_TEST

/* ---- program JSON -------------------------------------------------------------- */

/* neg(x) with x: float32[2], in the schema 8 single-key form; @NAME@ marks
** the tables a case replaces. */
static const char *PROGRAM =
    "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],"
    " \"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}],"
    " \"nodes\": [{\"name\": \"y\", \"target\": \"torch.ops.aten.neg.default\","
    "   \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}],"
    "   \"outputs\": [{\"as_tensor\": {\"name\": \"y\"}}], \"metadata\": @META@}],"
    " \"tensor_values\": @TV@, \"sym_int_values\": @SIV@, \"sym_bool_values\": @SBV@, \"sym_float_values\": @SFV@},"
    " \"signature\": {\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}],"
    "   \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"y\"}}}}]},"
    " \"module_call_graph\": []},"
    " \"range_constraints\": @RC@, \"opset_version\": @OPSET@, \"schema_version\": {\"major\": 8, \"minor\": 3}}";

static const char *const FIELDS[][2] = {
    {"@META@", "{\"stack_trace\": \"f.py:1\"}"},
    {"@TV@", "{\"x\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], \"strides\": [{\"as_int\": 1}]},"
             " \"y\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], \"strides\": [{\"as_int\": 1}]}}"},
    {"@SIV@", "{}"}, {"@SBV@", "{}"}, {"@SFV@", "{}"}, {"@RC@", "{}"}, {"@OPSET@", "{\"aten\": 10}"},
};

/* PROGRAM with field (one of FIELDS' marks, or NULL) written as value. */
static char *program_with(const char *field, const char *value)
{
    char *text = ep_xstrdup(PROGRAM);
    for (size_t i = 0; i < EP_ARRAY_LEN(FIELDS); i++) {
        const char *v = field && strcmp(field, FIELDS[i][0]) == 0 ? value : FIELDS[i][1];
        char *at = strstr(text, FIELDS[i][0]);
        ck_assert_ptr_nonnull(at);
        *at = '\0';
        char *next = ep_xasprintf("%s%s%s", text, v, at + strlen(FIELDS[i][0]));
        free(text);
        text = next;
    }
    return text;
}

static ExportedProgram *load(const char *text, EpError *err)
{
    ExportedProgram *ep = NULL;
    program_load_json(text, strlen(text), "m.json", &ep, err);
    return ep;
}

/* A list where a table (an object keyed by name) belongs: the release
** build took the items' missing names and crashed. */
START_TEST(test_list_for_table)
{
    static const struct { const char *field, *path; } cases[] = {
        {"@TV@", "graph_module.graph.tensor_values"},
        {"@SIV@", "graph_module.graph.sym_int_values"},
        {"@SBV@", "graph_module.graph.sym_bool_values"},
        {"@SFV@", "graph_module.graph.sym_float_values"},
        {"@RC@", "range_constraints"},
        {"@OPSET@", "opset_version"},
    };
    EpError err = {0};
    char *good = program_with(NULL, NULL);
    ExportedProgram *ep = load(good, &err);
    ck_assert_msg(ep != NULL, "%s", err.msg);
    program_free(ep);
    free(good);
    for (size_t c = 0; c < EP_ARRAY_LEN(cases); c++) {
        char *text = program_with(cases[c].field, "[1, 2]");
        memset(&err, 0, sizeof err);
        ck_assert_ptr_null(load(text, &err));
        ck_assert_int_eq(err.code, EP_ERR_FORMAT);
        char want[160];
        snprintf(want, sizeof want, "m.json: %s: expected an object", cases[c].path);
        assert_has(err.msg, want);
        free(text);
    }
}
END_TEST

/* A metadata key written twice leaked the first value (found by fuzzing
** in the issue's review); the last one wins, as in Python's json. */
START_TEST(test_metadata_twice)
{
    char *text = program_with("@META@", "{\"stack_trace\": \"a.py:1\", \"torch_fn\": \"f\", \"stack_trace\": "
                                        "\"b.py:2\", \"torch_fn\": \"g\", \"custom\": \"1\", \"custom\": \"2\"}");
    EpError err = {0};
    ExportedProgram *ep = load(text, &err);
    ck_assert_msg(ep != NULL, "%s", err.msg);
    const NodeMeta *m = &ep->graph.nodes[0].meta;
    ck_assert_str_eq(m->stack_trace, "b.py:2");
    ck_assert_str_eq(m->torch_fn, "g");
    ck_assert_int_eq(m->nextra, 2);
    program_free(ep);
    free(text);
}
END_TEST

/* Numbers too large for an int were cast from double (undefined): now
** saturated. */
START_TEST(test_huge_numbers)
{
    char *text = program_with("@OPSET@", "{\"aten\": 1e300}");
    EpError err = {0};
    ExportedProgram *ep = load(text, &err);
    ck_assert_msg(ep != NULL, "%s", err.msg);
    ck_assert_int_eq((intptr_t)strmap_get(&ep->opset_version, "aten"), INT32_MAX);
    program_free(ep);
    free(text);
}
END_TEST

/* Found by fuzz_program: the reader of tensor_values and nodes straight
** from the text added up the digits of an integer before it counted them,
** and 19 or more overflowed int64 (UBSan; the scan for PyTorch's quirks
** takes a long run of digits alone, so the fuzzer's had an exponent).  An
** integer of more than 15 digits is now left to cJSON, whose verdict
** stands, as for any other. */
START_TEST(test_long_integers)
{
    static const char *const longs[] = {"46666666666666666666e0", "-99999999999999999999999999999999e0",
                                        "1234567890123456", "123456789012345"};
    /* cJSON's number is a double, saturated to int64 like any too large */
    static const int64_t want[] = {INT64_MAX, INT64_MIN, INT64_C(1234567890123456), INT64_C(123456789012345)};
    for (size_t i = 0; i < EP_ARRAY_LEN(longs); i++) {
        /* the entry in full, as exporters write it, so the fast reader takes it */
        char *tv = ep_xasprintf("{\"x\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], \"requires_grad\": false, "
                                "\"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": %s}], "
                                "\"storage_offset\": {\"as_int\": 0}, \"layout\": 0}, \"y\": {\"dtype\": 7, "
                                "\"sizes\": [{\"as_int\": 2}], \"strides\": [{\"as_int\": 1}]}}", longs[i]);
        char *text = program_with("@TV@", tv);
        EpError err = {0};
        ExportedProgram *ep = load(text, &err);
        ck_assert_msg(ep != NULL, "%s: %s", longs[i], err.msg);
        const TensorMeta *m = graph_tensor_meta(&ep->graph, "x");
        ck_assert_ptr_nonnull(m);
        ck_assert_msg(m->strides[0].value == want[i], "%s read as %lld", longs[i], (long long)m->strides[0].value);
        program_free(ep);
        free(text);
        free(tv);
    }
}
END_TEST

/* A shape with a 0 beside sizes whose product passes int64: no elements,
** so allocating it, its strides and walking it must neither overflow (UBSan
** reported it) nor fail; adding it to itself gives the same empty shape. */
START_TEST(test_zero_size_huge_dims)
{
    EpError err = {0};
    const int64_t sizes[3] = {(int64_t)1 << 40, 0, (int64_t)1 << 40};
    Tensor *t = tensor_zeros(DT_F32, 3, sizes, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    ck_assert_int_eq(tensor_numel(t), 0);
    ck_assert_int_eq(t->strides[2], 1);
    ck_assert_int_eq(t->strides[0], (int64_t)1 << 40); /* a 0 counts as 1 in strides, as torch's */
    TensorIter it;
    Tensor *ops[2] = {t, t};
    ck_assert_int_eq(iter_init(&it, 3, sizes, 2, ops, &err), EP_OK);
    ck_assert_int_eq(it.numel, 0);
    /* strides past int64 saturate (the shape has no elements to address) */
    const int64_t wide[4] = {2, 4, (int64_t)1 << 62, 0};
    int64_t st[4];
    shape_contiguous_strides(4, wide, st);
    ck_assert_int_eq(st[3], 1);
    ck_assert_int_eq(st[2], 1);
    ck_assert_int_eq(st[1], (int64_t)1 << 62);
    ck_assert_int_eq(st[0], INT64_MAX);
    tensor_unref(t);
}
END_TEST

/* Found by fuzz_sym (a timeout): a floor division by -2 splits a sum into
** two copies of its terms, so canonicalizing n nested ones made 2^n nodes,
** and deciding the fuzzer's condition (141 characters, seven symbols)
** took 8 s of substitutions and canonical forms.  Both are now bounded by
** the nodes they may make: past the bound a canonical form is refused
** (NULL) and a decision is SYM_UNKNOWN, never a wrong verdict. */
START_TEST(test_sym_blowup)
{
    /* (((s0 + s0)//-2 + s1)//-2 + s0)//-2 ... */
    char *text = strdup("s0");
    int depth_ok = -1;
    for (int depth = 1; depth <= 30; depth++) {
        char *next = ep_xasprintf("(%s + %s)//-2", text, depth % 2 ? "s0" : "s1");
        free(text);
        text = next;
        char msg[128];
        SymExpr *e = sym_parse(text, msg, sizeof msg);
        ck_assert_msg(e != NULL, "%s", msg);
        SymExpr *c = sym_canon(e);
        if (c) { /* a form that is made is still the same function */
            depth_ok = depth;
            SymBindings b;
            sym_bindings_init(&b);
            for (int s0 = -3; s0 <= 3; s0++)
                for (int s1 = -3; s1 <= 3; s1++) {
                    sym_bindings_set(&b, "s0", s0);
                    sym_bindings_set(&b, "s1", s1);
                    SymValue ve, vc;
                    ck_assert_int_eq(sym_eval(e, &b, &ve, NULL), SYM_OK);
                    ck_assert_int_eq(sym_eval(c, &b, &vc, NULL), SYM_OK);
                    ck_assert_msg(ve.i == vc.i, "depth %d at s0=%d s1=%d: %lld vs %lld", depth, s0, s1,
                                  (long long)ve.i, (long long)vc.i);
                }
            sym_bindings_free(&b);
        }
        sym_free(c);
        sym_free(e);
    }
    free(text);
    /* the small ones are made (the bound is far above real expressions),
    ** the deep ones refused */
    ck_assert_int_ge(depth_ok, 10);
    ck_assert_int_lt(depth_ok, 30);

    /* the fuzzer's input, with its harness's ranges: not known, and fast
    ** (the suite's timeout would catch the old 8 s, 60 s under ASan) */
    static const char input[] = "(ll//-u/u//lu//l/u//l/oopUu//l//upUu//u//u//l//upUu//u//l/l/u//u//u//l//upUuoopUu//l//"
                                "upUu//u//u//l//upUu//u//l/l/u//u//u//l//upUu//u//l/l/0)";
    char msg[128];
    SymExpr *e = sym_parse(input, msg, sizeof msg);
    ck_assert_msg(e != NULL, "%s", msg);
    const char *names[8];
    int n = sym_symbols(e, names, 8);
    ck_assert_int_eq(n, 7);
    SymRanges ranges;
    sym_ranges_init(&ranges);
    for (int i = 0; i < n; i++)
        sym_ranges_set(&ranges, names[i], i == 0 ? 2 : -2, i == 0 ? 9 : 2);
    ck_assert_int_eq(sym_decide(e, &ranges), SYM_UNKNOWN);
    sym_ranges_free(&ranges);
    sym_free(e);
}
END_TEST

Suite *suite_fuzz_regress(void)
{
    Suite *s = suite_create("fuzz_regress");
    TCase *tc = tcase_create("findings");
    tcase_add_test(tc, test_npy_header_ends_in_digits);
    tcase_add_test(tc, test_npy_shape_product);
    tcase_add_test(tc, test_npz_member_sizes);
    tcase_add_test(tc, test_record_twice);
    tcase_add_test(tc, test_condition_depth);
    tcase_add_test(tc, test_list_for_table);
    tcase_add_test(tc, test_metadata_twice);
    tcase_add_test(tc, test_huge_numbers);
    tcase_add_test(tc, test_zero_size_huge_dims);
    tcase_add_test(tc, test_sym_blowup);
    tcase_add_test(tc, test_long_integers);
    suite_add_tcase(s, tc);
    return s;
}
