/*
** test_lazy_weights.c -- weights are read when a node first needs them:
** opening an archive reads no weight bytes, a record that is not aligned
** for its element type is copied once (with pread, not through the
** mapping) when model_weight hands it out, and `epdbg info` says which
** weights were copied and why.  The bundled legacy examples are such
** archives: Python's zipfile writes the nested state dict at whatever
** offset the JSON before it leaves.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "interp/archive.h"
#include "testutil.h"

/* The legacy CNN and its PT2 twin hold the same weights: one copied, the
** other viewed in place, with the same bytes. */
START_TEST(test_copied_when_first_used)
{
    EpError err = {0};
    Model *legacy, *pt2;
    ck_assert_msg(model_open("examples/cnn_legacy.pt2", NULL, &legacy, &err) == EP_OK, "%s", err.msg);
    ck_assert_msg(model_open("examples/cnn.pt2", NULL, &pt2, &err) == EP_OK, "%s", err.msg);
    ck_assert(!legacy->weights_in_place);
    ck_assert(pt2->weights_in_place);
    ck_assert_int_eq(pt2->copies.n, 0);
    ck_assert_int_gt(legacy->copies.n, 0);
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
    ck_assert_int_gt(checked, 0);
    model_free(legacy);
    model_free(pt2);
}
END_TEST

START_TEST(test_info_says_what_was_copied)
{
    RunResult r = test_run_binary((const char *[]){"info", "examples/mlp_legacy.pt2", NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "    copied: fc1.weight: record at offset ") &&
                      strstr(r.out, " of the file is not 4-byte aligned\n"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "    all 8 weights copied into memory\n"), "%s", r.out);
    ck_assert_msg(!strstr(r.out, "read in place from the archive"), "%s", r.out);
    run_result_free(&r);
    r = test_run_binary((const char *[]){"info", "--json", "examples/mlp_legacy.pt2", NULL}, NULL, NULL);
    ck_assert_int_eq(r.code, 0);
    cJSON *j = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(j);
    const cJSON *w = cJSON_GetObjectItem(j, "weights");
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(w, "in_place")));
    const cJSON *why = cJSON_GetObjectItem(cJSON_GetObjectItem(w, "copied"), "fc1.weight");
    ck_assert_msg(cJSON_IsString(why) && strstr(why->valuestring, "is not 4-byte aligned"), "%s", r.out);
    cJSON_Delete(j);
    run_result_free(&r);
    r = test_run_binary((const char *[]){"info", "examples/mlp.pt2", NULL}, NULL, NULL);
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
    tcase_add_test(tc, test_copied_when_first_used);
    tcase_add_test(tc, test_info_says_what_was_copied);
    suite_add_tcase(s, tc);
    return s;
}
