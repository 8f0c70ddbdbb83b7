/*
** pytree.c -- flattening the stored example inputs (args, kwargs) the way
** the program's in_spec says, into the flat list of user inputs.
**
** in_spec strings come in three forms (pt2-format.md section 2.7):
**   [1, NODE]   versioned JSON (2.2+), NODE = {"type", "context", "children_spec"}
**   NODE        the same without the version wrapper (late 2023)
**   T(*,*)      the compact mid-2023 form: T tuple, L list, D/O dict, * leaf
** Dict children follow the key order of the spec's context, not of the
** pickled dict, which is what makes kwargs land in the right places.
*/
#include "pytree.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

typedef struct Leaves {
    Value *items;
    int n, cap;
} Leaves;

static void push_leaf(Leaves *l, Value v)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->items = ep_xrealloc(l->items, (size_t)l->cap * sizeof *l->items);
    }
    l->items[l->n++] = v;
}

static EpStatus leaf_value(const PyObj *o, const char *path, Value *out, EpError *err)
{
    switch (o->kind) {
    case PY_TENSOR: *out = value_tensor(tensor_ref(o->tensor)); return EP_OK;
    case PY_INT: *out = value_int(o->i); return EP_OK;
    case PY_FLOAT: *out = value_float(o->f); return EP_OK;
    case PY_BOOL: *out = value_bool(o->b); return EP_OK;
    case PY_NONE: out->kind = V_NONE; return EP_OK;
    case PY_STR:
        out->kind = V_STR;
        out->s = ep_xstrdup(o->str.data);
        return EP_OK;
    default:
        return ep_fail(err, EP_ERR_FORMAT, "example input %s is a %s, which is not a tensor or number", path,
                       pyobj_kind_name(o->kind));
    }
}

/* Flatten without a spec: tuples and lists in order, dict values in order. */
static EpStatus flatten_plain(const PyObj *o, const char *path, Leaves *out, EpError *err)
{
    if (o->kind == PY_TUPLE || o->kind == PY_LIST) {
        for (int i = 0; i < o->seq.n; i++) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            EpStatus rc = flatten_plain(o->seq.items[i], sub, out, err);
            if (rc)
                return rc;
        }
        return EP_OK;
    }
    if (o->kind == PY_DICT) {
        for (int i = 0; i < o->seq.n; i++) {
            char sub[256];
            const PyObj *k = o->seq.items[2 * i];
            if (k->kind == PY_STR)
                snprintf(sub, sizeof sub, "%s['%s']", path, k->str.data);
            else
                snprintf(sub, sizeof sub, "%s[%d]", path, i);
            EpStatus rc = flatten_plain(o->seq.items[2 * i + 1], sub, out, err);
            if (rc)
                return rc;
        }
        return EP_OK;
    }
    Value v;
    EpStatus rc = leaf_value(o, path, &v, err);
    if (rc == EP_OK)
        push_leaf(out, v);
    return rc;
}

/* dict[key] where key is a JSON value from the spec context (str or int). */
static const PyObj *dict_lookup(const PyObj *d, const cJSON *key)
{
    for (int i = 0; i < d->seq.n; i++) {
        const PyObj *k = d->seq.items[2 * i];
        if (cJSON_IsString(key) && k->kind == PY_STR && strcmp(k->str.data, key->valuestring) == 0)
            return d->seq.items[2 * i + 1];
        if (cJSON_IsNumber(key) && k->kind == PY_INT && (double)k->i == key->valuedouble)
            return d->seq.items[2 * i + 1];
    }
    return NULL;
}

static bool is_type(const char *t, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(t, *names) == 0)
            return true;
    return false;
}

