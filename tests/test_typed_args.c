/*
** test_typed_args.c -- typed operator arguments: the export schema's
** ScalarType, Layout and MemoryFormat tables, the kernels that take layout,
** memory format and dtype arguments, and a PyTorch 2.8+ training-dialect
** program whose .to(dtype) carries _assert_tensor_metadata(layout=as_layout 7).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

Suite *suite_typed_args(void)
{
    Suite *s = suite_create("typed_args");
    TCase *tc = tcase_create("typed_args");
    tcase_add_test(tc, test_enum_tables);
    tcase_add_test(tc, test_layout_and_memory_format_arguments);
    tcase_add_test(tc, test_to_dtype_program);
    suite_add_tcase(s, tc);
    return s;
}
