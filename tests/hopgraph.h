/*
** hopgraph.h -- small programs with higher-order ops, written by hand as
** PyTorch 2.5+ serialises them, for the interpreter and profiler suites.
** Each program takes one float32 input x of shape [3].
*/
#ifndef EP_TESTS_HOPGRAPH_H
#define EP_TESTS_HOPGRAPH_H

/* A subgraph argument (as_graph) with one input "a" and one output. */
#define SUBGRAPH(name, body_nodes, out)                                                                             \
    "{\"as_graph\": {\"name\": \"" name "\", \"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"a\"}}], "       \
    "\"outputs\": [{\"as_tensor\": {\"name\": \"" out "\"}}], \"nodes\": " body_nodes ", \"tensor_values\": {}, "  \
    "\"sym_int_values\": {}, \"sym_bool_values\": {}}}}"

/* A node calling torch.ops.aten.<target> with one tensor output. */
#define TNODE(target, name, args)                                                                                   \
    "{\"target\": \"torch.ops.aten." target "\", \"inputs\": " args ", \"outputs\": [{\"as_tensor\": {\"name\": "  \
    "\"" name "\"}}], \"metadata\": {}, \"name\": \"" name "\"}"

/* Write a one-program PT2 archive around the given nodes (a JSON list),
** graph outputs and output specs, in a new temporary file (caller unlinks
** and frees the path).  A failure fails the test. */
char *hop_archive(const char *nodes, const char *outputs, const char *specs);

/* sum = x.sum(); gt = sum > 0; cond = cond(gt, a * 2 (node m), a - 1 (node
** s), [x]): three top-level nodes, the output x * 2 or x - 1. */
char *hop_cond_archive(void);

/* wl = while_loop(cond: cs = a.sum(), c = cs < 10; body: b = a * 2; [x], []);
** post = wl + 1: two top-level nodes; the body runs as long as the sum of
** the carried tensor is below 10. */
char *hop_while_archive(void);

#endif
