/*
** test_profile_traces.c -- the trace and flame-graph writers (chrome,
** speedscope, folded, svg; profiler/report_*.c on profiler/flame.c),
** called directly on hand-built Profiles whose numbers are chosen so the
** expected output can be worked out by hand.
**
** The exact profile: 2 iterations, 5 nodes, a timeline of both, module
** scopes enc > enc.l0 / enc.l1, one node outside any module whose names
** hold '<&;"'.  Per iteration: n0 10 us, n1 2, n2 15, n3 1, n4 3, dispatch
** 4: 35 us.  The sampling profile: 1 ms a sample, 2 iterations.
*/
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profiler/flame.h"
#include "profiler/report_int.h"
#include "testutil.h"

#define NN 5
#define WEIRD_TARGET "my.op<&;\"x"
#define WEIRD_NAME "we<&;\"ird"

/* ---- the profiles ------------------------------------------------------------ */

static void scope(ProfileNode *n, const char *path, const char *type)
{
    n->scopes = ep_xrealloc(n->scopes, (size_t)(n->nscopes + 1) * sizeof *n->scopes);
    n->scopes[n->nscopes++] = (ProfileScope){ep_xstrdup(path), type ? ep_xstrdup(type) : NULL};
}

/* The five nodes: n0 enc/enc.l0 addmm, n1 enc relu, n2 enc/enc.l1 addmm,
** n3 the weird one (no module), n4 enc/enc.l0 addmm again.  The model
** itself (path "") is the outermost scope of each, as torch records it. */
static Profile *base_profile(ProfileMode mode)
{
    static const struct {
        const char *name, *target, *scope1, *scope2;
    } N[NN] = {
        {"addmm", "aten.addmm.default", "enc", "enc.l0"},
        {"relu", "aten.relu.default", "enc", NULL},
        {"addmm_1", "aten.addmm.default", "enc", "enc.l1"},
        {WEIRD_NAME, WEIRD_TARGET, NULL, NULL},
        {"addmm_2", "aten.addmm.default", "enc", "enc.l0"},
    };
    Profile *p = ep_xcalloc(1, sizeof *p);
    p->model_path = ep_xstrdup("model<&>.pt2");
    p->program = ep_xstrdup("model");
    p->inputs = ep_xstrdup("x: float32[4, 16]");
    p->mode = mode;
    p->iters = 2;
    p->threads = 1;
    p->peak_node = -1;
    p->nnodes = NN;
    p->nodes = ep_xcalloc(NN, sizeof *p->nodes);
    for (int i = 0; i < NN; i++) {
        ProfileNode *n = &p->nodes[i];
        n->name = ep_xstrdup(N[i].name);
        n->target = ep_xstrdup(N[i].target);
        n->input_shapes = ep_xstrdup("[[4, 16], [16, 32], []]");
        scope(n, "", "Model");
        if (N[i].scope1)
            scope(n, N[i].scope1, "x.Encoder");
        if (N[i].scope2)
            scope(n, N[i].scope2, "torch.nn.modules.linear.Linear");
        n->file = ep_xstrdup("model.py");
        n->line = 10 + i;
        n->code = ep_xstrdup("y = self.f(x) < 1 & \"q\"");
        n->flops = 1000 * (i + 1);
        n->bytes = 64;
    }
    return p;
}

static const double US_PER_ITER[NN] = {10, 2, 15, 1, 3};
/* Offsets of each node's start in its iteration (us), chosen off the
** microsecond grid so rounding is exercised. */
static const double START_US[NN] = {1.0004, 11.5, 14.0006, 29.2, 30.5};

static Profile *exact_profile(void)
{
    Profile *p = base_profile(PROFILE_EXACT);
    for (int i = 0; i < NN; i++)
        p->nodes[i].time = (ProfileStats){.count = 2, .total = 2 * US_PER_ITER[i] * 1e-6};
    p->dispatch = 2 * 4e-6;
    p->wall = 2 * 35e-6;
    p->timeline_iters = 2;
    p->start = ep_xmalloc(2 * NN * sizeof *p->start);
    p->dur = ep_xmalloc(2 * NN * sizeof *p->dur);
    p->live = ep_xmalloc(2 * NN * sizeof *p->live);
    p->iter_start = ep_xmalloc(2 * sizeof *p->iter_start);
    p->iter_wall = ep_xmalloc(2 * sizeof *p->iter_wall);
    for (int k = 0; k < 2; k++) {
        p->iter_start[k] = k * 35e-6;
        p->iter_wall[k] = 35e-6;
        for (int i = 0; i < NN; i++) {
            p->start[k * NN + i] = (k * 35 + START_US[i]) * 1e-6;
            p->dur[k * NN + i] = US_PER_ITER[i] * 1e-6;
            p->live[k * NN + i] = 1000 * (k * NN + i + 1);
        }
    }
    return p;
}

static const int64_t SAMPLES[NN] = {10, 0, 6, 2, 4};

static Profile *sampled_profile(void)
{
    Profile *p = base_profile(PROFILE_SAMPLE);
    p->sample_hz = 1000;
    p->sample_period = 1e-3;
    for (int i = 0; i < NN; i++)
        p->nodes[i].samples = SAMPLES[i];
    p->outside_samples = 3;
    p->samples = 25;
    return p;
}

typedef EpStatus (*Writer)(FILE *, const Profile *, const ReportOptions *, EpError *);

