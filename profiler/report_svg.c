/*
** report_svg.c -- a self-contained interactive flame graph: the frame tree
** (flame.h) drawn as flamegraph.pl draws it, the root "all" at the bottom
** and each frame's children above it, left to right by name, each as wide
** as its time per iteration; the part of a frame no child covers is its
** own time.  Every frame is drawn however narrow (zooming shows it), and
** carries a <title> (the browser's hover text): the frame, an op leaf's
** nodes, shapes and source line, its time per iteration and share.  An
** embedded script, no network: click a frame to zoom to it, "Reset Zoom",
** "Search" (a regular expression: matches turn magenta, their share is
** shown).
**
** With a base (--diff) the widths are this profile's, and the colour is
** the change against the base: red slower, blue faster, the deeper the
** larger the relative change (full at +-100 %); the title adds before,
** after and delta.  A frame only the base has has no width and is not drawn.
*/
#include "profiler/flame.h"
#include "profiler/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_WIDTH 1200.0
#define SVG_XPAD 10.0
#define SVG_FRAME_H 16.0
#define SVG_FONT 12.0
#define SVG_TOP 60.0      /* title, buttons */
#define SVG_BOTTOM 30.0   /* the details line */
#define SVG_CHAR_W (SVG_FONT * 0.59) /* an average glyph of the font */
#define SVG_MAX_NODES 5   /* node names listed in a leaf's title */

typedef struct Svg {
    FILE *f;
    const FlameTree *t;
    double scale;         /* pixels per second per iteration */
    double height;
    int maxdepth;
    StrBuf *nodes;        /* per frame: "addmm_3, addmm_5" (op leaves) */
    int *nnodes;          /* per frame: how many nodes it has */
} Svg;

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* A frame's fill: flamegraph.pl's warm colours for ops, cool ones for
** modules, grey for the root and the other time -- or the diff's red and
** blue. */
static void fill(const Svg *v, const FlameFrame *fr, int *r, int *g, int *b)
{
    if (v->t->base) {
        double rel = fr->base_total > 0 ? (fr->total - fr->base_total) / fr->base_total : 1;
        double in = fmin(fabs(rel), 1);
        int fade = (int)lround(235 * (1 - in));
        *r = rel > 0 ? 255 : fade;
        *g = fade;
        *b = rel > 0 ? fade : 255;
        if (rel == 0)
            *r = *g = *b = 235;
        return;
    }
    unsigned h = hash(fr->name);
    double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;
    if (fr->parent < 0 || fr->other) {
        *r = *g = *b = 200 + (int)(30 * v1);
    } else if (fr->node >= 0 || fr->base_node >= 0 || fr->nkids == 0) {
        *r = 205 + (int)(50 * v1);
        *g = (int)(230 * v2);
        *b = (int)(55 * v1);
    } else {
        *r = 50 + (int)(60 * v1);
        *g = 160 + (int)(60 * v2);
        *b = 200 + (int)(55 * v1);
    }
}

static void put_time(FILE *f, double secs)
{
    double us = secs * 1e6;
    if (us >= 1e3)
        fprintf(f, "%.3f ms", us / 1e3);
    else
        fprintf(f, "%.3f us", us);
}

/* The hover text. */
static void title(const Svg *v, int i)
{
    FILE *f = v->f;
    const FlameFrame *fr = &v->t->f[i];
    const Profile *p = v->t->p;
    double all = v->t->f[0].total;
    fputs("<title>", f);
    flame_xml_string(f, fr->name, -1);
    if (v->nnodes[i] > 0) {
        fprintf(f, "\nnode%s: ", v->nnodes[i] > 1 ? "s" : "");
        flame_xml_string(f, v->nodes[i].data, -1);
        if (v->nnodes[i] > SVG_MAX_NODES)
            fprintf(f, " (+%d more)", v->nnodes[i] - SVG_MAX_NODES);
    }
    const ProfileNode *n = fr->node >= 0 ? &p->nodes[fr->node] : NULL;
    if (n && n->input_shapes) {
        fputs("\ninput shapes: ", f);
        flame_xml_string(f, n->input_shapes, 400);
    }
    if (n && n->file) {
        fputs("\nsource: ", f);
        flame_xml_string(f, n->file, -1);
        fprintf(f, ":%d", n->line);
        if (n->code) {
            fputs("  ", f);
            flame_xml_string(f, n->code, 200);
        }
    }
    fputs("\n", f);
    put_time(f, fr->total);
    fprintf(f, " per iteration (%.2f %%)", all > 0 ? 100 * fr->total / all : 0.0);
    if (fr->self > 0 && fr->self < fr->total) {
        fputs(", self ", f);
        put_time(f, fr->self);
    }
    if (v->t->base) {
        fputs("\nbefore ", f);
        put_time(f, fr->base_total);
        fputs(", after ", f);
        put_time(f, fr->total);
        double d = fr->total - fr->base_total;
        fputs(", delta ", f);
        fputs(d >= 0 ? "+" : "-", f);
        put_time(f, fabs(d));
        if (fr->base_total > 0)
            fprintf(f, " (%+.1f %%)", 100 * d / fr->base_total);
    }
    fputs("</title>", f);
}

