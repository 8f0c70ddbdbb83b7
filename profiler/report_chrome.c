/*
** report_chrome.c -- the Trace Event Format (chrome://tracing, Perfetto):
** one track (pid 1, tid 1) of complete "X" events that nest -- each kept
** iteration of the timeline, the module scopes in it, the nodes -- and a
** "live bytes" counter, with the header facts in otherData.
**
** Events must never overlap on a track (Perfetto moves such events to an
** overflow track), and a scope must contain its nodes exactly, so every
** time is first made whole nanoseconds (FlameTimeline) and the scopes'
** spans are taken from their nodes' own values; printed as microseconds
** with three decimals, what a reader parses is what was nested.
**
** Sampling mode has no timeline: one iteration is laid out node after
** node with each node's seconds per iteration as its duration, marked
** "estimated_from_samples".  The file is capped at CHROME_MAX_NODE_EVENTS
** node events (the viewers fail on files of some hundred MB): the last
** iterations that fit are kept, and otherData.dropped says what was not.
*/
#include "profiler/flame.h"
#include "profiler/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ~400 bytes a node event with its counter: about 40 MB at most. */
#define CHROME_MAX_NODE_EVENTS 100000
/* Input shapes longer than this (a cat of hundreds of tensors) are cut. */
#define CHROME_MAX_SHAPES 512

typedef struct Chrome {
    FILE *f;
    const Profile *p;
    const FlameTree *t;
    const FlameTimeline *tl;
    bool more;            /* an event was written: the next needs a comma */
} Chrome;

