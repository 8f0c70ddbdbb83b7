/*
** test_format.c -- print's formatting and indexing (debugger/format.c,
** debugger/index_expr.c) against PyTorch's own output, recorded in tests/format/
** by make_goldens.py: repr(t) of ~130 tensors under several print options,
** t[EXPR] for ~400 expressions, Python's repr of floats and strings.  The
** print/x hex view, parse errors, literals and the one-line value summary
** have no torch counterpart and are checked against hand-worked values.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/npy.h"
#include "testutil.h"
#include "debugger/format.h"
#include "debugger/index_expr.h"

#define FORMAT_DIR "tests/format"

/* ---- reading the golden files ------------------------------------------------ */

typedef struct Lines {
    char *buf;
    char **line;
    int n, at;
} Lines;

static void lines_load(Lines *L, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", FORMAT_DIR, name);
    size_t len;
    EpError err = {0};
    ck_assert_msg(read_file(path, &L->buf, &len, &err) == EP_OK, "%s", err.msg);
    int cap = 1024;
    L->line = malloc((size_t)cap * sizeof *L->line);
    L->n = L->at = 0;
    for (char *p = L->buf; *p;) {
        char *nl = strchr(p, '\n');
        if (L->n == cap) {
            cap *= 2;
            L->line = realloc(L->line, (size_t)cap * sizeof *L->line);
        }
        L->line[L->n++] = p;
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
}

static void lines_free(Lines *L)
{
    free(L->line);
    free(L->buf);
}

/* The next line, which must start with key + ' '; returns what follows. */
static const char *lines_expect(Lines *L, const char *key)
{
    ck_assert_msg(L->at < L->n, "golden file ends early, expected '%s'", key);
    const char *s = L->line[L->at++];
    size_t k = strlen(key);
    ck_assert_msg(strncmp(s, key, k) == 0 && s[k] == ' ', "expected '%s', got '%.60s'", key, s);
    return s + k + 1;
}

/* "2,3,4" or "-" (0-d) into v; returns the count; *end after it. */
static int parse_dims(const char *s, int64_t *v, const char **end)
{
    int n = 0;
    if (*s == '-' && (s[1] == ' ' || s[1] == '\0')) {
        *end = s + 1;
        return 0;
    }
    for (;;) {
        char *e;
        v[n++] = strtoll(s, &e, 10);
        s = e;
        if (*s != ',')
            break;
        s++;
    }
    *end = s;
    return n;
}

static size_t hex_decode(const char *s, unsigned char *out, size_t cap)
{
    size_t n = 0;
    if (*s == '-')
        return 0;
    while (s[0] && s[1] && s[0] != ' ' && n < cap) {
        unsigned v;
        sscanf(s, "%2x", &v);
        out[n++] = (unsigned char)v;
        s += 2;
    }
    return n;
}

/* "DTYPE SIZES STRIDES OFFSET" + the next "data HEX" line: the same view
** over the same storage bytes as torch had. */
static Tensor *read_tensor(Lines *L, const char *spec)
{
    char dname[32];
    int used;
    ck_assert(sscanf(spec, "%31s %n", dname, &used) == 1);
    DType dt = dtype_from_name(dname);
    ck_assert_msg(dt != DT_INVALID, "dtype %s", dname);
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    const char *p = spec + used;
    int nd = parse_dims(p, sizes, &p);
    int ns = parse_dims(p + 1, strides, &p);
    ck_assert_int_eq(nd, ns);
    int64_t offset = strtoll(p + 1, NULL, 10);
    const char *hex = lines_expect(L, "data");
    size_t cap = strlen(hex) / 2 + 1;
    Storage *s = storage_new(cap);
    ck_assert(s != NULL);
    size_t nbytes = hex_decode(hex, s->data, cap);
    s->nbytes = nbytes;
    EpError err = {0};
    Tensor *t = tensor_from_storage(s, dt, nd, sizes, strides, offset, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    storage_unref(s);
    return t;
}

/* Report the first difference of two multi-line strings. */
static void note_mismatch(StrBuf *fails, const char *name, const char *got, const char *want)
{
    size_t i = 0;
    int line = 1;
    while (got[i] && got[i] == want[i]) {
        if (got[i] == '\n')
            line++;
        i++;
    }
    sb_printf(fails, "%s: differs at line %d\n--- got:\n%s\n--- expected:\n%s\n", name, line, got, want);
}

/* ---- repr(t) ----------------------------------------------------------------- */

START_TEST(test_repr_goldens)
{
    Lines L;
    lines_load(&L, "repr.txt");
    StrBuf fails, want;
    sb_init(&fails);
    sb_init(&want);
    int ncases = 0, nfail = 0;
    while (L.at < L.n) {
        const char *s = L.line[L.at];
        if (s[0] == '#' || s[0] == '\0') {
            L.at++;
            continue;
        }
        const char *name = lines_expect(&L, "case");
        Tensor *t = read_tensor(&L, lines_expect(&L, "tensor"));
        PrintOptions po = PRINT_OPTIONS_DEFAULT;
        long long thr;
        ck_assert(sscanf(lines_expect(&L, "opts"), "%d %lld %d %d %d", &po.precision, &thr, &po.edgeitems,
                         &po.linewidth, &po.sci_mode) == 5);
        po.threshold = thr;
        int nlines = atoi(lines_expect(&L, "expect"));
        want.len = 0;
        if (want.data)
            want.data[0] = '\0';
        for (int i = 0; i < nlines; i++) {
            ck_assert(L.at < L.n);
            if (i)
                sb_append(&want, "\n");
            sb_append(&want, L.line[L.at++]);
        }
        char *got = format_tensor(t, &po);
        if (strcmp(got, want.data) != 0) {
            note_mismatch(&fails, name, got, want.data);
            nfail++;
        }
        free(got);
        tensor_unref(t);
        ncases++;
    }
    if (nfail)
        fprintf(stderr, "%s", fails.data);
    ck_assert_msg(nfail == 0, "%d of %d repr cases differ from PyTorch (listed above)", nfail, ncases);
    ck_assert_int_gt(ncases, 100);
    sb_free(&fails);
    sb_free(&want);
    lines_free(&L);
}
END_TEST

/* ---- t[EXPR] ------------------------------------------------------------------- */

static void check_index_case(Tensor *t, const char *tname, const char *expr, Lines *L, StrBuf *fails, int *nfail)
{
    const char *res = L->line[L->at++];
    EpError err = {0};
    Tensor *r = tensor_index_expr(t, expr, &err);
    char label[160];
    snprintf(label, sizeof label, "%s[%s]", tname, expr);
    if (strncmp(res, "error ", 6) == 0) {
        if (r || strcmp(err.msg, res + 6) != 0) {
            sb_printf(fails, "%s: got %s, expected error '%s'\n", label, r ? "a view" : err.msg, res + 6);
            (*nfail)++;
        }
        tensor_unref(r);
        return;
    }
    if (!r) {
        sb_printf(fails, "%s: error '%s', expected %s\n", label, err.msg, res);
        (*nfail)++;
        return;
    }
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS];
    const char *p;
    bool is_view = strncmp(res, "view ", 5) == 0;
    int nd = parse_dims(res + 5, sizes, &p);
    bool ok = shape_equal(r->ndim, r->sizes, nd, sizes) && r->storage == t->storage;
    if (ok && is_view) {
        parse_dims(p + 1, strides, &p);
        int64_t offset = strtoll(p + 1, NULL, 10);
        for (int d = 0; d < nd; d++)
            ok = ok && r->strides[d] == strides[d];
        ok = ok && r->offset == offset;
    } else if (ok) {
        /* torch copied (a boolean index): compare the values */
        unsigned char want[4096];
        size_t n = hex_decode(p + 1, want, sizeof want);
        ok = n == tensor_nbytes(r);
        int esz = dtype_size(r->dtype);
        for (int64_t i = 0; ok && i < tensor_numel(r); i++)
            ok = tensor_get_i64(r, i) == dtype_load_i64(r->dtype, want + i * esz);
    }
    if (!ok) {
        char b1[256], b2[256];
        sb_printf(fails, "%s: got size %s stride %s offset %lld, expected %s\n", label,
                  shape_str(r->ndim, r->sizes, b1, sizeof b1), shape_str(r->ndim, r->strides, b2, sizeof b2),
                  (long long)r->offset, res);
        (*nfail)++;
    }
    tensor_unref(r);
}

START_TEST(test_index_goldens)
{
    Lines L;
    lines_load(&L, "index.txt");
    StrBuf fails;
    sb_init(&fails);
    int ncases = 0, nfail = 0;
    Tensor *t = NULL;
    char tname[32] = "";
    while (L.at < L.n) {
        const char *s = L.line[L.at];
        if (s[0] == '#' || s[0] == '\0') {
            L.at++;
            continue;
        }
        if (strncmp(s, "tensor ", 7) == 0) {
            tensor_unref(t);
            const char *spec = lines_expect(&L, "tensor");
            int used;
            ck_assert(sscanf(spec, "%31s %n", tname, &used) == 1);
            t = read_tensor(&L, spec + used);
            continue;
        }
        const char *expr = lines_expect(&L, "expr");
        ck_assert(L.at < L.n);
        check_index_case(t, tname, expr, &L, &fails, &nfail);
        ncases++;
    }
    tensor_unref(t);
    if (nfail)
        fprintf(stderr, "%s", fails.data);
    ck_assert_msg(nfail == 0, "%d of %d index cases differ from PyTorch (listed above)", nfail, ncases);
    ck_assert_int_gt(ncases, 300);
    sb_free(&fails);
    lines_free(&L);
}
END_TEST

/* ---- Python reprs --------------------------------------------------------------- */

START_TEST(test_pyrepr_goldens)
{
    Lines L;
    lines_load(&L, "pyrepr.txt");
    int ncases = 0;
    for (; L.at < L.n; L.at++) {
        const char *s = L.line[L.at];
        Value v = value_none();
        const char *want;
        char text[256];
        if (strncmp(s, "float ", 6) == 0) {
            uint64_t bits = strtoull(s + 6, (char **)&want, 16);
            memcpy(&v.f, &bits, sizeof v.f);
            v.kind = V_FLOAT;
            want++;
        } else if (strncmp(s, "str ", 4) == 0) {
            size_t n = hex_decode(s + 4, (unsigned char *)text, sizeof text - 1);
            text[n] = '\0';
            v.kind = V_STR;
            v.s = text;
            want = strchr(s + 4, ' ') + 1;
        } else {
            continue;
        }
        char *got = format_value(&v, NULL);
        ck_assert_msg(strcmp(got, want) == 0, "%s: got %s", s, got);
        free(got);
        ncases++;
    }
    ck_assert_int_gt(ncases, 80);
    lines_free(&L);
}
END_TEST

/* ---- hand-checked cases ------------------------------------------------------------ */

static Tensor *make(DType dt, int ndim, const int64_t *sizes, const double *vals)
{
    EpError err = {0};
    Tensor *t = tensor_empty(dt, ndim, sizes, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    for (int64_t i = 0; i < tensor_numel(t); i++)
        dtype_store_f64(dt, (char *)tensor_data(t) + i * dtype_size(dt), vals ? vals[i] : (double)i);
    return t;
}

static void expect_format(const Tensor *t, const PrintOptions *po, const char *want)
{
    char *got = format_tensor(t, po);
    ck_assert_msg(strcmp(got, want) == 0, "got:\n%s\nexpected:\n%s", got, want);
    free(got);
}

START_TEST(test_hex)
{
    PrintOptions hx = PRINT_OPTIONS_DEFAULT;
    hx.hex = true;
    int64_t two = 2, three = 3;
    /* 1.0f = 0x3f800000, -2.0f = 0xc0000000 */
    Tensor *f = make(DT_F32, 1, &two, (const double[]){1.0, -2.0});
    expect_format(f, &hx, "tensor([0x3f800000, 0xc0000000])");
    tensor_unref(f);
    Tensor *i = make(DT_I64, 1, &two, (const double[]){-1, 255});
    expect_format(i, &hx, "tensor([0xffffffffffffffff, 0x00000000000000ff])");
    tensor_unref(i);
    Tensor *b = make(DT_BOOL, 1, &three, (const double[]){1, 0, 1});
    expect_format(b, &hx, "tensor([0x01, 0x00, 0x01])");
    tensor_unref(b);
    /* half 1.0 = 0x3c00, bfloat16 1.0 = 0x3f80, float64 0.5 = 0x3fe0000000000000 */
    Tensor *h = make(DT_F16, 1, &two, (const double[]){1.0, -0.0});
    expect_format(h, &hx, "tensor([0x3c00, 0x8000], dtype=torch.float16)");
    tensor_unref(h);
    Tensor *bf = make(DT_BF16, 0, NULL, (const double[]){1.0});
    expect_format(bf, &hx, "tensor(0x3f80, dtype=torch.bfloat16)");
    tensor_unref(bf);
    Tensor *d = make(DT_F64, 0, NULL, (const double[]){0.5});
    expect_format(d, &hx, "tensor(0x3fe0000000000000, dtype=torch.float64)");
    tensor_unref(d);
    /* int8 -1 = 0xff, uint8 200 = 0xc8, int16 -2 = 0xfffe, int32 7 */
    int64_t s22[2] = {2, 2};
    Tensor *c = make(DT_I8, 2, s22, (const double[]){-1, 0, 1, 127});
    expect_format(c, &hx, "tensor([[0xff, 0x00],\n        [0x01, 0x7f]], dtype=torch.int8)");
    tensor_unref(c);
    /* the layout is torch's: 12 chars per int32 element, 5 per line at indent 7 */
    int64_t eight = 8;
    Tensor *w = make(DT_I32, 1, &eight, NULL);
    expect_format(w, &hx,
                  "tensor([0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x00000004, 0x00000005,\n"
                  "        0x00000006, 0x00000007], dtype=torch.int32)");
    tensor_unref(w);
    /* summarised like repr */
    int64_t big = 2000;
    Tensor *u = make(DT_U8, 1, &big, NULL);
    expect_format(u, &hx, "tensor([0x00, 0x01, 0x02,  ..., 0xcd, 0xce, 0xcf], dtype=torch.uint8)");
    tensor_unref(u);
}
END_TEST

START_TEST(test_format_values)
{
    struct { Value v; const char *want; } cases[] = {
        {{.kind = V_NONE}, "None"},
        {{.kind = V_INT, .i = -42}, "-42"},
        {{.kind = V_INT, .i = INT64_MIN}, "-9223372036854775808"},
        {{.kind = V_BOOL, .b = true}, "True"},
        {{.kind = V_BOOL, .b = false}, "False"},
        {{.kind = V_FLOAT, .f = 1e-5}, "1e-05"},
        {{.kind = V_FLOAT, .f = -INFINITY}, "-inf"},
        {{.kind = V_DTYPE, .i = DT_F32}, "torch.float32"},
        {{.kind = V_DTYPE, .i = DT_BF16}, "torch.bfloat16"},
        /* every code as Python prints the enum value (repr(torch.sparse_coo) ...) */
        {{.kind = V_LAYOUT, .i = 7}, "torch.strided"},
        {{.kind = V_LAYOUT, .i = 1}, "torch.sparse_coo"},
        {{.kind = V_LAYOUT, .i = 5}, "torch.sparse_bsc"},
        {{.kind = V_LAYOUT, .i = 6}, "torch._mkldnn"},
        {{.kind = V_LAYOUT, .i = 0}, "<layout 0>"},
        {{.kind = V_MEMFMT, .i = 1}, "torch.contiguous_format"},
        {{.kind = V_MEMFMT, .i = 2}, "torch.channels_last"},
        {{.kind = V_MEMFMT, .i = 3}, "torch.channels_last_3d"},
        {{.kind = V_MEMFMT, .i = 4}, "torch.preserve_format"},
        {{.kind = V_MEMFMT, .i = 99}, "<memory_format 99>"},
        {{.kind = V_DEVICE, .s = "cpu"}, "device(type='cpu')"},
        {{.kind = V_DEVICE, .s = "cuda:1"}, "device(type='cuda', index=1)"},
        {{.kind = V_STR, .s = "relu"}, "'relu'"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(cases); i++) {
        char *got = format_value(&cases[i].v, NULL);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got %s, expected %s", i, got, cases[i].want);
        free(got);
    }
    /* lists, nested, with tensors and None as Python's list repr */
    ValueList *inner = value_list_new(2);
    inner->items[0] = value_int(1);
    inner->items[1] = value_float(2.5);
    ValueList *outer = value_list_new(3);
    outer->items[0] = (Value){.kind = V_LIST, .list = inner};
    outer->items[1] = value_none();
    int64_t two = 2;
    outer->items[2] = value_tensor(make(DT_I64, 1, &two, NULL));
    Value lv = {.kind = V_LIST, .list = outer};
    char *got = format_value(&lv, NULL);
    ck_assert_str_eq(got, "[[1, 2.5], None, tensor([0, 1])]");
    free(got);
    value_clear(&lv);
    Value empty = {.kind = V_LIST, .list = value_list_new(0)};
    got = format_value(&empty, NULL);
    ck_assert_str_eq(got, "[]");
    free(got);
    value_clear(&empty);
    /* print/x of scalars: their bits */
    PrintOptions hx = PRINT_OPTIONS_DEFAULT;
    hx.hex = true;
    Value one = value_float(1.0), m1 = value_int(-1);
    got = format_value(&one, &hx);
    ck_assert_str_eq(got, "0x3ff0000000000000");
    free(got);
    got = format_value(&m1, &hx);
    ck_assert_str_eq(got, "0xffffffffffffffff");
    free(got);
    got = format_value(NULL, NULL);
    ck_assert_str_eq(got, "None");
    free(got);
}
END_TEST

/* format_value_stats: the one-line summary, against hand-worked figures. */
START_TEST(test_value_stats)
{
    int64_t s23[2] = {2, 3}, three = 3, four = 4, zero = 0;
    struct { Tensor *t; const char *want; } cases[] = {
        {make(DT_F32, 2, s23, (const double[]){-1.25, 3, 0, 0.5, -1, -0.5}),
         "float32[2, 3]  min -1.25  max 3  mean 0.125"},
        {make(DT_F32, 1, &zero, NULL), "float32[0]  (empty)"},
        /* NaN is left out of min and max but poisons the mean */
        {make(DT_F64, 1, &three, (const double[]){NAN, 1, INFINITY}),
         "float64[3]  min 1  max inf  mean nan  NaN 1  inf 1"},
        {make(DT_F32, 1, &three, (const double[]){NAN, NAN, NAN}), "float32[3]  all NaN"},
        {make(DT_BOOL, 1, &four, (const double[]){1, 0, 1, 1}), "bool[4]  true 3 of 4"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(cases); i++) {
        Value v = value_tensor(cases[i].t);
        char *got = format_value_stats(&v);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got '%s', expected '%s'", i, got, cases[i].want);
        free(got);
        value_clear(&v);
    }
    struct { Value v; const char *want; } scalars[] = {
        {{.kind = V_INT, .i = 7}, "int 7"},
        {{.kind = V_FLOAT, .f = 0.1}, "float 0.1"},
        {{.kind = V_BOOL, .b = true}, "bool True"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(scalars); i++) {
        char *got = format_value_stats(&scalars[i].v);
        ck_assert_msg(strcmp(got, scalars[i].want) == 0, "scalar %zu: got '%s'", i, got);
        free(got);
    }
}
END_TEST

/* Inputs no golden covers: they must print something sensible, not crash. */
START_TEST(test_format_odd_inputs)
{
    EpError err = {0};
    /* a 16-dim view of a scalar, 7 wide in every dim: 7^16 elements, of
    ** which 6^16 would show; printed in short form instead */
    Tensor *one = make(DT_F32, 0, NULL, (const double[]){1.5});
    int64_t sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS] = {0};
    for (int d = 0; d < EP_MAX_DIMS; d++)
        sizes[d] = 7;
    Tensor *huge = tensor_as_strided(one, EP_MAX_DIMS, sizes, strides, 0, &err);
    ck_assert_msg(huge != NULL, "%s", err.msg);
    expect_format(huge, NULL,
                  "tensor(..., size=(7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7))");
    /* the same shape summarised with one edge item: 2^16 elements show */
    PrintOptions po = PRINT_OPTIONS_DEFAULT;
    po.edgeitems = 1;
    char *s = format_tensor(huge, &po);
    ck_assert(strncmp(s, "tensor([[[[[[[[[[[[[[[[1.5000,  ..., 1.5000]", 44) == 0);
    free(s);
    tensor_unref(huge);
    /* options out of range are clamped, not trusted */
    po = PRINT_OPTIONS_DEFAULT;
    po.precision = -3;
    po.linewidth = -100;
    po.edgeitems = -2;
    po.threshold = -1;
    int64_t three = 3;
    Tensor *v = make(DT_F32, 1, &three, (const double[]){0.25, 1.5, 2});
    s = format_tensor(v, &po);
    ck_assert_str_eq(s, "tensor([ ...,\n        0,\n        2,\n        2])");
    free(s);
    po = PRINT_OPTIONS_DEFAULT;
    po.precision = 1000;
    s = format_tensor(v, &po);
    ck_assert(strlen(s) > 300);
    free(s);
    tensor_unref(v);
    /* extreme values keep within the element buffer */
    Tensor *x = make(DT_F64, 1, &three, (const double[]){-1.7976931348623157e308, 5e-324, NAN});
    po = PRINT_OPTIONS_DEFAULT;
    po.sci_mode = 0;
    po.precision = 100;
    s = format_tensor(x, &po);
    ck_assert(strstr(s, "nan") != NULL);
    free(s);
    tensor_unref(x);
    tensor_unref(one);
    ck_assert_str_eq((s = format_tensor(NULL, NULL)), "None");
    free(s);
}
END_TEST

START_TEST(test_index_writes_through)
{
    int64_t s34[2] = {3, 4};
    Tensor *t = make(DT_F32, 2, s34, NULL);
    EpError err = {0};
    Tensor *col = tensor_index_expr(t, "1:, -1", &err);
    ck_assert_msg(col != NULL, "%s", err.msg);
    ck_assert_int_eq(col->ndim, 1);
    ck_assert_int_eq(col->sizes[0], 2);
    Tensor *val = make(DT_F32, 0, NULL, (const double[]){-9.0});
    ck_assert_int_eq(tensor_copy_into(col, val, &err), EP_OK);
    ck_assert(tensor_get_f64(t, 7) == -9.0 && tensor_get_f64(t, 11) == -9.0 && tensor_get_f64(t, 3) == 3.0);
    Tensor *e = tensor_index_expr(t, "2, 1", &err);
    ck_assert(e != NULL && e->ndim == 0 && tensor_item_f64(e) == 9.0);
    tensor_unref(e);
    tensor_unref(val);
    tensor_unref(col);
    tensor_unref(t);
}
END_TEST

START_TEST(test_index_errors)
{
    int64_t s234[3] = {2, 3, 4};
    Tensor *t = make(DT_I64, 3, s234, NULL);
    struct { const char *expr, *msg; } cases[] = {
        {"1:x", "bad index '1:x' (position 3)"},
        {"0, 1:x", "bad index '1:x' (position 6)"},
        {"", "empty index expression"},
        {"   ", "empty index expression"},
        {"0,,1", "bad index '' (position 3)"},
        {",", "bad index '' (position 1)"},
        {"1:2:3:4", "bad index '1:2:3:4' (position 6)"},
        {"(0, 1)", "bad index '(0' (position 1)"},
        {"[0, 1]", "bad index '[0' (position 1)"},
        {"1.5", "bad index '1.5' (position 1)"},
        {"0x", "bad index '0x' (position 1)"},
        {"1 2", "bad index '1 2' (position 3)"},
        {"none", "bad index 'none' (position 1)"},
        {". . .", "bad index '. . .' (position 1)"},
        {"0, 5", "index 5 is out of bounds for dimension 1 with size 3"},
        {"True, False", "only one True/False index is supported"},
        {"::99999999999999999999", NULL}, /* a huge step keeps one element */
        {"None, None, None, None, None, None, None, None, None, None, None, None, None, None",
         "tensors of rank 17 are not supported (at most 16 dims)"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(cases); i++) {
        EpError err = {0};
        Tensor *r = tensor_index_expr(t, cases[i].expr, &err);
        if (!cases[i].msg) {
            ck_assert_msg(r != NULL && r->sizes[0] == 1, "'%s': %s", cases[i].expr, err.msg);
            tensor_unref(r);
            continue;
        }
        ck_assert_msg(r == NULL, "'%s' should fail", cases[i].expr);
        ck_assert_msg(strcmp(err.msg, cases[i].msg) == 0, "'%s': got '%s', expected '%s'", cases[i].expr, err.msg,
                      cases[i].msg);
        ck_assert_int_eq(err.code, EP_ERR_USAGE);
    }
    /* a size-1 dim may carry any stride: slicing past it must not overflow */
    EpError err = {0};
    int64_t one = 1, big = INT64_MAX / 2;
    Tensor *odd = tensor_as_strided(t, 1, &one, &big, 0, &err);
    ck_assert_msg(odd != NULL, "%s", err.msg);
    Tensor *r = tensor_index_expr(odd, "5:", &err);
    ck_assert(r != NULL && r->sizes[0] == 0);
    tensor_unref(r);
    r = tensor_index_expr(odd, "None, 0:1:3", &err);
    ck_assert(r != NULL && r->ndim == 2);
    tensor_unref(r);
    tensor_unref(odd);
    ck_assert(tensor_index_expr(NULL, "0", &err) == NULL);
    ck_assert(tensor_index_expr(t, NULL, &err) == NULL);
    tensor_unref(t);
}
END_TEST

START_TEST(test_scalar_literals)
{
    struct { const char *text; double want; } ok[] = {
        {"1.5", 1.5}, {"-2", -2}, {"1e-3", 1e-3}, {" 7 ", 7}, {"+3", 3}, {".5", 0.5}, {"5.", 5},
        {"1_000.25", 1000.25}, {"2E+2", 200}, {"True", 1}, {"False", 0}, {"0x10", 16}, {"-0b101", -5},
        {"0o17", 15}, {"1e400", INFINITY}, {"-inf", -INFINITY}, {"inf", INFINITY}, {"Infinity", INFINITY},
        {"0xffffffffffffffffff", 4722366482869645213696.0},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(ok); i++) {
        double v = 0;
        ck_assert_msg(parse_scalar_literal(ok[i].text, &v), "'%s' rejected", ok[i].text);
        ck_assert_msg(v == ok[i].want, "'%s' gave %g", ok[i].text, v);
    }
    double v;
    ck_assert(parse_scalar_literal("nan", &v) && isnan(v));
    ck_assert(parse_scalar_literal("-NaN", &v) && isnan(v));
    const char *bad[] = {"", " ", "x", "1.5.2", "1e", "e5", "1__0", "_1", "1_", "0x", "--1", "1 2",
                         "true", "0x1p3", "1,5", "nanx", "+", "."};
    for (size_t i = 0; i < EP_ARRAY_LEN(bad); i++)
        ck_assert_msg(!parse_scalar_literal(bad[i], &v), "'%s' accepted", bad[i]);
    ck_assert(!parse_scalar_literal(NULL, &v));
}
END_TEST

Suite *suite_format(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("torch");
    tcase_add_test(tc, test_repr_goldens);
    tcase_add_test(tc, test_index_goldens);
    tcase_add_test(tc, test_pyrepr_goldens);
    suite_add_tcase(s, tc);
    TCase *hand = tcase_create("hand");
    tcase_add_test(hand, test_hex);
    tcase_add_test(hand, test_format_values);
    tcase_add_test(hand, test_value_stats);
    tcase_add_test(hand, test_format_odd_inputs);
    tcase_add_test(hand, test_index_writes_through);
    tcase_add_test(hand, test_index_errors);
    tcase_add_test(hand, test_scalar_literals);
    suite_add_tcase(s, hand);
    return s;
}
