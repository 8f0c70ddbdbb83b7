/*
** cmd_graph.c -- what the program is and where its shapes stand: info
** node, info args, info shapes, info symbols, info signature, info graph,
** `why`: what constrains one size, and `suggest`: the dynamic_shapes the
** program can be exported with, for the session's inputs.
*/
#include "cmd_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "interp/guards.h"
#include "interp/shape_info.h"
#include "interp/shape_prop.h"
#include "interp/srcinfo.h"
#include "interp/suggest.h"

/* "float32[s0, 32]" from the exporter's record of a value, or NULL. */
static char *recorded_type(const Interp *ip, const char *name)
{
    return graph_recorded_type(&interp_program(ip)->graph, name);
}

/* "linear_1 = float32[2, 32]  min ..." or "linear_1 (not computed)". */
static void print_ref(CmdCtx *c, const char *indent, const char *label, const char *name)
{
    const Value *v = interp_value(session_interp(c->s), name);
    if (!v) {
        out_printf(c->out, "%s%s%s (not computed)\n", indent, label, name);
        return;
    }
    char *d = format_value_stats(v);
    out_printf(c->out, "%s%s%s: %s\n", indent, label, name, d);
    free(d);
}

/* Each reference inside an argument (lists flattened), or its literal. */
static void print_arg_refs(CmdCtx *c, const Arg *a, const char *label, bool *any)
{
    bool is_ref = a->ref && (a->kind == ARG_TENSOR || a->kind == ARG_SYM_INT || a->kind == ARG_SYM_FLOAT ||
                             a->kind == ARG_SYM_BOOL);
    if (is_ref) {
        print_ref(c, "      ", label, a->ref);
        *any = true;
    }
    for (int j = 0; j < a->n; j++)
        print_arg_refs(c, &a->items[j], label, any);
}

static void print_inputs(CmdCtx *c, int node)
{
    const Node *n = interp_node(session_interp(c->s), node);
    for (int k = 0; k < n->ninputs; k++) {
        const NamedArg *na = &n->inputs[k];
        char *d = arg_describe(&na->arg);
        out_printf(c->out, "    %s = %s\n", na->name[0] ? na->name : "(operand)", d);
        free(d);
        bool any = false;
        print_arg_refs(c, &na->arg, "", &any);
    }
}

static void print_outputs(CmdCtx *c, int node)
{
    const Interp *ip = session_interp(c->s);
    for (int k = 0; k < interp_node_num_outputs(ip, node); k++) {
        const char *name = interp_node_output_name(ip, node, k);
        char *rec = recorded_type(ip, name);
        char label[256];
        snprintf(label, sizeof label, "%s%s", rec ? rec : "", rec ? " -> " : "");
        free(rec);
        const Value *v = interp_value(ip, name);
        if (!v) {
            out_printf(c->out, "    %s: %s(not computed)\n", name, label);
            continue;
        }
        char *d = format_value_stats(v);
        out_printf(c->out, "    %s: %s%s\n", name, label, d);
        free(d);
    }
}

static EpStatus info_node(CmdCtx *c, const char *args, EpError *err)
{
    int node;
    EpStatus rc = cmd_node_or_current(c, args, &node, err);
    if (rc)
        return rc;
    const Interp *ip = session_interp(c->s);
    const Node *n = interp_node(ip, node);
    const NodeInfo *ni = session_node_info(c->s, node);
    bool ran = node < interp_pc(ip) || interp_finished(ip);
    out_printf(c->out, "Node #%d '%s': %s (%s)\n", node, n->name, op_short_target(n->target), ran ? "has run" : "not run yet");
    const SourceFrame *f = node_info_user_frame(ni);
    if (f) {
        out_printf(c->out, "  source    %s:%d in %s%s%s\n", f->file, f->line, f->func, f->code ? ": " : "",
                   f->code ? f->code : "");
    }
    if (ni->module_path[0] || ni->module_type[0])
        out_printf(c->out, "  module    %s (%s)\n", ni->module_path[0] ? ni->module_path : "(top level)",
                   ni->module_type);
    const char *problem = interp_node_problem(ip, node);
    if (problem)
        out_printf(c->out, "  cannot run: %s\n", problem);
    if (interp_node_mutates(ip, node))
        out_puts(c->out, "  writes into its input (an in-place op)\n");
    out_puts(c->out, "  arguments\n");
    print_inputs(c, node);
    out_puts(c->out, "  outputs\n");
    print_outputs(c, node);
    const NodeMeta *m = &n->meta;
    if (m->source_fn_stack || m->torch_fn || m->nextra) {
        out_puts(c->out, "  metadata\n");
        if (m->source_fn_stack)
            out_printf(c->out, "    source_fn_stack  %s\n", m->source_fn_stack);
        if (m->torch_fn)
            out_printf(c->out, "    torch_fn         %s\n", m->torch_fn);
        for (int i = 0; i < m->nextra; i++)
            out_printf(c->out, "    %-16s %s\n", m->extra_keys[i], m->extra_values[i]);
    }
    return EP_OK;
}

