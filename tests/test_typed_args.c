/*
** test_typed_args.c -- typed operator arguments: the export schema's
** ScalarType, Layout and MemoryFormat tables, the kernels that take layout,
** memory format and dtype arguments, a PyTorch 2.8+ training-dialect
** program whose .to(dtype) carries _assert_tensor_metadata(layout=as_layout 7),
** and keyword-only arguments of every kind as schema 8 writes them
** (NamedArgument.kind 2, KEYWORD).
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/gen/progbuild.h"
#include "interp/archive.h"
#include "interp/npy.h"
#include "interp/ops.h"
#include "testutil.h"

#define FIX "build/fixtures/"

/* The tables against torch/_export/serde/schema.py and c10's operator<<,
** and against DTYPE_INFO, the second table that names dtypes. */
START_TEST(test_enum_tables)
{
    ck_assert_str_eq(layout_entry(7)->torch_name, "strided");
    ck_assert_str_eq(layout_entry(7)->c10_name, "Strided");
    ck_assert_str_eq(layout_entry(1)->c10_name, "Sparse");
    ck_assert_str_eq(layout_entry(6)->torch_name, "_mkldnn");
    ck_assert_ptr_null(layout_entry(8));
    ck_assert_int_eq(layout_code("torch.sparse_csr"), 2);
    ck_assert_int_eq(layout_code("sparse_bsc"), 5);
    ck_assert_int_eq(memory_format_code("channels_last_3d"), 3);
    ck_assert_int_eq(memory_format_code("preserve_format"), 4);
    ck_assert_ptr_null(memory_format_entry(5));
    char buf[32];
    ck_assert_str_eq(layout_name(7, buf), "torch.strided");
    ck_assert_str_eq(layout_name(9, buf), "<layout 9>");
    ck_assert_str_eq(memory_format_name(2, buf), "torch.channels_last");
    ck_assert_str_eq(scalar_type_name(29), "float8_e4m3fn");
    ck_assert_ptr_null(scalar_type_entry(14));
    /* schema.py's codes of the dtypes epdbg runs */
    static const struct { int code; DType t; } codes[] = {
        {1, DT_U8}, {2, DT_I8}, {3, DT_I16}, {4, DT_I32}, {5, DT_I64}, {6, DT_F16},
        {7, DT_F32}, {8, DT_F64}, {12, DT_BOOL}, {13, DT_BF16},
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        ck_assert_int_eq(dtype_from_scalar_type(codes[i].code), codes[i].t);
        ck_assert_str_eq(scalar_type_entry(codes[i].code)->torch_name, dtype_name(codes[i].t));
        ck_assert_str_eq(scalar_type_entry(codes[i].code)->c10_name, dtype_c10_name(codes[i].t));
    }
    ck_assert_int_eq(dtype_from_scalar_type(10), DT_INVALID); /* complex64: known, not run */
    ck_assert(device_is_cpu("cpu") && device_is_cpu("cpu:0") && !device_is_cpu("cuda:0") && !device_is_cpu("cpux"));
}
END_TEST

/* Run target on args (schema order, nargs of them); returns the status,
** err holding the message, the first output in *out (or V_NONE). */
static EpStatus call_op(const char *target, int nargs, const Value *args, Value *out, EpError *err)
{
    const OpDef *d = op_lookup(target);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(nargs, d->schema->nargs);
    Value outs[OP_MAX_RETS] = {{0}};
    OpCall c = {d, (Value *)args, nargs, outs, d->schema->nrets, err, &KERNEL_CONFIG_DEFAULT};
    EpStatus rc = d->fn(&c);
    *out = outs[0];
    return rc;
}

static Value code_value(ValueKind kind, int code)
{
    Value v = {.kind = kind};
    v.i = code;
    return v;
}

#ifdef EPDBG_CHECK_CONTRACTS
/* The debug build's contract check: reading add's Tensor `self` with the
** int accessor stops the program (SIGABRT) rather than reading a code or a
** pointer as a number.  Release builds do not check (kernel.h says why). */
START_TEST(test_accessor_kind_check_fires)
{
    const OpDef *d = op_lookup("aten.add.Tensor");
    ck_assert_ptr_nonnull(d);
    Value args[3] = {value_int(1), value_int(2), value_int(1)};
    Value outs[OP_MAX_RETS] = {{0}};
    EpError err = {0};
    OpCall c = {d, args, 3, outs, 1, &err, &KERNEL_CONFIG_DEFAULT};
    (void)arg_int(&c, 0); /* self is a Tensor: a kernel bug */
}
END_TEST
#endif

