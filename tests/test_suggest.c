/*
** test_suggest.c -- `epdbg suggest` on the generator's fixtures: the exact
** Python for each case of tests/src/dyn_fixtures.md and
** tests/src/issue_fixtures.md (worked out there by hand from the models),
** the notes that carry the reasons, the refusals of bad requests, and the
** verifier (interp/suggest.h) rejecting suggestions made wrong on purpose
** -- one per kind of condition it must catch.
*/
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "examples/gen/benchmodels.h"
#include "examples/gen/progbuild.h"
#include "fixrecords.h"
#include "interp/archive.h"
#include "interp/suggest.h"
#include "testutil.h"

#define FIX "build/fixtures/"

typedef struct In {
    const char *name;
    DType dtype;
    int ndim;
    int64_t sizes[4];
    double fill;
} In;

typedef struct Case {
    const char *model;
    const char *opts[5];
    In in[2];
    int nin;
    const char *python;  /* the output's first paragraph, exactly */
    const char *needles[3];
} Case;

static const Case CASES[] = {
    /* broadcasting couples x.shape[0] and y.shape[0]; y.shape[1] is 1 */
    {"dyn_broadcast_static", {"--dynamic", "x:0=batch"}, {{0}}, 0,
     "from torch.export import Dim\nbatch = Dim(\"batch\", min=2)\n"
     "dynamic_shapes = {\"x\": {0: batch}, \"y\": {0: batch}}\n",
     {"y.shape[0] = batch: node 'add' (aten.add.Tensor) at dyn_broadcast.py:10"}},
    /* x + y[1:]: y = x + 1 */
    {"dyn_derived_static", {"--dynamic", "x:0=dimx"}, {{0}}, 0,
     "from torch.export import Dim\ndimx = Dim(\"dimx\", min=2)\n"
     "dynamic_shapes = {\"x\": {0: dimx}, \"y\": {0: dimx + 1}}\n",
     {"y.shape[0] = dimx + 1"}},
    /* the literal 4 of x.view(4, 3, 2) pins x.shape[0]; after the change it varies */
    {"dyn_reshape_static", {"--dynamic", "x:0=batch"}, {{0}}, 0,
     "# no input size can be dynamic as the program stands (see below)\n",
     {"node 'view' (aten.view.default) at dyn_reshape.py:10: y = x.view(4, 3, 2) hard-codes 4 from x.shape[0]; "
      "write x.view(x.shape[0], 3, 2)",
      "once the source changes above are made:\nfrom torch.export import Dim\nbatch = Dim(\"batch\", min=2)\n"
      "dynamic_shapes = {\"x\": {0: batch}}\n"}},
    /* conv 3x3 then pool 2: H - 2 >= 2, and pooling's div_rtn branch: H - 4 even */
    {"dyn_convpool_static", {"--dynamic", "x:2=h", "--dynamic", "x:3=w"}, {{0}}, 0,
     "from torch.export import Dim\n_h = Dim(\"_h\", min=2)\n_w = Dim(\"_w\", min=2)\nh = 2 * _h\nw = 2 * _w\n"
     "dynamic_shapes = {\"x\": {2: h, 3: w}}\n",
     {"x.shape[2] = 2*_h: node 'max_pool2d' (aten.max_pool2d.default) at dyn_convpool.py:15"}},
    /* a size-1 example: the 0/1 rule said, the Dim takes 1 */
    {"dyn_convpool_static", {"--dynamic", "x:0"}, {{0}}, 0,
     "from torch.export import Dim\ndim0_x = Dim(\"dim0_x\", min=1)\ndynamic_shapes = {\"x\": {0: dim0_x}}\n",
     {"the example has x.shape[0] = 1, which torch.export (2.11 and before) specializes (the 0/1 rule)"}},
    /* cat + a strided slice: z = 2*dx + 10 (#146315) */
    {"dyn_catslice_static", {"--dynamic", "x:1=dx"}, {{0}}, 0,
     "from torch.export import Dim\ndx = Dim(\"dx\", min=2)\n"
     "dynamic_shapes = {\"x\": {1: dx}, \"y\": None, \"z\": {1: 2 * dx + 10}}\n",
     {"z.shape[1] = 2*dx + 10"}},
    /* x and y both asked: z would need two roots, y stays */
    {"dyn_catslice_static", {"--dynamic", "x:1=dx", "--dynamic", "y:1"}, {{0}}, 0,
     "from torch.export import Dim\ndx = Dim(\"dx\", min=2)\n"
     "dynamic_shapes = {\"x\": {1: dx}, \"y\": None, \"z\": {1: 2 * dx + 10}}\n",
     {"y.shape[1] stays 5", "a derived Dim has one root"}},
    /* arange(T) into 8 rows: T <= 8, in a static and a dynamic archive */
    {"dyn_posemb_static", {"--dynamic", "x:0=seq"}, {{0}}, 0,
     "from torch.export import Dim\nseq = Dim(\"seq\", min=2, max=8)\ndynamic_shapes = {\"x\": {0: seq}}\n",
     {"takes the 5 of node 'arange' (aten.arange.default) at dyn_posemb.py:14 to be x.shape[0]",
      "seq max: node 'embedding' (aten.embedding.default) at dyn_posemb.py:15 needs seq <= 8"}},
    {"dyn_posemb_dynamic", {NULL}, {{"x", DT_F32, 2, {9, 4}, 1}}, 1,
     "from torch.export import Dim\ndim0_x = Dim(\"dim0_x\", min=2, max=8)\ndynamic_shapes = {\"x\": {0: dim0_x}}\n",
     {"x.shape[0] = 9 is above the max 8: node 'embedding'", "ran the program on random data"}},
    /* the branch left only a range: a wider size is not verified from the archive */
    {"dyn_branch_static", {"--dynamic", "x:0=dim"}, {{0}}, 0,
     "from torch.export import Dim\ndim = Dim(\"dim\", min=2)\ndynamic_shapes = {\"x\": {0: dim}}\n",
     {"the archive is one traced path"}},
    {"dyn_branch_dynamic", {NULL}, {{"x", DT_F32, 2, {7, 3}, 1}}, 1,
     "from torch.export import Dim\ndim0_x = Dim(\"dim0_x\", min=3, max=6)\ndynamic_shapes = {\"x\": {0: dim0_x}}\n",
     {"x.shape[0] = 7 is above the max 6: the range recorded at export (s0 in [3, 6]). No node of the program "
      "needs that bound"}},
    /* H % 32 != 0 is no Dim: a source change, then the recorded range */
    {"dyn_pad32_dynamic", {NULL}, {{0}}, 0,
     "# once the source changes below are made:\nfrom torch.export import Dim\n"
     "dim2_x = Dim(\"dim2_x\", min=224, max=1024)\ndynamic_shapes = {\"x\": {2: dim2_x}}\n",
     {"needs Ne(Mod(dim2_x, 32), 0): the sizes that pass are not a range or a multiple", "(if pad_H > 0:)"}},
    /* .item(): the checks on data, and the failing data explained */
    {"dyn_item_dynamic", {NULL}, {{"a", DT_I64, 1, {1}, 3}, {"b", DT_F32, 1, {2}, 1}}, 2,
     "from torch.export import Dim\ndim0_b = Dim(\"dim0_b\", min=2, max=64)\n"
     "dynamic_shapes = {\"a\": None, \"b\": {0: dim0_b}}\n",
     {"with u0 = 3 read from the data; with these sizes it holds for u0 = 4, 8, 12, 16 (in [1, 16])",
      "torch._check(n >= 1)", "torch._check(n <= 16)"}},
    /* #124507: the pool's rounding guard keeps one residue, the example's */
    {"issue_ne_mod_dynamic", {NULL}, {{"x", DT_F32, 4, {1, 1, 26, 8}, 1}}, 1,
     "from torch.export import Dim\n_dim2_x = Dim(\"_dim2_x\", min=4, max=63)\ndim2_x = 4 * _dim2_x + 3\n"
     "dynamic_shapes = {\"x\": {2: dim2_x}}\n",
     {"passes for sizes of residue 0, 3 modulo 4", "Mod(((26 - 1)//2), 2) = 0"}},
    {"issue_ne_mod_static", {"--dynamic", "x:2=h"}, {{0}}, 0,
     "from torch.export import Dim\n_h = Dim(\"_h\", min=0)\nh = 4 * _h + 3\ndynamic_shapes = {\"x\": {2: h}}\n",
     {"x.shape[2] = 4*_h + 3"}},
    /* #148568 / #126127: the slice's end at the size is another path: 511 */
    {"issue_max512_static", {"--dynamic", "x:0=seq"}, {{0}}, 0,
     "from torch.export import Dim\nseq = Dim(\"seq\", min=2, max=511)\ndynamic_shapes = {\"x\": {0: seq}}\n",
     {"seq max: node 'slice_1' (aten.slice.Tensor) at issue_max512.py:14 needs Ne(seq, 512)"}},
    {"issue_max512_dynamic", {NULL}, {{"x", DT_F32, 2, {512, 4}, 1}}, 1,
     "from torch.export import Dim\ndim0_x = Dim(\"dim0_x\", min=2, max=511)\ndynamic_shapes = {\"x\": {0: dim0_x}}\n",
     {"x.shape[0] = 512 is above the max 511"}},
    {"issue_offbyone_static", {"--dynamic", "input_ids:0=b", "--dynamic", "input_ids:1=x1"}, {{0}}, 0,
     "from torch.export import Dim\nb = Dim(\"b\", min=2)\nx1 = Dim(\"x1\", min=2, max=511)\n"
     "dynamic_shapes = {\"input_ids\": {0: b, 1: x1}, \"attention_mask\": {0: b, 1: x1}}\n",
     {"attention_mask.shape[1] = x1: node 'mul' (aten.mul.Tensor) at issue_offbyone.py:19"}},
    /* #181097: x = 5 * batch */
    {"issue_view_multiple_static", {"--dynamic", "y:0=batch"}, {{0}}, 0,
     "from torch.export import Dim\nbatch = Dim(\"batch\", min=2)\n"
     "dynamic_shapes = {\"x\": {0: 5 * batch}, \"y\": {0: batch}}\n",
     {"x.shape[0] = 5*batch"}},
    /* #150851: max() of two sizes traced one way: both Dims after the source change */
    {"issue_max_dims_dynamic", {NULL}, {{"x", DT_F32, 1, {3}, 1}, {"y", DT_F32, 1, {2}, 1}}, 2,
     "# once the source changes below are made:\nfrom torch.export import Dim\n"
     "dim0_x = Dim(\"dim0_x\", min=2)\ndim0_y = Dim(\"dim0_y\", min=2)\n"
     "dynamic_shapes = {\"x\": {0: dim0_x}, \"y\": {0: dim0_y}}\n",
     {"torch.sym_max / torch.sym_min instead of Python's max / min",
      "which fail the export's guard x.size()[0] < y.size()[0]: 3 < 2 is False"}},
    /* #181097: the export's guard x.size()[0] // 5 != 1 gives min=2 */
    {"issue_view_multiple_dynamic", {NULL}, {{0}}, 0,
     "from torch.export import Dim\ndim0_x = Dim(\"dim0_x\", min=2, max=8)\n"
     "dynamic_shapes = {\"x\": {0: 5 * dim0_x}, \"y\": {0: dim0_x}}\n",
     {"dim0_x min=2: the export's guards_code needs Ne(dim0_x, 1) (the export's guard x.size()[0] // 5 "
      "!= 1)"}},
    /* #133653: the size-1 example, and the fix that keeps the dim dynamic */
    {"issue_gives_up_static", {"--dynamic", "x:0=batch"}, {{0}}, 0,
     "from torch.export import Dim\nbatch = Dim(\"batch\", min=1)\ndynamic_shapes = {\"x\": {0: batch}}\n",
     {"its own suggested fix is `batch = 1`, giving the dynamism up"}},
    /* #160674: *args named as PyTorch names them, the tuple under "args" */
    {"issue_args_static", {"--dynamic", "*args[0]:0=batch"}, {{0}}, 0,
     "from torch.export import Dim\nbatch = Dim(\"batch\", min=2)\n"
     "dynamic_shapes = {\"args\": ({0: batch}, {0: batch})}\n",
     {"*args[1].shape[0] = batch"}},
};

