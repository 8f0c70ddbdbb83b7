/*
** benchmodels.c -- the programs bench/ measures (benchmodels.h).
*/
#include "benchmodels.h"

#include <stdio.h>

ProgBuilder *bench_chain_model(int nodes, PbRng *r)
{
    ProgBuilder *pb = pb_new("bench.Chain", false);
    int64_t one[1] = {1};
    Tensor *x = pb_uniform(r, DT_F32, 1, one, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    static const char *ops[4] = {"aten.add.Tensor", "aten.mul.Tensor", "aten.sub.Tensor", "aten.relu.default"};
    char name[32], prev[32] = "x";
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "v%d", i);
        const char *op = ops[i % 4];
        if (i % 4 == 3)
            pb_node(pb, op, name, pb_fmt("self=%%%s", prev), name);
        else
            pb_node(pb, op, name, pb_fmt("self=%%%s other=%s", prev, i % 4 == 1 ? "0.5" : "1.25"), name);
        snprintf(prev, sizeof prev, "%s", name);
    }
    pb_output(pb, prev);
    return pb;
}

ProgBuilder *bench_wide_model(int batch, PbRng *r)
{
    ProgBuilder *pb = pb_new("bench.Wide", false);
    int64_t ws[2] = {BENCH_WIDE_WIDTH, BENCH_WIDE_WIDTH}, bs[1] = {BENCH_WIDE_WIDTH};
    int64_t xs[2] = {batch, BENCH_WIDE_WIDTH};
    for (int l = 0; l < BENCH_WIDE_LAYERS; l++) {
        Tensor *w = pb_uniform(r, DT_F32, 2, ws, -0.02, 0.02), *b = pb_uniform(r, DT_F32, 1, bs, -0.02, 0.02);
        pb_param(pb, pb_fmt("l%d.weight", l), w);
        pb_param(pb, pb_fmt("l%d.bias", l), b);
        tensor_unref(w);
        tensor_unref(b);
    }
    Tensor *x = pb_uniform(r, DT_F32, 2, xs, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    char prev[32] = "x";
    for (int l = 0; l < BENCH_WIDE_LAYERS; l++) {
        pb_node(pb, "aten.linear.default", pb_fmt("lin%d", l),
                pb_fmt("input=%%%s weight=%%p_l%d_weight bias=%%p_l%d_bias", prev, l, l), pb_fmt("lin%d", l));
        pb_node(pb, "aten.relu.default", pb_fmt("relu%d", l), pb_fmt("self=%%lin%d", l), pb_fmt("relu%d", l));
        snprintf(prev, sizeof prev, "relu%d", l);
    }
    pb_output(pb, prev);
    return pb;
}
