/*
** progbuild.c -- the program builder and the .pt2 writers of each era.
*/
#include "progbuild_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/interp.h"
#include "interp/ops.h"
#include "interp/picklewrite.h"
#include "interp/zipwrite.h"

/* ---- random tensors ---------------------------------------------------------- */

static uint64_t rng_next(PbRng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

Tensor *pb_uniform(PbRng *r, DType dtype, int ndim, const int64_t *sizes, double lo, double hi)
{
    EpError err;
    Tensor *t = tensor_empty(dtype, ndim, sizes, &err);
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        /* 24 random bits: an exact float in [0, 1) */
        double u = (double)(rng_next(r) >> 40) / 16777216.0;
        dtype_store_f64(dtype, (char *)t->storage->data + i * dtype_size(dtype), lo + (hi - lo) * u);
    }
    return t;
}

Tensor *pb_ints(PbRng *r, DType dtype, int ndim, const int64_t *sizes, int64_t lo, int64_t hi)
{
    EpError err;
    Tensor *t = tensor_empty(dtype, ndim, sizes, &err);
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        dtype_store_i64(dtype, (char *)t->storage->data + i * dtype_size(dtype),
                        lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo)));
    return t;
}

const char *pb_fmt(const char *fmt, ...)
{
    static char ring[16][2048];
    static int next;
    char *buf = ring[next++ % 16];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf, sizeof ring[0], fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof ring[0]) {
        fprintf(stderr, "progbuild: pb_fmt: text longer than %zu bytes: %.60s...\n", sizeof ring[0] - 1, buf);
        abort(); /* a bug in a generator model definition: never build a truncated program */
    }
    return buf;
}

/* ---- building ----------------------------------------------------------------- */

ProgBuilder *pb_new(const char *module_class, bool argn_names)
{
    ProgBuilder *pb = ep_xcalloc(1, sizeof *pb);
    pb->argn_names = argn_names;
    pb->module_class = ep_xstrdup(module_class);
    pb->module_path = ep_xstrdup("");
    pb->module_type = ep_xstrdup(module_class);
    strmap_init(&pb->metas);
    strmap_init(&pb->declared);
    strmap_init(&pb->sym_exprs);
    return pb;
}

static void sym_expr_free(void *p);

void pb_meta_free(void *p)
{
    PbMeta *m = p;
    if (!m)
        return;
    for (int i = 0; i < m->ndim; i++)
        free(m->dims[i]);
    free(m);
}

static void pb_arg_free(Arg *a)
{
    free(a->ref);
    value_clear(&a->lit);
    for (int i = 0; i < a->n; i++)
        pb_arg_free(&a->items[i]);
    free(a->items);
    memset(a, 0, sizeof *a);
}

void pb_free(ProgBuilder *pb)
{
    if (!pb)
        return;
    for (int i = 0; i < pb->ninputs; i++) {
        PbInput *in = &pb->inputs[i];
        free(in->name);
        free(in->target);
        free(in->forward_name);
        free(in->sym_expr);
        tensor_unref(in->value);
        for (int d = 0; d < in->ndim; d++)
            free(in->dims[d]);
    }
    free(pb->inputs);
    for (int i = 0; i < pb->nnodes; i++) {
        PbNode *n = &pb->nodes[i];
        free(n->target);
        free(n->name);
        for (int k = 0; k < n->nin; k++) {
            free(n->in_names[k]);
            pb_arg_free(&n->in_args[k]);
        }
        free(n->in_names);
        free(n->in_args);
        free(n->in_kwarg);
        for (int k = 0; k < n->nout; k++)
            pb_arg_free(&n->outs[k]);
        free(n->outs);
        free(n->stack_trace);
        free(n->module_stack);
        free(n->source_fn);
        free(n->torch_fn);
    }
    free(pb->nodes);
    for (int i = 0; i < pb->noutputs; i++) {
        free(pb->outputs[i].value);
        free(pb->outputs[i].target);
    }
    free(pb->outputs);
    for (int i = 0; i < pb->nranges; i++)
        free(pb->ranges[i].symbol);
    free(pb->ranges);
    for (int i = 0; i < pb->nguards_code; i++)
        free(pb->guards_code[i]);
    free(pb->guards_code);
    free(pb->file);
    free(pb->func);
    free(pb->code);
    free(pb->inner_frames);
    free(pb->module_path);
    free(pb->module_type);
    free(pb->module_class);
    strmap_free(&pb->metas, pb_meta_free);
    strmap_free(&pb->sym_exprs, sym_expr_free);
    strmap_free(&pb->declared, pb_meta_free);
    free(pb);
}

void pb_at(ProgBuilder *pb, const char *file, int line, const char *func, const char *code)
{
    free(pb->file);
    free(pb->func);
    free(pb->code);
    free(pb->inner_frames);
    pb->inner_frames = NULL;
    pb->file = ep_xstrdup(file);
    pb->line = line;
    pb->func = ep_xstrdup(func);
    pb->code = ep_xstrdup(code);
}

void pb_at_inner(ProgBuilder *pb, const char *file, int line, const char *func, const char *code)
{
    char *more = ep_xasprintf("%s%s  File \"%s\", line %d, in %s\n    %s", pb->inner_frames ? pb->inner_frames : "",
                              pb->inner_frames ? "\n" : "", file, line, func, code);
    free(pb->inner_frames);
    pb->inner_frames = more;
}

void pb_module(ProgBuilder *pb, const char *module_path, const char *module_type)
{
    free(pb->module_path);
    free(pb->module_type);
    pb->module_path = ep_xstrdup(module_path);
    pb->module_type = ep_xstrdup(module_type);
}

static char *placeholder_name(const char *prefix, const char *fqn)
{
    char *s = ep_xasprintf("%s%s", prefix, fqn);
    for (char *p = s; *p; p++)
        if (*p == '.')
            *p = '_';
    return s;
}

static PbInput *add_input(ProgBuilder *pb, InputKind kind)
{
    pb->inputs = ep_xrealloc(pb->inputs, (size_t)(pb->ninputs + 1) * sizeof *pb->inputs);
    PbInput *in = &pb->inputs[pb->ninputs++];
    memset(in, 0, sizeof *in);
    in->kind = kind;
    return in;
}

