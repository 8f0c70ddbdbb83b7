/*
** test_malformed.c -- the malformed-file suite (issue 12): bad archives and
** input files generated from the project's own examples and fixtures by
** mutation, each refused with its one-line message and exit code 2.
**
** One table drives it: a row names the base file, how to break it (a
** function of tests/malformed_make.c and its arguments), the command and
** the expected message ('@' stands for the broken file's path).  An
** archive row is checked three ways, because the verdict must be reached
** when the archive is opened: model_open in this process (so valgrind and
** the sanitizers see the loader itself), `epdbg info` and `epdbg run`.
** An input row runs `epdbg run BASE --input FILE`.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/archive.h"
#include "malformed_make.h"
#include "testutil.h"

typedef enum Cmd {
    OPEN,  /* the broken file is the archive */
    INPUT, /* the broken file is --input x=FILE for the base archive */
} Cmd;

typedef struct Case {
    const char *name;
    const char *base;   /* relative to the project */
    Maker make;
    MakeArgs args;
    Cmd cmd;
    const char *msg;    /* the whole message after "epdbg: "; '@' is the broken file;
                        ** a trailing "..." makes it a prefix of the message */
} Case;

#define MLP "examples/mlp.pt2"
#define LEG "examples/mlp_legacy.pt2"
#define CNN "examples/cnn.pt2"
#define PROG "models/model.json"
#define WCFG "data/weights/model_weights_config.json"
#define SAMPLE "data/sample_inputs/model.pt"
#define MJ "@:mlp/models/model.json: "
#define WJ "@:mlp/data/weights/model_weights_config.json: "
#define SJ "@:mlp/data/sample_inputs/model.pt:archive/data.pkl: "

/* JSON edits of the program: set PATH to VALUE (NULL deletes it). */
#define JSET(p, v) mk_json_set, {.member = PROG, .path = (p), .value = (v)}
#define WSET(p, v) mk_json_set, {.member = WCFG, .path = (p), .value = (v)}
/* a pickle (bytes) as the stored example inputs' data.pkl */
#define PKL(bytes) mk_pickle, {.member = SAMPLE, .value = (bytes), .len = sizeof(bytes) - 1}
#define BYTES(m, bytes) mk_replace, {.member = (m), .value = (bytes), .len = sizeof(bytes) - 1}
#define NPY(bytes) mk_file, {.value = (bytes), .len = sizeof(bytes) - 1}
#define NPYH(header, data) mk_npy, {.path = (header), .value = (data), .len = sizeof(data) - 1}

#define G "graph_module/graph/"

