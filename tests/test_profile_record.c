/*
** test_profile_record.c -- the recorder (profiler/recorder.c) and the
** sampler (profiler/sampler.c): what a profile counts, not how long
** anything took.  Every node counted once per iteration, the node times
** and the dispatch row adding up to the wall time, the timeline's nodes in
** order without overlap, bytes allocated checked by hand, the user's
** source line and module scopes as the example's Python has them, hooks
** installed before kept working, and samples charged to the node the slot
** names (a subgraph node's to its higher-order node).
*/
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hopgraph.h"
#include "interp/npy.h"
#include "profiler/profile.h"
#include "profiler/sampler.h"
#include "testutil.h"

typedef struct Opened {
    Model *m;
    Interp *ip;
    Value in;
} Opened;

/* An example with the input PyTorch ran it on. */
static const struct {
    const char *path, *input;
} EXAMPLES[] = {
    {"examples/mlp.pt2", "tests/refs/mlp/in0.npy"},
    {"examples/mlp_legacy.pt2", "tests/refs/mlp_legacy/in0.npy"},
    {"examples/cnn.pt2", "tests/refs/cnn/in0.npy"},
    {"examples/cnn_legacy.pt2", "tests/refs/cnn_legacy/in0.npy"},
};

static Opened open_example(int i)
{
    EpError err = {0};
    Opened o = {0};
    ck_assert_msg(model_open(EXAMPLES[i].path, NULL, &o.m, &err) == EP_OK, "%s", err.msg);
    o.ip = interp_new(o.m, NULL, &err);
    ck_assert_msg(o.ip != NULL, "%s", err.msg);
    Tensor *x = npy_load_file(EXAMPLES[i].input, &err);
    ck_assert_msg(x != NULL, "%s", err.msg);
    o.in = value_tensor(x); /* takes x's reference */
    return o;
}

static void close_example(Opened *o)
{
    value_clear(&o->in);
    interp_free(o->ip);
    model_free(o->m);
}

/* One iteration as epdbg profile runs it. */
static void run_iteration(Opened *o, Profiler *pr, bool warmup)
{
    EpError err = {0};
    ck_assert_int_eq(interp_bind_copy(o->ip, &o->in, 1, &err), EP_OK);
    profiler_iteration_begin(pr, warmup);
    ck_assert_msg(interp_run(o->ip, &err) == EP_OK, "%s", err.msg);
    profiler_iteration_end(pr);
}

/* Profile example i exactly: warmup + iters iterations. */
static Profile *profile_example(Opened *o, int i, int warmup, int iters)
{
    EpError err = {0};
    ProfileOptions opt = PROFILE_OPTIONS_DEFAULT;
    opt.iterations = true;
    Profiler *pr = profiler_new(o->ip, EXAMPLES[i].path, &opt, &err);
    ck_assert_msg(pr != NULL, "%s", err.msg);
    ck_assert_int_eq(profiler_start(pr, &err), EP_OK);
    for (int k = 0; k < warmup + iters; k++)
        run_iteration(o, pr, k < warmup);
    profiler_stop(pr);
    Profile *p = profiler_take(pr, &err);
    ck_assert_ptr_nonnull(p);
    profiler_free(pr);
    return p;
}

/* ---- exact mode ------------------------------------------------------------ */

START_TEST(test_exact_counts_every_node_once_per_iteration)
{
    Opened o = open_example(_i);
    Profile *p = profile_example(&o, _i, 1, 3);
    ck_assert_int_eq(p->iters, 3);
    ck_assert_int_eq(p->warmup, 1);
    ck_assert_int_eq(p->mode, PROFILE_EXACT);
    ck_assert(!p->partial);
    ck_assert_int_eq(p->nnodes, interp_num_nodes(o.ip));
    ck_assert(p->timer_cost > 0 && p->timer_cost < 1e-5);
    double nodes = 0;
    for (int i = 0; i < p->nnodes; i++) {
        const ProfileStats *t = &p->nodes[i].time;
        ck_assert_int_eq(t->count, 3);
        ck_assert(t->min <= t->median && t->median <= t->p90 && t->p90 <= t->max);
        ck_assert(t->min >= 0 && t->stddev >= 0);
        ck_assert_double_eq_tol(t->mean * 3, t->total, 1e-12);
        ck_assert_str_eq(p->nodes[i].name, interp_node(o.ip, i)->name);
        nodes += t->total;
    }
    /* the node times and the dispatch row are the wall time, nothing hidden */
    ck_assert(p->dispatch >= 0);
    ck_assert_double_eq_tol(nodes + p->dispatch, p->wall, 1e-12);
    ck_assert_double_eq_tol(profile_total_seconds(p), p->wall / 3, 1e-12);
    profile_free(p);
    close_example(&o);
}
END_TEST