/* What a writer writes (new string).  With $EPDBG_TRACES_KEEP set to a
** folder, also kept there as keep_as, to open in the viewers. */
static char *write_report(Writer w, const Profile *p, const Profile *base, const char *keep_as)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    EpError err = {0};
    ReportOptions o = {.by = PROFILE_BY_OP, .base = base};
    ck_assert_msg(w(f, p, &o, &err) == EP_OK, "%s", err.msg);
    fclose(f);
    const char *dir = getenv("EPDBG_TRACES_KEEP");
    if (dir && *dir) {
        char *path = ep_xasprintf("%s/%s", dir, keep_as);
        FILE *k = fopen(path, "w");
        ck_assert_msg(k != NULL, "%s", path);
        fputs(buf, k);
        fclose(k);
        free(path);
    }
    return buf;
}

/* ---- folded ------------------------------------------------------------------ */

typedef struct Line {
    const char *stack;
    double count, before; /* before: difffolded's first column */
} Line;

/* Parse folded lines "stack N" (or "stack B A"); returns the count. */
static int parse_folded(char *text, Line *out, int max, bool diff)
{
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        ck_assert_int_lt(n, max);
        char *sp = strrchr(line, ' ');
        ck_assert_ptr_nonnull(sp);
        char *end;
        out[n].count = strtod(sp + 1, &end);
        ck_assert_msg(*end == 0, "bad count in '%s'", line);
        *sp = 0;
        if (diff) {
            sp = strrchr(line, ' ');
            ck_assert_ptr_nonnull(sp);
            out[n].before = strtod(sp + 1, &end);
            ck_assert_msg(*end == 0, "bad before count in '%s'", line);
            *sp = 0;
        }
        ck_assert_msg(sp > line && sp[-1] != ' ', "a frame ends in a space: '%s'", line);
        out[n++].stack = line;
    }
    return n;
}

static const Line *find_line(const Line *l, int n, const char *stack)
{
    for (int i = 0; i < n; i++)
        if (strcmp(l[i].stack, stack) == 0)
            return &l[i];
    ck_abort_msg("no folded line '%s'", stack);
    return NULL;
}

#define ENC "enc (Encoder)"
#define L0 ENC ";enc.l0 (Linear)"
#define L1 ENC ";enc.l1 (Linear)"
#define FOLDED_WEIRD "my.op<&:\"x" /* ';' cannot stand in a frame */

START_TEST(test_folded_exact_sums_to_total)
{
    Profile *p = exact_profile();
    char *out = write_report(report_folded, p, NULL, "folded_exact_sums_to_total.folded");
    Line l[16];
    int n = parse_folded(out, l, 16, false);
    ck_assert_int_eq(n, 5); /* n0 and n4 share their stack */
    ck_assert_double_eq_tol(find_line(l, n, L0 ";aten.addmm.default")->count, 13, 1e-9);
    ck_assert_double_eq_tol(find_line(l, n, ENC ";aten.relu.default")->count, 2, 1e-9);
    ck_assert_double_eq_tol(find_line(l, n, L1 ";aten.addmm.default")->count, 15, 1e-9);
    ck_assert_double_eq_tol(find_line(l, n, FOLDED_WEIRD)->count, 1, 1e-9);
    ck_assert_double_eq_tol(find_line(l, n, "(dispatch)")->count, 4, 1e-9);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += l[i].count;
    ck_assert_double_eq_tol(sum, profile_total_seconds(p) * 1e6, 1e-6);
    ck_assert_double_eq_tol(sum, 35, 1e-6);
    free(out);
    profile_free(p);
}
END_TEST

START_TEST(test_folded_sampling_counts_samples)
{
    Profile *p = sampled_profile();
    char *out = write_report(report_folded, p, NULL, "folded_sampling_counts_samples.folded");
    Line l[16];
    int n = parse_folded(out, l, 16, false);
    ck_assert_int_eq(n, 4); /* relu has no sample: no line */
    ck_assert_double_eq(find_line(l, n, L0 ";aten.addmm.default")->count, 14);
    ck_assert_double_eq(find_line(l, n, L1 ";aten.addmm.default")->count, 6);
    ck_assert_double_eq(find_line(l, n, FOLDED_WEIRD)->count, 2);
    ck_assert_double_eq(find_line(l, n, "(outside nodes)")->count, 3);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += l[i].count;
    ck_assert_double_eq(sum, (double)p->samples);
    free(out);
    profile_free(p);
}
END_TEST

/* The base of the diffs: n1 took 4 us instead of 2, n2 10 instead of 15,
** and a node only the base has (a mul in enc) took 5. */
static Profile *diff_base(void)
{
    Profile *b = exact_profile();
    b->nodes[1].time.total = 2 * 4e-6;
    b->nodes[2].time.total = 2 * 10e-6;
    b->nodes = ep_xrealloc(b->nodes, (NN + 1) * sizeof *b->nodes);
    ProfileNode *m = &b->nodes[NN];
    *m = (ProfileNode){.name = ep_xstrdup("mul"), .target = ep_xstrdup("aten.mul.Tensor")};
    m->time = (ProfileStats){.count = 2, .total = 2 * 5e-6};
    scope(m, "enc", "x.Encoder");
    b->nnodes = NN + 1;
    b->timeline_iters = 0; /* the base's timeline is never read */
    return b;
}

