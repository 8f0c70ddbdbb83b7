/*
** profile.c -- the Profile's plain data: freeing it, the seconds a node
** stands for (the one definition every view and writer uses), and
** statistics over measured times.  The views are in profile_view.c.
*/
#include "profiler/profile.h"

#include <math.h>
#include <stdlib.h>

const ProfileOptions PROFILE_OPTIONS_DEFAULT = {.mode = PROFILE_EXACT, .sample_hz = 1000, .clock = PROFILE_CLOCK_WALL};

void profile_free(Profile *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nnodes; i++) {
        ProfileNode *n = &p->nodes[i];
        free(n->name);
        free(n->target);
        free(n->input_shapes);
        for (int k = 0; k < n->nscopes; k++) {
            free(n->scopes[k].path);
            free(n->scopes[k].type);
        }
        free(n->scopes);
        free(n->file);
        free(n->func);
        free(n->code);
    }
    free(p->nodes);
    for (int i = 0; i < p->npeak_tensors; i++) {
        free(p->peak_tensors[i].name);
        free(p->peak_tensors[i].desc);
    }
    free(p->peak_tensors);
    free(p->model_path);
    free(p->program);
    free(p->inputs);
    free(p->machine);
    free(p->reason);
    free(p->start);
    free(p->dur);
    free(p->live);
    free(p->iter_start);
    free(p->iter_wall);
    free(p);
}

/* The length of the valid UTF-8 sequence at s (1..4), 0 if invalid:
** no overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    int n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

static void clean(char *s)
{
    for (unsigned char *c = (unsigned char *)s; c && *c;) {
        int n = utf8_len(c);
        if (n == 0)
            *c++ = '?';
        else
            c += n;
    }
}

void profile_clean_text(Profile *p)
{
    char *top[] = {p->model_path, p->program, p->inputs, p->machine, p->reason};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        clean(top[i]);
    for (int i = 0; i < p->nnodes; i++) {
        ProfileNode *n = &p->nodes[i];
        char *f[] = {n->name, n->target, n->input_shapes, n->file, n->func, n->code};
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
            clean(f[k]);
        for (int k = 0; k < n->nscopes; k++) {
            clean(n->scopes[k].path);
            clean(n->scopes[k].type);
        }
    }
    for (int i = 0; i < p->npeak_tensors; i++) {
        clean(p->peak_tensors[i].name);
        clean(p->peak_tensors[i].desc);
    }
}

static double per_iteration(const Profile *p, double secs)
{
    return secs / (p->iters > 0 ? p->iters : 1);
}

double profile_node_seconds(const Profile *p, int i)
{
    const ProfileNode *n = &p->nodes[i];
    if (p->mode == PROFILE_SAMPLE)
        return per_iteration(p, (double)n->samples * p->sample_period);
    return per_iteration(p, n->time.total);
}

double profile_other_seconds(const Profile *p)
{
    if (p->mode == PROFILE_SAMPLE)
        return per_iteration(p, (double)p->outside_samples * p->sample_period);
    return per_iteration(p, p->dispatch > 0 ? p->dispatch : 0);
}

double profile_total_seconds(const Profile *p)
{
    double t = profile_other_seconds(p);
    for (int i = 0; i < p->nnodes; i++)
        t += profile_node_seconds(p, i);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ProfileStats profile_stats(double *values, int n)
{
    ProfileStats s = {0};
    if (n <= 0)
        return s;
    ep_qsort(values, (size_t)n, sizeof *values, cmp_double);
    s.count = n;
    for (int i = 0; i < n; i++)
        s.total += values[i];
    s.mean = s.total / n;
    s.min = values[0];
    s.max = values[n - 1];
    s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    /* nearest rank: the smallest value with at least 90 % of them at or below it */
    int rank = (int)ceil(0.9 * n);
    s.p90 = values[(rank > 0 ? rank : 1) - 1];
    double var = 0;
    for (int i = 0; i < n; i++)
        var += (values[i] - s.mean) * (values[i] - s.mean);
    s.stddev = sqrt(var / n);
    return s;
}