START_TEST(test_suggest_cases)
{
    const Case *c = &CASES[_i];
    char *dir = test_tmpdir();
    char model[512];
    snprintf(model, sizeof model, "%s/" FIX "%s.pt2", test_project_dir(), c->model);
    const char *args[24] = {"suggest", model};
    int na = 2;
    for (int k = 0; k < 5 && c->opts[k]; k++)
        args[na++] = c->opts[k];
    char *files[2] = {NULL, NULL}, specs[2][600];
    for (int k = 0; k < c->nin; k++) {
        const In *in = &c->in[k];
        files[k] = fixrec_write_npy(dir, in->name, in->dtype, in->ndim, in->sizes, in->fill);
        snprintf(specs[k], sizeof specs[k], "%s=%s", in->name, files[k]);
        args[na++] = "--input";
        args[na++] = specs[k];
    }
    args[na] = NULL;
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s: exit %d\n%s%s", c->model, r.code, r.out, r.err);
    size_t n = strlen(c->python);
    ck_assert_msg(strncmp(r.out, c->python, n) == 0 && (r.out[n] == '\n' || r.out[n] == '\0'),
                  "%s: the Python is\n%.*s\nwant\n%s", c->model, (int)(strstr(r.out, "\n\n") ? strstr(r.out, "\n\n") - r.out : 200),
                  r.out, c->python);
    for (int k = 0; k < 3 && c->needles[k]; k++)
        ck_assert_msg(strstr(r.out, c->needles[k]) != NULL, "%s: no \"%s\" in\n%s", c->model, c->needles[k], r.out);
    ck_assert_msg(strstr(r.out, "\nverified:\n") != NULL, "%s: not verified:\n%s", c->model, r.out);
    run_result_free(&r);
    for (int k = 0; k < c->nin; k++) {
        unlink(files[k]);
        free(files[k]);
    }
    rmdir(dir);
    free(dir);
}
END_TEST

