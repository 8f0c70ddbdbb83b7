/*
** pane_graph.c -- the graph pane: every node in execution order, folded
** into the nn.Module calls it belongs to.
**
**      ▾ fc1 (Linear)  2 nodes
**   >*!  #3 linear     aten.linear.default  float32[s0, 32] = [4, 32]  fc1
**        #4 relu       aten.relu.default    float32[s0, 32]            fc1
**
** Markers: '>' the node the run is at, '*' a breakpoint, '!' its output
** had NaN/Inf; nodes already run are drawn in the "done" style.  While the
** session has a profile a heat column follows the markers: a shade from
** '░' to '█' by the node's share of the profile's time, in quarters of the
** hottest node's share (so the hot spots of a large graph stand out), and
** blank for a node that took no measurable time.  The op
** column shortens and then gives way on a narrow pane (see layout_for).
**
** The row model is built once, at create(): an "item" list in display
** order where each module call (a run of consecutive nodes sharing a scope
** of nn_module_stack) has a header item before its nodes, and every group
** knows the item range it covers.  Folding only changes which items are
** visible; the visible list is rebuilt in one pass over the items when a
** fold changes, never while drawing, so a draw costs the rows on screen
** whatever the size of the graph.
*/
#include "pane_graph.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/srcinfo.h"

/* Column caps: one very long name must not push every other column off
** the pane. */
#define NAME_CAP 32
#define OP_CAP 30
#define BRIEF_CAP 16
#define NAME_MIN 16 /* what a narrow pane still gives "#12 name" */
#define SHAPE_CAP 40
#define MARK_COLS 3 /* '>' current, '*' breakpoint, '!' NaN seen */
#define HEAT_COLS 2 /* the heat glyph and a space, while there is a profile */

typedef struct Group {
    char *path;   /* the module path, dotted: "encoder.layers.0" */
    char *label;  /* the path below the enclosing group's: "layers.0" */
    char *type;   /* the class's own name: "Linear" ("" if unknown) */
    int parent;   /* the enclosing group, -1 at the top */
    int depth;    /* 0 for the outermost */
    int header;   /* item index of the header row */
    int end;      /* item index after the group's last item */
    int nnodes;   /* nodes inside, nested groups included */
    bool folded;
} Group;

typedef struct GraphPane {
    int nnodes;
    Group *groups;
    int ngroups, gcap;
    int *items;      /* display order: a node index, or ~g for group g's header */
    int nitems;
    int *node_group; /* per node: the innermost group holding it, -1 */
    int *node_item;  /* per node: its item index */
    char **rec;      /* per node: the recorded output types ("float32[s0, 32]") */
    bool *symbolic;  /* per node: a size is an expression or unrecorded (show the concrete one too) */
    int *vis;        /* the visible items, in order (item indices) */
    int nvis;
    int cursor;      /* row of vis under the cursor */
    int top;         /* first row of vis on screen */
    int synced;      /* the t->selected the cursor last followed */
    bool follow;     /* keep the cursor on screen (off after wheel scrolling) */
    bool reveal;     /* the selection jumped: scroll it well into view */
    int w_name, w_op, w_brief, w_shape; /* natural column widths (capped; shapes: as recorded) */
    int w_compact;   /* the shape column with short dtype names */
    int max_depth;   /* deepest node row's indentation level */
    /* per node: its heat level 0..4 (HEAT_GLYPHS), while there is a profile */
    unsigned char *heat;
    bool has_heat;
    unsigned long heat_gen; /* tui_profile's generation heat was computed at */
    /* the last search (t->search), compiled to highlight its matches */
    char *re_text;
    pcre2_code *re;
    pcre2_match_data *md;
} GraphPane;

/* The op as a narrow pane shows it: "linear", "mean.dim" for
** "aten.linear.default", "aten.mean.dim" (new string). */
static char *op_brief(const char *target)
{
    const char *op = op_short_target(target);
    if (strncmp(op, "aten.", 5) == 0)
        op += 5;
    size_t len = strlen(op);
    if (len > 8 && strcmp(op + len - 8, ".default") == 0)
        len -= 8;
    return ep_xstrndup(op, len);
}

/* ---- the row model ------------------------------------------------------------------- */

/* "Linear" from "torch.nn.modules.linear.Linear". */
static char *short_type(const char *type)
{
    const char *dot = strrchr(type, '.');
    return ep_xstrdup(dot ? dot + 1 : type);
}

