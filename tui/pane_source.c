/*
** pane_source.c -- the source pane: where the selected node came from in
** the user's Python.
**
**   #0 mul  pre (numerics.Scale)
**   #0 forward at numerics.py:10          <- the selected frame, highlighted
**   #1 forward at numerics.py:19
**      9      def forward(self, x):
**   > 10          return x * 2.0 - 1.0    <- the frame's line (ST_CURRENT)
**     11
**
** When the file is nowhere readable, the line the trace recorded stands in
** for it, with a hint about --source-dir.
**
** While the session has a profile, the gutter gives each line its share
** of the profile's time -- the nodes whose user frame (the by-line view's
** attribution) is that line -- and marks lines of HOT_PCT or more:
**
**   > 10  42.1%      return x * 2.0 - 1.0
**
** Frames are numbered as the `frame` command numbers them (#0 is the
** innermost); picking one here sets the same CmdCtx frame, so `list` and
** `frame` at the prompt agree with what the pane shows.  Files come from
** cmd_read_source (which searches the --source-dir folders) and are kept
** in a small cache by their recorded name: a draw never touches the disk,
** and after each command the files are only stat()ed, to notice an edit.
*/
#include "tui_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Files kept at once: a stack trace rarely spans more, and reading one
** again is cheap. */
#define FILE_CACHE 8
/* Columns of source shown at most (longer lines are cut). */
#define LINE_CAP 1024
#define TAB_WIDTH 8
/* A line with this share of the profile's time or more is marked hot. */
#define HOT_PCT 10.0

typedef struct SourceFile {
    char *name;         /* the file as the trace records it (the key; NULL: a free slot) */
    char *text;         /* its contents, or NULL when it is nowhere readable */
    int *starts;        /* byte offset of each line in text */
    int nlines;
    char used[1024];    /* where it was found */
    struct timespec mtime; /* of used when read, to notice an edit */
    off_t size;
    bool checked;       /* compared with the disk since the last change */
    unsigned long last_use; /* for evicting the least recently used */
    unsigned long loaded;   /* when it was read (the pane's clock) */
} SourceFile;

typedef struct SourcePane {
    SourceFile files[FILE_CACHE];
    unsigned long clock;
    int placed_node;    /* the node and frame the view was last placed for */
    int placed_frame;
    unsigned long placed_load; /* ... and the reading of the file it was placed in */
    int line_top;       /* first source line on screen (1-based) */
    int frame_top;      /* first frame row on screen */
    /* the profile's share per line of one file (line_shares) */
    char *pct_file;     /* the file (owned), NULL: not computed */
    double *pct;        /* per line 0..npct-1, percent of the profile's time (owned) */
    int npct;
    unsigned long pct_gen; /* tui_profile's generation they were computed at */
} SourcePane;

/* Where the parts of the pane go in a content area of rows rows. */
typedef struct SourceLayout {
    int header;         /* rows of the node/module line (0 or 1) */
    int frame_rows;     /* rows of the frame list */
    int src_top;        /* first row of the source text */
    int src_rows;       /* rows of source text */
} SourceLayout;

/* Short of room, the header row is dropped first, then the frame list
** shrinks to the selected frame and goes: the line being run is what the
** pane is for. */
static SourceLayout layout_for(int rows, int nframes)
{
    SourceLayout l = {0};
    if (rows <= 0)
        return l;
    l.header = rows >= 4 ? 1 : 0;
    int left = rows - l.header;
    if (nframes > 0 && left >= 2) {
        int want = left / 3 > 1 ? left / 3 : 1;
        l.frame_rows = nframes < want ? nframes : want;
    }
    l.src_top = l.header + l.frame_rows;
    l.src_rows = rows - l.src_top;
    return l;
}

/* ---- the file cache ----------------------------------------------------------- */

static void file_clear(SourceFile *f)
{
    free(f->name);
    free(f->text);
    free(f->starts);
    memset(f, 0, sizeof *f);
}

