/*
** cost.h -- what a node's work is, from its op and its tensors' shapes:
** estimated floating-point operations and bytes moved; and what this
** machine can do: its sgemm peak (OpenBLAS) and memory bandwidth, measured
** once and cached per machine.  A profile divides the one by the other.
**
** The estimates count as the roofline literature does: a multiply-add is 2
** FLOPs (mm [M,K]x[K,N]: 2*M*N*K), convolution 2 * output elements *
** (input channels / groups) * kernel elements, elementwise one per output
** element (transcendentals too), norms and softmax a small constant per
** element; bytes are every tensor input read once plus every output
** written once.  Views and metadata ops cost 0 FLOPs and 0 bytes.
*/
#ifndef EP_COST_H
#define EP_COST_H

#include "interp/interp.h"

/* A tensor a node reads or writes, as it was when the node ran. */
typedef struct CostTensor {
    const char *arg;      /* the schema argument it came from ("self",
                          ** "weight"; borrowed), NULL for an output */
    DType dtype;
    int ndim;
    int64_t sizes[EP_MAX_DIMS];
} CostTensor;

typedef struct NodeCost {
    double flops;         /* 0: none, or not known for this op */
    double bytes;
    bool known;           /* whether the op has a FLOP rule (else flops is 0
                          ** and bytes still counts the tensors) */
} NodeCost;

/* The cost of one execution of n, whose tensor inputs were in (in the
** order of interp_node_input_name) and outputs out.  Non-tensor arguments
** (stride, padding, groups, dims) are read from n's literal arguments. */
NodeCost cost_node(const Node *n, const CostTensor *in, int nin, const CostTensor *out, int nout);

typedef struct MachinePeaks {
    double gflops;        /* float32 GEMM, GFLOP/s, at the given thread count */
    double gbps;          /* memory bandwidth (read + write), GB/s */
    char cpu[128];        /* CPU model name */
    bool cached;          /* read from the cache rather than measured now */
} MachinePeaks;

/* This machine's peaks for threads OpenBLAS threads: read from the cache
** ($XDG_CACHE_HOME/epdbg/machine or ~/.cache/epdbg/machine, keyed by CPU
** model, core type and threads), else measured (about 0.3 s) and written
** there.  The environment variable EPDBG_NO_PEAKS=1 skips both (zeros):
** tests use it.  Never fails: an unwritable cache only means measuring
** again next time. */
void machine_peaks(int threads, MachinePeaks *out);

#endif
