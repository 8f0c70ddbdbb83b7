/*
** test_load_fast.c -- the node reader that builds nodes straight from the
** JSON text (interp/node_reader.c) builds exactly what the cJSON reader
** builds: every example, fixture and corpus archive is opened both ways and
** the programs' graphs compared field by field (a divergence cannot pass
** silently), and the fast reader must have read most of their nodes.
** Nodes it does not know are left to the cJSON reader, whose errors stay
** exactly as they were: a few such nodes are checked here too.
*/
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/gen/progbuild.h"
#include "interp/archive.h"
#include "interp/interp.h"
#include "interp/ops.h"
#include "interp/program_int.h"
#include "interp/strmap.h"
#include "testutil.h"

/* ---- comparing two programs ---------------------------------------------------- */

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_graph(const Graph *a, const Graph *b, char *why, size_t cap);

static bool same_value(const Value *a, const Value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case V_INT:
        return a->i == b->i;
    case V_FLOAT: /* the same bits: -0.0 and NaN too */
        return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case V_BOOL:
        return a->b == b->b;
    case V_STR:
    case V_DEVICE:
        return same_str(a->s, b->s);
    case V_NONE:
        return true;
    default:
        return false; /* the loader puts no other kind in an Arg */
    }
}

static bool same_arg(const Arg *a, const Arg *b, char *why, size_t cap)
{
    if (a->kind != b->kind || !same_str(a->ref, b->ref) || !same_value(&a->lit, &b->lit) || a->n != b->n ||
        !same_str(a->variant, b->variant) || !a->graph != !b->graph) {
        snprintf(why, cap, "argument (kind %d/%d, ref %s/%s, n %d/%d)", a->kind, b->kind, a->ref ? a->ref : "-",
                 b->ref ? b->ref : "-", a->n, b->n);
        return false;
    }
    for (int i = 0; i < a->n; i++)
        if (!same_arg(&a->items[i], &b->items[i], why, cap))
            return false;
    return !a->graph || same_graph(a->graph, b->graph, why, cap);
}

static bool same_meta(const NodeMeta *a, const NodeMeta *b)
{
    if (!same_str(a->stack_trace, b->stack_trace) || !same_str(a->nn_module_stack, b->nn_module_stack) ||
        !same_str(a->source_fn_stack, b->source_fn_stack) || !same_str(a->torch_fn, b->torch_fn) ||
        a->nextra != b->nextra)
        return false;
    for (int i = 0; i < a->nextra; i++)
        if (!same_str(a->extra_keys[i], b->extra_keys[i]) || !same_str(a->extra_values[i], b->extra_values[i]))
            return false;
    return true;
}

static bool same_node(const Node *a, const Node *b, char *why, size_t cap)
{
    if (!same_str(a->name, b->name) || !same_str(a->target, b->target) || a->ninputs != b->ninputs ||
        a->noutputs != b->noutputs || a->is_hop_single_tensor_return != b->is_hop_single_tensor_return ||
        a->op != b->op || !same_meta(&a->meta, &b->meta)) {
        snprintf(why, cap, "node '%s' / '%s': its fields", a->name, b->name);
        return false;
    }
    for (int i = 0; i < a->ninputs; i++)
        if (!same_str(a->inputs[i].name, b->inputs[i].name) || a->inputs[i].kind != b->inputs[i].kind ||
            !same_arg(&a->inputs[i].arg, &b->inputs[i].arg, why, cap)) {
            size_t n = strlen(why);
            snprintf(why + n, cap - n, " of node '%s' input %d", a->name, i);
            return false;
        }
    for (int i = 0; i < a->noutputs; i++)
        if (!same_arg(&a->outputs[i], &b->outputs[i], why, cap)) {
            size_t n = strlen(why);
            snprintf(why + n, cap - n, " of node '%s' output %d", a->name, i);
            return false;
        }
    return true;
}