/* --json: the same suggestion as data. */
START_TEST(test_suggest_json)
{
    const char *args[] = {"suggest", FIX "dyn_derived_static.pt2", "--dynamic", "x:0=dimx", "--json", NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s", r.err);
    cJSON *o = cJSON_Parse(r.out);
    ck_assert_msg(o != NULL, "not JSON:\n%s", r.out);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "verified")));
    const cJSON *ds = cJSON_GetObjectItem(o, "dynamic_shapes");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(ds, "x"), "0")->valuestring, "dimx");
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(ds, "y"), "0")->valuestring, "dimx + 1");
    const cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "dims"), 0);
    ck_assert_str_eq(cJSON_GetObjectItem(d0, "name")->valuestring, "dimx");
    ck_assert_int_eq((int)cJSON_GetObjectItem(d0, "min")->valuedouble, 2);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItem(d0, "max")));
    ck_assert(strstr(cJSON_GetObjectItem(o, "python")->valuestring, "\"y\": {0: dimx + 1}"));
    cJSON_Delete(o);
    run_result_free(&r);
}
END_TEST

/* Requests that do not fit: one message naming what is wrong, exit 1. */
START_TEST(test_suggest_bad_requests)
{
    static const struct {
        const char *spec, *want;
    } BAD[] = {
        {"z:0", "--dynamic z:0: no input 'z'; the inputs are x, y"},
        {"x:2", "--dynamic x:2: x has 2 dimensions, so dim 2 does not exist"},
        {"x:0=2b", "--dynamic x:0=2b: '2b' is not a Python name for the Dim"},
        {"x", "--dynamic x: expected NAME:DIM or NAME:DIM=DIMNAME (x:0=batch)"},
        {"x:a", "--dynamic x:a: 'a' is not a dimension number"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const char *args[] = {"suggest", FIX "dyn_broadcast_static.pt2", "--dynamic", BAD[i].spec, NULL};
        RunResult r = test_run_binary(args, NULL, NULL);
        ck_assert_msg(r.code == 1, "%s: exit %d", BAD[i].spec, r.code);
        ck_assert_msg(strstr(r.err, BAD[i].want) != NULL, "%s: %s", BAD[i].spec, r.err);
        ck_assert_str_eq(r.out, "");
        run_result_free(&r);
    }
    const char *twice[] = {"suggest", FIX "dyn_broadcast_static.pt2", "--dynamic", "x:0", "--dynamic", "x:-2", NULL};
    RunResult r = test_run_binary(twice, NULL, NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "--dynamic x:-2: the same dimension as --dynamic x:0"), "%s", r.err);
    run_result_free(&r);
}
END_TEST