/* Old exporters named weights argN_1 and user inputs l_<name>_ (as the
** PyTorch 2.2 archive hades-pid__exported_program.pt2 of the corpus). */
static char *ph_name(ProgBuilder *pb, const char *prefix, const char *name)
{
    if (pb->argn_names)
        return prefix ? ep_xasprintf("arg%d_1", pb->ninputs - 1) : ep_xasprintf("l_%s_", name);
    return prefix ? placeholder_name(prefix, name) : ep_xstrdup(name);
}

const char *pb_ph(const ProgBuilder *pb, const char *fqn_or_input)
{
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        if ((in->target && strcmp(in->target, fqn_or_input) == 0) ||
            (in->kind == IN_USER_INPUT && in->forward_name && strcmp(in->forward_name, fqn_or_input) == 0))
            return in->name;
    }
    return fqn_or_input;
}

void pb_param(ProgBuilder *pb, const char *fqn, Tensor *t)
{
    PbInput *in = add_input(pb, IN_PARAMETER);
    in->name = ph_name(pb, "p_", fqn);
    in->target = ep_xstrdup(fqn);
    in->value = tensor_ref(t);
}

void pb_buffer(ProgBuilder *pb, const char *fqn, Tensor *t, bool persistent)
{
    PbInput *in = add_input(pb, IN_BUFFER);
    in->name = ph_name(pb, "b_", fqn);
    in->target = ep_xstrdup(fqn);
    in->value = tensor_ref(t);
    in->persistent = persistent;
}

void pb_constant(ProgBuilder *pb, const char *fqn, Tensor *t)
{
    PbInput *in = add_input(pb, IN_TENSOR_CONSTANT);
    in->name = ph_name(pb, "c_", fqn);
    in->target = ep_xstrdup(fqn);
    in->value = tensor_ref(t);
}

void pb_input(ProgBuilder *pb, const char *name, Tensor *example, const char *const *dims)
{
    PbInput *in = add_input(pb, IN_USER_INPUT);
    in->name = ph_name(pb, NULL, name);
    in->forward_name = ep_xstrdup(name);
    in->value = tensor_ref(example);
    in->ndim = example->ndim;
    for (int d = 0; d < example->ndim; d++)
        in->dims[d] = dims ? ep_xstrdup(dims[d]) : ep_xasprintf("%lld", (long long)example->sizes[d]);
}

void pb_sym_input_as(ProgBuilder *pb, const char *name, const char *symbol, int64_t example)
{
    PbInput *in = add_input(pb, IN_USER_INPUT);
    in->name = ep_xstrdup(name); /* a SymInt keeps its name: nodes use it */
    in->forward_name = ep_xstrdup(name);
    in->is_sym = true;
    in->sym_example = example;
    in->sym_expr = symbol ? ep_xstrdup(symbol) : NULL;
}

void pb_sym_input(ProgBuilder *pb, const char *name, int64_t example)
{
    pb_sym_input_as(pb, name, NULL, example);
}

void pb_unbacked(ProgBuilder *pb, const char *name, int ndim, const char *const *dims)
{
    if (ndim < 0 || ndim > EP_MAX_DIMS) {
        fprintf(stderr, "progbuild: pb_unbacked: %s cannot have %d dims\n", name, ndim);
        abort(); /* a bug in a generator model definition */
    }
    PbMeta *m = ep_xcalloc(1, sizeof *m);
    m->is_tensor = true;
    m->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        m->dims[d] = ep_xstrdup(dims[d]);
    pb_meta_free(strmap_put(&pb->declared, name, m));
}

static void sym_expr_free(void *p)
{
    PbSymExpr *x = p;
    if (x)
        free(x->expr);
    free(x);
}

void pb_sym_value(ProgBuilder *pb, const char *name, const char *expr, bool is_bool)
{
    PbSymExpr *x = ep_xcalloc(1, sizeof *x);
    x->expr = ep_xstrdup(expr);
    x->is_bool = is_bool;
    sym_expr_free(strmap_put(&pb->sym_exprs, name, x));
}

void pb_range(ProgBuilder *pb, const char *symbol, int64_t min, int64_t max)
{
    pb->ranges = ep_xrealloc(pb->ranges, (size_t)(pb->nranges + 1) * sizeof *pb->ranges);
    pb->ranges[pb->nranges++] = (PbRange){ep_xstrdup(symbol), min, max};
}

void pb_guard_code(ProgBuilder *pb, const char *python)
{
    pb->guards_code = ep_xrealloc(pb->guards_code, (size_t)(pb->nguards_code + 1) * sizeof *pb->guards_code);
    pb->guards_code[pb->nguards_code++] = ep_xstrdup(python);
}

/* ---- argument notation ----------------------------------------------------------- */

