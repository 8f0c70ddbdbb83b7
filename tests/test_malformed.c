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
#define SJ "@:mlp/data/sample_inputs/model.pt:data.pkl: "

/* JSON edits of the program: set PATH to VALUE (NULL deletes it). */
#define JSET(p, v) mk_json_set, {.member = PROG, .path = (p), .value = (v)}
#define WSET(p, v) mk_json_set, {.member = WCFG, .path = (p), .value = (v)}
/* a pickle (bytes) as the stored example inputs' data.pkl */
#define PKL(bytes) mk_pickle, {.member = SAMPLE, .value = (bytes), .len = sizeof(bytes) - 1}
#define BYTES(m, bytes) mk_replace, {.member = (m), .value = (bytes), .len = sizeof(bytes) - 1}
#define NPY(bytes) mk_file, {.value = (bytes), .len = sizeof(bytes) - 1}
#define NPYH(header, data) mk_npy, {.path = (header), .value = (data), .len = sizeof(data) - 1}

#define PATCH(rec, at, bytes) mk_patch, {.path = (rec), .off = (at), .value = (bytes), .len = sizeof(bytes) - 1}

#define G "graph_module/graph/"

static const Case cases[] = {
    /* ---- the zip container ---- */
    {"truncated_at_10", MLP, mk_truncate, {.off = 10}, OPEN, "@: truncated (no end-of-central-directory record)"},
    {"truncated_by_50", MLP, mk_truncate, {.off = -50}, OPEN, "@: corrupt central directory (entry 0)"},
    {"truncated_by_100", MLP, mk_truncate, {.off = -100}, OPEN, "@: corrupt central directory (entry 0)"},
    {"truncated_in_end_record", MLP, mk_truncate, {.off = -10}, OPEN, "@: corrupt central directory (entry 0)"},
    {"empty_file", MLP, mk_truncate, {.off = 0}, OPEN, "@: not a zip archive (empty file)"},
    {"cd_bad_signature", MLP, PATCH("cd", 0, "XXXX"), OPEN,
     "@: corrupt central directory (entry 0)"},
    {"cd_offset_past_end", MLP, PATCH("eocd", 16, "\xff\xff\xff\x7f"), OPEN,
     "@: truncated (central directory outside the file)"},
    {"cd_count_wrong", MLP, PATCH("eocd", 8, "\x30\x00\x30\x00"), OPEN,
     "@: corrupt central directory (48 entries in 1215 bytes)"},
    {"cd_name_length_huge", MLP, PATCH("cd", 28, "\xff\xff"), OPEN,
     "@: corrupt central directory (entry 0)"},
    {"cd_local_offset_wrong", MLP, PATCH("cd", 42, "\x00\x00\x00\x70"), OPEN,
     "@: member mlp/data/weights/weight_0 lies outside the archive"},
    {"member_size_huge", MLP, PATCH("cd", 20, "\xf0\xff\xff\x7f\xf0\xff\xff\x7f"), OPEN,
     "@: member mlp/data/weights/weight_0 lies outside the archive"},
    {"member_method_unknown", MLP, PATCH("cd", 10, "\x63\x00"), OPEN,
     "@: corrupt zip archive: member mlp/data/weights/weight_0 uses compression method 99 (only stored and "
     "deflated)"},
    {"zip64_marker_without_record", MLP, PATCH("eocd", 16, "\xff\xff\xff\xff"), OPEN,
     "@: truncated (central directory outside the file)"},
    {"zip64_size_marker_without_extra", MLP, PATCH("cd", 20, "\xff\xff\xff\xff\xff\xff\xff\xff"), OPEN,
     "@: corrupt ZIP64 field in central directory entry 0"},
    {"zip64_entries_marker", MLP, PATCH("eocd", 8, "\xff\xff\xff\xff"), OPEN,
     "@: corrupt central directory (65535 entries in 1215 bytes)"},
    {"junk_after_eocd", MLP, mk_append, {.value = "JUNKJUNKJUNK", .len = 12}, OPEN,
     "@: corrupt zip archive: 12 bytes after the end-of-central-directory record (junk, or another file "
     "appended)"},
    {"crc_mismatch", MLP, PATCH("cd", 16, "\x01\x02\x03\x04"), OPEN,
     "@: corrupt zip archive: member mlp/data/weights/weight_0: CRC 04030201 in the central directory, a15ee139 "
     "in its local header"},
    /* ---- members ---- */
    {"missing_program_json", MLP, mk_drop, {.member = PROG}, OPEN,
     "@: not a torch.export archive (no serialized_exported_program.json and no models/<name>.json; first member: "
     "mlp/data/weights/weight_0)"},
    {"missing_legacy_program", LEG, mk_drop, {.member = "serialized_exported_program.json"}, OPEN,
     "@: not a torch.export archive (no serialized_exported_program.json and no models/<name>.json; first member: "
     "serialized_state_dict.json)"},
    {"missing_weight_file", MLP, mk_drop, {.member = "data/weights/weight_4"}, OPEN,
     "@:mlp/data/weights/model_weights_config.json: config.fc2.weight: names data/weights/weight_4, which is not in "
     "the archive"},
    {"missing_weights_config", MLP, mk_drop, {.member = WCFG}, OPEN,
     "@: the parameter fc1.weight is not in the archive's weights or constants"},
    {"missing_archive_format", MLP, mk_drop, {.member = "archive_format"}, OPEN,
     "@: not a torch.export archive (no serialized_exported_program.json and no models/<name>.json; first member: "
     "mlp/data/weights/weight_0)"},
    {"version_junk", MLP, BYTES("archive_version", "0\x01garbage"), OPEN,
     "@: mlp/archive_version: not a version number (9 bytes)"},
    {"byteorder_junk", MLP, BYTES("byteorder", "sideways"), OPEN, "@: mlp/byteorder: expected 'little' or 'big'"},
    {"legacy_version_junk", LEG, BYTES("version", "x1"), OPEN, "@: version: not a version number (2 bytes)"},
    {"data_version_junk", MLP, BYTES(".data/version", "\xff\xfe"), OPEN,
     "@: mlp/.data/version: not a version number (2 bytes)"},
    /* ---- the program JSON as text ---- */
    {"json_truncated", MLP, mk_json_truncate, {.member = PROG, .off = 3000}, OPEN,
     "@:mlp/models/model.json: invalid JSON at line 1, column 2973"},
    {"json_empty", MLP, BYTES(PROG, ""), OPEN,
     "@:mlp/models/model.json: invalid JSON at line 1, column 1 (the text ends early: truncated?)"},
    {"json_nested_100000", MLP, mk_json_deep, {.member = PROG, .off = 100000}, OPEN,
     MJ "JSON nested deeper than 1000 levels at line 1, column 1001"},
    {"json_not_object", MLP, BYTES(PROG, "[1, 2, 3]"), OPEN,
     "@:mlp/models/model.json: (top level): expected an object"},
    /* ---- wrong types for every structured field ---- */
    {"range_constraints_list", MLP, JSET("range_constraints", "[1, 2]"), OPEN,
     MJ "range_constraints: expected an object (a table keyed by name)"},
    {"range_constraint_list", MLP, JSET("range_constraints/s0", "[1, 2]"), OPEN,
     MJ "range_constraints.s0: expected an object {min_val, max_val}"},
    {"opset_version_list", MLP, JSET("opset_version", "[1, 2]"), OPEN, MJ "opset_version: expected an object (a table keyed by name)"},
    {"schema_version_list", MLP, JSET("schema_version", "[1, 2]"), OPEN,
     MJ "schema_version: expected an integer or {major, minor}"},
    {"tensor_values_list", MLP, JSET(G "tensor_values", "[1, 2]"), OPEN,
     MJ "graph_module.graph.tensor_values: expected an object (a table keyed by name)"},
    {"sym_int_values_list", MLP, JSET(G "sym_int_values", "[1, 2]"), OPEN,
     MJ "graph_module.graph.sym_int_values: expected an object (a table keyed by name)"},
    {"sym_bool_values_list", MLP, JSET(G "sym_bool_values", "[1, 2]"), OPEN,
     MJ "graph_module.graph.sym_bool_values: expected an object (a table keyed by name)"},
    {"sym_float_values_list", MLP, JSET(G "sym_float_values", "[1, 2]"), OPEN,
     MJ "graph_module.graph.sym_float_values: expected an object (a table keyed by name)"},
    {"nodes_object", MLP, JSET(G "nodes", "{\"a\": 1}"), OPEN, MJ "graph_module.graph.nodes: expected a list"},
    {"graph_inputs_object", MLP, JSET(G "inputs", "{\"a\": 1}"), OPEN, MJ "graph_module.graph.inputs: expected a list"},
    {"graph_outputs_number", MLP, JSET(G "outputs", "7"), OPEN, MJ "graph_module.graph.outputs: expected a list"},
    {"node_is_list", MLP, JSET(G "nodes/1", "[1]"), OPEN, MJ "graph_module.graph.nodes[1]: expected an object"},
    {"node_inputs_object", MLP, JSET(G "nodes/0/inputs", "{\"a\": 1}"), OPEN,
     MJ "graph_module.graph.nodes[0].inputs: expected a list"},
    {"node_input_is_list", MLP, JSET(G "nodes/0/inputs/0", "[1]"), OPEN,
     MJ "graph_module.graph.nodes[0].inputs[0]: expected an object"},
    {"node_outputs_object", MLP, JSET(G "nodes/0/outputs", "{\"a\": 1}"), OPEN,
     MJ "graph_module.graph.nodes[0].outputs: expected a list"},
    {"node_metadata_list", MLP, JSET(G "nodes/0/metadata", "[1, 2]"), OPEN,
     MJ "graph_module.graph.nodes[0].metadata: expected an object of strings"},
    {"node_metadata_value_list", MLP, JSET(G "nodes/0/metadata/stack_trace", "[1, 2]"), OPEN,
     MJ "graph_module.graph.nodes[0].metadata.stack_trace: expected a string"},
    {"node_name_number", MLP, JSET(G "nodes/0/name", "12"), OPEN,
     MJ "graph_module.graph.nodes[0].name: expected a string"},
    {"signature_list", MLP, JSET("graph_module/signature", "[1]"), OPEN,
     MJ "graph_module.signature: expected an object"},
    {"input_specs_object", MLP, JSET("graph_module/signature/input_specs", "{\"a\": 1}"), OPEN,
     MJ "graph_module.signature.input_specs: expected a list"},
    {"output_spec_list", MLP, JSET("graph_module/signature/output_specs/0", "[1]"), OPEN,
     MJ "graph_module.signature.output_specs[0]: expected a union object"},
    {"module_call_graph_object", MLP, JSET("graph_module/module_call_graph", "{\"a\": 1}"), OPEN,
     MJ "graph_module.module_call_graph: expected a list"},
    {"tensor_meta_list", MLP, JSET(G "tensor_values/x", "[1, 2]"), OPEN,
     MJ "graph_module.graph.tensor_values.x: expected an object"},
    {"tensor_sizes_object", MLP, JSET(G "tensor_values/x/sizes", "{\"a\": 1}"), OPEN,
     MJ "graph_module.graph.tensor_values.x.sizes: expected a list"},
    {"tensor_strides_object", MLP, JSET(G "tensor_values/x/strides", "{\"a\": 1}"), OPEN,
     MJ "graph_module.graph.tensor_values.x.strides: expected a list"},
    {"weights_config_list", MLP, WSET("config", "[1, 2]"), OPEN, WJ "config: expected an object (FQN -> payload)"},
    {"weights_entry_list", MLP, WSET("config/fc1.weight", "[1, 2]"), OPEN,
     WJ "config.fc1.weight: expected an object {path_name, is_param, use_pickle, tensor_meta}"},
    {"constants_config_list", MLP,
     BYTES("data/constants/model_constants_config.json", "{\"config\": [1]}"), OPEN,
     "@:mlp/data/constants/model_constants_config.json: config: expected an object (FQN -> payload)"},
    /* ---- unions ---- */
    {"arg_unknown_union_key", MLP, JSET(G "nodes/0/inputs/0/arg", "{\"as_bogus\": 1}"), OPEN,
     MJ "graph_module.graph.nodes[0].inputs[0].arg: unknown Argument variant 'as_bogus'"},
    {"arg_two_union_keys", MLP, JSET(G "nodes/0/inputs/0/arg", "{\"as_int\": 1, \"as_float\": 2}"), OPEN,
     MJ "graph_module.graph.nodes[0].inputs[0].arg: union with 2 variants set (expected exactly one)"},
    {"input_spec_unknown_kind", MLP, JSET("graph_module/signature/input_specs/0", "{\"hyperparameter\": {}}"), OPEN,
     MJ "graph_module.signature.input_specs[0]: unknown input spec kind 'hyperparameter'"},
    {"sym_size_unknown_variant", MLP, JSET(G "tensor_values/x/sizes/0", "{\"as_text\": \"s0\"}"), OPEN,
     MJ "graph_module.graph.tensor_values.x.sizes[0]: unexpected SymInt variant 'as_text'"},
    /* ---- graph structure ---- */
    {"undefined_value", MLP, JSET(G "nodes/1/inputs/0/arg/as_tensor/name", "\"nosuch\""), OPEN,
     MJ "graph_module.graph.nodes[1]: node 'relu' (torch.ops.aten.relu.default) uses 'nosuch', which no graph input "
     "or node defines"},
    {"later_defined_value", MLP, JSET(G "nodes/1/inputs/0/arg/as_tensor/name", "\"gelu\""), OPEN,
     MJ "graph_module.graph.nodes[1]: node 'relu' (torch.ops.aten.relu.default) uses 'gelu' before node 5 'gelu' "
     "defines it (the nodes are out of order or form a cycle)"},
    {"cycle", MLP, JSET(G "nodes/0/inputs/0/arg/as_tensor/name", "\"relu\""), OPEN,
     MJ "graph_module.graph.nodes[0]: node 'linear' (torch.ops.aten.linear.default) uses 'relu' before node 1 'relu' "
     "defines it (the nodes are out of order or form a cycle)"},
    {"undefined_graph_output", MLP, JSET(G "outputs/0/as_tensor/name", "\"nosuch\""), OPEN,
     MJ "graph_module.graph.outputs[0]: the graph returns 'nosuch', which no graph input or node defines"},
    {"duplicate_node_name", MLP, JSET(G "nodes/2/name", "\"relu\""), OPEN,
     MJ "graph_module.graph.nodes[2]: node 'relu' (torch.ops.aten.layer_norm.default): a second node of that name"},
    {"duplicate_value_name", MLP, JSET(G "nodes/2/outputs/0/as_tensor/name", "\"relu\""), OPEN,
     MJ "graph_module.graph.nodes[2]: node 'layer_norm' (torch.ops.aten.layer_norm.default) defines 'relu', which "
     "node 1 'relu' already defines"},
    {"output_shadows_input", MLP, JSET(G "nodes/0/outputs/0/as_tensor/name", "\"x\""), OPEN,
     MJ "graph_module.graph.nodes[0]: node 'linear' (torch.ops.aten.linear.default) defines 'x', which is a graph "
     "input"},
    /* ---- tensor metadata ---- */
    {"unknown_dtype_code", MLP, JSET(G "tensor_values/x/dtype", "99"), OPEN,
     MJ "graph_module.graph.tensor_values.x.dtype: unknown ScalarType code 99 (torch/_export/serde/schema.py has no "
     "such value)"},
    {"negative_size", MLP, JSET(G "tensor_values/x/sizes/1", "{\"as_int\": -3}"), OPEN,
     MJ "graph_module.graph.tensor_values.x.sizes[1]: negative size -3"},
    {"weight_negative_size", MLP, WSET("config/fc1.weight/tensor_meta/sizes/0", "{\"as_int\": -32}"), OPEN,
     WJ "fc1.weight: float32 view of size [-32, 16], stride [16, 1], offset 0 is outside its storage of 2048 bytes"},
    {"weight_huge_size", MLP, WSET("config/fc1.weight/tensor_meta/sizes/0", "{\"as_int\": 4611686018427387904}"), OPEN,
     WJ "fc1.weight: float32 view of size [4611686018427387904, 16], stride [16, 1], offset 0 is outside its storage of 2048 "
     "bytes"},
    {"weight_size_overflow", MLP,
     WSET("config/fc1.weight/tensor_meta/sizes", "[{\"as_int\": 4294967296}, {\"as_int\": 4294967296}]"), OPEN,
     WJ "fc1.weight: float32 view of size [4294967296, 4294967296], stride [16, 1], offset 0 is outside its storage of 2048 "
        "bytes"},
    {"weight_negative_stride", MLP, WSET("config/fc1.weight/tensor_meta/strides/0", "{\"as_int\": -16}"), OPEN,
     WJ "fc1.weight: float32 view of size [32, 16], stride [-16, 1], offset 0 is outside its storage of 2048 bytes"},
    {"weight_huge_stride", MLP,
     WSET("config/fc1.weight/tensor_meta/strides/0", "{\"as_int\": 9223372036854775807}"), OPEN,
     WJ "fc1.weight: float32 view of size [32, 16], stride [9223372036854775807, 1], offset 0 is outside its storage of 2048 "
     "bytes"},
    {"weight_stride_outside", MLP, WSET("config/fc1.weight/tensor_meta/strides/0", "{\"as_int\": 17}"), OPEN,
     WJ "fc1.weight: float32 view of size [32, 16], stride [17, 1], offset 0 is outside its storage of 2048 bytes"},
    {"weight_offset_outside", MLP, WSET("config/fc1.weight/tensor_meta/storage_offset", "{\"as_int\": 1}"), OPEN,
     WJ "fc1.weight: float32 view of size [32, 16], stride [16, 1], offset 1 is outside its storage of 2048 bytes"},
    {"weight_offset_negative", MLP, WSET("config/fc1.weight/tensor_meta/storage_offset", "{\"as_int\": -1}"), OPEN,
     WJ "fc1.weight: float32 view of size [32, 16], stride [16, 1], offset -1 is outside its storage of 2048 bytes"},
    {"weight_dtype_too_wide", MLP, WSET("config/fc1.weight/tensor_meta/dtype", "8"), OPEN,
     WJ "fc1.weight: float64 view of size [32, 16], stride [16, 1], offset 0 is outside its storage of 2048 bytes"},
    {"weight_dtype_unknown", MLP, WSET("config/fc1.weight/tensor_meta/dtype", "77"), OPEN,
     WJ "config.fc1.weight.tensor_meta.dtype: unknown ScalarType code 77 (torch/_export/serde/schema.py has no such "
     "value)"},
    {"weight_file_short", MLP, BYTES("data/weights/weight_0", "0123456789"), OPEN,
     "@:mlp/data/weights/model_weights_config.json: fc1.weight: float32 view of size [32, 16], stride [16, 1], offset 0 is "
     "outside its storage of 10 bytes"},
    /* ---- pickles (the stored example inputs) ---- */
    {"pickle_global_os_system", MLP, PKL("\x80\x02" "cos\nsystem\n" "X\x02\x00\x00\x00id\x85R."), OPEN,
     SJ "byte 2 (GLOBAL): refused global os.system (only tensors, containers and numbers are loaded)"},
    {"pickle_global_builtins_eval", MLP, PKL("\x80\x02" "cbuiltins\neval\n" "X\x01\x00\x00\x001\x85R."), OPEN,
     SJ "byte 2 (GLOBAL): refused global builtins.eval (only tensors, containers and numbers are loaded)"},
    {"pickle_global_subprocess_popen", MLP, PKL("\x80\x02" "csubprocess\nPopen\n" "X\x02\x00\x00\x00id\x85R."), OPEN,
     SJ "byte 2 (GLOBAL): refused global subprocess.Popen (only tensors, containers and numbers are loaded)"},
    {"pickle_stack_global_posix_system", MLP,
     PKL("\x80\x04\x8c\x05posix\x8c\x06system\x93\x8c\x02id\x85R."), OPEN,
     SJ "byte 17 (STACK_GLOBAL): refused global posix.system (only tensors, containers and numbers are loaded)"},
    {"pickle_stack_global_os_system", MLP, PKL("\x80\x04\x8c\x02os\x8c\x06system\x93\x8c\x02id\x85R."), OPEN,
     SJ "byte 14 (STACK_GLOBAL): refused global os.system (only tensors, containers and numbers are loaded)"},
    {"pickle_stack_global_eval", MLP, PKL("\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93\x8c\x01" "1\x85R."), OPEN,
     SJ "byte 18 (STACK_GLOBAL): refused global builtins.eval (only tensors, containers and numbers are loaded)"},
    {"pickle_reduce_non_callable", MLP, PKL("\x80\x02X\x01\x00\x00\x00" "a)R."), OPEN,
     SJ "byte 9 (REDUCE): a str is not callable"},
    {"pickle_reduce_storage_type", MLP, PKL("\x80\x02" "ctorch\nFloatStorage\n)R."), OPEN,
     SJ "byte 23 (REDUCE): torch.FloatStorage cannot be called"},
    {"pickle_memo_get_missing", MLP, PKL("\x80\x02h\x05."), OPEN, SJ "byte 2 (BINGET): memo index 5 was never stored"},
    {"pickle_memo_long_get_huge", MLP, PKL("\x80\x02j\xff\xff\xff\xff."), OPEN,
     SJ "byte 2 (LONG_BINGET): memo index 4294967295 was never stored"},
    {"pickle_memo_put_empty_stack", MLP, PKL("\x80\x02q\x00."), OPEN, SJ "byte 2 (BINPUT): stack underflow"},
    {"pickle_memoize_empty_stack", MLP, PKL("\x80\x04\x94."), OPEN, SJ "byte 2 (MEMOIZE): stack underflow"},
    {"pickle_protocol_255", MLP, PKL("\x80\xff" "N."), OPEN, SJ "byte 0 (PROTO): unsupported pickle protocol 255"},
    {"pickle_no_stop", MLP, PKL("\x80\x02N"), OPEN, SJ "truncated: no STOP opcode in 3 bytes"},
    {"pickle_not_inputs", MLP, PKL("\x80\x02K\x07."), OPEN,
     "@: stored example inputs: example inputs: inputs is a int where the program expects a builtins.tuple"},
    {"sample_inputs_not_zip", MLP, BYTES(SAMPLE, "this is not a zip"), OPEN,
     "@:mlp/data/sample_inputs/model.pt: not a zip archive (no end-of-central-directory record)"},
    /* ---- .npy inputs that lie (x is float32 [4, 16]: 256 bytes) ---- */
    {"npy_shape_lies", MLP, NPYH("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 16), }", "0123"), INPUT,
     "@: truncated data (256 bytes for float32 of 64 elements, 4 present)"},
    {"npy_dtype_lies", MLP,
     NPYH("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", "0123456789abcdef"), INPUT,
     "@: truncated data (32 bytes for float64 of 4 elements, 16 present)"},
    {"npy_dtype_unknown", MLP, NPYH("{'descr': '<q9', 'fortran_order': False, 'shape': (1,), }", "01234567"), INPUT,
     "@: header: dtype '<q9' is not supported (bool, uint8, int8/16/32/64, float16/32/64)"},
    {"npy_order_nonsense", MLP, NPYH("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", "0123"), INPUT,
     "@: header: bad 'fortran_order'"},
    {"npy_shape_overflow", MLP,
     NPYH("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""), INPUT,
     "@: header: 'shape' too large"},
    {"npy_shape_negative", MLP, NPYH("{'descr': '<f4', 'fortran_order': False, 'shape': (-4, 16), }", ""), INPUT,
     "@: header: bad 'shape'"},
    {"npy_header_past_end", MLP, NPY("\x93NUMPY\x01\x00\xff\x7f{'descr': '<f4'"), INPUT,
     "@: truncated header (32767 bytes announced, 15 present)"},
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
