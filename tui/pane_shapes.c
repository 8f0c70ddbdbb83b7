/*
** pane_shapes.c -- the shapes pane: where the program's dynamic shapes
** stand in this run.
**
**   inputs
**     x: float32[s0, 16]  = [4, 16]  s0 in [1, 1024]
**   symbols
**     s0 = 4  in [1, 1024]
**     u0 not bound yet  in [0, inf]
**   derived
**     2*s0 = 8
**   guards
**     x.shape[0] = s0  in [1, 1024]
**       s0 = 4: x.shape[0], a Dim of the export's dynamic_shapes, in [1, 1024]
**       x.shape[0] = s0: the input is first used by node 'add' ... at f.py:9 ...
**   asserts
**     Ne(Mod(s0, 32), 0) with s0 = 4: Mod(4, 32) = 4
**       checked by node '_assert_scalar' ... at f.py:14 ..., computed by:
**         Ne(Mod(s0, 32), 0): node 'ne' ...
**   suggested fix          (only while the guards refuse the inputs)
**     from torch.export import Dim
**     ...
**
** The inputs are the user inputs' recorded (symbolic) shapes against the
** shapes bound to them -- the guards torch.export checks; the symbols are
** those bound so far with their range constraints, and those still
** unbound; derived dims are the size expressions of the graph's values,
** evaluated with the bindings.  The guard tree is interp/guards.h's: where
** each symbolic input size comes from and which node first uses it, and
** every in-graph assert with its node chain and source lines.  The text is
** rebuilt only after something changed, not per draw; the suggested fix
** (interp/suggest.h, on the refused inputs) only when a new refusal
** happens, since it runs the solver and its checks.
*/
#include "tui_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/guards.h"
#include "interp/shape_info.h"
#include "interp/srcinfo.h"
#include "interp/suggest.h"

/* At most this many derived expressions are listed (a graph may have one
** per value; the first ones are the telling ones). */
#define MAX_DERIVED 200

typedef struct ShapeLine {
    char *text;
    Style st;
} ShapeLine;

typedef struct ShapesPane {
    ShapeLine *lines;
    int n, cap;
    bool dirty;       /* rebuild the lines before the next draw */
    int top;          /* first line on screen */
    int nbound, nunbound;
    const SymExpr **derived; /* distinct size expressions that are not bare symbols (borrowed) */
    char **derived_text;
    int nderived;
    ShapeInfo *info;  /* the ranges of the inputs' size expressions */
    /* the suggested fix for the refusal whose message is fix_for (owned;
    ** NULL: none computed), as the lines of fix_text */
    char *fix_for;
    char *fix_text;
    bool fix_ok;      /* fix_text is verified Python, not the reason there is none */
    bool show_fix;    /* a new fix: scroll to it at the next draw */
    int fix_line;     /* its heading's line, -1 when not shown */
    /* while the guards refuse the inputs (nothing is bound): those inputs
    ** (borrowed from the session, valid during a rebuild) and the symbols
    ** their sizes give, so the tree shows the values that failed */
    const Value *refused;
    int nrefused;
    SymBindings refused_syms;
} ShapesPane;

/* The bound on each suggested fix's runs of the program on random data:
** the pane computes it when the failure happens, so a large model's
** checks must not hold the screen (`:suggest` runs them all). */
#define FIX_RUN_BUDGET (4 << 20)

static void add_line(ShapesPane *p, Style st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add_line(ShapesPane *p, Style st, const char *fmt, ...)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 32;
        p->lines = ep_xrealloc(p->lines, (size_t)p->cap * sizeof *p->lines);
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    p->lines[p->n++] = (ShapeLine){ep_xstrdup(buf), st};
}

static void clear_lines(ShapesPane *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->lines[i].text);
    p->n = 0;
}

/* " in [2, 1024]" for symbol's range constraint, "" without one. */
static void range_text(const ExportedProgram *ep, const char *symbol, char *buf, size_t cap)
{
    buf[0] = '\0';
    int r = program_find_range(ep, symbol);
    if (r < 0)
        return;
    char range[80];
    snprintf(buf, cap, "in %s", range_bounds_text(&ep->ranges[r], range, sizeof range));
}

/* Whether text is already among the first n of list. */
static bool listed(char **list, int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], text) == 0)
            return true;
    return false;
}

