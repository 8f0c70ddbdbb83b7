/*
** progwrite.c -- the layouts of each era, and the inference of
** tensor_values by running the program through epdbg's interpreter.
**
** This file and progbuild.c share ProgBuilder's definition through
** progbuild_int.h.
*/
#include "progbuild_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/interp.h"
#include "interp/picklewrite.h"
#include "interp/zipwrite.h"

/* ---- archives --------------------------------------------------------------------- */

/* (args, kwargs) of the user inputs, as torch.save'd example inputs. */
static PwObj *example_inputs(const ProgBuilder *pb)
{
    PwObj **items = ep_xmalloc((size_t)(pb->ninputs ? pb->ninputs : 1) * sizeof *items);
    int n = 0;
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        if (in->kind != IN_USER_INPUT)
            continue;
        items[n++] = in->is_sym ? pw_int(in->sym_example) : pw_tensor(in->value, false);
    }
    PwObj *pair[2] = {pw_tuple(n, items), pw_dict()};
    free(items);
    return pw_tuple(2, pair);
}

static bool in_state_dict(const PbInput *in)
{
    return in->kind == IN_PARAMETER || (in->kind == IN_BUFFER && in->persistent);
}

static bool in_constants(const PbInput *in)
{
    return in->kind == IN_TENSOR_CONSTANT || (in->kind == IN_BUFFER && !in->persistent);
}

static PwObj *weights_dict(const ProgBuilder *pb, bool constants)
{
    PwObj *d = pw_dict();
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        if (constants ? in_constants(in) : in_state_dict(in))
            pw_dict_set(d, in->target, pw_tensor(in->value, in->kind == IN_PARAMETER));
    }
    return d;
}

static void add_torchsave(ZipWriter *z, const char *member, PwObj *obj)
{
    size_t len;
    char *bytes = torchsave_bytes(obj, "archive", &len);
    zw_add(z, member, bytes, len);
    free(bytes);
    pw_free(obj);
}

/* PT2 per-tensor payloads: one raw file per storage plus a config. */
static void add_payloads(ZipWriter *z, const ProgBuilder *pb, const char *root, const char *model, bool constants)
{
    const char *kind = constants ? "constants" : "weights";
    const char *prefix = constants ? "tensor_" : "weight_";
    cJSON *cfg = cJSON_CreateObject();
    cJSON *map = cJSON_AddObjectToObject(cfg, "config");
    const Storage **seen = ep_xmalloc((size_t)(pb->ninputs ? pb->ninputs : 1) * sizeof *seen); /* distinct storages */
    int nseen = 0;
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        if (!(constants ? in_constants(in) : in_state_dict(in)))
            continue;
        int idx = -1;
        for (int k = 0; k < nseen; k++)
            if (seen[k] == in->value->storage)
                idx = k;
        char path[512];
        if (idx < 0) { /* a new storage: write its whole bytes once */
            idx = nseen;
            seen[nseen++] = in->value->storage;
            snprintf(path, sizeof path, "%s/data/%s/%s%d", root, kind, prefix, idx);
            zw_add(z, path, in->value->storage->data, in->value->storage->nbytes);
        }
        cJSON *e = cJSON_CreateObject();
        char name[64];
        snprintf(name, sizeof name, "%s%d", prefix, idx);
        cJSON_AddStringToObject(e, "path_name", name);
        cJSON_AddBoolToObject(e, "is_param", in->kind == IN_PARAMETER);
        cJSON_AddBoolToObject(e, "use_pickle", false);
        char *dims[EP_MAX_DIMS];
        for (int d = 0; d < in->value->ndim; d++)
            dims[d] = ep_xasprintf("%lld", (long long)in->value->sizes[d]);
        cJSON *tm = pb_tensor_meta_json(pb, PB_ERA_2_11, in->value->dtype, in->value->ndim, dims,
                                        in->kind == IN_PARAMETER);
        for (int d = 0; d < in->value->ndim; d++)
            free(dims[d]);
        cJSON_AddItemToObject(e, "tensor_meta", tm);
        cJSON_AddItemToObject(map, in->target, e);
    }
    free(seen);
    char *text = cJSON_PrintUnformatted(cfg);
    char path[512];
    snprintf(path, sizeof path, "%s/data/%s/%s_%s_config.json", root, kind, model, kind);
    zw_add(z, path, text, strlen(text));
    free(text);
    cJSON_Delete(cfg);
}

