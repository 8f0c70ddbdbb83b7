/*
** archive.c -- layout detection and loading of a Model from a .pt2 file.
*/
#include "archive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "pytree.h"
#include "torchsave.h"

static void weight_free(void *p)
{
    Weight *w = p;
    if (w) {
        tensor_unref(w->t);
        free(w);
    }
}

void model_free(Model *m)
{
    if (!m)
        return;
    program_free(m->ep);
    strmap_free(&m->weights, weight_free);
    strmap_free(&m->constants, weight_free);
    pyobj_unref(m->sample_inputs);
    for (int i = 0; i < m->nmodels; i++)
        free(m->models[i]);
    free(m->models);
    for (int i = 0; i < m->nextra; i++)
        free(m->extra_files[i]);
    free(m->extra_files);
    zipa_copies_free(&m->copies);
    free(m->fill_error);
    zipa_unref(m->zip);
    free(m->path);
    free(m->root);
    free(m->layout);
    free(m->name);
    free(m->format_version);
    free(m);
}

/* w's tensor with its bytes read.  The model is const to its users: the
** copies are filled behind it, once, as a cache is. */
static Tensor *ready(const Model *m, const Weight *w)
{
    if (!w)
        return NULL;
    Model *mm = (Model *)m;
    EpError err = {0};
    if (zipa_copies_fill(&mm->copies, w->t->storage, &err) != EP_OK) {
        free(mm->fill_error);
        mm->fill_error = ep_xstrdup(err.msg);
        return NULL;
    }
    return w->t;
}

Tensor *model_weight(const Model *m, const char *fqn)
{
    return ready(m, strmap_get(&m->weights, fqn));
}

Tensor *model_constant(const Model *m, const char *fqn)
{
    return ready(m, strmap_get(&m->constants, fqn));
}

const Tensor *model_weight_peek(const Model *m, const char *fqn)
{
    const Weight *w = strmap_get(&m->weights, fqn);
    return w ? w->t : NULL;
}

const Tensor *model_constant_peek(const Model *m, const char *fqn)
{
    const Weight *w = strmap_get(&m->constants, fqn);
    return w ? w->t : NULL;
}

const char *model_copy_reason(const Model *m, const Tensor *t)
{
    const ZipCopy *c = zipa_copies_find(&m->copies, t->storage);
    return c ? c->why : NULL;
}

size_t model_weight_bytes(const Model *m)
{
    size_t total = 0;
    const StrMap *maps[2] = {&m->weights, &m->constants};
    /* count each storage once: weights sharing one file are common (the
    ** list holds every storage, however many the model has) */
    const Storage **seen = ep_xmalloc((size_t)(maps[0]->n + maps[1]->n + 1) * sizeof *seen);
    int nseen = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < maps[k]->n; i++) {
            const Weight *w = maps[k]->entries[i].value;
            bool dup = false;
            for (int j = 0; j < nseen; j++)
                if (seen[j] == w->t->storage)
                    dup = true;
            if (dup)
                continue;
            seen[nseen++] = w->t->storage;
            total += w->t->storage->nbytes;
        }
    free(seen);
    return total;
}

/* ---- small helpers -------------------------------------------------------- */

static int member(const Model *m, const char *rel)
{
    char *name = ep_xasprintf("%s%s", m->root, rel);
    int i = zipa_find(m->zip, name);
    free(name);
    return i;
}

/* Read member rel (relative to the root) as text; NULL data if absent. */
static EpStatus read_member(Model *m, const char *rel, char **data, size_t *len, EpError *err)
{
    *data = NULL;
    *len = 0;
    int i = member(m, rel);
    if (i < 0)
        return EP_OK;
    return zipa_read(m->zip, i, data, len, err);
}

static char *trimmed(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
        n--;
    return ep_xstrndup(s, n);
}

/* A version record ("1", "0", "2.3"): digits and dots only. */
static bool is_version_text(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || *s == '.'))
            return false;
    return true;
}