/* Every corpus archive: a verified suggestion that admits the reference
** inputs PyTorch ran it on (a property: whatever the Dims are, inputs the
** program runs on must fit them, or the suggestion says why not). */
START_TEST(test_suggest_corpus)
{
    char *const *stems;
    int n = test_corpus_archives(&stems);
    if (n == 0)
        return; /* the corpus suite says on one line that ../shared is absent */
    int checked = 0;
    for (int i = 0; i < n; i++) {
        char *model = test_corpus_archive_path(stems[i]);
        if (!model)
            continue;
        char ref[1024];
        snprintf(ref, sizeof ref, "%s/%s.ref", test_corpus_dir(), stems[i]);
        const char *args[] = {"suggest", model, "--inputs", ref, NULL};
        RunResult r = test_run_binary(args, NULL, NULL);
        ck_assert_msg(r.code == 0, "%s: exit %d\n%s", model, r.code, r.err);
        ck_assert_msg(strstr(r.out, "\nverified:\n") != NULL, "%s: not verified:\n%s", model, r.out);
        ck_assert_msg(strstr(r.out, "the given inputs:") == NULL, "%s: the reference inputs do not fit:\n%s", model,
                      r.out);
        run_result_free(&r);
        free(model);
        checked++;
    }
    ck_assert_int_gt(checked, 50);
}
END_TEST

