/*
** test_loader.c -- the program JSON of every schema era, its encodings
** and quirks, and the errors a malformed file gets.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_int.h"
#include "interp/json.h"
#include "interp/program.h"
#include "testutil.h"

static ExportedProgram *load_ok(const char *json)
{
    EpError err = {0};
    ExportedProgram *ep = NULL;
    EpStatus rc = program_load_json(json, strlen(json), "t.json", &ep, &err);
    ck_assert_msg(rc == EP_OK, "load failed: %s", err.msg);
    return ep;
}

static void load_fails(const char *json, const char *expect_in_msg)
{
    EpError err = {0};
    ExportedProgram *ep = NULL;
    EpStatus rc = program_load_json(json, strlen(json), "t.json", &ep, &err);
    ck_assert_int_eq(rc, EP_ERR_FORMAT);
    ck_assert_ptr_null(ep);
    ck_assert_msg(strstr(err.msg, expect_in_msg) != NULL, "message '%s' lacks '%s'", err.msg, expect_in_msg);
    ck_assert_msg(strncmp(err.msg, "t.json: ", 8) == 0, "message names the file: %s", err.msg);
}

/* relu(x) with x: float32[s0, 3], s0 in [2, inf), schema 8 single-key form. */
static const char *V8 =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],"
    "\"outputs\": [{\"as_tensor\": {\"name\": \"relu\"}}],"
    "\"nodes\": [{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": [{\"name\": \"self\", \"arg\": "
    "{\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": \"relu\"}}],"
    " \"metadata\": {\"stack_trace\": \"File \\\"m.py\\\", line 3, in forward\\n    return x.relu()\","
    " \"nn_module_stack\": \"L__self__,,m.M\", \"custom\": \"{}\"}, \"is_hop_single_tensor_return\": null, "
    "\"name\": \"relu\", \"future_field\": 1}],"
    "\"tensor_values\": {\"x\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"Symbol('s0', "
    "integer=True, positive=True)\", \"hint\": {\"as_int\": 4}}}, {\"as_int\": 3}], \"requires_grad\": false, "
    "\"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 3}, {\"as_int\": 1}], "
    "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}},"
    "\"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": false},"
    "\"signature\": {\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}],"
    " \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"relu\"}}}}]},"
    "\"module_call_graph\": [{\"fqn\": \"\", \"signature\": {\"inputs\": [], \"outputs\": [], \"in_spec\": \"S\","
    " \"out_spec\": \"O\", \"forward_arg_names\": [\"x\"]}}]},"
    "\"opset_version\": {\"aten\": 10}, \"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": null}},"
    "\"schema_version\": {\"major\": 8, \"minor\": 17}, \"verifiers\": [\"TRAINING\"], \"torch_version\": \"2.11.0\"}";

START_TEST(test_schema8)
{
    ExportedProgram *ep = load_ok(V8);
    ck_assert_int_eq(ep->schema_major, 8);
    ck_assert_int_eq(ep->schema_minor, 17);
    ck_assert_str_eq(ep->torch_version, "2.11.0");
    ck_assert_str_eq(ep->dialect, "TRAINING");
    ck_assert_int_eq(ep->graph.nnodes, 1);
    const Node *n = &ep->graph.nodes[0];
    ck_assert_str_eq(n->name, "relu");
    ck_assert_ptr_nonnull(n->op);
    ck_assert_str_eq(n->op->target, "aten.relu.default");
    ck_assert_str_eq(n->inputs[0].name, "self");
    ck_assert_int_eq(n->inputs[0].arg.kind, ARG_TENSOR);
    ck_assert_str_eq(n->inputs[0].arg.ref, "x");
    ck_assert_int_eq(n->meta.nextra, 1);
    ck_assert_str_eq(n->meta.extra_keys[0], "custom");
    const TensorMeta *m = graph_tensor_meta(&ep->graph, "x");
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(m->dtype, DT_F32);
    ck_assert_int_eq(m->ndim, 2);
    ck_assert(m->sizes[0].is_expr);
    ck_assert(m->sizes[0].has_hint);
    ck_assert_int_eq(m->sizes[0].hint, 4);
    ck_assert_ptr_nonnull(m->sizes[0].parsed);
    ck_assert_str_eq(sym_as_symbol(m->sizes[0].parsed), "s0");
    char buf[64];
    ck_assert_str_eq(tensor_meta_shape_str(m, buf, sizeof buf), "[s0, 3]");
    ck_assert_int_eq(ep->nranges, 1);
    ck_assert(ep->ranges[0].has_min);
    ck_assert_int_eq(ep->ranges[0].min, 2);
    ck_assert(!ep->ranges[0].has_max); /* null: unbounded */
    ck_assert_int_eq(ep->ninput_specs, 1);
    ck_assert_int_eq(ep->input_specs[0].kind, IN_USER_INPUT);
    ck_assert_int_eq(ep->output_specs[0].kind, OUT_USER_OUTPUT);
    ck_assert_str_eq(ep->module_calls[0].forward_arg_names[0], "x");
    program_free(ep);
}
END_TEST