/* Member rel, when present, holds a version number; into *out (a new
** string, NULL when absent). */
static EpStatus read_version(Model *m, const char *rel, char **out, EpError *err)
{
    char *text;
    size_t len;
    *out = NULL;
    EpStatus rc = read_member(m, rel, &text, &len, err);
    if (rc || !text)
        return rc;
    char *v = trimmed(text);
    bool ok = strlen(text) == len && is_version_text(v); /* no NUL inside, nothing but the number */
    free(text);
    if (!ok) {
        free(v);
        return ep_fail(err, EP_ERR_FORMAT, "%s: %s%s: not a version number (%zu bytes)", m->path, m->root, rel, len);
    }
    *out = v;
    return EP_OK;
}

/* Put every tensor of a torch.save dict into map (FQN -> Weight). */
static EpStatus add_dict_tensors(Model *m, StrMap *map, PyObj *dict, const char *label, EpError *err)
{
    if (!dict || dict->kind == PY_NONE)
        return EP_OK;
    if (dict->kind != PY_DICT)
        return ep_fail(err, EP_ERR_FORMAT, "%s: expected a dict of tensors, found a %s", label,
                       pyobj_kind_name(dict->kind));
    for (int i = 0; i < dict->seq.n; i++) {
        PyObj *k = dict->seq.items[2 * i], *v = dict->seq.items[2 * i + 1];
        if (k->kind != PY_STR)
            return ep_fail(err, EP_ERR_FORMAT, "%s: a key is a %s, not a name", label, pyobj_kind_name(k->kind));
        if (v->kind != PY_TENSOR)
            return ep_fail(err, EP_ERR_FORMAT, "%s: %s is a %s, not a tensor", label, k->str.data,
                           pyobj_kind_name(v->kind));
        Weight *w = ep_xmalloc(sizeof *w);
        w->t = tensor_ref(v->tensor);
        w->is_param = v->is_parameter;
        weight_free(strmap_put(map, k->str.data, w));
    }
    (void)m;
    return EP_OK;
}

/* A torch.save blob stored as member rel: a dict of tensors into map. */
static EpStatus load_torchsave_dict(Model *m, const char *rel, StrMap *map, EpError *err)
{
    int i = member(m, rel);
    if (i < 0 || zipa_size(m->zip, i) == 0)
        return EP_OK; /* absent or empty: no tensors */
    char *name = ep_xasprintf("%s%s", m->root, rel);
    ZipArchive *nested = zipa_open_nested(m->zip, name, err);
    free(name);
    if (!nested)
        return EP_ERR_FORMAT;
    PyObj *obj = torchsave_load_copying(nested, &m->copies, err);
    EpStatus rc = obj ? add_dict_tensors(m, map, obj, zipa_label(nested), err) : EP_ERR_FORMAT;
    pyobj_unref(obj);
    zipa_unref(nested);
    return rc;
}

/* Sizes/strides of a payload's tensor_meta: plain ints only. */
static EpStatus meta_ints(const JCtx *c, const JPath *p, const cJSON *list, int64_t *out, int *n)
{
    if (!cJSON_IsArray(list))
        return jfail(c, p, "expected a list");
    *n = cJSON_GetArraySize(list);
    if (*n > EP_MAX_DIMS)
        return jfail(c, p, "rank %d exceeds epdbg's limit of %d dimensions", *n, EP_MAX_DIMS);
    int i = 0;
    for (const cJSON *e = list->child; e; e = e->next, i++) {
        JPath ip = {p, NULL, i};
        const cJSON *v = e;
        if (cJSON_IsObject(e)) {
            const char *key;
            EpStatus rc = junion(c, &ip, e, &key, &v);
            if (rc)
                return rc;
            if (strcmp(key, "as_int") != 0)
                return jfail(c, &ip, "a weight's size must be a plain integer, found %s", key);
        }
        EpStatus rc = jint(c, &ip, v, &out[i]);
        if (rc)
            return rc;
    }
    return EP_OK;
}