/* Frame i at x, and its children to its right from x on, above it. */
static void frame(const Svg *v, int i, double x)
{
    FILE *f = v->f;
    const FlameFrame *fr = &v->t->f[i];
    double w = fr->total * v->scale;
    if (!(fr->total > 0))
        return;
    double y = v->height - SVG_BOTTOM - (fr->depth + 1) * SVG_FRAME_H;
    int r, g, b;
    fill(v, fr, &r, &g, &b);
    fprintf(f, "<g class=\"f\" data-depth=\"%d\" data-self=\"%.9g\" data-total=\"%.9g\" data-name=\"", fr->depth,
            fr->self, fr->total);
    flame_xml_string(f, fr->name, -1);
    fputs("\">", f);
    title(v, i);
    fprintf(f, "<rect x=\"%.4f\" y=\"%.1f\" width=\"%.4f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
            x, y, w, SVG_FRAME_H - 1, r, g, b);
    fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_FRAME_H - 5);
    int fit = (int)((w - 6) / SVG_CHAR_W);
    int len = (int)strlen(fr->name);
    if (fit >= 3 && len <= fit) {
        flame_xml_string(f, fr->name, -1);
    } else if (fit >= 3) {
        flame_xml_string(f, fr->name, fit - 2);
        fputs("..", f);
    }
    fputs("</text></g>\n", f);
    for (int k = 0; k < fr->nkids; k++) {
        frame(v, fr->kids[k], x);
        x += v->t->f[fr->kids[k]].total * v->scale;
    }
}

