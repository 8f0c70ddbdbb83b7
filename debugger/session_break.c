/*
** session_break.c -- breakpoints: parsing a location, finding the nodes it
** names (once, when it is set), enabling, deleting, counting hits.
**
** Locations: a node name (or #N, or a unique prefix), /REGEX/ on node
** names and op targets (PCRE2), FILE:LINE against any frame of a node's
** stack trace, FILE:FUNC and `module PATH` (the first node of each call of
** that function or nn.Module), `nan`, and nothing: here, the node about to
** run (gdb's `break` alone).  A condition follows as "LOCATION if COND".
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "session_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void breakpoint_free(Breakpoint *b)
{
    if (!b)
        return;
    free(b->where);
    free(b->cond);
    bpcond_free(b->cond_parsed);
    free(b->at);
    free(b);
}

int session_num_breakpoints(const Session *s) { return s->nbps; }
const Breakpoint *session_breakpoint(const Session *s, int i) { return s->bps[i]; }

static void remove_at(Session *s, int i)
{
    breakpoint_free(s->bps[i]);
    memmove(&s->bps[i], &s->bps[i + 1], (size_t)(s->nbps - i - 1) * sizeof *s->bps);
    s->nbps--;
}

void breakpoint_hit(Session *s, int i)
{
    s->bps[i]->hits++;
    if (s->bps[i]->temporary)
        remove_at(s, i);
}

/* Whether a frame's file names the same file as the user's FILE: equal,
** or FILE is a trailing part of the path at a '/' boundary. */
static bool file_matches(const char *frame_file, const char *file)
{
    size_t a = strlen(frame_file), b = strlen(file);
    if (b > a)
        return false;
    if (strcmp(frame_file + a - b, file) != 0)
        return false;
    return a == b || frame_file[a - b - 1] == '/';
}