/* Per-tensor payloads (PyTorch 2.9+): data/<kind>/<name>_<kind>_config.json
** maps FQN -> {path_name, is_param, use_pickle, tensor_meta}; the file
** data/<kind>/<path_name> holds the raw bytes of the whole storage, viewed
** as tensor_meta's dtype, sizes, strides and offset.  FQNs naming the same
** file share one storage; an empty file means zeros. */
static EpStatus load_payloads(Model *m, const char *kind, StrMap *map, EpError *err)
{
    char *cfg_rel = ep_xasprintf("data/%s/%s_%s_config.json", kind, m->name, kind);
    char *text;
    size_t len;
    EpStatus rc = read_member(m, cfg_rel, &text, &len, err);
    if (rc || !text) {
        free(cfg_rel);
        return rc;
    }
    char *label = ep_xasprintf("%s:%s%s", m->path, m->root, cfg_rel);
    free(cfg_rel);
    cJSON *root = json_parse(text, len, label, err);
    free(text);
    if (!root) {
        free(label);
        return EP_ERR_FORMAT;
    }
    JCtx c = {label, err};
    JPath cp = {NULL, "config", 0};
    const cJSON *config = jget(root, "config");
    if (!cJSON_IsObject(root))
        rc = jfail(&c, NULL, "expected an object {\"config\": {FQN: payload}}");
    else if (config && !cJSON_IsObject(config))
        rc = jfail(&c, &cp, "expected an object (FQN -> payload)");
    StrMap storages; /* path_name -> Storage* (borrowed refs held by tensors) */
    strmap_init(&storages);
    for (const cJSON *e = config ? config->child : NULL; e && rc == EP_OK; e = e->next) {
        JPath ep_ = {&cp, e->string, 0};
        if (!cJSON_IsObject(e)) {
            rc = jfail(&c, &ep_, "expected an object {path_name, is_param, use_pickle, tensor_meta}");
            break;
        }
        const cJSON *path_name = jget(e, "path_name"), *tm = jget(e, "tensor_meta");
        bool use_pickle = cJSON_IsTrue(jget(e, "use_pickle"));
        if (!cJSON_IsString(path_name)) {
            rc = jfail(&c, &ep_, "missing path_name");
            break;
        }
        if (strncmp(path_name->valuestring, "custom_obj_", 11) == 0 ||
            strncmp(path_name->valuestring, "opaque_obj_", 11) == 0)
            continue; /* torchbind / Python objects: not tensors (refused if a program input needs one) */
        char *file_rel = ep_xasprintf("data/%s/%s", kind, path_name->valuestring);
        int idx = member(m, file_rel);
        if (idx < 0) {
            rc = jfail(&c, &ep_, "names %s, which is not in the archive", file_rel);
            free(file_rel);
            break;
        }
        Weight *w = NULL;
        if (use_pickle) {
            char *full = ep_xasprintf("%s%s", m->root, file_rel);
            ZipArchive *nested = zipa_open_nested(m->zip, full, err);
            free(full);
            PyObj *obj = nested ? torchsave_load_copying(nested, &m->copies, err) : NULL;
            if (!obj) {
                rc = EP_ERR_FORMAT;
            } else if (obj->kind != PY_TENSOR) {
                rc = ep_fail(err, EP_ERR_FORMAT, "%s: %s holds a %s, not a tensor", label, file_rel,
                             pyobj_kind_name(obj->kind));
            } else {
                w = ep_xmalloc(sizeof *w);
                w->t = tensor_ref(obj->tensor);
                w->is_param = cJSON_IsTrue(jget(e, "is_param"));
            }
            pyobj_unref(obj);
            zipa_unref(nested);
        } else if (!tm) {
            rc = jfail(&c, &ep_, "tensor_meta is missing for a raw payload");
        } else {
            JPath tp = {&ep_, "tensor_meta", 0};
            const cJSON *dt = jget(tm, "dtype");
            int64_t code = 0, sizes[EP_MAX_DIMS], strides[EP_MAX_DIMS], offset = 0;
            int nd = 0, ns = 0;
            JPath dp = {&tp, "dtype", 0}, sp = {&tp, "sizes", 0}, stp = {&tp, "strides", 0};
            if (!dt)
                rc = jfail(&c, &tp, "dtype is missing");
            if (!rc)
                rc = jint(&c, &dp, dt, &code);
            DType dtype = dtype_from_scalar_type((int)code);
            if (!rc && code >= INT32_MIN && code <= INT32_MAX && !scalar_type_entry((int)code))
                rc = jfail(&c, &dp, "unknown ScalarType code %lld (torch/_export/serde/schema.py has no such value)",
                           (long long)code);
            if (!rc && dtype == DT_INVALID)
                rc = jfail(&c, &dp, "weights of dtype %s are not supported", scalar_type_name((int)code));
            if (!rc)
                rc = meta_ints(&c, &sp, jget(tm, "sizes"), sizes, &nd);
            if (!rc)
                rc = meta_ints(&c, &stp, jget(tm, "strides"), strides, &ns);
            if (!rc && ns != nd)
                rc = jfail(&c, &stp, "%d strides for %d sizes", ns, nd);
            const cJSON *so = jget(tm, "storage_offset");
            if (!rc && so) {
                JPath op = {&tp, "storage_offset", 0};
                const cJSON *v = so;
                const char *key;
                if (cJSON_IsObject(so))
                    rc = junion(&c, &op, so, &key, &v);
                if (!rc)
                    rc = jint(&c, &op, v, &offset);
            }
            if (!rc) {
                Storage *s = strmap_get(&storages, path_name->valuestring);
                Tensor *t = NULL;
                if (zipa_size(m->zip, idx) == 0) {
                    t = tensor_zeros(dtype, nd, sizes, err);
                } else {
                    if (!s) {
                        s = zipa_storage_copying(m->zip, idx, (size_t)dtype_size(dtype), &m->copies, err);
                        if (s)
                            strmap_put(&storages, path_name->valuestring, s);
                    }
                    if (s)
                        t = tensor_from_storage(s, dtype, nd, sizes, strides, offset, err);
                }
                if (!t) {
                    ep_error_prefix(err, "%s: %s", label, e->string);
                    rc = EP_ERR_FORMAT;
                    if (err)
                        err->code = EP_ERR_FORMAT;
                } else {
                    w = ep_xmalloc(sizeof *w);
                    w->t = t;
                    w->is_param = cJSON_IsTrue(jget(e, "is_param"));
                }
            }
        }
        if (w)
            weight_free(strmap_put(map, e->string, w));
        free(file_rel);
    }
    /* the map held plain pointers; each tensor keeps its own reference */
    for (int i = 0; i < storages.n; i++)
        storage_unref(storages.entries[i].value);
    strmap_free(&storages, NULL);
    cJSON_Delete(root);
    free(label);
    return rc;
}

