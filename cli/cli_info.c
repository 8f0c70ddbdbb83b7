/*
** cli_info.c -- `epdbg info MODEL.pt2 [--json] [--model NAME] [--shapes]`:
** what the archive holds, where it came from, what it takes and returns,
** whether epdbg can run every node of it, and with --shapes every node's
** symbolic shape with the ranges of its sizes (nothing is run).
*/
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/shape_info.h"

typedef struct OpCount {
    const char *target;
    int count;
    bool supported;
    const char *first_node;
    const char *problem;
} OpCount;

static int cmp_opcount(const void *a, const void *b)
{
    const OpCount *x = a, *y = b;
    if (x->count != y->count)
        return y->count - x->count;
    return strcmp(x->target, y->target);
}

/* Histogram of node targets (nodes of the top-level graph). */
static OpCount *op_histogram(const Interp *ip, int *n)
{
    StrMap idx;
    strmap_init(&idx);
    OpCount *ops = NULL;
    int nops = 0;
    for (int i = 0; i < interp_num_nodes(ip); i++) {
        const Node *node = interp_node(ip, i);
        const char *t = op_short_target(node->target);
        intptr_t k = (intptr_t)strmap_get(&idx, t);
        if (!k) {
            ops = ep_xrealloc(ops, (size_t)(nops + 1) * sizeof *ops);
            ops[nops] = (OpCount){t, 0, true, node->name, NULL};
            strmap_put(&idx, t, (void *)(intptr_t)(++nops));
            k = nops;
        }
        OpCount *c = &ops[k - 1];
        c->count++;
        const char *problem = interp_node_problem(ip, i);
        if (problem && c->supported) {
            c->supported = false;
            c->first_node = node->name;
            c->problem = problem;
        }
    }
    strmap_free(&idx, NULL);
    ep_qsort(ops, (size_t)nops, sizeof *ops, cmp_opcount);
    *n = nops;
    return ops;
}

typedef struct WeightSummary {
    int nparams, nbuffers, nconstants;
    int64_t elements;
    size_t bytes;
} WeightSummary;

static WeightSummary summarise_weights(const Interp *ip)
{
    WeightSummary w = {0};
    const ExportedProgram *ep = interp_program(ip);
    const Model *m = interp_model(ip);
    for (int i = 0; i < ep->ninput_specs; i++) {
        const InputSpec *s = &ep->input_specs[i];
        const Tensor *t = NULL; /* peeked: info reads no weight bytes */
        if (s->kind == IN_PARAMETER) {
            w.nparams++;
            t = model_weight_peek(m, s->target);
        } else if (s->kind == IN_BUFFER) {
            w.nbuffers++;
            t = model_weight_peek(m, s->target);
            if (!t)
                t = model_constant_peek(m, s->target);
        } else if (s->kind == IN_TENSOR_CONSTANT) {
            w.nconstants++;
            t = model_constant_peek(m, s->target);
        }
        if (t)
            w.elements += tensor_numel(t);
    }
    w.bytes = model_weight_bytes(m);
    return w;
}

/* The weights whose bytes are copies, and why: the first few by name. */
static void print_copies(const Model *m)
{
    enum { SHOWN = 8 };
    int ncopied = 0, nweights = m->weights.n + m->constants.n;
    const StrMap *maps[2] = {&m->weights, &m->constants};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < maps[k]->n; i++) {
            const Weight *w = maps[k]->entries[i].value;
            const char *why = model_copy_reason(m, w->t);
            if (why && ncopied++ < SHOWN)
                printf("    copied: %s: %s\n", maps[k]->entries[i].key, why);
        }
    if (ncopied > SHOWN)
        printf("    ... %d more copied\n", ncopied - SHOWN);
    if (ncopied == nweights)
        printf("    all %d weights copied into memory\n", nweights);
    else if (ncopied)
        printf("    %d of %d weights copied into memory, the others read in place\n", ncopied, nweights);
}