/* Note the size expressions of meta that are more than a bare symbol. */
static void collect_derived(ShapesPane *p, const SymDim *dims, int ndims)
{
    for (int d = 0; d < ndims && p->nderived < MAX_DERIVED; d++) {
        const SymDim *sd = &dims[d];
        if (!sd->is_expr || !sd->parsed || sym_as_symbol(sd->parsed))
            continue;
        int64_t k;
        if (sym_as_int(sd->parsed, &k))
            continue;
        char *text = sym_to_string(sd->parsed);
        if (listed(p->derived_text, p->nderived, text)) {
            free(text);
            continue;
        }
        p->derived[p->nderived] = sd->parsed;
        p->derived_text[p->nderived++] = text;
    }
}

static void *shapes_create(Tui *t)
{
    ShapesPane *p = ep_xcalloc(1, sizeof *p);
    p->dirty = true;
    p->derived = ep_xcalloc(MAX_DERIVED, sizeof *p->derived);
    p->derived_text = ep_xcalloc(MAX_DERIVED, sizeof *p->derived_text);
    p->info = shape_info_new(interp_program(session_interp(t->s)));
    p->fix_line = -1;
    sym_bindings_init(&p->refused_syms);
    const Graph *g = &interp_program(session_interp(t->s))->graph;
    for (int i = 0; i < g->tensor_values.n && p->nderived < MAX_DERIVED; i++) {
        const TensorMeta *m = g->tensor_values.entries[i].value;
        if (m)
            collect_derived(p, m->sizes, m->ndim);
    }
    for (int i = 0; i < g->sym_int_values.n && p->nderived < MAX_DERIVED; i++) {
        const SymDim *sd = g->sym_int_values.entries[i].value;
        if (sd)
            collect_derived(p, sd, 1);
    }
    return p;
}

static void shapes_destroy(void *state)
{
    ShapesPane *p = state;
    if (!p)
        return;
    clear_lines(p);
    free(p->lines);
    for (int i = 0; i < p->nderived; i++)
        free(p->derived_text[i]);
    free(p->derived_text);
    free(p->derived);
    shape_info_free(p->info);
    sym_bindings_free(&p->refused_syms);
    free(p->fix_for);
    free(p->fix_text);
    free(p);
}

/* The ranges of the symbols in an input's recorded shape, "s0 in [2,
** 1024]" each, into buf. */
static void input_ranges(const ExportedProgram *ep, const TensorMeta *m, char *buf, size_t cap)
{
    size_t len = 0;
    const char *seen[EP_MAX_DIMS * 4];
    int nseen = 0;
    buf[0] = '\0';
    for (int d = 0; d < m->ndim; d++) {
        if (!m->sizes[d].is_expr || !m->sizes[d].parsed)
            continue;
        const char *names[8];
        int ns = sym_symbols(m->sizes[d].parsed, names, 8);
        for (int k = 0; k < ns && k < 8 && len < cap; k++) {
            bool dup = false;
            for (int j = 0; j < nseen; j++)
                dup = dup || strcmp(seen[j], names[k]) == 0;
            if (dup || nseen == (int)(sizeof seen / sizeof seen[0]))
                continue;
            seen[nseen++] = names[k];
            char r[96];
            range_text(ep, names[k], r, sizeof r);
            if (r[0])
                len += (size_t)snprintf(buf + len, cap - len, "%s%s %s", len ? ", " : "", names[k], r);
        }
    }
}

static void build_inputs(ShapesPane *p, const Interp *ip)
{
    const ExportedProgram *ep = interp_program(ip);
    int n = interp_num_user_inputs(ip);
    add_line(p, ST_KEY, "inputs");
    if (n == 0)
        add_line(p, ST_DIM, "  (none)");
    for (int i = 0; i < n; i++) {
        const UserInput *u = interp_user_input(ip, i);
        const Value *v = interp_bound(ip) ? interp_value(ip, u->name) : NULL;
        char now[256] = "(not bound)";
        const Value *r = !v && i < p->nrefused ? &p->refused[i] : NULL;
        if (r && r->kind == V_TENSOR) {
            snprintf(now, sizeof now, "refused ");
            shape_str(r->t->ndim, r->t->sizes, now + 8, sizeof now - 8);
        } else if (v && v->kind == V_TENSOR) {
            now[0] = '=';
            now[1] = ' ';
            shape_str(v->t->ndim, v->t->sizes, now + 2, sizeof now - 2);
        } else if (v && value_is_scalar(v)) {
            snprintf(now, sizeof now, "= %g", value_as_f64(v));
        }
        if (u->meta) {
            char rec[256], ranges[256];
            tensor_meta_shape_str(u->meta, rec, sizeof rec);
            input_ranges(ep, u->meta, ranges, sizeof ranges);
            add_line(p, v ? ST_NORMAL : ST_DIM, "  %s: %s%s  %s%s%s", u->name, scalar_type_name(u->meta->scalar_type),
                     rec, now, ranges[0] ? "  " : "", ranges);
        } else {
            add_line(p, v ? ST_NORMAL : ST_DIM, "  %s: %s  %s", u->name, arg_kind_name(u->kind), now);
        }
    }
}

