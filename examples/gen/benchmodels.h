/*
** benchmodels.h -- the synthetic programs bench/ measures, built with the
** generator so the benchmarks read real-format archives.
*/
#ifndef EP_BENCHMODELS_H
#define EP_BENCHMODELS_H

#include "progbuild.h"

/* A chain of `nodes` one-element float32 add/mul/sub (with Python-number
** operands) and relu nodes: nearly all of a run is dispatch. */
ProgBuilder *bench_chain_model(int nodes, PbRng *r);

#define BENCH_WIDE_WIDTH 2048
#define BENCH_WIDE_LAYERS 6

/* Six 2048x2048 float32 linear layers with ReLU (96 MiB of weights); the
** input x is [batch, 2048]. */
ProgBuilder *bench_wide_model(int batch, PbRng *r);

#endif
