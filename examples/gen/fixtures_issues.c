/*
** fixtures_issues.c -- the situations of the PyTorch issues issue 11 names
** (#124507, #148568, #126127, #181097, #150851, #133653/#134137, #160674),
** each exported twice as torch.export 2.11 records it: static (literal
** sizes) and dynamic (symbols, range_constraints, sym_size/_operator chains
** and in-graph _assert_scalar nodes with PyTorch's own messages).  The
** Python each stands for is tests/src/issue_NAME.py (the stack traces give
** its lines); tests/src/issue_fixtures.md gives the export calls, what is
** recorded, what PyTorch does and the suggestion epdbg must print.  Written
** as issue_NAME_static.pt2 and issue_NAME_dynamic.pt2.
**
** The conventions are those of fixtures_dynamic.c: symbols s0, s1, ... in
** input order, composite sizes in sympy's plain printing, and sizes the
** builder's two-run inference cannot find (floor divisions, two symbols
** moving together) declared with pb_unbacked.  Every example size is
** chosen so that the example + 1 the inference also runs satisfies the
** recorded asserts.
*/
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "fixture_util.h"

/* pytorch/pytorch#124507: ResNet's stem on x [1, 1, H, 8].  The pool's
** shape formula (div_rtn in torch/_meta_registrations.py) asks whether
** (H - 1)//2 is odd, a guard no Dim states; the dynamic export keeps it as
** an in-graph assert (prefer_deferred_runtime_asserts_over_guards). */
static ProgBuilder *ne_mod(bool dyn)
{
    static const char PY[] = "tests/src/issue_ne_mod.py";
    ProgBuilder *pb = pb_new("issue_ne_mod.NeMod", false);
    int64_t ws[4] = {1, 1, 7, 7}, bs[1] = {1}, xs[4] = {1, 1, 23, 8};
    fx_param(pb, "conv.weight", fx_ramp(4, ws, 1, 0));
    fx_param(pb, "conv.bias", fx_ramp(1, bs, 0, 0));
    const char *xd[4] = {"1", "1", "s0", "8"};
    fx_input(pb, "x", fx_ramp(4, xs, 1, 0), dyn ? xd : NULL);
    pb_module(pb, "", "issue_ne_mod.NeMod");
    if (dyn) {
        pb_range(pb, "s0", 16, 256);
        /* PyTorch puts a deferred assert where its symbols are bound,
        ** with the stack of the guard: the pool's line */
        pb_at(pb, PY, 16, "forward", "return self.pool(h)");
        fx_sym_size(pb, "sym_size_int", "x", 2, "s0");
        pb_node(pb, "_operator.sub", "sub", "a=$sym_size_int b=1", "$sub");
        fx_symv(pb, "sub", "s0 - 1");
        pb_node(pb, "_operator.floordiv", "floordiv", "a=$sub b=2", "$floordiv");
        fx_symv(pb, "floordiv", "((s0 - 1)//2)");
        pb_node(pb, "_operator.mod", "mod", "a=$floordiv b=2", "$mod");
        fx_symv(pb, "mod", "Mod(((s0 - 1)//2), 2)");
        pb_node(pb, "_operator.ne", "ne", "a=$mod b=0", "$ne");
        pb_sym_value(pb, "ne", "Ne(Mod(((s0 - 1)//2), 2), 0)", true);
        fx_assert_node(pb, "_assert_scalar_default", "ne", "Ne(Mod(((s0 - 1)//2), 2), 0)");
    }
    pb_at(pb, PY, 15, "forward", "h = self.conv(x)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/conv.py", 554, "forward",
                "return self._conv_forward(input, self.weight, self.bias)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/conv.py", 549, "_conv_forward",
                "return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)");
    pb_module(pb, "conv", "torch.nn.modules.conv.Conv2d");
    pb_node(pb, "aten.conv2d.default", "conv2d",
            pb_fmt("input=%%x weight=%%%s bias=%%%s stride=[2, 2] padding=[3, 3]", pb_ph(pb, "conv.weight"),
                   pb_ph(pb, "conv.bias")),
            "conv2d");
    pb_at(pb, PY, 16, "forward", "return self.pool(h)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/pooling.py", 213, "forward",
                "return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, "
                "ceil_mode=self.ceil_mode, return_indices=self.return_indices)");
    pb_module(pb, "pool", "torch.nn.modules.pooling.MaxPool2d");
    pb_node(pb, "aten.max_pool2d.default", "max_pool2d",
            "self=%conv2d kernel_size=[3, 3] stride=[2, 2] padding=[1, 1]", "max_pool2d");
    if (dyn) { /* FloorDiv takes (x//2)//2 to x//4 */
        const char *cd[4] = {"1", "1", "((s0 - 1)//2) + 1", "4"}, *pd[4] = {"1", "1", "((s0 - 1)//4) + 1", "2"};
        pb_unbacked(pb, "conv2d", 4, cd);
        pb_unbacked(pb, "max_pool2d", 4, pd);
    }
    pb_output(pb, "max_pool2d");
    return pb;
}

