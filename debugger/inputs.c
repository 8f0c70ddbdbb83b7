/*
** inputs.c -- user inputs from .npy, .npz, torch.save files and folders
** (inputs.h).  Every file becomes a list of entries, named (npz arrays,
** dict keys, kwargs) or positional (a lone array, tuple items, args); one
** binder then places the entries on the program's inputs.
*/
#include "inputs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/npy.h"
#include "interp/torchsave.h"

/* ---- the options -------------------------------------------------------------- */

void input_args_add(InputArgs *a, const char *spec)
{
    a->specs = ep_xrealloc(a->specs, (size_t)(a->n + 1) * sizeof *a->specs);
    a->specs[a->n++] = ep_xstrdup(spec);
}

void input_args_set_all(InputArgs *a, const char *path)
{
    free(a->npz);
    a->npz = ep_xstrdup(path);
}

void input_args_free(InputArgs *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->specs[i]);
    free(a->specs);
    free(a->npz);
    memset(a, 0, sizeof *a);
}

bool input_args_empty(const InputArgs *a)
{
    return a->n == 0 && !a->npz;
}

/* The next blank-separated word of *p (a new string), or NULL at the end. */
static char *next_word(const char **p)
{
    const char *s = *p;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return NULL;
    const char *e = s;
    while (*e && !isspace((unsigned char)*e))
        e++;
    *p = e;
    return ep_xstrndup(s, (size_t)(e - s));
}

EpStatus input_args_parse(const char *text, InputArgs *a, EpError *err)
{
    static const struct {
        const char *option;
        void (*take)(InputArgs *, const char *);
    } options[] = {{"--input", input_args_add}, {"--inputs", input_args_set_all}};
    const char *p = text;
    char *word;
    EpStatus rc = EP_OK;
    while (rc == EP_OK && (word = next_word(&p))) {
        int which = -1;
        const char *value = NULL;
        for (int k = 0; k < 2; k++) {
            size_t len = strlen(options[k].option);
            if (strncmp(word, options[k].option, len) == 0 && (word[len] == '\0' || word[len] == '=')) {
                which = k;
                value = word[len] == '=' ? word + len + 1 : NULL;
            }
        }
        char *owned = NULL;
        if (which >= 0 && !value)
            value = owned = next_word(&p);
        if (which < 0)
            rc = ep_fail(err, EP_ERR_USAGE, "unknown option '%s' (run takes --input FILE, --input NAME=FILE, "
                                            "--inputs FILE|DIR)", word);
        else if (!value || !*value)
            rc = ep_fail(err, EP_ERR_USAGE, "%s needs a file", options[which].option);
        else
            options[which].take(a, value);
        free(owned);
        free(word);
    }
    return rc;
}

/* ---- names ------------------------------------------------------------------------- */

const char *inputs_user_name(const Interp *ip, int i)
{
    return user_input_name(interp_user_input(ip, i));
}

char *inputs_how_to_give(const Interp *ip, bool full_screen)
{
    const char *name = interp_num_user_inputs(ip) == 1 ? inputs_user_name(ip, 0) : "NAME";
    const char *colon = full_screen ? ":" : "";
    return ep_xasprintf("`%srun --input %s=FILE`, or `%sset %s = FILE`", colon, name, colon, name);
}

char *inputs_display_name(const Interp *ip, int i)
{
    const UserInput *u = interp_user_input(ip, i);
    if (u->arg_name && strcmp(u->arg_name, u->name) != 0)
        return ep_xasprintf("%s (%s)", u->arg_name, u->name);
    return ep_xstrdup(u->name);
}

/* ---- files as entries ---------------------------------------------------------------- */

typedef struct FileEntry {
    char *name;  /* NULL: positional */
    char *where; /* "FILE", "FILE:x", "FILE: inputs[1]" for messages */
    Value v;
} FileEntry;

typedef struct InputFile {
    int n;
    FileEntry *e;
} InputFile;

static void input_file_push(InputFile *f, const char *name, char *where, Value v)
{
    f->e = ep_xrealloc(f->e, (size_t)(f->n + 1) * sizeof *f->e);
    f->e[f->n++] = (FileEntry){name ? ep_xstrdup(name) : NULL, where, v};
}

static void input_file_free(InputFile *f)
{
    for (int i = 0; i < f->n; i++) {
        free(f->e[i].name);
        free(f->e[i].where);
        value_clear(&f->e[i].v);
    }
    free(f->e);
    memset(f, 0, sizeof *f);
}