START_TEST(test_folded_diff_two_columns_union)
{
    Profile *p = exact_profile(), *b = diff_base();
    char *out = write_report(report_folded, p, b, "folded_diff_two_columns_union.folded");
    Line l[16];
    int n = parse_folded(out, l, 16, true);
    ck_assert_int_eq(n, 6); /* p's 5 stacks and the base's mul */
    const Line *x = find_line(l, n, L1 ";aten.addmm.default");
    ck_assert_double_eq_tol(x->before, 10, 1e-9);
    ck_assert_double_eq_tol(x->count, 15, 1e-9);
    x = find_line(l, n, ENC ";aten.mul.Tensor");
    ck_assert_double_eq_tol(x->before, 5, 1e-9);
    ck_assert_double_eq_tol(x->count, 0, 1e-9);
    x = find_line(l, n, ENC ";aten.relu.default");
    ck_assert_double_eq_tol(x->before, 4, 1e-9);
    ck_assert_double_eq_tol(x->count, 2, 1e-9);
    x = find_line(l, n, L0 ";aten.addmm.default");
    ck_assert_double_eq_tol(x->before, 13, 1e-9);
    ck_assert_double_eq_tol(x->count, 13, 1e-9);
    double before = 0, after = 0;
    for (int i = 0; i < n; i++) {
        before += l[i].before;
        after += l[i].count;
    }
    ck_assert_double_eq_tol(before, profile_total_seconds(b) * 1e6, 1e-6);
    ck_assert_double_eq_tol(after, profile_total_seconds(p) * 1e6, 1e-6);
    free(out);
    profile_free(p);
    profile_free(b);
}
END_TEST

/* ---- chrome ------------------------------------------------------------------ */

typedef struct Span {
    double ts, end;
    const cJSON *ev;
} Span;

static int cmp_span(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    double dx = x->end - x->ts, dy = y->end - y->ts;
    return (dx < dy) - (dx > dy); /* the longer (enclosing) first */
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(cJSON_IsNumber(v), "no number '%s'", key);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(cJSON_IsString(v), "no string '%s'", key);
    return v->valuestring;
}

static bool is(const cJSON *o, const char *key, const char *val)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && strcmp(v->valuestring, val) == 0;
}

#define TOL 1e-6 /* microseconds */

/* The X events of the track never overlap: sorted by start (enclosing
** first), each either lies in the innermost open one or starts after it
** ended.  Returns the X events (new array) in that order. */
static Span *check_nesting(const cJSON *events, int *count)
{
    int n = 0;
    Span *sp = ep_xmalloc((size_t)cJSON_GetArraySize(events) * sizeof *sp);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        if (!is(ev, "ph", "X"))
            continue;
        ck_assert_int_eq((int)num(ev, "pid"), 1);
        ck_assert_int_eq((int)num(ev, "tid"), 1);
        ck_assert(num(ev, "dur") >= 0);
        sp[n++] = (Span){num(ev, "ts"), num(ev, "ts") + num(ev, "dur"), ev};
    }
    qsort(sp, (size_t)n, sizeof *sp, cmp_span);
    Span **stack = ep_xmalloc((size_t)(n + 1) * sizeof *stack);
    int top = 0;
    for (int i = 0; i < n; i++) {
        while (top > 0 && !(sp[i].ts >= stack[top - 1]->ts - TOL && sp[i].end <= stack[top - 1]->end + TOL)) {
            ck_assert_msg(sp[i].ts >= stack[top - 1]->end - TOL, "'%s' [%f, %f] overlaps '%s' [%f, %f]",
                          str(sp[i].ev, "name"), sp[i].ts, sp[i].end, str(stack[top - 1]->ev, "name"),
                          stack[top - 1]->ts, stack[top - 1]->end);
            top--;
        }
        /* every op and module event lies in an iteration */
        if (!is(sp[i].ev, "cat", "iteration"))
            ck_assert_msg(top > 0, "'%s' outside any iteration", str(sp[i].ev, "name"));
        stack[top++] = &sp[i];
    }
    free(stack);
    *count = n;
    return sp;
}

static cJSON *parse_json(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(j != NULL, "not JSON near: %.60s", cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "?");
    return j;
}

START_TEST(test_chrome_exact_nests_and_counts)
{
    Profile *p = exact_profile();
    char *out = write_report(report_chrome, p, NULL, "chrome_exact_nests_and_counts.chrome.json");
    cJSON *j = parse_json(out);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
    ck_assert(cJSON_IsArray(events));
    int n;
    Span *sp = check_nesting(events, &n);
    /* every node once per kept iteration, with its args */
    int seen[NN] = {0}, iters = 0, enc = 0, l0 = 0, l1 = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *ev = sp[i].ev;
        if (is(ev, "cat", "iteration"))
            iters++;
        if (is(ev, "name", ENC))
            enc++;
        if (is(ev, "name", "enc.l0 (Linear)"))
            l0++;
        if (is(ev, "name", "enc.l1 (Linear)"))
            l1++;
        if (!is(ev, "cat", "op"))
            continue;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
        int k;
        for (k = 0; k < NN && strcmp(p->nodes[k].name, str(args, "node")) != 0; k++)
            ;
        ck_assert_int_lt(k, NN);
        seen[k]++;
        ck_assert_str_eq(str(ev, "name"), p->nodes[k].target);
        ck_assert_str_eq(str(args, "target"), p->nodes[k].target);
        ck_assert_str_eq(str(args, "input_shapes"), "[[4, 16], [16, 32], []]");
        char where[32];
        snprintf(where, sizeof where, "model.py:%d", 10 + k);
        ck_assert_str_eq(str(args, "source"), where);
        ck_assert_double_eq(num(args, "flops"), 1000 * (k + 1));
        ck_assert_double_eq(num(args, "bytes"), 64);
        ck_assert_double_eq_tol(num(ev, "dur"), US_PER_ITER[k], 1e-3);
    }
    for (int k = 0; k < NN; k++)
        ck_assert_int_eq(seen[k], 2);
    ck_assert_int_eq(iters, 2);
    /* per iteration: enc around n0..n2 and around n4; enc.l0 around n0
    ** and n4; enc.l1 around n2 */
    ck_assert_int_eq(enc, 4);
    ck_assert_int_eq(l0, 4);
    ck_assert_int_eq(l1, 2);
    /* the first enc spans n0's start to n2's end exactly (hand: 1.000 to
    ** 14.0006 + 15 us, to whole ns 29.001, as n2's own values say) */
    for (int i = 0; i < n; i++) {
        if (is(sp[i].ev, "name", ENC)) {
            ck_assert_double_eq_tol(sp[i].ts, 1.0, 1e-9);
            ck_assert_double_eq_tol(sp[i].end, 29.001, 1e-9); /* n2 starts at 14.001 */
            break;
        }
    }
    /* the counter: live bytes after each node, in order */
    int c = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        if (!is(ev, "ph", "C"))
            continue;
        ck_assert_str_eq(str(ev, "name"), "live bytes");
        ck_assert_int_lt(c, 2 * NN);
        ck_assert_double_eq(num(cJSON_GetObjectItemCaseSensitive(ev, "args"), "bytes"), (double)p->live[c]);
        c++;
    }
    ck_assert_int_eq(c, 2 * NN);
    /* metadata and header facts */
    bool proc = false;
    cJSON_ArrayForEach(ev, events)
    {
        if (is(ev, "ph", "M") && is(ev, "name", "process_name")) {
            ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(ev, "args"), "name"), "model<&>.pt2 (model)");
            proc = true;
        }
    }
    ck_assert(proc);
    const cJSON *od = cJSON_GetObjectItemCaseSensitive(j, "otherData");
    ck_assert_str_eq(str(od, "model"), "model<&>.pt2");
    ck_assert_str_eq(str(od, "mode"), "exact");
    ck_assert_double_eq(num(od, "iters"), 2);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(od, "dropped")));
    free(sp);
    cJSON_Delete(j);
    free(out);
    profile_free(p);
}
END_TEST

