/*
** fuzz_pipeline.c -- libFuzzer harness for the whole path of `epdbg
** FILE.pt2`: the input is written to a file and opened (model_open: zip,
** layout, program JSON, weights, example inputs), described as `epdbg info`
** describes it (inputs, every node, the supported check), and run on its
** stored example inputs under a small budget.
**
** The budget keeps every input fast: archives whose weights or example
** inputs exceed MAX_BYTES are described but not run, and a run stops after
** MAX_STEPS nodes.  What a kernel allocates for a huge declared shape is
** not bounded here; libFuzzer's -rss_limit_mb reports it.
*/
#include <stdlib.h>

#include "fuzz_util.h"
#include "interp/interp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BYTES ((size_t)4 << 20)
#define MAX_STEPS 64
#define MAX_DESCRIBED 256

static size_t value_bytes(const Value *v)
{
    if (v->kind == V_TENSOR && v->t)
        return tensor_nbytes(v->t);
    size_t n = 0;
    if (v->kind == V_LIST && v->list)
        for (int i = 0; i < v->list->n; i++)
            n += value_bytes(&v->list->items[i]);
    return n;
}

static void run(Interp *ip)
{
    EpError err = {0};
    Value *vals;
    int n;
    if (interp_sample_inputs(ip, &vals, &n, &err) != EP_OK)
        return;
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += value_bytes(&vals[i]);
    if (bytes <= MAX_BYTES && interp_bind(ip, vals, n, &err) == EP_OK)
        for (int k = 0; k < MAX_STEPS && !interp_finished(ip); k++)
            if (interp_step(ip, &err) != EP_OK)
                break;
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_temp(data, size, ".pt2");
    if (!path)
        return 0;
    EpError err = {0};
    Model *m = NULL;
    if (model_open(path, NULL, &m, &err) != EP_OK)
        return 0;
    Interp *ip = interp_new(m, &INTERP_OPTIONS_DEFAULT, &err);
    if (ip) {
        free(interp_describe_inputs(ip));
        for (int i = 0; i < interp_num_nodes(ip) && i < MAX_DESCRIBED; i++)
            free(interp_describe_node(ip, i));
        EpError serr = {0};
        if (interp_check_supported(ip, &serr) == EP_OK && model_weight_bytes(m) <= MAX_BYTES)
            run(ip);
        interp_free(ip);
    }
    model_free(m);
    return 0;
}
