/*
** test_session.c -- the debugger session (debugger/session.h) through its
** API: time travel returning exactly the values seen going forward, on the
** examples and on every archive of the corpus; the NaN hunt; breakpoint
** locations and conditions; edits; and replay files reproducing a failure
** byte for byte.
*/
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/npy.h"
#include "debugger/record.h"
#include "debugger/session.h"
#include "testutil.h"
#include "cli/cli.h"

#define FIX "build/fixtures/"

/* Open path with the inputs of refdir (NULL: the archive's examples),
** bound and stopped at node 0. */
static Session *open_bound(const char *path, const char *refdir)
{
    return test_session_open(path, refdir, true);
}

/* A copy of every tensor byte and scalar of a value, for exact comparison. */
typedef struct Snapshot {
    bool present;
    Value v;          /* a deep copy (tensors contiguous) */
} Snapshot;

static Snapshot snap(const Value *v)
{
    Snapshot s = {0};
    if (!v)
        return s;
    s.present = true;
    if (v->kind == V_TENSOR) {
        EpError err;
        s.v = value_tensor(tensor_to_dtype(v->t, v->t->dtype, &err));
    } else {
        s.v = value_copy(v);
    }
    return s;
}

static bool snap_equal(const Snapshot *a, const Value *b)
{
    if (!a->present || !b)
        return !a->present && !b;
    if (a->v.kind != b->kind)
        return false;
    if (b->kind == V_INT)
        return a->v.i == b->i;
    if (b->kind == V_FLOAT)
        return memcmp(&a->v.f, &b->f, sizeof b->f) == 0;
    if (b->kind == V_BOOL)
        return a->v.b == b->b;
    if (b->kind != V_TENSOR)
        return true; /* lists and None: their tensors are checked by name */
    const Tensor *x = a->v.t, *y = b->t;
    if (x->dtype != y->dtype || !shape_equal(x->ndim, x->sizes, y->ndim, y->sizes))
        return false;
    EpError err;
    Tensor *yc = tensor_to_dtype(y, y->dtype, &err);
    bool same = memcmp(tensor_data(x), tensor_data(yc), tensor_nbytes(x)) == 0;
    tensor_unref(yc);
    return same;
}

static void snap_free(Snapshot *s)
{
    if (s->present)
        value_clear(&s->v);
}

/* Every graph name the program defines: placeholders, then node outputs. */
static int value_names(const Interp *ip, const char ***names)
{
    const ExportedProgram *ep = interp_program(ip);
    int cap = ep->ninput_specs + 8, n = 0;
    const char **out = ep_xmalloc((size_t)cap * sizeof *out);
    for (int i = 0; i < ep->ninput_specs; i++)
        if (ep->graph.inputs[i].ref) {
            if (n == cap)
                out = ep_xrealloc(out, (size_t)(cap *= 2) * sizeof *out);
            out[n++] = ep->graph.inputs[i].ref;
        }
    for (int i = 0; i < interp_num_nodes(ip); i++)
        for (int k = 0; k < interp_node_num_outputs(ip, i); k++) {
            if (n == cap)
                out = ep_xrealloc(out, (size_t)(cap *= 2) * sizeof *out);
            out[n++] = interp_node_output_name(ip, i, k);
        }
    *names = out;
    return n;
}