static const char *skip(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

static void die(const char *what, const char *text)
{
    fprintf(stderr, "progbuild: cannot parse %s: %s\n", what, text);
    abort(); /* a bug in a generator model definition, not in user input */
}

static bool is_word_char(char c)
{
    return c && (isalnum((unsigned char)c) || strchr("_.-+:", c));
}

static const char *parse_word(const char *p, char *buf, size_t cap)
{
    size_t n = 0;
    while (is_word_char(*p) && n + 1 < cap)
        buf[n++] = *p++;
    buf[n] = '\0';
    if (is_word_char(*p)) /* cut short: a different name, not a shorter one */
        die("word (too long)", buf);
    return p;
}

static const char *parse_value(const char *p, Arg *a, const char *whole)
{
    p = skip(p);
    memset(a, 0, sizeof *a);
    if (*p == '%' || *p == '$') {
        char buf[256];
        bool sym = *p == '$';
        p = parse_word(p + 1, buf, sizeof buf);
        a->kind = sym ? ARG_SYM_INT : ARG_TENSOR;
        a->ref = ep_xstrdup(buf);
        return p;
    }
    if (*p == '[') {
        Arg *items = NULL; /* as many as the list holds */
        int n = 0, cap = 0;
        p = skip(p + 1);
        while (*p && *p != ']') {
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                items = ep_xrealloc(items, (size_t)cap * sizeof *items);
            }
            p = parse_value(p, &items[n++], whole);
            p = skip(p);
            if (*p == ',')
                p = skip(p + 1);
        }
        if (*p != ']')
            die("list", whole);
        p++;
        bool any_tensor = false, any_none = false, any_sym = false, any_float = false, any_bool = false;
        for (int i = 0; i < n; i++) {
            any_tensor |= items[i].kind == ARG_TENSOR;
            any_none |= items[i].kind == ARG_NONE;
            any_sym |= items[i].kind == ARG_SYM_INT;
            any_float |= items[i].kind == ARG_FLOAT;
            any_bool |= items[i].kind == ARG_BOOL;
        }
        a->kind = any_tensor ? (any_none ? ARG_OPT_TENSORS : ARG_TENSORS)
                  : any_sym  ? ARG_SYM_INTS
                  : any_float ? ARG_FLOATS
                  : any_bool ? ARG_BOOLS
                             : ARG_INTS;
        a->n = n;
        a->items = items ? items : ep_xcalloc(1, sizeof *a->items);
        return p;
    }
    if (*p == '\'') {
        const char *e = strchr(p + 1, '\'');
        if (!e)
            die("string", whole);
        a->kind = ARG_STRING;
        a->lit.kind = V_STR;
        a->lit.s = ep_xstrndup(p + 1, (size_t)(e - p - 1));
        return e + 1;
    }
    char w[128];
    p = parse_word(p, w, sizeof w);
    if (strcmp(w, "None") == 0) {
        a->kind = ARG_NONE;
    } else if (strcmp(w, "True") == 0 || strcmp(w, "False") == 0) {
        a->kind = ARG_BOOL;
        a->lit = value_bool(w[0] == 'T');
    } else if (strncmp(w, "dtype:", 6) == 0) {
        a->kind = ARG_SCALAR_TYPE;
        a->lit = value_int(DTYPE_INFO[dtype_from_name(w + 6)].scalar_type + 1);
    } else if (strncmp(w, "device:", 7) == 0) {
        a->kind = ARG_DEVICE;
        a->lit.kind = V_DEVICE;
        a->lit.s = ep_xstrdup(w + 7);
    } else if (strncmp(w, "memfmt:", 7) == 0) { /* memfmt:contiguous, memfmt:channels_last_format ... */
        a->kind = ARG_MEMORY_FORMAT;
        int code = memory_format_code(w + 7);
        if (code < 0)
            code = memory_format_code(pb_fmt("%s_format", w + 7));
        if (code < 0)
            die("memory format", whole);
        a->lit = value_int(code);
    } else if (strncmp(w, "layout:", 7) == 0) { /* layout:strided, layout:sparse_coo ... */
        a->kind = ARG_LAYOUT;
        int code = layout_code(w + 7);
        if (code < 0)
            die("layout", whole);
        a->lit = value_int(code);
    } else if (strcmp(w, "inf") == 0 || strcmp(w, "-inf") == 0) {
        a->kind = ARG_FLOAT;
        a->lit = value_float(w[0] == '-' ? -INFINITY : INFINITY);
    } else if (w[0] && (isdigit((unsigned char)w[0]) || w[0] == '-')) {
        if (strpbrk(w, ".eE")) {
            a->kind = ARG_FLOAT;
            a->lit = value_float(strtod(w, NULL));
        } else {
            a->kind = ARG_INT;
            a->lit = value_int(strtoll(w, NULL, 10));
        }
    } else {
        die("value", whole);
    }
    return p;
}

static void parse_outputs(const char *text, PbNode *n)
{
    const char *p = skip(text);
    if (!*p)
        return;
    if (*p == '[') { /* one Tensor[] output */
        n->nout = 1;
        n->outs = ep_xcalloc(1, sizeof *n->outs);
        parse_value(text, &n->outs[0], text);
        for (int i = 0; i < n->outs[0].n; i++)
            if (n->outs[0].items[i].kind == ARG_NONE) {
                n->outs[0].items[i].kind = ARG_TENSOR; /* unused element */
                n->outs[0].items[i].ref = ep_xasprintf("%s_unused_%d", n->name, i);
            }
        /* "[%a, %b]" is the notation; accept bare names too */
        return;
    }
    while (*p) {
        Arg a = {0};
        bool sym = *p == '$';
        char w[256];
        p = parse_word(p + (sym ? 1 : 0), w, sizeof w);
        if (strcmp(w, "_") == 0) {
            a.kind = ARG_TENSOR;
            a.ref = ep_xasprintf("%s_unused_%d", n->name, n->nout);
        } else {
            a.kind = sym ? ARG_SYM_INT : ARG_TENSOR;
            a.ref = ep_xstrdup(w);
        }
        n->outs = ep_xrealloc(n->outs, (size_t)(n->nout + 1) * sizeof *n->outs);
        n->outs[n->nout++] = a;
        p = skip(p);
        if (*p == ',')
            p = skip(p + 1);
    }
}

static char *module_stack_text(const ProgBuilder *pb, PbEra era)
{
    /* "L__self__,,cls;L__self___fc1,fc1,torch.nn.modules.linear.Linear" with
    ** one entry per path prefix */
    StrBuf sb;
    sb_init(&sb);
    if (era == PB_ERA_2_1)
        sb_printf(&sb, "L__self__:(,%s)", pb->module_class);
    else
        sb_printf(&sb, "L__self__,,%s", pb->module_class);
    if (pb->module_path[0]) {
        const char *p = pb->module_path;
        while (*p) {
            const char *dot = strchr(p, '.');
            size_t len = dot ? (size_t)(dot - p) : strlen(p);
            size_t upto = (size_t)(p - pb->module_path) + len;
            char *path = ep_xstrndup(pb->module_path, upto);
            char *key = ep_xasprintf("L__self__%s%s", era >= PB_ERA_2_11 ? "" : "_", path);
            for (char *k = key; *k; k++)
                if (*k == '.')
                    *k = '_';
            const char *type = dot ? "torch.nn.modules.container.Sequential" : pb->module_type;
            if (era == PB_ERA_2_1)
                sb_printf(&sb, ";%s:(%s,%s)", key, path, type);
            else
                sb_printf(&sb, ";%s,%s,%s", key, path, type);
            free(key);
            free(path);
            p += len;
            if (*p == '.')
                p++;
        }
    }
    return sb_take(&sb);
}