static const Case cases[] = {
    /* ---- the zip container ---- */
    {"truncated_at_10", MLP, mk_truncate, {.off = 10}, OPEN, "@: TODO"},
    {"truncated_at_half", MLP, mk_truncate, {.off = -50}, OPEN, "@: TODO"},
    {"truncated_in_central_dir", MLP, mk_truncate, {.off = -100}, OPEN, "@: TODO"},
    {"truncated_in_eocd", MLP, mk_truncate, {.off = -10}, OPEN, "@: TODO"},
    {"empty_file", MLP, mk_truncate, {.off = 0}, OPEN, "@: TODO"},
    {"cd_bad_signature", MLP, mk_patch, {.path = "cd", .off = 0, .value = "XXXX", .len = 4}, OPEN, "@: TODO"},
    {"cd_offset_past_end", MLP, mk_patch, {.path = "eocd", .off = 16, .value = "\xff\xff\xff\x7f", .len = 4}, OPEN, "@: TODO"},
    {"cd_count_wrong", MLP, mk_patch, {.path = "eocd", .off = 8, .value = "\x30\x00\x30\x00", .len = 4}, OPEN, "@: TODO"},
    {"cd_name_length_huge", MLP, mk_patch, {.path = "cd", .off = 28, .value = "\xff\xff", .len = 2}, OPEN, "@: TODO"},
    {"cd_local_offset_wrong", MLP, mk_patch, {.path = "cd", .off = 42, .value = "\x00\x00\x00\x70", .len = 4}, OPEN, "@: TODO"},
    {"member_size_huge", MLP, mk_patch, {.path = "cd", .off = 20, .value = "\xf0\xff\xff\x7f\xf0\xff\xff\x7f", .len = 8}, OPEN, "@: TODO"},
    {"member_method_unknown", MLP, mk_patch, {.path = "cd", .off = 10, .value = "\x63\x00", .len = 2}, OPEN, "@: TODO"},
    {"zip64_marker_without_record", MLP, mk_patch, {.path = "eocd", .off = 16, .value = "\xff\xff\xff\xff", .len = 4}, OPEN, "@: TODO"},
    {"zip64_size_marker_without_extra", MLP, mk_patch, {.path = "cd", .off = 20, .value = "\xff\xff\xff\xff\xff\xff\xff\xff", .len = 8}, OPEN, "@: TODO"},
    {"zip64_entries_marker", MLP, mk_patch, {.path = "eocd", .off = 8, .value = "\xff\xff\xff\xff", .len = 4}, OPEN, "@: TODO"},
    {"junk_after_eocd", MLP, mk_append, {.value = "JUNKJUNKJUNK", .len = 12}, OPEN, "@: TODO"},
    {"crc_mismatch", MLP, mk_patch, {.path = "cd", .off = 16, .value = "\x01\x02\x03\x04", .len = 4}, OPEN, "@: TODO"},
    /* ---- members ---- */
    {"missing_program_json", MLP, mk_drop, {.member = PROG}, OPEN, "@: TODO"},
    {"missing_legacy_program", LEG, mk_drop, {.member = "serialized_exported_program.json"}, OPEN, "@: TODO"},
    {"missing_weight_file", MLP, mk_drop, {.member = "data/weights/weight_4"}, OPEN, "@: TODO"},
    {"missing_weights_config", MLP, mk_drop, {.member = WCFG}, OPEN, "@: TODO"},
    {"missing_constants_config", MLP, mk_drop, {.member = "data/constants/model_constants_config.json"}, OPEN, "@: TODO"},
    {"version_junk", MLP, BYTES("archive_version", "0\x01garbage"), OPEN, "@: TODO"},
    {"byteorder_junk", MLP, BYTES("byteorder", "sideways"), OPEN, "@: TODO"},
    {"legacy_version_junk", LEG, BYTES("version", "x1"), OPEN, "@: TODO"},
    {"data_version_junk", MLP, BYTES(".data/version", "\xff\xfe"), OPEN, "@: TODO"},
    /* ---- the program JSON as text ---- */
    {"json_truncated", MLP, mk_json_truncate, {.member = PROG, .off = 3000}, OPEN, "@: TODO"},
    {"json_empty", MLP, BYTES(PROG, ""), OPEN, "@: TODO"},
    {"json_nested_100000", MLP, mk_json_deep, {.member = PROG, .off = 100000}, OPEN, "@: TODO"},
    {"json_not_object", MLP, BYTES(PROG, "[1, 2, 3]"), OPEN, "@: TODO"},
    /* ---- wrong types for every structured field ---- */
    {"range_constraints_list", MLP, JSET("range_constraints", "[1, 2]"), OPEN, MJ "TODO"},
    {"range_constraint_list", MLP, JSET("range_constraints/s0", "[1, 2]"), OPEN, MJ "TODO"},
    {"opset_version_list", MLP, JSET("opset_version", "[1, 2]"), OPEN, MJ "TODO"},
    {"schema_version_list", MLP, JSET("schema_version", "[1, 2]"), OPEN, MJ "TODO"},
    {"tensor_values_list", MLP, JSET(G "tensor_values", "[1, 2]"), OPEN, MJ "TODO"},
    {"sym_int_values_list", MLP, JSET(G "sym_int_values", "[1, 2]"), OPEN, MJ "TODO"},
    {"sym_bool_values_list", MLP, JSET(G "sym_bool_values", "[1, 2]"), OPEN, MJ "TODO"},
    {"sym_float_values_list", MLP, JSET(G "sym_float_values", "[1, 2]"), OPEN, MJ "TODO"},
    {"nodes_object", MLP, JSET(G "nodes", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"graph_inputs_object", MLP, JSET(G "inputs", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"graph_outputs_number", MLP, JSET(G "outputs", "7"), OPEN, MJ "TODO"},
    {"node_is_list", MLP, JSET(G "nodes/1", "[1]"), OPEN, MJ "TODO"},
    {"node_inputs_object", MLP, JSET(G "nodes/0/inputs", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"node_input_is_list", MLP, JSET(G "nodes/0/inputs/0", "[1]"), OPEN, MJ "TODO"},
    {"node_outputs_object", MLP, JSET(G "nodes/0/outputs", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"node_metadata_list", MLP, JSET(G "nodes/0/metadata", "[1, 2]"), OPEN, MJ "TODO"},
    {"node_metadata_value_list", MLP, JSET(G "nodes/0/metadata/stack_trace", "[1, 2]"), OPEN, MJ "TODO"},
    {"node_name_number", MLP, JSET(G "nodes/0/name", "12"), OPEN, MJ "TODO"},
    {"signature_list", MLP, JSET("graph_module/signature", "[1]"), OPEN, MJ "TODO"},
    {"input_specs_object", MLP, JSET("graph_module/signature/input_specs", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"output_spec_list", MLP, JSET("graph_module/signature/output_specs/0", "[1]"), OPEN, MJ "TODO"},
    {"module_call_graph_object", MLP, JSET("graph_module/module_call_graph", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"tensor_meta_list", MLP, JSET(G "tensor_values/x", "[1, 2]"), OPEN, MJ "TODO"},
    {"tensor_sizes_object", MLP, JSET(G "tensor_values/x/sizes", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"tensor_strides_object", MLP, JSET(G "tensor_values/x/strides", "{\"a\": 1}"), OPEN, MJ "TODO"},
    {"weights_config_list", MLP, WSET("config", "[1, 2]"), OPEN, WJ "TODO"},
    {"weights_entry_list", MLP, WSET("config/fc1.weight", "[1, 2]"), OPEN, WJ "TODO"},
    {"constants_config_list", MLP,
     mk_replace, {.member = "data/constants/model_constants_config.json", .value = "{\"config\": [1]}", .len = 15}, OPEN,
     "@: TODO"},
    /* ---- unions ---- */
    {"arg_unknown_union_key", MLP, JSET(G "nodes/0/inputs/0/arg", "{\"as_bogus\": 1}"), OPEN, MJ "TODO"},
    {"arg_two_union_keys", MLP, JSET(G "nodes/0/inputs/0/arg", "{\"as_int\": 1, \"as_float\": 2}"), OPEN, MJ "TODO"},
    {"input_spec_unknown_kind", MLP, JSET("graph_module/signature/input_specs/0", "{\"hyperparameter\": {}}"), OPEN, MJ "TODO"},
    {"sym_size_unknown_variant", MLP, JSET(G "tensor_values/x/sizes/0", "{\"as_text\": \"s0\"}"), OPEN, MJ "TODO"},
    /* ---- graph structure ---- */
    {"undefined_value", MLP, JSET(G "nodes/1/inputs/0/arg/as_tensor/name", "\"nosuch\""), OPEN, MJ "TODO"},
    {"later_defined_value", MLP, JSET(G "nodes/1/inputs/0/arg/as_tensor/name", "\"gelu\""), OPEN, MJ "TODO"},
    {"cycle", MLP, JSET(G "nodes/0/inputs/0/arg/as_tensor/name", "\"relu\""), OPEN, MJ "TODO"},
    {"undefined_graph_output", MLP, JSET(G "outputs/0/as_tensor/name", "\"nosuch\""), OPEN, MJ "TODO"},
    {"duplicate_node_name", MLP, JSET(G "nodes/2/name", "\"relu\""), OPEN, MJ "TODO"},
    {"duplicate_value_name", MLP, JSET(G "nodes/2/outputs/0/as_tensor/name", "\"relu\""), OPEN, MJ "TODO"},
    {"output_shadows_input", MLP, JSET(G "nodes/0/outputs/0/as_tensor/name", "\"x\""), OPEN, MJ "TODO"},
    /* ---- tensor metadata ---- */
    {"unknown_dtype_code", MLP, JSET(G "tensor_values/x/dtype", "99"), OPEN, MJ "TODO"},
    {"negative_size", MLP, JSET(G "tensor_values/x/sizes/1", "{\"as_int\": -3}"), OPEN, MJ "TODO"},
    {"weight_negative_size", MLP, WSET("config/fc1.weight/tensor_meta/sizes/0", "{\"as_int\": -32}"), OPEN, WJ "TODO"},
    {"weight_huge_size", MLP, WSET("config/fc1.weight/tensor_meta/sizes/0", "{\"as_int\": 4611686018427387904}"), OPEN, WJ "TODO"},
    {"weight_size_overflow", MLP,
     WSET("config/fc1.weight/tensor_meta/sizes", "[{\"as_int\": 4294967296}, {\"as_int\": 4294967296}]"), OPEN, WJ "TODO"},
    {"weight_negative_stride", MLP, WSET("config/fc1.weight/tensor_meta/strides/0", "{\"as_int\": -16}"), OPEN, WJ "TODO"},
    {"weight_huge_stride", MLP, WSET("config/fc1.weight/tensor_meta/strides/0", "{\"as_int\": 9223372036854775807}"), OPEN, WJ "TODO"},
    {"weight_stride_outside", MLP, WSET("config/fc1.weight/tensor_meta/strides/0", "{\"as_int\": 17}"), OPEN, WJ "TODO"},
    {"weight_offset_outside", MLP, WSET("config/fc1.weight/tensor_meta/storage_offset", "{\"as_int\": 1}"), OPEN, WJ "TODO"},
    {"weight_offset_negative", MLP, WSET("config/fc1.weight/tensor_meta/storage_offset", "{\"as_int\": -1}"), OPEN, WJ "TODO"},
    {"weight_dtype_too_wide", MLP, WSET("config/fc1.weight/tensor_meta/dtype", "8"), OPEN, WJ "TODO"},
    {"weight_dtype_unknown", MLP, WSET("config/fc1.weight/tensor_meta/dtype", "77"), OPEN, WJ "TODO"},
    {"weight_file_short", MLP, BYTES("data/weights/weight_0", "0123456789"), OPEN, "@: TODO"},
    /* ---- pickles (the stored example inputs) ---- */
    {"pickle_global_os_system", MLP, PKL("\x80\x02" "cos\nsystem\n" "X\x02\x00\x00\x00id\x85R."), OPEN, SJ "TODO"},
    {"pickle_global_builtins_eval", MLP, PKL("\x80\x02" "cbuiltins\neval\n" "X\x01\x00\x00\x001\x85R."), OPEN, SJ "TODO"},
    {"pickle_global_subprocess_popen", MLP, PKL("\x80\x02" "csubprocess\nPopen\n" "X\x02\x00\x00\x00id\x85R."), OPEN, SJ "TODO"},
    {"pickle_stack_global_posix_system", MLP,
     PKL("\x80\x04\x8c\x05posix\x8c\x06system\x93\x8c\x02id\x85R."), OPEN, SJ "TODO"},
    {"pickle_stack_global_os_system", MLP, PKL("\x80\x04\x8c\x02os\x8c\x06system\x93\x8c\x02id\x85R."), OPEN, SJ "TODO"},
    {"pickle_stack_global_eval", MLP, PKL("\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93\x8c\x01" "1\x85R."), OPEN, SJ "TODO"},
    {"pickle_reduce_non_callable", MLP, PKL("\x80\x02X\x01\x00\x00\x00" "a)R."), OPEN, SJ "TODO"},
    {"pickle_reduce_storage_type", MLP, PKL("\x80\x02" "ctorch\nFloatStorage\n)R."), OPEN, SJ "TODO"},
    {"pickle_memo_get_missing", MLP, PKL("\x80\x02h\x05."), OPEN, SJ "TODO"},
    {"pickle_memo_long_get_huge", MLP, PKL("\x80\x02j\xff\xff\xff\xff."), OPEN, SJ "TODO"},
    {"pickle_memo_put_empty_stack", MLP, PKL("\x80\x02q\x00."), OPEN, SJ "TODO"},
    {"pickle_memoize_empty_stack", MLP, PKL("\x80\x04\x94."), OPEN, SJ "TODO"},
    {"pickle_protocol_255", MLP, PKL("\x80\xff" "N."), OPEN, SJ "TODO"},
    {"pickle_no_stop", MLP, PKL("\x80\x02N"), OPEN, SJ "TODO"},
    {"pickle_not_inputs", MLP, PKL("\x80\x02K\x07."), OPEN, SJ "TODO"},
    {"sample_inputs_not_zip", MLP, BYTES(SAMPLE, "this is not a zip"), OPEN, "@: TODO"},
    /* ---- .npy inputs that lie (x is float32 [4, 16]: 256 bytes) ---- */
    {"npy_shape_lies", MLP, NPYH("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 16), }", "0123"), INPUT, "@: TODO"},
    {"npy_dtype_lies", MLP, NPYH("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", "0123456789abcdef"), INPUT, "@: TODO"},
    {"npy_dtype_unknown", MLP, NPYH("{'descr': '<q9', 'fortran_order': False, 'shape': (1,), }", "01234567"), INPUT, "@: TODO"},
    {"npy_order_nonsense", MLP, NPYH("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", "0123"), INPUT, "@: TODO"},
    {"npy_shape_overflow", MLP, NPYH("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""), INPUT, "@: TODO"},
    {"npy_shape_negative", MLP, NPYH("{'descr': '<f4', 'fortran_order': False, 'shape': (-4, 16), }", ""), INPUT, "@: TODO"},
    {"npy_header_past_end", MLP, NPY("\x93NUMPY\x01\x00\xff\x7f{'descr': '<f4'"), INPUT, "@: TODO"},
};

/* The expected message with '@' replaced by path. */
static char *expand(const char *msg, const char *path)
{
    StrBuf sb;
    sb_init(&sb);
    for (const char *p = msg; *p; p++) {
        if (*p == '@')
            sb_append(&sb, path);
        else
            sb_appendn(&sb, p, 1);
    }
    return sb_take(&sb);
}

/* got (one message, no "epdbg: ") matches want, all of it or its prefix. */
static bool matches(const char *got, const char *want)
{
    size_t n = strlen(want);
    if (n > 3 && strcmp(want + n - 3, "...") == 0)
        return strncmp(got, want, n - 3) == 0;
    return strcmp(got, want) == 0;
}

/* A run of the binary: exit 2 and exactly one line on stderr, the message. */
static void check_run(const Case *c, const char *const *args, const char *want)
{
    RunResult r = test_run_binary(args, NULL, NULL);
    const char *nl = strchr(r.err, '\n');
    bool one_line = nl && nl[1] == '\0';
    if (nl)
        *(char *)nl = '\0';
    const char *msg = strncmp(r.err, "epdbg: ", 7) == 0 ? r.err + 7 : r.err;
    ck_assert_msg(r.code == 2 && one_line && matches(msg, want),
                  "%s: epdbg %s: exit %d, want 2\n  got:  %s%s\n  want: %s", c->name, args[0], r.code, r.err,
                  one_line ? "" : " (and more lines)", want);
    run_result_free(&r);
}

START_TEST(test_malformed_case)
{
    const Case *c = &cases[_i];
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/%s%s", dir, c->name, c->cmd == INPUT ? ".npy" : ".pt2");
    c->make(c->base, &c->args, path);
    char *want = expand(c->msg, path);
    if (c->cmd == OPEN) {
        Model *m = NULL;
        EpError err = {0};
        EpStatus rc = model_open(path, NULL, &m, &err);
        ck_assert_msg(rc == EP_ERR_FORMAT && matches(err.msg, want),
                      "%s: model_open: status %d\n  got:  %s\n  want: %s", c->name, rc, err.msg, want);
        model_free(m);
        check_run(c, (const char *[]){"info", path, NULL}, want);
        check_run(c, (const char *[]){"run", path, NULL}, want);
    } else {
        char *spec = ep_xasprintf("x=%s", path);
        check_run(c, (const char *[]){"run", c->base, "--input", spec, NULL}, want);
        free(spec);
    }
    free(want);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}
END_TEST

/* The debugger reaches the same verdict on corrupt example inputs as run:
** it used to say the archive had none (exit 1). */
START_TEST(test_debugger_same_verdict)
{
    static const char pkl[] = "\x80\x02K\x07.";
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/inputs.pt2", dir);
    mk_pickle(MLP, &(MakeArgs){.member = SAMPLE, .value = pkl, .len = sizeof pkl - 1}, path);
    RunResult r = test_run_binary((const char *[]){path, "--batch", "-ex", "run", NULL}, NULL, NULL);
    ck_assert_msg(r.code == 2, "exit %d: %s%s", r.code, r.out, r.err);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}
END_TEST

/* Every row breaks its base: the unbroken base opens cleanly, so a row's
** refusal is the mutation's doing. */
START_TEST(test_bases_open)
{
    static const char *bases[] = {MLP, LEG, CNN};
    for (size_t i = 0; i < EP_ARRAY_LEN(bases); i++) {
        Model *m = NULL;
        EpError err = {0};
        ck_assert_msg(model_open(bases[i], NULL, &m, &err) == EP_OK, "%s: %s", bases[i], err.msg);
        model_free(m);
    }
}
END_TEST

Suite *suite_malformed(void)
{
    Suite *s = suite_create("malformed");
    TCase *tc = tcase_create("cases");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bases_open);
    tcase_add_loop_test(tc, test_malformed_case, 0, (int)EP_ARRAY_LEN(cases));
    tcase_add_test(tc, test_debugger_same_verdict);
    suite_add_tcase(s, tc);
    return s;
}