/* Step forward through the whole program recording every value after each
** step; then reverse-step to the start, checking at each position that
** every value is exactly what it was at that position going forward
** (in-place writes undone, later values gone); then run forward again and
** check the outputs are bit-identical. */
static void check_time_travel(const char *path, const char *refdir)
{
    Session *s = open_bound(path, refdir);
    Interp *ip = session_interp(s);
    EpError err = {0};
    const char **names;
    int nnames = value_names(ip, &names);
    int nnodes = session_num_nodes(s);
    /* states[p][k]: value k with the program counter at p (p = nnodes: the end) */
    Snapshot **states = ep_xcalloc((size_t)nnodes + 1, sizeof *states);
    for (int p = 0;; p++) {
        states[p] = ep_xcalloc((size_t)(nnames ? nnames : 1), sizeof **states);
        for (int k = 0; k < nnames; k++)
            states[p][k] = snap(interp_value(ip, names[k]));
        if (p == nnodes)
            break;
        ck_assert_msg(session_step(s, 1, &err) == EP_OK, "%s: %s", path, err.msg);
        const Stop *st = session_last_stop(s);
        ck_assert_msg(st->kind == STOP_STEP || st->kind == STOP_END, "%s: step %d stopped with kind %d: %s", path, p,
                      st->kind, st->detail ? st->detail : "");
    }
    ck_assert(interp_finished(ip));
    Snapshot *outs = ep_xcalloc((size_t)interp_num_user_outputs(ip) + 1, sizeof *outs);
    for (int i = 0; i < interp_num_user_outputs(ip); i++)
        outs[i] = snap(interp_user_output(ip, i));
    for (int p = nnodes - 1; p >= 0; p--) {
        ck_assert_msg(session_reverse_step(s, 1, &err) == EP_OK, "%s: back to %d: %s", path, p, err.msg);
        ck_assert_int_eq(interp_pc(ip), p);
        for (int k = 0; k < nnames; k++)
            ck_assert_msg(snap_equal(&states[p][k], interp_value(ip, names[k])),
                          "%s: going back to node #%d, value %s is not what it was going forward", path, p, names[k]);
    }
    ck_assert_int_eq(session_last_stop(s)->kind, nnodes ? STOP_BACK_START : STOP_START);
    ck_assert(session_reverse_step(s, 1, &err) == EP_ERR_USAGE); /* nothing before the start */
    ck_assert_msg(session_continue(s, 1, &err) == EP_OK, "%s: %s", path, err.msg);
    ck_assert_int_eq(session_last_stop(s)->kind, STOP_END);
    for (int i = 0; i < interp_num_user_outputs(ip); i++)
        ck_assert_msg(snap_equal(&outs[i], interp_user_output(ip, i)), "%s: output %d differs on the second run",
                      path, i);
    for (int i = 0; i < interp_num_user_outputs(ip); i++)
        snap_free(&outs[i]);
    free(outs);
    for (int p = 0; p <= nnodes; p++) {
        for (int k = 0; k < nnames; k++)
            snap_free(&states[p][k]);
        free(states[p]);
    }
    free(states);
    free(names);
    session_free(s);
}

static const char *const TRAVEL_MODELS[] = {
    "examples/mlp.pt2", "examples/cnn.pt2", FIX "mutation.pt2", FIX "inplace.pt2", FIX "training_bn.pt2",
    FIX "dynamic.pt2", FIX "bf16.pt2", FIX "nan_log.pt2",
};

START_TEST(test_reverse_step_exact)
{
    const char *path = TRAVEL_MODELS[_i];
    /* training_bn stores no example inputs: its oracle inputs are in tests/refs */
    check_time_travel(path, strstr(path, "training_bn") ? "tests/refs/training_bn" : NULL);
}
END_TEST

#define MAX_CORPUS 256
static char *corpus_refs[MAX_CORPUS];
static int ncorpus;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* .pt2 archives of the corpus that have a reference folder. */
static void find_corpus(void)
{
    const char *dir = test_corpus_dir();
    if (!dir || ncorpus)
        return;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && ncorpus < MAX_CORPUS) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pt2") != 0)
            continue;
        char ref[1024];
        snprintf(ref, sizeof ref, "%s/%.*s.ref", dir, (int)(len - 4), e->d_name);
        struct stat st;
        if (stat(ref, &st) == 0)
            corpus_refs[ncorpus++] = ep_xstrndup(e->d_name, len - 4);
    }
    if (d)
        closedir(d);
    qsort(corpus_refs, (size_t)ncorpus, sizeof *corpus_refs, cmp_str);
}

START_TEST(test_reverse_step_corpus)
{
    find_corpus();
    char path[1024], ref[1024];
    snprintf(path, sizeof path, "%s/%s.pt2", test_corpus_dir(), corpus_refs[_i]);
    snprintf(ref, sizeof ref, "%s/%s.ref", test_corpus_dir(), corpus_refs[_i]);
    check_time_travel(path, ref);
}
END_TEST

/* ---- the NaN hunt --------------------------------------------------------- */