START_TEST(test_chrome_sampling_lays_nodes_out)
{
    Profile *p = sampled_profile();
    char *out = write_report(report_chrome, p, NULL, "chrome_sampling_lays_nodes_out.chrome.json");
    cJSON *j = parse_json(out);
    int n;
    Span *sp = check_nesting(cJSON_GetObjectItemCaseSensitive(j, "traceEvents"), &n);
    int seen[NN] = {0};
    bool outside = false;
    for (int i = 0; i < n; i++) {
        const cJSON *ev = sp[i].ev;
        if (is(ev, "name", "(outside nodes)")) {
            ck_assert_double_eq_tol(num(ev, "dur"), 1500, 1e-9); /* 3 samples * 1 ms / 2 iterations */
            outside = true;
        }
        if (!is(ev, "cat", "op"))
            continue;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
        int k;
        for (k = 0; k < NN && strcmp(p->nodes[k].name, str(args, "node")) != 0; k++)
            ;
        ck_assert_int_lt(k, NN);
        seen[k]++;
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "estimated_from_samples")));
        ck_assert_double_eq(num(args, "samples"), (double)SAMPLES[k]);
        ck_assert_double_eq_tol(num(ev, "dur"), SAMPLES[k] * 500.0, 1e-9);
        double at = 0; /* nodes one after another in graph order */
        for (int m = 0; m < k; m++)
            at += SAMPLES[m] * 500.0;
        ck_assert_double_eq_tol(sp[i].ts, at, 1e-9);
    }
    ck_assert(outside);
    for (int k = 0; k < NN; k++)
        ck_assert_int_eq(seen[k], 1);
    free(sp);
    cJSON_Delete(j);
    free(out);
    profile_free(p);
}
END_TEST

/* ---- speedscope ---------------------------------------------------------------- */

/* An evented profile: `at` never decreases, within [startValue,
** endValue], each close closes the innermost open frame, nothing stays
** open.  Returns how many times frame `count_frame` was opened. */
static int check_evented(const cJSON *prof, int nframes, int count_frame)
{
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(prof, "events");
    ck_assert(cJSON_IsArray(events));
    double last = num(prof, "startValue"), endv = num(prof, "endValue");
    int stack[64], top = 0, opened = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        double at = num(ev, "at");
        int fr = (int)num(ev, "frame");
        ck_assert(at >= last && at <= endv);
        ck_assert(fr >= 0 && fr < nframes);
        last = at;
        if (is(ev, "type", "O")) {
            ck_assert_int_lt(top, 64);
            stack[top++] = fr;
            opened += fr == count_frame;
        } else {
            ck_assert(is(ev, "type", "C"));
            ck_assert_msg(top > 0 && stack[top - 1] == fr, "frame %d closed out of order", fr);
            top--;
        }
    }
    ck_assert_int_eq(top, 0);
    return opened;
}

/* A sampled profile: samples and weights of equal length, valid frame
** indexes; returns the sum of the weights. */
static double check_sampled(const cJSON *prof, int nframes)
{
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(prof, "samples");
    const cJSON *weights = cJSON_GetObjectItemCaseSensitive(prof, "weights");
    ck_assert(cJSON_IsArray(samples) && cJSON_IsArray(weights));
    ck_assert_int_eq(cJSON_GetArraySize(samples), cJSON_GetArraySize(weights));
    const cJSON *s, *w;
    cJSON_ArrayForEach(s, samples)
    {
        ck_assert(cJSON_GetArraySize(s) > 0);
        cJSON_ArrayForEach(w, s) ck_assert(w->valuedouble >= 0 && w->valuedouble < nframes);
    }
    double sum = 0;
    cJSON_ArrayForEach(w, weights) sum += w->valuedouble;
    ck_assert_double_eq_tol(sum, num(prof, "endValue") - num(prof, "startValue"), 1e-6);
    return sum;
}

/* The index of the frame named name (the first, or -1). */
static int frame_index(const cJSON *frames, const char *name)
{
    int i = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, frames)
    {
        if (is(f, "name", name))
            return i;
        i++;
    }
    return -1;
}