/* The timeline: each kept iteration's nodes in graph order, one after the
** other, inside their iteration; durations equal to what the node's
** statistics saw (the sum over iterations is the node's total). */
START_TEST(test_timeline_is_ordered_and_adds_up)
{
    Opened o = open_example(_i);
    Profile *p = profile_example(&o, _i, 0, 4);
    ck_assert_int_eq(p->timeline_iters, 4);
    int n = p->nnodes;
    for (int k = 0; k < 4; k++) {
        double end = p->iter_start[k];
        if (k > 0)
            ck_assert(p->iter_start[k] >= p->iter_start[k - 1] + p->iter_wall[k - 1]);
        for (int i = 0; i < n; i++) {
            double s = p->start[k * n + i], d = p->dur[k * n + i];
            ck_assert_msg(s >= end - 1e-9, "iteration %d node %d starts before the previous ended", k, i);
            end = s + d;
        }
        ck_assert(end <= p->iter_start[k] + p->iter_wall[k] + 1e-9);
    }
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int k = 0; k < 4; k++)
            sum += p->dur[k * n + i];
        ck_assert_double_eq_tol(sum, p->nodes[i].time.total, 1e-9);
        ck_assert_int_eq(p->live[3 * n + i], p->nodes[i].live_after);
    }
    profile_free(p);
    close_example(&o);
}
END_TEST

static int node_named(const Profile *p, const char *name)
{
    for (int i = 0; i < p->nnodes; i++)
        if (strcmp(p->nodes[i].name, name) == 0)
            return i;
    ck_abort_msg("no node %s", name);
    return -1;
}

/* The source line of examples/src/mlp.py, as the file has it. */
static char *mlp_line(int line)
{
    FILE *f = fopen("examples/src/mlp.py", "r");
    ck_assert_ptr_nonnull(f);
    char buf[512];
    for (int k = 1; fgets(buf, sizeof buf, f); k++)
        if (k == line) {
            fclose(f);
            char *s = buf;
            while (*s == ' ')
                s++;
            s[strcspn(s, "\n")] = '\0';
            return ep_xstrdup(s);
        }
    fclose(f);
    ck_abort_msg("mlp.py has no line %d", line);
    return NULL;
}

/* examples/mlp.pt2 on x: float32[4, 16] (hidden 32): bytes by hand, the
** shapes as torch.profiler prints them, and the user's line and module. */
START_TEST(test_mlp_memory_shapes_and_source)
{
    Opened o = open_example(0);
    Profile *p = profile_example(&o, 0, 1, 2);
    ck_assert_str_eq(p->inputs, "x: float32[4, 16]");
    const ProfileNode *relu = &p->nodes[node_named(p, "relu")];
    ck_assert_int_eq(relu->alloc_bytes, 4 * 32 * 4); /* its output */
    ck_assert_int_eq(relu->freed_bytes, 4 * 32 * 4); /* fc1's output, dead after it */
    ck_assert_str_eq(relu->target, "aten.relu.default");
    const ProfileNode *fc1 = &p->nodes[node_named(p, "linear")];
    ck_assert_str_eq(fc1->input_shapes, "[[4, 16], [32, 16], [32]]");
    ck_assert_str_eq(fc1->file, "examples/src/mlp.py");
    char *code = mlp_line(fc1->line);
    ck_assert_str_eq(fc1->code, code);
    ck_assert_ptr_nonnull(strstr(code, "self.fc1(x)"));
    free(code);
    ck_assert_int_ge(fc1->nscopes, 1);
    ck_assert_str_eq(fc1->scopes[fc1->nscopes - 1].path, "fc1");
    ck_assert_str_eq(fc1->scopes[fc1->nscopes - 1].type, "torch.nn.modules.linear.Linear");
    /* the peak is at least every node's live bytes, and reached by a node */
    ck_assert(p->peak_node >= 0 && p->peak_node < p->nnodes);
    for (int i = 0; i < p->nnodes; i++)
        ck_assert_int_ge(p->peak_live, p->nodes[i].live_after);
    for (int i = 1; i < p->npeak_tensors; i++)
        ck_assert_int_ge(p->peak_tensors[i - 1].bytes, p->peak_tensors[i].bytes);
    ck_assert_int_ge(p->npeak_tensors, 1);
    /* left at the end: the softmax's output [4, 4], the run's copy of x
    ** and the test's own x (the counters are the process's) */
    ck_assert_int_eq(p->nodes[p->nnodes - 1].live_after, 4 * 4 * 4 + 2 * (4 * 16 * 4));
    profile_free(p);
    close_example(&o);
}
END_TEST

