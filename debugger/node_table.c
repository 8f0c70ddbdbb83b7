/*
** node_table.c -- per-node provenance (module scope, depth, stack trace)
** parsed from the exporter's metadata, and name lookups over the graph.
*/
#include "node_table.h"

#include <stdlib.h>
#include <string.h>

struct NodeTable {
    const Interp *ip; /* borrowed: names and outputs are looked up there */
    int n;
    NodeInfo *info;   /* per node */
};

NodeTable *node_table_new(const Interp *ip)
{
    NodeTable *t = ep_xcalloc(1, sizeof *t);
    t->ip = ip;
    t->n = interp_num_nodes(ip);
    t->info = ep_xcalloc((size_t)(t->n ? t->n : 1), sizeof *t->info);
    for (int i = 0; i < t->n; i++) {
        const Node *node = interp_node(ip, i);
        NodeInfo *ni = &t->info[i];
        ModuleScope *scopes;
        int ns = module_scopes_parse(node->meta.nn_module_stack, &scopes);
        if (ns > 0) {
            ni->module_path = module_path_clean(scopes[ns - 1].path);
            ni->module_type = ep_xstrdup(scopes[ns - 1].type);
            /* the root module (path "") is not a level of nesting */
            ni->depth = ns - (scopes[0].path[0] == '\0' ? 1 : 0);
        } else {
            ni->module_path = ep_xstrdup("");
            ni->module_type = ep_xstrdup("");
        }
        module_scopes_free(scopes, ns);
        ni->nframes = source_frames_parse(node->meta.stack_trace, &ni->frames);
        ni->user_frame = ni->nframes ? ni->nframes - 1 - source_user_frame(ni->frames, ni->nframes) : 0;
    }
    return t;
}

void node_table_free(NodeTable *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++) {
        free(t->info[i].module_path);
        free(t->info[i].module_type);
        source_frames_free(t->info[i].frames, t->info[i].nframes);
    }
    free(t->info);
    free(t);
}

const SourceFrame *node_info_frame(const NodeInfo *ni, int k)
{
    return k >= 0 && k < ni->nframes ? &ni->frames[ni->nframes - 1 - k] : NULL;
}

const SourceFrame *node_info_user_frame(const NodeInfo *ni)
{
    return node_info_frame(ni, ni->user_frame);
}

int node_table_count(const NodeTable *t) { return t->n; }
const NodeInfo *node_table_info(const NodeTable *t, int node) { return &t->info[node]; }

int node_table_find(const NodeTable *t, const char *name, EpError *err)
{
    const Interp *ip = t->ip;
    int n = t->n;
    if (name[0] == '#') {
        char *end;
        long i = strtol(name + 1, &end, 10);
        if (*end || end == name + 1 || i < 0 || i >= n) {
            ep_fail(err, EP_ERR_USAGE, "no node %s (the graph has nodes #0 to #%d)", name, n - 1);
            return -1;
        }
        return (int)i;
    }
    int found = -1, matches = 0;
    size_t len = strlen(name);
    for (int i = 0; i < n; i++) {
        const char *nn = interp_node(ip, i)->name;
        if (strcmp(nn, name) == 0)
            return i;
        if (strncmp(nn, name, len) == 0) {
            found = i;
            matches++;
        }
    }
    /* a value name that a node defines (an output other than its first) */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++)
            if (strcmp(interp_node_output_name(ip, i, k), name) == 0)
                return i;
    if (matches == 1)
        return found;
    if (matches > 1)
        ep_fail(err, EP_ERR_USAGE, "'%s' is ambiguous: %d nodes start with it", name, matches);
    else
        ep_fail(err, EP_ERR_USAGE, "no node named '%s' (`info graph` lists them)", name);
    return -1;
}

const char *node_table_graph_name(const NodeTable *t, const char *name, int *node)
{
    const Interp *ip = t->ip;
    *node = -1;
    const ExportedProgram *ep = interp_program(ip);
    for (int i = 0; i < ep->ninput_specs; i++) {
        const char *ph = ep->graph.inputs[i].ref;
        if (ph && strcmp(ph, name) == 0)
            return ph;
    }
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++)
            if (strcmp(interp_node_output_name(ip, i, k), name) == 0) {
                *node = i;
                return interp_node_output_name(ip, i, k);
            }
    for (int i = 0; i < ep->ninput_specs; i++)
        if (ep->input_specs[i].target && strcmp(ep->input_specs[i].target, name) == 0 && ep->graph.inputs[i].ref)
            return ep->graph.inputs[i].ref;
    /* a user input by its forward's argument name, after the graph's own
    ** names so an alias never hides a value */
    int input = interp_find_user_input(ip, name);
    if (input >= 0)
        return interp_user_input(ip, input)->name;
    for (int i = 0; i < t->n; i++)
        if (strcmp(interp_node(ip, i)->name, name) == 0) {
            *node = i;
            return interp_node_output_name(ip, i, 0);
        }
    return NULL;
}
