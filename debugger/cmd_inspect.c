/*
** cmd_inspect.c -- looking at values and editing them: print (with torch's
** formatting, /x, slices, .shape and .dtype), stats, display, undisplay,
** dump and set.
**
** A print target is NAME, NAME[INDEX], NAME.shape, NAME.dtype or
** NAME[INDEX].shape, where NAME is a graph value (node output, placeholder,
** node name) or a parameter/buffer FQN, which may itself contain dots.
*/
#include "cmd_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "index_expr.h"
#include "inputs.h"
#include "interp/npy.h"
#include "interp/picklewrite.h"

typedef enum Suffix { SUF_NONE, SUF_SHAPE, SUF_DTYPE } Suffix;

/* A parsed print target: the value it names and, for NAME[INDEX], the view
** of it (a new reference). */
typedef struct Target {
    char *name;          /* NAME, as looked up */
    const Value *value;  /* borrowed from the session */
    Tensor *view;        /* NAME[INDEX], or NULL */
    char *index;         /* INDEX, or NULL */
    Suffix suffix;
} Target;

static void target_clear(Target *t)
{
    free(t->name);
    free(t->index);
    tensor_unref(t->view);
    memset(t, 0, sizeof *t);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static EpStatus target_parse(CmdCtx *c, const char *text, Target *t, EpError *err)
{
    memset(t, 0, sizeof *t);
    size_t len = strlen(text);
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    if (len == 0)
        return ep_fail(err, EP_ERR_USAGE, "print what? a value name (`info graph` and `info signature` list them)");
    if (ends_with(text, len, ".shape") || ends_with(text, len, ".size()")) {
        t->suffix = SUF_SHAPE;
        len -= ends_with(text, len, ".shape") ? 6 : 7;
    } else if (ends_with(text, len, ".dtype")) {
        t->suffix = SUF_DTYPE;
        len -= 6;
    }
    size_t name_len = len;
    char *index = NULL;
    if (len && text[len - 1] == ']') {
        const char *open = memchr(text, '[', len);
        if (!open)
            return ep_fail(err, EP_ERR_USAGE, "unbalanced ']' in '%.*s'", (int)len, text);
        name_len = (size_t)(open - text);
        index = ep_xstrndup(open + 1, len - name_len - 2);
    } else if (memchr(text, '[', len)) {
        return ep_fail(err, EP_ERR_USAGE, "unbalanced '[' in '%.*s'", (int)len, text);
    }
    t->name = ep_xstrndup(text, name_len);
    char *trimmed = t->name;
    while (name_len && isspace((unsigned char)trimmed[name_len - 1]))
        trimmed[--name_len] = '\0';
    t->value = session_value(c->s, t->name, err);
    EpStatus rc = t->value ? EP_OK : EP_ERR_USAGE;
    if (rc == EP_OK && index) {
        if (t->value->kind != V_TENSOR)
            rc = ep_fail(err, EP_ERR_USAGE, "%s is a %s, not a tensor to index", t->name,
                         value_kind_name(t->value->kind));
        else if (!(t->view = tensor_index_expr(t->value->t, index, err)))
            rc = EP_ERR_USAGE;
    }
    t->index = index;
    if (rc)
        target_clear(t);
    return rc;
}

/* The tensor a target shows (its view, or the value itself), or NULL. */
static const Tensor *target_tensor(const Target *t)
{
    return t->view ? t->view : t->value->kind == V_TENSOR ? t->value->t : NULL;
}

static void print_shape(CmdCtx *c, const Tensor *t)
{
    out_puts(c->out, "torch.Size([");
    for (int d = 0; d < t->ndim; d++)
        out_printf(c->out, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    out_puts(c->out, "])\n");
}

EpStatus cmd_print_expr(CmdCtx *c, const char *expr, bool hex, EpError *err)
{
    Target t;
    EpStatus rc = target_parse(c, expr, &t, err);
    if (rc)
        return rc;
    const Tensor *tensor = target_tensor(&t);
    if (t.suffix != SUF_NONE && !tensor) {
        rc = ep_fail(err, EP_ERR_USAGE, "%s is a %s: it has no %s", t.name, value_kind_name(t.value->kind),
                     t.suffix == SUF_SHAPE ? "shape" : "dtype");
    } else if (t.suffix == SUF_SHAPE) {
        print_shape(c, tensor);
    } else if (t.suffix == SUF_DTYPE) {
        out_printf(c->out, "torch.%s\n", dtype_name(tensor->dtype));
    } else {
        PrintOptions po = PRINT_OPTIONS_DEFAULT;
        po.hex = hex;
        char *text;
        if (tensor) {
            Value v = value_tensor((Tensor *)tensor);
            text = format_value(&v, &po);
        } else {
            text = format_value(t.value, &po);
        }
        out_printf(c->out, "%s\n", text);
        free(text);
    }
    target_clear(&t);
    return rc;
}

/* "/x" (or another format letter) at the start of args. */
static EpStatus print_format(const char **args, bool *hex, EpError *err)
{
    *hex = false;
    const char *a = *args;
    if (*a != '/')
        return EP_OK;
    if (a[1] != 'x' || (a[2] && !isspace((unsigned char)a[2])))
        return ep_fail(err, EP_ERR_USAGE, "unknown print format '%.*s' (print/x shows the bits in hex)",
                       (int)strcspn(a, " \t"), a);
    *hex = true;
    *args = a + 2;
    while (isspace((unsigned char)**args))
        (*args)++;
    return EP_OK;
}

static EpStatus cmd_print(CmdCtx *c, const char *args, EpError *err)
{
    bool hex;
    EpStatus rc = print_format(&args, &hex, err);
    if (rc)
        return rc;
    /* a header saying what is printed: the dtype and shape of a tensor */
    Target t;
    if ((rc = target_parse(c, args, &t, err)))
        return rc;
    const Tensor *tensor = target_tensor(&t);
    if (tensor && t.suffix == SUF_NONE) {
        char shape[512];
        out_printf(c->out, "%s: %s%s\n", args, dtype_name(tensor->dtype),
                   shape_str(tensor->ndim, tensor->sizes, shape, sizeof shape));
    } else if (t.suffix == SUF_NONE) {
        out_printf(c->out, "%s = ", args);
    }
    target_clear(&t);
    return cmd_print_expr(c, args, hex, err);
}

static EpStatus cmd_stats(CmdCtx *c, const char *args, EpError *err)
{
    Target t;
    EpStatus rc = target_parse(c, args, &t, err);
    if (rc)
        return rc;
    const Tensor *tensor = target_tensor(&t);
    if (!tensor || t.suffix != SUF_NONE) {
        char *text = format_value(t.value, &PRINT_OPTIONS_DEFAULT);
        out_printf(c->out, "%s = %s (not a tensor: no statistics)\n", t.name, text);
        free(text);
        target_clear(&t);
        return EP_OK;
    }
    TensorStats st;
    tensor_stats(tensor, &st);
    char shape[512];
    out_printf(c->out, "%s: %s%s, %lld values\n", args, dtype_name(tensor->dtype),
               shape_str(tensor->ndim, tensor->sizes, shape, sizeof shape), (long long)st.numel);
    int64_t finite = st.numel - st.nan - st.inf;
    if (finite > 0 && finite < st.numel)
        out_printf(c->out, "  (min to sum over the %lld finite values; torch would give nan or inf)\n",
                   (long long)finite);
    if (finite > 0) {
        out_printf(c->out, "  min      %.8g\n  max      %.8g\n  mean     %.8g\n  std      %.8g\n", st.min, st.max,
                   st.mean, st.std);
        out_printf(c->out, "  abs_max  %.8g\n  sum      %.8g\n", st.abs_max, st.sum);
    } else {
        out_puts(c->out, "  (no finite values)\n");
    }
    double pct = st.numel ? 100.0 / (double)st.numel : 0;
    out_printf(c->out, "  NaN      %lld (%.1f%%)\n  Inf      %lld (%.1f%%)\n  zeros    %lld (%.1f%%)\n",
               (long long)st.nan, (double)st.nan * pct, (long long)st.inf, (double)st.inf * pct,
               (long long)st.zeros, (double)st.zeros * pct);
    target_clear(&t);
    return EP_OK;
}

static EpStatus cmd_display(CmdCtx *c, const char *args, EpError *err)
{
    if (*args == '\0') { /* gdb: show every display now */
        for (int i = 0; i < session_num_displays(c->s); i++) {
            int id;
            const char *expr = session_display(c->s, i, &id);
            out_printf(c->out, "%d: %s = ", id, expr);
            EpError e = {0};
            if (cmd_print_expr(c, expr, false, &e))
                out_printf(c->out, "<%s>\n", e.msg);
        }
        return EP_OK;
    }
    /* the expression must make sense, though its value may not exist yet */
    Target t;
    EpStatus rc = target_parse(c, args, &t, err);
    bool later = rc && strstr(err->msg, "not been computed yet");
    if (rc && !later)
        return rc;
    if (rc == EP_OK)
        target_clear(&t);
    int id = session_display_add(c->s, args);
    out_printf(c->out, "%d: %s = ", id, args);
    EpError e = {0};
    if (cmd_print_expr(c, args, false, &e))
        out_printf(c->out, "<%s>\n", e.msg);
    return EP_OK;
}

static EpStatus cmd_undisplay(CmdCtx *c, const char *args, EpError *err)
{
    if (*args == '\0')
        return session_display_delete(c->s, -1, err);
    char word[32];
    const char *p = args;
    while (cmd_word(&p, word, sizeof word)) {
        char *end;
        long id = strtol(word, &end, 10);
        if (*end || id <= 0 || id > 1000000)
            return ep_fail(err, EP_ERR_USAGE, "expected display numbers, not '%s'", word);
        EpStatus rc = session_display_delete(c->s, (int)id, err);
        if (rc)
            return rc;
    }
    return EP_OK;
}

/* The last word of args as a file name, the rest as the target. */
static char *split_last_word(const char *args, const char **file)
{
    size_t len = strlen(args);
    while (len && isspace((unsigned char)args[len - 1]))
        len--;
    size_t start = len;
    while (start && !isspace((unsigned char)args[start - 1]))
        start--;
    *file = args + start;
    size_t tlen = start;
    while (tlen && isspace((unsigned char)args[tlen - 1]))
        tlen--;
    return ep_xstrndup(args, tlen);
}

/* t as torch.save writes a tensor: a compact copy, so the file holds only
** its elements (never a view's whole base or mapped weights), in its own
** dtype (bfloat16 stays bfloat16, unlike .npy). */
static EpStatus save_torchsave(const char *file, const Tensor *t, EpError *err)
{
    Tensor *compact = tensor_to_dtype(t, t->dtype, err);
    if (!compact)
        return EP_ERR_EXEC;
    PwObj *o = pw_tensor(compact, false);
    EpStatus rc = torchsave_save_file(file, o, err);
    pw_free(o);
    tensor_unref(compact);
    return rc;
}

static EpStatus cmd_dump(CmdCtx *c, const char *args, EpError *err)
{
    const char *file;
    char *what = split_last_word(args, &file);
    EpStatus rc = EP_OK;
    size_t flen = strlen(file);
    bool as_torchsave = ends_with(file, flen, ".pt") || ends_with(file, flen, ".pth");
    if (!*what || !*file || !(as_torchsave || ends_with(file, flen, ".npy"))) {
        free(what);
        return ep_fail(err, EP_ERR_USAGE, "usage: dump NAME FILE.npy|FILE.pt");
    }
    Target t;
    if ((rc = target_parse(c, what, &t, err))) {
        free(what);
        return rc;
    }
    Tensor *arr = t.view ? tensor_ref(t.view) : value_to_array(t.value, err);
    if (!arr)
        rc = ep_fail(err, EP_ERR_USAGE, "%s is a %s: it has no .npy form", t.name, value_kind_name(t.value->kind));
    if (rc == EP_OK && as_torchsave)
        rc = save_torchsave(file, arr, err);
    else if (rc == EP_OK)
        rc = npy_save_file(file, arr, err);
    if (rc == EP_OK) {
        char shape[512];
        out_printf(c->out, "Wrote %s (%s%s) to %s\n", what, dtype_name(arr->dtype),
                   shape_str(arr->ndim, arr->sizes, shape, sizeof shape), file);
    }
    tensor_unref(arr);
    target_clear(&t);
    free(what);
    return rc;
}

/* set INPUT = FILE: rebind user input idx for this and later runs.  Before
** any node has run the run restarts on it, so the guards check it and a new
** shape is learned; further on, a value of the same shape also replaces the
** current one, so the run goes on with it as with any edit. */
static EpStatus set_input_from_file(CmdCtx *c, int idx, const char *file, EpError *err)
{
    Interp *ip = session_interp(c->s);
    Value v;
    EpStatus rc = inputs_load_one(ip, idx, file, &v, err);
    if (rc)
        return rc;
    session_set_input(c->s, idx, &v);
    session_set_input_source(c->s, idx, file);
    char *name = inputs_display_name(ip, idx);
    out_printf(c->out, "Set input %s from %s; `run` uses it from now on.\n", name, file);
    free(name);
    int n;
    const Value *all = session_inputs(c->s, &n);
    bool complete = true;
    for (int i = 0; i < n; i++)
        complete = complete && all[i].kind != V_NONE;
    const char *ph = interp_user_input(ip, idx)->name;
    const Value *cur = interp_value(ip, ph);
    if (complete && interp_pc(ip) == 0 && interp_history_len(ip) == 0) {
        rc = session_restart(c->s, err);
    } else if (cur && cur->kind == V_TENSOR && v.kind == V_TENSOR &&
               shape_equal(cur->t->ndim, cur->t->sizes, v.t->ndim, v.t->sizes)) {
        Tensor *copy = tensor_to_dtype(v.t, cur->t->dtype, err); /* a private copy, as every edit */
        rc = copy ? session_set_value(c->s, ph, value_tensor(copy), err) : EP_ERR_EXEC;
    } else if (cur) {
        out_puts(c->out, "Its shape differs from the value in use, which the current run keeps.\n");
    }
    value_clear(&v);
    return rc;
}

/* set NAME[INDEX] = NUMBER | set NAME = NUMBER | set NAME = FILE:
** the edit goes into a private copy that replaces the value, so nothing
** else sharing its storage (a view's base, mapped weights) changes. */
static EpStatus cmd_set(CmdCtx *c, const char *args, EpError *err)
{
    const char *eq = strchr(args, '=');
    if (!eq || eq == args)
        return ep_fail(err, EP_ERR_USAGE, "usage: set NAME[INDEX] = VALUE  or  set NAME = FILE (.npy, .npz, .pt)");
    size_t lhs_len = (size_t)(eq - args);
    while (lhs_len && isspace((unsigned char)args[lhs_len - 1]))
        lhs_len--;
    char *lhs = ep_xstrndup(args, lhs_len);
    const char *rhs = eq + 1;
    while (isspace((unsigned char)*rhs))
        rhs++;
    double scalar = 0;
    bool is_scalar = parse_scalar_literal(rhs, &scalar);
    int input = is_scalar ? -1 : interp_find_user_input(session_interp(c->s), lhs);
    if (input >= 0) {
        free(lhs);
        return set_input_from_file(c, input, rhs, err);
    }
    Target t;
    EpStatus rc = target_parse(c, lhs, &t, err);
    if (rc) {
        free(lhs);
        return rc;
    }
    if (t.suffix != SUF_NONE)
        rc = ep_fail(err, EP_ERR_USAGE, "cannot set a tensor's %s", t.suffix == SUF_SHAPE ? "shape" : "dtype");
    Tensor *loaded = NULL;
    if (rc == EP_OK && !is_scalar && access(rhs, F_OK) != 0)
        rc = ep_fail(err, EP_ERR_USAGE, "set %s = '%s': not a number, and no such file (.npy, .npz or .pt)", lhs, rhs);
    else if (rc == EP_OK && !is_scalar && !(loaded = inputs_load_array(rhs, err)))
        rc = EP_ERR_USAGE;
    Value newv = value_none();
    if (rc == EP_OK && t.value->kind != V_TENSOR) {
        if (!is_scalar || t.view)
            rc = ep_fail(err, EP_ERR_USAGE, "%s is a %s: set it to a number", t.name, value_kind_name(t.value->kind));
        else if (t.value->kind == V_INT)
            newv = value_int((int64_t)scalar);
        else if (t.value->kind == V_FLOAT)
            newv = value_float(scalar);
        else if (t.value->kind == V_BOOL)
            newv = value_bool(scalar != 0);
        else
            rc = ep_fail(err, EP_ERR_USAGE, "%s is a %s: it cannot be set", t.name, value_kind_name(t.value->kind));
    } else if (rc == EP_OK) {
        const Tensor *old = t.value->t;
        Tensor *copy = tensor_to_dtype(old, old->dtype, err);
        if (!copy)
            rc = EP_ERR_EXEC;
        /* the same elements of the copy as the index selects of the original */
        Tensor *dst = NULL;
        if (rc == EP_OK && !(dst = t.index ? tensor_index_expr(copy, t.index, err) : tensor_ref(copy)))
            rc = EP_ERR_EXEC;
        if (rc == EP_OK) {
            if (loaded) {
                char s1[256], s2[256];
                if (!shape_equal(loaded->ndim, loaded->sizes, dst->ndim, dst->sizes))
                    rc = ep_fail(err, EP_ERR_USAGE, "%s: shape %s does not match %s's %s", rhs,
                                 shape_str(loaded->ndim, loaded->sizes, s1, sizeof s1), lhs,
                                 shape_str(dst->ndim, dst->sizes, s2, sizeof s2));
                else
                    rc = tensor_copy_into(dst, loaded, err);
            } else {
                Tensor *sc = tensor_scalar_f64(DT_F64, scalar, err);
                rc = sc ? tensor_copy_into(dst, sc, err) : EP_ERR_EXEC;
                tensor_unref(sc);
            }
        }
        tensor_unref(dst);
        if (rc == EP_OK)
            newv = value_tensor(copy);
        else
            tensor_unref(copy);
    }
    if (rc == EP_OK) {
        rc = session_set_value(c->s, t.name, newv, err);
        if (rc == EP_OK && loaded)
            out_printf(c->out, "Set %s from %s.\n", lhs, rhs);
        else if (rc == EP_OK)
            out_printf(c->out, "Set %s.\n", lhs);
    }
    tensor_unref(loaded);
    target_clear(&t);
    free(lhs);
    return rc;
}

static EpStatus info_display(CmdCtx *c, const char *args, EpError *err)
{
    (void)args;
    (void)err;
    int n = session_num_displays(c->s);
    if (n == 0) {
        out_puts(c->out, "No displays.\n");
        return EP_OK;
    }
    out_puts(c->out, "Expressions displayed at every stop:\n");
    for (int i = 0; i < n; i++) {
        int id;
        const char *expr = session_display(c->s, i, &id);
        out_printf(c->out, "%d: %s\n", id, expr);
    }
    return EP_OK;
}

static const Command INSPECT_COMMANDS[] = {
    {"print", "p", cmd_print, "print[/x] NAME[INDEX][.shape|.dtype]", "show a value as PyTorch prints it"},
    {"stats", NULL, cmd_stats, "stats NAME[INDEX]", "min, max, mean, std, NaN/Inf and zero counts"},
    {"display", NULL, cmd_display, "display NAME[INDEX]", "print the expression at every stop"},
    {"undisplay", NULL, cmd_undisplay, "undisplay [N...]", "stop displaying (all when none are named)"},
    {"dump", NULL, cmd_dump, "dump NAME[INDEX] FILE.npy|FILE.pt", "save a value as a numpy array or with torch.save"},
    {"set", NULL, cmd_set, "set NAME[INDEX] = VALUE|FILE", "edit a value (a user input: rebind it for later runs too)"},
};

static const Command INSPECT_INFOS[] = {
    {"display", NULL, info_display, "display", "the expressions shown at every stop"},
};

const CommandGroup CMD_GROUP_INSPECT = {"Values", INSPECT_COMMANDS,
                                        (int)(sizeof INSPECT_COMMANDS / sizeof INSPECT_COMMANDS[0]), INSPECT_INFOS,
                                        (int)(sizeof INSPECT_INFOS / sizeof INSPECT_INFOS[0])};