void pb_node(ProgBuilder *pb, const char *target, const char *name, const char *args, const char *outputs)
{
    pb->nodes = ep_xrealloc(pb->nodes, (size_t)(pb->nnodes + 1) * sizeof *pb->nodes);
    PbNode *n = &pb->nodes[pb->nnodes++];
    memset(n, 0, sizeof *n);
    n->target = ep_xasprintf("torch.ops.%s", target);
    if (strncmp(target, "_operator.", 10) == 0 || strncmp(target, "math.", 5) == 0 ||
        strncmp(target, "torch.", 6) == 0) {
        free(n->target);
        n->target = ep_xstrdup(target);
    }
    n->name = ep_xstrdup(name);
    const char *p = skip(args);
    bool kwargs = false;
    while (*p) {
        if (*p == '|') { /* the rest are the FX node's kwargs */
            kwargs = true;
            p = skip(p + 1);
            continue;
        }
        char key[64];
        p = parse_word(p, key, sizeof key);
        char *colon = strchr(key, ':');
        if (colon)
            die("argument name", args);
        p = skip(p);
        if (*p != '=')
            die("argument (expected name=value)", args);
        n->in_names = ep_xrealloc(n->in_names, (size_t)(n->nin + 1) * sizeof *n->in_names);
        n->in_args = ep_xrealloc(n->in_args, (size_t)(n->nin + 1) * sizeof *n->in_args);
        n->in_kwarg = ep_xrealloc(n->in_kwarg, (size_t)(n->nin + 1) * sizeof *n->in_kwarg);
        n->in_names[n->nin] = ep_xstrdup(key);
        n->in_kwarg[n->nin] = kwargs;
        p = parse_value(p + 1, &n->in_args[n->nin], args);
        n->nin++;
        p = skip(p);
        if (*p == ',')
            p = skip(p + 1);
    }
    parse_outputs(outputs, n);
    if (pb->file)
        n->stack_trace = ep_xasprintf("File \"%s\", line %d, in %s\n    %s%s%s", pb->file, pb->line, pb->func, pb->code,
                                      pb->inner_frames ? "\n" : "", pb->inner_frames ? pb->inner_frames : "");
    const char *leaf = strrchr(pb->module_path, '.');
    n->source_fn = pb->module_path[0] ? ep_xasprintf("%s,%s", leaf ? leaf + 1 : pb->module_path, pb->module_type)
                                      : ep_xasprintf("%s,%s", name, target);
    char *fn = ep_xstrdup(target);
    char *dot = strchr(fn + 5, '.');
    if (dot)
        *dot = '\0';
    n->torch_fn = ep_xasprintf("%s_1;OpOverload.%s", name, strchr(fn, '.') ? strchr(fn, '.') + 1 : fn);
    free(fn);
    /* the module scope, rendered in the era's format when writing */
    n->module_stack = ep_xasprintf("%s\x1f%s", pb->module_path, pb->module_type);
}

void pb_output(ProgBuilder *pb, const char *name)
{
    pb->outputs = ep_xrealloc(pb->outputs, (size_t)(pb->noutputs + 1) * sizeof *pb->outputs);
    pb->outputs[pb->noutputs++] = (PbOutput){OUT_USER_OUTPUT, ep_xstrdup(name), NULL};
}

void pb_buffer_mutation(ProgBuilder *pb, const char *value, const char *fqn)
{
    pb->outputs = ep_xrealloc(pb->outputs, (size_t)(pb->noutputs + 1) * sizeof *pb->outputs);
    pb->outputs[pb->noutputs++] = (PbOutput){OUT_BUFFER_MUTATION, ep_xstrdup(value), ep_xstrdup(fqn)};
}

void pb_input_mutation(ProgBuilder *pb, const char *value, const char *input)
{
    pb->outputs = ep_xrealloc(pb->outputs, (size_t)(pb->noutputs + 1) * sizeof *pb->outputs);
    pb->outputs[pb->noutputs++] = (PbOutput){OUT_USER_INPUT_MUTATION, ep_xstrdup(value), ep_xstrdup(input)};
}

/* ---- JSON emission ------------------------------------------------------------------- */

/* Special floats: PyTorch < 2.7 wrote bare Infinity/NaN tokens (invalid
** JSON); cJSON cannot print those, so a marker string is printed and
** replaced afterwards. */
#define BARE_INF "@@BARE_INF@@"
#define BARE_NINF "@@BARE_NINF@@"
#define BARE_NAN "@@BARE_NAN@@"

static cJSON *json_float(double v, PbEra era)
{
    if (isfinite(v))
        return cJSON_CreateNumber(v);
    if (era >= PB_ERA_2_11)
        return cJSON_CreateString(isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
    return cJSON_CreateString(isnan(v) ? BARE_NAN : v > 0 ? BARE_INF : BARE_NINF);
}

static const char *const V2_ARG_KEYS[] = {
    "as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float", "as_floats", "as_string",
    "as_strings", "as_sym_int", "as_sym_ints", "as_scalar_type", "as_memory_format", "as_layout",
    "as_device", "as_bool", "as_bools", "as_sym_bool", "as_sym_bools", "as_graph", "as_optional_tensors",
    "as_custom_obj", NULL,
};

/* A union value: single key (schema >= 5) or every key of the era with
** nulls (schema 1 and 2).  Takes ownership of v. */
static cJSON *make_union(PbEra era, const char *const *keys, const char *key, cJSON *v)
{
    cJSON *u = cJSON_CreateObject();
    if (era >= PB_ERA_2_4 || !keys) {
        cJSON_AddItemToObject(u, key, v);
        return u;
    }
    for (const char *const *k = keys; *k; k++) {
        if (strcmp(*k, key) == 0)
            cJSON_AddItemToObject(u, *k, v);
        else
            cJSON_AddNullToObject(u, *k);
    }
    return u;
}

static cJSON *tensor_arg_json(const char *name)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    return o;
}

static cJSON *none_json(PbEra era)
{
    return era >= PB_ERA_2_11 ? cJSON_CreateTrue() : cJSON_CreateArray();
}

static cJSON *sym_arg_json(PbEra era, const Arg *a)
{
    static const char *const keys[] = {"as_name", "as_int", NULL};
    if (a->kind == ARG_SYM_INT)
        return make_union(era, keys, "as_name", cJSON_CreateString(a->ref));
    return make_union(era, keys, "as_int", cJSON_CreateNumber((double)a->lit.i));
}

static cJSON *device_json(const char *dev)
{
    cJSON *o = cJSON_CreateObject();
    const char *colon = strchr(dev, ':');
    char *type = colon ? ep_xstrndup(dev, (size_t)(colon - dev)) : ep_xstrdup(dev);
    cJSON_AddStringToObject(o, "type", type);
    if (colon)
        cJSON_AddNumberToObject(o, "index", atoi(colon + 1));
    else
        cJSON_AddNullToObject(o, "index");
    free(type);
    return o;
}