/* pytorch/pytorch#148568: x [T, 4] + pos[:T] with a 512-row parameter.
** Following PyTorch's suggested max=512 gives the guard T != 512 (the
** slice's clamp, traced for T < 512), kept as an in-graph assert. */
static ProgBuilder *max512(bool dyn)
{
    static const char PY[] = "tests/src/issue_max512.py";
    ProgBuilder *pb = pb_new("issue_max512.Max512", false);
    fx_param(pb, "pos", fx_table(512, 4, 10, 1));
    int64_t xs[2] = {5, 4};
    const char *xd[2] = {"s0", "4"};
    fx_input(pb, "x", fx_ramp(2, xs, 0, 1), dyn ? xd : NULL);
    pb_module(pb, "", "issue_max512.Max512");
    pb_at(pb, PY, 14, "forward", "return x + self.pos[: x.shape[0]]");
    const char *end = "5";
    if (dyn) {
        pb_range(pb, "s0", 2, 512);
        fx_sym_size(pb, "sym_size_int", "x", 0, "s0");
        pb_node(pb, "_operator.ne", "ne", "a=$sym_size_int b=512", "$ne");
        pb_sym_value(pb, "ne", "Ne(s0, 512)", true);
        fx_assert_node(pb, "_assert_scalar_default", "ne", "Ne(s0, 512)");
        end = "$sym_size_int";
    }
    pb_node(pb, "aten.slice.Tensor", "slice_1", pb_fmt("self=%%%s dim=0 start=0 end=%s", pb_ph(pb, "pos"), end),
            "slice_1");
    pb_node(pb, "aten.add.Tensor", "add", "self=%x other=%slice_1", "add");
    pb_output(pb, "add");
    return pb;
}