/* The recorded type of one value: "float32[s0, 32]", "SymInt s0", or NULL
** when the exporter recorded nothing.  *symbolic is set when a size is an
** expression (so the concrete shape is worth showing beside it). */
static char *recorded_value_type(const Graph *g, const char *name, bool *symbolic)
{
    const TensorMeta *m = graph_tensor_meta(g, name);
    if (m) {
        for (int d = 0; d < m->ndim; d++)
            *symbolic = *symbolic || m->sizes[d].is_expr;
        return graph_recorded_type(g, name);
    }
    const SymDim *sd = strmap_get(&g->sym_int_values, name);
    if (sd) {
        *symbolic = true; /* its value is only known by running */
        if (sd->is_expr && sd->parsed) {
            char *e = sym_to_string(sd->parsed);
            char *r = ep_xasprintf("SymInt %s", e);
            free(e);
            return r;
        }
        if (sd->is_expr && sd->expr)
            return ep_xasprintf("SymInt %s", sd->expr);
        return ep_xasprintf("SymInt %lld", (long long)sd->value);
    }
    if (strmap_get(&g->sym_bool_values, name)) {
        *symbolic = true;
        return ep_xstrdup("SymBool");
    }
    if (strmap_get(&g->sym_float_values, name)) {
        *symbolic = true;
        return ep_xstrdup("SymFloat");
    }
    return NULL;
}

/* Every output's recorded type, comma separated ("-" for no output, "?"
** for one the exporter described nothing of). */
static char *recorded_types(const Interp *ip, int node, bool *symbolic)
{
    const Graph *g = &interp_program(ip)->graph;
    int n = interp_node_num_outputs(ip, node);
    if (n == 0)
        return ep_xstrdup("-");
    StrBuf sb;
    sb_init(&sb);
    const Node *nd = interp_node(ip, node);
    for (int k = 0; k < n; k++) {
        char *r = recorded_value_type(g, interp_node_output_name(ip, node, k), symbolic);
        if (!r) {
            *symbolic = true; /* nothing recorded: what the run computes is all there is */
            if (n == nd->noutputs && nd->outputs[k].kind == ARG_SYM_INT)
                r = ep_xstrdup("SymInt");
        }
        sb_printf(&sb, "%s%s", k ? ", " : "", r ? r : "?");
        free(r);
    }
    return sb_take(&sb);
}

static int new_group(GraphPane *p, const char *path, const char *type, int parent)
{
    if (p->ngroups == p->gcap) {
        p->gcap = p->gcap ? 2 * p->gcap : 16;
        p->groups = ep_xrealloc(p->groups, (size_t)p->gcap * sizeof *p->groups);
    }
    Group *g = &p->groups[p->ngroups];
    memset(g, 0, sizeof *g);
    g->path = ep_xstrdup(path);
    /* a nested scope's path extends its parent's: show only the rest */
    const char *label = path;
    if (parent >= 0) {
        const char *pp = p->groups[parent].path;
        size_t plen = strlen(pp);
        if (strncmp(path, pp, plen) == 0 && path[plen] == '.' && path[plen + 1])
            label = path + plen + 1;
    }
    g->label = ep_xstrdup(label);
    g->type = short_type(type);
    g->parent = parent;
    g->depth = parent >= 0 ? p->groups[parent].depth + 1 : 0;
    return p->ngroups++;
}

/* The module scopes of a node below the root, outermost first: cleaned
** paths and types into paths/types (new strings), returns the count. */
static int node_scopes(const char *stack, char ***paths, char ***types)
{
    ModuleScope *sc;
    int ns = module_scopes_parse(stack, &sc);
    *paths = ep_xcalloc((size_t)(ns ? ns : 1), sizeof **paths);
    *types = ep_xcalloc((size_t)(ns ? ns : 1), sizeof **types);
    int n = 0;
    for (int k = 0; k < ns; k++) {
        char *path = module_path_clean(sc[k].path);
        /* the root module is not a group; a repeated path is one scope */
        if (!path[0] || (n > 0 && strcmp(path, (*paths)[n - 1]) == 0)) {
            free(path);
            continue;
        }
        (*paths)[n] = path;
        (*types)[n] = ep_xstrdup(sc[k].type);
        n++;
    }
    module_scopes_free(sc, ns);
    return n;
}

static void free_scopes(char **paths, char **types, int n)
{
    for (int k = 0; k < n; k++) {
        free(paths[k]);
        free(types[k]);
    }
    free(paths);
    free(types);
}

