/*
** test_cli.c -- the epdbg binary as users run it: `info` and `run`, their
** messages and exit codes (0 ok, 1 usage, 2 bad file, 3 inputs violate the
** program's constraints, 4 execution failed); the command line itself
** (--version, unknown commands) and the man page against the command table.
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

#include "debugger/cmd.h"
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
    ck_assert_msg(strstr(r.out, "x: float32[s0, 16] (s0 in [2, 1024]; "), "%s", r.out);
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
    ck_assert_msg(strstr(r.err, "float32[s0, 16] (s0 in [2, 1024]; 0 and 1 also accepted"), "%s", r.err);
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

/* A SymInt input out of its symbol's range exits 3 like a tensor size
** would (s0 in [2, 8]); inside it, and at 0/1 below the unenforced
** minimum of 2, the program runs. */
START_TEST(test_symint_range_guard)
{
    char *dir = test_tmpdir();
    int64_t xs[1] = {3};
    char *x = write_input(dir, "x", DT_F32, 1, xs);
    const int64_t ns[] = {9, 8, 1};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        EpError err = {0};
        Tensor *t = tensor_empty(DT_I64, 0, NULL, &err);
        ck_assert_ptr_nonnull(t);
        *(int64_t *)tensor_data(t) = ns[k];
        char *n = ep_xasprintf("%s/n%lld.npy", dir, (long long)ns[k]);
        ck_assert_int_eq(npy_save_file(n, t, &err), EP_OK);
        tensor_unref(t);
        char *bind_n = ep_xasprintf("n=%s", n);
        RunResult r = run((const char *[]){"run", FIX "symint_range.pt2", "--input", x, "--input", bind_n, NULL});
        if (ns[k] == 9)
            EXPECT(r, 3, err, "input n = 9 is above the maximum 8 of s0");
        else
            ck_assert_msg(r.code == 0, "n = %lld: exit %d: %s", (long long)ns[k], r.code, r.err);
        run_result_free(&r);
        free(bind_n);
        free(n);
    }
    free(x);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

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

START_TEST(test_version_and_unknown_commands)
{
    RunResult r = run((const char *[]){"--version", NULL});
    ck_assert_int_eq(r.code, 0);
    /* "epdbg 0.1.0\n": a dotted version, the same for -V and in --help */
    ck_assert_msg(strncmp(r.out, "epdbg ", 6) == 0 && r.out[6] >= '0' && r.out[6] <= '9' &&
                      strspn(r.out + 6, "0123456789.") == strlen(r.out + 6) - 1 && r.out[strlen(r.out) - 1] == '\n',
                  "%s", r.out);
    char *version = ep_xstrndup(r.out, strlen(r.out) - 1);
    run_result_free(&r);
    r = run((const char *[]){"-V", NULL});
    ck_assert_int_eq(r.code, 0);
    char *with_nl = ep_xasprintf("%s\n", version);
    ck_assert_str_eq(r.out, with_nl);
    run_result_free(&r);
    r = run((const char *[]){"--help", NULL});
    EXPECT(r, 0, out, version);
    ck_assert_msg(!strstr(r.out, "solver"), "--help promises more: %s", r.out);
    ck_assert_msg(strstr(r.out, "epdbg profile MODEL.pt2"), "--help lacks profile: %s", r.out);
    run_result_free(&r);
    /* a word that is neither a subcommand nor a model */
    r = run((const char *[]){"prfile", "examples/mlp.pt2", NULL});
    EXPECT(r, 1, err, "epdbg: unknown command 'prfile' (the commands are info, run, profile, suggest, replay; "
                      "a MODEL.pt2 opens the debugger; see epdbg --help)");
    ck_assert_str_eq(r.out, "");
    run_result_free(&r);
    /* a missing file with an archive's extension is a model that cannot be opened */
    r = run((const char *[]){"no-such-model.pt2", "-ex", "where", NULL});
    ck_assert_msg(r.code == 2 && strstr(r.err, "no-such-model.pt2") && !strstr(r.err, "unknown command"),
                  "exit %d: %s", r.code, r.err);
    run_result_free(&r);
    /* an existing file opens whatever its name */
    char *dir = test_tmpdir();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cp examples/mlp.pt2 '%s/mymodel'", dir);
    ck_assert_int_eq(system(cmd), 0);
    char *model = ep_xasprintf("%s/mymodel", dir);
    r = run((const char *[]){model, "-ex", "echo opened", NULL});
    EXPECT(r, 0, out, "(epdbg) echo opened\nopened\n");
    run_result_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(model);
    free(dir);
    free(with_nl);
    free(version);
}
END_TEST

