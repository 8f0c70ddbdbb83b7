/*
** test_cli.c -- the epdbg binary as users run it: `info` and `run`, their
** messages and exit codes (0 ok, 1 usage, 2 bad file, 3 inputs violate the
** program's constraints, 4 execution failed).
**
** The binary is $EPDBG_BIN (the Makefile points it at the build variant
** under test, so the sanitizer run checks the binary too).
*/
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interp/npy.h"
#include "testutil.h"

#define FIX "build/fixtures/"

/* Run the binary with args (NULL-terminated), capturing its output. */
static RunResult run(const char *const *args)
{
    return test_run_binary(args, NULL, NULL);
}

#define EXPECT(r, want_code, stream, text)                                                                          \
    ck_assert_msg((r).code == (want_code) && strstr((r).stream, (text)),                                              \
                  "exit %d (want %d); want '%s' in %s:\nstdout: %s\nstderr: %s", (r).code, (want_code), (text),      \
                  #stream, (r).out, (r).err)

START_TEST(test_usage)
{
    RunResult r = run((const char *[]){NULL});
    EXPECT(r, 1, err, "usage:");
    run_result_free(&r);
    r = run((const char *[]){"run", NULL});
    EXPECT(r, 1, err, "usage: epdbg run");
    run_result_free(&r);
    r = run((const char *[]){"run", "examples/mlp.pt2", "--bogus", NULL});
    EXPECT(r, 1, err, "unknown option or missing value: --bogus");
    run_result_free(&r);
    r = run((const char *[]){"--help", NULL});
    EXPECT(r, 0, out, "exit codes");
    run_result_free(&r);
}
END_TEST

START_TEST(test_info_text_and_json)
{
    RunResult r = run((const char *[]){"info", "examples/mlp.pt2", NULL});
    EXPECT(r, 0, out, "PT2 archive");
    ck_assert_msg(strstr(r.out, "x: float32[s0, 16] (s0 in [2, 1024])"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "aten.linear.default"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "unsupported none"), "%s", r.out);
    run_result_free(&r);
    r = run((const char *[]){"info", "--json", "examples/cnn_legacy.pt2", NULL});
    ck_assert_int_eq(r.code, 0);
    cJSON *j = cJSON_Parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "layout")->valuestring, "legacy");
    ck_assert_str_eq(cJSON_GetObjectItem(j, "schema_version")->valuestring, "5.3");
    const cJSON *ops = cJSON_GetObjectItem(j, "ops");
    ck_assert_int_eq(cJSON_GetObjectItem(ops, "aten.convolution.default")->valueint, 2);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "unsupported")), 0);
    const cJSON *ins = cJSON_GetObjectItem(j, "inputs");
    const cJSON *last = cJSON_GetArrayItem(ins, cJSON_GetArraySize(ins) - 1);
    ck_assert_str_eq(cJSON_GetObjectItem(last, "kind")->valuestring, "user_input");
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(last, "shape"), 0)->valuestring, "s0");
    cJSON_Delete(j);
    run_result_free(&r);
}
END_TEST

static void check_output_file(const char *dir, int i, const char *refdir)
{
    char got_path[512], ref_path[512], msg[1024];
    snprintf(got_path, sizeof got_path, "%s/out%d.npy", dir, i);
    snprintf(ref_path, sizeof ref_path, "%s/out%d.npy", refdir, i);
    EpError err;
    Tensor *got = npy_load_file(got_path, &err);
    ck_assert_msg(got != NULL, "%s", err.msg);
    Tensor *ref = npy_load_file(ref_path, &err);
    ck_assert_msg(ref != NULL, "%s", err.msg);
    ck_assert_msg(tensors_close(got, ref, -1, -1, msg, sizeof msg), "%s: %s", got_path, msg);
    tensor_unref(got);
    tensor_unref(ref);
}