static EpStatus match_regex(Session *s, Breakpoint *b, const char *pattern, EpError *err)
{
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return ep_fail(err, EP_ERR_USAGE, "bad regular expression /%s/: %s at offset %zu", pattern, (char *)msg,
                       (size_t)offset);
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int n = node_table_count(s->nodes);
    for (int i = 0; i < n; i++) {
        const Node *node = interp_node(s->ip, i);
        const char *subjects[2] = {node->name, op_short_target(node->target)};
        for (int k = 0; k < 2 && !b->at[i]; k++)
            b->at[i] = pcre2_match(re, (PCRE2_SPTR)subjects[k], PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0;
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return EP_OK;
}

/* The outermost frame of node's stack trace in FILE running function func,
** or -1. */
static int frame_of_function(const NodeInfo *ni, const char *file, const char *func)
{
    for (int f = 0; f < ni->nframes; f++)
        if (file_matches(ni->frames[f].file, file) && ni->frames[f].func && strcmp(ni->frames[f].func, func) == 0)
            return f;
    return -1;
}

/* Whether nodes a and b run in the same call of the function in their frame
** f: the same callers, from the same lines, down to that frame. */
static bool same_call(const NodeInfo *a, const NodeInfo *b, int f)
{
    for (int k = 0; k <= f; k++) {
        const SourceFrame *x = &a->frames[k], *y = &b->frames[k];
        if (strcmp(x->file, y->file) != 0 || (x->func == NULL) != (y->func == NULL) ||
            (x->func && strcmp(x->func, y->func) != 0) || (k < f && x->line != y->line))
            return false;
    }
    return true;
}

/* FILE:LINE: every node with a frame at that line.  FILE:FUNC: the first
** node of each call of the function, as `module PATH` does for modules (a
** node in it whose predecessor was not in the same call). */
static void match_source(Session *s, Breakpoint *b, const char *file, const char *what)
{
    char *end;
    long line = strtol(what, &end, 10);
    if (*what && !*end) {
        for (int i = 0; i < node_table_count(s->nodes); i++) {
            const NodeInfo *ni = node_table_info(s->nodes, i);
            for (int f = 0; f < ni->nframes && !b->at[i]; f++)
                b->at[i] = file_matches(ni->frames[f].file, file) && ni->frames[f].line == line;
        }
        return;
    }
    const NodeInfo *prev = NULL;
    int prev_frame = -1;
    for (int i = 0; i < node_table_count(s->nodes); i++) {
        const NodeInfo *ni = node_table_info(s->nodes, i);
        int f = frame_of_function(ni, file, what);
        b->at[i] = f >= 0 && !(prev_frame == f && same_call(prev, ni, f));
        prev = ni;
        prev_frame = f;
    }
}

/* The first node of each call of module path: inside it, with the node
** before outside it. */
static void match_module(Session *s, Breakpoint *b, const char *path)
{
    size_t n = strlen(path);
    bool prev_inside = false;
    for (int i = 0; i < node_table_count(s->nodes); i++) {
        const char *p = node_table_info(s->nodes, i)->module_path;
        bool inside = n == 0 || (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '.'));
        b->at[i] = inside && !prev_inside;
        prev_inside = inside;
    }
}

static char *trim(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return ep_xstrndup(s, n);
}

/* Split "LOCATION if COND" (the condition may be absent). */
static void split_condition(const char *spec, char **where, char **cond)
{
    const char *at = NULL;
    for (const char *p = spec; (p = strstr(p, "if")) != NULL; p += 2) {
        bool before = p == spec || isspace((unsigned char)p[-1]);
        bool after = p[2] == '\0' || isspace((unsigned char)p[2]);
        bool in_regex = spec[0] == '/' && strchr(spec + 1, '/') && p < strrchr(spec, '/');
        if (before && after && !in_regex) {
            at = p;
            break;
        }
    }
    if (!at) {
        *where = trim(spec, strlen(spec));
        *cond = NULL;
        return;
    }
    *where = trim(spec, (size_t)(at - spec));
    *cond = trim(at + 2, strlen(at + 2));
}

const Breakpoint *session_break(Session *s, const char *spec, bool temporary, EpError *err)
{
    Breakpoint *b = ep_xcalloc(1, sizeof *b);
    split_condition(spec, &b->where, &b->cond);
    b->enabled = true;
    b->temporary = temporary;
    int n = node_table_count(s->nodes);
    b->at = ep_xcalloc((size_t)(n ? n : 1), 1);
    EpStatus rc = EP_OK;
    const char *w = b->where;
    size_t wlen = strlen(w);
    if (!*w) {
        /* here: the node about to run, named so `info breakpoints` says where */
        b->kind = BP_NODE;
        if (!interp_bound(s->ip) || interp_finished(s->ip)) {
            rc = ep_fail(err, EP_ERR_USAGE, "no current node to break at (the program is %s): give a location: "
                                            "NODE, /REGEX/, FILE:LINE, FILE:FUNC, module PATH or nan",
                         interp_bound(s->ip) ? "finished" : "not running");
        } else {
            int pc = interp_pc(s->ip);
            b->at[pc] = 1;
            free(b->where);
            b->where = ep_xstrdup(interp_node(s->ip, pc)->name);
        }
    } else if (strcmp(w, "nan") == 0) {
        b->kind = BP_NAN;
        memset(b->at, 1, (size_t)n);
    } else if (strncmp(w, "module ", 7) == 0 || strcmp(w, "module") == 0) {
        b->kind = BP_MODULE;
        char *path = trim(w + 6, strlen(w + 6));
        match_module(s, b, path);
        free(path);
    } else if (w[0] == '/') {
        b->kind = BP_REGEX;
        if (wlen < 2 || w[wlen - 1] != '/') {
            rc = ep_fail(err, EP_ERR_USAGE, "a regular expression goes between slashes: /REGEX/");
        } else {
            char *pattern = ep_xstrndup(w + 1, wlen - 2);
            rc = match_regex(s, b, pattern, err);
            free(pattern);
        }
    } else if (strchr(w, ':')) {
        b->kind = BP_SOURCE;
        const char *colon = strrchr(w, ':');
        char *file = ep_xstrndup(w, (size_t)(colon - w));
        match_source(s, b, file, colon + 1);
        free(file);
    } else {
        b->kind = BP_NODE;
        int node = node_table_find(s->nodes, w, err);
        if (node < 0)
            rc = EP_ERR_USAGE;
        else
            b->at[node] = 1;
    }
    for (int i = 0; i < n; i++)
        b->nmatch += b->at[i];
    if (rc == EP_OK && b->nmatch == 0)
        rc = ep_fail(err, EP_ERR_USAGE, "no node matches '%s'", b->where);
    if (rc == EP_OK && b->cond) {
        b->cond_parsed = bpcond_parse(b->cond, err);
        if (!b->cond_parsed)
            rc = EP_ERR_USAGE;
    }
    if (rc) {
        breakpoint_free(b);
        return NULL;
    }
    b->id = s->next_bp_id++;
    s->bps = ep_xrealloc(s->bps, (size_t)(s->nbps + 1) * sizeof *s->bps);
    s->bps[s->nbps++] = b;
    return b;
}

EpStatus session_delete(Session *s, int id, EpError *err)
{
    if (id < 0) {
        while (s->nbps)
            remove_at(s, s->nbps - 1);
        return EP_OK;
    }
    for (int i = 0; i < s->nbps; i++)
        if (s->bps[i]->id == id) {
            remove_at(s, i);
            return EP_OK;
        }
    return ep_fail(err, EP_ERR_USAGE, "no breakpoint number %d", id);
}

EpStatus session_enable(Session *s, int id, bool enable, EpError *err)
{
    bool found = false;
    for (int i = 0; i < s->nbps; i++)
        if (id < 0 || s->bps[i]->id == id) {
            s->bps[i]->enabled = enable;
            found = true;
        }
    return found || id < 0 ? EP_OK : ep_fail(err, EP_ERR_USAGE, "no breakpoint number %d", id);
}