static bool same_symdim(const SymDim *a, const SymDim *b)
{
    return a->value == b->value && same_str(a->expr, b->expr) && !a->parsed == !b->parsed && a->hint == b->hint &&
           a->is_expr == b->is_expr && a->has_hint == b->has_hint;
}

static bool same_tensor_meta(const TensorMeta *a, const TensorMeta *b)
{
    if (a->scalar_type != b->scalar_type || a->dtype != b->dtype || a->ndim != b->ndim ||
        a->requires_grad != b->requires_grad || !same_str(a->device, b->device) || a->layout != b->layout)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (!same_symdim(&a->sizes[i], &b->sizes[i]) || !same_symdim(&a->strides[i], &b->strides[i]))
            return false;
    return true;
}

static bool same_graph(const Graph *a, const Graph *b, char *why, size_t cap)
{
    if (a->ninputs != b->ninputs || a->noutputs != b->noutputs || a->nnodes != b->nnodes ||
        a->tensor_values.n != b->tensor_values.n || a->is_single_tensor_return != b->is_single_tensor_return) {
        snprintf(why, cap, "graph: %d/%d nodes, %d/%d inputs", a->nnodes, b->nnodes, a->ninputs, b->ninputs);
        return false;
    }
    for (int i = 0; i < a->ninputs; i++)
        if (!same_arg(&a->inputs[i], &b->inputs[i], why, cap))
            return false;
    for (int i = 0; i < a->noutputs; i++)
        if (!same_arg(&a->outputs[i], &b->outputs[i], why, cap))
            return false;
    for (int i = 0; i < a->nnodes; i++)
        if (!same_node(&a->nodes[i], &b->nodes[i], why, cap))
            return false;
    for (int i = 0; i < a->tensor_values.n; i++)
        if (!same_str(a->tensor_values.entries[i].key, b->tensor_values.entries[i].key) ||
            !same_tensor_meta(a->tensor_values.entries[i].value, b->tensor_values.entries[i].value)) {
            snprintf(why, cap, "tensor_values[%d]", i);
            return false;
        }
    return true;
}

/* Open path's program `name` (NULL: the default) with the fast reader on or
** off; NULL when it does not open (the error into err). */
static Model *open_with(const char *path, const char *name, bool fast, EpError *err)
{
    program_load_set_fast(fast);
    Model *m = NULL;
    EpStatus rc = model_open(path, name, &m, err);
    program_load_set_fast(true);
    return rc ? NULL : m;
}

/* Every program of path: the same graphs both ways (or the same error);
** adds to *nodes the nodes compared. */
static void check_both_ways(const char *path, long *nodes)
{
    EpError err = {0};
    char **names = NULL;
    int n = 0;
    if (model_list_programs(path, &names, &n, &err) != EP_OK)
        n = 0;
    for (int p = 0; p < (n ? n : 1); p++) {
        const char *name = n ? names[p] : NULL;
        EpError e1 = {0}, e2 = {0};
        Model *fast = open_with(path, name, true, &e1), *slow = open_with(path, name, false, &e2);
        ck_assert_msg(!fast == !slow, "%s: opens one way only: %s / %s", path, e1.msg, e2.msg);
        if (!fast) {
            ck_assert_msg(strcmp(e1.msg, e2.msg) == 0, "%s: errors differ: '%s' / '%s'", path, e1.msg, e2.msg);
            continue;
        }
        char why[512] = "";
        ck_assert_msg(same_graph(&fast->ep->graph, &slow->ep->graph, why, sizeof why), "%s (%s): %s", path,
                      name ? name : "default", why);
        *nodes += fast->ep->graph.nnodes;
        model_free(fast);
        model_free(slow);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Each .pt2 under dir (project-relative when not absolute). */
static int check_dir(const char *dir, long *nodes)
{
    char full[1024];
    snprintf(full, sizeof full, "%s%s%s", dir[0] == '/' ? "" : test_project_dir(), dir[0] == '/' ? "" : "/", dir);
    DIR *d = opendir(full);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pt2") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", full, e->d_name);
        check_both_ways(path, nodes);
        count++;
    }
    closedir(d);
    return count;
}