/* pytorch/pytorch#126127: BERT's embeddings, input_ids and attention_mask
** [B, T], positions position_ids[:, :T] of a 512-row buffer.  With the
** suggested shared Dims and max=512, the guard Ne(s1, 512) is one too
** many: T = 512 works. */
static ProgBuilder *offbyone(bool dyn)
{
    static const char PY[] = "tests/src/issue_offbyone.py";
    ProgBuilder *pb = pb_new("issue_offbyone.OffByOne", false);
    fx_param(pb, "word.weight", fx_table(16, 4, 100, 1));
    fx_param(pb, "pos.weight", fx_table(512, 4, 10, 0));
    int64_t ps[2] = {1, 512}, is[2] = {2, 5};
    Tensor *pos_ids = fx_ramp_as(DT_I64, 2, ps, 0, 1);
    pb_buffer(pb, "position_ids", pos_ids, true);
    tensor_unref(pos_ids);
    Tensor *ids = fx_ramp_as(DT_I64, 2, is, 0, 0), *mask = fx_ramp(2, is, 1, 0);
    const int64_t idv[10] = {1, 2, 3, 4, 5, 5, 4, 3, 2, 1};
    memcpy(tensor_data(ids), idv, sizeof idv);
    ((float *)tensor_data(mask))[9] = 0.5f;
    const char *d[2] = {"s0", "s1"};
    fx_input(pb, "input_ids", ids, dyn ? d : NULL);
    fx_input(pb, "attention_mask", mask, dyn ? d : NULL);
    pb_module(pb, "", "issue_offbyone.OffByOne");
    const char *T = "5";
    if (dyn) {
        pb_range(pb, "s0", 2, 64);
        pb_range(pb, "s1", 2, 512);
        pb_at(pb, PY, 16, "forward", "T = input_ids.shape[1]");
        fx_sym_size(pb, "sym_size_int", "input_ids", 1, "s1");
        pb_at(pb, PY, 17, "forward", "position_ids = self.position_ids[:, :T]");
        pb_node(pb, "_operator.ne", "ne", "a=$sym_size_int b=512", "$ne");
        pb_sym_value(pb, "ne", "Ne(s1, 512)", true);
        fx_assert_node(pb, "_assert_scalar_default", "ne", "Ne(s1, 512)");
        T = "$sym_size_int";
    }
    pb_at(pb, PY, 17, "forward", "position_ids = self.position_ids[:, :T]");
    pb_node(pb, "aten.slice.Tensor", "slice_1",
            pb_fmt("self=%%%s dim=0 start=0 end=9223372036854775807", pb_ph(pb, "position_ids")), "slice_1");
    pb_node(pb, "aten.slice.Tensor", "slice_2", pb_fmt("self=%%slice_1 dim=1 start=0 end=%s", T), "slice_2");
    static const char EMB[] = "return F.embedding(input, self.weight, self.padding_idx, self.max_norm, "
                              "self.norm_type, self.scale_grad_by_freq, self.sparse)";
    pb_at(pb, PY, 18, "forward", "h = self.word(input_ids) + self.pos(position_ids)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/sparse.py", 192, "forward", EMB);
    pb_module(pb, "word", "torch.nn.modules.sparse.Embedding");
    pb_node(pb, "aten.embedding.default", "embedding",
            pb_fmt("weight=%%%s indices=%%input_ids", pb_ph(pb, "word.weight")), "embedding");
    pb_at(pb, PY, 18, "forward", "h = self.word(input_ids) + self.pos(position_ids)");
    pb_at_inner(pb, SITE_TORCH "nn/modules/sparse.py", 192, "forward", EMB);
    pb_module(pb, "pos", "torch.nn.modules.sparse.Embedding");
    pb_node(pb, "aten.embedding.default", "embedding_1",
            pb_fmt("weight=%%%s indices=%%slice_2", pb_ph(pb, "pos.weight")), "embedding_1");
    pb_at(pb, PY, 18, "forward", "h = self.word(input_ids) + self.pos(position_ids)");
    pb_module(pb, "", "issue_offbyone.OffByOne");
    pb_node(pb, "aten.add.Tensor", "add", "self=%embedding other=%embedding_1", "add");
    pb_at(pb, PY, 19, "forward", "return h * attention_mask.unsqueeze(-1)");
    pb_node(pb, "aten.unsqueeze.default", "unsqueeze", "self=%attention_mask dim=-1", "unsqueeze");
    pb_node(pb, "aten.mul.Tensor", "mul", "self=%add other=%unsqueeze", "mul");
    if (dyn) { /* both symbols move together in the inference's second run */
        const char *sd[2] = {"1", "s1"}, *ed[3] = {"s0", "s1", "4"}, *pd[3] = {"1", "s1", "4"},
                   *ud[3] = {"s0", "s1", "1"};
        pb_unbacked(pb, "slice_2", 2, sd);
        pb_unbacked(pb, "embedding", 3, ed);
        pb_unbacked(pb, "embedding_1", 3, pd);
        pb_unbacked(pb, "add", 3, ed);
        pb_unbacked(pb, "unsqueeze", 3, ud);
        pb_unbacked(pb, "mul", 3, ed);
    }
    pb_output(pb, "mul");
    return pb;
}

/* pytorch/pytorch#181097: x.view(5, -1) - y with x = 5*batch, y = batch,
** Dim("batch", min=1, max=8).  The guard that rejects batch = 1 lives in
** the ExportedProgram's guards_code: view(5, -1) gives x.size()[0] // 5,
** broadcasting it with y asks whether it is 1, and PyTorch's printer writes
** Ne(FloorDiv(x.size()[0], 5), 1) as below. */
static ProgBuilder *view_multiple(bool dyn)
{
    static const char PY[] = "tests/src/issue_view_multiple.py";
    ProgBuilder *pb = pb_new("issue_view_multiple.ViewMultiple", false);
    int64_t xs[1] = {20}, ys[1] = {4};
    const char *xd[1] = {"5*s0"}, *yd[1] = {"s0"};
    fx_input(pb, "x", fx_ramp(1, xs, 0, 1), dyn ? xd : NULL);
    fx_input(pb, "y", fx_ramp(1, ys, 100, 100), dyn ? yd : NULL);
    if (dyn) {
        pb_range(pb, "s0", 1, 8);
        pb_range(pb, "5*s0", 5, 40);
        pb_guard_code(pb, "(L['x'].size()[0] // 5) != 1");
    }
    pb_module(pb, "", "issue_view_multiple.ViewMultiple");
    pb_at(pb, PY, 11, "forward", "x1 = x.view(5, -1)");
    pb_node(pb, "aten.view.default", "view", "self=%x size=[5, -1]", "view");
    pb_at(pb, PY, 12, "forward", "return x1 - y");
    pb_node(pb, "aten.sub.Tensor", "sub", "self=%view other=%y", "sub");
    pb_output(pb, "sub");
    return pb;
}