static const char *human_bytes(size_t n, char *buf, size_t cap)
{
    if (n < 1024)
        snprintf(buf, cap, "%zu B", n);
    else if (n < 1024 * 1024)
        snprintf(buf, cap, "%.1f KiB", (double)n / 1024);
    else if (n < (size_t)1024 * 1024 * 1024)
        snprintf(buf, cap, "%.1f MiB", (double)n / (1024 * 1024));
    else
        snprintf(buf, cap, "%.2f GiB", (double)n / (1024.0 * 1024 * 1024));
    return buf;
}

static char *schema_text(const ExportedProgram *ep)
{
    if (ep->schema_is_int)
        return ep_xasprintf("%d", ep->schema_major);
    if (ep->schema_major == 0)
        return ep_xstrdup("unknown");
    return ep_xasprintf("%d.%d", ep->schema_major, ep->schema_minor);
}

/* Describe the program of ip; heading is the first line (the file, or the
** file and the program when every program of the archive is described, in
** which case the list of programs is not repeated). */
/* The --shapes table: every node with its outputs' recorded shapes and
** the ranges of their symbolic sizes, columns aligned. */
static void print_shapes(const Interp *ip)
{
    ShapeInfo *si = shape_info_new(interp_program(ip));
    int n = interp_num_nodes(ip);
    char **types = ep_xcalloc((size_t)(n ? n : 1), sizeof *types);
    int wname = 4, wtype = 5;
    for (int i = 0; i < n; i++) {
        types[i] = shape_info_node_types(si, interp_node(ip, i));
        int ln = (int)strlen(interp_node(ip, i)->name), lt = (int)strlen(types[i]);
        wname = ln > wname ? (ln < 40 ? ln : 40) : wname;
        wtype = lt > wtype ? (lt < 60 ? lt : 60) : wtype;
    }
    printf("  shapes      %d node%s (recorded at export; ranges from the range constraints)\n", n, n == 1 ? "" : "s");
    printf("    %-*s %-*s %s\n", wname, "node", wtype, "shape", "ranges");
    for (int i = 0; i < n; i++) {
        char *ranges = shape_info_node_ranges(si, interp_node(ip, i));
        if (*ranges)
            printf("    %-*s %-*s %s\n", wname, interp_node(ip, i)->name, wtype, types[i], ranges);
        else
            printf("    %-*s %s\n", wname, interp_node(ip, i)->name, types[i]);
        free(ranges);
        free(types[i]);
    }
    free(types);
    shape_info_free(si);
}

/* A range bound as JSON: a number, or null for -inf / inf. */
static cJSON *bound_json(int64_t v)
{
    return v == SYM_RANGE_NEG_INF || v == SYM_RANGE_POS_INF ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

/* One recorded size or SymInt: its text (a number for a literal) and its
** range [min, max] (null: unbounded or unreadable), pushed on shape and
** ranges. */
static void dim_json(ShapeInfo *si, const SymDim *d, bool is_size, cJSON *shape, cJSON *ranges)
{
    if (d->is_expr) {
        char *t = d->parsed ? sym_to_string(d->parsed) : NULL;
        cJSON_AddItemToArray(shape, cJSON_CreateString(t ? t : d->expr));
        free(t);
    } else {
        cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)d->value));
    }
    SymRange r;
    if (!shape_info_dim_range(si, d, is_size, &r)) {
        cJSON_AddItemToArray(ranges, cJSON_CreateNull());
        return;
    }
    cJSON *pair = cJSON_CreateArray();
    cJSON_AddItemToArray(pair, bound_json(r.lo));
    cJSON_AddItemToArray(pair, bound_json(r.hi));
    cJSON_AddItemToArray(ranges, pair);
}