static void build_symbols(ShapesPane *p, const Interp *ip)
{
    const ExportedProgram *ep = interp_program(ip);
    const SymBindings *b = interp_symbols(ip);
    add_line(p, ST_KEY, "symbols");
    p->nbound = b->n;
    p->nunbound = 0;
    for (int i = 0; i < b->n; i++) {
        char r[96];
        range_text(ep, b->items[i].name, r, sizeof r);
        add_line(p, ST_NORMAL, "  %s = %lld%s%s", b->items[i].name, (long long)b->items[i].value, r[0] ? "  " : "",
                 r);
    }
    /* symbols the program constrains that the run has not bound yet
    ** (data-dependent u0, or everything before the inputs are bound) */
    for (int i = 0; i < ep->nranges; i++) {
        const RangeConstraint *rc = &ep->ranges[i];
        char *e = rc->parsed ? sym_to_string(rc->parsed) : ep_xstrdup(rc->expr);
        int64_t v;
        if (!sym_bindings_get(b, e, &v)) {
            char r[96];
            range_text(ep, e, r, sizeof r);
            add_line(p, ST_DIM, "  %s not bound yet%s%s", e, r[0] ? "  " : "", r);
            p->nunbound++;
        }
        free(e);
    }
    if (b->n == 0 && ep->nranges == 0)
        add_line(p, ST_DIM, "  (none: every shape is static)");
}

static void build_derived(ShapesPane *p, const Interp *ip)
{
    if (p->nderived == 0)
        return;
    add_line(p, ST_KEY, "derived");
    for (int i = 0; i < p->nderived; i++) {
        SymValue v;
        const char *unbound = NULL;
        SymStatus st = sym_eval(p->derived[i], interp_symbols(ip), &v, &unbound);
        if (st == SYM_OK && v.kind == SYMV_INT)
            add_line(p, ST_NORMAL, "  %s = %lld", p->derived_text[i], (long long)v.i);
        else if (st == SYM_OK && v.kind == SYMV_BOOL)
            add_line(p, ST_NORMAL, "  %s = %s", p->derived_text[i], v.b ? "True" : "False");
        else if (st == SYM_OK)
            add_line(p, ST_NORMAL, "  %s = %g", p->derived_text[i], v.f);
        else if (st == SYM_UNBOUND)
            add_line(p, ST_DIM, "  %s  (%s not bound yet)", p->derived_text[i], unbound ? unbound : "a symbol");
        else
            add_line(p, ST_ERROR, "  %s  (cannot evaluate)", p->derived_text[i]);
    }
    if (p->nderived == MAX_DERIVED)
        add_line(p, ST_DIM, "  (only the first %d are listed)", MAX_DERIVED);
}

/* Each line of text (the "\n  ..." lines guards.h writes) as a line of
** the pane, indented by indent more. */
static void add_text_lines(ShapesPane *p, Style st, int indent, const char *text)
{
    for (const char *q = text; *q;) {
        size_t len = strcspn(q, "\n");
        if (len)
            add_line(p, st, "%*s%.*s", indent, "", (int)len, q);
        q += len + (q[len] == '\n');
    }
}

/* The symbols to explain the guards with: the run's, or while the inputs
** are refused, those their sizes give. */
static const SymBindings *symbols_now(const ShapesPane *p, const Interp *ip)
{
    return p->refused ? &p->refused_syms : interp_symbols(ip);
}

/* Bind each bare symbol of the inputs' recorded sizes to the refused
** inputs' sizes (the first input giving a symbol names it, as binding
** does). */
static void bind_refused(ShapesPane *p, const Interp *ip)
{
    sym_bindings_free(&p->refused_syms);
    sym_bindings_init(&p->refused_syms);
    for (int u = 0; u < p->nrefused && u < interp_num_user_inputs(ip); u++) {
        const UserInput *in = interp_user_input(ip, u);
        const Value *v = &p->refused[u];
        if (!in->meta || v->kind != V_TENSOR || v->t->ndim != in->meta->ndim)
            continue;
        for (int d = 0; d < in->meta->ndim; d++) {
            const SymDim *sd = &in->meta->sizes[d];
            const char *sym = sd->is_expr && sd->parsed ? sym_as_symbol(sd->parsed) : NULL;
            int64_t have;
            if (sym && !sym_bindings_get(&p->refused_syms, sym, &have))
                sym_bindings_set(&p->refused_syms, sym, v->t->sizes[d]);
        }
    }
}