/* Groups and items from the nodes' nn_module_stack: a group opens where a
** node's scope list departs from the previous node's and closes where the
** scope ends, so a module called twice gives two groups. */
static void build_rows(GraphPane *p, const Interp *ip)
{
    int n = p->nnodes;
    int *stack = ep_xcalloc(1, sizeof *stack);
    int sd = 0, scap = 1;
    int item_cap = n + 16;
    p->items = ep_xmalloc((size_t)item_cap * sizeof *p->items);
    const char *prev_stack = NULL;
    char **paths = NULL, **types = NULL;
    int np = 0;
    for (int i = 0; i < n; i++) {
        const char *ms = interp_node(ip, i)->meta.nn_module_stack;
        /* consecutive nodes mostly share their scopes: parse each text once */
        if (i == 0 || !((ms == NULL && prev_stack == NULL) || (ms && prev_stack && strcmp(ms, prev_stack) == 0))) {
            free_scopes(paths, types, np);
            np = node_scopes(ms, &paths, &types);
        }
        prev_stack = ms;
        int common = 0;
        while (common < sd && common < np && strcmp(p->groups[stack[common]].path, paths[common]) == 0)
            common++;
        for (int k = sd - 1; k >= common; k--)
            p->groups[stack[k]].end = p->nitems;
        sd = common;
        if (p->nitems + np - sd + 1 > item_cap) {
            item_cap = 2 * item_cap + np;
            p->items = ep_xrealloc(p->items, (size_t)item_cap * sizeof *p->items);
        }
        if (np > scap) {
            scap = np;
            stack = ep_xrealloc(stack, (size_t)scap * sizeof *stack);
        }
        for (int k = sd; k < np; k++) {
            int g = new_group(p, paths[k], types[k], sd > 0 ? stack[sd - 1] : -1);
            p->groups[g].header = p->nitems;
            p->items[p->nitems++] = ~g;
            stack[sd++] = g;
        }
        for (int k = 0; k < sd; k++)
            p->groups[stack[k]].nnodes++;
        p->node_group[i] = sd > 0 ? stack[sd - 1] : -1;
        p->node_item[i] = p->nitems;
        p->items[p->nitems++] = i;
        if (sd > p->max_depth)
            p->max_depth = sd;
    }
    for (int k = sd - 1; k >= 0; k--)
        p->groups[stack[k]].end = p->nitems;
    free_scopes(paths, types, np);
    free(stack);
}

/* Indentation level of an item's row. */
static int item_depth(const GraphPane *p, int item)
{
    int v = p->items[item];
    if (v < 0)
        return p->groups[~v].depth;
    int g = p->node_group[v];
    return g >= 0 ? p->groups[g].depth + 1 : 0;
}

static void rebuild_visible(GraphPane *p)
{
    p->nvis = 0;
    for (int it = 0; it < p->nitems;) {
        p->vis[p->nvis++] = it;
        int v = p->items[it];
        it = v < 0 && p->groups[~v].folded ? p->groups[~v].end : it + 1;
    }
}