static cJSON *arg_json(PbEra era, const Arg *a)
{
    const char *const *keys = V2_ARG_KEYS;
    switch (a->kind) {
    case ARG_NONE: return make_union(era, keys, "as_none", none_json(era));
    case ARG_TENSOR: return make_union(era, keys, "as_tensor", tensor_arg_json(a->ref));
    case ARG_INT: return make_union(era, keys, "as_int", cJSON_CreateNumber((double)a->lit.i));
    case ARG_FLOAT: return make_union(era, keys, "as_float", json_float(a->lit.f, era));
    case ARG_BOOL: return make_union(era, keys, "as_bool", cJSON_CreateBool(a->lit.b));
    case ARG_STRING: return make_union(era, keys, "as_string", cJSON_CreateString(a->lit.s));
    case ARG_SYM_INT: return make_union(era, keys, "as_sym_int", sym_arg_json(era, a));
    case ARG_SCALAR_TYPE: return make_union(era, keys, "as_scalar_type", cJSON_CreateNumber((double)a->lit.i));
    case ARG_MEMORY_FORMAT: return make_union(era, keys, "as_memory_format", cJSON_CreateNumber((double)a->lit.i));
    case ARG_LAYOUT: return make_union(era, keys, "as_layout", cJSON_CreateNumber((double)a->lit.i));
    case ARG_DEVICE: return make_union(era, keys, "as_device", device_json(a->lit.s));
    default: break;
    }
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; i < a->n; i++) {
        const Arg *x = &a->items[i];
        switch (a->kind) {
        case ARG_TENSORS: cJSON_AddItemToArray(list, tensor_arg_json(x->ref)); break;
        case ARG_OPT_TENSORS: {
            static const char *const okeys[] = {"as_tensor", "as_none", NULL};
            cJSON *v;
            if (x->kind == ARG_NONE)
                v = make_union(era, okeys, "as_none", none_json(era));
            else if (era <= PB_ERA_2_2) /* the old OptionalTensorArgument held a bare name */
                v = make_union(era, okeys, "as_tensor", cJSON_CreateString(x->ref));
            else
                v = make_union(era, okeys, "as_tensor", tensor_arg_json(x->ref));
            cJSON_AddItemToArray(list, v);
            break;
        }
        case ARG_SYM_INTS: cJSON_AddItemToArray(list, sym_arg_json(era, x)); break;
        case ARG_FLOATS: cJSON_AddItemToArray(list, json_float(value_as_f64(&x->lit), era)); break;
        case ARG_BOOLS: cJSON_AddItemToArray(list, cJSON_CreateBool(x->lit.b)); break;
        default: cJSON_AddItemToArray(list, cJSON_CreateNumber((double)x->lit.i)); break;
        }
    }
    static const struct { ArgKind kind; const char *key; } lists[] = {
        {ARG_TENSORS, "as_tensors"}, {ARG_OPT_TENSORS, "as_optional_tensors"}, {ARG_SYM_INTS, "as_sym_ints"},
        {ARG_FLOATS, "as_floats"}, {ARG_BOOLS, "as_bools"}, {ARG_INTS, "as_ints"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(lists); i++)
        if (lists[i].kind == a->kind)
            return make_union(era, keys, lists[i].key, list);
    return make_union(era, keys, "as_ints", list);
}

/* A dimension as a SymInt union: "4" or a symbolic expression. */
static cJSON *symint_json(PbEra era, const char *text, int64_t hint)
{
    static const char *const keys[] = {"as_expr", "as_int", NULL};
    char *end;
    long long v = strtoll(text, &end, 10);
    if (!*end && end != text)
        return make_union(era, keys, "as_int", cJSON_CreateNumber((double)v));
    cJSON *e = cJSON_CreateObject();
    if (era >= PB_ERA_2_11) { /* srepr, as PyTorch writes since late 2024 */
        SymExpr *x = sym_parse(text, NULL, 0);
        const char *bare = x ? sym_as_symbol(x) : NULL;
        char *s = bare ? ep_xasprintf("Symbol('%s', integer=True, positive=True)", bare) : ep_xstrdup(text);
        cJSON_AddStringToObject(e, "expr_str", s);
        free(s);
        sym_free(x);
    } else {
        cJSON_AddStringToObject(e, "expr_str", text);
    }
    if (era == PB_ERA_2_1) {
        cJSON_AddNumberToObject(e, "hint", (double)hint);
    } else {
        static const char *const hkeys[] = {"as_int", "as_float", "as_bool", NULL};
        cJSON_AddItemToObject(e, "hint", make_union(era, hkeys, "as_int", cJSON_CreateNumber((double)hint)));
    }
    return make_union(era, keys, "as_expr", e);
}

/* The example value of a dimension text (symbols take their hint). */
static int64_t dim_hint(const ProgBuilder *pb, const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (!*end && end != text)
        return v;
    SymExpr *e = sym_parse(text, NULL, 0);
    SymBindings b;
    sym_bindings_init(&b);
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        for (int d = 0; d < in->ndim; d++) {
            strtoll(in->dims[d], &end, 10);
            if (*end)
                sym_bindings_set(&b, in->dims[d], in->value->sizes[d]);
        }
    }
    SymValue out = {0};
    const char *unbound;
    int64_t r = (e && sym_eval(e, &b, &out, &unbound) == SYM_OK) ? out.i : 0;
    sym_free(e);
    sym_bindings_free(&b);
    return r;
}

cJSON *pb_tensor_meta_json(const ProgBuilder *pb, PbEra era, DType dtype, int ndim, char *const *dims,
                           bool requires_grad)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "dtype", DTYPE_INFO[dtype].scalar_type + 1);
    cJSON *sizes = cJSON_AddArrayToObject(m, "sizes");
    for (int d = 0; d < ndim; d++)
        cJSON_AddItemToArray(sizes, symint_json(era, dims[d], dim_hint(pb, dims[d])));
    cJSON_AddBoolToObject(m, "requires_grad", requires_grad);
    cJSON_AddItemToObject(m, "device", device_json("cpu"));
    cJSON *strides = cJSON_AddArrayToObject(m, "strides");
    /* contiguous strides, symbolic where sizes are */
    char *st[EP_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
        if (d == ndim - 1) {
            st[d] = ep_xstrdup("1");
        } else {
            char *end;
            long long a = strtoll(st[d + 1], &end, 10);
            bool a_int = !*end;
            long long b = strtoll(dims[d + 1], &end, 10);
            bool b_int = !*end;
            if (a_int && b_int)
                st[d] = ep_xasprintf("%lld", a * (b > 1 ? b : 1));
            else if (a_int && a == 1)
                st[d] = ep_xstrdup(dims[d + 1]);
            else if (b_int && b == 1)
                st[d] = ep_xstrdup(st[d + 1]);
            else
                st[d] = ep_xasprintf("%s*%s", st[d + 1], dims[d + 1]);
        }
    }
    for (int d = 0; d < ndim; d++) {
        cJSON_AddItemToArray(strides, symint_json(era, st[d], dim_hint(pb, st[d])));
        free(st[d]);
    }
    if (era <= PB_ERA_2_2)
        cJSON_AddNumberToObject(m, "storage_offset", 0);
    else
        cJSON_AddItemToObject(m, "storage_offset", symint_json(era, "0", 0));
    cJSON_AddNumberToObject(m, "layout", 7);
    if (era == PB_ERA_2_1) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddItemToObject(w, "meta", m);
        return w;
    }
    return m;
}