/* A pickled leaf as a value: tensors and Python numbers, as torch.export
** accepts for tensor and SymInt/SymFloat/SymBool inputs. */
static EpStatus pt_leaf(const PyObj *o, const char *where, Value *out, EpError *err)
{
    switch (o->kind) {
    case PY_TENSOR: *out = value_tensor(tensor_ref(o->tensor)); return EP_OK;
    case PY_INT: *out = value_int(o->i); return EP_OK;
    case PY_FLOAT: *out = value_float(o->f); return EP_OK;
    case PY_BOOL: *out = value_bool(o->b); return EP_OK;
    default:
        return ep_fail(err, EP_ERR_FORMAT, "%s is a %s; inputs are tensors or numbers", where,
                       pyobj_kind_name(o->kind));
    }
}

/* Positional entries from o: sequences flatten in order, as torch.export
** flattens nested args. */
static EpStatus pt_positional(const PyObj *o, const char *where, InputFile *f, EpError *err)
{
    if (o->kind == PY_TUPLE || o->kind == PY_LIST) {
        for (int i = 0; i < o->seq.n; i++) {
            char *sub = ep_xasprintf("%s[%d]", where, i);
            EpStatus rc = pt_positional(o->seq.items[i], sub, f, err);
            free(sub);
            if (rc)
                return rc;
        }
        return EP_OK;
    }
    Value v;
    EpStatus rc = pt_leaf(o, where, &v, err);
    if (rc == EP_OK)
        input_file_push(f, NULL, ep_xstrdup(where), v);
    return rc;
}

/* Named entries from a dict keyed by argument name. */
static EpStatus pt_named(const PyObj *d, const char *where, InputFile *f, EpError *err)
{
    for (int i = 0; i < d->seq.n; i++) {
        const PyObj *k = d->seq.items[2 * i], *v = d->seq.items[2 * i + 1];
        if (k->kind != PY_STR)
            return ep_fail(err, EP_ERR_FORMAT, "%s: key %d is a %s; a dict of inputs is keyed by argument name",
                           where, i, pyobj_kind_name(k->kind));
        char *sub = ep_xasprintf("%s['%s']", where, k->str.data);
        Value val;
        EpStatus rc = pt_leaf(v, sub, &val, err);
        if (rc) {
            free(sub);
            return rc;
        }
        input_file_push(f, k->str.data, sub, val);
    }
    return EP_OK;
}

static bool is_seq(const PyObj *o) { return o->kind == PY_TUPLE || o->kind == PY_LIST; }

/* What torch.save wrote: a dict by name, (args, kwargs) as torch.export
** stores example inputs, a sequence in signature order, or one leaf. */
static EpStatus pt_entries(const PyObj *o, const char *path, InputFile *f, EpError *err)
{
    char *where = ep_xasprintf("%s: inputs", path);
    EpStatus rc;
    if (o->kind == PY_DICT)
        rc = pt_named(o, where, f, err);
    else if (o->kind == PY_TUPLE && o->seq.n == 2 && is_seq(o->seq.items[0]) && o->seq.items[1]->kind == PY_DICT) {
        char *args = ep_xasprintf("%s[0]", where), *kwargs = ep_xasprintf("%s[1]", where);
        rc = pt_positional(o->seq.items[0], args, f, err);
        if (rc == EP_OK)
            rc = pt_named(o->seq.items[1], kwargs, f, err);
        free(args);
        free(kwargs);
    } else {
        rc = pt_positional(o, where, f, err);
    }
    free(where);
    return rc;
}

static EpStatus load_torchsave(const char *path, InputFile *f, EpError *err)
{
    ZipArchive *z = zipa_open_file(path, err);
    if (!z)
        return EP_ERR_FORMAT;
    PyObj *o = torchsave_load(z, err);
    EpStatus rc = o ? pt_entries(o, path, f, err) : EP_ERR_FORMAT;
    pyobj_unref(o);
    zipa_unref(z);
    return rc;
}

static EpStatus load_npz(const char *path, InputFile *f, EpError *err)
{
    NpzArchive z;
    EpStatus rc = npz_load(path, &z, err);
    if (rc)
        return rc;
    for (int k = 0; k < z.n; k++) {
        const char *name = z.entries[k].name;
        if (strchr(name, '/') || strcmp(name, "__epdbg__") == 0)
            continue; /* a replay file's intermediates and record (debugger/record.h) */
        input_file_push(f, name, ep_xasprintf("%s:%s", path, name), value_tensor(tensor_ref(z.entries[k].t)));
    }
    npz_free(&z);
    return EP_OK;
}