static EpStatus load_program_member(Model *m, const char *rel, EpError *err)
{
    char *text;
    size_t len;
    EpStatus rc = read_member(m, rel, &text, &len, err);
    if (rc)
        return rc;
    if (!text)
        return ep_fail(err, EP_ERR_FORMAT, "%s: %s%s is missing", m->path, m->root, rel);
    char *label = ep_xasprintf("%s:%s%s", m->path, m->root, rel);
    rc = program_load_json(text, len, label, &m->ep, err);
    free(text);
    free(label);
    return rc;
}

static EpStatus load_sample_inputs(Model *m, const char *rel, EpError *err)
{
    int i = member(m, rel);
    if (i < 0 || zipa_size(m->zip, i) == 0)
        return EP_OK;
    char *name = ep_xasprintf("%s%s", m->root, rel);
    ZipArchive *nested = zipa_open_nested(m->zip, name, err);
    free(name);
    if (!nested)
        return EP_ERR_FORMAT;
    m->sample_inputs = torchsave_load(nested, err);
    zipa_unref(nested);
    return m->sample_inputs ? EP_OK : EP_ERR_FORMAT;
}

/* What the program's signature takes from the archive is there: every
** parameter, buffer and tensor constant has its tensor (looked up as the
** interpreter binds them: a buffer may be a constant, a constant a weight),
** and the stored example inputs, when present, flatten by the program's
** in_spec to one value per user input.  Checked at open, so `info`
** refuses an archive `run` could not start. */
static EpStatus check_program_inputs(Model *m, EpError *err)
{
    const ExportedProgram *ep = m->ep;
    int nuser = 0;
    for (int i = 0; i < ep->ninput_specs; i++) {
        const InputSpec *s = &ep->input_specs[i];
        if (s->kind == IN_USER_INPUT || s->kind == IN_CONSTANT_INPUT)
            nuser++;
        if (s->kind != IN_PARAMETER && s->kind != IN_BUFFER && s->kind != IN_TENSOR_CONSTANT)
            continue;
        bool found = s->kind == IN_PARAMETER ? model_weight_peek(m, s->target) != NULL
                                             : model_weight_peek(m, s->target) || model_constant_peek(m, s->target);
        if (!found)
            return ep_fail(err, EP_ERR_FORMAT, "%s: the %s %s is not in the archive's weights or constants", m->path,
                           input_kind_name(s->kind), s->target);
    }
    if (!m->sample_inputs)
        return EP_OK;
    const char *spec = NULL;
    for (int i = 0; i < ep->nmodule_calls && !spec; i++)
        if (ep->module_calls[i].fqn[0] == '\0')
            spec = ep->module_calls[i].in_spec;
    Value *leaves;
    int n;
    EpStatus rc = pytree_flatten(spec, m->sample_inputs, &leaves, &n, err);
    if (rc) {
        ep_error_prefix(err, "%s: stored example inputs", m->path);
        if (err)
            err->code = EP_ERR_FORMAT;
        return EP_ERR_FORMAT;
    }
    for (int i = 0; i < n; i++)
        value_clear(&leaves[i]);
    free(leaves);
    if (n != nuser)
        return ep_fail(err, EP_ERR_FORMAT, "%s: the stored example inputs have %d values for %d program inputs",
                       m->path, n, nuser);
    return EP_OK;
}