static cJSON *input_spec_json(const ProgBuilder *pb, PbEra era, const PbInput *in)
{
    static const char *const keys[] = {"user_input", "parameter", "buffer", "tensor_constant", NULL};
    cJSON *body = cJSON_CreateObject();
    const char *key = "user_input";
    (void)pb;
    if (in->kind == IN_USER_INPUT) {
        Arg a = {.kind = in->is_sym ? ARG_SYM_INT : ARG_TENSOR, .ref = in->name};
        cJSON_AddItemToObject(body, "arg", arg_json(era, &a));
    } else {
        cJSON_AddItemToObject(body, "arg", tensor_arg_json(in->name));
        key = in->kind == IN_PARAMETER ? "parameter" : in->kind == IN_BUFFER ? "buffer" : "tensor_constant";
        const char *field = in->kind == IN_PARAMETER ? "parameter_name"
                            : in->kind == IN_BUFFER  ? "buffer_name"
                                                     : "tensor_constant_name";
        cJSON_AddStringToObject(body, field, in->target);
        if (in->kind == IN_BUFFER && era >= PB_ERA_2_4)
            cJSON_AddBoolToObject(body, "persistent", in->persistent);
    }
    return make_union(era, keys, key, body);
}

static cJSON *output_spec_json(PbEra era, const PbOutput *o, const ProgBuilder *pb)
{
    static const char *const keys[] = {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter",
                                       "gradient_to_user_input", NULL};
    cJSON *body = cJSON_CreateObject();
    bool sym = false;
    for (int i = 0; i < pb->nnodes; i++)
        for (int k = 0; k < pb->nodes[i].nout; k++)
            if (pb->nodes[i].outs[k].ref && strcmp(pb->nodes[i].outs[k].ref, o->value) == 0)
                sym = pb->nodes[i].outs[k].kind == ARG_SYM_INT;
    if (o->kind == OUT_USER_OUTPUT) {
        Arg a = {.kind = sym ? ARG_SYM_INT : ARG_TENSOR, .ref = o->value};
        cJSON_AddItemToObject(body, "arg", arg_json(era, &a));
        return make_union(era, keys, "user_output", body);
    }
    cJSON_AddItemToObject(body, "arg", tensor_arg_json(o->value));
    if (o->kind == OUT_BUFFER_MUTATION) {
        cJSON_AddStringToObject(body, "buffer_name", o->target);
        return make_union(era, keys, "buffer_mutation", body);
    }
    cJSON_AddStringToObject(body, "user_input_name", o->target);
    return make_union(era, keys, "user_input_mutation", body);
}

static char *leaf_spec(int nleaves, PbEra era)
{
    StrBuf sb;
    sb_init(&sb);
    if (era == PB_ERA_2_1) { /* the compact mid-2023 form */
        sb_append(&sb, "T(T(");
        for (int i = 0; i < nleaves; i++)
            sb_append(&sb, i ? ",*" : "*");
        sb_append(&sb, "),D())");
        return sb_take(&sb);
    }
    sb_append(&sb, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": "
                   "\"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    for (int i = 0; i < nleaves; i++)
        sb_printf(&sb, "%s{\"type\": null, \"context\": null, \"children_spec\": []}", i ? ", " : "");
    sb_append(&sb, "]}, {\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}]");
    return sb_take(&sb);
}

static char *out_spec_text(int n, PbEra era)
{
    if (era == PB_ERA_2_1)
        return ep_xstrdup(n == 1 ? "*" : "T(*)");
    if (n == 1)
        return ep_xstrdup("[1, {\"type\": null, \"context\": null, \"children_spec\": []}]");
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    for (int i = 0; i < n; i++)
        sb_printf(&sb, "%s{\"type\": null, \"context\": null, \"children_spec\": []}", i ? ", " : "");
    sb_append(&sb, "]}]");
    return sb_take(&sb);
}

static char *render_module_stack(const ProgBuilder *pb0, const char *scope, PbEra era)
{
    ProgBuilder tmp = *pb0;
    const char *sep = strchr(scope, '\x1f');
    char *path = ep_xstrndup(scope, (size_t)(sep - scope));
    tmp.module_path = path;
    tmp.module_type = (char *)(sep + 1);
    char *s = module_stack_text(&tmp, era);
    free(path);
    return s;
}

/* NamedArgument.kind (schema 8) of input k as torch's serializer writes it:
** serialize_inputs gives KEYWORD (2) to what the FX node holds in its
** kwargs and POSITIONAL (1) to the rest.  A traced operator's kwargs are
** its schema's keyword-only arguments (after '*': alpha, dtype, layout,
** device, pin_memory, memory_format, ...), as the dispatcher hands them to
** the tracer; a node an export pass builds holds the kwargs the pass gave it
** (the builder's inputs after '|': _assert_tensor_metadata's dtype).
** serialize_sym_op_inputs gives POSITIONAL to every operand of a
** Python-level op (_operator.add, torch.sym_max).  A target epdbg has no
** schema for keeps what the text says. */
static int input_kind(const PbNode *n, int k)
{
    if (n->in_kwarg[k])
        return 2;
    const OpDef *op = op_lookup(n->target);
    if (!op || (op->flags & OPF_POSITIONAL))
        return 1;
    int i = schema_arg_index(op->schema, n->in_names[k]);
    return i >= 0 && op->schema->args[i].kwarg_only ? 2 : 1;
}

static cJSON *node_json(const ProgBuilder *pb, PbEra era, const PbNode *n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "target", n->target);
    cJSON *ins = cJSON_AddArrayToObject(o, "inputs");
    for (int k = 0; k < n->nin; k++) {
        cJSON *na = cJSON_CreateObject();
        cJSON_AddStringToObject(na, "name", n->in_names[k]);
        cJSON_AddItemToObject(na, "arg", arg_json(era, &n->in_args[k]));
        if (era >= PB_ERA_2_11)
            cJSON_AddNumberToObject(na, "kind", input_kind(n, k));
        cJSON_AddItemToArray(ins, na);
    }
    cJSON *outs = cJSON_AddArrayToObject(o, "outputs");
    for (int k = 0; k < n->nout; k++)
        cJSON_AddItemToArray(outs, arg_json(era, &n->outs[k]));
    cJSON *meta = cJSON_AddObjectToObject(o, "metadata");
    if (n->stack_trace) {
        char *st = era <= PB_ERA_2_4 ? ep_xasprintf("  %s\n", n->stack_trace) : ep_xstrdup(n->stack_trace);
        cJSON_AddStringToObject(meta, "stack_trace", st);
        free(st);
    }
    char *ms = render_module_stack(pb, n->module_stack, era);
    cJSON_AddStringToObject(meta, "nn_module_stack", ms);
    free(ms);
    cJSON_AddStringToObject(meta, era == PB_ERA_2_1 ? "source_fn" : "source_fn_stack", n->source_fn);
    if (era >= PB_ERA_2_11) {
        cJSON_AddStringToObject(meta, "torch_fn", n->torch_fn);
        cJSON_AddNullToObject(o, "is_hop_single_tensor_return");
        cJSON_AddStringToObject(o, "name", n->name);
    }
    return o;
}

