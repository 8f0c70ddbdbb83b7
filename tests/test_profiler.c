/*
** test_profiler.c -- the profiler seam of the interpreter (interp.h: hooks
** around every node and the "now" slot) and profiler/node_timer built on
** it, including the debugger session's per-node times.
**
** A recorder installed as hooks logs every enter and leave with what the
** "now" slot held at that instant; the tests compare the log with the
** sequence the graph dictates.
*/
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "debugger/session.h"
#include "hopgraph.h"
#include "interp/npy.h"
#include "profiler/node_timer.h"
#include "testutil.h"

#define FIX "build/fixtures/"

/* ---- recording the hooks ---------------------------------------------------- */

typedef struct Event {
    bool enter;
    const Node *node;
    int index, depth;
    const Graph *graph;
    EpStatus rc;       /* leave only */
    const Node *now;   /* the "now" slot during the call */
} Event;

typedef struct Recorder {
    const Interp *ip;
    Event *ev;
    int n, cap;
} Recorder;

static void record(Recorder *r, bool enter, const InterpNodeRef *n, EpStatus rc)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->ev = ep_xrealloc(r->ev, (size_t)r->cap * sizeof *r->ev);
    }
    r->ev[r->n++] = (Event){enter, n->node, n->index, n->depth, n->graph, rc,
                            atomic_load_explicit(interp_now_slot(r->ip), memory_order_relaxed)};
}

static void rec_enter(void *ud, const InterpNodeRef *n)
{
    record(ud, true, n, EP_OK);
}

static void rec_leave(void *ud, const InterpNodeRef *n, EpStatus rc)
{
    record(ud, false, n, rc);
}

static void recorder_install(Recorder *r, Interp *ip)
{
    memset(r, 0, sizeof *r);
    r->ip = ip;
    interp_set_hooks(ip, &(InterpHooks){rec_enter, rec_leave, r});
}

static const Node *now_node(const Interp *ip)
{
    return atomic_load_explicit(interp_now_slot(ip), memory_order_relaxed);
}

typedef struct Opened {
    Model *m;
    Interp *ip;
} Opened;

static Opened open_program(const char *path)
{
    EpError err = {0};
    Opened o = {0};
    ck_assert_msg(model_open(path, NULL, &o.m, &err) == EP_OK, "%s: %s", path, err.msg);
    o.ip = interp_new(o.m, NULL, &err);
    ck_assert_msg(o.ip != NULL, "%s: %s", path, err.msg);
    return o;
}

static void close_program(Opened *o)
{
    interp_free(o->ip);
    model_free(o->m);
}

/* Bind x (float32[3]) to a program of hopgraph.h. */
static void bind_x(Interp *ip, const float *xv)
{
    EpError err = {0};
    int64_t s[1] = {3};
    Tensor *x = tensor_empty(DT_F32, 1, s, &err);
    memcpy(tensor_data(x), xv, 3 * sizeof(float));
    Value in[1] = {value_tensor(x)};
    ck_assert_msg(interp_bind(ip, in, 1, &err) == EP_OK, "%s", err.msg);
    value_clear(&in[0]);
}

/* Event k is an enter (or leave) of the node named name at depth d, the
** "now" slot holding that very node, and a leave with status EP_OK. */
static void expect_event(const Recorder *r, int k, bool enter, const char *name, int depth)
{
    ck_assert_msg(k < r->n, "event %d of %d: expected %s %s", k, r->n, enter ? "enter" : "leave", name);
    const Event *e = &r->ev[k];
    ck_assert_msg(e->enter == enter && strcmp(e->node->name, name) == 0 && e->depth == depth,
                  "event %d: got %s %s at depth %d, expected %s %s at depth %d", k, e->enter ? "enter" : "leave",
                  e->node->name, e->depth, enter ? "enter" : "leave", name, depth);
    ck_assert_ptr_eq(e->now, e->node);
    ck_assert_ptr_eq(&e->graph->nodes[e->index], e->node);
    if (!enter)
        ck_assert_int_eq(e->rc, EP_OK);
}

/* ---- (a) every node of the bundled examples, once, in order ------------------- */

/* Each example with the input PyTorch ran it on (legacy archives store
** no sample inputs). */
static const struct {
    const char *path, *input;
} EXAMPLES[] = {
    {"examples/mlp.pt2", "tests/refs/mlp/in0.npy"},
    {"examples/mlp_legacy.pt2", "tests/refs/mlp_legacy/in0.npy"},
    {"examples/cnn.pt2", "tests/refs/cnn/in0.npy"},
    {"examples/cnn_legacy.pt2", "tests/refs/cnn_legacy/in0.npy"},
};

