/*
** test_prerun_bounds.c -- sizes that pass every guard but that a node
** cannot take are refused before running (interp/prerun.h, issue 11).
** dyn_posemb_dynamic.pt2 (tests/src/dyn_fixtures.md) is x + Embedding(8,
** 4)(arange(x.shape[0])) with s0 in [2, 64]: T = 8 runs (the values by
** hand), T = 9 is refused with the message naming x.shape[0], the range,
** the bound s0 <= 8, the node and dyn_posemb.py:15 -- through the API, the
** CLI (exit 3) and the debugger (a failed start).  Every fixture of the
** suite still binds and runs its own example inputs.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugger/session.h"
#include "interp/interp.h"
#include "interp/npy.h"
#include "interp/prerun.h"
#include "testutil.h"

#define POSEMB "build/fixtures/dyn_posemb_dynamic.pt2"

/* The refusal of T = 9, as the fixture document gives the model: the
** table has 8 rows, the range is s0 in [2, 64], the embedding is node 2 at
** line 15 of dyn_posemb.py. */
static const char WANT9[] =
    "input x.shape[0] is 9: it passes the program's guards (s0 in [2, 64]) but node 2 'embedding' "
    "(aten.embedding.default) at dyn_posemb.py:15 in forward: return x + self.pos(pos) needs s0 <= 8 "
    "(embedding index below the rows)";

/* x of T rows, 4 columns, every element 0.5 (caller unrefs). */
static Tensor *posemb_x(int64_t t)
{
    EpError err = {0};
    int64_t sizes[2] = {t, 4};
    Tensor *x = tensor_empty(DT_F32, 2, sizes, &err);
    ck_assert_msg(x != NULL, "%s", err.msg);
    for (int64_t k = 0; k < tensor_numel(x); k++)
        ((float *)tensor_data(x))[k] = 0.5f;
    return x;
}

/* Bind x of t rows to a fresh Interp of POSEMB; the status, err filled. */
static EpStatus bind_posemb(int64_t t, Model **m, Interp **ip, EpError *err)
{
    ck_assert_msg(model_open(POSEMB, NULL, m, err) == EP_OK, "%s (make fixtures)", err->msg);
    *ip = interp_new(*m, NULL, err);
    ck_assert_msg(*ip != NULL, "%s", err->msg);
    Value v = value_tensor(posemb_x(t));
    EpStatus rc = interp_bind(*ip, &v, 1, err);
    value_clear(&v);
    return rc;
}

START_TEST(test_within_the_table_runs)
{
    /* 1 is below the range's 2 but PyTorch's input check lets it through;
    ** 8 is the last row */
    static const int64_t ts[] = {1, 2, 5, 8};
    for (size_t i = 0; i < EP_ARRAY_LEN(ts); i++) {
        Model *m;
        Interp *ip;
        EpError err = {0};
        ck_assert_msg(bind_posemb(ts[i], &m, &ip, &err) == EP_OK, "T = %lld: %s", (long long)ts[i], err.msg);
        ck_assert_msg(interp_run(ip, &err) == EP_OK, "T = %lld: %s", (long long)ts[i], err.msg);
        const Value *out = interp_user_output(ip, 0);
        ck_assert(out && out->kind == V_TENSOR && out->t->ndim == 2);
        ck_assert_int_eq(out->t->sizes[0], ts[i]);
        /* out[i][j] = 0.5 + weight[i][j] = 0.5 + 10i + j */
        const float *o = tensor_data(out->t);
        int64_t last = ts[i] - 1;
        ck_assert_float_eq(o[0], 0.5f);
        ck_assert_float_eq(o[last * 4 + 3], 0.5f + 10.0f * (float)last + 3.0f);
        interp_free(ip);
        model_free(m);
    }
}
END_TEST

START_TEST(test_past_the_table_refused)
{
    Model *m;
    Interp *ip;
    EpError err = {0};
    ck_assert_int_eq(bind_posemb(9, &m, &ip, &err), EP_ERR_INPUT);
    ck_assert_str_eq(err.msg, WANT9);
    ck_assert(!interp_bound(ip));
    /* the same Interp binds a good size after a refusal (checks made once) */
    Value v = value_tensor(posemb_x(8));
    ck_assert_msg(interp_bind(ip, &v, 1, &err) == EP_OK, "%s", err.msg);
    value_clear(&v);
    ck_assert_msg(interp_run(ip, &err) == EP_OK, "%s", err.msg);
    /* 64 is the range's maximum: the guards pass it, the table does not */
    v = value_tensor(posemb_x(64));
    ck_assert_int_eq(interp_bind(ip, &v, 1, &err), EP_ERR_INPUT);
    value_clear(&v);
    ck_assert_msg(strstr(err.msg, "input x.shape[0] is 64: it passes") == err.msg, "%s", err.msg);
    interp_free(ip);
    model_free(m);
}
END_TEST