/* A zip is a torch.save file when a record <root>/data.pkl is in it. */
static bool zip_is_torchsave(const char *path)
{
    EpError ignored = {0};
    ZipArchive *z = zipa_open_file(path, &ignored);
    bool yes = false;
    for (int i = 0; z && i < zipa_count(z) && !yes; i++) {
        const char *name = zipa_name(z, i), *slash = strchr(name, '/');
        yes = slash && slash != name && strcmp(slash, "/data.pkl") == 0;
    }
    zipa_unref(z);
    return yes;
}

static EpStatus input_file_load(const char *path, InputFile *f, EpError *err)
{
    memset(f, 0, sizeof *f);
    unsigned char magic[6] = {0};
    FILE *fp = ep_fopen_regular(path, "rb", NULL, err);
    if (!fp)
        return EP_ERR_FORMAT;
    size_t got = fread(magic, 1, sizeof magic, fp);
    fclose(fp);
    EpStatus rc;
    if (got == 6 && memcmp(magic, "\x93NUMPY", 6) == 0) {
        Tensor *t = npy_load_file(path, err);
        if (!t)
            return EP_ERR_FORMAT;
        input_file_push(f, NULL, ep_xstrdup(path), value_tensor(t));
        return EP_OK;
    }
    if (got >= 4 && memcmp(magic, "PK", 2) == 0)
        rc = zip_is_torchsave(path) ? load_torchsave(path, f, err) : load_npz(path, f, err);
    else
        rc = ep_fail(err, EP_ERR_FORMAT, "%s: not a .npy, .npz or torch.save (.pt) file", path);
    if (rc)
        input_file_free(f);
    return rc;
}

/* The single entry of a file given for one value. */
static EpStatus input_file_single(const char *path, InputFile *f, EpError *err)
{
    EpStatus rc = input_file_load(path, f, err);
    if (rc == EP_OK && f->n != 1) {
        rc = ep_fail(err, EP_ERR_USAGE, "%s holds %d values where one is needed%s", path, f->n,
                     f->n > 1 ? " (give it with --inputs to bind them all)" : "");
        input_file_free(f);
    }
    return rc;
}

Tensor *inputs_load_array(const char *path, EpError *err)
{
    InputFile f;
    if (input_file_single(path, &f, err))
        return NULL;
    Tensor *t = f.e[0].v.kind == V_TENSOR ? tensor_ref(f.e[0].v.t) : NULL;
    if (!t)
        ep_fail(err, EP_ERR_USAGE, "%s holds a %s, not a tensor", f.e[0].where, value_kind_name(f.e[0].v.kind));
    input_file_free(&f);
    return t;
}

/* ---- binding ------------------------------------------------------------------------- */

/* A loaded value as the value user input u expects. */
static EpStatus adapt_input(const UserInput *u, const Value *v, const char *source, Value *out, EpError *err)
{
    if (u->kind == ARG_TENSOR) {
        if (v->kind != V_TENSOR)
            return ep_fail(err, EP_ERR_INPUT, "%s: input %s is a tensor, but the file holds a %s", source, u->name,
                           value_kind_name(v->kind));
        const Tensor *t = v->t;
        DType want = u->meta ? u->meta->dtype : t->dtype;
        if (want == DT_BF16 && t->dtype == DT_F32) { /* .npy cannot hold bfloat16 */
            Tensor *c = tensor_to_dtype(t, DT_BF16, err);
            if (!c)
                return EP_ERR_EXEC;
            *out = value_tensor(c);
            return EP_OK;
        }
        *out = value_copy(v);
        return EP_OK;
    }
    bool want_int = u->kind == ARG_SYM_INT || u->kind == ARG_INT;
    bool want_float = u->kind == ARG_SYM_FLOAT || u->kind == ARG_FLOAT;
    if (v->kind == V_TENSOR) {
        const Tensor *t = v->t;
        if (t->ndim != 0 && tensor_numel(t) != 1)
            return ep_fail(err, EP_ERR_INPUT, "%s: input %s is a %s and needs a 0-d array, got shape with %lld "
                           "elements", source, u->name, arg_kind_name(u->kind), (long long)tensor_numel(t));
        if (t->dtype == DT_BOOL)
            *out = value_bool(tensor_item_i64(t) != 0);
        else if (dtype_is_float(t->dtype))
            *out = want_int ? value_int((int64_t)tensor_item_f64(t)) : value_float(tensor_item_f64(t));
        else
            *out = want_float ? value_float((double)tensor_item_i64(t)) : value_int(tensor_item_i64(t));
        return EP_OK;
    }
    double x = v->kind == V_FLOAT ? v->f : v->kind == V_BOOL ? (double)v->b : (double)v->i;
    if (want_int)
        *out = v->kind == V_FLOAT ? value_int((int64_t)x) : value_int(v->kind == V_BOOL ? v->b : v->i);
    else if (want_float)
        *out = value_float(x);
    else
        *out = value_bool(x != 0);
    return EP_OK;
}