static EpStatus info_args(CmdCtx *c, const char *args, EpError *err)
{
    int node;
    EpStatus rc = cmd_node_or_current(c, args, &node, err);
    if (rc)
        return rc;
    char *line = cmd_node_line(c->s, node);
    out_printf(c->out, "%s\n", line);
    free(line);
    print_inputs(c, node);
    return EP_OK;
}

/* Width of a text column that holds name: at least w, wide enough for
** name up to a limit (a very long name overflows rather than pushing
** every other row off the screen). */
static int column_width(int w, const char *name)
{
    int len = name ? (int)strlen(name) : 0;
    if (len > 60)
        len = 60;
    return len > w ? len : w;
}

/* What value v is now, shortly: "float32[4, 32]" for a tensor, its
** statistics for anything else; "(not computed)" when v is NULL. */
static char *now_text(const Value *v)
{
    if (!v)
        return ep_xstrdup("(not computed)");
    if (v->kind == V_TENSOR) {
        char shape[480];
        return ep_xasprintf("%s%s", dtype_name(v->t->dtype), shape_str(v->t->ndim, v->t->sizes, shape, sizeof shape));
    }
    return format_value_stats(v);
}

/* Print row (taken: freed here) as one line without the blanks a
** left-aligned last column leaves when the row has no ranges. */
static void put_row(CmdCtx *c, char *row)
{
    size_t len = strlen(row);
    while (len && row[len - 1] == ' ')
        row[--len] = '\0';
    out_printf(c->out, "%s\n", row);
    free(row);
}

/* One row of `info shapes NODE`: a value's recorded (symbolic) type, its
** type now and the ranges of its symbolic sizes. */
typedef struct ShapeRow {
    char label[16];
    const char *name;
    char *recorded, *now, *ranges;
} ShapeRow;

static void shape_row(CmdCtx *c, ShapeInfo *si, ShapeRow *row, const char *label, int k, const char *name)
{
    snprintf(row->label, sizeof row->label, "%s%d", label, k);
    row->name = name;
    row->recorded = shape_info_value_type(si, name);
    row->now = now_text(interp_value(session_interp(c->s), name));
    StrBuf sb;
    sb_init(&sb);
    ShapeSeen seen = {0};
    shape_info_value_ranges(si, name, &seen, &sb);
    shape_info_seen_free(&seen);
    row->ranges = sb_take(&sb);
}

static void print_symbols(CmdCtx *c, const char *indent)
{
    const SymBindings *b = interp_symbols(session_interp(c->s));
    const ExportedProgram *ep = interp_program(session_interp(c->s));
    for (int i = 0; i < b->n; i++) {
        out_printf(c->out, "%s%s = %lld", indent, b->items[i].name, (long long)b->items[i].value);
        int r = program_find_range(ep, b->items[i].name);
        char range[80];
        if (r >= 0)
            out_printf(c->out, "  (range %s)", range_bounds_text(&ep->ranges[r], range, sizeof range));
        out_puts(c->out, "\n");
    }
}

