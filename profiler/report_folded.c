/*
** report_folded.c -- flamegraph.pl's folded stacks: one "a;b;leaf COUNT"
** line per leaf of the frame tree (flame.h), root first, the root "all"
** left out (flamegraph.pl draws its own).
**
** COUNT: microseconds per iteration (three decimals; flamegraph.pl and
** speedscope take decimals), or in sampling mode the samples themselves.
** With a base (--diff): difffolded.pl's "stack BEFORE AFTER" form, the base
** first, both in microseconds per iteration (comparable whatever mode
** either was recorded in), over the union of both profiles' stacks.
*/
#include "profiler/flame.h"
#include "profiler/report_int.h"

#include <stdlib.h>
#include <string.h>

/* A frame name as one folded frame: ';' separates frames, so it becomes
** ':'; a line break would end the line, so control characters become
** spaces; and a trailing space would run into the count, so it is cut. */
static void folded_name(FILE *f, const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && ((unsigned char)s[n - 1] <= ' '))
        n--;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        putc(c == ';' ? ':' : c < ' ' ? ' ' : c, f);
    }
}

/* The stack of frame i, root side first. */
static void folded_stack(FILE *f, const FlameTree *t, int i, int *path)
{
    int d = flame_path(t, i, path);
    for (int k = 0; k < d; k++) {
        if (k)
            putc(';', f);
        folded_name(f, t->f[path[k]].name);
    }
}

EpStatus report_folded(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    const Profile *base = o ? o->base : NULL;
    FlameTree *t = flame_new(p, base);
    int *path = ep_xmalloc((size_t)(flame_max_depth(t) + 1) * sizeof *path);
    bool samples = !base && p->mode == PROFILE_SAMPLE;
    /* preorder, children by name: a stable order for diffs of the files */
    int *todo = ep_xmalloc((size_t)t->n * sizeof *todo), ntodo = 0;
    todo[ntodo++] = 0;
    while (ntodo > 0) {
        const FlameFrame *fr = &t->f[todo[--ntodo]];
        for (int k = fr->nkids - 1; k >= 0; k--)
            todo[ntodo++] = fr->kids[k];
        if (fr->parent < 0 || (fr->self <= 0 && fr->base_self <= 0 && fr->samples <= 0))
            continue;
        int i = (int)(fr - t->f);
        if (samples && fr->samples <= 0)
            continue;
        folded_stack(f, t, i, path);
        if (samples)
            fprintf(f, " %lld\n", (long long)fr->samples);
        else if (base)
            fprintf(f, " %.3f %.3f\n", fr->base_self * 1e6, fr->self * 1e6);
        else
            fprintf(f, " %.3f\n", fr->self * 1e6);
    }
    free(todo);
    free(path);
    flame_free(t);
    return flame_write_status(f, "folded stacks", err);
}