/* "shapes": [{"node", "op", "outputs": [{"name", "type", "dtype", "shape",
** "ranges"}]}] -- shape and ranges parallel, one entry per dimension (a
** SymInt output: one entry) -- and "unbacked": {"u0": {"min", "max",
** "node"}}. */
static void shapes_json(const Interp *ip, cJSON *o)
{
    const ExportedProgram *ep = interp_program(ip);
    const Graph *g = &ep->graph;
    ShapeInfo *si = shape_info_new(ep);
    cJSON *arr = cJSON_AddArrayToObject(o, "shapes");
    cJSON *unbacked = cJSON_AddObjectToObject(o, "unbacked");
    for (int i = 0; i < interp_num_nodes(ip); i++) {
        const Node *node = interp_node(ip, i);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "node", node->name);
        cJSON_AddStringToObject(e, "op", op_short_target(node->target));
        cJSON *outs = cJSON_AddArrayToObject(e, "outputs");
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
            const char *name = interp_node_output_name(ip, i, k);
            cJSON *v = cJSON_CreateObject();
            cJSON_AddStringToObject(v, "name", name);
            char *type = shape_info_value_type(si, name);
            if (type)
                cJSON_AddStringToObject(v, "type", type);
            else
                cJSON_AddNullToObject(v, "type");
            free(type);
            const TensorMeta *m = graph_tensor_meta(g, name);
            const SymDim *sd = m ? NULL : strmap_get(&g->sym_int_values, name);
            if (m || sd) {
                if (m)
                    cJSON_AddStringToObject(v, "dtype", scalar_type_name(m->scalar_type));
                cJSON *shape = cJSON_AddArrayToObject(v, m ? "shape" : "value");
                cJSON *ranges = cJSON_AddArrayToObject(v, "ranges");
                for (int d = 0; d < (m ? m->ndim : 1); d++)
                    dim_json(si, m ? &m->sizes[d] : sd, m != NULL, shape, ranges);
            }
            cJSON_AddItemToArray(outs, v);
        }
        cJSON_AddItemToArray(arr, e);
    }
    for (int k = 0; k < shape_info_num_unbacked(si); k++) {
        int p;
        const char *sym = shape_info_unbacked(si, k, &p);
        SymRange r = {SYM_RANGE_NEG_INF, SYM_RANGE_POS_INF}; /* a SymInt from data: any integer */
        sym_ranges_get(shape_info_ranges(si), sym, &r);
        cJSON *u = cJSON_CreateObject();
        cJSON_AddItemToObject(u, "min", bound_json(r.lo));
        cJSON_AddItemToObject(u, "max", bound_json(r.hi));
        cJSON_AddStringToObject(u, "node", g->nodes[p].name);
        cJSON_AddItemToObject(unbacked, sym, u);
    }
    shape_info_free(si);
}