START_TEST(test_checks_counted)
{
    /* the dynamic export has one condition guards do not state (s0 <= 8);
    ** the static export's sizes are literal, so every condition is decided
    ** when propagated and none is left */
    static const struct {
        const char *path;
        int n;
    } cases[] = {{POSEMB, 1}, {"build/fixtures/dyn_posemb_static.pt2", 0}};
    for (size_t i = 0; i < EP_ARRAY_LEN(cases); i++) {
        Model *m;
        EpError err = {0};
        ck_assert_msg(model_open(cases[i].path, NULL, &m, &err) == EP_OK, "%s", err.msg);
        PrerunChecks *pc = prerun_checks_new(m->ep);
        ck_assert_int_eq(prerun_checks_count(pc), cases[i].n);
        prerun_checks_free(pc);
        model_free(m);
    }
}
END_TEST

/* x of t rows saved as dir/x.npy (caller frees the path). */
static char *save_x(const char *dir, int64_t t)
{
    EpError err = {0};
    Tensor *x = posemb_x(t);
    char *path = ep_xasprintf("%s/x%lld.npy", dir, (long long)t);
    ck_assert_msg(npy_save_file(path, x, &err) == EP_OK, "%s", err.msg);
    tensor_unref(x);
    return path;
}

START_TEST(test_cli_exit_3)
{
    char *dir = test_tmpdir();
    char rel[512];
    snprintf(rel, sizeof rel, "%s/" POSEMB, test_project_dir());
    char *model = realpath(rel, NULL); /* the run's working directory is dir */
    ck_assert_msg(model != NULL, "%s is missing (make fixtures)", rel);
    char *x8 = save_x(dir, 8), *x9 = save_x(dir, 9);
    const char *ok[] = {"run", model, "--input", x8, NULL};
    RunResult r = test_run_binary(ok, dir, NULL);
    ck_assert_msg(r.code == 0, "exit %d\n%s", r.code, r.err);
    run_result_free(&r);
    const char *bad[] = {"run", model, "--input", x9, NULL};
    r = test_run_binary(bad, dir, NULL);
    ck_assert_msg(r.code == 3, "exit %d, want 3\n%s", r.code, r.err);
    char want[1024];
    snprintf(want, sizeof want, "epdbg: %s\n", WANT9);
    ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "got:\n%s\nwant:\n%s", r.err, want);
    run_result_free(&r);
    /* the failed run saved its inputs for replay, in dir */
    char *replay = ep_xasprintf("%s/dyn_posemb_dynamic-replay.npz", dir);
    unlink(replay);
    free(replay);
    unlink(x8);
    unlink(x9);
    free(x8);
    free(x9);
    rmdir(dir);
    free(dir);
    free(model);
}
END_TEST

START_TEST(test_debugger_failed_start)
{
    Session *s = test_session_open(POSEMB, NULL, false);
    Value v = value_tensor(posemb_x(9));
    session_set_inputs(s, &v, 1);
    value_clear(&v);
    EpError err = {0};
    session_restart(s, &err); /* a refused start is a stop, or the command's error: the stop says which */
    const Stop *st = session_last_stop(s);
    ck_assert_int_eq(st->kind, STOP_ERROR);
    ck_assert_int_eq(st->node, -1);
    ck_assert_msg(st->detail && strcmp(st->detail, WANT9) == 0, "detail: %s", st->detail ? st->detail : "(none)");
    ck_assert(session_inputs_rejected(s));
    session_free(s);
}
END_TEST

/* Every fixture of the dynamic-shape suite binds and runs its own example
** inputs: the checks never refuse what the program runs on. */
static const char *const FIXTURES[] = {"broadcast", "derived", "reshape", "convpool", "pad32",
                                       "catslice", "posemb", "branch", "item"};

START_TEST(test_examples_still_run)
{
    for (int kind = 0; kind < 2; kind++) {
        char path[256];
        snprintf(path, sizeof path, "build/fixtures/dyn_%s_%s.pt2", FIXTURES[_i], kind ? "dynamic" : "static");
        Model *m;
        EpError err = {0};
        ck_assert_msg(model_open(path, NULL, &m, &err) == EP_OK, "%s", err.msg);
        Interp *ip = interp_new(m, NULL, &err);
        ck_assert_msg(ip != NULL, "%s: %s", path, err.msg);
        ck_assert_msg(interp_bind_sample_inputs(ip, &err) == EP_OK, "%s: %s", path, err.msg);
        ck_assert_msg(interp_run(ip, &err) == EP_OK, "%s: %s", path, err.msg);
        interp_free(ip);
        model_free(m);
    }
}
END_TEST

Suite *suite_prerun_bounds(void)
{
    Suite *s = suite_create("prerun_bounds");
    TCase *tc = tcase_create("prerun_bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_within_the_table_runs);
    tcase_add_test(tc, test_past_the_table_refused);
    tcase_add_test(tc, test_checks_counted);
    tcase_add_test(tc, test_cli_exit_3);
    tcase_add_test(tc, test_debugger_failed_start);
    tcase_add_loop_test(tc, test_examples_still_run, 0, (int)EP_ARRAY_LEN(FIXTURES));
    suite_add_tcase(s, tc);
    return s;
}