/* pytorch/pytorch#150851: zeros(max(x.shape[0], y.shape[0])), x and y
** added into its front, exported with Dim.DYNAMIC from x (2), y (3):
** max() traced y as the longer, so zeros(y.shape[0]); functionalized, the
** two `+=` are slice, add, slice_scatter.  Python's max(a, b) asks b > a:
** the guard s0 < s1 is in guards_code as PyTorch's printer writes it. */
static ProgBuilder *max_dims(bool dyn)
{
    static const char PY[] = "tests/src/issue_max_dims.py";
    ProgBuilder *pb = pb_new("issue_max_dims.MaxDims", false);
    int64_t xs[1] = {2}, ys[1] = {3};
    const char *xd[1] = {"s0"}, *yd[1] = {"s1"};
    fx_input(pb, "x", fx_ramp(1, xs, 1, 1), dyn ? xd : NULL);
    fx_input(pb, "y", fx_ramp(1, ys, 10, 10), dyn ? yd : NULL);
    pb_module(pb, "", "issue_max_dims.MaxDims");
    const char *n = "2", *m = "3";
    if (dyn) {
        pb_range(pb, "s0", 2, INT64_MAX);
        pb_range(pb, "s1", 2, INT64_MAX);
        pb_guard_code(pb, "L['x'].size()[0] < L['y'].size()[0]");
        pb_at(pb, PY, 11, "forward", "z = torch.zeros(max(x.shape[0], y.shape[0]))");
        fx_sym_size(pb, "sym_size_int", "x", 0, "s0");
        fx_sym_size(pb, "sym_size_int_1", "y", 0, "s1");
        n = "$sym_size_int";
        m = "$sym_size_int_1";
    }
    pb_at(pb, PY, 11, "forward", "z = torch.zeros(max(x.shape[0], y.shape[0]))");
    pb_node(pb, "aten.zeros.default", "zeros", pb_fmt("size=[%s] device=device:cpu pin_memory=False", m), "zeros");
    pb_at(pb, PY, 12, "forward", "z[: x.shape[0]] += x");
    pb_node(pb, "aten.slice.Tensor", "slice_1", pb_fmt("self=%%zeros dim=0 start=0 end=%s", n), "slice_1");
    pb_node(pb, "aten.add.Tensor", "add", "self=%slice_1 other=%x", "add");
    pb_node(pb, "aten.slice_scatter.default", "slice_scatter",
            pb_fmt("self=%%zeros src=%%add dim=0 start=0 end=%s", n), "slice_scatter");
    pb_at(pb, PY, 13, "forward", "z[: y.shape[0]] += y");
    pb_node(pb, "aten.slice.Tensor", "slice_2", pb_fmt("self=%%slice_scatter dim=0 start=0 end=%s", m), "slice_2");
    pb_node(pb, "aten.add.Tensor", "add_1", "self=%slice_2 other=%y", "add_1");
    pb_node(pb, "aten.slice_scatter.default", "slice_scatter_1",
            pb_fmt("self=%%slice_scatter src=%%add_1 dim=0 start=0 end=%s", m), "slice_scatter_1");
    if (dyn) { /* s0 and s1 move together in the inference's second run */
        const char *a[1] = {"s0"}, *b[1] = {"s1"};
        pb_unbacked(pb, "zeros", 1, b);
        pb_unbacked(pb, "slice_1", 1, a);
        pb_unbacked(pb, "add", 1, a);
        pb_unbacked(pb, "slice_scatter", 1, b);
        pb_unbacked(pb, "slice_2", 1, b);
        pb_unbacked(pb, "add_1", 1, b);
        pb_unbacked(pb, "slice_scatter_1", 1, b);
    }
    pb_output(pb, "slice_scatter_1");
    return pb;
}