/* `info shapes NODE`: the node's inputs and outputs, each with its
** recorded shape, its shape now and the range of every symbolic size. */
static EpStatus node_shapes(CmdCtx *c, const char *args, EpError *err)
{
    int node;
    EpStatus rc = cmd_node_or_current(c, args, &node, err);
    if (rc)
        return rc;
    const Interp *ip = session_interp(c->s);
    char *line = cmd_node_line(c->s, node);
    out_printf(c->out, "%s\n", line);
    free(line);
    ShapeInfo *si = shape_info_new(interp_program(ip));
    int nin = interp_node_num_inputs(ip, node), nout = interp_node_num_outputs(ip, node);
    ShapeRow *rows = ep_xcalloc((size_t)(nin + nout + 1), sizeof *rows);
    for (int k = 0; k < nin; k++)
        shape_row(c, si, &rows[k], "in", k, interp_node_input_name(ip, node, k, NULL));
    for (int k = 0; k < nout; k++)
        shape_row(c, si, &rows[nin + k], "out", k, interp_node_output_name(ip, node, k));
    int namew = 20, recw = 24, noww = 16;
    for (int k = 0; k < nin + nout; k++) {
        namew = column_width(namew, rows[k].name);
        recw = column_width(recw, rows[k].recorded);
        noww = column_width(noww, rows[k].now);
    }
    out_printf(c->out, "  %-5s %-*s %-*s %-*s %s\n", "", namew, "value", recw, "recorded", noww, "now", "ranges");
    for (int k = 0; k < nin + nout; k++) {
        const ShapeRow *r = &rows[k];
        char *row = ep_xasprintf("  %-5s %-*s %-*s %-*s %s", r->label, namew, r->name, recw,
                                 r->recorded ? r->recorded : "(no record)", noww, r->now, r->ranges);
        put_row(c, row);
        free(rows[k].recorded);
        free(rows[k].now);
        free(rows[k].ranges);
    }
    free(rows);
    shape_info_free(si);
    if (interp_symbols(ip)->n) {
        out_puts(c->out, "  symbols\n");
        print_symbols(c, "    ");
    }
    return EP_OK;
}

/* `info shapes`: every node of the program on one line -- its outputs'
** recorded shapes, their shapes now and the ranges of their symbolic
** sizes.  Linear in the graph: the ranges of recurring expressions are
** cached by shape_info. */
static EpStatus info_shapes(CmdCtx *c, const char *args, EpError *err)
{
    if (*args)
        return node_shapes(c, args, err);
    const Interp *ip = session_interp(c->s);
    int n = session_num_nodes(c->s);
    ShapeInfo *si = shape_info_new(interp_program(ip));
    char **recorded = ep_xcalloc((size_t)(n ? n : 1), sizeof *recorded);
    char **now = ep_xcalloc((size_t)(n ? n : 1), sizeof *now);
    int wname = 4, wrec = 8, wnow = 3;
    for (int i = 0; i < n; i++) {
        const Node *node = interp_node(ip, i);
        recorded[i] = shape_info_node_types(si, node);
        StrBuf sb;
        sb_init(&sb);
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
            const Value *v = interp_value(ip, interp_node_output_name(ip, i, k));
            char *t = v ? now_text(v) : ep_xstrdup("-");
            sb_printf(&sb, "%s%s", k ? ", " : "", t);
            free(t);
        }
        if (!sb.len)
            sb_append(&sb, "-"); /* a node with no outputs */
        now[i] = sb_take(&sb);
        wname = column_width(wname, node->name);
        wrec = column_width(wrec, recorded[i]);
        wnow = column_width(wnow, now[i]);
    }
    int pc = interp_bound(ip) && !interp_finished(ip) ? interp_pc(ip) : -1;
    out_printf(c->out, "    %-6s %-*s %-*s %-*s %s\n", "#", wname, "node", wrec, "recorded", wnow, "now", "ranges");
    for (int i = 0; i < n; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", i);
        char *ranges = shape_info_node_ranges(si, interp_node(ip, i));
        char *row = ep_xasprintf("%s  %-6s %-*s %-*s %-*s %s", i == pc ? "=>" : "  ", idx, wname,
                                 interp_node(ip, i)->name, wrec, recorded[i], wnow, now[i], ranges);
        put_row(c, row);
        free(ranges);
        free(recorded[i]);
        free(now[i]);
    }
    free(recorded);
    free(now);
    shape_info_free(si);
    return EP_OK;
}