/* Bind example i's input to its program. */
static void bind_example(Interp *ip, int i)
{
    EpError err = {0};
    Tensor *x = npy_load_file(EXAMPLES[i].input, &err);
    ck_assert_msg(x != NULL, "%s", err.msg);
    Value in[1] = {value_tensor(x)};
    ck_assert_msg(interp_bind(ip, in, 1, &err) == EP_OK, "%s", err.msg);
    value_clear(&in[0]);
}

START_TEST(test_hooks_see_every_node_in_order)
{
    Opened o = open_program(EXAMPLES[_i].path);
    EpError err = {0};
    Recorder r;
    recorder_install(&r, o.ip);
    ck_assert_ptr_null(now_node(o.ip));
    bind_example(o.ip, _i);
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    const Graph *g = &interp_program(o.ip)->graph;
    int nn = interp_num_nodes(o.ip);
    ck_assert_int_gt(nn, 3);
    ck_assert_int_eq(r.n, 2 * nn);
    for (int i = 0; i < nn; i++) {
        for (int side = 0; side < 2; side++) {
            const Event *e = &r.ev[2 * i + side];
            ck_assert(e->enter == (side == 0));
            ck_assert_ptr_eq(e->node, interp_node(o.ip, i));
            ck_assert_int_eq(e->index, i);
            ck_assert_int_eq(e->depth, 0);
            ck_assert_ptr_eq(e->graph, g);
            ck_assert_ptr_eq(e->now, e->node); /* (c) */
            ck_assert_int_eq(e->rc, EP_OK);
        }
    }
    ck_assert_ptr_null(now_node(o.ip)); /* (c) nothing runs after the run */
    /* stepping fires the same pair for the one node it runs */
    r.n = 0;
    bind_example(o.ip, _i);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    ck_assert_int_eq(r.n, 2);
    ck_assert_ptr_eq(r.ev[0].node, interp_node(o.ip, 0));
    ck_assert_ptr_eq(r.ev[1].node, interp_node(o.ip, 0));
    free(r.ev);
    close_program(&o);
}
END_TEST

/* ---- (b) inside cond and while_loop subgraphs --------------------------------- */