static void put_us(FILE *f, int64_t ns)
{
    fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static void put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

/* Start an event: {"ph":..,"name":..,"cat":..,"pid":1,"tid":1,"ts":.. */
static void event_begin(Chrome *c, const char *ph, const char *name, const char *cat, int64_t ts)
{
    fprintf(c->f, "%s\n{\"ph\":\"%s\",\"name\":", c->more ? "," : "", ph);
    flame_json_string(c->f, name);
    if (cat)
        fprintf(c->f, ",\"cat\":\"%s\"", cat);
    fputs(",\"pid\":1,\"tid\":1,\"ts\":", c->f);
    put_us(c->f, ts);
    c->more = true;
}

static void put_dur(Chrome *c, int64_t s, int64_t e)
{
    fputs(",\"dur\":", c->f);
    put_us(c->f, e - s);
}

static void metadata(Chrome *c)
{
    const Profile *p = c->p;
    char *proc = ep_xasprintf("%s (%s)", p->model_path ? p->model_path : "?", p->program ? p->program : "?");
    fprintf(c->f, "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":",
            c->more ? "," : "");
    flame_json_string(c->f, proc);
    fputs("}},\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"interpreter\"}}", c->f);
    c->more = true;
    free(proc);
}

static void node_event(Chrome *c, const FlameSpan *sp, size_t cell)
{
    const ProfileNode *n = &c->p->nodes[sp->node];
    event_begin(c, "X", n->target ? n->target : n->name, "op", sp->s);
    put_dur(c, sp->s, sp->e);
    fputs(",\"args\":{\"node\":", c->f);
    flame_json_string(c->f, n->name);
    fputs(",\"target\":", c->f);
    flame_json_string(c->f, n->target);
    if (n->input_shapes) {
        char *cut = ep_xstrndup(n->input_shapes, strnlen(n->input_shapes, CHROME_MAX_SHAPES));
        fputs(",\"input_shapes\":", c->f);
        flame_json_string(c->f, cut);
        free(cut);
    }
    if (n->file) {
        char *where = ep_xasprintf("%s:%d", n->file, n->line);
        fputs(",\"source\":", c->f);
        flame_json_string(c->f, where);
        free(where);
    }
    fputs(",\"flops\":", c->f);
    put_num(c->f, n->flops);
    fputs(",\"bytes\":", c->f);
    put_num(c->f, n->bytes);
    if (c->tl->estimated && c->p->mode == PROFILE_SAMPLE)
        fprintf(c->f, ",\"estimated_from_samples\":true,\"samples\":%lld", (long long)n->samples);
    else if (c->tl->estimated)
        fputs(",\"estimated_from_mean\":true", c->f);
    fputs("}}", c->f);
    if (!c->tl->estimated && c->p->live) {
        event_begin(c, "C", "live bytes", NULL, sp->e);
        fprintf(c->f, ",\"args\":{\"bytes\":%lld}}", (long long)c->p->live[cell]);
    }
}

/* Kept iteration k: its event, then its scopes and nodes (the first
** limit that ran) in preorder. */
static void iteration(Chrome *c, int k, int limit)
{
    const FlameTimeline *tl = c->tl;
    FlameSpan *sp;
    int n = flame_spans(c->t, tl, k, limit, &sp);
    char *name = tl->estimated ? ep_xstrdup(c->p->mode == PROFILE_SAMPLE ? "iteration (estimated from samples)"
                                                                            : "iteration (mean)")
                               : ep_xasprintf("iteration %d", tl->first_iter + k + 1);
    event_begin(c, "X", name, "iteration", tl->iter_s[k]);
    put_dur(c, tl->iter_s[k], tl->iter_e[k]);
    fputs("}", c->f);
    free(name);
    for (int j = 0; j < n; j++) {
        if (sp[j].node >= 0) {
            node_event(c, &sp[j], (size_t)k * (size_t)c->p->nnodes + (size_t)sp[j].node);
        } else {
            event_begin(c, "X", c->t->f[sp[j].frame].name, "module", sp[j].s);
            put_dur(c, sp[j].s, sp[j].e);
            fputs("}", c->f);
        }
    }
    if (tl->estimated && tl->other_e > tl->other_s) {
        event_begin(c, "X", c->t->f[c->t->other].name, "other", tl->other_s);
        put_dur(c, tl->other_s, tl->other_e);
        fputs("}", c->f);
    }
    free(sp);
}

static void other_data(Chrome *c, int first, const char *dropped)
{
    const Profile *p = c->p;
    FILE *f = c->f;
    fputs("\"otherData\":{\"model\":", f);
    flame_json_string(f, p->model_path);
    fputs(",\"program\":", f);
    flame_json_string(f, p->program);
    fputs(",\"inputs\":", f);
    flame_json_string(f, p->inputs);
    fputs(",\"machine\":", f);
    flame_json_string(f, p->machine);
    fprintf(f, ",\"mode\":\"%s\"", p->mode == PROFILE_SAMPLE ? "sample" : "exact");
    if (p->mode == PROFILE_SAMPLE)
        fprintf(f, ",\"clock\":\"%s\",\"sample_hz\":%d,\"samples\":%lld,\"outside_samples\":%lld",
                p->clock == PROFILE_CLOCK_CPU ? "cpu" : "wall", p->sample_hz, (long long)p->samples,
                (long long)p->outside_samples);
    fprintf(f, ",\"threads\":%d,\"iters\":%d,\"warmup\":%d,\"partial\":%s", p->threads, p->iters, p->warmup,
            p->partial ? "true" : "false");
    fputs(",\"reason\":", f);
    flame_json_string(f, p->reason);
    fputs(",\"wall_s\":", f);
    put_num(f, p->wall);
    fputs(",\"dispatch_s\":", f);
    put_num(f, p->dispatch);
    fputs(",\"timer_cost_s\":", f);
    put_num(f, p->timer_cost);
    fprintf(f, ",\"peak_live_bytes\":%lld,\"peak_node\":", (long long)p->peak_live);
    flame_json_string(f, p->peak_node >= 0 && p->peak_node < p->nnodes ? p->nodes[p->peak_node].name : NULL);
    fprintf(f, ",\"timeline_iterations\":%d,\"first_iteration\":%d", c->tl->estimated ? 0 : c->tl->iters - first,
            c->tl->first_iter + first + 1);
    fputs(",\"dropped\":", f);
    flame_json_string(f, dropped);
    fputs("}", f);
}

EpStatus report_chrome(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    EP_UNUSED(o);
    FlameTree *t = flame_new(p, NULL);
    FlameTimeline *tl = flame_timeline_new(p);
    Chrome c = {f, p, t, tl, false};
    int limit;
    char *dropped;
    int first = flame_keep(tl, p->nnodes, CHROME_MAX_NODE_EVENTS, &limit, &dropped);
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
    metadata(&c);
    for (int k = first; k < tl->iters; k++)
        iteration(&c, k, limit);
    fputs("\n],\n", f);
    other_data(&c, first, dropped);
    fputs("}\n", f);
    free(dropped);
    flame_timeline_free(tl);
    flame_free(t);
    return flame_write_status(f, "chrome trace", err);
}