/* ---- the two layouts -------------------------------------------------------- */

static EpStatus refuse_unknown(Model *m, EpError *err);

static EpStatus open_legacy(Model *m, EpError *err)
{
    char *ver;
    EpStatus rc = read_version(m, "version", &ver, err);
    if (rc)
        return rc;
    m->format_version = ver;
    m->layout = ep_xasprintf("legacy flat zip (PyTorch 2.1-2.7%s%s)", ver ? ", version " : "", ver ? ver : "");
    if ((rc = load_program_member(m, "serialized_exported_program.json", err)))
        return rc;
    static const char *state_names[] = {"serialized_state_dict.pt", "serialized_state_dict.json"};
    static const char *const_names[] = {"serialized_constants.pt", "serialized_constants.json"};
    for (int k = 0; k < 2; k++) {
        const char **names = k == 0 ? state_names : const_names;
        const char *which = member(m, names[0]) >= 0 ? names[0] : names[1];
        if ((rc = load_torchsave_dict(m, which, k == 0 ? &m->weights : &m->constants, err)))
            return rc;
    }
    return load_sample_inputs(m, "serialized_example_inputs.pt", err);
}

/* list_only: stop once the program names are known (model_list_programs). */
static EpStatus open_pt2(Model *m, const char *want, bool list_only, EpError *err)
{
    EpStatus rc;
    /* program names: models/<name>.json directly under the root */
    char *prefix = ep_xasprintf("%smodels/", m->root);
    size_t plen = strlen(prefix);
    for (int i = 0; i < zipa_count(m->zip); i++) {
        const char *n = zipa_name(m->zip, i);
        size_t len = strlen(n);
        if (strncmp(n, prefix, plen) == 0 && len > plen + 5 && strcmp(n + len - 5, ".json") == 0 &&
            !strchr(n + plen, '/')) {
            m->models = ep_xrealloc(m->models, (size_t)(m->nmodels + 1) * sizeof *m->models);
            m->models[m->nmodels++] = ep_xstrndup(n + plen, len - plen - 5);
        }
    }
    free(prefix);
    if (m->nmodels == 0) /* AOTInductor packages also say "pt2" */
        return refuse_unknown(m, err);
    if (list_only)
        return EP_OK;
    if (want) {
        for (int i = 0; i < m->nmodels; i++)
            if (strcmp(m->models[i], want) == 0)
                m->name = ep_xstrdup(want);
    } else {
        for (int i = 0; i < m->nmodels; i++)
            if (strcmp(m->models[i], "model") == 0)
                m->name = ep_xstrdup("model");
        if (!m->name && m->nmodels == 1)
            m->name = ep_xstrdup(m->models[0]);
    }
    if (!m->name) {
        StrBuf sb;
        sb_init(&sb);
        for (int i = 0; i < m->nmodels; i++)
            sb_printf(&sb, "%s%s", i ? ", " : "", m->models[i]);
        rc = want ? ep_fail(err, EP_ERR_USAGE, "%s: no program named '%s' (the archive has: %s)", m->path, want,
                            sb.data)
                  : ep_fail(err, EP_ERR_USAGE, "%s: the archive holds several programs (%s); choose one with --model NAME",
                            m->path, sb.data);
        sb_free(&sb);
        return rc;
    }
    char *text;
    size_t len;
    if ((rc = read_version(m, "archive_version", &m->format_version, err)))
        return rc;
    if (!m->format_version)
        m->format_version = ep_xstrdup("0");
    if ((rc = read_version(m, ".data/version", &text, err)))
        return rc;
    free(text);
    if (strcmp(m->format_version, "0") != 0)
        return ep_fail(err, EP_ERR_FORMAT, "%s: archive_version %s is not known (epdbg reads version 0)", m->path,
                       m->format_version);
    if ((rc = read_member(m, "byteorder", &text, &len, err)))
        return rc;
    if (text) {
        char *bo = trimmed(text);
        bool big = strcmp(bo, "big") == 0, little = strcmp(bo, "little") == 0 && strlen(text) == len;
        free(bo);
        free(text);
        if (!big && !little)
            return ep_fail(err, EP_ERR_FORMAT, "%s: %sbyteorder: expected 'little' or 'big'", m->path, m->root);
        if (big)
            return ep_fail(err, EP_ERR_FORMAT, "%s: big-endian archive (byteorder 'big'); epdbg reads little-endian data",
                           m->path);
    }
    m->layout = ep_xasprintf("PT2 archive (PyTorch 2.8+, root %s, archive_version %s)",
                             m->root[0] ? m->root : "(none)", m->format_version);
    char *rel = ep_xasprintf("models/%s.json", m->name);
    rc = load_program_member(m, rel, err);
    free(rel);
    if (rc)
        return rc;
    static const char *kinds[2] = {"weights", "constants"};
    for (int k = 0; k < 2 && rc == EP_OK; k++) {
        StrMap *map = k == 0 ? &m->weights : &m->constants;
        char *whole = ep_xasprintf("data/%s/%s.pt", kinds[k], m->name);
        rc = member(m, whole) >= 0 ? load_torchsave_dict(m, whole, map, err) : load_payloads(m, kinds[k], map, err);
        free(whole);
    }
    if (rc)
        return rc;
    char *extra = ep_xasprintf("%sextra/", m->root);
    size_t elen = strlen(extra);
    for (int i = 0; i < zipa_count(m->zip); i++) {
        const char *n = zipa_name(m->zip, i);
        if (strncmp(n, extra, elen) == 0 && n[elen]) {
            m->extra_files = ep_xrealloc(m->extra_files, (size_t)(m->nextra + 1) * sizeof *m->extra_files);
            m->extra_files[m->nextra++] = ep_xstrdup(n + elen);
        }
    }
    free(extra);
    rel = ep_xasprintf("data/sample_inputs/%s.pt", m->name);
    rc = load_sample_inputs(m, rel, err);
    free(rel);
    return rc;
}