EpStatus pb_write_pt2_programs(ProgBuilder **pbs, const char *const *names, int n, const char *path,
                               const PbWriteOptions *opt, EpError *err)
{
    char *root;
    if (opt && opt->root) {
        root = ep_xstrdup(opt->root);
    } else {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strrchr(base, '.');
        root = ep_xstrndup(base, dot ? (size_t)(dot - base) : strlen(base));
    }
    ZipWriter *z = zw_new(64);
    char member[512];
    for (int p = 0; p < n; p++) {
        ProgBuilder *pb = pbs[p];
        if (opt && opt->whole_weights) {
            snprintf(member, sizeof member, "%s/data/weights/%s.pt", root, names[p]);
            add_torchsave(z, member, weights_dict(pb, false));
            snprintf(member, sizeof member, "%s/data/constants/%s.pt", root, names[p]);
            add_torchsave(z, member, weights_dict(pb, true));
        } else {
            add_payloads(z, pb, root, names[p], false);
            add_payloads(z, pb, root, names[p], true);
        }
        char *json = pb_program_json(pb, PB_ERA_2_11);
        snprintf(member, sizeof member, "%s/models/%s.json", root, names[p]);
        zw_add(z, member, json, strlen(json));
        free(json);
        if (!(opt && opt->no_example_inputs)) {
            snprintf(member, sizeof member, "%s/data/sample_inputs/%s.pt", root, names[p]);
            add_torchsave(z, member, example_inputs(pb));
        }
    }
    static const struct { const char *name, *text; } records[] = {
        {"archive_format", "pt2"}, {"archive_version", "0"}, {".data/version", "6\n"}, {"byteorder", "little"},
        {".data/serialization_id", "0123456789012345678901234567890123456789"},
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(records); i++) {
        snprintf(member, sizeof member, "%s/%s", root, records[i].name);
        zw_add(z, member, records[i].text, strlen(records[i].text));
    }
    free(root);
    EpStatus rc = zw_save(z, path, err);
    zw_free(z);
    return rc;
}

/* The flat zip of PyTorch 2.1-2.7, written by Python's zipfile (stored,
** unaligned). */
static EpStatus write_legacy(ProgBuilder *pb, const char *path, const PbWriteOptions *opt, EpError *err)
{
    PbEra era = opt->era;
    ZipWriter *z = zw_new(0);
    char *json = pb_program_json(pb, era);
    zw_add(z, "serialized_exported_program.json", json, strlen(json));
    free(json);
    /* 2.1-2.2 named the torch.save blobs .json; 2.3+ .pt */
    const char *ext = era <= PB_ERA_2_2 ? "json" : "pt";
    char name[128];
    snprintf(name, sizeof name, "serialized_state_dict.%s", ext);
    add_torchsave(z, name, weights_dict(pb, false));
    if (era >= PB_ERA_2_2) {
        snprintf(name, sizeof name, "serialized_constants.%s", ext);
        add_torchsave(z, name, weights_dict(pb, true));
    }
    if (era >= PB_ERA_2_4 && !opt->no_example_inputs)
        add_torchsave(z, "serialized_example_inputs.pt", example_inputs(pb));
    const char *version = era == PB_ERA_2_1 ? "1" : era == PB_ERA_2_2 ? "2" : "5.3";
    zw_add(z, "version", version, strlen(version));
    EpStatus rc = zw_save(z, path, err);
    zw_free(z);
    return rc;
}

/* ---- inference of tensor_values ------------------------------------------------- */

typedef struct Observed {
    StrMap values; /* name -> Value* (owned copies) */
} Observed;

static void value_box_free(void *p)
{
    Value *v = p;
    if (v) {
        value_clear(v);
        free(v);
    }
}