static const cJSON *speedscope_frames(const cJSON *j)
{
    ck_assert_str_eq(str(j, "$schema"), "https://www.speedscope.app/file-format-schema.json");
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "shared"), "frames");
    ck_assert(cJSON_IsArray(frames));
    const cJSON *f;
    cJSON_ArrayForEach(f, frames) str(f, "name");
    return frames;
}

START_TEST(test_speedscope_exact)
{
    Profile *p = exact_profile();
    char *out = write_report(report_speedscope, p, NULL, "speedscope_exact.speedscope.json");
    cJSON *j = parse_json(out);
    const cJSON *frames = speedscope_frames(j);
    int nf = cJSON_GetArraySize(frames);
    const cJSON *profs = cJSON_GetObjectItemCaseSensitive(j, "profiles");
    ck_assert_int_eq(cJSON_GetArraySize(profs), 2);
    const cJSON *ev = cJSON_GetArrayItem(profs, 0), *sa = cJSON_GetArrayItem(profs, 1);
    ck_assert(is(ev, "type", "evented") && is(sa, "type", "sampled"));
    ck_assert(is(ev, "unit", "nanoseconds") && is(sa, "unit", "microseconds"));
    /* relu's leaf opens once per iteration; its frame has its source line */
    int relu = frame_index(frames, "aten.relu.default");
    ck_assert_int_ge(relu, 0);
    ck_assert_str_eq(str(cJSON_GetArrayItem(frames, relu), "file"), "model.py");
    ck_assert_double_eq(num(cJSON_GetArrayItem(frames, relu), "line"), 11);
    ck_assert_int_eq(check_evented(ev, nf, relu), 2);
    ck_assert_int_eq(check_evented(ev, nf, frame_index(frames, "enc.l0 (Linear)")), 4);
    ck_assert_int_eq(check_evented(ev, nf, frame_index(frames, "iteration")), 2);
    ck_assert_int_ge(frame_index(frames, WEIRD_TARGET), 0);
    ck_assert_double_eq_tol(check_sampled(sa, nf), 35, 1e-6);
    cJSON_Delete(j);
    free(out);
    profile_free(p);
}
END_TEST

START_TEST(test_speedscope_sampling)
{
    Profile *p = sampled_profile();
    char *out = write_report(report_speedscope, p, NULL, "speedscope_sampling.speedscope.json");
    cJSON *j = parse_json(out);
    const cJSON *frames = speedscope_frames(j);
    const cJSON *profs = cJSON_GetObjectItemCaseSensitive(j, "profiles");
    ck_assert_int_eq(cJSON_GetArraySize(profs), 1);
    const cJSON *sa = cJSON_GetArrayItem(profs, 0);
    ck_assert(is(sa, "type", "sampled"));
    /* 25 samples of 1 ms over 2 iterations */
    ck_assert_double_eq_tol(check_sampled(sa, cJSON_GetArraySize(frames)), 12500, 1e-6);
    /* stacks root first: enc's leaf addmm under enc.l0 weighs 14 samples */
    int enc = frame_index(frames, ENC), l0 = frame_index(frames, "enc.l0 (Linear)");
    const cJSON *s;
    int i = 0, found = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(sa, "samples"))
    {
        if (cJSON_GetArraySize(s) == 3 && cJSON_GetArrayItem(s, 0)->valueint == enc &&
            cJSON_GetArrayItem(s, 1)->valueint == l0) {
            ck_assert_double_eq_tol(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sa, "weights"), i)->valuedouble,
                                    7000, 1e-6);
            found++;
        }
        i++;
    }
    ck_assert_int_eq(found, 1);
    cJSON_Delete(j);
    free(out);
    profile_free(p);
}
END_TEST

/* ---- svg ------------------------------------------------------------------------ */

/* XML well-formedness, enough for what the writer writes: the prolog,
** elements with quoted attributes, matching tags, CDATA, comments, and
** text and attribute values with only the five named and numeric
** entities and no raw '<' or '&'.  Fails the test at the first fault. */
static void check_entities(const char *s, size_t n)
{
    static const char *const NAMED[] = {"amp;", "lt;", "gt;", "quot;", "apos;"};
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(s[i] != '<', "raw '<' in text: %.40s", s + i);
        if (s[i] != '&')
            continue;
        bool ok = s[i + 1] == '#';
        for (size_t k = 0; !ok && k < EP_ARRAY_LEN(NAMED); k++)
            ok = strncmp(s + i + 1, NAMED[k], strlen(NAMED[k])) == 0;
        ck_assert_msg(ok, "bad entity at: %.40s", s + i);
    }
}

