/*
** fixrecords.c -- see fixrecords.h.
*/
#include "fixrecords.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"
#include "interp/npy.h"
#include "interp/zipread.h"

cJSON *fixrec_program(const char *path)
{
    EpError err = {0};
    ZipArchive *z = zipa_open_file(path, &err);
    ck_assert_msg(z != NULL, "%s", err.msg);
    int found = -1;
    for (int i = 0; i < zipa_count(z); i++) {
        const char *n = zipa_name(z, i);
        size_t len = strlen(n);
        if (len > 18 && strcmp(n + len - 18, "/models/model.json") == 0)
            found = i;
    }
    ck_assert_msg(found >= 0, "%s has no models/model.json", path);
    char *data;
    size_t len;
    ck_assert_msg(zipa_read(z, found, &data, &len, &err) == EP_OK, "%s", err.msg);
    cJSON *j = cJSON_Parse(data);
    ck_assert_msg(j != NULL, "%s: the program does not parse", path);
    free(data);
    zipa_unref(z);
    return j;
}

static const cJSON *graph(const cJSON *prog)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(prog, "graph_module"), "graph");
}

/* A recorded size: its integer, or its expression, a bare symbol's srepr
** (Symbol('s0', integer=True, positive=True)) shown as its name. */
static void size_text(const cJSON *s, StrBuf *out, bool *literal)
{
    const cJSON *i = cJSON_GetObjectItem(s, "as_int");
    if (i) {
        sb_printf(out, "%lld", (long long)i->valuedouble);
        return;
    }
    *literal = false;
    const char *e = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "as_expr"), "expr_str")->valuestring;
    char name[32];
    int n = 0;
    if (sscanf(e, "Symbol('%31[^']', integer=True, positive=True)%n", name, &n) == 1 && e[n] == '\0')
        sb_append(out, name);
    else
        sb_append(out, e);
}

char *fixrec_input_dims(const cJSON *prog, int n, const char *const *names, bool *literal)
{
    const cJSON *tv = cJSON_GetObjectItem(graph(prog), "tensor_values");
    StrBuf b;
    sb_init(&b);
    *literal = true;
    for (int i = 0; i < n; i++) {
        const cJSON *sizes = cJSON_GetObjectItem(cJSON_GetObjectItem(tv, names[i]), "sizes");
        ck_assert_msg(sizes != NULL, "no tensor_values entry for input %s", names[i]);
        sb_printf(&b, "%s%s=[", i ? " " : "", names[i]);
        for (int d = 0; d < cJSON_GetArraySize(sizes); d++) {
            if (d)
                sb_append(&b, ", ");
            size_text(cJSON_GetArrayItem(sizes, d), &b, literal);
        }
        sb_append(&b, "]");
    }
    return b.data;
}

char *fixrec_ranges(const cJSON *prog)
{
    StrBuf b;
    sb_init(&b);
    sb_append(&b, "");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(prog, "range_constraints"))
    {
        const cJSON *mx = cJSON_GetObjectItem(r, "max_val");
        sb_printf(&b, "%s%s:[%lld, ", b.len ? " " : "", r->string,
                  (long long)cJSON_GetObjectItem(r, "min_val")->valuedouble);
        if (cJSON_IsNumber(mx))
            sb_printf(&b, "%lld]", (long long)mx->valuedouble);
        else
            sb_append(&b, "oo]");
    }
    return b.data;
}

char *fixrec_asserts(const cJSON *prog)
{
    StrBuf b;
    sb_init(&b);
    sb_append(&b, "");
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(graph(prog), "nodes"))
    {
        const cJSON *t = cJSON_GetObjectItem(n, "target");
        if (!cJSON_IsString(t) || !strstr(t->valuestring, "_assert_scalar"))
            continue;
        const cJSON *in;
        cJSON_ArrayForEach(in, cJSON_GetObjectItem(n, "inputs"))
        {
            const cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(in, "arg"), "as_string");
            if (cJSON_IsString(s))
                sb_printf(&b, "%s%s", b.len ? " | " : "", s->valuestring);
        }
    }
    return b.data;
}

void fixrec_shape_text(const Tensor *t, char *buf, size_t cap)
{
    size_t at = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    snprintf(buf + at, cap > at ? cap - at : 0, "]");
}

void fixrec_check_run(const char *path, const char *want_shape, const int64_t at[2], const float want[2])
{
    Model *m;
    EpError err = {0};
    ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s", err.msg);
    Interp *ip = interp_new(m, NULL, &err);
    ck_assert_msg(ip != NULL, "%s", err.msg);
    ck_assert_msg(interp_bind_sample_inputs(ip, &err) == EP_OK, "%s: %s", path, err.msg);
    ck_assert_msg(interp_run(ip, &err) == EP_OK, "%s: %s", path, err.msg);
    ck_assert_int_eq(interp_num_user_outputs(ip), 1);
    const Value *v = interp_user_output(ip, 0);
    ck_assert(v && v->kind == V_TENSOR && v->t->dtype == DT_F32);
    char shape[128];
    fixrec_shape_text(v->t, shape, sizeof shape);
    ck_assert_msg(strcmp(shape, want_shape) == 0, "%s: output %s, want %s", path, shape, want_shape);
    Tensor *c = tensor_contiguous((Tensor *)v->t, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    for (int k = 0; k < 2 && !isnan(want[k]); k++) { /* NaN: shape only (random weights) */
        int64_t n = tensor_numel(c), idx = at[k] < 0 ? n + at[k] : at[k];
        ck_assert(idx >= 0 && idx < n);
        float got = ((const float *)tensor_data(c))[idx];
        ck_assert_msg(got == want[k], "%s: output[%lld] = %g, want %g", path, (long long)at[k], got, want[k]);
    }
    tensor_unref(c);
    interp_free(ip);
    model_free(m);
}

char *fixrec_write_npy(const char *dir, const char *name, DType dtype, int ndim, const int64_t *sizes, double fill)
{
    EpError err = {0};
    Tensor *t = tensor_empty(dtype, ndim, sizes, &err);
    ck_assert_msg(t != NULL, "%s", err.msg);
    for (int64_t k = 0; k < tensor_numel(t); k++) {
        if (dtype == DT_I64)
            ((int64_t *)tensor_data(t))[k] = (int64_t)fill;
        else
            ((float *)tensor_data(t))[k] = (float)fill;
    }
    char *path = ep_xasprintf("%s/%s.npy", dir, name);
    ck_assert_msg(npy_save_file(path, t, &err) == EP_OK, "%s", err.msg);
    tensor_unref(t);
    return path;
}