static EpStatus flatten_json(const cJSON *spec, const PyObj *o, const char *path, Leaves *out, EpError *err)
{
    static const char *const seq_types[] = {"builtins.tuple", "builtins.list",
                                            "torch.fx.immutable_collections.immutable_list", NULL};
    static const char *const dict_types[] = {"builtins.dict", "collections.OrderedDict", "collections.defaultdict",
                                             "torch.fx.immutable_collections.immutable_dict", NULL};
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(spec, "type");
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(spec, "children_spec");
    if (!type || cJSON_IsNull(type)) {
        Value v;
        EpStatus rc = leaf_value(o, path, &v, err);
        if (rc == EP_OK)
            push_leaf(out, v);
        return rc;
    }
    if (!cJSON_IsString(type))
        return ep_fail(err, EP_ERR_FORMAT, "in_spec: malformed node at %s", path);
    int nkids = cJSON_GetArraySize(kids);
    const char *t = type->valuestring;
    if (is_type(t, seq_types)) {
        if (o->kind != PY_TUPLE && o->kind != PY_LIST)
            return ep_fail(err, EP_ERR_FORMAT, "example inputs: %s is a %s where the program expects a %s", path,
                           pyobj_kind_name(o->kind), t);
        if (o->seq.n != nkids)
            return ep_fail(err, EP_ERR_FORMAT, "example inputs: %s has %d entries, the program's in_spec %d", path,
                           o->seq.n, nkids);
        int i = 0;
        for (const cJSON *k = kids->child; k; k = k->next, i++) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            EpStatus rc = flatten_json(k, o->seq.items[i], sub, out, err);
            if (rc)
                return rc;
        }
        return EP_OK;
    }
    if (is_type(t, dict_types)) {
        if (o->kind != PY_DICT)
            return ep_fail(err, EP_ERR_FORMAT, "example inputs: %s is a %s where the program expects a dict", path,
                           pyobj_kind_name(o->kind));
        const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(spec, "context");
        cJSON *keys = cJSON_IsString(ctx) ? cJSON_Parse(ctx->valuestring) : NULL;
        const cJSON *keylist = keys;
        if (keys && cJSON_IsObject(keys)) /* defaultdict: {"dict_context": [...]} */
            keylist = cJSON_GetObjectItemCaseSensitive(keys, "dict_context");
        if (!cJSON_IsArray(keylist) || cJSON_GetArraySize(keylist) != nkids) {
            cJSON_Delete(keys);
            return ep_fail(err, EP_ERR_FORMAT, "in_spec: dict node at %s has no usable key list", path);
        }
        EpStatus rc = EP_OK;
        const cJSON *k = kids->child;
        for (const cJSON *key = keylist->child; key && rc == EP_OK; key = key->next, k = k->next) {
            const PyObj *v = dict_lookup(o, key);
            char sub[256];
            if (cJSON_IsString(key))
                snprintf(sub, sizeof sub, "%s['%s']", path, key->valuestring);
            else
                snprintf(sub, sizeof sub, "%s[%g]", path, key->valuedouble);
            if (!v)
                rc = ep_fail(err, EP_ERR_FORMAT, "example inputs: %s is missing", sub);
            else
                rc = flatten_json(k, v, sub, out, err);
        }
        cJSON_Delete(keys);
        return rc;
    }
    return ep_fail(err, EP_ERR_FORMAT, "example inputs: %s uses container type %s, which epdbg cannot flatten",
                   path, t);
}

/* The compact form: returns the position after the node. */
static const char *flatten_compact(const char *s, const PyObj *o, const char *path, Leaves *out, EpError *err,
                                   EpStatus *rc)
{
    if (*s == '*') {
        Value v;
        *rc = leaf_value(o, path, &v, err);
        if (*rc == EP_OK)
            push_leaf(out, v);
        return s + 1;
    }
    char kind = *s;
    if ((kind != 'T' && kind != 'L' && kind != 'D' && kind != 'O') || s[1] != '(') {
        *rc = ep_fail(err, EP_ERR_FORMAT, "in_spec: unsupported node '%c' at %s", *s, path);
        return s;
    }
    bool is_dict = kind == 'D' || kind == 'O';
    if (is_dict ? o->kind != PY_DICT : (o->kind != PY_TUPLE && o->kind != PY_LIST)) {
        *rc = ep_fail(err, EP_ERR_FORMAT, "example inputs: %s is a %s, the in_spec expects %s", path,
                      pyobj_kind_name(o->kind), is_dict ? "a dict" : "a sequence");
        return s;
    }
    s += 2;
    int i = 0;
    while (*s && *s != ')' && *rc == EP_OK) {
        const PyObj *child = NULL;
        char sub[256];
        if (is_dict) {
            const char *colon = strchr(s, ':');
            if (!colon) {
                *rc = ep_fail(err, EP_ERR_FORMAT, "in_spec: malformed dict at %s", path);
                return s;
            }
            char key[128];
            snprintf(key, sizeof key, "%.*s", (int)(colon - s), s);
            cJSON *k = cJSON_CreateString(key);
            child = dict_lookup(o, k);
            cJSON_Delete(k);
            snprintf(sub, sizeof sub, "%s['%s']", path, key);
            s = colon + 1;
        } else {
            child = i < o->seq.n ? o->seq.items[i] : NULL;
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
        }
        if (!child) {
            *rc = ep_fail(err, EP_ERR_FORMAT, "example inputs: %s is missing", sub);
            return s;
        }
        s = flatten_compact(s, child, sub, out, err, rc);
        i++;
        if (*s == ',')
            s++;
    }
    if (*rc == EP_OK && *s != ')')
        *rc = ep_fail(err, EP_ERR_FORMAT, "in_spec: unterminated node at %s", path);
    return *s ? s + 1 : s;
}