/* Schema 2 (PyTorch 2.2): every union lists all its keys, nulls for the
** unused ones; storage_offset is a plain int; OptionalTensorArgument held
** a bare name; bare Infinity tokens. */
static const char *V2 =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"arg0_1\"}, \"as_int\": null},"
    "             {\"as_none\": null, \"as_tensor\": {\"name\": \"arg1_1\"}, \"as_int\": null}],"
    "\"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"index\"}, \"as_int\": null}],"
    "\"nodes\": [{\"target\": \"torch.ops.aten.index.Tensor\", \"inputs\": ["
    "  {\"name\": \"self\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"arg0_1\"}, \"as_ints\": null}},"
    "  {\"name\": \"indices\", \"arg\": {\"as_none\": null, \"as_tensor\": null, \"as_optional_tensors\": ["
    "     {\"as_tensor\": null, \"as_none\": []}, {\"as_tensor\": \"arg1_1\", \"as_none\": null}]}}],"
    " \"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"index\"}}], \"metadata\": {}},"
    " {\"target\": \"torch.ops.aten.slice.Tensor\", \"inputs\": ["
    "  {\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"index\"}, \"as_int\": null}},"
    "  {\"name\": \"end\", \"arg\": {\"as_tensor\": null, \"as_int\": 9223372036854775807}},"
    "  {\"name\": \"start\", \"arg\": {\"as_none\": [], \"as_int\": null}}],"
    " \"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"slice_1\"}}], \"metadata\": {}}],"
    "\"tensor_values\": {\"arg0_1\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": null, \"as_int\": 5}, "
    "{\"as_expr\": null, \"as_int\": 2}], \"requires_grad\": false, \"device\": {\"type\": \"cpu\", \"index\": "
    "null}, \"strides\": [{\"as_expr\": null, \"as_int\": 2}, {\"as_expr\": null, \"as_int\": 1}], "
    "\"storage_offset\": 0, \"layout\": 7}},"
    "\"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": false},"
    "\"signature\": {\"input_specs\": ["
    " {\"user_input\": null, \"parameter\": {\"arg\": {\"name\": \"arg0_1\"}, \"parameter_name\": \"w\"}, "
    "\"buffer\": null, \"tensor_constant\": null},"
    " {\"user_input\": {\"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"arg1_1\"}}}, \"parameter\": null, "
    "\"buffer\": null, \"tensor_constant\": null}],"
    " \"output_specs\": [{\"user_output\": {\"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"index\"}}}, "
    "\"loss_output\": null, \"buffer_mutation\": null}]},"
    "\"module_call_graph\": []},"
    "\"opset_version\": {\"aten\": 10}, \"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": Infinity},"
    " \"s1\": {\"min_val\": -Infinity, \"max_val\": 9223372036854775806}},"
    "\"schema_version\": 2, \"dialect\": \"ATEN\"}";

