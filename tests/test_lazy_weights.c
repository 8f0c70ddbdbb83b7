/*
** test_lazy_weights.c -- weights are read when a node first needs them:
** opening an archive reads no weight bytes, a record that is not aligned
** for its element type is copied once (with pread, not through the
** mapping) when model_weight hands it out, and `epdbg info` says which
** weights were copied and why.  The archives are written here: a legacy
** one (Python's zipfile puts the nested state dict wherever the JSON before
** it ends; the class name is varied until that is not a multiple of 4) and
** its PT2 twin, whose records are 64-byte aligned.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "examples/gen/progbuild.h"
#include "interp/archive.h"
#include "interp/interp.h"
#include "testutil.h"

/* Two linear layers with biases: four weights. */
static ProgBuilder *small_model(const char *cls)
{
    PbRng r = {5};
    ProgBuilder *pb = pb_new(cls, false);
    int64_t ws[2] = {8, 8}, bs[1] = {8}, xs[2] = {2, 8};
    for (int l = 0; l < 2; l++) {
        Tensor *w = pb_uniform(&r, DT_F32, 2, ws, -1, 1), *b = pb_uniform(&r, DT_F32, 1, bs, -1, 1);
        pb_param(pb, pb_fmt("l%d.weight", l), w);
        pb_param(pb, pb_fmt("l%d.bias", l), b);
        tensor_unref(w);
        tensor_unref(b);
    }
    Tensor *x = pb_uniform(&r, DT_F32, 2, xs, -1, 1);
    pb_input(pb, "x", x, NULL);
    tensor_unref(x);
    for (int l = 0; l < 2; l++)
        pb_node(pb, "aten.linear.default", pb_fmt("lin%d", l),
                pb_fmt("input=%%%s weight=%%%s bias=%%%s", l ? "lin0" : "x", pb_ph(pb, pb_fmt("l%d.weight", l)),
                       pb_ph(pb, pb_fmt("l%d.bias", l))),
                pb_fmt("lin%d", l));
    pb_output(pb, "lin1");
    return pb;
}

static char legacy_path[64], pt2_path[64];

static void write_archive(const char *cls, const char *path, PbEra era)
{
    EpError err = {0};
    ProgBuilder *pb = small_model(cls);
    PbWriteOptions opt = {.era = era};
    ck_assert_msg(pb_write(pb, path, &opt, &err) == EP_OK, "%s", err.msg);
    pb_free(pb);
}

static void setup(void)
{
    snprintf(legacy_path, sizeof legacy_path, "/tmp/epdbg-lazy-legacy-%d.pt2", (int)getpid());
    snprintf(pt2_path, sizeof pt2_path, "/tmp/epdbg-lazy-pt2-%d.pt2", (int)getpid());
    int64_t off = 0;
    for (int k = 0; k < 16; k++) {
        const char *cls = pb_fmt("tests.Lazy%.*s", k, "xxxxxxxxxxxxxxxx");
        write_archive(cls, legacy_path, PB_ERA_2_4);
        EpError err = {0};
        ZipArchive *z = zipa_open_file(legacy_path, &err);
        ck_assert_msg(z != NULL, "%s", err.msg);
        off = zipa_data_offset(z, zipa_find(z, "serialized_state_dict.pt"));
        zipa_unref(z);
        if (off % 4 != 0) {
            write_archive(cls, pt2_path, PB_ERA_2_11);
            return;
        }
    }
    ck_abort_msg("no class name put the nested state dict at an offset that is not a multiple of 4 (last %lld)",
                 (long long)off);
}

static void teardown(void)
{
    unlink(legacy_path);
    unlink(pt2_path);
}