START_TEST(test_info_every_program)
{
    RunResult r = run((const char *[]){"info", FIX "multi.pt2", NULL});
    EXPECT(r, 0, out, FIX "multi.pt2: 2 programs (encoder, decoder), each described below; "
                      "--model NAME describes one\n\n" FIX "multi.pt2, program \"encoder\" (1 of 2)\n"
                      "  format      PT2 archive (PyTorch 2.8+, root multi/, archive_version 0), program \"encoder\"\n");
    const char *enc = strstr(r.out, "program \"encoder\" (1 of 2)");
    const char *dec = strstr(r.out, "\n" FIX "multi.pt2, program \"decoder\" (2 of 2)\n");
    ck_assert_msg(enc && dec && enc < dec, "%s", r.out);
    ck_assert_msg(strstr(enc, "    x: float32[2, 5]\n") < dec && strstr(dec, "    z: float32[2, 5]\n"), "%s", r.out);
    ck_assert_msg(strstr(dec, "    sub: float32[2, 5]\n"), "%s", r.out);
    run_result_free(&r);
    r = run((const char *[]){"info", "--json", FIX "multi.pt2", NULL});
    ck_assert_int_eq(r.code, 0);
    cJSON *j = cJSON_Parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    const cJSON *models = cJSON_GetObjectItem(j, "models");
    ck_assert_int_eq(cJSON_GetArraySize(models), 2);
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(models, 0), "program")->valuestring, "encoder");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(models, 1), "program")->valuestring, "decoder");
    ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "programs"), 1)->valuestring, "decoder");
    cJSON_Delete(j);
    run_result_free(&r);
    /* --model still picks one, described alone */
    r = run((const char *[]){"info", FIX "multi.pt2", "--model", "decoder", NULL});
    EXPECT(r, 0, out, FIX "multi.pt2\n  format      PT2 archive (PyTorch 2.8+, root multi/, archive_version 0), "
                      "program \"decoder\"\n  programs    encoder, decoder  (choose with --model NAME)\n");
    ck_assert_msg(!strstr(r.out, "encoder\"") && !strstr(r.out, "(1 of 2)"), "%s", r.out);
    run_result_free(&r);
    r = run((const char *[]){"info", FIX "multi.pt2", "--model", "nope", NULL});
    EXPECT(r, 1, err, "no program named 'nope' (the archive has: encoder, decoder)");
    ck_assert_str_eq(r.out, "");
    run_result_free(&r);
    r = run((const char *[]){"info", "--json", FIX "multi.pt2", "--model", "encoder", NULL});
    j = cJSON_Parse(r.out);
    ck_assert_msg(j && !cJSON_GetObjectItem(j, "models"), "%s", r.out);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "program")->valuestring, "encoder");
    cJSON_Delete(j);
    run_result_free(&r);
}
END_TEST

/* A SymInt output reads as the exporter recorded it, not as a reference. */
START_TEST(test_info_symint_output)
{
    const char *corpus = test_corpus_dir();
    if (!corpus) {
        fprintf(stderr, "cli: no corpus (../shared/corpus), SymInt output check skipped\n");
        return;
    }
    char *path = ep_xasprintf("%s/velox__numel_test.pt2", corpus);
    RunResult r = run((const char *[]){"info", path, NULL});
    EXPECT(r, 0, out, "    x: int64[s77, 5] (s77 in [0, inf])\n");
    EXPECT(r, 0, out, "    sym_numel_default: SymInt = 5*s77 (s77 in [0, inf])\n");
    ck_assert_msg(!strstr(r.out, "%sym"), "%s", r.out);
    run_result_free(&r);
    r = run((const char *[]){"info", "--json", path, NULL});
    EXPECT(r, 0, out, "\"value\":\t\"SymInt = 5*s77 (s77 in [0, inf])\"");
    run_result_free(&r);
    free(path);
}
END_TEST

/* The 0/1 rule: a range starting at 2 accepts 0 and 1 at run time, as
** PyTorch's input check does, and the description says so. */
START_TEST(test_sizes_below_two_accepted)
{
    RunResult r = run((const char *[]){"info", "examples/mlp.pt2", NULL});
    EXPECT(r, 0, out,
           "    x: float32[s0, 16] (s0 in [2, 1024]; 0 and 1 also accepted at run time, as PyTorch does)\n");
    EXPECT(r, 0, out, "    softmax: float32[s0, 4]\n"); /* outputs carry no input rule */
    run_result_free(&r);
    /* a symbol seen through a derived size */
    r = run((const char *[]){"info", FIX "dynamic.pt2", NULL});
    EXPECT(r, 0, out, "    y: float32[2*s0, 4] (s0 in [2, 8]; 0 and 1 also accepted at run time, as PyTorch does)\n");
    run_result_free(&r);
    char *dir = test_tmpdir();
    int64_t one[2] = {1, 16};
    char *p = write_input(dir, "x1", DT_F32, 2, one);
    r = run((const char *[]){"run", "examples/mlp.pt2", "--input", p, NULL});
    EXPECT(r, 0, out, "out0 softmax: float32[1, 4]");
    run_result_free(&r);
    free(p);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}
END_TEST

static char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    StrBuf sb;
    sb_init(&sb);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_printf(&sb, "%.*s", (int)n, buf);
    fclose(f);
    return sb_take(&sb);
}