typedef struct Binder {
    const Interp *ip;
    int ni;
    Value *vals;
    bool *have;
    char **where; /* per input, the file (entry) it came from */
    int next_positional;
} Binder;

static EpStatus bind_at(Binder *b, int idx, const Value *v, const char *where, EpError *err)
{
    if (b->have[idx]) {
        char *name = inputs_display_name(b->ip, idx);
        EpStatus rc = ep_fail(err, EP_ERR_USAGE, "%s: input %s is given twice", where, name);
        free(name);
        return rc;
    }
    EpStatus rc = adapt_input(interp_user_input(b->ip, idx), v, where, &b->vals[idx], err);
    b->have[idx] = rc == EP_OK;
    if (rc == EP_OK)
        b->where[idx] = ep_xstrdup(where);
    return rc;
}

static EpStatus bind_positional(Binder *b, const Value *v, const char *where, EpError *err)
{
    while (b->next_positional < b->ni && b->have[b->next_positional])
        b->next_positional++;
    if (b->next_positional >= b->ni)
        return ep_fail(err, EP_ERR_USAGE, "%s: the program takes only %d input%s", where, b->ni,
                       b->ni == 1 ? "" : "s");
    return bind_at(b, b->next_positional, v, where, err);
}

/* An entry named by an input's name, or in<N> / arr_<N> (numpy's names). */
static int entry_input(const Binder *b, const char *name)
{
    int idx = interp_find_user_input(b->ip, name);
    if (idx < 0 && (strncmp(name, "in", 2) == 0 || strncmp(name, "arr_", 4) == 0)) {
        const char *digits = name + (name[0] == 'i' ? 2 : 4);
        char *end;
        long v = strtol(digits, &end, 10);
        if (*digits && !*end && v >= 0 && v < b->ni)
            idx = (int)v;
    }
    return idx;
}

static EpStatus bind_file(Binder *b, const InputFile *f, EpError *err)
{
    for (int k = 0; k < f->n; k++) {
        const FileEntry *e = &f->e[k];
        EpStatus rc;
        if (e->name) {
            int idx = entry_input(b, e->name);
            if (idx < 0) {
                char *desc = interp_describe_inputs(b->ip);
                rc = ep_fail(err, EP_ERR_USAGE, "%s: '%s' matches no input; the program takes:\n%s", e->where,
                             e->name, desc);
                free(desc);
            } else {
                rc = bind_at(b, idx, &e->v, e->where, err);
            }
        } else {
            rc = bind_positional(b, &e->v, e->where, err);
        }
        if (rc)
            return rc;
    }
    return EP_OK;
}

/* A folder of in0.npy, in1.npy, ... (or NAME.npy, .pt): the layout of the
** reference corpus and of oracle.py. */
static EpStatus bind_folder(Binder *b, const char *dir, EpError *err)
{
    EpStatus rc = EP_OK;
    for (int i = 0; i < b->ni && rc == EP_OK; i++) {
        const UserInput *u = interp_user_input(b->ip, i);
        const char *stems[] = {NULL, u->name, u->arg_name};
        char *path = NULL;
        for (int s = 0; s < 3 && !path; s++)
            for (int x = 0; x < 2 && !path; x++) {
                const char *ext = x ? "pt" : "npy";
                char *p = s == 0 ? ep_xasprintf("%s/in%d.%s", dir, i, ext)
                          : stems[s] ? ep_xasprintf("%s/%s.%s", dir, stems[s], ext) : NULL;
                if (p && access(p, F_OK) == 0)
                    path = p;
                else
                    free(p);
            }
        if (!path)
            continue; /* reported as missing */
        InputFile f;
        rc = input_file_single(path, &f, err);
        if (rc == EP_OK)
            rc = bind_at(b, i, &f.e[0].v, path, err);
        input_file_free(&f);
        free(path);
    }
    return rc;
}

static EpStatus missing_inputs(const Binder *b, EpError *err)
{
    StrBuf sb;
    sb_init(&sb);
    int missing = 0;
    for (int i = 0; i < b->ni; i++)
        if (!b->have[i]) {
            char *name = inputs_display_name(b->ip, i);
            sb_printf(&sb, "%s%s", missing++ ? ", " : "", name);
            free(name);
        }
    char *all = interp_describe_inputs(b->ip);
    EpStatus rc = ep_fail(err, EP_ERR_USAGE, "missing input%s %s; the program takes:\n%s", missing == 1 ? "" : "s",
                          sb.data, all);
    free(all);
    sb_free(&sb);
    return rc;
}