/* Run the program on the given user inputs and keep every node output. */
static EpStatus observe(ProgBuilder *pb, Value *inputs, int ninputs, Observed *obs, EpError *err)
{
    char tmp[] = "/tmp/epdbg-gen-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return ep_fail(err, EP_ERR_EXEC, "cannot create a temporary file");
    close(fd);
    const char *names[1] = {"model"};
    PbWriteOptions o = {.era = PB_ERA_2_11, .no_example_inputs = true};
    EpStatus rc = pb_write_pt2_programs(&pb, names, 1, tmp, &o, err);
    Model *m = NULL;
    Interp *ip = NULL;
    if (rc == EP_OK)
        rc = model_open(tmp, NULL, &m, err);
    if (rc == EP_OK) {
        InterpOptions io = INTERP_OPTIONS_DEFAULT;
        io.keep_values = true;
        ip = interp_new(m, &io, err);
        rc = ip ? EP_OK : EP_ERR_EXEC;
    }
    if (rc == EP_OK)
        rc = interp_bind(ip, inputs, ninputs, err);
    /* A node epdbg cannot run (a fixture of exactly that) stops the run;
    ** the values computed before it are still recorded. */
    while (rc == EP_OK && !interp_finished(ip)) {
        EpError ignored;
        if (interp_step(ip, &ignored))
            break;
    }
    strmap_init(&obs->values);
    for (int i = 0; rc == EP_OK && i < pb->nnodes; i++)
        for (int k = 0; k < pb->nodes[i].nout; k++) {
            const Arg *a = &pb->nodes[i].outs[k];
            int count = a->kind == ARG_TENSORS ? a->n : 1;
            for (int j = 0; j < count; j++) {
                const char *name = a->kind == ARG_TENSORS ? a->items[j].ref : a->ref;
                const Value *v = name ? interp_value(ip, name) : NULL;
                if (!v)
                    continue;
                Value *box = ep_xmalloc(sizeof *box);
                *box = value_copy(v);
                value_box_free(strmap_put(&obs->values, name, box));
            }
        }
    interp_free(ip);
    model_free(m);
    unlink(tmp);
    return rc;
}

/* Inputs with every symbol set to its example value + bump; derived
** dimensions ("2*s0") follow their symbol. */
static Value *make_inputs(ProgBuilder *pb, int bump, int *n)
{
    PbRng rng = {12345};
    SymBindings b;
    sym_bindings_init(&b);
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        for (int d = 0; in->kind == IN_USER_INPUT && !in->is_sym && d < in->ndim; d++) {
            SymExpr *e = sym_parse(in->dims[d], NULL, 0);
            const char *s = e ? sym_as_symbol(e) : NULL;
            if (s)
                sym_bindings_set(&b, s, in->value->sizes[d] + bump);
            sym_free(e);
        }
    }
    Value *v = ep_xcalloc((size_t)pb->ninputs + 1, sizeof *v);
    *n = 0;
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        if (in->kind != IN_USER_INPUT)
            continue;
        if (in->is_sym) {
            v[(*n)++] = value_int(in->sym_example + bump);
            continue;
        }
        if (bump == 0) { /* a copy: programs may write into their inputs */
            EpError err;
            v[(*n)++] = value_tensor(tensor_to_dtype(in->value, in->value->dtype, &err));
            continue;
        }
        int64_t sizes[EP_MAX_DIMS];
        for (int d = 0; d < in->ndim; d++) {
            SymExpr *e = sym_parse(in->dims[d], NULL, 0);
            SymValue val = {0};
            const char *unbound;
            sizes[d] = e && sym_eval(e, &b, &val, &unbound) == SYM_OK ? val.i : in->value->sizes[d];
            sym_free(e);
        }
        Tensor *t = dtype_is_float(in->value->dtype) ? pb_uniform(&rng, in->value->dtype, in->ndim, sizes, -1, 1)
                                                     : pb_ints(&rng, in->value->dtype, in->ndim, sizes, 0, 2);
        v[(*n)++] = value_tensor(t);
    }
    sym_bindings_free(&b);
    return v;
}

/* "2*s0 + 1", "s0 - 1", "s0": the text of a*s + b. */
static char *linear_text(int64_t a, const char *s, int64_t b)
{
    char *head = a == 1 ? ep_xstrdup(s) : a == -1 ? ep_xasprintf("-%s", s) : ep_xasprintf("%lld*%s", (long long)a, s);
    char *r = b == 0 ? ep_xstrdup(head)
                     : ep_xasprintf("%s %c %lld", head, b > 0 ? '+' : '-', (long long)(b > 0 ? b : -b));
    free(head);
    return r;
}