/* The guard tree of the inputs: each symbolic size, its range, where its
** symbols come from and the node that first uses it. */
static void build_guards(ShapesPane *p, const Interp *ip)
{
    const Guards *g = interp_guards(ip);
    const SymBindings *b = symbols_now(p, ip);
    bool any = false;
    for (int u = 0; u < interp_num_user_inputs(ip); u++) {
        const UserInput *in = interp_user_input(ip, u);
        for (int d = 0; in->meta && d < in->meta->ndim; d++) {
            const SymDim *sd = &in->meta->sizes[d];
            if (!sd->is_expr)
                continue;
            if (!any)
                add_line(p, ST_KEY, "guards");
            any = true;
            char *expr = sd->parsed ? sym_to_string(sd->parsed) : ep_xstrdup(sd->expr);
            SymRange r;
            char range[96] = "";
            if (shape_info_dim_range(p->info, sd, true, &r))
                shape_info_range_text(r, range, sizeof range);
            add_line(p, ST_NORMAL, "  %s.shape[%d] = %s%s%s", user_input_name(in), d, expr, range[0] ? "  in " : "",
                     range[0] ? range : "  (unreadable)");
            StrBuf sb;
            sb_init(&sb);
            const char *syms[16];
            int ns = sd->parsed ? sym_symbols(sd->parsed, syms, 16) : 0;
            for (int k = 0; k < ns && k < 16; k++)
                guards_explain_symbol(g, syms[k], b, &sb);
            guards_explain_use(g, u, d, expr, &sb);
            add_text_lines(p, ST_DIM, 2, sb.data ? sb.data : "");
            sb_free(&sb);
            free(expr);
        }
    }
}

/* Every in-graph assert: its expression (with the values bound so far),
** its symbols' origins, and the node chain behind it with source lines --
** guards_explain_failure's account, which states the check as failed;
** here it is only listed, so that opening goes. */
static void build_asserts(ShapesPane *p, const Interp *ip)
{
    static const char FAILED[] = "Runtime assertion failed: ";
    const Guards *g = interp_guards(ip);
    const ExportedProgram *ep = interp_program(ip);
    bool any = false;
    for (int i = 0; i < ep->graph.nnodes; i++) {
        if (!guards_is_assert(g, i))
            continue;
        if (!any)
            add_line(p, ST_KEY, "asserts");
        any = true;
        EpError err = {.code = EP_ERR_EXEC};
        guards_explain_failure(g, i, symbols_now(p, ip), NULL, NULL, &err);
        const char *text = strncmp(err.msg, FAILED, sizeof FAILED - 1) == 0 ? err.msg + sizeof FAILED - 1 : err.msg;
        if (text[0]) {
            size_t len = strcspn(text, "\n");
            add_line(p, ST_NORMAL, "  %.*s", (int)len, text);
            add_text_lines(p, ST_DIM, 2, text + len);
            continue;
        }
        /* a range check holding at its bounds has no account: its node */
        const Node *n = &ep->graph.nodes[i];
        char src[512];
        const char *where = source_user_location(n->meta.stack_trace, src, sizeof src);
        add_line(p, ST_NORMAL, "  node '%s' (%s)%s%s", n->name, op_short_target(n->target), where ? " at " : "",
                 where ? where : "");
    }
}

/* The inputs the guards refused when the run last started, or NULL (n
** set): the stop of a failed bind with EP_ERR_INPUT. */
static const Value *refused_inputs(Tui *t, int *n)
{
    const Stop *st = session_last_stop(t->s);
    *n = 0;
    if (!session_inputs_rejected(t->s) || st->kind != STOP_ERROR || st->node >= 0 || !st->detail)
        return NULL;
    return session_inputs(t->s, n);
}