/* One --input option: FILE (the next unbound input) or NAME=FILE.  A
** NAME=FILE whose NAME is no input is a file name with '=' when that
** file exists. */
static EpStatus bind_option(Binder *b, const char *spec, EpError *err)
{
    const char *eq = strchr(spec, '=');
    char *name = eq ? ep_xstrndup(spec, (size_t)(eq - spec)) : NULL;
    int idx = name ? interp_find_user_input(b->ip, name) : -1;
    EpStatus rc = EP_OK;
    if (name && idx < 0 && access(spec, F_OK) != 0) {
        char *desc = interp_describe_inputs(b->ip);
        rc = ep_fail(err, EP_ERR_USAGE, "--input %s: the program has no input named '%s'; its inputs:\n%s", spec,
                     name, desc);
        free(desc);
    }
    free(name);
    if (rc)
        return rc;
    InputFile f;
    if ((rc = input_file_single(idx >= 0 ? eq + 1 : spec, &f, err)))
        return rc;
    rc = idx >= 0 ? bind_at(b, idx, &f.e[0].v, f.e[0].where, err) : bind_positional(b, &f.e[0].v, f.e[0].where, err);
    input_file_free(&f);
    return rc;
}

/* The example inputs as loaded values, each from the archive. */
static EpStatus sample_inputs(const Interp *ip, Value **vals, char ***sources, int *n, EpError *err)
{
    EpStatus rc = interp_sample_inputs(ip, vals, n, err);
    if (rc == EP_OK && sources) {
        *sources = ep_xcalloc((size_t)(*n ? *n : 1), sizeof **sources);
        for (int i = 0; i < *n; i++)
            (*sources)[i] = ep_xstrdup("the archive's example inputs");
    }
    return rc;
}

EpStatus inputs_load_traced(const Interp *ip, const InputArgs *a, const Value *keep, Value **vals, char ***sources,
                            int *n, EpError *err)
{
    if (input_args_empty(a) && !keep)
        return sample_inputs(ip, vals, sources, n, err);
    int ni = interp_num_user_inputs(ip);
    size_t cap = (size_t)(ni ? ni : 1);
    Binder b = {ip, ni, ep_xcalloc(cap, sizeof(Value)), ep_xcalloc(cap, 1), ep_xcalloc(cap, sizeof(char *)), 0};
    EpStatus rc = EP_OK;
    struct stat st;
    if (a->npz && stat(a->npz, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = bind_folder(&b, a->npz, err);
    } else if (a->npz) {
        InputFile f;
        rc = input_file_load(a->npz, &f, err);
        if (rc == EP_OK)
            rc = bind_file(&b, &f, err);
        input_file_free(&f);
    }
    for (int k = 0; k < a->n && rc == EP_OK; k++)
        rc = bind_option(&b, a->specs[k], err);
    for (int i = 0; keep && i < ni && rc == EP_OK; i++)
        if (!b.have[i] && keep[i].kind != V_NONE) {
            b.vals[i] = value_copy(&keep[i]);
            b.have[i] = true;
        }
    for (int i = 0; i < ni && rc == EP_OK; i++)
        if (!b.have[i])
            rc = missing_inputs(&b, err);
    free(b.have);
    if (rc || !sources) {
        for (int i = 0; i < ni; i++)
            free(b.where[i]);
        free(b.where);
    }
    if (rc) {
        for (int i = 0; i < ni; i++)
            value_clear(&b.vals[i]);
        free(b.vals);
        return rc;
    }
    *vals = b.vals;
    if (sources)
        *sources = b.where;
    *n = ni;
    return EP_OK;
}

EpStatus inputs_load(const Interp *ip, const InputArgs *a, const Value *keep, Value **vals, int *n, EpError *err)
{
    return inputs_load_traced(ip, a, keep, vals, NULL, n, err);
}

void inputs_sources_free(char **sources, int n)
{
    for (int i = 0; sources && i < n; i++)
        free(sources[i]);
    free(sources);
}

EpStatus inputs_load_one(const Interp *ip, int idx, const char *path, Value *out, EpError *err)
{
    InputFile f;
    EpStatus rc = input_file_single(path, &f, err);
    if (rc == EP_OK)
        rc = adapt_input(interp_user_input(ip, idx), &f.e[0].v, f.e[0].where, out, err);
    input_file_free(&f);
    return rc;
}
