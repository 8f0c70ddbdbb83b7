/*
** refcheck.c -- run an archive on reference inputs and compare its outputs
** with reference outputs (in0.npy ... / out0.npy ... in a folder), as the
** corpus README prescribes.  Shared by the corpus and example suites.
*/
#include "refcheck.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/npy.h"

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int ref_count_files(const char *dir, const char *prefix)
{
    int n = 0;
    for (;; n++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s%d.npy", dir, prefix, n);
        if (!file_exists(path))
            return n;
    }
}

Value ref_input_value(const UserInput *u, Tensor *t, EpError *err)
{
    if (u->kind == ARG_TENSOR) {
        if (u->meta && u->meta->dtype == DT_BF16 && t->dtype == DT_F32) /* .npy has no bfloat16 */
            return value_tensor(tensor_to_dtype(t, DT_BF16, err));
        return value_tensor(tensor_ref(t));
    }
    if (t->dtype == DT_BOOL)
        return value_bool(tensor_item_i64(t) != 0);
    if (dtype_is_float(t->dtype))
        return value_float(tensor_item_f64(t));
    return value_int(tensor_item_i64(t));
}

bool ref_check(const char *archive, const char *model_name, const char *refdir, const KernelConfig *kcfg,
               char *msg, size_t cap)
{
    EpError err = {0};
    Model *m = NULL;
    Interp *ip = NULL;
    bool ok = false;
    int nin = ref_count_files(refdir, "in"), nout = ref_count_files(refdir, "out");
    Value *ins = ep_xcalloc((size_t)nin + 1, sizeof *ins);
    if (model_open(archive, model_name, &m, &err)) {
        snprintf(msg, cap, "load: %s", err.msg);
        goto done;
    }
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    opt.kernels = *kcfg;
    ip = interp_new(m, &opt, &err);
    if (!ip) {
        snprintf(msg, cap, "prepare: %s", err.msg);
        goto done;
    }
    if (nin != interp_num_user_inputs(ip)) {
        snprintf(msg, cap, "%d reference inputs for %d program inputs", nin, interp_num_user_inputs(ip));
        goto done;
    }
    for (int i = 0; i < nin; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/in%d.npy", refdir, i);
        Tensor *t = npy_load_file(path, &err);
        if (!t) {
            snprintf(msg, cap, "%s", err.msg);
            goto done;
        }
        ins[i] = ref_input_value(interp_user_input(ip, i), t, &err);
        tensor_unref(t);
    }
    if (interp_bind(ip, ins, nin, &err) || interp_run(ip, &err)) {
        snprintf(msg, cap, "run: %s", err.msg);
        goto done;
    }
    if (nout != interp_num_user_outputs(ip)) {
        snprintf(msg, cap, "%d reference outputs, the program gave %d", nout, interp_num_user_outputs(ip));
        goto done;
    }
    ok = true;
    for (int i = 0; i < nout && ok; i++) {
        char path[1024], why[1024];
        snprintf(path, sizeof path, "%s/out%d.npy", refdir, i);
        Tensor *ref = npy_load_file(path, &err);
        if (!ref) {
            snprintf(msg, cap, "%s", err.msg);
            ok = false;
            break;
        }
        const Value *v = interp_user_output(ip, i);
        Tensor *got = NULL;
        if (v->kind == V_TENSOR)
            got = tensor_ref(v->t);
        else if (v->kind == V_INT)
            got = tensor_scalar_i64(DT_I64, v->i, &err);
        else if (v->kind == V_FLOAT)
            got = tensor_scalar_f64(DT_F64, v->f, &err);
        else if (v->kind == V_BOOL)
            got = tensor_scalar_i64(DT_BOOL, v->b, &err);
        if (!got) {
            snprintf(msg, cap, "output %d is a %s", i, value_kind_name(v->kind));
            ok = false;
        } else if (!tensors_close(got, ref, -1, -1, why, sizeof why)) {
            snprintf(msg, cap, "output %d (%s): %s", i,
                     interp_user_output_name(ip, i) ? interp_user_output_name(ip, i) : "?", why);
            ok = false;
        }
        tensor_unref(got);
        tensor_unref(ref);
    }
done:
    for (int i = 0; i < nin; i++)
        value_clear(&ins[i]);
    free(ins);
    interp_free(ip);
    model_free(m);
    return ok;
}