START_TEST(test_schema2)
{
    ExportedProgram *ep = load_ok(V2);
    ck_assert(ep->schema_is_int);
    ck_assert_int_eq(ep->schema_major, 2);
    ck_assert_str_eq(ep->dialect, "ATEN");
    ck_assert_ptr_null(ep->torch_version);
    const Node *n = &ep->graph.nodes[0];
    ck_assert_str_eq(n->name, "index"); /* no Node.name in schema 2: the first output */
    const Arg *idx = &n->inputs[1].arg;
    ck_assert_int_eq(idx->kind, ARG_OPT_TENSORS);
    ck_assert_int_eq(idx->n, 2);
    ck_assert_int_eq(idx->items[0].kind, ARG_NONE);
    ck_assert_int_eq(idx->items[1].kind, ARG_TENSOR);
    ck_assert_str_eq(idx->items[1].ref, "arg1_1");
    const Node *s = &ep->graph.nodes[1];
    ck_assert_int_eq(s->inputs[1].arg.kind, ARG_INT);
    ck_assert(s->inputs[1].arg.lit.i == INT64_MAX); /* exact, not rounded through a double */
    ck_assert_int_eq(s->inputs[2].arg.kind, ARG_NONE); /* as_none: [] */
    ck_assert_int_eq(ep->input_specs[0].kind, IN_PARAMETER);
    ck_assert_str_eq(ep->input_specs[0].target, "w");
    ck_assert_int_eq(ep->input_specs[1].kind, IN_USER_INPUT);
    ck_assert_int_eq(ep->nranges, 2);
    int r0 = program_find_range(ep, "s0"), r1 = program_find_range(ep, "s1");
    ck_assert(ep->ranges[r0].has_min && !ep->ranges[r0].has_max); /* bare Infinity */
    ck_assert(!ep->ranges[r1].has_min);                           /* -Infinity */
    ck_assert(!ep->ranges[r1].has_max); /* sys.maxsize - 1: the old Dim default, unbounded */
    const TensorMeta *m = graph_tensor_meta(&ep->graph, "arg0_1");
    ck_assert_int_eq(m->sizes[0].value, 5);
    program_free(ep);
}
END_TEST

/* Schema 1 (PyTorch 2.1): dict signature, TensorValue wrappers, call_spec. */
static const char *V1 =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"arg0_1\"}},"
    "             {\"as_none\": null, \"as_tensor\": {\"name\": \"arg1_1\"}},"
    "             {\"as_none\": null, \"as_tensor\": {\"name\": \"arg2_1\"}}],"
    "\"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"add\"}},"
    "              {\"as_none\": null, \"as_tensor\": {\"name\": \"mul\"}}],"
    "\"nodes\": [{\"target\": \"torch.ops.aten.add.Tensor\", \"inputs\": ["
    "  {\"name\": \"self\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"arg1_1\"}}},"
    "  {\"name\": \"other\", \"arg\": {\"as_none\": null, \"as_tensor\": null, \"as_float\": 1.5}}],"
    " \"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"add\"}}], \"metadata\": {}},"
    " {\"target\": \"torch.ops.aten.mul.Tensor\", \"inputs\": ["
    "  {\"name\": \"self\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"arg2_1\"}}},"
    "  {\"name\": \"other\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"arg0_1\"}}}],"
    " \"outputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"mul\"}}], \"metadata\": {}}],"
    "\"tensor_values\": {\"arg2_1\": {\"meta\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s0\","
    " \"hint\": 3}, \"as_int\": null}], \"requires_grad\": false, \"device\": {\"type\": \"cpu\", \"index\": null},"
    " \"strides\": [{\"as_expr\": null, \"as_int\": 1}], \"storage_offset\": 0, \"layout\": 7}}},"
    "\"sym_int_values\": {}, \"sym_bool_values\": {\"b\": {\"as_expr\": \"Eq(s0, 3)\", \"as_bool\": null}}},"
    "\"signature\": {\"inputs_to_parameters\": {\"arg0_1\": \"w\"}, \"inputs_to_buffers\": {\"arg1_1\": \"n\"},"
    " \"user_inputs\": [\"arg2_1\"], \"user_outputs\": [\"mul\"], \"buffers_to_mutate\": {\"add\": \"n\"},"
    " \"backward_signature\": null},"
    "\"call_spec\": {\"in_spec\": \"T(T(*),D())\", \"out_spec\": \"*\"}},"
    "\"opset_version\": {\"aten\": 10}, \"range_constraints\": {}, \"equality_constraints\": [],"
    "\"schema_version\": 1, \"example_inputs\": null}";