/* What a zip that is neither layout is, for the refusal message. */
static EpStatus refuse_unknown(Model *m, EpError *err)
{
    int naoti = 0;
    const char *example = NULL;
    for (int i = 0; i < zipa_count(m->zip); i++) {
        const char *n = zipa_name(m->zip, i);
        if (strstr(n, "data/aotinductor/")) {
            naoti++;
            if (!example || strstr(n, ".so"))
                example = n;
        }
    }
    if (naoti)
        return ep_fail(err, EP_ERR_FORMAT,
                       "%s: this is an AOTInductor package (%d compiled files under data/aotinductor/, e.g. %s), not "
                       "an exported program: it holds machine code, not an ATen graph, so there is nothing to "
                       "interpret; open the .pt2 written by torch.export.save instead",
                       m->path, naoti, strrchr(example, '/') ? strrchr(example, '/') + 1 : example);
    for (int i = 0; i < zipa_count(m->zip); i++) {
        const char *n = zipa_name(m->zip, i);
        size_t len = strlen(n);
        if (len >= 8 && strcmp(n + len - 8, "data.pkl") == 0)
            return ep_fail(err, EP_ERR_FORMAT,
                           "%s: this is a plain torch.save file (%s), not a torch.export archive; save the "
                           "program with torch.export.save",
                           m->path, n);
    }
    return ep_fail(err, EP_ERR_FORMAT,
                   "%s: not a torch.export archive (no serialized_exported_program.json and no models/<name>.json; "
                   "first member: %s)",
                   m->path, zipa_count(m->zip) ? zipa_name(m->zip, 0) : "(empty zip)");
}