START_TEST(test_examples_and_fixtures_both_ways)
{
    long nodes = 0, before = program_load_fast_nodes(), metas = program_load_fast_metas();
    int n = check_dir("examples", &nodes) + check_dir("build/fixtures", &nodes);
    ck_assert_int_ge(n, 4);
    long fast = program_load_fast_nodes() - before;
    metas = program_load_fast_metas() - metas;
    fprintf(stderr, "load_fast: %d archives, %ld nodes, %ld read by the fast reader (and %ld tensor_values)\n", n,
            nodes, fast, metas);
    ck_assert_int_gt(metas, 0);
    ck_assert_msg(fast * 2 > nodes, "the fast reader read only %ld of %ld nodes", fast, nodes);
}
END_TEST

START_TEST(test_corpus_both_ways)
{
    long nodes = 0, before = program_load_fast_nodes();
    int n = check_dir(test_corpus_dir(), &nodes);
    fprintf(stderr, "load_fast: corpus: %d archives, %ld nodes, %ld read by the fast reader\n", n, nodes,
            program_load_fast_nodes() - before);
    ck_assert_int_ge(n, 1);
}
END_TEST

/* ---- single nodes ---------------------------------------------------------------- */

/* A node the fast reader reads, and what the cJSON reader makes of it. */
static void check_node_text(const char *json, bool fast_expected)
{
    Node n;
    bool got = node_read_fast(json, strlen(json), &n, 7);
    ck_assert_msg(got == fast_expected, "%s: fast reader %s", json, got ? "accepted" : "refused");
    if (got)
        node_free(&n);
    else
        for (size_t i = 0; i < sizeof n; i++)
            ck_assert_msg(((const char *)&n)[i] == 0, "%s: a refused node is left zeroed", json);
}

/* Nodes the fast reader reads, and nodes it leaves to the cJSON reader. */
static const char *const ok[] = {
    "{\"target\":\"torch.ops.aten.add.Tensor\",\"inputs\":[],\"outputs\":null}",
    "{\"target\":\"t\",\"inputs\":[{\"name\":\"self\",\"arg\":{\"as_tensor\":{\"name\":\"x\"}},\"kind\":1}],"
    "\"outputs\":[{\"as_tensor\":{\"name\":\"y\"}}],\"metadata\":{\"a\":\"b\",\"c\":null},\"name\":\"\"}",
    " { \"inputs\" : [ ] , \"target\" : \"t\" , \"is_hop_single_tensor_return\" : true } ",
    "{\"target\":\"a\\\"b\\n\\u00e9\\ud83d\\ude00\",\"inputs\":[]}",
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_ints\":[1,-2,0]}},{\"arg\":{\"as_float\":-0.0}},"
    "{\"arg\":{\"as_device\":{\"type\":\"cpu\",\"index\":0}}},{\"arg\":{\"as_none\":null}}]}",
};
static const char *const refused[] = {
    "{\"target\":\"t\"}",                                           /* inputs missing: the cJSON error */
    "{\"target\":\"t\",\"inputs\":[],\"target\":\"u\"}",             /* a key twice */
    "{\"tar\\u0067et\":\"t\",\"inputs\":[]}",                  /* an escape in a key */
    "{\"target\":\"a\\u0000b\",\"inputs\":[]}",                  /* a NUL */
    "{\"target\":\"a\\udc00b\",\"inputs\":[]}",                  /* a lone low surrogate */
    "{\"target\":\"a\\xb\",\"inputs\":[]}",                      /* no such escape */
    "{\"target\":\"t\",\"inputs\":[],\"extra\":1}",                 /* a key it does not know */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_int\":01}}]}",    /* not JSON */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_int\":1234567890123456}}]}", /* 16 digits */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_int\":1.5}}]}",   /* the cJSON reader's message */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_int\":1,\"as_float\":null}}]}", /* schema 1/2 unions */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_scalar_type\":99}}]}", /* an unknown code */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_ints\":[1,]}}]}", /* trailing comma */
    "{\"target\":\"t\",\"inputs\":[]} x",                           /* text after it */
    "{\"target\":\"t\",\"inputs\":[{\"arg\":{\"as_tensor\":{\"name\":\"x\"}}",  /* cut short */
};