EpStatus pytree_flatten(const char *in_spec, const PyObj *obj, Value **leaves, int *n, EpError *err)
{
    Leaves out = {0};
    EpStatus rc = EP_OK;
    const char *s = in_spec;
    while (s && (*s == ' ' || *s == '\n'))
        s++;
    if (!s || !*s) {
        rc = flatten_plain(obj, "inputs", &out, err);
    } else if (*s == '[' || *s == '{') {
        cJSON *j = cJSON_Parse(s);
        const cJSON *node = j;
        if (j && cJSON_IsArray(j))
            node = cJSON_GetArrayItem(j, 1);
        if (!node || !cJSON_IsObject(node))
            rc = ep_fail(err, EP_ERR_FORMAT, "in_spec is not a tree spec: %.60s", s);
        else
            rc = flatten_json(node, obj, "inputs", &out, err);
        cJSON_Delete(j);
    } else {
        flatten_compact(s, obj, "inputs", &out, err, &rc);
    }
    if (rc) {
        for (int i = 0; i < out.n; i++)
            value_clear(&out.items[i]);
        free(out.items);
        return rc;
    }
    *leaves = out.items;
    *n = out.n;
    return EP_OK;
}

/* ---- argument names ------------------------------------------------------- */

/* The keys of the keyword arguments, per leaf of the in_spec: a leaf that
** is a direct value of the kwargs dict (the second child of the root
** (args, kwargs) tuple) was passed as forward(..., key=tensor), so key is
** the user's name for it.  Leaves elsewhere (positional, or nested in a
** container) have no name of their own. */
typedef struct KeyWalk {
    int leaf;   /* leaves seen so far */
    char **keys; /* per leaf, n of them */
    int n;
} KeyWalk;

static void leaf_seen(KeyWalk *w, const char *key)
{
    if (key && w->leaf < w->n)
        w->keys[w->leaf] = ep_xstrdup(key);
    w->leaf++;
}

/* role: 1 the root, 2 the kwargs dict, 0 any other node.  key: the node's
** key in the kwargs dict, or NULL. */
static void walk_json(const cJSON *spec, int role, const char *key, KeyWalk *w)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(spec, "type");
    if (!type || cJSON_IsNull(type)) {
        leaf_seen(w, key);
        return;
    }
    cJSON *keys = NULL;
    if (role == 2 && cJSON_IsString(type) && strcmp(type->valuestring, "builtins.dict") == 0) {
        const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(spec, "context");
        keys = cJSON_IsString(ctx) ? cJSON_Parse(ctx->valuestring) : NULL;
    }
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(spec, "children_spec");
    const cJSON *k = cJSON_IsArray(keys) ? keys->child : NULL;
    int i = 0;
    for (const cJSON *kid = cJSON_IsArray(kids) ? kids->child : NULL; kid; kid = kid->next, i++) {
        walk_json(kid, role == 1 && i == 1 ? 2 : 0, k && cJSON_IsString(k) ? k->valuestring : NULL, w);
        k = k ? k->next : NULL;
    }
    cJSON_Delete(keys);
}