/* pytorch/pytorch#133653 (ResNet-50, batch example 1) and #134137 (a size
** made constant before export): the suggested fix gives the dynamism up.
** Linear(3, 2) then relu; static from x (1, 3), the example PyTorch 2.11
** specializes; dynamic from x (2, 3) with Dim("batch", min=1, max=10). */
static ProgBuilder *gives_up(bool dyn)
{
    static const char PY[] = "tests/src/issue_gives_up.py";
    ProgBuilder *pb = pb_new("issue_gives_up.GivesUp", false);
    int64_t ws[2] = {2, 3}, bs[1] = {2}, xs[2] = {dyn ? 2 : 1, 3};
    Tensor *w = fx_ramp(2, ws, 0, 0);
    const float wv[6] = {1, 0, 0, 0, 1, 1};
    memcpy(tensor_data(w), wv, sizeof wv);
    fx_param(pb, "fc.weight", w);
    fx_param(pb, "fc.bias", fx_ramp(1, bs, -1, 0));
    const char *xd[2] = {"s0", "3"};
    fx_input(pb, "x", fx_ramp(2, xs, 0, 1), dyn ? xd : NULL);
    if (dyn)
        pb_range(pb, "s0", 1, 10);
    pb_at(pb, PY, 14, "forward", "return self.fc(x).relu()");
    pb_at_inner(pb, SITE_TORCH "nn/modules/linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)");
    pb_module(pb, "fc", "torch.nn.modules.linear.Linear");
    pb_node(pb, "aten.linear.default", "linear",
            pb_fmt("input=%%x weight=%%%s bias=%%%s", pb_ph(pb, "fc.weight"), pb_ph(pb, "fc.bias")), "linear");
    pb_at(pb, PY, 14, "forward", "return self.fc(x).relu()");
    pb_module(pb, "", "issue_gives_up.GivesUp");
    pb_node(pb, "aten.relu.default", "relu", "self=%linear", "relu");
    pb_output(pb, "relu");
    return pb;
}

/* pytorch/pytorch#160674: forward(self, *args).  torch.export names the
** placeholders args_0, args_1 (and records those as forward_arg_names);
** the in_spec is the args tuple inside the (args, kwargs) tuple. */
static ProgBuilder *args(bool dyn)
{
    static const char PY[] = "tests/src/issue_args.py";
    ProgBuilder *pb = pb_new("issue_args.Args", false);
    int64_t s[2] = {4, 3};
    const char *d[2] = {"s0", "3"};
    fx_input(pb, "args_0", fx_ramp(2, s, 0, 1), dyn ? d : NULL);
    fx_input(pb, "args_1", fx_ramp(2, s, 100, 0), dyn ? d : NULL);
    if (dyn)
        pb_range(pb, "s0", 2, 64);
    pb_module(pb, "", "issue_args.Args");
    pb_at(pb, PY, 11, "forward", "return args[0] + args[1]");
    pb_node(pb, "aten.add.Tensor", "add", "self=%args_0 other=%args_1", "add");
    pb_output(pb, "add");
    return pb;
}

typedef ProgBuilder *(*IssueFixture)(bool dyn);

/* One table: every fixture, written static and dynamic. */
static const struct {
    const char *name;
    IssueFixture make;
} ISSUE_FIXTURES[] = {
    {"ne_mod", ne_mod},     {"max512", max512},     {"offbyone", offbyone}, {"view_multiple", view_multiple},
    {"max_dims", max_dims}, {"gives_up", gives_up}, {"args", args},
};

EpStatus write_issue_fixtures(const char *dir, EpError *err)
{
    for (size_t i = 0; i < EP_ARRAY_LEN(ISSUE_FIXTURES); i++)
        for (int dyn = 0; dyn < 2; dyn++) {
            ProgBuilder *pb = ISSUE_FIXTURES[i].make(dyn);
            char *path = ep_xasprintf("%s/issue_%s_%s.pt2", dir, ISSUE_FIXTURES[i].name, dyn ? "dynamic" : "static");
            PbWriteOptions opt = {.era = PB_ERA_2_11};
            EpStatus rc = pb_write(pb, path, &opt, err);
            free(path);
            pb_free(pb);
            if (rc)
                return rc;
        }
    return EP_OK;
}