START_TEST(test_fast_reader_refuses_the_unusual)
{
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        check_node_text(ok[i], true);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        check_node_text(refused[i], false);
    Node n;
    ck_assert(node_read_fast(ok[0], strlen(ok[0]), &n, 7));
    ck_assert_str_eq(n.name, "node_7");
    ck_assert_int_eq(n.noutputs, 0);
    ck_assert_ptr_nonnull(n.op);
    node_free(&n);
    ck_assert(node_read_fast(ok[1], strlen(ok[1]), &n, 7));
    ck_assert_str_eq(n.name, "y"); /* "" names it by its first output */
    ck_assert_int_eq(n.meta.nextra, 1);
    ck_assert_str_eq(n.meta.extra_values[0], "b");
    node_free(&n);
    ck_assert(node_read_fast(ok[3], strlen(ok[3]), &n, 7));
    ck_assert_str_eq(n.target, "a\"b\n\xc3\xa9\xf0\x9f\x98\x80"); /* as cJSON decodes it */
    node_free(&n);
    ck_assert(node_read_fast(ok[4], strlen(ok[4]), &n, 7));
    ck_assert_int_eq(n.inputs[0].arg.items[1].lit.i, -2);
    ck_assert(signbit(n.inputs[1].arg.lit.f));
    ck_assert_str_eq(n.inputs[2].arg.lit.s, "cpu:0");
    ck_assert_int_eq(n.inputs[3].arg.kind, ARG_NONE);
    node_free(&n);
}
END_TEST

/* A node read from the start of the nodes list's text: node_read_prefix
** ends at its closing brace (the list goes on after it), builds what
** node_read_fast builds with its strings in the graph's arena, and a node
** it gives up on takes its strings back from the arena. */
START_TEST(test_prefix_reads_into_the_arena)
{
    NameArena *names = name_arena_new();
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        size_t len = strlen(ok[i]);
        while (len && ok[i][len - 1] == ' ')
            len--;
        char *text = ep_xasprintf("%.*s , {\"target\": 1}]", (int)len, ok[i]);
        Node a, b;
        ck_assert_uint_eq(node_read_prefix(text, strlen(text), &a, 7, names), len);
        ck_assert(a.strings_in_arena);
        ck_assert(node_read_fast(ok[i], strlen(ok[i]), &b, 7));
        ck_assert(!b.strings_in_arena);
        char why[512] = "";
        ck_assert_msg(same_node(&a, &b, why, sizeof why), "%s: %s", ok[i], why);
        node_free(&a);
        node_free(&b);
        free(text);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (strstr(refused[i], "} x")) /* text after it: the list's to refuse */
            continue;
        NameMark before = name_arena_mark(names);
        Node n;
        ck_assert_uint_eq(node_read_prefix(refused[i], strlen(refused[i]), &n, 7, names), 0);
        NameMark after = name_arena_mark(names);
        ck_assert_msg(before.chunk == after.chunk && before.used == after.used, "%s: its strings kept", refused[i]);
    }
    /* a known metadata key written twice: the last wins; with the arena it
    ** is the cJSON reader's (which does the same) */
    static const char twice[] = "{\"target\":\"t\",\"inputs\":[],\"metadata\":{\"stack_trace\":\"a\","
                                "\"stack_trace\":\"b\"}}";
    Node n;
    ck_assert(node_read_fast(twice, strlen(twice), &n, 0));
    ck_assert_str_eq(n.meta.stack_trace, "b");
    node_free(&n);
    ck_assert_uint_eq(node_read_prefix(twice, strlen(twice), &n, 0, names), 0);
    /* a long string takes a chunk of its own, and the rewind frees it */
    size_t big = 100000;
    char *text = ep_xmalloc(big + 64);
    int k = snprintf(text, 64, "{\"target\":\"");
    memset(text + k, 'x', big);
    snprintf(text + k + big, 64, "\",\"inputs\":[],\"bad\":1}");
    NameMark before = name_arena_mark(names);
    ck_assert_uint_eq(node_read_prefix(text, strlen(text), &n, 0, names), 0);
    NameMark after = name_arena_mark(names);
    ck_assert(before.chunk == after.chunk && before.used == after.used);
    free(text);
    name_arena_free(names);
}
END_TEST

