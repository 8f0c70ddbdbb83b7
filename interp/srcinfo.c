/*
** srcinfo.c -- parsing stack_trace and nn_module_stack node metadata.
*/
#include "srcinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "ep.h"

static char *trim_dup(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    return ep_xstrndup(s, n);
}

int source_frames_parse(const char *trace, SourceFrame **frames)
{
    *frames = NULL;
    if (!trace)
        return 0;
    int n = 0, cap = 0;
    const char *p = trace;
    while ((p = strstr(p, "File \"")) != NULL) {
        const char *fstart = p + 6;
        const char *fend = strchr(fstart, '"');
        if (!fend)
            break;
        const char *lp = strstr(fend, "line ");
        const char *eol = strchr(fend, '\n');
        if (!lp || (eol && lp > eol)) {
            p = fend;
            continue;
        }
        int line = atoi(lp + 5);
        const char *fn = strstr(lp, ", in ");
        char *func = NULL;
        if (fn && (!eol || fn < eol)) {
            const char *fe = eol ? eol : fn + strlen(fn);
            func = trim_dup(fn + 5, (size_t)(fe - fn - 5));
        }
        char *code = NULL;
        if (eol) {
            const char *cs = eol + 1;
            const char *ce = strchr(cs, '\n');
            if (!ce)
                ce = cs + strlen(cs);
            /* the code line is the indented line after the frame header */
            bool is_header = memmem(cs, (size_t)(ce - cs), "File \"", 6) != NULL;
            if (cs < ce && (*cs == ' ' || *cs == '\t') && !is_header)
                code = trim_dup(cs, (size_t)(ce - cs));
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            *frames = ep_xrealloc(*frames, (size_t)cap * sizeof **frames);
        }
        (*frames)[n].file = ep_xstrndup(fstart, (size_t)(fend - fstart));
        (*frames)[n].line = line;
        (*frames)[n].func = func;
        (*frames)[n].code = code && code[0] ? code : (free(code), (char *)NULL);
        n++;
        p = eol ? eol : fend + 1;
    }
    return n;
}

void source_frames_free(SourceFrame *frames, int n)
{
    for (int i = 0; i < n; i++) {
        free(frames[i].file);
        free(frames[i].func);
        free(frames[i].code);
    }
    free(frames);
}

/* torch's own packages and modules, as the folder or file right after a
** torch/ folder of a source checkout; "_" (any private module) is
** matched as a prefix */
static const char *const TORCH_PARTS[] = {"nn/", "fx/", "export/", "utils/", "autograd/", "ao/", "distributed/",
                                          "functional.py", "overrides.py", "_"};

bool source_file_is_torch(const char *file)
{
    if (strstr(file, "/site-packages/torch/") || strstr(file, "/dist-packages/torch/"))
        return true;
    for (const char *p = file; (p = strstr(p, "torch/")) != NULL; p++) {
        if (p != file && p[-1] != '/')
            continue; /* "mytorch/" is not a torch folder */
        const char *rest = p + 6;
        for (size_t i = 0; i < sizeof TORCH_PARTS / sizeof TORCH_PARTS[0]; i++)
            if (strncmp(rest, TORCH_PARTS[i], strlen(TORCH_PARTS[i])) == 0)
                return true;
    }
    return false;
}

int source_user_frame(const SourceFrame *frames, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (!source_file_is_torch(frames[i].file))
            return i;
    return n - 1;
}

const char *source_user_location(const char *trace, char *buf, size_t cap)
{
    SourceFrame *f;
    int n = source_frames_parse(trace, &f);
    if (n == 0)
        return NULL;
    const SourceFrame *in = &f[source_user_frame(f, n)];
    const char *base = strrchr(in->file, '/');
    snprintf(buf, cap, "%s:%d in %s%s%s", base ? base + 1 : in->file, in->line, in->func ? in->func : "?",
             in->code ? ": " : "", in->code ? in->code : "");
    source_frames_free(f, n);
    return buf;
}