START_TEST(test_schema1)
{
    ExportedProgram *ep = load_ok(V1);
    ck_assert_int_eq(ep->schema_major, 1);
    ck_assert_int_eq(ep->ninput_specs, 3);
    ck_assert_int_eq(ep->input_specs[0].kind, IN_PARAMETER);
    ck_assert_str_eq(ep->input_specs[0].target, "w");
    ck_assert_int_eq(ep->input_specs[1].kind, IN_BUFFER);
    ck_assert_int_eq(ep->input_specs[2].kind, IN_USER_INPUT);
    ck_assert_int_eq(ep->noutput_specs, 2);
    ck_assert_int_eq(ep->output_specs[0].kind, OUT_BUFFER_MUTATION);
    ck_assert_str_eq(ep->output_specs[0].target, "n");
    ck_assert_int_eq(ep->output_specs[1].kind, OUT_USER_OUTPUT);
    const TensorMeta *m = graph_tensor_meta(&ep->graph, "arg2_1");
    ck_assert_ptr_nonnull(m);
    ck_assert(m->sizes[0].is_expr && m->sizes[0].has_hint && m->sizes[0].hint == 3);
    const SymScalarMeta *b = strmap_get(&ep->graph.sym_bool_values, "b");
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(b->expr, "Eq(s0, 3)");
    ck_assert_str_eq(ep->module_calls[0].in_spec, "T(T(*),D())");
    program_free(ep);
}
END_TEST

/* The 2024 nightlies' {"$type", "$value"} unions and as_none: true. */
START_TEST(test_dollar_type_unions)
{
    const char *j =
        "{\"graph_module\": {\"graph\": {\"inputs\": [{\"$type\": \"as_tensor\", \"$value\": {\"name\": \"x\"}}],"
        "\"outputs\": [{\"$type\": \"as_tensor\", \"$value\": {\"name\": \"c\"}}],"
        "\"nodes\": [{\"target\": \"torch.ops.aten.clamp.default\", \"inputs\": ["
        "{\"name\": \"self\", \"arg\": {\"$type\": \"as_tensor\", \"$value\": {\"name\": \"x\"}}},"
        "{\"name\": \"min\", \"arg\": {\"$type\": \"as_none\", \"$value\": true}},"
        "{\"name\": \"max\", \"arg\": {\"$type\": \"as_float\", \"$value\": \"Infinity\"}}],"
        "\"outputs\": [{\"$type\": \"as_tensor\", \"$value\": {\"name\": \"c\"}}], \"metadata\": {}}],"
        "\"tensor_values\": {}, \"sym_int_values\": {}, \"sym_bool_values\": {}},"
        "\"signature\": {\"input_specs\": [{\"$type\": \"user_input\", \"$value\": {\"arg\": {\"$type\": "
        "\"as_tensor\", \"$value\": {\"name\": \"x\"}}}}], \"output_specs\": [{\"$type\": \"user_output\", \"$value\": "
        "{\"arg\": {\"$type\": \"as_tensor\", \"$value\": {\"name\": \"c\"}}}}]}, \"module_call_graph\": []},"
        "\"opset_version\": {}, \"range_constraints\": {}, \"schema_version\": {\"major\": 3, \"minor\": 1}}";
    ExportedProgram *ep = load_ok(j);
    const Node *n = &ep->graph.nodes[0];
    ck_assert_int_eq(n->inputs[1].arg.kind, ARG_NONE);
    ck_assert_int_eq(n->inputs[2].arg.kind, ARG_FLOAT);
    ck_assert(isinf(n->inputs[2].arg.lit.f) && n->inputs[2].arg.lit.f > 0);
    program_free(ep);
}
END_TEST

START_TEST(test_errors_name_the_json_path)
{
    /* a node without its target */
    const char *nt = strstr(V8, "\"target\": \"torch.ops.aten.relu.default\", ");
    char *broken = ep_xstrdup(V8);
    memmove(broken + (nt - V8), broken + (nt - V8) + strlen("\"target\": \"torch.ops.aten.relu.default\", "),
            strlen(nt) - strlen("\"target\": \"torch.ops.aten.relu.default\", ") + 1);
    load_fails(broken, "graph_module.graph.nodes[0].target: missing required field");
    free(broken);
    /* truncated anywhere: a clear parse error, never a crash */
    size_t len = strlen(V8);
    for (size_t cut = 0; cut < len; cut += 37) {
        EpError err = {0};
        ExportedProgram *ep = NULL;
        EpStatus rc = program_load_json(V8, cut, "t.json", &ep, &err);
        ck_assert_msg(rc == EP_ERR_FORMAT, "truncated at %zu: rc %d", cut, rc);
        ck_assert_ptr_null(ep);
    }
    load_fails("{\"graph_module\": {\"graph\": {\"inputs\": [", "invalid JSON at line 1");
    load_fails("{\"graph_module\": {\"graph\": {\"inputs\": 3, \"outputs\": [], \"nodes\": []}}}",
               "graph_module.graph.inputs: expected a list");
    load_fails("{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}, \"as_int\": 3}],"
               " \"outputs\": [], \"nodes\": []}}}",
               "graph_module.graph.inputs[0]: union with 2 variants set");
    load_fails("[]", "(top level): expected an object");
}
END_TEST

