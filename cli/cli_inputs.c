/*
** cli_inputs.c -- turning --input / --inputs options into the program's
** user inputs.
*/
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/npy.h"

void input_args_add(InputArgs *a, const char *spec)
{
    a->specs = ep_xrealloc(a->specs, (size_t)(a->n + 1) * sizeof *a->specs);
    a->specs[a->n++] = ep_xstrdup(spec);
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

/* A loaded array as the value user input u expects. */
static EpStatus adapt_input(const UserInput *u, Tensor *t, const char *source, Value *out, EpError *err)
{
    if (u->kind == ARG_TENSOR) {
        DType want = u->meta ? u->meta->dtype : t->dtype;
        if (want == DT_BF16 && t->dtype == DT_F32) { /* .npy cannot hold bfloat16 */
            Tensor *c = tensor_to_dtype(t, DT_BF16, err);
            if (!c)
                return EP_ERR_EXEC;
            *out = value_tensor(c);
            return EP_OK;
        }
        *out = value_tensor(tensor_ref(t));
        return EP_OK;
    }
    if (t->ndim != 0 && tensor_numel(t) != 1)
        return ep_fail(err, EP_ERR_INPUT, "%s: input %s is a %s and needs a 0-d array, got shape with %lld elements",
                       source, u->name, arg_kind_name(u->kind), (long long)tensor_numel(t));
    if (t->dtype == DT_BOOL)
        *out = value_bool(tensor_item_i64(t) != 0);
    else if (dtype_is_float(t->dtype))
        *out = u->kind == ARG_SYM_INT || u->kind == ARG_INT ? value_int((int64_t)tensor_item_f64(t))
                                                             : value_float(tensor_item_f64(t));
    else
        *out = u->kind == ARG_SYM_FLOAT || u->kind == ARG_FLOAT ? value_float((double)tensor_item_i64(t))
                                                                 : value_int(tensor_item_i64(t));
    return EP_OK;
}

static int find_input(const Interp *ip, const char *name)
{
    for (int i = 0; i < interp_num_user_inputs(ip); i++)
        if (strcmp(interp_user_input(ip, i)->name, name) == 0)
            return i;
    return -1;
}

static EpStatus missing_inputs(const Interp *ip, const bool *have, EpError *err)
{
    StrBuf sb;
    sb_init(&sb);
    char *all = interp_describe_inputs(ip);
    int missing = 0;
    for (int i = 0; i < interp_num_user_inputs(ip); i++)
        if (!have[i])
            sb_printf(&sb, "%s%s", missing++ ? ", " : "", interp_user_input(ip, i)->name);
    EpStatus rc = ep_fail(err, EP_ERR_USAGE, "missing input%s %s; the program takes:\n%s", missing == 1 ? "" : "s",
                          sb.data, all);
    free(all);
    sb_free(&sb);
    return rc;
}

EpStatus cli_load_inputs(const Interp *ip, const InputArgs *a, Value **vals, int *n, EpError *err)
{
    if (input_args_empty(a))
        return interp_sample_inputs(ip, vals, n, err);
    int ni = interp_num_user_inputs(ip);
    Value *out = ep_xcalloc((size_t)(ni ? ni : 1), sizeof *out);
    bool *have = ep_xcalloc((size_t)(ni ? ni : 1), sizeof *have);
    EpStatus rc = EP_OK;
    int next_positional = 0;
    struct stat st;
    if (a->npz && stat(a->npz, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* a folder of in0.npy, in1.npy, ... (or NAME.npy): the layout of
        ** the reference corpus and of oracle.py */
        for (int i = 0; i < ni && rc == EP_OK; i++) {
            const char *name = interp_user_input(ip, i)->name;
            char *path = ep_xasprintf("%s/in%d.npy", a->npz, i);
            if (access(path, F_OK) != 0) {
                free(path);
                path = ep_xasprintf("%s/%s.npy", a->npz, name);
            }
            if (access(path, F_OK) != 0) {
                free(path);
                continue; /* reported as missing below */
            }
            Tensor *t = npy_load_file(path, err);
            rc = t ? adapt_input(interp_user_input(ip, i), t, path, &out[i], err) : EP_ERR_FORMAT;
            tensor_unref(t);
            have[i] = rc == EP_OK;
            free(path);
        }
    } else if (a->npz) {
        NpzArchive z;
        rc = npz_load(a->npz, &z, err);
        for (int k = 0; rc == EP_OK && k < z.n; k++) {
            const char *name = z.entries[k].name;
            if (strchr(name, '/') || strcmp(name, "__epdbg__") == 0)
                continue; /* a replay file's intermediates and record (debugger/record.h) */
            int idx = find_input(ip, name);
            if (idx < 0 && (strncmp(name, "in", 2) == 0 || strncmp(name, "arr_", 4) == 0)) {
                const char *digits = name + (name[0] == 'i' ? 2 : 4);
                char *end;
                long v = strtol(digits, &end, 10);
                if (*digits && !*end && v >= 0 && v < ni)
                    idx = (int)v;
            }
            if (idx < 0) {
                rc = ep_fail(err, EP_ERR_USAGE, "%s: array '%s' matches no input (names: %s...)", a->npz, name,
                             ni ? interp_user_input(ip, 0)->name : "none");
                break;
            }
            if (have[idx]) {
                rc = ep_fail(err, EP_ERR_USAGE, "%s: input %s is given twice", a->npz, interp_user_input(ip, idx)->name);
                break;
            }
            char *src = ep_xasprintf("%s:%s", a->npz, name);
            rc = adapt_input(interp_user_input(ip, idx), z.entries[k].t, src, &out[idx], err);
            free(src);
            have[idx] = rc == EP_OK;
        }
        if (rc == EP_OK || z.n)
            npz_free(&z);
    }
    for (int k = 0; k < a->n && rc == EP_OK; k++) {
        const char *spec = a->specs[k];
        const char *eq = strchr(spec, '=');
        char *name = eq ? ep_xstrndup(spec, (size_t)(eq - spec)) : NULL;
        int idx = name ? find_input(ip, name) : -1;
        const char *path = spec;
        if (idx >= 0) {
            path = eq + 1;
        } else if (name && access(spec, F_OK) != 0) { /* NAME=FILE with an unknown NAME */
            char *desc = interp_describe_inputs(ip);
            rc = ep_fail(err, EP_ERR_USAGE, "--input %s: the program has no input named '%s'; its inputs:\n%s", spec,
                         name, desc);
            free(desc);
        } else {
            while (next_positional < ni && have[next_positional])
                next_positional++;
            idx = next_positional;
            if (idx >= ni)
                rc = ep_fail(err, EP_ERR_USAGE, "--input %s: the program takes only %d input%s", spec, ni,
                             ni == 1 ? "" : "s");
        }
        free(name);
        if (rc)
            break;
        if (have[idx]) {
            rc = ep_fail(err, EP_ERR_USAGE, "input %s is given twice", interp_user_input(ip, idx)->name);
            break;
        }
        Tensor *t = npy_load_file(path, err);
        if (!t) {
            rc = EP_ERR_FORMAT;
            break;
        }
        rc = adapt_input(interp_user_input(ip, idx), t, path, &out[idx], err);
        tensor_unref(t);
        have[idx] = rc == EP_OK;
    }
    if (rc == EP_OK)
        for (int i = 0; i < ni; i++)
            if (!have[i]) {
                rc = missing_inputs(ip, have, err);
                break;
            }
    free(have);
    if (rc) {
        for (int i = 0; i < ni; i++)
            value_clear(&out[i]);
        free(out);
        return rc;
    }
    *vals = out;
    *n = ni;
    return EP_OK;
}