/* Solve the fix for a new refusal (keyed by its message, which names the
** sizes), once; forget it when the inputs are accepted. */
static void update_fix(Tui *t, ShapesPane *p)
{
    int n;
    const Value *vals = refused_inputs(t, &n);
    const char *key = vals ? session_last_stop(t->s)->detail : NULL;
    if (key && p->fix_for && strcmp(key, p->fix_for) == 0)
        return;
    free(p->fix_for);
    free(p->fix_text);
    p->fix_for = p->fix_text = NULL;
    if (!key)
        return;
    const Interp *ip = session_interp(t->s);
    SuggestOptions o = {.inputs = vals, .ninputs = n, .run_checks = true, .seed = 1, .run_budget = FIX_RUN_BUDGET};
    Suggestion *sg = NULL;
    EpError err = {0};
    StrBuf sb;
    sb_init(&sb);
    p->fix_ok = false;
    if (suggest_run(ip, &o, &sg, &err) != EP_OK) {
        sb_printf(&sb, "no fix: %.*s", (int)strcspn(err.msg, "\n"), err.msg);
    } else if (!sg->verified) {
        sb_append(&sb, "no fix passed its own checks (`:suggest` shows what failed)");
    } else {
        suggest_print_python(ip, sg, &sb);
        p->fix_ok = true;
    }
    suggest_free(sg);
    p->fix_for = ep_xstrdup(key);
    p->fix_text = sb.data ? sb.data : ep_xstrdup("");
    p->show_fix = true;
}

static void build_fix(Tui *t, ShapesPane *p)
{
    update_fix(t, p);
    p->fix_line = -1;
    if (!p->fix_text)
        return;
    p->fix_line = p->n;
    add_line(p, ST_KEY, "suggested fix  (`:suggest` explains it)");
    add_text_lines(p, p->fix_ok ? ST_NORMAL : ST_ERROR, 2, p->fix_text);
}

static void rebuild(Tui *t, ShapesPane *p)
{
    clear_lines(p);
    const Interp *ip = session_interp(t->s);
    p->refused = refused_inputs(t, &p->nrefused);
    bind_refused(p, ip);
    build_inputs(p, ip);
    build_symbols(p, ip);
    build_derived(p, ip);
    build_guards(p, ip);
    build_asserts(p, ip);
    build_fix(t, p);
    p->refused = NULL;
    p->nrefused = 0;
    p->dirty = false;
}

static void shapes_title(Tui *t, void *state, char *buf, size_t cap)
{
    ShapesPane *p = state;
    if (p->dirty)
        rebuild(t, p);
    if (p->nbound == 0 && p->nunbound == 0)
        snprintf(buf, cap, "static");
    else
        snprintf(buf, cap, "%d bound, %d unbound", p->nbound, p->nunbound);
}

static void shapes_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    (void)focused;
    ShapesPane *p = state;
    canvas_clear(c, ST_NORMAL);
    if (p->dirty)
        rebuild(t, p);
    if (c->rows <= 0 || c->cols <= 0)
        return;
    if (p->show_fix && p->fix_line >= 0) /* a new refusal: its fix is what to read */
        p->top = p->fix_line;
    p->show_fix = false;
    if (p->top > p->n - c->rows)
        p->top = p->n - c->rows;
    if (p->top < 0)
        p->top = 0;
    for (int r = 0; r < c->rows && p->top + r < p->n; r++) {
        const ShapeLine *l = &p->lines[p->top + r];
        canvas_print(c, r, 0, l->st, l->text);
    }
}

static bool shapes_key(Tui *t, void *state, int key, int c_rows)
{
    ShapesPane *p = state;
    if (p->dirty)
        rebuild(t, p);
    int page = c_rows > 1 ? c_rows - 1 : 1;
    switch (key) {
    case TK_UP:
    case 'k':
        p->top--;
        break;
    case TK_DOWN:
    case 'j':
        p->top++;
        break;
    case TK_PGUP:
        p->top -= page;
        break;
    case TK_PGDN:
        p->top += page;
        break;
    case TK_WHEEL_UP:
        p->top -= 3;
        break;
    case TK_WHEEL_DOWN:
        p->top += 3;
        break;
    case TK_HOME:
        p->top = 0;
        break;
    case TK_END:
        p->top = p->n;
        break;
    default:
        return false;
    }
    /* the draw clamps the end against the height it gets */
    if (p->top > p->n - 1)
        p->top = p->n - 1;
    if (p->top < 0)
        p->top = 0;
    return true;
}

static void shapes_changed(Tui *t, void *state)
{
    (void)t;
    ShapesPane *p = state;
    p->dirty = true;
}

const PaneClass PANE_SHAPES_CLASS = {
    .name = "shapes",
    .create = shapes_create,
    .destroy = shapes_destroy,
    .title = shapes_title,
    .draw = shapes_draw,
    .key = shapes_key,
    .changed = shapes_changed,
};