START_TEST(test_specs_must_match_graph)
{
    /* two input specs for one graph input */
    const char *key = "\"input_specs\": [";
    const char *at = strstr(V8, key) + strlen(key);
    StrBuf sb;
    sb_init(&sb);
    sb_appendn(&sb, V8, (size_t)(at - V8));
    sb_append(&sb, "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"y\"}}}}, ");
    sb_append(&sb, at);
    load_fails(sb.data, "2 input specs for 1 graph inputs");
    sb_free(&sb);
}
END_TEST

/* Random damage to real program JSON: loading either succeeds (and then
** planning the graph must not crash either) or fails with a message naming
** the file; never a crash, hang or leak (the sanitizer run checks those). */
START_TEST(test_mutated_programs)
{
    static const char *sources[] = {NULL, NULL};
    sources[0] = V8;
    sources[1] = V2;
    uint64_t state = 0x9e3779b97f4a7c15ull;
    static const char junk[] = "{}[],:\"0123456789-eE.nulltruefalseas_tensorInfinity";
    int loaded = 0;
    for (int round = 0; round < 3000; round++) {
        const char *src = sources[round % 2];
        size_t len = strlen(src);
        char *buf = ep_xstrdup(src);
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(state >> 33) % len;
            buf[at] = junk[(state >> 17) % (sizeof junk - 1)];
        }
        EpError err = {0};
        ExportedProgram *ep = NULL;
        if (program_load_json(buf, len, "m.json", &ep, &err) == EP_OK) {
            loaded++;
            GraphPlan *gp = graph_plan_new(&ep->graph, &err);
            graph_plan_free(gp);
            program_free(ep);
        } else {
            ck_assert_msg(strncmp(err.msg, "m.json: ", 8) == 0, "round %d: %s", round, err.msg);
        }
        free(buf);
    }
    ck_assert_int_gt(loaded, 0); /* some damage is harmless: those programs load */
}
END_TEST

/* V8 with the first occurrence of from replaced by to (caller frees). */
static char *v8_with(const char *from, const char *to)
{
    const char *at = strstr(V8, from);
    ck_assert_ptr_nonnull(at);
    return ep_xasprintf("%.*s%s%s", (int)(at - V8), V8, to, at + strlen(from));
}