/* ---- the program JSON ------------------------------------------------------------ */

static void add_meta_entry(const ProgBuilder *pb, PbEra era, cJSON *tv, const char *name)
{
    const PbMeta *m = strmap_get(&pb->metas, name);
    if (!m || !m->is_tensor)
        return;
    cJSON_AddItemToObject(tv, name, pb_tensor_meta_json(pb, era, m->dtype, m->ndim, m->dims, false));
}

char *pb_program_json(ProgBuilder *pb, PbEra era)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *gm = cJSON_AddObjectToObject(root, "graph_module");
    cJSON *g = cJSON_AddObjectToObject(gm, "graph");
    cJSON *inputs = cJSON_AddArrayToObject(g, "inputs");
    for (int i = 0; i < pb->ninputs; i++) {
        Arg a = {.kind = pb->inputs[i].is_sym ? ARG_SYM_INT : ARG_TENSOR, .ref = pb->inputs[i].name};
        cJSON_AddItemToArray(inputs, arg_json(era, &a));
    }
    cJSON *outputs = cJSON_AddArrayToObject(g, "outputs");
    /* mutations first, then user outputs, as torch.export orders them */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < pb->noutputs; i++)
            if ((pb->outputs[i].kind == OUT_USER_OUTPUT) == (pass == 1)) {
                bool sym = strmap_get(&pb->metas, pb->outputs[i].value) &&
                           !((PbMeta *)strmap_get(&pb->metas, pb->outputs[i].value))->is_tensor;
                Arg a = {.kind = sym ? ARG_SYM_INT : ARG_TENSOR, .ref = pb->outputs[i].value};
                cJSON_AddItemToArray(outputs, arg_json(era, &a));
            }
    cJSON *nodes = cJSON_AddArrayToObject(g, "nodes");
    for (int i = 0; i < pb->nnodes; i++)
        cJSON_AddItemToArray(nodes, node_json(pb, era, &pb->nodes[i]));
    cJSON *tv = cJSON_AddObjectToObject(g, "tensor_values");
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        if (in->is_sym)
            continue;
        char *dims[EP_MAX_DIMS];
        int ndim = in->kind == IN_USER_INPUT ? in->ndim : in->value->ndim;
        for (int d = 0; d < ndim; d++)
            dims[d] = in->kind == IN_USER_INPUT ? in->dims[d] : ep_xasprintf("%lld", (long long)in->value->sizes[d]);
        cJSON_AddItemToObject(tv, in->name,
                              pb_tensor_meta_json(pb, era, in->value->dtype, ndim, dims, in->kind == IN_PARAMETER));
        if (in->kind != IN_USER_INPUT)
            for (int d = 0; d < ndim; d++)
                free(dims[d]);
    }
    for (int i = 0; i < pb->nnodes; i++)
        for (int k = 0; k < pb->nodes[i].nout; k++) {
            const Arg *a = &pb->nodes[i].outs[k];
            if (a->kind == ARG_TENSORS)
                for (int j = 0; j < a->n; j++)
                    add_meta_entry(pb, era, tv, a->items[j].ref);
            else if (a->ref)
                add_meta_entry(pb, era, tv, a->ref);
        }
    cJSON *siv = cJSON_AddObjectToObject(g, "sym_int_values");
    for (int i = 0; i < pb->ninputs; i++)
        if (pb->inputs[i].is_sym)
            cJSON_AddItemToObject(siv, pb->inputs[i].name,
                                  symint_json(era, pb->inputs[i].sym_expr ? pb->inputs[i].sym_expr : pb->inputs[i].name,
                                              pb->inputs[i].sym_example));
    cJSON *sbv = cJSON_AddObjectToObject(g, "sym_bool_values");
    for (int k = 0; k < pb->sym_exprs.n; k++) {
        const StrMapEntry *en = &pb->sym_exprs.entries[k];
        const PbSymExpr *x = en->value;
        cJSON_AddItemToObject(x->is_bool ? sbv : siv, en->key, symint_json(era, x->expr, 0));
    }
    if (era >= PB_ERA_2_2)
        cJSON_AddBoolToObject(g, "is_single_tensor_return", false);
    if (era >= PB_ERA_2_11) {
        cJSON_AddObjectToObject(g, "custom_obj_values");
        cJSON_AddObjectToObject(g, "sym_float_values");
    }
    int nuser = 0;
    for (int i = 0; i < pb->noutputs; i++)
        nuser += pb->outputs[i].kind == OUT_USER_OUTPUT;
    int nuser_in = 0;
    for (int i = 0; i < pb->ninputs; i++)
        nuser_in += pb->inputs[i].kind == IN_USER_INPUT;
    char *in_spec = leaf_spec(nuser_in, era), *out_spec = out_spec_text(nuser, era);
    if (era == PB_ERA_2_1) {
        cJSON *sig = cJSON_AddObjectToObject(gm, "signature");
        cJSON *p = cJSON_AddObjectToObject(sig, "inputs_to_parameters");
        cJSON *b = cJSON_AddObjectToObject(sig, "inputs_to_buffers");
        cJSON *ui = cJSON_AddArrayToObject(sig, "user_inputs");
        for (int i = 0; i < pb->ninputs; i++) {
            const PbInput *in = &pb->inputs[i];
            if (in->kind == IN_PARAMETER)
                cJSON_AddStringToObject(p, in->name, in->target);
            else if (in->kind == IN_USER_INPUT)
                cJSON_AddItemToArray(ui, cJSON_CreateString(in->name));
            else
                cJSON_AddStringToObject(b, in->name, in->target);
        }
        cJSON *uo = cJSON_AddArrayToObject(sig, "user_outputs");
        cJSON *bm = cJSON_AddObjectToObject(sig, "buffers_to_mutate");
        for (int i = 0; i < pb->noutputs; i++) {
            if (pb->outputs[i].kind == OUT_USER_OUTPUT)
                cJSON_AddItemToArray(uo, cJSON_CreateString(pb->outputs[i].value));
            else
                cJSON_AddStringToObject(bm, pb->outputs[i].value, pb->outputs[i].target);
        }
        cJSON_AddNullToObject(sig, "backward_signature");
        cJSON *cs = cJSON_AddObjectToObject(gm, "call_spec");
        cJSON_AddStringToObject(cs, "in_spec", in_spec);
        cJSON_AddStringToObject(cs, "out_spec", out_spec);
        cJSON_AddArrayToObject(gm, "module_call_graph");
    } else {
        cJSON *sig = cJSON_AddObjectToObject(gm, "signature");
        cJSON *is = cJSON_AddArrayToObject(sig, "input_specs");
        for (int i = 0; i < pb->ninputs; i++)
            cJSON_AddItemToArray(is, input_spec_json(pb, era, &pb->inputs[i]));
        cJSON *os = cJSON_AddArrayToObject(sig, "output_specs");
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < pb->noutputs; i++)
                if ((pb->outputs[i].kind == OUT_USER_OUTPUT) == (pass == 1))
                    cJSON_AddItemToArray(os, output_spec_json(era, &pb->outputs[i], pb));
        cJSON *mcg = cJSON_AddArrayToObject(gm, "module_call_graph");
        cJSON *top = cJSON_CreateObject();
        cJSON_AddStringToObject(top, "fqn", "");
        cJSON *msig = cJSON_AddObjectToObject(top, "signature");
        cJSON_AddArrayToObject(msig, "inputs");
        cJSON_AddArrayToObject(msig, "outputs");
        cJSON_AddStringToObject(msig, "in_spec", in_spec);
        cJSON_AddStringToObject(msig, "out_spec", out_spec);
        if (era >= PB_ERA_2_11) {
            cJSON *names = cJSON_AddArrayToObject(msig, "forward_arg_names");
            for (int i = 0; i < pb->ninputs; i++)
                if (pb->inputs[i].kind == IN_USER_INPUT)
                    cJSON_AddItemToArray(names, cJSON_CreateString(pb->inputs[i].forward_name));
        }
        cJSON_AddItemToArray(mcg, top);
        if (era >= PB_ERA_2_11) {
            cJSON_AddObjectToObject(gm, "metadata");
            cJSON_AddObjectToObject(gm, "treespec_namedtuple_fields");
        }
    }
    free(in_spec);
    free(out_spec);
    cJSON *opset = cJSON_AddObjectToObject(root, "opset_version");
    cJSON_AddNumberToObject(opset, "aten", 10);
    cJSON *rc = cJSON_AddObjectToObject(root, "range_constraints");
    for (int i = 0; i < pb->nranges; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "min_val", (double)pb->ranges[i].min);
        if (pb->ranges[i].max == INT64_MAX) {
            if (era >= PB_ERA_2_11)
                cJSON_AddNullToObject(r, "max_val");
            else
                cJSON_AddItemToObject(r, "max_val", json_float(INFINITY, era));
        } else {
            cJSON_AddNumberToObject(r, "max_val", (double)pb->ranges[i].max);
        }
        cJSON_AddItemToObject(rc, pb->ranges[i].symbol, r);
    }
    if (era == PB_ERA_2_1) {
        cJSON_AddArrayToObject(root, "equality_constraints");
        cJSON_AddNumberToObject(root, "schema_version", 1);
        cJSON_AddNullToObject(root, "example_inputs");
    } else if (era == PB_ERA_2_2) {
        cJSON_AddNumberToObject(root, "schema_version", 2);
        cJSON_AddStringToObject(root, "dialect", "ATEN");
    } else {
        cJSON *sv = cJSON_AddObjectToObject(root, "schema_version");
        cJSON_AddNumberToObject(sv, "major", era == PB_ERA_2_4 ? 5 : 8);
        cJSON_AddNumberToObject(sv, "minor", era == PB_ERA_2_4 ? 3 : 17);
        if (era == PB_ERA_2_4) {
            cJSON_AddStringToObject(root, "dialect", "ATEN");
        } else {
            cJSON *ver = cJSON_AddArrayToObject(root, "verifiers");
            cJSON_AddItemToArray(ver, cJSON_CreateString("TRAINING"));
            cJSON_AddStringToObject(root, "torch_version", "2.11.0");
            cJSON *gc = cJSON_AddArrayToObject(root, "guards_code");
            for (int i = 0; i < pb->nguards_code; i++)
                cJSON_AddItemToArray(gc, cJSON_CreateString(pb->guards_code[i]));
        }
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    /* bare special floats of the old writers */
    StrBuf sb;
    sb_init(&sb);
    for (const char *p = text; *p;) {
        if (strncmp(p, "\"" BARE_INF "\"", strlen(BARE_INF) + 2) == 0) {
            sb_append(&sb, "Infinity");
            p += strlen(BARE_INF) + 2;
        } else if (strncmp(p, "\"" BARE_NINF "\"", strlen(BARE_NINF) + 2) == 0) {
            sb_append(&sb, "-Infinity");
            p += strlen(BARE_NINF) + 2;
        } else if (strncmp(p, "\"" BARE_NAN "\"", strlen(BARE_NAN) + 2) == 0) {
            sb_append(&sb, "NaN");
            p += strlen(BARE_NAN) + 2;
        } else {
            sb_appendn(&sb, p, 1);
            p++;
        }
    }
    free(text);
    return sb_take(&sb);
}
