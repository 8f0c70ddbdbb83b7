/*
** fuzz_program.c -- libFuzzer harness for program_load_json, the decoder of
** the program JSON of every schema era (models/NAME.json of a PT2 archive,
** serialized_exported_program.json of a legacy one), fed the text directly.
**
** A program that loads is then described the way `epdbg info` and the
** debugger's `info shapes` do without weights: every node's argument
** descriptions, recorded types and symbolic ranges (shape_info).
*/
#include <stdlib.h>

#include "interp/shape_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Past this many nodes the descriptions repeat what smaller inputs test. */
#define MAX_NODES 256

static void describe(const ExportedProgram *ep)
{
    ShapeInfo *si = shape_info_new(ep);
    const Graph *g = &ep->graph;
    for (int i = 0; i < g->nnodes && i < MAX_NODES; i++) {
        const Node *n = &g->nodes[i];
        for (int k = 0; k < n->ninputs; k++)
            free(arg_describe(&n->inputs[k].arg));
        for (int k = 0; k < n->noutputs; k++) {
            free(arg_describe(&n->outputs[k]));
            if (n->outputs[k].ref)
                free(graph_recorded_type(g, n->outputs[k].ref));
        }
        if (si) {
            free(shape_info_node_types(si, n));
            free(shape_info_node_ranges(si, n));
        }
    }
    for (int i = 0; i < ep->nranges; i++) {
        char buf[96];
        range_bounds_text(&ep->ranges[i], buf, sizeof buf);
        program_find_range(ep, ep->ranges[i].expr);
    }
    shape_info_free(si);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    EpError err = {0};
    ExportedProgram *ep = NULL;
    if (program_load_json((const char *)data, size, "fuzz.json", &ep, &err) == EP_OK) {
        describe(ep);
        program_free(ep);
    }
    return 0;
}