/* Hooks installed before start keep being called, and come back after stop. */
typedef struct Counts {
    int enters, leaves;
} Counts;

static void count_enter(void *ud, const InterpNodeRef *n)
{
    (void)n;
    ((Counts *)ud)->enters++;
}

static void count_leave(void *ud, const InterpNodeRef *n, EpStatus rc)
{
    (void)n;
    (void)rc;
    ((Counts *)ud)->leaves++;
}

START_TEST(test_earlier_hooks_keep_working)
{
    Opened o = open_example(2);
    Counts c = {0};
    InterpHooks h = {count_enter, count_leave, &c};
    interp_set_hooks(o.ip, &h);
    Profile *p = profile_example(&o, 2, 0, 2);
    int n = interp_num_nodes(o.ip);
    ck_assert_int_eq(c.enters, 2 * n);
    ck_assert_int_eq(c.leaves, 2 * n);
    InterpHooks back = interp_hooks(o.ip);
    ck_assert(back.enter == count_enter && back.leave == count_leave && back.ud == &c);
    profile_free(p);
    close_example(&o);
}
END_TEST

/* The debugger's way: no bracketing; each run from node 0 is an iteration,
** complete when the last node ran. */
START_TEST(test_runs_count_as_iterations_without_bracketing)
{
    Opened o = open_example(0);
    EpError err = {0};
    Profiler *pr = profiler_new(o.ip, "mlp", NULL, &err);
    ck_assert_int_eq(profiler_start(pr, &err), EP_OK);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(interp_bind_copy(o.ip, &o.in, 1, &err), EP_OK);
        ck_assert_int_eq(interp_run(o.ip, &err), EP_OK);
    }
    /* a third run stopped half-way is not a complete iteration */
    ck_assert_int_eq(interp_bind_copy(o.ip, &o.in, 1, &err), EP_OK);
    ck_assert_int_eq(interp_step(o.ip, &err), EP_OK);
    Profile *p = profiler_take(pr, &err);
    ck_assert_int_eq(p->iters, 2);
    ck_assert_int_eq(p->nodes[0].time.count, 3);
    ck_assert_int_eq(p->nodes[1].time.count, 2);
    profile_free(p);
    profiler_free(pr);
    close_example(&o);
}
END_TEST

/* A failing node: what ran before it is kept, the profile says partial. */
START_TEST(test_failing_run_is_partial)
{
    EpError err = {0};
    Model *m;
    ck_assert_int_eq(model_open("build/fixtures/unsupported.pt2", NULL, &m, &err), EP_OK);
    Interp *ip = interp_new(m, NULL, &err);
    ProfileOptions opt = PROFILE_OPTIONS_DEFAULT;
    opt.iterations = true;
    Profiler *pr = profiler_new(ip, "unsupported.pt2", &opt, &err);
    ck_assert_int_eq(profiler_start(pr, &err), EP_OK);
    ck_assert_int_eq(interp_bind_sample_inputs(ip, &err), EP_OK);
    profiler_iteration_begin(pr, false);
    ck_assert_int_eq(interp_run(ip, &err), EP_ERR_EXEC);
    profiler_mark_partial(pr, err.msg);
    profiler_iteration_end(pr);
    profiler_stop(pr);
    Profile *p = profiler_take(pr, &err);
    ck_assert(p->partial);
    ck_assert_ptr_nonnull(strstr(p->reason, interp_node(ip, 1)->name));
    ck_assert_int_eq(p->iters, 0); /* no complete iteration */
    ck_assert_int_eq(p->nodes[0].time.count, 1);
    ck_assert_int_eq(p->nodes[1].time.count, 1); /* timed up to its failure */
    for (int i = 2; i < p->nnodes; i++)
        ck_assert_int_eq(p->nodes[i].time.count, 0);
    profile_free(p);
    profiler_free(pr);
    interp_free(ip);
    model_free(m);
}
END_TEST