/* Split f->text into lines (a last line without a newline counts). */
static void index_lines(SourceFile *f)
{
    int cap = 64;
    f->starts = ep_xmalloc((size_t)cap * sizeof *f->starts);
    f->nlines = 0;
    const char *p = f->text;
    while (*p) {
        if (f->nlines == cap) {
            cap *= 2;
            f->starts = ep_xrealloc(f->starts, (size_t)cap * sizeof *f->starts);
        }
        f->starts[f->nlines++] = (int)(p - f->text);
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
}

static void file_load(Tui *t, SourcePane *p, SourceFile *f, const char *name)
{
    file_clear(f);
    f->loaded = ++p->clock;
    f->name = ep_xstrdup(name);
    f->text = cmd_read_source(&t->cmd, name, f->used, sizeof f->used);
    f->checked = true;
    if (!f->text)
        return;
    /* line offsets are ints: a source file past 2 GB is not source */
    if (strlen(f->text) > (size_t)0x7fffffff) {
        free(f->text);
        f->text = NULL;
        return;
    }
    struct stat st;
    if (stat(f->used, &st) == 0) {
        f->mtime = st.st_mtim;
        f->size = st.st_size;
    }
    index_lines(f);
}

/* Whether the file f was read from is no longer what was read. */
static bool file_stale(const SourceFile *f)
{
    if (!f->text)
        return true; /* not readable before: it may be now (a --source-dir, a checkout) */
    struct stat st;
    if (stat(f->used, &st) != 0)
        return true;
    return st.st_size != f->size || st.st_mtim.tv_sec != f->mtime.tv_sec || st.st_mtim.tv_nsec != f->mtime.tv_nsec;
}

/* The cached file recorded as name, read (or re-read after a change on
** disk) when needed. */
static SourceFile *file_get(Tui *t, SourcePane *p, const char *name)
{
    SourceFile *slot = NULL;
    for (int i = 0; i < FILE_CACHE; i++)
        if (p->files[i].name && strcmp(p->files[i].name, name) == 0) {
            slot = &p->files[i];
            break;
        }
    if (slot) {
        if (!slot->checked) {
            if (file_stale(slot))
                file_load(t, p, slot, name);
            slot->checked = true;
        }
    } else {
        slot = &p->files[0];
        for (int i = 0; i < FILE_CACHE; i++) {
            if (!p->files[i].name) {
                slot = &p->files[i];
                break;
            }
            if (p->files[i].last_use < slot->last_use)
                slot = &p->files[i];
        }
        file_load(t, p, slot, name);
    }
    slot->last_use = ++p->clock;
    return slot;
}

/* ---- what is shown -------------------------------------------------------------- */

static int shown_node(const Tui *t)
{
    int node = t->selected >= 0 ? t->selected : tui_current_node(t);
    return node >= 0 && node < t->nnodes ? node : -1;
}

/* The selected frame of ni, counted from the innermost (0): the user's
** until one is picked, as `list` does. */
static int shown_frame(const Tui *t, const NodeInfo *ni)
{
    int k = t->cmd.frame < 0 ? ni->user_frame : t->cmd.frame;
    return k < ni->nframes ? k : ni->nframes - 1;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static int digits(int n)
{
    int d = 1;
    while (n >= 10) {
        n /= 10;
        d++;
    }
    return d;
}

/* ---- the profile's shares -------------------------------------------------------- */

/* Percent of the profile's time per line of file (NULL when there is no
** profile): the nodes whose user frame is in file, summed by line. */
static const double *line_shares(Tui *t, SourcePane *p, const char *file, int *n)
{
    unsigned long gen;
    const Profile *prof = tui_profile(t, &gen);
    *n = 0;
    if (!prof)
        return NULL;
    if (gen != p->pct_gen || !p->pct_file || strcmp(p->pct_file, file) != 0) {
        free(p->pct_file);
        free(p->pct);
        p->pct_file = ep_xstrdup(file);
        p->pct_gen = gen;
        p->npct = 1;
        for (int i = 0; i < prof->nnodes; i++) {
            const ProfileNode *nd = &prof->nodes[i];
            if (nd->file && strcmp(nd->file, file) == 0 && nd->line >= p->npct)
                p->npct = nd->line + 1;
        }
        p->pct = ep_xcalloc((size_t)p->npct, sizeof *p->pct);
        double total = profile_total_seconds(prof);
        for (int i = 0; i < prof->nnodes && total > 0; i++) {
            const ProfileNode *nd = &prof->nodes[i];
            if (nd->file && nd->line > 0 && strcmp(nd->file, file) == 0)
                p->pct[nd->line] += 100 * profile_node_seconds(prof, i) / total;
        }
    }
    *n = p->npct;
    return p->pct;
}

/* ---- drawing ----------------------------------------------------------------------- */

/* "#4 linear_1  fc2 (torch.nn.modules.linear.Linear)" */
static void draw_header(Tui *t, Canvas *c, int row, int node, const NodeInfo *ni)
{
    const Node *n = interp_node(session_interp(t->s), node);
    int col = canvas_printf(c, row, 0, ST_NORMAL, "#%d %s  ", node, n->name);
    col = canvas_print(c, row, col, ST_NORMAL, ni->module_path[0] ? ni->module_path : "(top level)");
    if (ni->module_type[0])
        canvas_printf(c, row, col, ST_DIM, " (%s)", ni->module_type);
}

static void draw_frames(const Tui *t, SourcePane *p, Canvas *c, const SourceLayout *l, const NodeInfo *ni, int sel,
                        bool focused)
{
    (void)t;
    if (l->frame_rows <= 0)
        return;
    /* keep the selected frame in view */
    if (sel < p->frame_top)
        p->frame_top = sel;
    if (sel >= p->frame_top + l->frame_rows)
        p->frame_top = sel - l->frame_rows + 1;
    if (p->frame_top > ni->nframes - l->frame_rows)
        p->frame_top = ni->nframes - l->frame_rows;
    if (p->frame_top < 0)
        p->frame_top = 0;
    for (int r = 0; r < l->frame_rows && p->frame_top + r < ni->nframes; r++) {
        int k = p->frame_top + r;
        const SourceFrame *f = node_info_frame(ni, k);
        int row = l->header + r;
        Style st = ST_NORMAL;
        if (k == sel) {
            st = focused ? ST_CURSOR : ST_CURSOR_DIM;
            canvas_fill_row(c, row, st);
        }
        bool torch = source_file_is_torch(f->file);
        if (torch && k != sel)
            st = ST_DIM;
        canvas_printf(c, row, 0, st, "#%d %s at %s:%d%s", k, f->func ? f->func : "??", base_name(f->file), f->line,
                      torch ? "  [torch]" : "");
    }
}

/* One source line at row: marker, number, the profile's share (pct < 0:
** no profile, the column is left out), text with tabs expanded. */
static void draw_line(Canvas *c, int row, int numw, int lineno, double pct, const char *text, int len, bool current)
{
    char buf[LINE_CAP + 1];
    int n = 0;
    for (int i = 0; i < len && n < LINE_CAP; i++) {
        if (text[i] == '\t') {
            do
                buf[n++] = ' ';
            while (n % TAB_WIDTH && n < LINE_CAP);
        } else if (text[i] != '\r') {
            buf[n++] = text[i];
        }
    }
    buf[n] = '\0';
    Style st = current ? ST_CURRENT : ST_NORMAL;
    if (current)
        canvas_fill_row(c, row, ST_CURRENT);
    Style gutter = current ? ST_CURRENT : ST_DIM;
    int col = canvas_printf(c, row, 0, gutter, "%c %*d  ", current ? '>' : ' ', numw, lineno);
    if (pct >= 0) {
        Style ps = pct >= HOT_PCT ? ST_BREAK : gutter;
        if (pct >= 0.05)
            canvas_printf(c, row, col, ps, "%5.1f%%", pct);
        else if (pct > 0)
            canvas_print(c, row, col, ps, " <0.1%");
        col += 6 + 2;
    }
    canvas_print(c, row, col, st, buf);
}

/* Put the frame's line in the middle of the source rows. */
static void center_on(SourcePane *p, int line, int src_rows, int nlines)
{
    p->line_top = line - src_rows / 2;
    if (p->line_top > nlines - src_rows + 1)
        p->line_top = nlines - src_rows + 1;
    if (p->line_top < 1)
        p->line_top = 1;
}

static void draw_source(Tui *t, SourcePane *p, Canvas *c, const SourceLayout *l, const SourceFrame *f, bool placed)
{
    if (l->src_rows <= 0)
        return;
    SourceFile *sf = file_get(t, p, f->file);
    int npct;
    const double *pct = line_shares(t, p, f->file, &npct);
    if (!sf->text || f->line < 1 || f->line > sf->nlines) {
        /* what the trace recorded is all there is */
        int numw = digits(f->line > 0 ? f->line : 0);
        const char *code = f->code ? f->code : "(no code recorded)";
        double lp = !pct ? -1 : f->line > 0 && f->line < npct ? pct[f->line] : 0;
        draw_line(c, l->src_top, numw, f->line, lp, code, (int)strlen(code), true);
        if (l->src_rows > 1) {
            if (!sf->text)
                canvas_print(c, l->src_top + 1, 0, ST_DIM, "(file not readable here; --source-dir DIR)");
            else
                canvas_printf(c, l->src_top + 1, 0, ST_DIM, "(line %d is past the end of %s: %d lines)", f->line,
                              sf->used, sf->nlines);
        }
        return;
    }
    /* a file read again (edited, or found at last) may have moved: start
    ** again from the frame's line */
    if (!placed || p->placed_load != sf->loaded)
        center_on(p, f->line, l->src_rows, sf->nlines);
    p->placed_load = sf->loaded;
    if (p->line_top > sf->nlines)
        p->line_top = sf->nlines;
    if (p->line_top < 1)
        p->line_top = 1;
    int numw = digits(sf->nlines);
    for (int r = 0; r < l->src_rows; r++) {
        int line = p->line_top + r;
        if (line > sf->nlines)
            break;
        const char *s = sf->text + sf->starts[line - 1];
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        double lp = !pct ? -1 : line < npct ? pct[line] : 0;
        draw_line(c, l->src_top + r, numw, line, lp, s, len, line == f->line);
    }
}

static void source_draw(Tui *t, void *state, Canvas *c, bool focused)
{
    SourcePane *p = state;
    canvas_clear(c, ST_NORMAL);
    if (c->rows <= 0 || c->cols <= 0)
        return;
    int node = shown_node(t);
    if (node < 0) {
        canvas_print(c, 0, 0, ST_DIM, "(no node selected)");
        return;
    }
    const NodeInfo *ni = session_node_info(t->s, node);
    SourceLayout l = layout_for(c->rows, ni->nframes);
    if (ni->nframes == 0) {
        int row = 0;
        if (c->rows >= 2)
            draw_header(t, c, row++, node, ni);
        canvas_print(c, row, 0, ST_DIM, "(no stack trace recorded for this node)");
        return;
    }
    int sel = shown_frame(t, ni);
    /* a new node or frame: the view goes to its line; otherwise the user's
    ** scrolling stays */
    bool placed = p->placed_node == node && p->placed_frame == sel;
    p->placed_node = node;
    p->placed_frame = sel;
    if (l.header)
        draw_header(t, c, 0, node, ni);
    draw_frames(t, p, c, &l, ni, sel, focused);
    draw_source(t, p, c, &l, node_info_frame(ni, sel), placed);
}

static void source_title(Tui *t, void *state, char *buf, size_t cap)
{
    (void)state;
    buf[0] = '\0';
    int node = shown_node(t);
    if (node < 0)
        return;
    const NodeInfo *ni = session_node_info(t->s, node);
    if (ni->nframes == 0) {
        snprintf(buf, cap, "(no trace)");
        return;
    }
    int sel = shown_frame(t, ni);
    const SourceFrame *f = node_info_frame(ni, sel);
    if (ni->nframes > 1)
        snprintf(buf, cap, "%s:%d  #%d of %d", base_name(f->file), f->line, sel, ni->nframes);
    else
        snprintf(buf, cap, "%s:%d", base_name(f->file), f->line);
}

/* ---- keys ---------------------------------------------------------------------------- */

/* Select frame k of the shown node, as `frame k` would. */
static void pick_frame(Tui *t, const NodeInfo *ni, int k)
{
    if (k < 0 || k >= ni->nframes) {
        tui_note(t, "no frame #%d (this node has #0 to #%d)", k, ni->nframes - 1);
        return;
    }
    t->cmd.frame = k;
    t->cmd.list_node = -1; /* `list` starts again at the new frame */
}

static bool source_key(Tui *t, void *state, int key, int c_rows)
{
    SourcePane *p = state;
    int node = shown_node(t);
    if (node < 0)
        return false;
    const NodeInfo *ni = session_node_info(t->s, node);
    SourceLayout l = layout_for(c_rows, ni->nframes);
    int page = l.src_rows > 1 ? l.src_rows - 1 : 1;
    int sel = ni->nframes ? shown_frame(t, ni) : 0;
    switch (key) {
    case '[':
    case TK_LEFT:
        if (ni->nframes)
            pick_frame(t, ni, sel - 1);
        return true;
    case ']':
    case TK_RIGHT:
        if (ni->nframes)
            pick_frame(t, ni, sel + 1);
        return true;
    case TK_UP:
    case 'k':
        p->line_top--;
        break;
    case TK_DOWN:
    case 'j':
        p->line_top++;
        break;
    case TK_PGUP:
        p->line_top -= page;
        break;
    case TK_PGDN:
        p->line_top += page;
        break;
    case TK_WHEEL_UP:
        p->line_top -= 3;
        break;
    case TK_WHEEL_DOWN:
        p->line_top += 3;
        break;
    case TK_HOME:
        p->line_top = 1;
        break;
    case TK_END:
        p->line_top = 0x7fffffff;
        break;
    default:
        return false;
    }
    /* clamp against the file, so scrolling past an end does not pile up */
    const SourceFrame *f = node_info_frame(ni, sel);
    int nlines = 1;
    if (f) {
        SourceFile *sf = file_get(t, p, f->file);
        if (sf->text)
            nlines = sf->nlines;
    }
    int last = nlines - (l.src_rows > 0 ? l.src_rows : 1) + 1;
    if (p->line_top > last)
        p->line_top = last;
    if (p->line_top < 1)
        p->line_top = 1;
    /* the view now belongs to this node and frame: the next draw keeps it */
    p->placed_node = node;
    p->placed_frame = sel;
    return true;
}

static void source_click(Tui *t, void *state, int row, int col)
{
    (void)col;
    SourcePane *p = state;
    int node = shown_node(t);
    if (node < 0)
        return;
    const NodeInfo *ni = session_node_info(t->s, node);
    int rows = t->rects[PANE_SOURCE].rows - 1;
    SourceLayout l = layout_for(rows, ni->nframes);
    if (row >= l.header && row < l.header + l.frame_rows) {
        int k = p->frame_top + row - l.header;
        if (k < ni->nframes)
            pick_frame(t, ni, k);
    }
}

/* ---- lifetime ------------------------------------------------------------------------- */

static void *source_create(Tui *t)
{
    (void)t;
    SourcePane *p = ep_xcalloc(1, sizeof *p);
    p->placed_node = -1;
    p->placed_frame = -1;
    p->line_top = 1;
    return p;
}

static void source_destroy(void *state)
{
    SourcePane *p = state;
    if (!p)
        return;
    for (int i = 0; i < FILE_CACHE; i++)
        file_clear(&p->files[i]);
    free(p->pct_file);
    free(p->pct);
    free(p);
}

static void source_changed(Tui *t, void *state)
{
    (void)t;
    SourcePane *p = state;
    /* something ran: a file may have been edited meanwhile */
    for (int i = 0; i < FILE_CACHE; i++)
        p->files[i].checked = false;
}

/* The source pane (tui_int.h): state per TUI, created by tui_new, freed by
** tui_free; it reads the session and t->cmd, and writes only t->cmd.frame
** and list_node (picking a frame). */
const PaneClass PANE_SOURCE_CLASS = {
    .name = "source",
    .create = source_create,
    .destroy = source_destroy,
    .title = source_title,
    .draw = source_draw,
    .key = source_key,
    .click = source_click,
    .changed = source_changed,
};