/* A dimension seen as da (example run) and db (symbols + 1): an integer,
** or an expression a*s + b in one input symbol. */
static char *dim_expr(const ProgBuilder *pb, int64_t da, int64_t db)
{
    if (da == db)
        return ep_xasprintf("%lld", (long long)da);
    for (int i = 0; i < pb->ninputs; i++) {
        const PbInput *in = &pb->inputs[i];
        for (int d = 0; d < in->ndim; d++) {
            SymExpr *e = sym_parse(in->dims[d], NULL, 0);
            bool bare = e && sym_as_symbol(e);
            sym_free(e);
            if (!bare)
                continue;
            int64_t h = in->value->sizes[d];
            int64_t a = db - da; /* the symbol moved by one */
            int64_t b = da - a * h;
            if (a != 0)
                return linear_text(a, in->dims[d], b);
        }
    }
    return ep_xasprintf("%lld", (long long)da);
}

static EpStatus infer_values(ProgBuilder *pb, EpError *err)
{
    strmap_free(&pb->metas, pb_meta_free);
    strmap_init(&pb->metas);
    bool symbolic = false;
    for (int i = 0; i < pb->ninputs; i++)
        for (int d = 0; d < pb->inputs[i].ndim; d++) {
            char *end;
            strtoll(pb->inputs[i].dims[d], &end, 10);
            symbolic |= *end != '\0';
        }
    int na, nb = 0;
    Value *ia = make_inputs(pb, 0, &na), *ib = symbolic ? make_inputs(pb, 1, &nb) : NULL;
    Observed oa = {0}, ob = {0};
    EpStatus rc = observe(pb, ia, na, &oa, err);
    if (rc == EP_OK && symbolic)
        rc = observe(pb, ib, nb, &ob, err);
    for (int i = 0; rc == EP_OK && i < oa.values.n; i++) {
        const char *name = oa.values.entries[i].key;
        const Value *va = oa.values.entries[i].value;
        const Value *vb = symbolic ? strmap_get(&ob.values, name) : NULL;
        PbMeta *m = ep_xcalloc(1, sizeof *m);
        m->is_tensor = va->kind == V_TENSOR;
        if (m->is_tensor) {
            m->dtype = va->t->dtype;
            m->ndim = va->t->ndim;
            for (int d = 0; d < m->ndim; d++) {
                int64_t sa = va->t->sizes[d];
                int64_t sb = vb && vb->kind == V_TENSOR && vb->t->ndim == m->ndim ? vb->t->sizes[d] : sa;
                m->dims[d] = dim_expr(pb, sa, sb);
            }
        }
        const PbMeta *given = strmap_get(&pb->declared, name);
        if (given && (!m->is_tensor || given->ndim != m->ndim)) {
            fprintf(stderr, "progbuild: pb_unbacked gives %s %d dims, the program makes %d\n", name, given->ndim,
                    m->ndim);
            abort(); /* a bug in a generator model definition */
        }
        if (given)
            for (int d = 0; d < m->ndim; d++) {
                free(m->dims[d]);
                m->dims[d] = ep_xstrdup(given->dims[d]);
            }
        pb_meta_free(strmap_put(&pb->metas, name, m));
    }
    strmap_free(&oa.values, value_box_free);
    if (symbolic)
        strmap_free(&ob.values, value_box_free);
    for (int i = 0; i < na; i++)
        value_clear(&ia[i]);
    for (int i = 0; i < nb; i++)
        value_clear(&ib[i]);
    free(ia);
    free(ib);
    return rc;
}

EpStatus pb_write(ProgBuilder *pb, const char *path, const PbWriteOptions *opt, EpError *err)
{
    PbWriteOptions o = opt ? *opt : (PbWriteOptions){.era = PB_ERA_2_11};
    EpStatus rc = infer_values(pb, err);
    if (rc) {
        ep_error_prefix(err, "inferring the values of %s", path);
        return rc;
    }
    if (o.era >= PB_ERA_2_11) {
        const char *names[1] = {o.model_name ? o.model_name : "model"};
        return pb_write_pt2_programs(&pb, names, 1, path, &o, err);
    }
    return write_legacy(pb, path, &o, err);
}

EpStatus pb_infer(ProgBuilder *pb, EpError *err)
{
    return infer_values(pb, err);
}