static void check_xml(const char *x)
{
    char stack[64][64];
    int top = 0, roots = 0;
    const char *s = x;
    if (strncmp(s, "<?xml", 5) == 0) {
        s = strstr(s, "?>");
        ck_assert_ptr_nonnull(s);
        s += 2;
    }
    while (*s) {
        const char *lt = strchr(s, '<');
        if (!lt) {
            check_entities(s, strlen(s));
            ck_assert_msg(strspn(s, " \n") == strlen(s), "text after the root element");
            break;
        }
        check_entities(s, (size_t)(lt - s));
        if (top == 0)
            ck_assert_msg(strspn(s, " \n") >= (size_t)(lt - s), "text outside the root element");
        s = lt;
        if (strncmp(s, "<![CDATA[", 9) == 0) {
            ck_assert(top > 0);
            s = strstr(s, "]]>");
            ck_assert_ptr_nonnull(s);
            s += 3;
        } else if (strncmp(s, "<!--", 4) == 0) {
            s = strstr(s, "-->");
            ck_assert_ptr_nonnull(s);
            s += 3;
        } else if (s[1] == '/') {
            size_t n = strcspn(s + 2, ">");
            ck_assert_msg(top > 0 && strlen(stack[top - 1]) == n && strncmp(stack[top - 1], s + 2, n) == 0,
                          "mismatched close tag at: %.40s", s);
            top--;
            s += 2 + n + 1;
        } else {
            s++;
            size_t n = strcspn(s, " \t\n/>");
            ck_assert_msg(n > 0 && n < 64, "bad tag at: %.40s", s - 1);
            char name[64];
            memcpy(name, s, n);
            name[n] = 0;
            s += n;
            for (;;) { /* attributes: name="value" */
                s += strspn(s, " \t\n");
                if (*s == '>' || (s[0] == '/' && s[1] == '>'))
                    break;
                size_t an = strcspn(s, "= \t\n>");
                ck_assert_msg(an > 0 && s[an] == '=' && (s[an + 1] == '"' || s[an + 1] == '\''),
                              "bad attribute at: %.40s", s);
                char q = s[an + 1];
                const char *end = strchr(s + an + 2, q);
                ck_assert_ptr_nonnull(end);
                check_entities(s + an + 2, (size_t)(end - (s + an + 2)));
                s = end + 1;
            }
            if (top == 0)
                roots++;
            if (*s == '/') {
                s += 2;
            } else {
                ck_assert_int_lt(top, 64);
                strcpy(stack[top++], name);
                s++;
            }
        }
    }
    ck_assert_int_eq(top, 0);
    ck_assert_int_eq(roots, 1);
}

/* An attribute's value in the tag at s (decoded; new string), or NULL. */
static char *attr(const char *s, const char *name)
{
    const char *end = strchr(s, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = strstr(s, key);
    if (!a || a > end)
        return NULL;
    a += strlen(key);
    StrBuf sb;
    sb_init(&sb);
    static const struct {
        const char *ent, *ch;
    } E[] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
    while (*a != '"') {
        size_t k = 0;
        for (; *a == '&' && k < EP_ARRAY_LEN(E); k++)
            if (strncmp(a, E[k].ent, strlen(E[k].ent)) == 0)
                break;
        if (*a == '&' && k < EP_ARRAY_LEN(E)) {
            sb_append(&sb, E[k].ch);
            a += strlen(E[k].ent);
        } else {
            sb_appendn(&sb, a++, 1);
        }
    }
    return sb_take(&sb);
}

static double attr_num(const char *s, const char *name)
{
    char *v = attr(s, name);
    ck_assert_msg(v != NULL, "no attribute %s", name);
    double d = atof(v);
    free(v);
    return d;
}

typedef struct SvgFrame {
    char *name, *fill;
    int depth;
    double self, total, x, w;
} SvgFrame;

/* The frames of a flame graph (their <g class="f"> and its rect). */
static int svg_frames(const char *svg, SvgFrame *out, int max)
{
    int n = 0;
    for (const char *g = strstr(svg, "<g class=\"f\""); g; g = strstr(g + 1, "<g class=\"f\"")) {
        ck_assert_int_lt(n, max);
        const char *r = strstr(g, "<rect");
        out[n] = (SvgFrame){attr(g, "data-name"), attr(r, "fill"), (int)attr_num(g, "data-depth"),
                            attr_num(g, "data-self"), attr_num(g, "data-total"), attr_num(r, "x"),
                            attr_num(r, "width")};
        n++;
    }
    return n;
}

#define SVG_W 1180.0 /* the frames' full width */

/* Each frame as wide as its time, its children within it, and its width
** the sum of its children's plus its own time's. */
static void check_widths(const SvgFrame *f, int n)
{
    ck_assert_int_ge(n, 1);
    ck_assert_int_eq(f[0].depth, 0);
    ck_assert_str_eq(f[0].name, "all");
    ck_assert_double_eq_tol(f[0].w, SVG_W, 1e-3);
    double scale = SVG_W / f[0].total;
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq_tol(f[i].w, f[i].total * scale, 1e-3);
        double kids = 0;
        for (int k = 0; k < n; k++) {
            if (f[k].depth != f[i].depth + 1 || f[k].x < f[i].x - 1e-3 || f[k].x + f[k].w > f[i].x + f[i].w + 1e-3)
                continue;
            kids += f[k].w;
        }
        ck_assert_msg(fabs(f[i].w - (kids + f[i].self * scale)) < 1e-2, "%s: width %f, children %f + self %f",
                      f[i].name, f[i].w, kids, f[i].self * scale);
    }
}

static void free_frames(SvgFrame *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].name);
        free(f[i].fill);
    }
}

static const SvgFrame *find_frame(const SvgFrame *f, int n, const char *name, int depth)
{
    for (int i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0 && f[i].depth == depth)
            return &f[i];
    ck_abort_msg("no frame %s at depth %d", name, depth);
    return NULL;
}