/* The bench transformer exported static, batch 2, seq 64 = d_model 64:
** every view writes 2 and 64 (from x.shape, which its lines read); the 64
** of d_model taken for seq would pin seq at the projection, so that
** literal is kept and seq stays dynamic. */
START_TEST(test_suggest_coincident_sizes)
{
    PbRng rng = {1};
    Tensor *in = NULL;
    ProgBuilder *pb = bench_transformer_model(&rng, &in);
    char *dir = test_tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/tr.pt2", dir);
    EpError err = {0};
    PbWriteOptions wo = {.era = PB_ERA_2_11};
    ck_assert_msg(pb_write(pb, path, &wo, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
    if (in)
        tensor_unref(in);
    const char *args[] = {"suggest", path, "--dynamic", "x:0=batch", "--dynamic", "x:1=seq", NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s", r.err);
    const char *want = "from torch.export import Dim\nbatch = Dim(\"batch\", min=2)\nseq = Dim(\"seq\", min=2)\n"
                       "dynamic_shapes = {\"x\": {0: batch, 1: seq}}\n\n";
    ck_assert_msg(strncmp(r.out, want, strlen(want)) == 0, "%s", r.out);
    run_result_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

/* Bad archives: an expression that does not parse is named, never skipped;
** guards that exclude every size are a contradiction, not a suggestion. */
START_TEST(test_suggest_bad_archives)
{
    Model *m;
    EpError err = {0};
    Suggestion *s = NULL;
    SuggestOptions o = {.run_checks = false};
    ck_assert_msg(model_open(FIX "dyn_posemb_dynamic.pt2", NULL, &m, &err) == EP_OK, "%s", err.msg);
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip != NULL, "%s", err.msg);
    RangeConstraint *r = (RangeConstraint *)&m->ep->ranges[0];
    /* s0 in [9, 64] against the embedding's 8 rows */
    int64_t lo = r->min;
    r->min = 9;
    ck_assert_int_eq(suggest_run(ip, &o, &s, &err), EP_ERR_FORMAT);
    ck_assert_msg(strstr(err.msg, "the program's guards contradict each other: node 'embedding' "
                                  "(aten.embedding.default) at dyn_posemb.py:15") != NULL,
                  "%s", err.msg);
    ck_assert_ptr_null(s);
    r->min = lo;
    /* a range key that does not parse */
    SymExpr *keep = r->parsed;
    char *text = r->expr;
    r->parsed = NULL;
    char bad[] = "Mod(s0,";
    r->expr = bad;
    ck_assert_int_eq(suggest_run(ip, &o, &s, &err), EP_ERR_FORMAT);
    ck_assert_str_eq(err.msg, "range_constraints[0]: the expression 'Mod(s0,' does not parse");
    r->parsed = keep;
    r->expr = text;
    ck_assert_int_eq(suggest_run(ip, &o, &s, &err), EP_OK);
    suggest_free(s);
    interp_free(ip);
    model_free(m);
}
END_TEST

/* ---- the verifier rejects what is wrong --------------------------------------- */

typedef struct Opened {
    Model *m;
    Interp *ip;
    Suggestion *s;
    SuggestOptions o;
    DynRequest rq[2];
} Opened;

static void open_suggest(Opened *op, const char *fixture, const char *const *dyn)
{
    EpError err = {0};
    memset(op, 0, sizeof *op);
    ck_assert_msg(model_open(fixture, NULL, &op->m, &err) == EP_OK, "%s", err.msg);
    op->ip = interp_new(op->m, NULL, &err);
    ck_assert_msg(op->ip != NULL, "%s", err.msg);
    int n = 0;
    for (; dyn && dyn[n]; n++)
        ck_assert_msg(suggest_parse_dynamic(op->ip, dyn[n], &op->rq[n], &err) == EP_OK, "%s", err.msg);
    op->o = (SuggestOptions){.dynamic = op->rq, .ndynamic = n, .run_checks = true, .seed = 1};
    ck_assert_msg(suggest_run(op->ip, &op->o, &op->s, &err) == EP_OK, "%s", err.msg);
    ck_assert_msg(op->s->verified, "%s: the suggestion itself is not verified", fixture);
}

static void close_suggest(Opened *op)
{
    suggest_free(op->s);
    interp_free(op->ip);
    model_free(op->m);
}

/* The Dim called name. */
static SuggestDim *dim_named(Suggestion *s, const char *name)
{
    for (int k = 0; k < s->ndims; k++)
        if (strcmp(s->dims[k].name, name) == 0)
            return &s->dims[k];
    ck_abort_msg("no Dim %s", name);
    return NULL;
}

/* Verify, expect a failed check naming want. */
static void expect_rejected(Opened *op, const char *want)
{
    ck_assert_msg(!suggest_verify(op->ip, op->s, &op->o), "a wrong suggestion passed");
    bool found = false;
    for (int i = 0; i < op->s->nchecks; i++)
        found |= !op->s->checks[i].ok && strstr(op->s->checks[i].text, want) != NULL;
    ck_assert_msg(found, "no failed check naming \"%s\"; first: %s", want,
                  op->s->nchecks ? op->s->checks[op->s->nchecks - 1].text : "(none)");
}

/* max=64 instead of 8: the embedding's bound (a range too wide). */
START_TEST(test_verify_rejects_wide_range)
{
    Opened op;
    open_suggest(&op, FIX "dyn_posemb_static.pt2", (const char *[]){"x:0=seq", NULL});
    dim_named(op.s, "seq")->max = 64;
    expect_rejected(&op, "node 'embedding' (aten.embedding.default) at dyn_posemb.py:15");
    close_suggest(&op);
}
END_TEST

/* y = dimx + 2 instead of + 1: the broadcast fails everywhere. */
START_TEST(test_verify_rejects_wrong_offset)
{
    Opened op;
    open_suggest(&op, FIX "dyn_derived_static.pt2", (const char *[]){"x:0=dimx", NULL});
    bool changed = false;
    for (int k = 0; k < op.s->ndims; k++)
        if (op.s->dims[k].root >= 0)
            op.s->dims[k].c = 2, changed = true;
    ck_assert(changed);
    expect_rejected(&op, "node 'add' (aten.add.Tensor) at dyn_derived.py:10");
    close_suggest(&op);
}
END_TEST

/* z = 2*dx + 11: the strided slice has dx + 6 columns, one too many. */
START_TEST(test_verify_rejects_wrong_multiple)
{
    Opened op;
    open_suggest(&op, FIX "dyn_catslice_static.pt2", (const char *[]){"x:1=dx", NULL});
    for (int k = 0; k < op.s->ndims; k++)
        if (op.s->dims[k].root >= 0)
            op.s->dims[k].c = 11;
    expect_rejected(&op, "dyn_catslice.py:11");
    close_suggest(&op);
}
END_TEST

/* min=2 for h (PyTorch's default): the conv and pool need H >= 4, and the
** pool's rounding branch an even H. */
START_TEST(test_verify_rejects_small_min)
{
    Opened op;
    open_suggest(&op, FIX "dyn_convpool_static.pt2", (const char *[]){"x:2=h", NULL});
    SuggestDim *h = dim_named(op.s, "_h");
    h->min = 1; /* h = 2 */
    expect_rejected(&op, "at _h = 1, node 'conv2d' (aten.conv2d.default) at dyn_convpool.py:14");
    close_suggest(&op);
}
END_TEST

/* The residue of #124507 changed to 1 (h = 4*_h + 1): the archive's
** in-graph guard Ne(Mod((h - 1)//2, 2), 0) fails for every value.  (For the
** static archive 4*_h + 1 is right: an example of that residue takes the
** pool's other rounding branch.) */
START_TEST(test_verify_rejects_wrong_residue)
{
    Opened op;
    open_suggest(&op, FIX "issue_ne_mod_dynamic.pt2", NULL);
    SuggestDim *h = dim_named(op.s, "dim2_x");
    ck_assert_int_eq(h->c, 3);
    h->c = 1;
    expect_rejected(&op, "issue_ne_mod.py:16");
    close_suggest(&op);
}
END_TEST

/* max=512, PyTorch's own suggestion in #148568: the slice's guard. */
START_TEST(test_verify_rejects_pytorch_max512)
{
    Opened op;
    open_suggest(&op, FIX "issue_max512_static.pt2", (const char *[]){"x:0=seq", NULL});
    dim_named(op.s, "seq")->max = 512;
    expect_rejected(&op, "at seq = 512");
    close_suggest(&op);
}
END_TEST

/* Without the source change the pad32 program has Ne(Mod(h, 32), 0): the
** recorded range alone is not a verified Dim. */
START_TEST(test_verify_rejects_without_source_change)
{
    Opened op;
    open_suggest(&op, FIX "dyn_pad32_dynamic.pt2", NULL);
    for (int i = 0; i < op.s->nnotes; i++)
        if (op.s->notes[i].kind == SN_SOURCE_CHANGE)
            op.s->notes[i].kind = SN_WHY;
    expect_rejected(&op, "Ne(Mod(dim2_x, 32), 0)");
    close_suggest(&op);
}
END_TEST

/* A range beyond the one the dynamic archive was exported for. */
START_TEST(test_verify_rejects_beyond_export)
{
    Opened op;
    open_suggest(&op, FIX "dyn_branch_dynamic.pt2", NULL);
    dim_named(op.s, "dim0_x")->max = 7;
    expect_rejected(&op, "leaves the range the archive was exported for (s0 in [3, 6])");
    close_suggest(&op);
}
END_TEST

/* min=1 for #181097's batch: the export's own guard x.size()[0] // 5 != 1
** refuses it. */
START_TEST(test_verify_rejects_guards_code)
{
    Opened op;
    open_suggest(&op, FIX "issue_view_multiple_dynamic.pt2", NULL);
    dim_named(op.s, "dim0_x")->min = 1;
    expect_rejected(&op, "at dim0_x = 1 the export's guard x.size()[0] // 5 != 1 fails (guards_code[0])");
    close_suggest(&op);
}
END_TEST

Suite *suite_suggest(void)
{
    Suite *s = suite_create("suggest");
    TCase *tc = tcase_create("binary");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_suggest_cases, 0, (int)(sizeof CASES / sizeof CASES[0]));
    tcase_add_test(tc, test_suggest_json);
    tcase_add_test(tc, test_suggest_bad_requests);
    tcase_add_test(tc, test_suggest_corpus);
    tcase_add_test(tc, test_suggest_bad_archives);
    tcase_add_test(tc, test_suggest_coincident_sizes);
    suite_add_tcase(s, tc);
    TCase *v = tcase_create("verify");
    tcase_set_timeout(v, 60);
    tcase_add_test(v, test_verify_rejects_wide_range);
    tcase_add_test(v, test_verify_rejects_wrong_offset);
    tcase_add_test(v, test_verify_rejects_wrong_multiple);
    tcase_add_test(v, test_verify_rejects_small_min);
    tcase_add_test(v, test_verify_rejects_wrong_residue);
    tcase_add_test(v, test_verify_rejects_pytorch_max512);
    tcase_add_test(v, test_verify_rejects_without_source_change);
    tcase_add_test(v, test_verify_rejects_beyond_export);
    tcase_add_test(v, test_verify_rejects_guards_code);
    suite_add_tcase(s, v);
    return s;
}