/* The compact form ("T(T(*,*),D(scale:*))"); returns the position after
** the node, or NULL when the text is malformed (the walk stops). */
static const char *walk_compact(const char *s, int role, const char *key, KeyWalk *w)
{
    if (*s == '*') {
        leaf_seen(w, key);
        return s + 1;
    }
    if (!*s || s[1] != '(')
        return NULL;
    bool is_dict = *s == 'D' || *s == 'O';
    s += 2;
    for (int i = 0; s && *s && *s != ')'; i++) {
        char child_key[128];
        const char *ck = NULL;
        if (is_dict) {
            const char *colon = strchr(s, ':');
            if (!colon)
                return NULL;
            if (role == 2 && colon - s < (ptrdiff_t)sizeof child_key) {
                snprintf(child_key, sizeof child_key, "%.*s", (int)(colon - s), s);
                ck = child_key;
            }
            s = colon + 1;
        }
        s = walk_compact(s, role == 1 && i == 1 ? 2 : 0, ck, w);
        if (s && *s == ',')
            s++;
    }
    return s && *s ? s + 1 : NULL;
}

/* The kwargs key of each of the n leaves of in_spec (NULL entries for the
** others); a new array of new strings. */
static char **kwarg_keys(const char *in_spec, int n)
{
    KeyWalk w = {0, ep_xcalloc((size_t)(n ? n : 1), sizeof(char *)), n};
    const char *s = in_spec;
    while (s && (*s == ' ' || *s == '\n'))
        s++;
    if (s && (*s == '[' || *s == '{')) {
        cJSON *j = cJSON_Parse(s);
        const cJSON *node = j && cJSON_IsArray(j) ? cJSON_GetArrayItem(j, 1) : j;
        if (node && cJSON_IsObject(node))
            walk_json(node, 1, NULL, &w);
        cJSON_Delete(j);
    } else if (s && *s) {
        walk_compact(s, 1, NULL, &w);
    }
    return w.keys;
}

/* dynamo's placeholder for argument NAME: "l_" NAME "_" (the source
** L['NAME'] with every run of other characters made '_', lowercased). */
static bool is_dynamo_name(const char *s)
{
    size_t n = strlen(s);
    return n > 3 && strncmp(s, "l_", 2) == 0 && s[n - 1] == '_';
}

char **pytree_arg_names(const ExportedProgram *ep, const UserInput *inputs, int n)
{
    char **names = ep_xcalloc((size_t)(n ? n : 1), sizeof *names);
    const char *in_spec = NULL;
    for (int k = 0; k < ep->nmodule_calls; k++) {
        const ModuleCall *m = &ep->module_calls[k];
        if (m->fqn[0] != '\0')
            continue;
        if (m->nforward_arg_names == n) {
            for (int i = 0; i < n; i++) {
                const char *f = m->forward_arg_names[i];
                char *end;
                long pos = strncmp(f, "args_", 5) == 0 ? strtol(f + 5, &end, 10) : -1;
                /* PyTorch names the items of `*args` args_0, args_1, ... and
                ** its own messages call them *args[0] (#160674) */
                if (pos >= 0 && f[5] >= '0' && f[5] <= '9' && *end == '\0') {
                    char buf[48];
                    snprintf(buf, sizeof buf, "*args[%ld]", pos);
                    names[i] = ep_xstrdup(buf);
                } else if (strcmp(f, inputs[i].name) != 0) {
                    names[i] = ep_xstrdup(f);
                }
            }
            return names;
        }
        if (!in_spec)
            in_spec = m->in_spec;
    }
    /* the in_spec's leaves are the user inputs and the specialised
    ** constants, in input-spec order */
    int nleaves = 0;
    for (int k = 0; k < ep->ninput_specs; k++)
        nleaves += ep->input_specs[k].kind == IN_USER_INPUT || ep->input_specs[k].kind == IN_CONSTANT_INPUT;
    char **keys = kwarg_keys(in_spec, nleaves);
    bool dynamo = true;
    for (int i = 0; i < n; i++)
        dynamo = dynamo && is_dynamo_name(inputs[i].name);
    for (int i = 0; i < n; i++) {
        int leaf = 0;
        for (int k = 0; k < inputs[i].spec_index && k < ep->ninput_specs; k++)
            leaf += ep->input_specs[k].kind == IN_USER_INPUT || ep->input_specs[k].kind == IN_CONSTANT_INPUT;
        const char *ph = inputs[i].name;
        if (leaf < nleaves && keys[leaf])
            names[i] = strcmp(keys[leaf], ph) != 0 ? ep_xstrdup(keys[leaf]) : NULL;
        else if (dynamo)
            names[i] = ep_xstrndup(ph + 2, strlen(ph) - 3);
    }
    for (int k = 0; k < nleaves; k++)
        free(keys[k]);
    free(keys);
    return names;
}