/* A plan shares one wrapped-number tensor between the nodes giving the same
** literal: kept apart by kind and bits (0.0 and -0.0, 2 and 2.0), and never
** changed by a run. */
START_TEST(test_plan_shares_literals_by_bits)
{
    ProgBuilder *pb = pb_new("tests.Literals", false);
    int64_t xs[1] = {4};
    Tensor *x = tensor_empty(DT_F32, 1, xs, NULL);
    const float xv[4] = {-0.0f, 1.0f, 2.5f, -3.0f};
    memcpy(tensor_data(x), xv, sizeof xv);
    pb_input(pb, "x", x, NULL);
    static const struct { const char *target, *other; float want0, want3; bool neg0; } nodes[] = {
        {"aten.add.Tensor", "0.0", 0.0f, -3.0f, false},  {"aten.add.Tensor", "-0.0", -0.0f, -3.0f, true},
        {"aten.add.Tensor", "1.25", 1.25f, -1.75f, false}, {"aten.mul.Tensor", "1.25", -0.0f, -3.75f, true},
        {"aten.add.Tensor", "2", 2.0f, -1.0f, false},    {"aten.mul.Tensor", "2.0", -0.0f, -6.0f, true},
        {"aten.add.Tensor", "1.25", 1.25f, -1.75f, false},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(nodes); i++) {
        const char *name = pb_fmt("n%zu", i);
        pb_node(pb, nodes[i].target, name, pb_fmt("self=%%x other=%s", nodes[i].other), name);
        pb_output(pb, name);
    }
    char *dir = test_tmpdir();
    char *path = ep_xasprintf("%s/literals.pt2", dir);
    EpError err = {0};
    PbWriteOptions opt = {.era = PB_ERA_2_11};
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    Model *m = NULL;
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s", err.msg);
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip, "%s", err.msg);
    Value in = value_tensor(x);
    for (int run = 0; run < 2; run++) {
        ck_assert_msg(interp_bind(ip, &in, 1, &err) == EP_OK && interp_run(ip, &err) == EP_OK, "%s", err.msg);
        for (size_t i = 0; i < EP_ARRAY_LEN(nodes); i++) {
            const Value *v = interp_user_output(ip, (int)i);
            ck_assert(v && v->kind == V_TENSOR && v->t->dtype == DT_F32);
            const float *o = tensor_data(v->t);
            ck_assert_msg(o[0] == nodes[i].want0 && !signbit(o[0]) == !nodes[i].neg0 && o[3] == nodes[i].want3,
                          "run %d, %s(x, %s): %g, %g", run, nodes[i].target, nodes[i].other, o[0], o[3]);
        }
    }
    tensor_unref(x);
    interp_free(ip);
    model_free(m);
    free(path);
    free(dir);
}
END_TEST