static EpStatus info_symbols(CmdCtx *c, const char *args, EpError *err)
{
    (void)args;
    (void)err;
    const Interp *ip = session_interp(c->s);
    const ExportedProgram *ep = interp_program(ip);
    if (interp_symbols(ip)->n == 0 && ep->nranges == 0) {
        out_puts(c->out, "No symbols: every shape is static.\n");
        return EP_OK;
    }
    print_symbols(c, "");
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *r = &ep->ranges[i];
        char *e = r->parsed ? sym_to_string(r->parsed) : ep_xstrdup(r->expr);
        int64_t v;
        if (!sym_bindings_get(interp_symbols(ip), e, &v))
            out_printf(c->out, "%s not bound yet\n", e);
        free(e);
    }
    return EP_OK;
}

static EpStatus info_signature(CmdCtx *c, const char *args, EpError *err)
{
    (void)args;
    (void)err;
    const ExportedProgram *ep = interp_program(session_interp(c->s));
    int namew = 24, targetw = 24;
    for (int i = 0; i < ep->ninput_specs; i++) {
        namew = column_width(namew, ep->graph.inputs[i].ref);
        targetw = column_width(targetw, ep->input_specs[i].target ? ep->input_specs[i].target
                                                                  : ep->input_specs[i].name);
    }
    for (int i = 0; i < ep->noutput_specs; i++) {
        namew = column_width(namew, ep->graph.outputs[i].ref);
        targetw = column_width(targetw, ep->output_specs[i].target);
    }
    out_puts(c->out, "inputs\n");
    for (int i = 0; i < ep->ninput_specs; i++) {
        const InputSpec *s = &ep->input_specs[i];
        const Arg *a = &ep->graph.inputs[i];
        char *type = a->ref ? recorded_type(session_interp(c->s), a->ref) : NULL;
        char *d = type ? type : arg_describe(a);
        out_printf(c->out, "  %-*s %-19s %-*s %s\n", namew, a->ref ? a->ref : "(none)", input_kind_name(s->kind),
                   targetw, s->target ? s->target : s->name ? s->name : "", d);
        free(d);
    }
    out_puts(c->out, "outputs\n");
    for (int i = 0; i < ep->noutput_specs; i++) {
        const OutputSpec *s = &ep->output_specs[i];
        const Arg *a = &ep->graph.outputs[i];
        char *type = a->ref ? recorded_type(session_interp(c->s), a->ref) : NULL;
        char *d = type ? type : arg_describe(a);
        out_printf(c->out, "  %-*s %-19s %-*s %s\n", namew, a->ref ? a->ref : "(literal)",
                   output_kind_name(s->kind), targetw, s->target ? s->target : "", d);
        free(d);
    }
    if (ep->nranges) {
        out_puts(c->out, "ranges\n");
        for (int i = 0; i < ep->nranges; i++) {
            const RangeConstraint *r = &ep->ranges[i];
            char *e = r->parsed ? sym_to_string(r->parsed) : ep_xstrdup(r->expr);
            char range[80];
            out_printf(c->out, "  %s in %s\n", e, range_bounds_text(r, range, sizeof range));
            free(e);
        }
    }
    return EP_OK;
}

/* The recorded types of a node's outputs, comma separated. */
static char *node_output_types(const Interp *ip, int node)
{
    StrBuf sb;
    sb_init(&sb);
    int n = interp_node_num_outputs(ip, node);
    for (int k = 0; k < n; k++) {
        char *t = recorded_type(ip, interp_node_output_name(ip, node, k));
        if (!t) {
            const char *name = interp_node_output_name(ip, node, k);
            const Graph *g = &interp_program(ip)->graph;
            t = ep_xstrdup(strmap_get(&g->sym_int_values, name) ? "SymInt" : "-");
        }
        sb_printf(&sb, "%s%s", k ? ", " : "", t);
        free(t);
    }
    if (n == 0)
        sb_append(&sb, "-");
    return sb_take(&sb);
}