/* Split text at sep where not nested in () or []: the number of parts,
** of which the first max are stored. */
static int split_top(const char *s, char sep, const char **parts, size_t *lens, int max)
{
    int n = 0, depth = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if ((*p == ')' || *p == ']') && depth > 0)
            depth--;
        if ((*p == sep && depth == 0) || !*p) {
            if (n < max) {
                parts[n] = start;
                lens[n] = (size_t)(p - start);
            }
            n++; /* counted past max: the caller sizes its table by it */
            if (!*p)
                break;
            start = p + 1;
        }
    }
    return n;
}

int module_scopes_parse(const char *text, ModuleScope **scopes)
{
    *scopes = NULL;
    if (!text || !*text)
        return 0;
    /* as many scopes as the node records: count, then split */
    int ne = split_top(text, ';', NULL, NULL, 0);
    const char **entries = ep_xmalloc((size_t)ne * sizeof *entries);
    size_t *lens = ep_xmalloc((size_t)ne * sizeof *lens);
    split_top(text, ';', entries, lens, ne);
    *scopes = ep_xcalloc((size_t)ne, sizeof **scopes);
    int n = 0;
    for (int i = 0; i < ne; i++) {
        char *entry = ep_xstrndup(entries[i], lens[i]);
        ModuleScope *m = &(*scopes)[n];
        char *colon = strstr(entry, ":(");
        if (colon && entry[strlen(entry) - 1] == ')') { /* 2.1: key:(path,type) */
            *colon = '\0';
            char *inner = colon + 2;
            inner[strlen(inner) - 1] = '\0';
            const char *f[2];
            size_t fl[2];
            int nf = split_top(inner, ',', f, fl, 2);
            m->key = ep_xstrdup(entry);
            m->path = nf > 0 ? trim_dup(f[0], fl[0]) : ep_xstrdup("");
            m->type = nf > 1 ? trim_dup(f[1], fl[1]) : ep_xstrdup("");
        } else {
            const char *f[3];
            size_t fl[3];
            int nf = split_top(entry, ',', f, fl, 3);
            m->key = trim_dup(f[0], fl[0]);
            m->path = nf > 1 ? trim_dup(f[1], fl[1]) : ep_xstrdup("");
            m->type = nf > 2 ? trim_dup(f[2], fl[2]) : ep_xstrdup("");
        }
        free(entry);
        n++;
    }
    free(entries);
    free(lens);
    return n;
}

void module_scopes_free(ModuleScope *scopes, int n)
{
    for (int i = 0; i < n; i++) {
        free(scopes[i].key);
        free(scopes[i].path);
        free(scopes[i].type);
    }
    free(scopes);
}

char *module_path_clean(const char *path)
{
    StrBuf sb;
    sb_init(&sb);
    const char *p = path;
    if (strncmp(p, "L['self']", 9) == 0)
        p += 9;
    else if (strncmp(p, "self", 4) == 0 && (p[4] == '.' || !p[4]))
        p += 4;
    while (*p) {
        if (*p == '.') {
            if (sb.len)
                sb_append(&sb, ".");
            p++;
        } else if (*p == '[') {
            /* ['name'] or [0]: a path component */
            const char *e = strchr(p, ']');
            if (!e)
                break;
            const char *s = p + 1;
            size_t n = (size_t)(e - s);
            if (n >= 2 && (*s == '\'' || *s == '"')) {
                s++;
                n -= 2;
            }
            if (sb.len)
                sb_append(&sb, ".");
            sb_appendn(&sb, s, n);
            p = e + 1;
        } else if (strncmp(p, "_modules", 8) == 0 && p[8] == '[') {
            p += 8;
        } else {
            const char *e = p;
            while (*e && *e != '.' && *e != '[')
                e++;
            sb_appendn(&sb, p, (size_t)(e - p));
            p = e;
        }
    }
    return sb_take(&sb);
}
