/*
** hopgraph.c -- the hand-written higher-order-op programs of hopgraph.h.
*/
#include "hopgraph.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/zipwrite.h"

static const char *HOP_HEAD =
    "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}], \"outputs\": OUTPUTS,"
    " \"nodes\": NODES, \"tensor_values\": {\"x\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 3}], \"requires_grad\": "
    "false, \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 1}], \"storage_offset\": "
    "{\"as_int\": 0}, \"layout\": 7}}, \"sym_int_values\": {}, \"sym_bool_values\": {}},"
    " \"signature\": {\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}], "
    "\"output_specs\": SPECS}, \"module_call_graph\": []},"
    " \"opset_version\": {\"aten\": 10}, \"range_constraints\": {}, \"schema_version\": {\"major\": 8, \"minor\": 3}}";

static char *substitute(const char *tmpl, const char *key, const char *value)
{
    const char *at = strstr(tmpl, key);
    return ep_xasprintf("%.*s%s%s", (int)(at - tmpl), tmpl, value, at + strlen(key));
}

char *hop_archive(const char *nodes, const char *outputs, const char *specs)
{
    char *a = substitute(HOP_HEAD, "OUTPUTS", outputs);
    char *b = substitute(a, "NODES", nodes);
    char *json = substitute(b, "SPECS", specs);
    free(a);
    free(b);
    char *path = ep_xstrdup("/tmp/epdbg-hop-XXXXXX");
    close(mkstemp(path));
    ZipWriter *z = zw_new(64);
    zw_add(z, "hop/archive_format", "pt2", 3);
    zw_add(z, "hop/archive_version", "0", 1);
    zw_add(z, "hop/models/model.json", json, strlen(json));
    EpError err;
    ck_assert_int_eq(zw_save(z, path, &err), EP_OK);
    zw_free(z);
    free(json);
    return path;
}

char *hop_cond_archive(void)
{
    const char *nodes =
        "[" TNODE("sum.default", "sum", "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}}]") ","
        TNODE("gt.Scalar", "gt", "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"sum\"}}}, {\"name\": "
              "\"other\", \"arg\": {\"as_int\": 0}}]") ","
        "{\"target\": \"torch.ops.higher_order.cond\", \"inputs\": ["
        "{\"name\": \"\", \"arg\": {\"as_tensor\": {\"name\": \"gt\"}}},"
        "{\"name\": \"\", \"arg\": " SUBGRAPH("true_graph_0", "[" TNODE("mul.Tensor", "m", "[{\"name\": \"self\", "
        "\"arg\": {\"as_tensor\": {\"name\": \"a\"}}}, {\"name\": \"other\", \"arg\": {\"as_int\": 2}}]") "]", "m") "},"
        "{\"name\": \"\", \"arg\": " SUBGRAPH("false_graph_0", "[" TNODE("sub.Tensor", "s", "[{\"name\": \"self\", "
        "\"arg\": {\"as_tensor\": {\"name\": \"a\"}}}, {\"name\": \"other\", \"arg\": {\"as_int\": 1}}]") "]", "s") "},"
        "{\"name\": \"\", \"arg\": {\"as_tensors\": [{\"name\": \"x\"}]}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"getitem\"}}], \"metadata\": {}, \"name\": \"cond\"}]";
    return hop_archive(nodes, "[{\"as_tensor\": {\"name\": \"getitem\"}}]",
                       "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"getitem\"}}}}]");
}

char *hop_while_archive(void)
{
    const char *nodes =
        "[{\"target\": \"torch.ops.higher_order.while_loop\", \"inputs\": ["
        "{\"name\": \"\", \"arg\": " SUBGRAPH("cond_graph_0", "[" TNODE("sum.default", "cs", "[{\"name\": \"self\", "
        "\"arg\": {\"as_tensor\": {\"name\": \"a\"}}}]") "," TNODE("lt.Scalar", "c", "[{\"name\": \"self\", \"arg\": "
        "{\"as_tensor\": {\"name\": \"cs\"}}}, {\"name\": \"other\", \"arg\": {\"as_int\": 10}}]") "]", "c") "},"
        "{\"name\": \"\", \"arg\": " SUBGRAPH("body_graph_0", "[" TNODE("mul.Tensor", "b", "[{\"name\": \"self\", "
        "\"arg\": {\"as_tensor\": {\"name\": \"a\"}}}, {\"name\": \"other\", \"arg\": {\"as_int\": 2}}]") "]", "b") "},"
        "{\"name\": \"\", \"arg\": {\"as_tensors\": [{\"name\": \"x\"}]}},"
        "{\"name\": \"\", \"arg\": {\"as_tensors\": []}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"wl\"}}], \"metadata\": {}, \"name\": \"while_loop\"},"
        TNODE("add.Tensor", "post", "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"wl\"}}}, "
              "{\"name\": \"other\", \"arg\": {\"as_int\": 1}}]") "]";
    return hop_archive(nodes, "[{\"as_tensor\": {\"name\": \"post\"}}]",
                       "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"post\"}}}}]");
}