static void print_text(const Interp *ip, const char *heading, bool all_programs, bool shapes)
{
    const Model *m = interp_model(ip);
    const ExportedProgram *ep = interp_program(ip);
    char buf[64];
    printf("%s\n", heading);
    printf("  format      %s%s%s%s\n", m->layout, m->is_pt2 ? ", program \"" : "", m->is_pt2 ? m->name : "",
           m->is_pt2 ? "\"" : "");
    if (m->nmodels > 1 && !all_programs) {
        printf("  programs    ");
        for (int i = 0; i < m->nmodels; i++)
            printf("%s%s", i ? ", " : "", m->models[i]);
        printf("  (choose with --model NAME)\n");
    }
    char *schema = schema_text(ep);
    printf("  written by  PyTorch %s, schema %s%s%s\n", ep->torch_version ? ep->torch_version : "(not recorded)",
           schema, ep->dialect ? ", dialect " : "", ep->dialect ? ep->dialect : "");
    free(schema);
    WeightSummary w = summarise_weights(ip);
    printf("  inputs      %d user, %d parameter%s, %d buffer%s, %d constant%s\n", interp_num_user_inputs(ip),
           w.nparams, w.nparams == 1 ? "" : "s", w.nbuffers, w.nbuffers == 1 ? "" : "s", w.nconstants,
           w.nconstants == 1 ? "" : "s");
    char *desc = interp_describe_inputs(ip);
    for (char *line = strtok(desc, "\n"); line; line = strtok(NULL, "\n"))
        printf("  %s\n", line); /* under "inputs", as the outputs are */
    free(desc);
    printf("  outputs     %d user output%s", interp_num_user_outputs(ip), interp_num_user_outputs(ip) == 1 ? "" : "s");
    int nmut = 0;
    for (int i = 0; i < ep->noutput_specs; i++)
        if (ep->output_specs[i].kind != OUT_USER_OUTPUT)
            nmut++;
    if (nmut)
        printf(", %d mutation%s", nmut, nmut == 1 ? "" : "s");
    printf("\n");
    for (int i = 0; i < ep->noutput_specs; i++) {
        const OutputSpec *s = &ep->output_specs[i];
        char *t = interp_describe_value(ip, &ep->graph.outputs[i]);
        if (s->kind == OUT_USER_OUTPUT)
            printf("    %s: %s\n", ep->graph.outputs[i].ref ? ep->graph.outputs[i].ref : "(literal)", t);
        else
            printf("    %s %s <- %s: %s\n", output_kind_name(s->kind), s->target ? s->target : "",
                   ep->graph.outputs[i].ref ? ep->graph.outputs[i].ref : "?", t);
        free(t);
    }
    printf("  weights     %lld elements, %s%s\n", (long long)w.elements, human_bytes(w.bytes, buf, sizeof buf),
           w.bytes && m->weights_in_place ? " (read in place from the archive)" : "");
    print_copies(m);
    if (ep->nranges) {
        printf("  ranges      ");
        for (int i = 0; i < ep->nranges; i++) {
            const RangeConstraint *r = &ep->ranges[i];
            char *e = r->parsed ? sym_to_string(r->parsed) : NULL;
            char range[80];
            printf("%s%s in %s", i ? ", " : "", e ? e : r->expr, range_bounds_text(r, range, sizeof range));
            free(e);
        }
        printf("\n");
    }
    printf("  examples    %s\n", m->sample_inputs ? "stored in the archive" : "none stored (pass --input files)");
    if (m->nextra) {
        printf("  extra files ");
        for (int i = 0; i < m->nextra; i++)
            printf("%s%s", i ? ", " : "", m->extra_files[i]);
        printf("\n");
    }
    int nops;
    OpCount *ops = op_histogram(ip, &nops);
    printf("  nodes       %d, %d distinct op%s\n", interp_num_nodes(ip), nops, nops == 1 ? "" : "s");
    int nbad = 0;
    for (int i = 0; i < nops; i++) {
        printf("    %5d  %s\n", ops[i].count, ops[i].target);
        nbad += !ops[i].supported;
    }
    if (nbad) {
        printf("  unsupported\n");
        for (int i = 0; i < nops; i++)
            if (!ops[i].supported)
                printf("    %s (first at node %s): %s\n", ops[i].target, ops[i].first_node, ops[i].problem);
    } else {
        printf("  unsupported none: every node can run\n");
    }
    free(ops);
    if (shapes)
        print_shapes(ip);
}

