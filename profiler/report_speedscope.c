/*
** report_speedscope.c -- speedscope's file format
** (https://www.speedscope.app/file-format-schema.json).
**
** shared.frames are the frame tree's frames (flame.h; an op leaf carries
** its first node's user frame as file and line), plus "iteration".
** Exact mode writes two profiles: first (the one shown on opening) an "evented" one from the timeline
** (unit nanoseconds: each kept iteration, its module scopes and nodes
** opened and closed in order, `at` never decreasing, every open closed),
** and a "sampled" one per iteration (each leaf stack once, weighted by its
** microseconds per iteration).  Sampling mode writes the sampled one only.
** The evented profile is capped like the chrome trace.
*/
#include "profiler/flame.h"
#include "profiler/report_int.h"

#include <math.h>
#include <stdlib.h>

#define SPEEDSCOPE_MAX_NODE_EVENTS 200000

/* Frame indexes in the file: the tree's frame i is i - 1 (no root), the
** iteration frame comes last. */
#define FRAME(i) ((i) - 1)

static void frames(FILE *f, const FlameTree *t)
{
    const Profile *p = t->p;
    fputs("\"shared\":{\"frames\":[", f);
    for (int i = 1; i < t->n; i++) {
        const FlameFrame *fr = &t->f[i];
        fputs(i > 1 ? ",\n{\"name\":" : "\n{\"name\":", f);
        flame_json_string(f, fr->name);
        const ProfileNode *n = fr->node >= 0 ? &p->nodes[fr->node] : NULL;
        if (n && n->file) {
            fputs(",\"file\":", f);
            flame_json_string(f, n->file);
            if (n->line > 0)
                fprintf(f, ",\"line\":%d", n->line);
        }
        fputs("}", f);
    }
    fprintf(f, "%s{\"name\":\"iteration\"}]}", t->n > 1 ? ",\n" : "\n");
}

static void event(FILE *f, bool *more, char type, int64_t at, int frame)
{
    fprintf(f, "%s{\"type\":\"%c\",\"at\":%lld,\"frame\":%d}", *more ? ",\n" : "\n", type, (long long)at, frame);
    *more = true;
}

/* The timeline as open and close events.  A span closes every span still
** open at its depth or deeper before it opens; flame_spans gives them in
** preorder, so this is a proper nesting. */
static void evented(FILE *f, const FlameTree *t, const FlameTimeline *tl, bool first_profile)
{
    int limit;
    char *dropped;
    int first = flame_keep(tl, t->p->nnodes, SPEEDSCOPE_MAX_NODE_EVENTS, &limit, &dropped);
    int iter_frame = FRAME(t->n);
    fputs(first_profile ? "\n{\"type\":\"evented\",\"name\":" : ",\n{\"type\":\"evented\",\"name\":", f);
    char *name = ep_xasprintf("%s: iterations %d-%d%s%s", t->p->program ? t->p->program : "program",
                              tl->first_iter + first + 1, tl->first_iter + tl->iters, dropped ? "; dropped " : "",
                              dropped ? dropped : "");
    flame_json_string(f, name);
    free(name);
    free(dropped);
    fprintf(f, ",\"unit\":\"nanoseconds\",\"startValue\":%lld,\"endValue\":%lld,\"events\":[",
            (long long)tl->iter_s[first], (long long)tl->iter_e[tl->iters - 1]);
    int depth = flame_max_depth(t) + 1;
    FlameSpan *stack = ep_xmalloc((size_t)depth * sizeof *stack);
    bool more = false;
    for (int k = first; k < tl->iters; k++) {
        FlameSpan *sp;
        int n = flame_spans(t, tl, k, limit, &sp), top = 0;
        event(f, &more, 'O', tl->iter_s[k], iter_frame);
        for (int j = 0; j < n; j++) {
            while (top > 0 && stack[top - 1].depth >= sp[j].depth) {
                top--;
                event(f, &more, 'C', stack[top].e, FRAME(stack[top].frame));
            }
            event(f, &more, 'O', sp[j].s, FRAME(sp[j].frame));
            stack[top++] = sp[j];
        }
        while (top > 0) {
            top--;
            event(f, &more, 'C', stack[top].e, FRAME(stack[top].frame));
        }
        event(f, &more, 'C', tl->iter_e[k], iter_frame);
        free(sp);
    }
    fputs("]}", f);
    free(stack);
}

/* Every frame with time of its own as one sample: its stack, root side
** first, weighted by its microseconds per iteration (three decimals; the
** end value is the sum of the weights as written). */
static void sampled(FILE *f, const FlameTree *t, bool first)
{
    const Profile *p = t->p;
    int *path = ep_xmalloc((size_t)(flame_max_depth(t) + 1) * sizeof *path);
    int64_t sum = 0; /* nanoseconds, as the weights are rounded */
    for (int i = 1; i < t->n; i++)
        sum += t->f[i].self > 0 ? llround(t->f[i].self * 1e9) : 0;
    char *name = p->mode == PROFILE_SAMPLE ? ep_xasprintf("%s: sampled at %d Hz, per iteration",
                                                          p->program ? p->program : "program", p->sample_hz)
                                           : ep_xasprintf("%s: per iteration", p->program ? p->program : "program");
    fputs(first ? "\n{\"type\":\"sampled\",\"name\":" : ",\n{\"type\":\"sampled\",\"name\":", f);
    flame_json_string(f, name);
    free(name);
    fprintf(f, ",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":%lld.%03lld,\"samples\":[",
            (long long)(sum / 1000), (long long)(sum % 1000));
    bool more = false;
    for (int i = 1; i < t->n; i++) {
        if (t->f[i].self <= 0)
            continue;
        int d = flame_path(t, i, path);
        fputs(more ? ",[" : "[", f);
        for (int k = 0; k < d; k++)
            fprintf(f, k ? ",%d" : "%d", FRAME(path[k]));
        fputs("]", f);
        more = true;
    }
    fputs("],\"weights\":[", f);
    more = false;
    for (int i = 1; i < t->n; i++) {
        if (t->f[i].self <= 0)
            continue;
        long long ns = llround(t->f[i].self * 1e9);
        fprintf(f, more ? ",%lld.%03lld" : "%lld.%03lld", ns / 1000, ns % 1000);
        more = true;
    }
    fputs("]}", f);
    free(path);
}

EpStatus report_speedscope(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(o);
    FlameTree *t = flame_new(p, NULL);
    FlameTimeline *tl = flame_timeline_new(p);
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"epdbg\",\"name\":", f);
    flame_json_string(f, p->model_path);
    fputs(",\"activeProfileIndex\":0,\n", f);
    frames(f, t);
    fputs(",\n\"profiles\":[", f);
    if (!tl->estimated)
        evented(f, t, tl, true);
    sampled(f, t, tl->estimated);
    fputs("]}\n", f);
    flame_timeline_free(tl);
    flame_free(t);
    return flame_write_status(f, "speedscope profile", err);
}