static EpStatus info_graph(CmdCtx *c, const char *args, EpError *err)
{
    pcre2_code *re = NULL;
    size_t alen = strlen(args);
    if (alen) {
        if (alen < 2 || args[0] != '/' || args[alen - 1] != '/')
            return ep_fail(err, EP_ERR_USAGE, "usage: info graph [/REGEX/]");
        int code;
        PCRE2_SIZE offset;
        re = pcre2_compile((PCRE2_SPTR)args + 1, alen - 2, 0, &code, &offset, NULL);
        if (!re) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof msg);
            return ep_fail(err, EP_ERR_USAGE, "bad regular expression %s: %s at offset %zu", args, (char *)msg,
                           (size_t)offset);
        }
    }
    const Interp *ip = session_interp(c->s);
    int n = session_num_nodes(c->s);
    pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
    bool *show = ep_xcalloc((size_t)(n ? n : 1), sizeof *show);
    char **types = ep_xcalloc((size_t)(n ? n : 1), sizeof *types);
    int wname = 4, wop = 2, wtype = 5, shown = 0;
    for (int i = 0; i < n; i++) {
        const Node *node = interp_node(ip, i);
        const char *op = op_short_target(node->target);
        show[i] = !re || pcre2_match(re, (PCRE2_SPTR)node->name, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0 ||
                  pcre2_match(re, (PCRE2_SPTR)op, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0;
        if (!show[i])
            continue;
        shown++;
        types[i] = node_output_types(ip, i);
        int ln = (int)strlen(node->name), lo = (int)strlen(op), lt = (int)strlen(types[i]);
        wname = ln > wname ? (ln < 40 ? ln : 40) : wname;
        wop = lo > wop ? (lo < 40 ? lo : 40) : wop;
        wtype = lt > wtype ? (lt < 40 ? lt : 40) : wtype;
    }
    int pc = interp_bound(ip) && !interp_finished(ip) ? interp_pc(ip) : -1;
    out_printf(c->out, "    %-6s %-*s %-*s %-*s %s\n", "#", wname, "node", wop, "op", wtype, "shape", "module");
    for (int i = 0; i < n; i++) {
        if (!show[i])
            continue;
        const Node *node = interp_node(ip, i);
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", i);
        out_printf(c->out, "%s  %-6s %-*s %-*s %-*s %s\n", i == pc ? "=>" : "  ", idx, wname, node->name, wop,
                   op_short_target(node->target), wtype, types[i], session_node_info(c->s, i)->module_path);
        free(types[i]);
    }
    if (re)
        out_printf(c->out, "%d of %d nodes match %s\n", shown, n, args);
    free(types);
    free(show);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return EP_OK;
}

/* ---- why: what constrains a size ------------------------------------------------- */

/* "node 'add' (aten.add.Tensor) at f.py:9 in forward: code" */
static void why_node_label(const ExportedProgram *ep, int i, StrBuf *sb)
{
    const Node *n = &ep->graph.nodes[i];
    char src[512];
    const char *where = source_user_location(n->meta.stack_trace, src, sizeof src);
    sb_printf(sb, "node '%s' (%s)%s%s", n->name, op_short_target(n->target), where ? " at " : "", where ? where : "");
}

/* The node whose outputs include value name, -1 for none (a placeholder). */
static int why_producer(const ExportedProgram *ep, const char *name)
{
    for (int i = 0; i < ep->graph.nnodes; i++) {
        const char *outs[64];
        int n = shape_info_node_outputs(&ep->graph.nodes[i], outs, 64);
        for (int k = 0; k < n && k < 64; k++)
            if (outs[k] && strcmp(outs[k], name) == 0)
                return i;
    }
    return -1;
}

/* Split "NAME.shape[DIM]" (*dim set, *has_dim true) or "NAME" into name. */
static EpStatus why_parse(const char *args, char *name, size_t cap, int *dim, bool *has_dim, EpError *err)
{
    static const char USAGE[] = "usage: why NAME.shape[DIM] or why NAME (a SymInt value)";
    const char *dot = strstr(args, ".shape[");
    size_t len = dot ? (size_t)(dot - args) : strlen(args);
    if (len == 0 || strpbrk(args, " \t"))
        return ep_fail(err, EP_ERR_USAGE, USAGE);
    if (len >= cap)
        return ep_fail(err, EP_ERR_USAGE, "name too long: '%.32s...'", args);
    memcpy(name, args, len);
    name[len] = '\0';
    *has_dim = dot != NULL;
    if (!dot)
        return EP_OK;
    char *end;
    long d = strtol(dot + 7, &end, 10);
    if (end == dot + 7 || strcmp(end, "]") != 0)
        return ep_fail(err, EP_ERR_USAGE, "%s (bad dimension in '%s')", USAGE, args);
    *dim = (int)d;
    return EP_OK;
}

/* The expression of value's size dim (or of the SymInt value itself),
** newly allocated into *out -- the exporter's record first, else what
** shape_prop derived -- and the node that makes value into *producer (-1:
** an input).  shown is the name the user typed, for messages. */
static EpStatus why_expr(const ExportedProgram *ep, const ShapeProp *sp, const char *value, const char *shown, int dim,
                         bool has_dim, SymExpr **out, int *producer, EpError *err)
{
    *out = NULL;
    *producer = why_producer(ep, value);
    const SymArg *a = sp ? shape_prop_value(sp, value) : NULL;
    const TensorMeta *m = graph_tensor_meta(&ep->graph, value);
    const SymDim *si = strmap_get(&ep->graph.sym_int_values, value);
    if (!has_dim) {
        if (si && si->is_expr && si->parsed)
            *out = sym_clone(si->parsed);
        else if (si && !si->is_expr)
            *out = sym_const(si->value);
        else if (a && a->kind == SV_INT && a->e)
            *out = sym_clone(a->e);
        else if (m || (a && a->kind == SV_TENSOR))
            return ep_fail(err, EP_ERR_USAGE, "'%s' is a tensor: ask about one size, why %s.shape[DIM]", shown, shown);
        else
            return ep_fail(err, EP_ERR_USAGE, "'%s' is not a SymInt value of the program", shown);
        return EP_OK;
    }
    int ndim = m ? m->ndim : a && a->kind == SV_TENSOR ? a->shape.ndim : -1;
    if (ndim < 0)
        return ep_fail(err, EP_ERR_USAGE, "'%s' is not a tensor of the program (no shape recorded)", shown);
    int d = dim < 0 ? dim + ndim : dim;
    if (d < 0 || d >= ndim)
        return ep_fail(err, EP_ERR_USAGE, "%s.shape[%d] is out of range: %s has %d dimension%s", shown, dim, shown,
                       ndim, ndim == 1 ? "" : "s");
    if (m && m->sizes[d].is_expr && m->sizes[d].parsed)
        *out = sym_clone(m->sizes[d].parsed);
    else if (m && !m->sizes[d].is_expr)
        *out = sym_const(m->sizes[d].value);
    else if (a && a->kind == SV_TENSOR && a->shape.dims[d])
        *out = sym_clone(a->shape.dims[d]);
    else
        return ep_fail(err, EP_ERR_USAGE, "%s.shape[%d]: the recorded size does not parse", shown, dim);
    return EP_OK;
}

/* Whether cond mentions any of the n symbols. */
static bool mentions(const SymExpr *cond, const char *const *syms, int n)
{
    const char *names[32];
    int k = sym_symbols(cond, names, 32);
    for (int i = 0; i < k && i < 32; i++)
        for (int j = 0; j < n; j++)
            if (strcmp(names[i], syms[j]) == 0)
                return true;
    return false;
}

/* A literal size: fixed, and by what -- the input itself (the export gave
** that dimension no Dim) or the node that makes the value. */
static void why_fixed(const ExportedProgram *ep, int ui, int producer, StrBuf *sb)
{
    if (ui >= 0) {
        sb_append(sb, "  fixed: the input's own size (the export's dynamic_shapes gave this dimension no Dim)\n");
        return;
    }
    if (producer >= 0) {
        sb_append(sb, "  fixed by ");
        why_node_label(ep, producer, sb);
        sb_append(sb, "\n");
        return;
    }
    sb_append(sb, "  fixed: a parameter, buffer or constant of the program\n");
}

/* `why NAME.shape[DIM]` / `why NAME`: the size's expression and range,
** where each of its symbols comes from (guards.h) and every condition of
** the program on those symbols (shape_prop.h), each with its node and
** source line. */
static EpStatus cmd_why(CmdCtx *c, const char *args, EpError *err)
{
    char shown[128];
    int dim = 0;
    bool has_dim;
    EpStatus rc = why_parse(args, shown, sizeof shown, &dim, &has_dim, err);
    if (rc)
        return rc;
    const Interp *ip = session_interp(c->s);
    const ExportedProgram *ep = interp_program(ip);
    int ui = interp_find_user_input(ip, shown);
    const char *value = ui >= 0 ? interp_user_input(ip, ui)->name : shown;
    bool known = graph_tensor_meta(&ep->graph, value) || strmap_get(&ep->graph.sym_int_values, value) ||
                 why_producer(ep, value) >= 0;
    if (!known)
        return ep_fail(err, EP_ERR_USAGE, "no value '%s' in the program (`info graph` lists the nodes)", shown);
    ShapeProp *sp = NULL;
    EpError perr = {0};
    if (shape_prop_run(ep, NULL, 0, &sp, &perr) != EP_OK)
        sp = NULL; /* the recorded shapes still answer; no conditions then */
    SymExpr *e;
    int producer;
    rc = why_expr(ep, sp, value, shown, dim, has_dim, &e, &producer, err);
    if (rc) {
        shape_prop_free(sp);
        return rc;
    }
    StrBuf sb;
    sb_init(&sb);
    char *text = sym_to_string(e);
    if (has_dim)
        sb_printf(&sb, "%s.shape[%d] = %s", shown, dim, text);
    else
        sb_printf(&sb, "%s = %s", shown, text);
    free(text);
    int64_t lit;
    if (sym_as_int(e, &lit)) {
        sb_append(&sb, "\n");
        why_fixed(ep, ui, producer, &sb);
    } else {
        ShapeInfo *si = shape_info_new(ep);
        char *etext = sym_to_string(e);
        SymDim d = {.is_expr = true, .expr = etext, .parsed = e};
        SymRange r;
        char rbuf[96];
        if (shape_info_dim_range(si, &d, has_dim, &r))
            sb_printf(&sb, "   (in %s)", shape_info_range_text(r, rbuf, sizeof rbuf));
        free(etext);
        shape_info_free(si);
        const char *syms[16];
        int ns = sym_symbols(e, syms, 16);
        ns = ns < 16 ? ns : 16;
        for (int k = 0; k < ns; k++)
            guards_explain_symbol(interp_guards(ip), syms[k], interp_symbols(ip), &sb);
        sb_append(&sb, "\n  constrained by:");
        int shown_cons = 0;
        for (int k = 0; sp && k < sp->ncons; k++) {
            const ShapeConstraint *sc = &sp->cons[k];
            if (!sc->cond || !mentions(sc->cond, syms, ns))
                continue;
            char *cond = sym_to_string(sc->cond);
            /* why is "aten.add.Tensor: broadcast of dim 0": the op is in the label */
            const char *colon = strstr(sc->why, ": ");
            sb_printf(&sb, "\n    %s (%s: %s)", cond, shape_constraint_kind_name(sc->kind),
                      colon ? colon + 2 : sc->why);
            free(cond);
            if (sc->node >= 0) {
                sb_append(&sb, " at ");
                why_node_label(ep, sc->node, &sb);
            }
            shown_cons++;
        }
        if (!shown_cons)
            sb_append(&sb, " no condition of the program; only the range above");
        sb_append(&sb, "\n");
    }
    out_puts(c->out, sb.data);
    sb_free(&sb);
    sym_free(e);
    shape_prop_free(sp);
    return EP_OK;
}

/* ---- suggest: the dynamic_shapes to export with ----------------------------------- */

/* `suggest [--dynamic NAME:DIM[=DIMNAME]]... [--json] [--no-run]`: what
** `epdbg suggest` prints (interp/suggest.h), for the session's inputs --
** those bound, or those the guards refused when the run started (the
** session keeps them bound either way), so a guard failure gets its fix. */
static EpStatus cmd_suggest(CmdCtx *c, const char *args, EpError *err)
{
    static const char USAGE[] = "usage: suggest [--dynamic NAME:DIM[=DIMNAME]]... [--json] [--no-run]";
    const Interp *ip = session_interp(c->s);
    size_t cap = strlen(args) / 2 + 1; /* each request takes at least two characters */
    DynRequest *req = ep_xcalloc(cap, sizeof *req);
    char **specs = ep_xcalloc(cap, sizeof *specs); /* req[i].dim_name points into specs[i] */
    int nreq = 0;
    bool json = false, no_run = false;
    EpStatus rc = EP_OK;
    char word[512];
    const char *p = args;
    while (rc == EP_OK && cmd_word(&p, word, sizeof word)) {
        const char *spec = NULL;
        if (strcmp(word, "--json") == 0) {
            json = true;
        } else if (strcmp(word, "--no-run") == 0) {
            no_run = true;
        } else if (strncmp(word, "--dynamic=", 10) == 0 && word[10]) {
            spec = word + 10;
        } else if (strcmp(word, "--dynamic") == 0) {
            if (!cmd_word(&p, word, sizeof word))
                rc = ep_fail(err, EP_ERR_USAGE, "--dynamic needs NAME:DIM[=DIMNAME] (x:0=batch)\n%s", USAGE);
            spec = word;
        } else {
            rc = ep_fail(err, EP_ERR_USAGE, "suggest: unknown argument '%s'\n%s", word, USAGE);
        }
        if (rc || !spec)
            continue;
        specs[nreq] = ep_xstrdup(spec);
        rc = suggest_parse_dynamic(ip, specs[nreq], &req[nreq], err);
        for (int j = 0; rc == EP_OK && j < nreq; j++)
            if (req[j].input == req[nreq].input && req[j].dim == req[nreq].dim)
                rc = ep_fail(err, EP_ERR_USAGE, "--dynamic %s: the same dimension as --dynamic %s", specs[nreq],
                             specs[j]);
        nreq++;
    }
    /* the inputs as the session holds them; unset ones leave the archive's
    ** examples (or recorded shapes) to give the sizes */
    int n = 0;
    const Value *vals = session_inputs(c->s, &n);
    for (int i = 0; vals && i < n; i++)
        if (vals[i].kind == V_NONE)
            vals = NULL;
    Suggestion *sg = NULL;
    if (rc == EP_OK) {
        SuggestOptions o = {.dynamic = req, .ndynamic = nreq, .inputs = vals, .ninputs = vals ? n : 0,
                            .run_checks = !no_run, .seed = 1};
        rc = suggest_run(ip, &o, &sg, err);
    }
    if (rc == EP_OK) {
        StrBuf sb;
        sb_init(&sb);
        if (json)
            suggest_print_json(ip, sg, &sb);
        else
            suggest_print_text(ip, sg, &sb);
        if (!vals && !json)
            sb_append(&sb, "(not all inputs are set: the sizes are the archive's examples)\n");
        out_puts(c->out, sb.data ? sb.data : "");
        sb_free(&sb);
    }
    suggest_free(sg);
    for (int i = 0; i < nreq; i++)
        free(specs[i]);
    free(specs);
    free(req);
    return rc;
}

static const Command GRAPH_COMMANDS[] = {
    {"why", NULL, cmd_why, "why NAME.shape[DIM] | why NAME",
     "what constrains a size: its expression, range, symbols' origins and the program's conditions on them"},
    {"suggest", NULL, cmd_suggest, "suggest [--dynamic NAME:DIM[=DIMNAME]]... [--json] [--no-run]",
     "the dynamic_shapes (Dims) to export with for the current inputs, checked first; --dynamic asks for a size"},
};

static const Command GRAPH_INFOS[] = {
    {"node", NULL, info_node, "node [NODE]", "the node's op, source, module, arguments and outputs"},
    {"args", NULL, info_args, "args [NODE]", "the node's arguments with their current values"},
    {"shapes", NULL, info_shapes, "shapes [NODE]",
     "every node's symbolic shape, shape now and size ranges; with NODE, its inputs and outputs"},
    {"symbols", NULL, info_symbols, "symbols", "the shape symbols bound so far, with their ranges"},
    {"signature", NULL, info_signature, "signature", "inputs (parameters, buffers, user inputs) and outputs"},
    {"graph", NULL, info_graph, "graph [/REGEX/]", "list the nodes with op, output shapes and module"},
};

const CommandGroup CMD_GROUP_GRAPH = {"Graph", GRAPH_COMMANDS, (int)(sizeof GRAPH_COMMANDS / sizeof GRAPH_COMMANDS[0]),
                                      GRAPH_INFOS, (int)(sizeof GRAPH_INFOS / sizeof GRAPH_INFOS[0])};