/* ---- sampling ----------------------------------------------------------------- */

/* While a subgraph node runs, the top-level slot holds its while_loop. */
typedef struct TopSeen {
    const Interp *ip;
    int checked;
    bool ok;
} TopSeen;

static void top_enter(void *ud, const InterpNodeRef *n)
{
    TopSeen *t = ud;
    const Node *top = atomic_load_explicit(interp_now_top_slot(t->ip), memory_order_relaxed);
    const Node *want = n->depth == 0 ? n->node : interp_node(t->ip, 0);
    if (n->depth == 0)
        return; /* the slot is set after the hooks' enter is decided: check inside */
    t->checked++;
    t->ok = t->ok && top == want;
}

START_TEST(test_top_slot_holds_the_higher_order_node)
{
    char *path = hop_while_archive();
    EpError err = {0};
    Model *m;
    ck_assert_int_eq(model_open(path, NULL, &m, &err), EP_OK);
    Interp *ip = interp_new(m, NULL, &err);
    TopSeen t = {ip, 0, true};
    interp_set_hooks(ip, &(InterpHooks){top_enter, NULL, &t});
    int64_t s[1] = {3};
    Tensor *x = tensor_empty(DT_F32, 1, s, &err);
    float xv[3] = {1, 1, 1};
    memcpy(tensor_data(x), xv, sizeof xv);
    Value in[1] = {value_tensor(x)};
    ck_assert_int_eq(interp_bind(ip, in, 1, &err), EP_OK);
    ck_assert_int_eq(interp_run(ip, &err), EP_OK);
    ck_assert_int_gt(t.checked, 0);
    ck_assert(t.ok);
    ck_assert_ptr_null(atomic_load_explicit(interp_now_top_slot(ip), memory_order_relaxed));
    value_clear(&in[0]);
    interp_free(ip);
    model_free(m);
    unlink(path);
    free(path);
}
END_TEST

static void spin(double secs)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    volatile double x = 0;
    do {
        for (int i = 0; i < 10000; i++)
            x += i;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9 < secs);
}

/* Samples go to the node the slot names, to "outside" when it names none
** or a node of another graph, and nowhere while paused; the counts add up
** to the total.  Both ways of sampling: the reader thread (wall) and the
** CPU-time timer's signal. */
START_TEST(test_sampler_charges_the_slot)
{
    ProfileClock clock = _i == 0 ? PROFILE_CLOCK_WALL : PROFILE_CLOCK_CPU;
    Node nodes[4], other;
    memset(nodes, 0, sizeof nodes);
    _Atomic(const Node *) slot;
    atomic_init(&slot, &nodes[2]);
    EpError err = {0};
    Sampler *s = sampler_new(&slot, nodes, 4, 1000, clock, &err);
    ck_assert_msg(s != NULL, "%s", err.msg);
    ck_assert_int_eq(sampler_arm(s, &err), EP_OK);
    spin(0.2);
    atomic_store(&slot, &other);
    spin(0.05);
    sampler_pause(s, true);
    int64_t before = sampler_total(s);
    spin(0.05);
    ck_assert_int_le(sampler_total(s) - before, 1); /* at most one in flight */
    sampler_disarm(s);
    ck_assert_int_gt(sampler_count(s, 2), 20);
    ck_assert_int_eq(sampler_count(s, 0) + sampler_count(s, 1) + sampler_count(s, 3), 0);
    ck_assert_int_gt(sampler_outside(s), 0);
    ck_assert_int_eq(sampler_count(s, 2) + sampler_outside(s), sampler_total(s));
    sampler_free(s);
}
END_TEST

START_TEST(test_sampler_refuses_bad_rates)
{
    Node nodes[1];
    _Atomic(const Node *) slot;
    atomic_init(&slot, NULL);
    EpError err = {0};
    ck_assert_ptr_null(sampler_new(&slot, nodes, 1, 0, PROFILE_CLOCK_WALL, &err));
    ck_assert_int_eq(err.code, EP_ERR_USAGE);
    ck_assert_ptr_null(sampler_new(&slot, nodes, 1, PROFILE_MAX_HZ + 1, PROFILE_CLOCK_WALL, &err));
}
END_TEST