/* model_open, or with list_only a Model that holds only the layout and the
** program names. */
static EpStatus open_model(const char *path, const char *model_name, bool list_only, Model **out, EpError *err)
{
    *out = NULL;
    Model *m = ep_xcalloc(1, sizeof *m);
    m->path = ep_xstrdup(path);
    m->root = ep_xstrdup("");
    m->weights_in_place = true;
    strmap_init(&m->weights);
    strmap_init(&m->constants);
    EpStatus rc;
    m->zip = zipa_open_file(path, err);
    if (!m->zip) {
        model_free(m);
        return EP_ERR_FORMAT;
    }
    /* The root folder is the first member's first path component, as
    ** PyTorch's own reader takes it. */
    const char *first = zipa_count(m->zip) ? zipa_name(m->zip, 0) : "";
    const char *slash = strchr(first, '/');
    char *text = NULL;
    size_t len;
    bool pt2 = false;
    free(m->root);
    m->root = slash ? ep_xstrndup(first, (size_t)(slash - first + 1)) : ep_xstrdup("");
    int fmt = member(m, "archive_format");
    if (fmt < 0 && m->root[0]) { /* archive_format may sit at the top level */
        char *under_root = m->root;
        m->root = ep_xstrdup("");
        fmt = member(m, "archive_format");
        if (fmt < 0) {
            free(m->root);
            m->root = under_root;
        } else {
            free(under_root);
        }
    }
    if (fmt >= 0) {
        rc = zipa_read(m->zip, fmt, &text, &len, err);
        if (rc) {
            model_free(m);
            return rc;
        }
        char *t = trimmed(text);
        pt2 = strcmp(t, "pt2") == 0;
        free(t);
        free(text);
    }
    if (pt2) {
        m->is_pt2 = true;
        rc = open_pt2(m, model_name, list_only, err);
    } else {
        free(m->root);
        m->root = ep_xstrdup("");
        if (member(m, "serialized_exported_program.json") >= 0) {
            if (model_name && strcmp(model_name, "model") != 0)
                rc = ep_fail(err, EP_ERR_USAGE, "%s: a legacy archive holds one program; --model %s does not apply",
                             path, model_name);
            else
                rc = list_only ? EP_OK : open_legacy(m, err);
        } else {
            rc = refuse_unknown(m, err);
        }
    }
    if (!rc && !list_only)
        rc = check_program_inputs(m, err);
    zipa_copies_sort(&m->copies);
    m->weights_in_place = m->copies.n == 0;
    if (rc) {
        model_free(m);
        return rc;
    }
    *out = m;
    return EP_OK;
}

EpStatus model_open(const char *path, const char *model_name, Model **out, EpError *err)
{
    return open_model(path, model_name, false, out, err);
}

EpStatus model_list_programs(const char *path, char ***names, int *n, EpError *err)
{
    Model *m;
    EpStatus rc = open_model(path, NULL, true, &m, err);
    if (rc)
        return rc;
    if (m->nmodels) {
        *names = m->models;
        *n = m->nmodels;
        m->models = NULL;
        m->nmodels = 0;
    } else { /* a legacy archive: its one program */
        *names = ep_xmalloc(sizeof **names);
        (*names)[0] = ep_xstrdup("model");
        *n = 1;
    }
    model_free(m);
    return EP_OK;
}