START_TEST(test_catch_nan_created)
{
    Session *s = open_bound(FIX "nan_log.pt2", NULL);
    EpError err = {0};
    ck_assert(session_break(s, "nan", false, &err) != NULL);
    ck_assert(session_continue(s, 1, &err) == EP_OK);
    const Stop *st = session_last_stop(s);
    ck_assert_int_eq(st->kind, STOP_NAN);
    ck_assert(st->after);
    ck_assert_str_eq(interp_node(session_interp(s), st->node)->name, "log");
    /* log(2x - 1) of x = 0.25 and 0.1: entries 1 and 3 */
    ck_assert_msg(strstr(st->detail, "out0 (log) has 2 NaN and 0 Inf of 4 values"), "%s", st->detail);
    ck_assert_msg(strstr(st->detail, "every input was finite: this node created them"), "%s", st->detail);
    const NodeInfo *ni = session_node_info(s, st->node);
    ck_assert_int_eq(ni->nframes, 1);
    ck_assert_int_eq(ni->frames[0].line, 20);
    ck_assert_str_eq(ni->frames[0].code, "y = torch.log(h)");
    /* the finite entries are PyTorch's: log(0.8) and log(0.5) */
    const Value *v = session_value(s, "log", &err);
    ck_assert(v && v->kind == V_TENSOR);
    ck_assert(fabs(tensor_get_f64(v->t, 0) - log(0.8)) < 1e-6);
    ck_assert(isnan(tensor_get_f64(v->t, 1)));
    ck_assert(fabs(tensor_get_f64(v->t, 2) - log(0.5)) < 1e-6);
    session_free(s);
}
END_TEST

START_TEST(test_catch_nan_passed_on)
{
    SessionOptions so = {.model_path = FIX "nan_log.pt2", .kernels = {.use_blas = true}};
    EpError err = {0};
    Session *s = session_open(&so, &err);
    ck_assert(s);
    Tensor *x = npy_load_file(FIX "nan_input.npy", &err);
    ck_assert(x);
    Value in = value_tensor(x);
    session_set_inputs(s, &in, 1);
    value_clear(&in);
    ck_assert(session_break(s, "nan", false, &err) != NULL);
    ck_assert(session_run(s, &err) == EP_OK);
    const Stop *st = session_last_stop(s);
    ck_assert_int_eq(st->kind, STOP_NAN);
    ck_assert_int_eq(st->node, 0); /* mul, the first node, passed the NaN on */
    ck_assert_msg(strstr(st->detail, "inputs already non-finite (passed on)"), "%s", st->detail);
    ck_assert_msg(strstr(st->detail, "in0 (x): 1 NaN, 0 Inf of 4"), "%s", st->detail);
    session_free(s);
}
END_TEST

/* ---- breakpoints ----------------------------------------------------------- */

START_TEST(test_breakpoint_locations)
{
    Session *s = open_bound("examples/mlp.pt2", NULL);
    EpError err = {0};
    const Breakpoint *b = session_break(s, "/^linear/", false, &err);
    ck_assert(b && b->kind == BP_REGEX && b->nmatch == 3);
    b = session_break(s, "/addmm|linear/", false, &err); /* op targets match too */
    ck_assert(b && b->nmatch == 3);
    b = session_break(s, "mlp.py:22", false, &err); /* norm and dropout */
    ck_assert(b && b->kind == BP_SOURCE && b->nmatch == 2);
    b = session_break(s, "examples/src/mlp.py:forward", false, &err); /* once per call: its first node */
    ck_assert(b && b->nmatch == 1 && b->at[0]);
    b = session_break(s, "module fc2", false, &err);
    ck_assert(b && b->kind == BP_MODULE && b->nmatch == 1 && b->at[4]);
    b = session_break(s, "lay", false, &err); /* unique prefix: layer_norm */
    ck_assert(b && b->at[2]);
    ck_assert(session_break(s, "lin", false, &err) == NULL); /* ambiguous */
    ck_assert_msg(strstr(err.msg, "ambiguous"), "%s", err.msg);
    ck_assert(session_break(s, "/(/", false, &err) == NULL);
    ck_assert_msg(strstr(err.msg, "bad regular expression"), "%s", err.msg);
    ck_assert(session_break(s, "mlp.py:99", false, &err) == NULL);
    ck_assert_msg(strstr(err.msg, "no node matches"), "%s", err.msg);
    ck_assert(session_break(s, "relu if max >", false, &err) == NULL);
    ck_assert_int_eq(session_num_breakpoints(s), 6);
    session_free(s);
}
END_TEST