START_TEST(test_run_sample_inputs_and_outputs)
{
    char *dir = test_tmpdir();
    RunResult r = run((const char *[]){"run", "examples/cnn.pt2", "--outputs", dir, NULL});
    EXPECT(r, 0, out, "out0 log_softmax: float32[2, 10]");
    check_output_file(dir, 0, "tests/refs/cnn");
    run_result_free(&r);
    /* the same with the reference kernels */
    r = run((const char *[]){"run", "examples/cnn.pt2", "--no-blas", "--outputs", dir, NULL});
    ck_assert_int_eq(r.code, 0);
    check_output_file(dir, 0, "tests/refs/cnn");
    run_result_free(&r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

START_TEST(test_run_inputs_given)
{
    /* no stored inputs: the message says what to pass */
    RunResult r = run((const char *[]){"run", "examples/mlp_legacy.pt2", NULL});
    EXPECT(r, 1, err, "stores no example inputs");
    ck_assert_msg(strstr(r.err, "float32[s0, 16] (s0 in [2, 1024])"), "%s", r.err);
    run_result_free(&r);
    char *dir = test_tmpdir();
    r = run((const char *[]){"run", "examples/mlp_legacy.pt2", "--input", "tests/refs/mlp_legacy/in0.npy",
                             "--outputs", dir, NULL});
    EXPECT(r, 0, out, "out0 _softmax");
    check_output_file(dir, 0, "tests/refs/mlp_legacy");
    run_result_free(&r);
    /* NAME=FILE, and an npz */
    r = run((const char *[]){"run", "examples/mlp_legacy.pt2", "--input", "l_x_=tests/refs/mlp_legacy/in0.npy",
                             "--outputs", dir, NULL});
    EXPECT(r, 0, out, "out0");
    run_result_free(&r);
    EpError err;
    Tensor *x = npy_load_file("tests/refs/mlp_legacy/in0.npy", &err);
    char npz[600];
    snprintf(npz, sizeof npz, "%s/in.npz", dir);
    NpzEntry e[1] = {{(char *)"in0", x}};
    ck_assert_int_eq(npz_save(npz, e, 1, &err), EP_OK);
    tensor_unref(x);
    r = run((const char *[]){"run", "examples/mlp_legacy.pt2", "--inputs", npz, "--outputs", dir, NULL});
    EXPECT(r, 0, out, "out0");
    check_output_file(dir, 0, "tests/refs/mlp_legacy");
    run_result_free(&r);
    r = run((const char *[]){"run", "examples/mlp_legacy.pt2", "--input", "nosuch=tests/refs/mlp_legacy/in0.npy",
                             NULL});
    EXPECT(r, 1, err, "no input named 'nosuch'");
    run_result_free(&r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

/* Write an array of the given shape to dir/name.npy; returns the path. */
static char *write_input(const char *dir, const char *name, DType dt, int ndim, const int64_t *sizes)
{
    EpError err;
    Tensor *t = tensor_zeros(dt, ndim, sizes, &err);
    char *path = ep_xasprintf("%s/%s.npy", dir, name);
    ck_assert_int_eq(npy_save_file(path, t, &err), EP_OK);
    tensor_unref(t);
    return path;
}

START_TEST(test_guards)
{
    char *dir = test_tmpdir();
    int64_t x15[2] = {4, 15}, x9[2] = {9, 4}, y18[2] = {18, 4}, x3[2] = {3, 4}, y7[2] = {7, 4}, y6[2] = {6, 4};
    int64_t x3d[3] = {4, 16, 1};
    char *p;
    RunResult r;
    p = write_input(dir, "x15", DT_F32, 2, x15);
    r = run((const char *[]){"run", "examples/mlp.pt2", "--input", p, NULL});
    EXPECT(r, 3, err, "input x.shape[1] is 15, but the program was exported with the static size 16");
    run_result_free(&r);
    free(p);
    p = write_input(dir, "x3d", DT_F32, 3, x3d);
    r = run((const char *[]){"run", "examples/mlp.pt2", "--input", p, NULL});
    EXPECT(r, 3, err, "input x has 3 dimensions");
    run_result_free(&r);
    free(p);
    int64_t x4[2] = {4, 16};
    p = write_input(dir, "x64", DT_F64, 2, x4);
    r = run((const char *[]){"run", "examples/mlp.pt2", "--input", p, NULL});
    EXPECT(r, 3, err, "input x is float64, but the program was exported for float32");
    run_result_free(&r);
    free(p);
    char *px = write_input(dir, "x9", DT_F32, 2, x9), *py = write_input(dir, "y18", DT_F32, 2, y18);
    r = run((const char *[]){"run", FIX "dynamic.pt2", "--input", px, "--input", py, NULL});
    EXPECT(r, 3, err, "above the maximum 8");
    run_result_free(&r);
    free(px);
    free(py);
    px = write_input(dir, "x3", DT_F32, 2, x3);
    py = write_input(dir, "y7", DT_F32, 2, y7);
    r = run((const char *[]){"run", FIX "dynamic.pt2", "--input", px, "--input", py, NULL});
    EXPECT(r, 3, err, "input y.shape[0] is 7, which does not fit 2*s0");
    run_result_free(&r);
    free(py);
    py = write_input(dir, "y6", DT_F32, 2, y6);
    r = run((const char *[]){"run", FIX "dynamic.pt2", "--input", px, "--input", py, NULL});
    EXPECT(r, 0, out, "out1 sym_size_int: int 3");
    run_result_free(&r);
    r = run((const char *[]){"run", FIX "dynamic.pt2", "--input", px, NULL});
    EXPECT(r, 1, err, "missing input y");
    run_result_free(&r);
    free(px);
    free(py);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

START_TEST(test_bad_files)
{
    char *dir = test_tmpdir();
    RunResult r = run((const char *[]){"info", "no/such/model.pt2", NULL});
    EXPECT(r, 2, err, "no/such/model.pt2");
    run_result_free(&r);
    /* half of a real archive */
    char *data;
    size_t len;
    EpError err;
    ck_assert_int_eq(read_file("examples/mlp.pt2", &data, &len, &err), EP_OK);
    char *half = ep_xasprintf("%s/half.pt2", dir);
    ck_assert_int_eq(write_file_atomic(half, data, len / 2, &err), EP_OK);
    r = run((const char *[]){"run", half, NULL});
    EXPECT(r, 2, err, "half.pt2");
    run_result_free(&r);
    /* a text file */
    char *text = ep_xasprintf("%s/notes.pt2", dir);
    ck_assert_int_eq(write_file_atomic(text, "hello\n", 6, &err), EP_OK);
    r = run((const char *[]){"info", text, NULL});
    EXPECT(r, 2, err, "notes.pt2");
    run_result_free(&r);
    r = run((const char *[]){"info", FIX "aoti_like.pt2", NULL});
    EXPECT(r, 2, err, "AOTInductor package");
    run_result_free(&r);
    r = run((const char *[]){"info", FIX "plain_torchsave.pt", NULL});
    EXPECT(r, 2, err, "plain torch.save file");
    run_result_free(&r);
    /* an unreadable input file */
    r = run((const char *[]){"run", "examples/mlp.pt2", "--input", text, NULL});
    EXPECT(r, 2, err, "notes.pt2: not a .npy, .npz or torch.save (.pt) file");
    run_result_free(&r);
    free(data);
    free(half);
    free(text);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

START_TEST(test_unsupported_and_programs)
{
    RunResult r = run((const char *[]){"info", FIX "unsupported.pt2", NULL});
    EXPECT(r, 0, out, "mylib.frobnicate.default (first at node frobnicate)");
    run_result_free(&r);
    r = run((const char *[]){"run", FIX "unsupported.pt2", NULL});
    EXPECT(r, 4, err, "node 1 'frobnicate' (mylib.frobnicate.default) at unsupported.py:12 in forward");
    ck_assert_msg(strstr(r.err, "epdbg has no kernel for mylib.frobnicate.default"), "%s", r.err);
    run_result_free(&r);
    r = run((const char *[]){"run", FIX "multi.pt2", NULL});
    EXPECT(r, 1, err, "several programs (encoder, decoder); choose one with --model NAME");
    run_result_free(&r);
    r = run((const char *[]){"run", FIX "multi.pt2", "--model", "decoder", NULL});
    EXPECT(r, 0, out, "out0 sub");
    run_result_free(&r);
    r = run((const char *[]){"run", FIX "multi.pt2", "--model", "nope", NULL});
    EXPECT(r, 1, err, "no program named 'nope' (the archive has: encoder, decoder)");
    run_result_free(&r);
}
END_TEST

Suite *suite_cli(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("binary");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_usage);
    tcase_add_test(tc, test_info_text_and_json);
    tcase_add_test(tc, test_run_sample_inputs_and_outputs);
    tcase_add_test(tc, test_run_inputs_given);
    tcase_add_test(tc, test_guards);
    tcase_add_test(tc, test_bad_files);
    tcase_add_test(tc, test_unsupported_and_programs);
    suite_add_tcase(s, tc);
    return s;
}