START_TEST(test_svg_parses_and_widths_add_up)
{
    Profile *p = _i ? sampled_profile() : exact_profile();
    char *out = write_report(report_svg, p, NULL, _i ? "svg_sampling.svg" : "svg_exact.svg");
    check_xml(out);
    ck_assert_ptr_nonnull(strstr(out, "<script"));
    ck_assert_ptr_null(strstr(out, "http://www.w3.org/1999/xlink\" href")); /* nothing fetched */
    SvgFrame f[32];
    int n = svg_frames(out, f, 32);
    check_widths(f, n);
    /* all, enc, enc.l0, enc.l1, 3 op leaves under enc, weird, other (relu
    ** has no sample in the sampling profile, and no frame) */
    ck_assert_int_eq(n, _i ? 8 : 9);
    const SvgFrame *w = find_frame(f, n, WEIRD_TARGET, 1); /* escaped and read back intact */
    ck_assert_double_eq_tol(w->w, SVG_W * (_i ? 2.0 / 25 : 1.0 / 35), 1e-3);
    ck_assert_ptr_nonnull(strstr(out, "<title>" "my.op&lt;&amp;;&quot;x\nnode: we&lt;&amp;;&quot;ird"));
    const SvgFrame *l0 = find_frame(f, n, "enc.l0 (Linear)", 2);
    ck_assert_double_eq_tol(l0->w, SVG_W * (_i ? 14.0 / 25 : 13.0 / 35), 1e-3);
    find_frame(f, n, _i ? "(outside nodes)" : "(dispatch)", 1);
    free_frames(f, n);
    free(out);
    profile_free(p);
}
END_TEST

START_TEST(test_svg_diff_colours_by_change)
{
    Profile *p = exact_profile(), *b = diff_base();
    char *out = write_report(report_svg, p, b, "svg_diff_colours_by_change.svg");
    check_xml(out);
    SvgFrame f[32];
    int n = svg_frames(out, f, 32);
    check_widths(f, n); /* the widths are p's */
    int r, g, bl;
    /* enc.l1: 10 -> 15 us, +50 %: red, half faded */
    ck_assert_int_eq(sscanf(find_frame(f, n, "enc.l1 (Linear)", 2)->fill, "rgb(%d,%d,%d)", &r, &g, &bl), 3);
    ck_assert(r == 255 && g == bl && g > 100 && g < 135);
    /* enc: 10 + 4 + 10 + 3 + 5 (mul) = 32 -> 30 us, -6 %: pale blue */
    ck_assert_int_eq(sscanf(find_frame(f, n, ENC, 1)->fill, "rgb(%d,%d,%d)", &r, &g, &bl), 3);
    ck_assert(bl == 255 && r == g && r > 200);
    /* unchanged: grey-white */
    ck_assert_str_eq(find_frame(f, n, "enc.l0 (Linear)", 2)->fill, "rgb(235,235,235)");
    ck_assert_ptr_nonnull(strstr(out, "before 10.000 us, after 15.000 us, delta +5.000 us (+50.0 %)"));
    free_frames(f, n);
    free(out);
    profile_free(p);
    profile_free(b);
}
END_TEST

/* ---- speedscope's own importer ---------------------------------------------------- */

/* speedscope's npm package: $EPDBG_SPEEDSCOPE, else the global npm root's
** (`npm install -g speedscope`); never downloaded here.  New string or NULL. */
static char *speedscope_package(void)
{
    const char *env = getenv("EPDBG_SPEEDSCOPE");
    char *dir = NULL;
    if (env && *env) {
        dir = ep_xstrdup(env);
    } else if (system("command -v npm >/dev/null 2>&1") == 0) {
        FILE *f = popen("npm root -g 2>/dev/null", "r");
        char line[4096] = "";
        if (f && fgets(line, sizeof line, f))
            line[strcspn(line, "\n")] = 0;
        if (f)
            pclose(f);
        if (*line)
            dir = ep_xasprintf("%s/speedscope", line);
    }
    char *probe = dir ? ep_xasprintf("%s/dist/release/index.html", dir) : NULL;
    bool ok = probe && access(probe, R_OK) == 0;
    free(probe);
    if (!ok) {
        free(dir);
        return NULL;
    }
    return dir;
}

START_TEST(test_speedscope_importer_accepts)
{
    char *pkg = NULL;
    if (system("command -v node >/dev/null 2>&1") != 0 || !(pkg = speedscope_package())) {
        fprintf(stderr, "test_profile_traces: node or speedscope's npm package is not installed: speedscope's "
                        "importer test is SKIPPED (npm install -g speedscope, or EPDBG_SPEEDSCOPE=DIR)\n");
        return;
    }
    char *dir = test_tmpdir();
    for (int exact = 0; exact < 2; exact++) {
        Profile *p = exact ? exact_profile() : sampled_profile();
        char *out = write_report(report_speedscope, p, NULL, exact ? "importer_exact.speedscope.json" : "importer_sampling.speedscope.json");
        char *path = ep_xasprintf("%s/profile%d.speedscope.json", dir, exact);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(out, f);
        fclose(f);
        char *cmd = ep_xasprintf("node %s/tests/tools/speedscope_import.js '%s' '%s' %d", test_project_dir(), pkg,
                                 path, exact ? 2 : 1);
        int rc = system(cmd);
        ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "speedscope's importer refused %s", path);
        unlink(path);
        free(cmd);
        free(path);
        free(out);
        profile_free(p);
    }
    rmdir(dir);
    free(dir);
    free(pkg);
}
END_TEST

/* ---- limits and failures ------------------------------------------------------------ */

/* Occurrences of what in s (no strstr from each hit: under ASan every
** strstr measures the whole 40 MB rest of the string). */
static int count_of(const char *s, const char *what)
{
    size_t len = strlen(s), w = strlen(what);
    int n = 0;
    for (const char *at = s, *end = s + len; (at = memchr(at, what[0], (size_t)(end - at))) != NULL; at++)
        if ((size_t)(end - at) >= w && memcmp(at, what, w) == 0)
            n++;
    return n;
}