/* The visible row showing item, or the folded header hiding it: the last
** visible item at or before it (0 if none). */
static int row_of_item(const GraphPane *p, int item)
{
    int lo = 0, hi = p->nvis - 1, best = 0;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (p->vis[mid] <= item) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

/* After folds changed: the visible rows again, the cursor on the same
** item (or the header that now hides it). */
static void refold(GraphPane *p)
{
    int item = p->nvis > 0 ? p->vis[p->cursor] : 0;
    rebuild_visible(p);
    p->cursor = row_of_item(p, item);
    p->follow = true;
}

/* When the selection moved from outside (a step, a search), unfold the
** groups around the selected node and put the cursor on it. */
static void follow_selection(Tui *t, GraphPane *p)
{
    if (t->selected == p->synced)
        return;
    p->synced = t->selected;
    if (t->selected < 0 || t->selected >= p->nnodes)
        return;
    bool unfolded = false;
    for (int g = p->node_group[t->selected]; g >= 0; g = p->groups[g].parent) {
        unfolded = unfolded || p->groups[g].folded;
        p->groups[g].folded = false;
    }
    if (unfolded)
        rebuild_visible(p);
    p->cursor = row_of_item(p, p->node_item[t->selected]);
    p->follow = true;
    p->reveal = true;
}

/* rec with its dtype names shortened for a narrow pane ("float32[s0, 32],
** int64[]" -> "f32[s0, 32], i64[]"), into buf. */
static void compact_types(const char *rec, char *buf, size_t cap)
{
    static const struct {
        const char *name, *brief;
    } SHORT[] = {
        {"float32", "f32"}, {"float16", "f16"}, {"bfloat16", "bf16"}, {"float64", "f64"}, {"int64", "i64"},
        {"int32", "i32"}, {"int16", "i16"}, {"int8", "i8"}, {"uint8", "u8"},
    };
    size_t len = 0;
    const char *p = rec;
    buf[0] = '\0';
    while (*p && len + 1 < cap) {
        /* a dtype name starts the text or follows ", " and ends at '[' */
        bool at_type = p == rec || (p - rec >= 2 && p[-1] == ' ' && p[-2] == ',');
        size_t k = 0;
        if (at_type) {
            for (; k < sizeof SHORT / sizeof SHORT[0]; k++) {
                size_t n = strlen(SHORT[k].name);
                if (strncmp(p, SHORT[k].name, n) == 0 && p[n] == '[')
                    break;
            }
        }
        if (at_type && k < sizeof SHORT / sizeof SHORT[0]) {
            len += (size_t)snprintf(buf + len, cap - len, "%s", SHORT[k].brief);
            p += strlen(SHORT[k].name);
        } else {
            buf[len++] = *p++;
            buf[len] = '\0';
        }
    }
    if (len >= cap)
        buf[cap - 1] = '\0';
}

static void *graph_create(Tui *t)
{
    GraphPane *p = ep_xcalloc(1, sizeof *p);
    const Interp *ip = session_interp(t->s);
    int n = session_num_nodes(t->s);
    p->nnodes = n;
    size_t cnt = (size_t)(n ? n : 1);
    p->node_group = ep_xmalloc(cnt * sizeof *p->node_group);
    p->node_item = ep_xmalloc(cnt * sizeof *p->node_item);
    p->rec = ep_xcalloc(cnt, sizeof *p->rec);
    p->symbolic = ep_xcalloc(cnt, sizeof *p->symbolic);
    p->heat = ep_xcalloc(cnt, sizeof *p->heat);
    p->heat_gen = (unsigned long)-1;
    build_rows(p, ip);
    p->vis = ep_xmalloc((size_t)(p->nitems ? p->nitems : 1) * sizeof *p->vis);
    rebuild_visible(p);
    int digits = 1;
    for (int k = n; k >= 10; k /= 10)
        digits++;
    p->w_name = 4;
    p->w_op = 2;
    p->w_shape = 5;
    for (int i = 0; i < n; i++) {
        const Node *node = interp_node(ip, i);
        p->rec[i] = recorded_types(ip, i, &p->symbolic[i]);
        char *brief = op_brief(node->target);
        int wn = digits + 2 + text_cells(node->name), wo = text_cells(op_short_target(node->target));
        int wb = text_cells(brief);
        free(brief);
        p->w_brief = wb > p->w_brief ? (wb < BRIEF_CAP ? wb : BRIEF_CAP) : p->w_brief;
        /* the column fits the recorded types; a concrete "= [4, 32]" after
        ** one pushes that row's module path right */
        int ws = text_cells(p->rec[i]);
        char compact[256];
        compact_types(p->rec[i], compact, sizeof compact);
        int wc = text_cells(compact);
        p->w_compact = wc > p->w_compact ? (wc < SHAPE_CAP ? wc : SHAPE_CAP) : p->w_compact;
        p->w_name = wn > p->w_name ? (wn < NAME_CAP ? wn : NAME_CAP) : p->w_name;
        p->w_op = wo > p->w_op ? (wo < OP_CAP ? wo : OP_CAP) : p->w_op;
        p->w_shape = ws > p->w_shape ? (ws < SHAPE_CAP ? ws : SHAPE_CAP) : p->w_shape;
    }
    p->synced = -2; /* follow whatever is selected at the first draw */
    p->follow = true;
    return p;
}

static void graph_destroy(void *state)
{
    GraphPane *p = state;
    if (!p)
        return;
    for (int g = 0; g < p->ngroups; g++) {
        free(p->groups[g].path);
        free(p->groups[g].label);
        free(p->groups[g].type);
    }
    for (int i = 0; i < p->nnodes; i++)
        free(p->rec[i]);
    free(p->groups);
    free(p->items);
    free(p->node_group);
    free(p->node_item);
    free(p->rec);
    free(p->symbolic);
    free(p->heat);
    free(p->vis);
    free(p->re_text);
    pcre2_match_data_free(p->md);
    pcre2_code_free(p->re);
    free(p);
}

/* ---- drawing ---------------------------------------------------------------------------- */

/* Heat levels 1..4, cool to hot (screen.c: '.', ':', '+', '#' in ASCII). */
static const char *const HEAT_GLYPHS[5] = {" ", "░", "▒", "▓", "█"};

/* Print text in at most width cells from col, ending in '…' when cut. */
static void put_field(Canvas *c, int row, int col, int width, Style st, const char *text)
{
    if (width <= 0)
        return;
    int cells = text_cells(text);
    if (cells <= width) {
        canvas_print(c, row, col, st, text);
        return;
    }
    /* the byte length of the first width - 1 code points */
    const unsigned char *s = (const unsigned char *)text;
    int keep = width - 1, seen = 0, bytes = 0;
    for (; s[bytes]; bytes++) {
        if ((s[bytes] & 0xC0) != 0x80) {
            if (seen == keep)
                break;
            seen++;
        }
    }
    int end = canvas_printn(c, row, col, st, text, bytes);
    canvas_print(c, row, end, st, "…");
}

/* The concrete shapes of a node's outputs ("[4, 32]", "4" for a SymInt),
** comma separated, into buf; false when none is computed. */
static bool concrete_shapes(const Interp *ip, int node, char *buf, size_t cap)
{
    size_t len = 0;
    bool any = false;
    buf[0] = '\0';
    int n = interp_node_num_outputs(ip, node);
    for (int k = 0; k < n && len < cap; k++) {
        const Value *v = interp_value(ip, interp_node_output_name(ip, node, k));
        char one[256] = "?";
        if (v && v->kind == V_TENSOR) {
            shape_str(v->t->ndim, v->t->sizes, one, sizeof one);
            any = true;
        } else if (v && v->kind == V_INT) {
            snprintf(one, sizeof one, "%lld", (long long)v->i);
            any = true;
        } else if (v && v->kind == V_FLOAT) {
            snprintf(one, sizeof one, "%g", v->f);
            any = true;
        } else if (v && v->kind == V_BOOL) {
            snprintf(one, sizeof one, "%s", v->b ? "True" : "False");
            any = true;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", one);
    }
    return any;
}

/* Where the columns of node rows go for a canvas this wide.  Names come
** first, then shapes; the op gives way when the pane is narrow -- first to
** its brief form, then entirely, since a node's name mostly says its op
** already ("linear_1"). */
typedef enum OpForm { COL_OP_FULL, COL_OP_BRIEF, COL_OP_NONE } OpForm;

typedef struct Layout {
    int marks;      /* columns before the indentation: markers, heat */
    int indent_cap; /* indentation levels shown */
    OpForm op_form;
    int name_w, op_col, op_w, shape_col, module_col;
} Layout;

static Layout layout_for(const GraphPane *p, int cols)
{
    Layout l;
    l.marks = MARK_COLS + (p->has_heat ? HEAT_COLS : 0);
    /* deep nesting may take at most a quarter of the width */
    l.indent_cap = p->max_depth;
    while (l.indent_cap > 0 && 2 * l.indent_cap > cols / 4)
        l.indent_cap--;
    int fixed = l.marks + 2 * l.indent_cap;
    l.name_w = p->w_name;
    int rest = cols - fixed - l.name_w - 2 - p->w_shape;
    if (rest >= p->w_op + 2) {
        l.op_form = COL_OP_FULL;
        l.op_w = p->w_op;
    } else if (rest >= p->w_brief + 2) {
        l.op_form = COL_OP_BRIEF;
        l.op_w = p->w_brief;
    } else {
        l.op_form = COL_OP_NONE;
        l.op_w = 0;
        /* still too narrow: the name column shrinks to leave the shape room */
        int room = cols - fixed - 2 - p->w_compact;
        int least = l.name_w < NAME_MIN ? l.name_w : NAME_MIN;
        if (room < l.name_w)
            l.name_w = room > least ? room : least;
    }
    l.op_col = fixed + l.name_w + 2;
    l.shape_col = l.op_form == COL_OP_NONE ? l.op_col : l.op_col + l.op_w + 2;
    l.module_col = l.shape_col + (l.op_form == COL_OP_NONE ? p->w_compact : p->w_shape) + 2;
    return l;
}

static void draw_header(const Tui *t, const GraphPane *p, Canvas *c, int row, int g, Style base, const Layout *l)
{
    const Group *gr = &p->groups[g];
    if (gr->folded) {
        /* a folded group still shows that the run is inside it */
        int cur = tui_current_node(t);
        if (cur >= 0 && p->node_item[cur] > gr->header && p->node_item[cur] < gr->end)
            canvas_print(c, row, 0, ST_CURRENT, ">");
    }
    int depth = gr->depth < l->indent_cap ? gr->depth : l->indent_cap;
    int col = l->marks + 2 * depth;
    col = canvas_print(c, row, col, base, gr->folded ? "▸ " : "▾ ");
    col = canvas_print(c, row, col, base, gr->label);
    if (gr->type[0])
        col = canvas_printf(c, row, col, base, " (%s)", gr->type);
    Style dim = base == ST_NORMAL ? ST_DIM : base;
    canvas_printf(c, row, col + 2, dim, "%d node%s", gr->nnodes, gr->nnodes == 1 ? "" : "s");
}

/* Keep p's compiled search in step with t->search (a bad regex highlights
** nothing: the search itself reports it). */
static void update_search(const Tui *t, GraphPane *p)
{
    bool same = t->search ? p->re_text && strcmp(t->search, p->re_text) == 0 : !p->re_text;
    if (same)
        return;
    free(p->re_text);
    pcre2_match_data_free(p->md);
    pcre2_code_free(p->re);
    p->re_text = t->search ? ep_xstrdup(t->search) : NULL;
    p->re = NULL;
    p->md = NULL;
    if (!t->search || !t->search[0])
        return;
    int code;
    PCRE2_SIZE offset;
    p->re = pcre2_compile((PCRE2_SPTR)t->search, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    if (p->re)
        p->md = pcre2_match_data_create_from_pattern(p->re, NULL);
}

/* Restyle the part of name (drawn from column col, clipped before end)
** that the last search matches. */
static void highlight_match(const GraphPane *p, Canvas *c, int row, int col, int end, const char *name)
{
    if (!p->re || pcre2_match(p->re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, p->md, NULL) < 0)
        return;
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
    if (ov[1] <= ov[0])
        return;
    char *before = ep_xstrndup(name, ov[0]);
    char *match = ep_xstrndup(name + ov[0], ov[1] - ov[0]);
    int from = col + text_cells(before);
    int n = text_cells(match);
    if (from + n > end)
        n = end - from;
    canvas_style(c, row, from, n, ST_MATCH);
    free(before);
    free(match);
}

static void draw_node(const Tui *t, const GraphPane *p, Canvas *c, int row, int i, int depth, Style base,
                      bool cursor_row, const Layout *l)
{
    const Interp *ip = session_interp(t->s);
    const Node *node = interp_node(ip, i);
    bool current = tui_current_node(t) == i;
    Style st = base;
    if (!cursor_row) {
        st = current ? ST_CURRENT : tui_node_done(t, i) ? ST_DONE : ST_NORMAL;
        if (current)
            canvas_fill_row(c, row, ST_CURRENT);
    }
    if (current)
        canvas_print(c, row, 0, cursor_row ? base : ST_CURRENT, ">");
    if (tui_node_has_break(t, i))
        canvas_print(c, row, 1, ST_BREAK, "*");
    if (t->nan_seen && i < t->nnodes && t->nan_seen[i])
        canvas_print(c, row, 2, ST_NAN, "!");
    if (p->has_heat && p->heat[i])
        canvas_print(c, row, MARK_COLS, cursor_row ? base : ST_BREAK, HEAT_GLYPHS[p->heat[i]]); /* red: hot */
    if (depth > l->indent_cap)
        depth = l->indent_cap;
    int col = l->marks + 2 * depth;
    char idname[512];
    snprintf(idname, sizeof idname, "#%d %s", i, node->name);
    /* shallower rows lend their unused indentation to the name */
    int name_w = l->op_col - 2 - col;
    put_field(c, row, col, name_w, st, idname);
    highlight_match(p, c, row, col + (int)(strlen(idname) - strlen(node->name)), col + name_w, node->name);
    if (l->op_form == COL_OP_FULL) {
        put_field(c, row, l->op_col, l->op_w, st, op_short_target(node->target));
    } else if (l->op_form == COL_OP_BRIEF) {
        char *brief = op_brief(node->target);
        put_field(c, row, l->op_col, l->op_w, st, brief);
        free(brief);
    }
    char conc[256];
    char rec[256];
    char shape[sizeof rec + sizeof conc + 4];
    if (l->op_form == COL_OP_NONE)
        compact_types(p->rec[i], rec, sizeof rec);
    else
        snprintf(rec, sizeof rec, "%s", p->rec[i]);
    if (p->symbolic[i] && concrete_shapes(ip, i, conc, sizeof conc))
        snprintf(shape, sizeof shape, "%s = %s", rec, conc);
    else
        snprintf(shape, sizeof shape, "%s", rec);
    int end = canvas_print(c, row, l->shape_col, st, shape);
    int mcol = end + 2 > l->module_col ? end + 2 : l->module_col;
    const char *mpath = session_node_info(t->s, i)->module_path;
    canvas_print(c, row, mcol, st == ST_NORMAL || st == ST_DONE ? ST_DIM : st, mpath);
}

/* Keep the heat levels in step with the session's profile. */
static void update_heat(Tui *t, GraphPane *p)
{
    unsigned long gen;
    const Profile *prof = tui_profile(t, &gen);
    if (gen == p->heat_gen)
        return;
    p->heat_gen = gen;
    p->has_heat = prof && prof->nnodes == p->nnodes;
    if (!p->has_heat)
        return;
    double max = 0;
    for (int i = 0; i < p->nnodes; i++) {
        double s = profile_node_seconds(prof, i);
        max = s > max ? s : max;
    }
    for (int i = 0; i < p->nnodes; i++) {
        double s = profile_node_seconds(prof, i);
        int level = max > 0 && s > 0 ? (int)ceil(4 * s / max) : 0;
        p->heat[i] = (unsigned char)(level < 0 ? 0 : level > 4 ? 4 : level);
    }
}

static void graph_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    GraphPane *p = state;
    canvas_clear(c, ST_NORMAL);
    if (c->rows <= 0 || c->cols <= 0)
        return;
    follow_selection(t, p);
    update_heat(t, p);
    if (p->nvis == 0) {
        canvas_print(c, 0, 1, ST_DIM, "(the graph has no nodes)");
        return;
    }
    if (p->cursor >= p->nvis)
        p->cursor = p->nvis - 1;
    if (p->cursor < 0)
        p->cursor = 0;
    int rows = c->rows;
    if (p->follow && (p->cursor < p->top || p->cursor >= p->top + rows)) {
        if (p->reveal)
            p->top = p->cursor - rows / 3; /* a jump: show what comes next too */
        else if (p->cursor < p->top)
            p->top = p->cursor;
        else
            p->top = p->cursor - rows + 1;
    }
    p->reveal = false;
    if (p->top > p->nvis - rows)
        p->top = p->nvis - rows;
    if (p->top < 0)
        p->top = 0;
    Layout l = layout_for(p, c->cols);
    update_search(t, p);
    for (int r = 0; r < rows && p->top + r < p->nvis; r++) {
        int vr = p->top + r;
        int item = p->vis[vr];
        bool cursor_row = vr == p->cursor;
        Style base = ST_NORMAL;
        if (cursor_row) {
            base = focused ? ST_CURSOR : ST_CURSOR_DIM;
            canvas_fill_row(c, r, base);
        }
        int v = p->items[item];
        if (v < 0)
            draw_header(t, p, c, r, ~v, base, &l);
        else
            draw_node(t, p, c, r, v, item_depth(p, item), base, cursor_row, &l);
    }
}

static void graph_title(Tui *t, void *state, char *buf, size_t cap)
{
    GraphPane *p = state;
    follow_selection(t, p);
    if (p->nnodes == 0) {
        snprintf(buf, cap, "empty");
        return;
    }
    int item = p->nvis > 0 && p->cursor < p->nvis ? p->vis[p->cursor] : 0;
    int v = p->nitems > 0 ? p->items[item] : 0;
    if (v < 0)
        snprintf(buf, cap, "%s  (%d/%d)", p->groups[~v].path, t->selected + 1, p->nnodes);
    else
        snprintf(buf, cap, "%d/%d", v + 1, p->nnodes);
}

/* ---- keys ---------------------------------------------------------------------------------- */

/* The cursor moved: a node under it becomes the selection. */
static void cursor_moved(Tui *t, GraphPane *p)
{
    p->follow = true;
    int v = p->items[p->vis[p->cursor]];
    if (v >= 0 && v != t->selected) {
        p->synced = v; /* our own move: no reveal jump */
        tui_select_node(t, v);
    }
}

static void move_cursor(Tui *t, GraphPane *p, int to)
{
    if (to >= p->nvis)
        to = p->nvis - 1;
    if (to < 0)
        to = 0;
    p->cursor = to;
    cursor_moved(t, p);
}

static void set_all_folds(GraphPane *p, bool folded)
{
    for (int g = 0; g < p->ngroups; g++)
        p->groups[g].folded = folded;
    refold(p);
}

static void toggle_group(GraphPane *p, int g)
{
    p->groups[g].folded = !p->groups[g].folded;
    refold(p);
}

static bool graph_key(Tui *t, void *state, int key, int c_rows)
{
    GraphPane *p = state;
    follow_selection(t, p);
    if (p->nvis == 0)
        return false;
    if (p->cursor >= p->nvis)
        p->cursor = p->nvis - 1;
    int page = c_rows > 1 ? c_rows - 1 : 1;
    int v = p->items[p->vis[p->cursor]];
    switch (key) {
    case TK_UP:
    case 'k':
        move_cursor(t, p, p->cursor - 1);
        return true;
    case TK_DOWN:
    case 'j':
        move_cursor(t, p, p->cursor + 1);
        return true;
    case TK_PGUP:
        move_cursor(t, p, p->cursor - page);
        return true;
    case TK_PGDN:
        move_cursor(t, p, p->cursor + page);
        return true;
    case TK_HOME:
        move_cursor(t, p, 0);
        return true;
    case TK_END:
        move_cursor(t, p, p->nvis - 1);
        return true;
    case TK_WHEEL_UP:
    case TK_WHEEL_DOWN:
        /* scroll the view, leaving the cursor (and the selection) be */
        p->top += key == TK_WHEEL_UP ? -3 : 3;
        if (p->top > p->nvis - 1)
            p->top = p->nvis - 1;
        if (p->top < 0)
            p->top = 0;
        p->follow = false;
        return true;
    case '-':
        set_all_folds(p, true);
        return true;
    case '+':
    case '=':
        set_all_folds(p, false);
        return true;
    case TK_ENTER:
    case ' ':
        if (v < 0) {
            toggle_group(p, ~v);
            return true;
        }
        if (key == ' ')
            return false;
        p->synced = v;
        tui_select_node(t, v);
        tui_inspect(t, NULL);
        /* not used up: Enter's key binding (ui-inspect) also runs, which
        ** focuses the inspector */
        return false;
    case TK_RIGHT:
        if (v >= 0 || !p->groups[~v].folded)
            return false;
        toggle_group(p, ~v);
        return true;
    case TK_LEFT:
        if (v < 0 && !p->groups[~v].folded) {
            toggle_group(p, ~v);
            return true;
        }
        {
            /* on a node or a folded header: up to the enclosing group */
            int g = v < 0 ? p->groups[~v].parent : p->node_group[v];
            if (g < 0)
                return false;
            p->cursor = row_of_item(p, p->groups[g].header);
            p->follow = true;
            return true;
        }
    default:
        return false;
    }
}

static void graph_click(Tui *t, void *state, int row, int col)
{
    (void)col;
    GraphPane *p = state;
    follow_selection(t, p);
    int vr = p->top + row;
    if (row < 0 || vr >= p->nvis)
        return;
    p->cursor = vr;
    int v = p->items[p->vis[vr]];
    if (v < 0)
        toggle_group(p, ~v);
    else
        cursor_moved(t, p);
}

static void graph_changed(Tui *t, void *state)
{
    follow_selection(t, state);
}

const PaneClass PANE_GRAPH_CLASS = {
    .name = "graph",
    .create = graph_create,
    .destroy = graph_destroy,
    .title = graph_title,
    .draw = graph_draw,
    .key = graph_key,
    .click = graph_click,
    .changed = graph_changed,
};

/* ---- search ------------------------------------------------------------------------------------ */

static bool matches(pcre2_code *re, pcre2_match_data *md, const char *text)
{
    return text && pcre2_match(re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0;
}

int pane_graph_search(Tui *t, void *state, const char *regex, int from, int dir, EpError *err)
{
    (void)state;
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        ep_fail(err, EP_ERR_USAGE, "bad regular expression /%s/: %s at offset %zu", regex, (char *)msg,
                (size_t)offset);
        return -1;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    const Interp *ip = session_interp(t->s);
    int n = session_num_nodes(t->s);
    int step = dir < 0 ? -1 : 1;
    if (from < 0 || from >= n)
        from = step > 0 ? -1 : n; /* so the first node looked at is the first (last) */
    int found = -1;
    for (int k = 1; k <= n && found < 0; k++) {
        int i = ((from + step * k) % n + n) % n;
        const Node *node = interp_node(ip, i);
        if (matches(re, md, node->name) || matches(re, md, op_short_target(node->target)) ||
            matches(re, md, session_node_info(t->s, i)->module_path))
            found = i;
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    if (found < 0)
        ep_fail(err, EP_ERR_USAGE, "no match for /%s/", regex);
    return found;
}