/* Codes outside torch/_export/serde/schema.py's ScalarType, Layout and
** MemoryFormat enums are format errors naming the JSON path. */
START_TEST(test_unknown_enum_codes)
{
    static const struct { const char *from, *to, *msg; } cases[] = {
        {"\"layout\": 7}", "\"layout\": 8}", "graph_module.graph.tensor_values.x.layout: unknown Layout code 8"},
        {"{\"dtype\": 7,", "{\"dtype\": 14,", "graph_module.graph.tensor_values.x.dtype: unknown ScalarType code 14"},
        {"\"kind\": 1}], \"outputs\"",
         "\"kind\": 1}, {\"name\": \"layout\", \"arg\": {\"as_layout\": -1}, \"kind\": 2}], \"outputs\"",
         "graph_module.graph.nodes[0].inputs[1].arg.as_layout: unknown Layout code -1"},
        {"\"kind\": 1}], \"outputs\"",
         "\"kind\": 1}, {\"name\": \"m\", \"arg\": {\"as_memory_format\": 5}, \"kind\": 2}], \"outputs\"",
         "graph_module.graph.nodes[0].inputs[1].arg.as_memory_format: unknown MemoryFormat code 5"},
        {"\"kind\": 1}], \"outputs\"",
         "\"kind\": 1}, {\"name\": \"d\", \"arg\": {\"as_scalar_type\": 27}, \"kind\": 2}], \"outputs\"",
         "graph_module.graph.nodes[0].inputs[1].arg.as_scalar_type: unknown ScalarType code 27"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = v8_with(cases[i].from, cases[i].to);
        load_fails(json, cases[i].msg);
        free(json);
    }
    /* the newest codes load: uint64 (35) as a tensor's dtype, sparse_coo as a layout */
    char *json = v8_with("{\"dtype\": 7,", "{\"dtype\": 35,");
    ExportedProgram *ep = load_ok(json);
    program_free(ep);
    free(json);
}
END_TEST

/* json_parse reads PyTorch's quirks outside strings only, respects the
** length it is given, and names where broken text stops. */
START_TEST(test_json_quirks_and_limits)
{
    EpError err = {0};
    JCtx c = {"t.json", &err};
    const char *text = "{\"s\": \"q\\\"NaN\\\\\", \"n\": NaN, \"m\": -Infinity, \"p\": Infinity,"
                       " \"big\": 9223372036854775807, \"neg\": -9223372036854775808, \"e\": 1.5e300,"
                       " \"w\": 12345678901234567890123.5}";
    cJSON *root = json_parse(text, strlen(text), "t.json", &err);
    ck_assert_msg(root, "%s", err.msg);
    /* the string keeps its escaped quote and the NaN inside it */
    ck_assert_str_eq(cJSON_GetObjectItem(root, "s")->valuestring, "q\"NaN\\");
    double d;
    ck_assert_int_eq(jfloat(&c, NULL, cJSON_GetObjectItem(root, "n"), &d), EP_OK);
    ck_assert(isnan(d));
    ck_assert_int_eq(jfloat(&c, NULL, cJSON_GetObjectItem(root, "m"), &d), EP_OK);
    ck_assert(isinf(d) && d < 0);
    ck_assert_int_eq(jfloat(&c, NULL, cJSON_GetObjectItem(root, "p"), &d), EP_OK);
    ck_assert(isinf(d) && d > 0);
    int64_t i;
    ck_assert_int_eq(jint(&c, NULL, cJSON_GetObjectItem(root, "big"), &i), EP_OK);
    ck_assert(i == INT64_MAX); /* a double would round it to 2^63 */
    ck_assert_int_eq(jint(&c, NULL, cJSON_GetObjectItem(root, "neg"), &i), EP_OK);
    ck_assert(i == INT64_MIN);
    ck_assert_int_eq(jfloat(&c, NULL, cJSON_GetObjectItem(root, "e"), &d), EP_OK);
    ck_assert(d == 1.5e300);
    ck_assert(!jis_int(cJSON_GetObjectItem(root, "w"))); /* a fraction: a number, not marked */
    cJSON_Delete(root);

    /* only len bytes are read: what follows is not part of the text */
    const char *padded = "[1, 2]{{{{";
    root = json_parse(padded, 6, "t.json", &err);
    ck_assert(root && cJSON_GetArraySize(root) == 2);
    cJSON_Delete(root);

    /* broken text: the line and column, and whether it ends early */
    const char *cut = "{\"a\": [1,\n 2";
    ck_assert(!json_parse(cut, strlen(cut), "t.json", &err));
    ck_assert_str_eq(err.msg, "t.json: invalid JSON at line 2, column 3 (the text ends early: truncated?)");
    const char *bad = "{\"a\": NaN, \"b\": [1, 2}";
    ck_assert(!json_parse(bad, strlen(bad), "t.json", &err));
    ck_assert_str_eq(err.msg, "t.json: invalid JSON at line 1, column 22");
}
END_TEST

Suite *suite_loader(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, test_schema8);
    tcase_add_test(tc, test_schema2);
    tcase_add_test(tc, test_schema1);
    tcase_add_test(tc, test_dollar_type_unions);
    tcase_add_test(tc, test_errors_name_the_json_path);
    tcase_add_test(tc, test_specs_must_match_graph);
    tcase_add_test(tc, test_mutated_programs);
    tcase_add_test(tc, test_unknown_enum_codes);
    tcase_add_test(tc, test_json_quirks_and_limits);
    suite_add_tcase(s, tc);
    return s;
}