static cJSON *info_json(const Interp *ip, bool shapes)
{
    const Model *m = interp_model(ip);
    const ExportedProgram *ep = interp_program(ip);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", m->path);
    cJSON_AddStringToObject(o, "layout", m->is_pt2 ? "pt2" : "legacy");
    cJSON_AddStringToObject(o, "layout_description", m->layout);
    if (m->is_pt2)
        cJSON_AddStringToObject(o, "program", m->name);
    cJSON *progs = cJSON_AddArrayToObject(o, "programs");
    for (int i = 0; i < m->nmodels; i++)
        cJSON_AddItemToArray(progs, cJSON_CreateString(m->models[i]));
    if (ep->torch_version)
        cJSON_AddStringToObject(o, "torch_version", ep->torch_version);
    else
        cJSON_AddNullToObject(o, "torch_version");
    char *schema = schema_text(ep);
    cJSON_AddStringToObject(o, "schema_version", schema);
    free(schema);
    if (ep->dialect)
        cJSON_AddStringToObject(o, "dialect", ep->dialect);
    cJSON *ins = cJSON_AddArrayToObject(o, "inputs");
    for (int i = 0; i < ep->ninput_specs; i++) {
        const InputSpec *s = &ep->input_specs[i];
        const Arg *ph = &ep->graph.inputs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "kind", input_kind_name(s->kind));
        cJSON_AddStringToObject(e, "name", ph->ref ? ph->ref : (s->name ? s->name : ""));
        if (s->target)
            cJSON_AddStringToObject(e, "target", s->target);
        const TensorMeta *tm = ph->ref ? graph_tensor_meta(&ep->graph, ph->ref) : NULL;
        if (tm) {
            cJSON_AddStringToObject(e, "dtype", scalar_type_name(tm->scalar_type));
            cJSON *shape = cJSON_AddArrayToObject(e, "shape");
            for (int d = 0; d < tm->ndim; d++) {
                if (tm->sizes[d].is_expr) {
                    char *t = tm->sizes[d].parsed ? sym_to_string(tm->sizes[d].parsed) : NULL;
                    cJSON_AddItemToArray(shape, cJSON_CreateString(t ? t : tm->sizes[d].expr));
                    free(t);
                } else {
                    cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)tm->sizes[d].value));
                }
            }
        } else {
            cJSON_AddStringToObject(e, "value_kind", arg_kind_name(ph->kind));
        }
        cJSON_AddItemToArray(ins, e);
    }
    cJSON *outs = cJSON_AddArrayToObject(o, "outputs");
    for (int i = 0; i < ep->noutput_specs; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "kind", output_kind_name(ep->output_specs[i].kind));
        if (ep->graph.outputs[i].ref)
            cJSON_AddStringToObject(e, "name", ep->graph.outputs[i].ref);
        if (ep->output_specs[i].target)
            cJSON_AddStringToObject(e, "target", ep->output_specs[i].target);
        char *t = interp_describe_value(ip, &ep->graph.outputs[i]);
        cJSON_AddStringToObject(e, "value", t);
        free(t);
        cJSON_AddItemToArray(outs, e);
    }
    cJSON *ranges = cJSON_AddObjectToObject(o, "range_constraints");
    for (int i = 0; i < ep->nranges; i++) {
        cJSON *r = cJSON_CreateObject();
        if (ep->ranges[i].has_min)
            cJSON_AddNumberToObject(r, "min", (double)ep->ranges[i].min);
        else
            cJSON_AddNullToObject(r, "min");
        if (ep->ranges[i].has_max)
            cJSON_AddNumberToObject(r, "max", (double)ep->ranges[i].max);
        else
            cJSON_AddNullToObject(r, "max");
        cJSON_AddItemToObject(ranges, ep->ranges[i].expr, r);
    }
    WeightSummary w = summarise_weights(ip);
    cJSON *wj = cJSON_AddObjectToObject(o, "weights");
    cJSON_AddNumberToObject(wj, "parameters", w.nparams);
    cJSON_AddNumberToObject(wj, "buffers", w.nbuffers);
    cJSON_AddNumberToObject(wj, "constants", w.nconstants);
    cJSON_AddNumberToObject(wj, "elements", (double)w.elements);
    cJSON_AddNumberToObject(wj, "bytes", (double)w.bytes);
    cJSON_AddBoolToObject(wj, "in_place", m->weights_in_place);
    cJSON *copied = cJSON_AddObjectToObject(wj, "copied"); /* FQN -> why */
    const StrMap *maps[2] = {&m->weights, &m->constants};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < maps[k]->n; i++) {
            const Weight *wt = maps[k]->entries[i].value;
            const char *why = model_copy_reason(m, wt->t);
            if (why)
                cJSON_AddStringToObject(copied, maps[k]->entries[i].key, why);
        }
    cJSON_AddBoolToObject(o, "sample_inputs", m->sample_inputs != NULL);
    cJSON_AddNumberToObject(o, "nodes", interp_num_nodes(ip));
    int nops;
    OpCount *ops = op_histogram(ip, &nops);
    cJSON *hist = cJSON_AddObjectToObject(o, "ops");
    cJSON *bad = cJSON_AddArrayToObject(o, "unsupported");
    for (int i = 0; i < nops; i++) {
        cJSON_AddNumberToObject(hist, ops[i].target, ops[i].count);
        if (!ops[i].supported) {
            cJSON *b = cJSON_CreateObject();
            cJSON_AddStringToObject(b, "target", ops[i].target);
            cJSON_AddStringToObject(b, "first_node", ops[i].first_node);
            cJSON_AddStringToObject(b, "reason", ops[i].problem);
            cJSON_AddItemToArray(bad, b);
        }
    }
    free(ops);
    if (shapes)
        shapes_json(ip, o);
    return o;
}