/* The man page cannot drift from the command table: every command and
** info subcommand has an entry (".TP" then ".B NAME"), and every option
** --help shows is documented. */
START_TEST(test_man_page_covers_commands)
{
    char *man = read_text_file("doc/epdbg.1");
    const char *names[256];
    for (int info = 0; info < 2; info++) {
        int n = cmd_names(info, names, 256);
        ck_assert_int_gt(n, info ? 5 : 20);
        for (int i = 0; i < n; i++) {
            /* roff writes '-' as "\-" */
            StrBuf want;
            sb_init(&want);
            sb_printf(&want, "\n.TP\n.B %s", info ? "info " : "");
            for (const char *c = names[i]; *c; c++)
                sb_printf(&want, *c == '-' ? "\\-" : "%c", *c);
            const char *at = strstr(man, want.data);
            while (at && !strchr("\n \\", at[want.len])) /* the name ends: a space, a font change */
                at = strstr(at + 1, want.data);
            ck_assert_msg(at != NULL, "doc/epdbg.1 has no entry for %s (want '%s')", names[i], want.data + 1);
            sb_free(&want);
        }
    }
    RunResult r = run((const char *[]){"--help", NULL});
    ck_assert_int_eq(r.code, 0);
    int nopts = 0;
    for (const char *p = r.out; (p = strchr(p + 1, '-')) != NULL;) {
        if (!strchr(" [|", p[-1]) || p[1] == ' ') /* an option starts a word: " -x", "[--json" */
            continue;
        size_t len = strspn(p, "-abcdefghijklmnopqrstuvwxyzV0123456789");
        p--; /* so that p + 1 is the option, as below */
        StrBuf want; /* "--no-blas" is "\-\-no\-blas" in roff */
        sb_init(&want);
        for (size_t k = 0; k < len; k++)
            sb_printf(&want, p[1 + k] == '-' ? "\\-" : "%c", p[1 + k]);
        ck_assert_msg(strstr(man, want.data), "doc/epdbg.1 does not document %.*s", (int)len, p + 1);
        sb_free(&want);
        nopts++;
        p += len;
    }
    ck_assert_int_gt(nopts, 15);
    for (const char *sub = "info\0run\0replay\0"; *sub; sub += strlen(sub) + 1) {
        char want[64];
        snprintf(want, sizeof want, "\n.B %s ", sub);
        ck_assert_msg(strstr(man, want), "doc/epdbg.1 lacks the %s subcommand", sub);
    }
    ck_assert_msg(strstr(man, ".SH EXIT STATUS") && strstr(man, "~/.epdbgrc"), "exit status or files missing");
    run_result_free(&r);
    free(man);
}
END_TEST

/* A legacy archive's input is named as the user's forward names it, with
** the graph's placeholder beside it, in a guard failure too. */
START_TEST(test_guard_names_legacy_input)
{
    RunResult r = run((const char *[]){"run", "examples/mlp_legacy.pt2", "--input", "x=tests/refs/cnn/in0.npy", NULL});
    EXPECT(r, 3, err,
           "input x has 4 dimensions [2, 3, 16, 16], the program expects 2: [s0, 16] "
           "(x is the graph's placeholder l_x_)");
    run_result_free(&r);
    /* a newer archive, whose placeholder is the argument: one name */
    r = run((const char *[]){"run", "examples/mlp.pt2", "--input", "x=tests/refs/cnn/in0.npy", NULL});
    EXPECT(r, 3, err, "input x has 4 dimensions [2, 3, 16, 16], the program expects 2");
    ck_assert_msg(!strstr(r.err, "placeholder"), "%s", r.err);
    run_result_free(&r);
}
END_TEST

/* A failing node whose innermost frame is torch's (OpOverload.__call__ in
** torch/_ops.py) is reported at the user's line that called it. */
START_TEST(test_run_error_names_user_frame)
{
    RunResult r = run((const char *[]){"run", FIX "torch_frames.pt2", NULL});
    EXPECT(r, 4, err,
           "node 1 'frobnicate' (mylib.frobnicate.default) at torch_frames.py:14 in forward: "
           "return torch.ops.mylib.frobnicate(y): epdbg has no kernel");
    ck_assert_msg(!strstr(r.err, "_ops.py"), "torch's frame named:\n%s", r.err);
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
    tcase_add_test(tc, test_symint_range_guard);
    tcase_add_test(tc, test_bad_files);
    tcase_add_test(tc, test_unsupported_and_programs);
    tcase_add_test(tc, test_run_error_names_user_frame);
    tcase_add_test(tc, test_guard_names_legacy_input);
    tcase_add_test(tc, test_version_and_unknown_commands);
    tcase_add_test(tc, test_info_every_program);
    tcase_add_test(tc, test_info_symint_output);
    tcase_add_test(tc, test_sizes_below_two_accepted);
    tcase_add_test(tc, test_man_page_covers_commands);
    suite_add_tcase(s, tc);
    return s;
}