/* A tensor_values entry: the shapes schema 5 and later write are read
** straight from the text (ending at the closing brace), anything else is
** left to the cJSON reader. */
START_TEST(test_tensor_meta_reader)
{
    static const char *const meta_ok[] = {
        "{\"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_int\": 3}], \"requires_grad\": true, \"device\": "
        "{\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 3}, {\"as_int\": 1}], "
        "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}",
        "{\"dtype\":6,\"sizes\":[],\"strides\":null,\"device\":\"cuda:1\",\"layout\":null}",
    };
    static const char *const meta_refused[] = {
        "{\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s0\"}}]}", /* an expression */
        "{\"dtype\": 7, \"sizes\": [{\"as_int\": -1}]}",                       /* negative */
        "{\"dtype\": null, \"sizes\": []}",                                     /* the cJSON error */
        "{\"sizes\": []}",                                                       /* no dtype */
        "{\"dtype\": 7, \"sizes\": [1], \"strides\": [1, 1]}",                  /* strides for 2 */
        "{\"meta\": {\"dtype\": 7, \"sizes\": []}}",                            /* schema 1 */
        "{\"dtype\": 7, \"sizes\": [], \"dtype\": 6}",                          /* twice */
        "{\"dtype\": 99, \"sizes\": []}",                                       /* unknown code */
        "{\"dtype\": 7, \"sizes\": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}",         /* 17 dims */
    };
    TensorMeta *m = NULL;
    ck_assert_uint_eq(tensor_meta_read_prefix(meta_ok[0], strlen(meta_ok[0]), &m), strlen(meta_ok[0]));
    ck_assert(m->ndim == 2 && m->sizes[1].value == 3 && m->strides[0].value == 3 && m->requires_grad);
    ck_assert(m->dtype == DT_F32 && m->layout == 7 && strcmp(m->device, "cpu") == 0);
    tensor_meta_free(m);
    char *text = ep_xasprintf("%s , \"v1\": {}}", meta_ok[1]);
    ck_assert_uint_eq(tensor_meta_read_prefix(text, strlen(text), &m), strlen(meta_ok[1]));
    ck_assert(m->ndim == 0 && m->scalar_type == 6 && m->dtype == dtype_from_scalar_type(6) && m->layout == 7 && strcmp(m->device, "cuda:1") == 0);
    tensor_meta_free(m);
    free(text);
    for (size_t i = 0; i < EP_ARRAY_LEN(meta_refused); i++) {
        m = NULL;
        ck_assert_msg(tensor_meta_read_prefix(meta_refused[i], strlen(meta_refused[i]), &m) == 0 && !m, "%s", meta_refused[i]);
    }
}
END_TEST

/* The maps over a graph's names are sized once (strmap_reserve) and do a
** get-then-put with one lookup (strmap_get_or_put): both must keep the
** map's meaning (first value kept, insertion order, growth past the
** reserve). */
START_TEST(test_strmap_reserve_and_get_or_put)
{
    StrMap m;
    strmap_init(&m);
    strmap_reserve(&m, 10);
    char key[32];
    for (int i = 0; i < 100; i++) { /* past the reserve: it still grows */
        snprintf(key, sizeof key, "v%d", i);
        ck_assert_ptr_null(strmap_get_or_put(&m, key, (void *)(intptr_t)(i + 1)));
    }
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "v%d", i);
        ck_assert_int_eq((int)(intptr_t)strmap_get_or_put(&m, key, (void *)(intptr_t)1000), i + 1);
        ck_assert_int_eq(strmap_index(&m, key), i);
    }
    ck_assert_int_eq(m.n, 100);
    ck_assert_ptr_null(strmap_get(&m, "v100"));
    strmap_reserve(&m, 5); /* smaller than it holds: nothing changes */
    ck_assert_int_eq((int)(intptr_t)strmap_get(&m, "v42"), 43);
    strmap_free(&m, NULL);
}
END_TEST

Suite *suite_load_fast(void)
{
    Suite *s = suite_create("load_fast");
    TCase *tc = tcase_create("load_fast");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_examples_and_fixtures_both_ways);
    if (test_corpus_dir())
        tcase_add_test(tc, test_corpus_both_ways);
    tcase_add_test(tc, test_fast_reader_refuses_the_unusual);
    tcase_add_test(tc, test_prefix_reads_into_the_arena);
    tcase_add_test(tc, test_plan_shares_literals_by_bits);
    tcase_add_test(tc, test_tensor_meta_reader);
    tcase_add_test(tc, test_strmap_reserve_and_get_or_put);
    suite_add_tcase(s, tc);
    return s;
}