static void print_json(cJSON *o)
{
    char *text = cJSON_Print(o);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(o);
}

typedef struct InfoOptions {
    bool json;   /* --json */
    bool shapes; /* --shapes */
} InfoOptions;

/* Open program name (NULL: the archive's one) of path and describe it: as
** text under heading, or as JSON added to json_models (printed alone when
** that is NULL).  Returns the exit code. */
static int describe_program(const char *path, const char *name, const InfoOptions *o, const char *heading,
                            bool all_programs, cJSON *json_models)
{
    EpError err = {0};
    Model *m;
    EpStatus rc = model_open(path, name, &m, &err);
    if (rc) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        return rc;
    }
    Interp *ip = interp_new(m, NULL, &err);
    if (!ip) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        model_free(m);
        return err.code ? err.code : EP_ERR_FORMAT;
    }
    if (!o->json)
        print_text(ip, heading, all_programs, o->shapes);
    else if (json_models)
        cJSON_AddItemToArray(json_models, info_json(ip, o->shapes));
    else
        print_json(info_json(ip, o->shapes));
    interp_free(ip);
    model_free(m);
    return EP_OK;
}

/* Every program of an archive that holds several, in archive order, each
** under its name: text blocks after a line listing them, or one JSON object
** {"path", "programs", "models": [one object per program]}. */
static int describe_every_program(const char *path, char **names, int n, const InfoOptions *o)
{
    cJSON *top = NULL, *models = NULL;
    if (o->json) {
        top = cJSON_CreateObject();
        cJSON_AddStringToObject(top, "path", path);
        cJSON *progs = cJSON_AddArrayToObject(top, "programs");
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(progs, cJSON_CreateString(names[i]));
        models = cJSON_AddArrayToObject(top, "models");
    } else {
        printf("%s: %d programs (", path, n);
        for (int i = 0; i < n; i++)
            printf("%s%s", i ? ", " : "", names[i]);
        printf("), each described below; --model NAME describes one\n");
    }
    int rc = EP_OK;
    for (int i = 0; i < n && rc == EP_OK; i++) {
        char *heading = ep_xasprintf("\n%s, program \"%s\" (%d of %d)", path, names[i], i + 1, n);
        rc = describe_program(path, names[i], o, heading, true, models);
        free(heading);
    }
    if (top && rc == EP_OK)
        print_json(top);
    else
        cJSON_Delete(top);
    return rc;
}

static const char INFO_USAGE[] =
    "usage: epdbg info MODEL.pt2 [--json] [--model NAME] [--shapes]\n"
    "  what the archive holds: format, inputs, outputs, weights, ops, unsupported ops\n"
    "  --json        the same as one JSON object\n"
    "  --model NAME  one program of an archive that holds several (default: all of them)\n"
    "  --shapes      also every node's symbolic output shape and the range of each\n"
    "                symbolic size, from the range constraints, without running\n";

int cli_info(int argc, char **argv)
{
    const char *path = NULL, *model_name = NULL;
    InfoOptions o = {0};
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            o.json = true;
        } else if (strcmp(argv[i], "--shapes") == 0) {
            o.shapes = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(INFO_USAGE, stdout);
            return EP_OK;
        } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
            model_name = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "epdbg info: unknown option %s\n%s", argv[i], INFO_USAGE);
            return EP_ERR_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "epdbg info: one model at a time (got %s and %s)\n", path, argv[i]);
            return EP_ERR_USAGE;
        }
    }
    if (!path) {
        fputs(INFO_USAGE, stderr);
        return EP_ERR_USAGE;
    }
    if (model_name)
        return describe_program(path, model_name, &o, path, false, NULL);
    EpError err = {0};
    char **names;
    int n;
    EpStatus rc = model_list_programs(path, &names, &n, &err);
    if (rc) {
        fprintf(stderr, "epdbg: %s\n", err.msg);
        return rc;
    }
    int code = n > 1 ? describe_every_program(path, names, n, &o)
                     : describe_program(path, NULL, &o, path, false, NULL);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return code;
}