/* A sampled profile of a real run: no per-node timing, samples adding up,
** shapes and memory still known (seen during the warm-up run). */
START_TEST(test_sampled_profile_adds_up)
{
    Opened o = open_example(2);
    EpError err = {0};
    ProfileOptions opt = {.mode = PROFILE_SAMPLE, .sample_hz = 5000, .clock = PROFILE_CLOCK_WALL, .iterations = true};
    Profiler *pr = profiler_new(o.ip, "cnn", &opt, &err);
    ck_assert_int_eq(profiler_start(pr, &err), EP_OK);
    run_iteration(&o, pr, true);
    InterpHooks h = interp_hooks(o.ip);
    ck_assert_ptr_null(h.enter); /* every node seen: no hooks in measured runs */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int iters = 0;
    do {
        run_iteration(&o, pr, false);
        iters++;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9 < 0.3);
    profiler_stop(pr);
    Profile *p = profiler_take(pr, &err);
    ck_assert_int_eq(p->iters, iters);
    ck_assert_int_gt(p->samples, 100);
    int64_t sum = p->outside_samples;
    for (int i = 0; i < p->nnodes; i++) {
        sum += p->nodes[i].samples;
        ck_assert_int_eq(p->nodes[i].time.count, 0);
        ck_assert_ptr_nonnull(p->nodes[i].input_shapes);
    }
    ck_assert_int_eq(sum, p->samples);
    ck_assert_double_eq(p->sample_period, 1.0 / 5000);
    /* the convolutions do most of the work */
    int conv = node_named(p, "conv2d");
    ck_assert_int_gt(p->nodes[conv].samples, 0);
    profile_free(p);
    profiler_free(pr);
    close_example(&o);
}
END_TEST

/* Strings from a hostile archive become valid UTF-8 before any writer
** sees them; valid multi-byte text is kept as it is. */
START_TEST(test_text_made_valid_utf8)
{
    static const struct {
        const char *in, *out;
    } CASES[] = {
        {"a\xff" "b", "a?b"},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"},
        {"\xc0\xaf", "??"},                 /* overlong '/' */
        {"\xed\xa0\x80", "???"},            /* a surrogate */
        {"x\xe2\x82", "x??"},                 /* cut short */
        {"\xf4\x90\x80\x80", "????"},       /* above U+10FFFF */
    };
    for (size_t i = 0; i < EP_ARRAY_LEN(CASES); i++) {
        Profile *p = ep_xcalloc(1, sizeof *p);
        p->nnodes = 1;
        p->nodes = ep_xcalloc(1, sizeof *p->nodes);
        p->nodes[0].code = ep_xstrdup(CASES[i].in);
        p->inputs = ep_xstrdup(CASES[i].in);
        profile_clean_text(p);
        ck_assert_str_eq(p->nodes[0].code, CASES[i].out);
        ck_assert_str_eq(p->inputs, CASES[i].out);
        profile_free(p);
    }
}
END_TEST

Suite *suite_profile_record(void)
{
    Suite *s = suite_create("profile_record");
    TCase *tc = tcase_create("exact");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_exact_counts_every_node_once_per_iteration, 0, (int)EP_ARRAY_LEN(EXAMPLES));
    tcase_add_loop_test(tc, test_timeline_is_ordered_and_adds_up, 0, (int)EP_ARRAY_LEN(EXAMPLES));
    tcase_add_test(tc, test_mlp_memory_shapes_and_source);
    tcase_add_test(tc, test_earlier_hooks_keep_working);
    tcase_add_test(tc, test_runs_count_as_iterations_without_bracketing);
    tcase_add_test(tc, test_failing_run_is_partial);
    tcase_add_test(tc, test_text_made_valid_utf8);
    suite_add_tcase(s, tc);
    tc = tcase_create("sampling");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_top_slot_holds_the_higher_order_node);
    tcase_add_loop_test(tc, test_sampler_charges_the_slot, 0, 2);
    tcase_add_test(tc, test_sampler_refuses_bad_rates);
    tcase_add_test(tc, test_sampled_profile_adds_up);
    suite_add_tcase(s, tc);
    return s;
}