/* A chain of n nodes outside any module, 1 us each, timeline_iters
** iterations of it kept. */
static Profile *chain_profile(int n, int iters)
{
    Profile *p = ep_xcalloc(1, sizeof *p);
    p->model_path = ep_xstrdup("chain.pt2");
    p->iters = iters;
    p->peak_node = -1;
    p->nnodes = n;
    p->nodes = ep_xcalloc((size_t)n, sizeof *p->nodes);
    size_t cells = (size_t)n * (size_t)iters;
    p->timeline_iters = iters;
    p->start = ep_xmalloc(cells * sizeof *p->start);
    p->dur = ep_xmalloc(cells * sizeof *p->dur);
    p->iter_start = ep_xmalloc((size_t)iters * sizeof *p->iter_start);
    p->iter_wall = ep_xmalloc((size_t)iters * sizeof *p->iter_wall);
    for (int i = 0; i < n; i++) {
        p->nodes[i].name = ep_xasprintf("add_%d", i);
        p->nodes[i].target = ep_xstrdup("aten.add.Tensor");
        p->nodes[i].time = (ProfileStats){.count = iters, .total = iters * 1e-6};
    }
    for (int k = 0; k < iters; k++) {
        p->iter_start[k] = k * n * 1e-6;
        p->iter_wall[k] = n * 1e-6;
        for (int i = 0; i < n; i++) {
            p->start[(size_t)k * n + i] = (k * n + i) * 1e-6;
            p->dur[(size_t)k * n + i] = 1e-6;
        }
    }
    return p;
}

/* 60,000 nodes x 3 iterations is over the 100,000 node events a chrome
** trace holds: the last iteration is kept whole and the file says so; a
** 150,000-node iteration is cut after 100,000 nodes. */
START_TEST(test_chrome_caps_events)
{
    Profile *p = chain_profile(60000, 3);
    char *out = write_report(report_chrome, p, NULL, "chrome_caps_events.chrome.json");
    ck_assert_int_eq(count_of(out, "\"cat\":\"op\""), 60000);
    ck_assert_int_eq(count_of(out, "\"name\":\"iteration 3\""), 1);
    ck_assert_int_eq(count_of(out, "\"name\":\"iteration 2\""), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"dropped\":\"the first 2 of 3 kept iterations"));
    free(out);
    profile_free(p);
    p = chain_profile(150000, 1);
    out = write_report(report_chrome, p, NULL, "chrome_caps_nodes.chrome.json");
    ck_assert_int_eq(count_of(out, "\"cat\":\"op\""), 100000);
    ck_assert_ptr_nonnull(strstr(out, "\"dropped\":\"all nodes after the first 100000 of iteration 1"));
    ck_assert_ptr_null(strstr(out, "\"add_100000\""));
    free(out);
    profile_free(p);
}
END_TEST

/* A file that cannot take the bytes (/dev/full): every writer says so. */
START_TEST(test_writers_report_write_errors)
{
    static const struct {
        Writer w;
        const char *what;
    } W[] = {{report_folded, "folded"}, {report_chrome, "chrome"}, {report_speedscope, "speedscope"},
             {report_svg, "flame graph"}};
    FILE *f = fopen("/dev/full", "w");
    if (!f) {
        fprintf(stderr, "test_profile_traces: no /dev/full: the write-error test is SKIPPED\n");
        return;
    }
    fclose(f);
    Profile *p = exact_profile();
    for (size_t i = 0; i < EP_ARRAY_LEN(W); i++) {
        f = fopen("/dev/full", "w");
        EpError err = {0};
        ReportOptions o = {0};
        ck_assert_int_eq(W[i].w(f, p, &o, &err), EP_ERR_EXEC);
        ck_assert_msg(strstr(err.msg, W[i].what) && strstr(err.msg, "No space"), "%s", err.msg);
        fclose(f);
    }
    profile_free(p);
}
END_TEST

/* ---- the frame tree ----------------------------------------------------------------- */

START_TEST(test_flame_tree_totals)
{
    Profile *p = exact_profile();
    FlameTree *t = flame_new(p, NULL);
    ck_assert_int_eq(t->n, 9);
    ck_assert_double_eq_tol(t->f[0].total * 1e6, 35, 1e-9);
    ck_assert_int_eq(t->leaf[0], t->leaf[4]); /* one leaf for both addmm of enc.l0 */
    ck_assert_int_ne(t->leaf[0], t->leaf[2]);
    ck_assert_int_eq(t->f[t->leaf[0]].node, 0);
    ck_assert_int_eq(t->f[t->leaf[3]].depth, 1); /* outside any module */
    int path[8];
    ck_assert_int_eq(flame_path(t, t->leaf[2], path), 3);
    ck_assert_str_eq(t->f[path[0]].name, ENC);
    ck_assert_str_eq(t->f[path[1]].name, "enc.l1 (Linear)");
    ck_assert_str_eq(t->f[t->other].name, "(dispatch)");
    flame_free(t);
    profile_free(p);
}
END_TEST

Suite *suite_profile_traces(void)
{
    Suite *s = suite_create("profile_traces");
    TCase *tc = tcase_create("writers");
    tcase_add_test(tc, test_flame_tree_totals);
    tcase_add_test(tc, test_folded_exact_sums_to_total);
    tcase_add_test(tc, test_folded_sampling_counts_samples);
    tcase_add_test(tc, test_folded_diff_two_columns_union);
    tcase_add_test(tc, test_chrome_exact_nests_and_counts);
    tcase_add_test(tc, test_chrome_sampling_lays_nodes_out);
    tcase_add_test(tc, test_speedscope_exact);
    tcase_add_test(tc, test_speedscope_sampling);
    tcase_add_loop_test(tc, test_svg_parses_and_widths_add_up, 0, 2);
    tcase_add_test(tc, test_svg_diff_colours_by_change);
    tcase_add_test(tc, test_writers_report_write_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_chrome_caps_events);
    suite_add_tcase(s, tc);
    tc = tcase_create("speedscope_importer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_speedscope_importer_accepts);
    suite_add_tcase(s, tc);
    return s;
}