/* The legacy archive and its PT2 twin hold the same weights: one copied,
** the other viewed in place, with the same bytes. */
START_TEST(test_copied_when_first_used)
{
    EpError err = {0};
    Model *legacy, *pt2;
    ck_assert_msg(model_open(legacy_path, NULL, &legacy, &err) == EP_OK, "%s", err.msg);
    ck_assert_msg(model_open(pt2_path, NULL, &pt2, &err) == EP_OK, "%s", err.msg);
    ck_assert(!legacy->weights_in_place);
    ck_assert(pt2->weights_in_place);
    ck_assert_int_eq(pt2->copies.n, 0);
    ck_assert_int_eq(legacy->copies.n, 4);
    /* nothing read at open: every copy still pending */
    for (int i = 0; i < legacy->copies.n; i++)
        ck_assert_ptr_nonnull(legacy->copies.items[i].file);
    int checked = 0;
    for (int i = 0; i < legacy->weights.n; i++) {
        const char *fqn = legacy->weights.entries[i].key;
        const Tensor *peek = model_weight_peek(legacy, fqn);
        const char *why = model_copy_reason(legacy, peek);
        ck_assert_msg(why && strstr(why, "-byte aligned"), "%s: %s", fqn, why ? why : "(in place)");
        const ZipCopy *c = zipa_copies_find(&legacy->copies, peek->storage);
        ck_assert_ptr_nonnull(c->file);
        Tensor *t = model_weight(legacy, fqn), *want = model_weight(pt2, fqn);
        ck_assert_ptr_eq(t, peek);
        ck_assert_ptr_null(c->file); /* read now, once */
        ck_assert(!t->storage->readonly);
        ck_assert((uintptr_t)t->storage->data % 64 == 0);
        ck_assert_ptr_nonnull(want);
        ck_assert(want->storage->readonly); /* in place */
        ck_assert_ptr_null(model_copy_reason(pt2, want));
        ck_assert_int_eq(tensor_numel(t), tensor_numel(want));
        ck_assert(tensor_nbytes(t) == tensor_nbytes(want));
        ck_assert(memcmp(tensor_data(t), tensor_data(want), tensor_nbytes(t)) == 0);
        checked++;
    }
    ck_assert_int_eq(checked, 4);
    /* and the run gives the same numbers */
    EpError e2 = {0};
    Interp *a = interp_new(legacy, NULL, &e2), *b = interp_new(pt2, NULL, &e2);
    ck_assert_msg(a && b, "%s", e2.msg);
    int64_t xs[2] = {2, 8};
    Tensor *x = tensor_zeros(DT_F32, 2, xs, &e2);
    for (int i = 0; i < 16; i++)
        ((float *)tensor_data(x))[i] = (float)i / 16;
    Value in = value_tensor(x);
    ck_assert_msg(interp_bind(a, &in, 1, &e2) == EP_OK && interp_run(a, &e2) == EP_OK, "%s", e2.msg);
    ck_assert_msg(interp_bind(b, &in, 1, &e2) == EP_OK && interp_run(b, &e2) == EP_OK, "%s", e2.msg);
    const Value *ya = interp_value(a, "lin1"), *yb = interp_value(b, "lin1");
    ck_assert(ya && yb && ya->kind == V_TENSOR && yb->kind == V_TENSOR);
    ck_assert(memcmp(tensor_data(ya->t), tensor_data(yb->t), tensor_nbytes(ya->t)) == 0);
    value_clear(&in);
    interp_free(a);
    interp_free(b);
    model_free(legacy);
    model_free(pt2);
}
END_TEST

START_TEST(test_info_says_what_was_copied)
{
    RunResult r = test_run_binary((const char *[]){"info", legacy_path, NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "    copied: l0.weight: record at offset ") &&
                      strstr(r.out, " of the file is not 4-byte aligned\n"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "    all 4 weights copied into memory\n"), "%s", r.out);
    ck_assert_msg(!strstr(r.out, "read in place from the archive"), "%s", r.out);
    run_result_free(&r);
    r = test_run_binary((const char *[]){"info", "--json", legacy_path, NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    cJSON *j = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(j);
    const cJSON *w = cJSON_GetObjectItem(j, "weights");
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(w, "in_place")));
    const cJSON *why = cJSON_GetObjectItem(cJSON_GetObjectItem(w, "copied"), "l1.bias");
    ck_assert_msg(cJSON_IsString(why) && strstr(why->valuestring, "is not 4-byte aligned"), "%s", r.out);
    cJSON_Delete(j);
    run_result_free(&r);
    r = test_run_binary((const char *[]){"info", pt2_path, NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "(read in place from the archive)\n") && !strstr(r.out, "copied"), "%s", r.out);
    run_result_free(&r);
}
END_TEST

Suite *suite_lazy_weights(void)
{
    Suite *s = suite_create("lazy_weights");
    TCase *tc = tcase_create("lazy_weights");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_copied_when_first_used);
    tcase_add_test(tc, test_info_says_what_was_copied);
    suite_add_tcase(s, tc);
    return s;
}