/* Conditions evaluated on hand-checked values of nan_log: x = [0.9, 0.25,
** 0.75, 0.1], mul = 2x, sub = 2x - 1 = [0.8, -0.5, 0.5, -0.8]. */
START_TEST(test_conditions)
{
    Session *s = open_bound(FIX "nan_log.pt2", NULL);
    EpError err = {0};
    ck_assert(session_step(s, 3, &err) == EP_OK); /* mul, sub, log have run */
    const Interp *ip = session_interp(s);
    static const struct {
        const char *cond;
        int node;
        bool want;
    } cases[] = {
        {"max > 1.79 && max < 1.81", 0, true},     /* mul max 1.8 */
        {"min == 0.2", 0, false},                  /* float32 0.2 != double 0.2 */
        {"abs_max > 0.79 && abs_max < 0.81", 1, true},
        {"mean < 1e-6 && mean > -1e-6", 1, true},
        {"shape[0] == 4 && ndim == 1 && numel == 4", 1, true},
        {"dtype == float32", 1, true},
        {"dtype == float16", 1, false},
        {"nan", 2, true},
        {"!nan", 1, true},
        {"in0.min < 0 && !in0.nan", 2, true},      /* log's input sub */
        {"finite", 2, false},
        {"zeros == 0 || inf", 1, true},
        {"(max - min) * 2 > 3.1", 1, true},        /* 2 * 1.6 */
        {"out.sum > 100", 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        BpCond *c = bpcond_parse(cases[i].cond, &err);
        ck_assert_msg(c != NULL, "%s: %s", cases[i].cond, err.msg);
        ck_assert_msg(bpcond_eval(c, ip, cases[i].node) == cases[i].want, "'%s' on node %d", cases[i].cond,
                      cases[i].node);
        bpcond_free(c);
    }
    const char *bad[] = {"max >", "shape[", "frobs > 1", "nan &&", "(max > 1", "1e3 >> 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(bpcond_parse(bad[i], &err) == NULL, "'%s' parsed", bad[i]);
        ck_assert(err.msg[0]);
    }
    session_free(s);
}
END_TEST

/* A conditional breakpoint stops after its node only when the condition
** holds; tbreak goes away after one hit. */
START_TEST(test_conditional_and_temporary)
{
    Session *s = open_bound("examples/mlp.pt2", NULL);
    EpError err = {0};
    ck_assert(session_break(s, "/linear/ if max > 1e6", false, &err));
    ck_assert(session_break(s, "softmax", true, &err));
    ck_assert(session_run(s, &err) == EP_OK);
    const Stop *st = session_last_stop(s);
    ck_assert_int_eq(st->kind, STOP_BREAKPOINT);
    ck_assert_int_eq(st->node, 9);
    ck_assert(!st->after);
    ck_assert_int_eq(session_num_breakpoints(s), 1); /* the tbreak is gone */
    ck_assert(session_continue(s, 1, &err) == EP_OK);
    ck_assert_int_eq(session_last_stop(s)->kind, STOP_END);
    ck_assert_int_eq(session_breakpoint(s, 0)->hits, 0);
    session_free(s);
}
END_TEST

/* Stepping back from the end and going on again: breakpoints of every kind
** and a watch are checked on the last node and at the end of the run, and
** none looks at a node past the last (ASan checks the reads). */
START_TEST(test_end_undone_then_continue)
{
    Session *s = open_bound("examples/mlp.pt2", NULL);
    EpError err = {0};
    ck_assert(session_break(s, "/linear/ if max > 1e6", false, &err));
    ck_assert(session_break(s, "nan", false, &err));
    ck_assert(session_break(s, "/relu/", false, &err));
    ck_assert_msg(session_watch(s, "fc1.weight", &err), "%s", err.msg);
    ck_assert(session_enable(s, 3, false, &err) == EP_OK); /* the /relu/ one */
    ck_assert(session_continue(s, 1, &err) == EP_OK);
    ck_assert_int_eq(session_last_stop(s)->kind, STOP_END);
    ck_assert(session_reverse_step(s, 1, &err) == EP_OK);
    ck_assert(!interp_finished(session_interp(s)));
    ck_assert_int_eq(interp_pc(session_interp(s)), session_num_nodes(s) - 1);
    ck_assert(session_enable(s, 3, true, &err) == EP_OK);
    ck_assert(session_continue(s, 1, &err) == EP_OK);
    ck_assert_int_eq(session_last_stop(s)->kind, STOP_END);
    ck_assert(interp_finished(session_interp(s)));
    session_free(s);
}
END_TEST

/* ---- edits ------------------------------------------------------------------ */

START_TEST(test_set_value_flows_on)
{
    Session *s = open_bound(FIX "nan_log.pt2", NULL);
    EpError err = {0};
    ck_assert(session_until(s, 2, &err) == EP_OK); /* before log */
    const Value *sub = session_value(s, "sub", &err);
    ck_assert(sub);
    Tensor *fixed = tensor_to_dtype(sub->t, DT_F32, &err);
    float *d = tensor_data(fixed);
    d[1] = 0.5f;
    d[3] = 0.5f;
    ck_assert(session_set_value(s, "sub", value_tensor(fixed), &err) == EP_OK);
    ck_assert(session_continue(s, 1, &err) == EP_OK);
    const Value *out = interp_user_output(session_interp(s), 0);
    /* log(0.5) + 1 = 0.30685282 where the NaNs were */
    ck_assert(fabs(tensor_get_f64(out->t, 1) - 0.30685282) < 1e-6);
    ck_assert(fabs(tensor_get_f64(out->t, 3) - 0.30685282) < 1e-6);
    ck_assert(session_set_value(s, "nosuch", value_int(1), &err) == EP_ERR_USAGE);
    session_free(s);
}
END_TEST

/* ---- replay ----------------------------------------------------------------- */

static char *abs_path(const char *rel)
{
    char *r = realpath(rel, NULL);
    ck_assert_msg(r != NULL, "%s missing", rel);
    return r;
}

/* A failure line of `epdbg run` ("epdbg: MESSAGE" up to the replay hint). */
static char *run_failure_message(const char *err_text)
{
    const char *start = strstr(err_text, "epdbg: ");
    ck_assert(start);
    start += 7;
    const char *end = strstr(start, "\nepdbg: the inputs are saved");
    ck_assert(end);
    return ep_xstrndup(start, (size_t)(end - start));
}

/* Run MODEL so that it fails, then replay the saved file: the same
** failure, the same message byte for byte, the recorded inputs equal to
** the ones given, and the command printed by run works as printed. */
static void check_replay(const char *model, const char *const *extra, const char *want_fail, int want_code)
{
    char *dir = test_tmpdir();
    char *model_abs = abs_path(model);
    const char *args[16] = {"run", model_abs};
    int n = 2;
    for (int i = 0; extra[i]; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    RunResult r = test_run_binary(args, dir, NULL);
    ck_assert_msg(r.code == want_code, "run exit %d\n%s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "replay with:"), "%s", r.err);
    const char *base = strrchr(model, '/') + 1;
    char replay[256];
    snprintf(replay, sizeof replay, "%.*s-replay.npz", (int)(strlen(base) - 4), base);
    char hint[512];
    snprintf(hint, sizeof hint, "epdbg replay %s %s", replay, model_abs);
    ck_assert_msg(strstr(r.err, hint), "want '%s' in:\n%s", hint, r.err);
    char *message = run_failure_message(r.err);
    char *rpath = ep_xasprintf("%s/%s", dir, replay);
    RecordMeta meta;
    EpError err = {0};
    ck_assert_msg(record_load_meta(rpath, &meta, &err) == EP_OK, "%s", err.msg);
    ck_assert_str_eq(meta.failure, want_fail);
    ck_assert_int_eq(meta.status, want_code);
    if (strcmp(want_fail, "nan") != 0) /* a NaN's run message adds the node in front */
        ck_assert_str_eq(meta.message, message);
    else
        ck_assert_msg(strstr(message, meta.message), "'%s' not in '%s'", meta.message, message);
    const char *rargs[] = {"replay", replay, model_abs, NULL};
    RunResult rr = test_run_binary(rargs, dir, NULL);
    ck_assert_msg(rr.code == want_code, "replay exit %d\n%s\n%s", rr.code, rr.out, rr.err);
    ck_assert_msg(strstr(rr.out, "Reproduced: the same failure as recorded."), "%s", rr.out);
    ck_assert_msg(strstr(rr.out, meta.message), "replay output lacks the message:\n%s", rr.out);
    record_meta_free(&meta);
    run_result_free(&rr);
    run_result_free(&r);
    free(message);
    remove(rpath);
    free(rpath);
    rmdir(dir);
    free(dir);
    free(model_abs);
}

START_TEST(test_replay_nan)
{
    check_replay(FIX "nan_log.pt2", (const char *[]){"--stop-on-nan", NULL}, "nan", EP_ERR_EXEC);
}
END_TEST

START_TEST(test_replay_unsupported_op)
{
    check_replay(FIX "unsupported.pt2", (const char *[]){NULL}, "error", EP_ERR_EXEC);
}
END_TEST

START_TEST(test_replay_guard_failure)
{
    /* dynamic.pt2 takes x: [s0, 4] and y: [2*s0, 4] with s0 in [2, 8]: 9
    ** rows violate the range (a lower bound of 2 is not enforced, as in
    ** PyTorch, which lets sizes 0 and 1 through) */
    char *dir = test_tmpdir();
    char *npy_x = ep_xasprintf("%s/x.npy", dir), *npy_y = ep_xasprintf("%s/y.npy", dir);
    int64_t xs[2] = {9, 4}, ys[2] = {18, 4};
    EpError err = {0};
    Tensor *x = tensor_zeros(DT_F32, 2, xs, &err), *y = tensor_zeros(DT_F32, 2, ys, &err);
    ck_assert(npy_save_file(npy_x, x, &err) == EP_OK && npy_save_file(npy_y, y, &err) == EP_OK);
    tensor_unref(x);
    tensor_unref(y);
    check_replay(FIX "dynamic.pt2", (const char *[]){"--input", npy_x, "--input", npy_y, NULL}, "input",
                 EP_ERR_INPUT);
    remove(npy_x);
    remove(npy_y);
    free(npy_x);
    free(npy_y);
    rmdir(dir);
    free(dir);
}
END_TEST

/* The inputs a replay file holds are the inputs given, bit for bit, and
** --record-all adds every intermediate, equal to what the run computed. */
START_TEST(test_record_exact)
{
    char *dir = test_tmpdir();
    char *rec = ep_xasprintf("%s/rec.npz", dir);
    const char *args[] = {"run", "examples/mlp.pt2", "--record", rec, "--record-all", NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s", r.err);
    NpzArchive z;
    EpError err = {0};
    ck_assert(npz_load(rec, &z, &err) == EP_OK);
    Session *s = open_bound("examples/mlp.pt2", NULL);
    ck_assert(session_continue(s, 1, &err) == EP_OK);
    int found = 0;
    for (int i = 0; i < z.n; i++) {
        const char *name = z.entries[i].name;
        if (strcmp(name, "__epdbg__") == 0)
            continue;
        const char *vname = strncmp(name, "values/", 7) == 0 ? name + 7 : name;
        const Value *v = session_value(s, vname, &err);
        ck_assert_msg(v && v->kind == V_TENSOR, "%s: %s", name, err.msg);
        Snapshot sn = snap(v);
        Value stored = value_tensor(z.entries[i].t);
        ck_assert_msg(snap_equal(&sn, &stored), "%s differs from the run's value", name);
        snap_free(&sn);
        found++;
    }
    ck_assert_int_eq(found, 1 + 10); /* x and the ten nodes' outputs */
    npz_free(&z);
    session_free(s);
    run_result_free(&r);
    remove(rec);
    free(rec);
    rmdir(dir);
    free(dir);
}
END_TEST

/* The mutation fixture adds 2.5 to its user input x in place.  A recording
** made after the run (by `epdbg run --record` and by the session's
** `record` at the end) holds x as given, so a replay starts from the same
** inputs; the session's next restart sees them too. */
START_TEST(test_record_mutated_input)
{
    EpError lerr = {0};
    Tensor *given = npy_load_file("tests/refs/mutation/in0.npy", &lerr);
    ck_assert(given != NULL);
    char *dir = test_tmpdir();
    char *rec = ep_xasprintf("%s/rec.npz", dir);
    const char *args[] = {"run", FIX "mutation.pt2", "--input", "tests/refs/mutation/in0.npy", "--record", rec, NULL};
    RunResult r = test_run_binary(args, NULL, NULL);
    ck_assert_msg(r.code == 0, "%s", r.err);
    run_result_free(&r);
    EpError err = {0};
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            Session *s = open_bound(FIX "mutation.pt2", "tests/refs/mutation");
            ck_assert(session_continue(s, 1, &err) == EP_OK);
            ck_assert(interp_finished(session_interp(s)));
            int n;
            const Value *in = session_inputs(s, &n);
            RecordMeta meta = {.model_path = (char *)FIX "mutation.pt2"};
            ck_assert_msg(record_save(rec, session_interp(s), in, n, false, &meta, &err) == EP_OK, "%s", err.msg);
            /* the run wrote x + 2.5 into the bound copy, not into the inputs */
            const Value *bound = session_value(s, "x", &err);
            ck_assert(bound && bound->kind == V_TENSOR);
            ck_assert_float_eq_tol(tensor_get_f64(bound->t, 0), tensor_get_f64(given, 0) + 2.5, 1e-6);
            session_free(s);
        }
        NpzArchive z;
        ck_assert(npz_load(rec, &z, &err) == EP_OK);
        const Tensor *x = NULL;
        for (int i = 0; i < z.n; i++)
            if (strcmp(z.entries[i].name, "x") == 0)
                x = z.entries[i].t;
        ck_assert_msg(x != NULL, "no x in the recording");
        ck_assert_int_eq(tensor_numel(x), tensor_numel(given));
        for (int64_t i = 0; i < tensor_numel(x); i++)
            ck_assert_msg(tensor_get_f64(x, i) == tensor_get_f64(given, i), "pass %d: x[%lld] = %g, given %g", pass,
                          (long long)i, tensor_get_f64(x, i), tensor_get_f64(given, i));
        npz_free(&z);
    }
    tensor_unref(given);
    remove(rec);
    free(rec);
    rmdir(dir);
    free(dir);
}
END_TEST

static void free_corpus(void)
{
    for (int i = 0; i < ncorpus; i++)
        free(corpus_refs[i]);
    ncorpus = 0;
}

Suite *suite_session(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("session");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_reverse_step_exact, 0, (int)(sizeof TRAVEL_MODELS / sizeof TRAVEL_MODELS[0]));
    tcase_add_test(tc, test_catch_nan_created);
    tcase_add_test(tc, test_catch_nan_passed_on);
    tcase_add_test(tc, test_breakpoint_locations);
    tcase_add_test(tc, test_conditions);
    tcase_add_test(tc, test_conditional_and_temporary);
    tcase_add_test(tc, test_end_undone_then_continue);
    tcase_add_test(tc, test_set_value_flows_on);
    tcase_add_test(tc, test_replay_nan);
    tcase_add_test(tc, test_replay_unsupported_op);
    tcase_add_test(tc, test_replay_guard_failure);
    tcase_add_test(tc, test_record_exact);
    tcase_add_test(tc, test_record_mutated_input);
    suite_add_tcase(s, tc);
    find_corpus();
    if (ncorpus) {
        TCase *tcc = tcase_create("corpus");
        tcase_set_timeout(tcc, 300);
        tcase_add_loop_test(tcc, test_reverse_step_corpus, 0, ncorpus);
        tcase_add_unchecked_fixture(tcc, NULL, free_corpus);
        suite_add_tcase(s, tcc);
    }
    return s;
}