START_TEST(test_hooks_nest_into_cond)
{
    char *path = hop_cond_archive();
    Opened o = open_program(path);
    const float pos[3] = {1, 2, -0.5f}, neg[3] = {-1, -2, 0.5f};
    for (int branch = 0; branch < 2; branch++) {
        Recorder r;
        recorder_install(&r, o.ip);
        bind_x(o.ip, branch == 0 ? pos : neg);
        EpError err = {0};
        ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
        const char *taken = branch == 0 ? "m" : "s"; /* true branch a * 2, false branch a - 1 */
        int k = 0;
        expect_event(&r, k++, true, "sum", 0);
        expect_event(&r, k++, false, "sum", 0);
        expect_event(&r, k++, true, "gt", 0);
        expect_event(&r, k++, false, "gt", 0);
        expect_event(&r, k++, true, "cond", 0);
        expect_event(&r, k++, true, taken, 1);
        expect_event(&r, k++, false, taken, 1);
        expect_event(&r, k++, false, "cond", 0); /* the slot is back on cond after its subgraph */
        ck_assert_int_eq(r.n, k);
        /* the subgraph node is node 0 of its own graph, not the program's */
        ck_assert_int_eq(r.ev[5].index, 0);
        ck_assert_ptr_ne(r.ev[5].graph, &interp_program(o.ip)->graph);
        ck_assert_ptr_eq(r.ev[4].graph, &interp_program(o.ip)->graph);
        ck_assert_int_eq(r.ev[4].index, 2);
        ck_assert_ptr_null(now_node(o.ip));
        double want = branch == 0 ? 2 * pos[0] : neg[0] - 1;
        ck_assert(tensor_get_f64(interp_user_output(o.ip, 0)->t, 0) == want);
        free(r.ev);
    }
    close_program(&o);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(test_hooks_nest_into_while_loop)
{
    char *path = hop_while_archive();
    Opened o = open_program(path);
    const float xv[3] = {1, 0.5f, 1.25f};
    /* the body (a * 2) runs while the sum is below 10: 2.75, 5.5, 11 */
    int iterations = 0;
    double sum = xv[0] + xv[1] + xv[2];
    for (; sum < 10; sum *= 2)
        iterations++;
    ck_assert_int_eq(iterations, 2);
    Recorder r;
    recorder_install(&r, o.ip);
    bind_x(o.ip, xv);
    EpError err = {0};
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    int k = 0;
    expect_event(&r, k++, true, "while_loop", 0);
    for (int it = 0; it <= iterations; it++) {
        expect_event(&r, k++, true, "cs", 1);
        expect_event(&r, k++, false, "cs", 1);
        expect_event(&r, k++, true, "c", 1);
        expect_event(&r, k++, false, "c", 1);
        if (it == iterations)
            break; /* the condition turned false: no body */
        expect_event(&r, k++, true, "b", 1);
        expect_event(&r, k++, false, "b", 1);
    }
    expect_event(&r, k++, false, "while_loop", 0);
    expect_event(&r, k++, true, "post", 0);
    expect_event(&r, k++, false, "post", 0);
    ck_assert_int_eq(r.n, k);
    ck_assert_int_eq(k, 2 + 4 * (iterations + 1) + 2 * iterations + 2);
    ck_assert_ptr_null(now_node(o.ip));
    const Value *out = interp_user_output(o.ip, 0);
    for (int i = 0; i < 3; i++)
        ck_assert(tensor_get_f64(out->t, i) == xv[i] * (1 << iterations) + 1);
    free(r.ev);
    close_program(&o);
    unlink(path);
    free(path);
}
END_TEST

/* ---- (d) a failing node is left with its error -------------------------------- */

START_TEST(test_failing_node_gets_leave)
{
    Opened o = open_program(FIX "unsupported.pt2");
    EpError err = {0};
    Recorder r;
    recorder_install(&r, o.ip);
    ck_assert_int_eq(interp_bind_sample_inputs(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_run(o.ip, &err), EP_ERR_EXEC);
    ck_assert_int_eq(r.n, 4);
    expect_event(&r, 0, true, interp_node(o.ip, 0)->name, 0);
    expect_event(&r, 1, false, interp_node(o.ip, 0)->name, 0);
    ck_assert(r.ev[2].enter && r.ev[2].node == interp_node(o.ip, 1));
    ck_assert(!r.ev[3].enter && r.ev[3].node == interp_node(o.ip, 1));
    ck_assert_int_eq(r.ev[3].rc, EP_ERR_EXEC);
    ck_assert_ptr_eq(r.ev[3].now, interp_node(o.ip, 1));
    ck_assert_ptr_null(now_node(o.ip));
    free(r.ev);
    close_program(&o);
}
END_TEST

/* A node failing inside a subgraph: it and its cond are both left with the
** error, innermost first. */
START_TEST(test_failing_subgraph_node_gets_leave)
{
    const char *nodes =
        "[{\"target\": \"torch.ops.higher_order.cond\", \"inputs\": ["
        "{\"name\": \"\", \"arg\": {\"as_bool\": true}},"
        "{\"name\": \"\", \"arg\": " SUBGRAPH("true_graph_0", "[" TNODE("no_such_op.default", "bad", "[{\"name\": "
        "\"self\", \"arg\": {\"as_tensor\": {\"name\": \"a\"}}}]") "]", "bad") "},"
        "{\"name\": \"\", \"arg\": " SUBGRAPH("false_graph_0", "[" TNODE("neg.default", "ok", "[{\"name\": \"self\", "
        "\"arg\": {\"as_tensor\": {\"name\": \"a\"}}}]") "]", "ok") "},"
        "{\"name\": \"\", \"arg\": {\"as_tensors\": [{\"name\": \"x\"}]}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"getitem\"}}], \"metadata\": {}, \"name\": \"cond\"}]";
    char *path = hop_archive(nodes, "[{\"as_tensor\": {\"name\": \"getitem\"}}]",
                             "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"getitem\"}}}}]");
    Opened o = open_program(path);
    Recorder r;
    recorder_install(&r, o.ip);
    const float xv[3] = {1, 2, 3};
    bind_x(o.ip, xv);
    EpError err = {0};
    ck_assert_int_eq(interp_run(o.ip, &err), EP_ERR_EXEC);
    ck_assert_msg(strstr(err.msg, "no_such_op"), "%s", err.msg);
    ck_assert_int_eq(r.n, 4);
    expect_event(&r, 0, true, "cond", 0);
    expect_event(&r, 1, true, "bad", 1);
    ck_assert(!r.ev[2].enter && strcmp(r.ev[2].node->name, "bad") == 0 && r.ev[2].rc == EP_ERR_EXEC);
    ck_assert(!r.ev[3].enter && strcmp(r.ev[3].node->name, "cond") == 0 && r.ev[3].rc == EP_ERR_EXEC);
    ck_assert_ptr_eq(r.ev[3].now, r.ev[3].node);
    ck_assert_ptr_null(now_node(o.ip));
    free(r.ev);
    close_program(&o);
    unlink(path);
    free(path);
}
END_TEST

/* ---- (e) hooks do not change results; clearing them stops the calls --------- */

static void noop_enter(void *ud, const InterpNodeRef *n)
{
    (void)n;
    (*(long *)ud)++;
}

static Tensor *run_output(Interp *ip, int example)
{
    EpError err = {0};
    bind_example(ip, example);
    ck_assert_msg(interp_run(ip, &err) == EP_OK, "%s", err.msg);
    return tensor_ref(interp_user_output(ip, 0)->t);
}

START_TEST(test_hooks_do_not_change_outputs)
{
    Opened o = open_program(EXAMPLES[_i].path);
    Tensor *plain = run_output(o.ip, _i);
    long calls = 0;
    interp_set_hooks(o.ip, &(InterpHooks){.enter = noop_enter, .ud = &calls});
    Tensor *hooked = run_output(o.ip, _i);
    ck_assert_int_eq(calls, interp_num_nodes(o.ip));
    interp_set_hooks(o.ip, NULL);
    Tensor *cleared = run_output(o.ip, _i);
    ck_assert_int_eq(calls, interp_num_nodes(o.ip)); /* no call once cleared */
    char msg[512];
    ck_assert_msg(tensors_close(hooked, plain, 0, 0, msg, sizeof msg), "%s", msg);
    ck_assert_msg(tensors_close(cleared, plain, 0, 0, msg, sizeof msg), "%s", msg);
    tensor_unref(plain);
    tensor_unref(hooked);
    tensor_unref(cleared);
    close_program(&o);
}
END_TEST

/* interp_eval_node is off the record: no hook fires and the slot stays. */
START_TEST(test_eval_node_is_not_observed)
{
    Opened o = open_program("examples/mlp.pt2");
    EpError err = {0};
    Recorder r;
    recorder_install(&r, o.ip);
    ck_assert_int_eq(interp_bind_sample_inputs(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    ck_assert_int_eq(r.n, 4);
    Value outs[4];
    int nouts = 0; /* the next node: its inputs are alive */
    ck_assert_msg(interp_eval_node(o.ip, 2, NULL, NULL, outs, 4, &nouts, &err) == EP_OK, "%s", err.msg);
    ck_assert_int_eq(nouts, 1);
    ck_assert_int_eq(outs[0].kind, V_TENSOR);
    value_clear(&outs[0]);
    ck_assert_int_eq(r.n, 4);
    ck_assert_ptr_null(now_node(o.ip));
    free(r.ev);
    close_program(&o);
}
END_TEST

/* ---- (f) the node timer --------------------------------------------------------- */

START_TEST(test_node_timer_times_nodes_that_ran)
{
    Opened o = open_program("examples/mlp.pt2");
    int nn = interp_num_nodes(o.ip);
    NodeTimer *t = node_timer_new(nn);
    InterpHooks h = node_timer_hooks(t);
    interp_set_hooks(o.ip, &h);
    EpError err = {0};
    ck_assert_int_eq(interp_bind_sample_inputs(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    for (int i = 0; i < nn; i++) {
        if (i < 2) {
            ck_assert(node_timer_last(t, i) >= 0);
            ck_assert_int_eq(node_timer_calls(t, i), 1);
            ck_assert(node_timer_total(t, i) == node_timer_last(t, i));
        } else {
            ck_assert(node_timer_last(t, i) == -1);
            ck_assert_int_eq(node_timer_calls(t, i), 0);
        }
    }
    ck_assert(node_timer_last(t, -1) == -1 && node_timer_last(t, nn) == -1);
    ck_assert_int_eq(interp_run(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_bind_sample_inputs(o.ip, &err), EP_OK);
    ck_assert_int_eq(interp_run(o.ip, &err), EP_OK);
    for (int i = 0; i < nn; i++) {
        ck_assert_int_eq(node_timer_calls(t, i), 2);
        ck_assert(node_timer_last(t, i) >= 0);
        ck_assert(node_timer_total(t, i) >= node_timer_last(t, i));
    }
    node_timer_reset(t);
    ck_assert(node_timer_last(t, 0) == -1 && node_timer_calls(t, 0) == 0);
    interp_set_hooks(o.ip, NULL);
    node_timer_free(t);
    close_program(&o);
}
END_TEST

/* Subgraph nodes are not timed apart: the cond's subgraph node m is node 0
** of its graph, yet the program's node 0 (sum) counts one run. */
START_TEST(test_node_timer_counts_top_level_only)
{
    char *path = hop_cond_archive();
    Opened o = open_program(path);
    NodeTimer *t = node_timer_new(interp_num_nodes(o.ip));
    InterpHooks h = node_timer_hooks(t);
    interp_set_hooks(o.ip, &h);
    const float xv[3] = {1, 2, 3};
    bind_x(o.ip, xv);
    EpError err = {0};
    ck_assert_msg(interp_run(o.ip, &err) == EP_OK, "%s", err.msg);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(node_timer_calls(t, i), 1);
        ck_assert(node_timer_last(t, i) >= 0);
    }
    interp_set_hooks(o.ip, NULL);
    node_timer_free(t);
    close_program(&o);
    unlink(path);
    free(path);
}
END_TEST

#define SLOW_PROGRESS_NS (50 * 1000 * 1000)

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct SlowProgress {
    int calls;
} SlowProgress;

static void slow_progress(void *ctx, int node, int nnodes)
{
    (void)node;
    (void)nnodes;
    ((SlowProgress *)ctx)->calls++;
    struct timespec d = {0, SLOW_PROGRESS_NS}; /* a front end redrawing */
    nanosleep(&d, NULL);
}

/* The session's node times are the kernel's: a progress callback that
** takes 50 ms before the first node of a command is not charged to it.
** Asserted without a timing threshold: the node's time fits in the step's
** wall time less the callback's sleep, which holds however slow the
** machine, and fails whenever the sleep is counted (the node's time would
** then exceed it). */
START_TEST(test_session_time_excludes_progress)
{
    Session *s = test_session_open("examples/mlp.pt2", NULL, true);
    int nn = session_num_nodes(s);
    for (int i = 0; i < nn; i++)
        ck_assert(session_node_seconds(s, i) == -1);
    SlowProgress sp = {0};
    session_set_progress(s, slow_progress, &sp);
    EpError err = {0};
    double before = monotonic_seconds();
    ck_assert_int_eq(session_step(s, 1, &err), EP_OK);
    double step = monotonic_seconds() - before;
    ck_assert_int_eq(sp.calls, 1); /* it did run, before node 0 */
    double t0 = session_node_seconds(s, 0);
    double slept = SLOW_PROGRESS_NS * 1e-9;
    ck_assert_msg(step >= slept, "the step took %g s", step);
    ck_assert_msg(t0 >= 0 && t0 <= step - slept, "node 0 took %g s of a %g s step with a %g s callback", t0, step,
                  slept);
    ck_assert(session_node_seconds(s, 1) == -1);
    ck_assert(session_node_seconds(s, -1) == -1 && session_node_seconds(s, nn) == -1);
    session_set_progress(s, NULL, NULL);
    ck_assert_int_eq(session_continue(s, 1, &err), EP_OK);
    for (int i = 0; i < nn; i++)
        ck_assert(session_node_seconds(s, i) >= 0);
    session_free(s);
}
END_TEST

Suite *suite_profiler(void)
{
    Suite *s = suite_create("profiler");
    TCase *tc = tcase_create("seam");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_hooks_see_every_node_in_order, 0, (int)EP_ARRAY_LEN(EXAMPLES));
    tcase_add_test(tc, test_hooks_nest_into_cond);
    tcase_add_test(tc, test_hooks_nest_into_while_loop);
    tcase_add_test(tc, test_failing_node_gets_leave);
    tcase_add_test(tc, test_failing_subgraph_node_gets_leave);
    tcase_add_loop_test(tc, test_hooks_do_not_change_outputs, 0, (int)EP_ARRAY_LEN(EXAMPLES));
    tcase_add_test(tc, test_eval_node_is_not_observed);
    suite_add_tcase(s, tc);
    tc = tcase_create("node_timer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_node_timer_times_nodes_that_ran);
    tcase_add_test(tc, test_node_timer_counts_top_level_only);
    tcase_add_test(tc, test_session_time_excludes_progress);
    suite_add_tcase(s, tc);
    return s;
}