/* Messages and `info args` describe a layout or memory format by torch's
** name, from the same tables, not by its serialized code. */
START_TEST(test_value_descriptions_name_enums)
{
    const struct {
        Value v;
        const char *want;
    } cases[] = {
        {code_value(V_LAYOUT, 7), "layout torch.strided"},
        {code_value(V_LAYOUT, 1), "layout torch.sparse_coo"},
        {code_value(V_MEMFMT, 2), "memory_format torch.channels_last"},
        {code_value(V_MEMFMT, 4), "memory_format torch.preserve_format"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(cases); i++) {
        char *text = value_describe(&cases[i].v);
        ck_assert_str_eq(text, cases[i].want);
        free(text);
    }
}
END_TEST

/* _assert_tensor_metadata with ATen's wording (ComparisonUtils.cpp), and
** the layout and memory-format arguments of the tensor factories. */
START_TEST(test_layout_and_memory_format_arguments)
{
    EpError err = {0};
    int64_t sizes[4] = {2, 3, 4, 5};
    Tensor *x = tensor_empty(DT_F32, 4, sizes, &err);
    Value out;
    Value a[6] = {value_tensor(x), value_none(), value_none(), value_none(), value_none(),
                  code_value(V_LAYOUT, LAYOUT_STRIDED)};
    ck_assert_int_eq(call_op("aten._assert_tensor_metadata.default", 6, a, &out, &err), EP_OK);
    a[5] = code_value(V_LAYOUT, 2); /* sparse_csr */
    ck_assert_int_eq(call_op("aten._assert_tensor_metadata.default", 6, a, &out, &err), EP_ERR_EXEC);
    ck_assert_str_eq(err.msg, "Tensor layout mismatch! Expected: SparseCsr, Got: Strided");
    a[5] = value_none();
    a[3] = (Value){.kind = V_DTYPE, .i = DT_I64};
    ck_assert_int_eq(call_op("aten._assert_tensor_metadata.default", 6, a, &out, &err), EP_ERR_EXEC);
    ck_assert_str_eq(err.msg, "Tensor dtype mismatch! Expected: Long, Got: float");
    a[3] = value_none();
    a[1].kind = V_LIST;
    a[1].list = value_list_new(4);
    for (int i = 0; i < 4; i++)
        a[1].list->items[i] = value_int(i == 3 ? 6 : sizes[i]);
    ck_assert_int_eq(call_op("aten._assert_tensor_metadata.default", 6, a, &out, &err), EP_ERR_EXEC);
    ck_assert_str_eq(err.msg, "Tensor sizes mismatch! Expected: [2, 3, 4, 6], Got: [2, 3, 4, 5]");
    value_clear(&a[1]);

    /* _to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format) */
    Value t[7] = {a[0], (Value){.kind = V_DTYPE, .i = DT_I32}, code_value(V_LAYOUT, 1), value_none(),
                  value_none(), value_bool(false), value_none()};
    ck_assert_int_eq(call_op("aten._to_copy.default", 7, t, &out, &err), EP_ERR_EXEC);
    ck_assert_str_eq(err.msg,
                     "aten._to_copy.default: layout torch.sparse_coo is not supported: epdbg runs dense "
                     "(torch.strided) tensors only");
    /* channels_last: the strides PyTorch gives a [2, 3, 4, 5] tensor, NHWC */
    t[2] = code_value(V_LAYOUT, LAYOUT_STRIDED);
    t[6] = code_value(V_MEMFMT, MF_CHANNELS_LAST);
    ck_assert_int_eq(call_op("aten._to_copy.default", 7, t, &out, &err), EP_OK);
    const int64_t nhwc[4] = {60, 1, 15, 3};
    ck_assert_int_eq(out.t->dtype, DT_I32);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(out.t->strides[i], nhwc[i]);
    value_clear(&out);
    value_clear(&a[0]);
}
END_TEST

/* x.to(torch.int32) and x.to(torch.float64) from a training-dialect
** archive: the conversions are exact, so the values are known exactly
** (float to int truncates toward zero, as C's and PyTorch's casts do). */
START_TEST(test_to_dtype_program)
{
    char *dir = test_tmpdir();
    RunResult r = test_run_binary((const char *[]){"run", FIX "to_dtype.pt2", "--outputs", dir, NULL}, NULL, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    run_result_free(&r);
    EpError err = {0};
    char *p0 = ep_xasprintf("%s/out0.npy", dir), *p1 = ep_xasprintf("%s/out1.npy", dir);
    Tensor *i32 = npy_load_file(p0, &err), *f64 = npy_load_file(p1, &err);
    ck_assert_msg(i32 && f64, "%s", err.msg);
    ck_assert_int_eq(i32->dtype, DT_I32);
    ck_assert_int_eq(f64->dtype, DT_F64);
    const int32_t want_i[6] = {-2, -1, 0, 0, 1, 127};
    const double want_f[6] = {-2.75, -1.5, -0.25, 0.5, 1.75, 127.0};
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(((const int32_t *)tensor_data(i32))[i], want_i[i]);
        ck_assert_double_eq(((const double *)tensor_data(f64))[i], want_f[i]);
    }
    tensor_unref(i32);
    tensor_unref(f64);
    free(p0);
    free(p1);

    /* the assertion expecting float16 fails as PyTorch's kernel does */
    setenv("EPDBG_REPLAY_DIR", dir, 1);
    r = test_run_binary((const char *[]){"run", FIX "to_dtype_mismatch.pt2", NULL}, NULL, NULL);
    unsetenv("EPDBG_REPLAY_DIR");
    ck_assert_int_eq(r.code, 4);
    ck_assert_msg(strstr(r.err, "node 0 '_assert_tensor_metadata_default' (aten._assert_tensor_metadata.default)") &&
                      strstr(r.err, ": Tensor dtype mismatch! Expected: Half, Got: float\n"),
                  "%s", r.err);
    run_result_free(&r);
    free(dir);
}
END_TEST

/* The input called name of node n, or a failed test. */
static const NamedArg *node_input(const Node *n, const char *name)
{
    for (int k = 0; k < n->ninputs; k++)
        if (strcmp(n->inputs[k].name, name) == 0)
            return &n->inputs[k];
    ck_abort_msg("node '%s' has no input '%s'", n->name, name);
    return NULL;
}

/* The .npy output k of a run into dir, checked to hold dtype and n values. */
static Tensor *run_output(const char *dir, int k, DType dtype, int64_t n)
{
    EpError err = {0};
    char *p = ep_xasprintf("%s/out%d.npy", dir, k);
    Tensor *t = npy_load_file(p, &err);
    ck_assert_msg(t, "%s: %s", p, err.msg);
    ck_assert_int_eq(t->dtype, dtype);
    ck_assert_int_eq(tensor_numel(t), n);
    free(p);
    return t;
}

/* Keyword-only arguments (after '*' in the schema) of each kind, as
** torch.export's graph holds them in a node's kwargs and schema 8's
** serializer writes them: NamedArgument kind 2 (KEYWORD), the others kind 1.
** The loader binds them by name; the values are known exactly:
**   y = full([1, 2, 1, 3], 1.5, *, dtype=float32, layout=strided, device=cpu, pin_memory=False)
**   a = add(x, y, *, alpha=2)                      = x + 3
**   d = div(a, y, *, rounding_mode='floor')        = floor(a / 1.5)
**   c = _to_copy(d, *, dtype=int32, layout=strided, device=cpu, memory_format=channels_last)
**   s = as_strided(c, [6], [1])  -- c's storage, in NHWC order
** and an _assert_tensor_metadata(x, dtype=..., device=..., layout=...) as
** export's pass builds it, with dtype (positional in the schema) a kwarg. */
START_TEST(test_keyword_only_arguments)
{
    ProgBuilder *pb = pb_new("tests.KeywordOnly", false);
    int64_t xs[4] = {1, 2, 1, 3};
    Tensor *x = tensor_empty(DT_F32, 4, xs, NULL);
    const float xv[6] = {-2.75f, -1.5f, -0.25f, 0.5f, 1.75f, 7.0f};
    memcpy(tensor_data(x), xv, sizeof xv);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    pb_at(pb, "tests/keyword_only.py", 5, "forward", "return f(x)");
    pb_node(pb, "aten.full.default", "full",
            "size=[1, 2, 1, 3] fill_value=1.5 dtype=dtype:float32 layout=layout:strided device=device:cpu "
            "pin_memory=False", "full");
    pb_node(pb, "aten.add.Tensor", "add", "self=%x other=%full alpha=2", "add");
    pb_node(pb, "aten.div.Tensor_mode", "div", "self=%add other=%full rounding_mode='floor'", "div");
    pb_node(pb, "aten._to_copy.default", "_to_copy",
            "self=%div dtype=dtype:int32 layout=layout:strided device=device:cpu memory_format=memfmt:channels_last",
            "_to_copy");
    pb_node(pb, "aten.as_strided.default", "as_strided", "self=%_to_copy size=[6] stride=[1]", "as_strided");
    pb_node(pb, "aten._assert_tensor_metadata.default", "_assert_tensor_metadata_default",
            "a=%x | dtype=dtype:float32 device=device:cpu layout=layout:strided", "");
    pb_output(pb, "_to_copy");
    pb_output(pb, "as_strided");
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/keyword_only.pt2", dir);
    EpError err = {0};
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);

    /* read back: each argument's kind and value */
    Model *m = NULL;
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s", err.msg);
    const Graph *g = &m->ep->graph;
    ck_assert_int_eq(g->nnodes, 6);
    const Node *full = &g->nodes[0], *add = &g->nodes[1], *div = &g->nodes[2], *copy = &g->nodes[3];
    static const struct { int node; const char *name; int kind; ArgKind arg; } want[] = {
        {0, "size", 1, ARG_INTS},         {0, "fill_value", 1, ARG_FLOAT},
        {0, "dtype", 2, ARG_SCALAR_TYPE}, {0, "layout", 2, ARG_LAYOUT},
        {0, "device", 2, ARG_DEVICE},     {0, "pin_memory", 2, ARG_BOOL},
        {1, "self", 1, ARG_TENSOR},       {1, "other", 1, ARG_TENSOR},
        {1, "alpha", 2, ARG_INT},         {2, "rounding_mode", 2, ARG_STRING},
        {3, "self", 1, ARG_TENSOR},       {3, "memory_format", 2, ARG_MEMORY_FORMAT},
        {4, "size", 1, ARG_INTS},         {4, "stride", 1, ARG_INTS},
        {5, "a", 1, ARG_TENSOR},          {5, "dtype", 2, ARG_SCALAR_TYPE},
        {5, "device", 2, ARG_DEVICE},     {5, "layout", 2, ARG_LAYOUT},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(want); i++) {
        const NamedArg *na = node_input(&g->nodes[want[i].node], want[i].name);
        ck_assert_msg(na->kind == want[i].kind && na->arg.kind == want[i].arg, "node %d '%s': kind %d, %s",
                      want[i].node, want[i].name, na->kind, arg_kind_name(na->arg.kind));
    }
    ck_assert_int_eq(node_input(full, "dtype")->arg.lit.i, 7); /* ScalarType.FLOAT */
    ck_assert_int_eq(node_input(full, "layout")->arg.lit.i, LAYOUT_STRIDED);
    ck_assert_str_eq(node_input(full, "device")->arg.lit.s, "cpu");
    ck_assert(!node_input(full, "pin_memory")->arg.lit.b);
    ck_assert_int_eq(node_input(add, "alpha")->arg.lit.i, 2);
    ck_assert_str_eq(node_input(div, "rounding_mode")->arg.lit.s, "floor");
    ck_assert_int_eq(node_input(copy, "dtype")->arg.lit.i, 4); /* ScalarType.INT */
    ck_assert_int_eq(node_input(copy, "memory_format")->arg.lit.i, MF_CHANNELS_LAST);
    model_free(m);

    /* end to end */
    RunResult r = test_run_binary((const char *[]){"run", path, "--outputs", dir, NULL}, NULL, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    run_result_free(&r);
    Tensor *c = run_output(dir, 0, DT_I32, 6), *s = run_output(dir, 1, DT_I32, 6);
    /* floor((x + 3) / 1.5): 0.25, 1.5, 2.75, 3.5, 4.75, 10 over 1.5 */
    const int32_t want_c[6] = {0, 1, 1, 2, 3, 6};
    /* NHWC storage of [1, 2, 1, 3]: (w0 c0) (w0 c1) (w1 c0) ... = c[0], c[3], c[1], c[4], c[2], c[5] */
    const int32_t want_s[6] = {0, 2, 1, 3, 1, 6};
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(((const int32_t *)tensor_data(c))[i], want_c[i]);
        ck_assert_int_eq(((const int32_t *)tensor_data(s))[i], want_s[i]);
    }
    tensor_unref(c);
    tensor_unref(s);
    char *rm = ep_xasprintf("rm -rf '%s'", dir);
    ck_assert_int_eq(system(rm), 0);
    free(rm);
    free(path);
    free(dir);
}
END_TEST

Suite *suite_typed_args(void)
{
    Suite *s = suite_create("typed_args");
    TCase *tc = tcase_create("typed_args");
    tcase_add_test(tc, test_enum_tables);
    tcase_add_test(tc, test_value_descriptions_name_enums);
#ifdef EPDBG_CHECK_CONTRACTS
    tcase_add_test_raise_signal(tc, test_accessor_kind_check_fires, SIGABRT);
#endif
    tcase_add_test(tc, test_layout_and_memory_format_arguments);
    tcase_add_test(tc, test_to_dtype_program);
    tcase_add_test(tc, test_keyword_only_arguments);
    suite_add_tcase(s, tc);
    return s;
}