/* Click to zoom, reset, search; the labels refitted to the widths. */
static const char SVG_SCRIPT[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "var W = %g, XPAD = %g, CHAR_W = %g, FR = [], matched = false;\n"
    "function el(id) { return document.getElementById(id); }\n"
    "function fit(g) {\n"
    "  var w = +g.r.getAttribute('width'), t = g.querySelector('text'), n = g.getAttribute('data-name');\n"
    "  var c = Math.floor((w - 6) / CHAR_W);\n"
    "  t.setAttribute('x', +g.r.getAttribute('x') + 3);\n"
    "  t.textContent = c < 3 ? '' : n.length <= c ? n : n.substring(0, c - 2) + '..';\n"
    "}\n"
    "function place(g, x, w, show) {\n"
    "  g.style.display = show ? '' : 'none';\n"
    "  g.r.setAttribute('x', x); g.r.setAttribute('width', w); fit(g);\n"
    "}\n"
    "function zoom(z) {\n"
    "  var s = (W - 2 * XPAD) / z.w, e = 1e-6;\n"
    "  FR.forEach(function (g) {\n"
    "    if (g.d < z.d) {\n"
    "      var anc = g.x <= z.x + e && g.x + g.w >= z.x + z.w - e;\n"
    "      place(g, XPAD, W - 2 * XPAD, anc); g.style.opacity = anc ? 0.5 : 1;\n"
    "    } else {\n"
    "      var inside = g.x >= z.x - e && g.x + g.w <= z.x + z.w + e;\n"
    "      place(g, XPAD + (g.x - z.x) * s, g.w * s, inside); g.style.opacity = 1;\n"
    "    }\n"
    "  });\n"
    "  el('reset').style.opacity = 1;\n"
    "}\n"
    "function reset() {\n"
    "  FR.forEach(function (g) { place(g, g.x, g.w, true); g.style.opacity = 1; });\n"
    "  el('reset').style.opacity = 0;\n"
    "}\n"
    "function search() {\n"
    "  var term = matched ? null : prompt('Search (regular expression):', '');\n"
    "  var re = null, iv = [];\n"
    "  if (term) { try { re = new RegExp(term); } catch (x) { alert(x); return; } }\n"
    "  FR.forEach(function (g) {\n"
    "    var m = re && re.test(g.getAttribute('data-name'));\n"
    "    g.r.setAttribute('fill', m ? 'rgb(230,0,230)' : g.fill);\n"
    "    if (m) iv.push([g.x, g.x + g.w]);\n"
    "  });\n"
    "  iv.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var cov = 0, end = -1;\n"
    "  iv.forEach(function (v) { if (v[1] > end) { cov += v[1] - Math.max(v[0], end); end = v[1]; } });\n"
    "  matched = !!re;\n"
    "  el('search').textContent = matched ? 'Clear search' : 'Search';\n"
    "  el('matched').textContent = matched ? 'Matched: ' + (100 * cov / (W - 2 * XPAD)).toFixed(1) + ' %%' : '';\n"
    "}\n"
    "window.addEventListener('load', function () {\n"
    "  document.querySelectorAll('g.f').forEach(function (g) {\n"
    "    g.r = g.querySelector('rect'); g.x = +g.r.getAttribute('x'); g.w = +g.r.getAttribute('width');\n"
    "    g.d = +g.getAttribute('data-depth'); g.fill = g.r.getAttribute('fill'); FR.push(g);\n"
    "    g.addEventListener('click', function () { zoom(g); });\n"
    "    g.addEventListener('mouseover', function () {\n"
    "      el('details').textContent = g.querySelector('title').textContent.split('\\n').join('  |  ');\n"
    "    });\n"
    "    g.addEventListener('mouseout', function () { el('details').textContent = ' '; });\n"
    "  });\n"
    "  el('reset').addEventListener('click', reset);\n"
    "  el('search').addEventListener('click', search);\n"
    "});\n"
    "]]></script>\n";

EpStatus report_svg(FILE *f, const Profile *p, const ReportOptions *o, EpError *err)
{
    FlameTree *t = flame_new(p, o ? o->base : NULL);
    Svg v = {.f = f, .t = t, .maxdepth = flame_max_depth(t)};
    v.height = SVG_TOP + SVG_BOTTOM + (v.maxdepth + 1) * SVG_FRAME_H;
    v.scale = t->f[0].total > 0 ? (SVG_WIDTH - 2 * SVG_XPAD) / t->f[0].total : 0;
    v.nodes = ep_xcalloc((size_t)t->n, sizeof *v.nodes);
    v.nnodes = ep_xcalloc((size_t)t->n, sizeof *v.nnodes);
    for (int i = 0; i < p->nnodes; i++) {
        int l = t->leaf[i];
        if (v.nnodes[l]++ < SVG_MAX_NODES) {
            if (v.nodes[l].len)
                sb_append(&v.nodes[l], ", ");
            sb_append(&v.nodes[l], p->nodes[i].name);
        }
    }
    fprintf(f,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            SVG_WIDTH, v.height, SVG_WIDTH, v.height);
    fprintf(f,
            "<style>text { font-family: monospace; font-size: %gpx; fill: rgb(0,0,0); }\n"
            "g.f { cursor: pointer; } g.f:hover rect { stroke: black; stroke-width: 0.5; }\n"
            ".button { cursor: pointer; fill: rgb(0,0,160); }</style>\n",
            SVG_FONT);
    fprintf(f, SVG_SCRIPT, SVG_WIDTH, SVG_XPAD, SVG_CHAR_W);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"rgb(248,248,240)\"/>\n", SVG_WIDTH, v.height);
    fprintf(f, "<text x=\"%g\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">", SVG_WIDTH / 2);
    fputs(t->base ? "Differential flame graph: " : "Flame graph: ", f);
    flame_xml_string(f, p->model_path, 200);
    fputs(p->partial ? " (partial)" : "", f);
    fputs("</text>\n<text x=\"600\" y=\"44\" text-anchor=\"middle\">", f);
    fprintf(f, "%s, %d iteration%s, ", p->mode == PROFILE_SAMPLE ? "sampled" : "exact", p->iters,
            p->iters == 1 ? "" : "s");
    put_time(f, t->f[0].total);
    fputs(" per iteration", f);
    if (t->base) {
        fputs(" (base ", f);
        put_time(f, t->f[0].base_total);
        fputs("); red: slower, blue: faster", f);
    }
    fputs("</text>\n", f);
    fprintf(f, "<text id=\"reset\" class=\"button\" x=\"%g\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n",
            SVG_XPAD);
    fprintf(f, "<text id=\"search\" class=\"button\" x=\"%g\" y=\"24\" text-anchor=\"end\">Search</text>\n",
            SVG_WIDTH - SVG_XPAD);
    fprintf(f, "<text id=\"matched\" x=\"%g\" y=\"%g\" text-anchor=\"end\"> </text>\n", SVG_WIDTH - SVG_XPAD,
            v.height - 10);
    fprintf(f, "<text id=\"details\" x=\"%g\" y=\"%g\"> </text>\n", SVG_XPAD, v.height - 10);
    if (t->f[0].total > 0)
        frame(&v, 0, SVG_XPAD);
    else
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">no time measured</text>\n", SVG_WIDTH / 2,
                v.height / 2);
    fputs("</svg>\n", f);
    for (int i = 0; i < t->n; i++)
        sb_free(&v.nodes[i]);
    free(v.nodes);
    free(v.nnodes);
    flame_free(t);
    return flame_write_status(f, "flame graph", err);
}
