/*
** record.c -- writing and reading replay files (record.h).
*/
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/json.h"
#include "interp/npy.h"

#define META_MEMBER "__epdbg__"

void record_meta_free(RecordMeta *m)
{
    free(m->model_path);
    free(m->model_name);
    free(m->failure);
    free(m->node);
    free(m->message);
    memset(m, 0, sizeof *m);
}

static Tensor *meta_array(const RecordMeta *m, EpError *err)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "version", 1);
    if (m->model_path)
        cJSON_AddStringToObject(o, "model", m->model_path);
    if (m->model_name)
        cJSON_AddStringToObject(o, "program", m->model_name);
    if (m->failure)
        cJSON_AddStringToObject(o, "failure", m->failure);
    if (m->node)
        cJSON_AddStringToObject(o, "node", m->node);
    if (m->message)
        cJSON_AddStringToObject(o, "message", m->message);
    if (m->status)
        cJSON_AddNumberToObject(o, "status", m->status);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    int64_t len = (int64_t)strlen(text);
    Tensor *t = tensor_empty(DT_U8, 1, &len, err);
    if (t)
        memcpy(tensor_data(t), text, (size_t)len);
    cJSON_free(text);
    return t;
}

EpStatus record_save(const char *path, const Interp *ip, const Value *inputs, int n, bool all_values,
                     const RecordMeta *meta, EpError *err)
{
    int cap = n + 1 + (all_values ? interp_num_nodes(ip) * 2 + 8 : 0);
    NpzEntry *e = ep_xcalloc((size_t)cap, sizeof *e);
    int ne = 0;
    EpStatus rc = EP_OK;
    for (int i = 0; i < n && i < interp_num_user_inputs(ip) && rc == EP_OK; i++) {
        Tensor *t = value_to_array(&inputs[i], err);
        if (!t) {
            rc = ep_fail(err, EP_ERR_USAGE, "input %s is a %s, which a replay file cannot hold",
                         interp_user_input(ip, i)->name, value_kind_name(inputs[i].kind));
            break;
        }
        e[ne].name = ep_xstrdup(interp_user_input(ip, i)->name);
        e[ne++].t = t;
    }
    for (int i = 0; all_values && rc == EP_OK && i < interp_num_nodes(ip); i++)
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
            const char *name = interp_node_output_name(ip, i, k);
            const Value *v = interp_value(ip, name);
            Tensor *t = v ? value_to_array(v, err) : NULL;
            if (!t)
                continue;
            if (ne == cap) {
                cap *= 2;
                e = ep_xrealloc(e, (size_t)cap * sizeof *e);
            }
            e[ne].name = ep_xasprintf("values/%s", name);
            e[ne++].t = t;
        }
    if (rc == EP_OK && meta) {
        if (ne == cap)
            e = ep_xrealloc(e, (size_t)++cap * sizeof *e);
        Tensor *t = meta_array(meta, err);
        if (!t)
            rc = EP_ERR_EXEC;
        else {
            e[ne].name = ep_xstrdup(META_MEMBER);
            e[ne++].t = t;
        }
    }
    if (rc == EP_OK)
        rc = npz_save(path, e, ne, err);
    for (int i = 0; i < ne; i++) {
        free(e[i].name);
        tensor_unref(e[i].t);
    }
    free(e);
    return rc;
}

static char *json_string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? ep_xstrdup(v->valuestring) : NULL;
}

EpStatus record_load_meta(const char *path, RecordMeta *meta, EpError *err)
{
    memset(meta, 0, sizeof *meta);
    NpzArchive z;
    EpStatus rc = npz_load(path, &z, err);
    if (rc)
        return rc;
    for (int i = 0; i < z.n && rc == EP_OK; i++) {
        if (strcmp(z.entries[i].name, META_MEMBER) != 0)
            continue;
        const Tensor *t = z.entries[i].t;
        if (t->dtype != DT_U8 || t->ndim != 1) {
            rc = ep_fail(err, EP_ERR_FORMAT, "%s:%s.npy: not an epdbg record (expected uint8 text)", path,
                         META_MEMBER);
            break;
        }
        cJSON *o = json_parse(tensor_data(t), (size_t)t->sizes[0], path, err);
        if (!o || !cJSON_IsObject(o)) {
            cJSON_Delete(o);
            rc = o ? ep_fail(err, EP_ERR_FORMAT, "%s:%s.npy: the record is not a JSON object", path, META_MEMBER)
                   : EP_ERR_FORMAT;
            break;
        }
        meta->model_path = json_string(o, "model");
        meta->model_name = json_string(o, "program");
        meta->failure = json_string(o, "failure");
        meta->node = json_string(o, "node");
        meta->message = json_string(o, "message");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
        meta->status = cJSON_IsNumber(st) && st->valuedouble >= 0 && st->valuedouble < 256 ? (int)st->valuedouble : 0;
        cJSON_Delete(o);
        break; /* the first record counts: a second one would replace (and leak) it */
    }
    npz_free(&z);
    if (rc)
        record_meta_free(meta);
    return rc;
}

char *record_replay_name(const char *model_path)
{
    const char *base = strrchr(model_path, '/');
    base = base ? base + 1 : model_path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".pt2") == 0)
        len -= 4;
    const char *dir = getenv("EPDBG_REPLAY_DIR");
    bool in_dir = dir && *dir;
    for (int k = 1;; k++) {
        char *name = k == 1 ? ep_xasprintf("%s%s%.*s-replay.npz", in_dir ? dir : "", in_dir ? "/" : "", (int)len, base)
                            : ep_xasprintf("%s%s%.*s-replay-%d.npz", in_dir ? dir : "", in_dir ? "/" : "", (int)len,
                                           base, k);
        if (access(name, F_OK) != 0 || k == 1000)
            return name;
        free(name);
    }
}
