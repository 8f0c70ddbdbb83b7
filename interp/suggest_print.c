/*
** suggest_print.c -- a Suggestion as paste-ready Python, as the text
** `epdbg suggest` prints, and as JSON (README "epdbg suggest --json").
*/
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest_int.h"

/* A derived Dim's form in Python: "2 * dx + 10". */
static void derived_text(const Suggestion *s, int k, char *buf, size_t cap)
{
    const SuggestDim *dm = &s->dims[k];
    const char *root = s->dims[dm->root].name;
    int o = dm->a == 1 ? snprintf(buf, cap, "%s", root) : snprintf(buf, cap, "%lld * %s", (long long)dm->a, root);
    if (dm->c != 0 && o > 0 && (size_t)o < cap)
        snprintf(buf + o, cap - (size_t)o, " %s %lld", dm->c > 0 ? "+" : "-",
                 (long long)(dm->c > 0 ? dm->c : -dm->c));
}

/* The Python for dims[k] where an entry uses it: its name when it has an
** assignment of its own, else its form. */
static void dim_python(const Suggestion *s, int k, char *buf, size_t cap)
{
    if (s->dims[k].root < 0 || s->dims[k].named)
        snprintf(buf, cap, "%s", s->dims[k].name);
    else
        derived_text(s, k, buf, cap);
}

/* Is dims[k] used by an entry, directly or as a root? */
static bool dim_used(const Suggestion *s, int k)
{
    for (int e = 0; e < s->nentries; e++) {
        int di = s->entries[e].dimref;
        if (di == k || s->dims[di].root == k)
            return true;
    }
    return false;
}

/* Are all inputs Python names or items of *args (a dict by name), or
** some positional only (a tuple)? */
static bool named_inputs(const Interp *ip)
{
    for (int i = 0; i < interp_num_user_inputs(ip); i++) {
        const char *n = user_input_name(interp_user_input(ip, i));
        if (strncmp(n, "*args[", 6) == 0)
            continue;
        for (const char *p = n; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
                return false;
    }
    return true;
}

/* The `{0: batch}` (or None) of user input ui into sb. */
static void input_spec(const Suggestion *s, int ui, StrBuf *sb)
{
    bool any = false;
    for (int e = 0; e < s->nentries; e++) {
        if (s->entries[e].input != ui)
            continue;
        char d[160];
        dim_python(s, s->entries[e].dimref, d, sizeof d);
        sb_printf(sb, "%s%d: %s", any ? ", " : "{", s->entries[e].dim, d);
        any = true;
    }
    sb_append(sb, any ? "}" : "None");
}

void suggest_print_python(const Interp *ip, const Suggestion *s, StrBuf *sb)
{
    if (s->nentries == 0) {
        sb_append(sb, "# no input size can be dynamic as the program stands (see below)\n");
        return;
    }
    for (int i = 0; i < s->nnotes; i++)
        if (s->notes[i].kind == SN_SOURCE_CHANGE) {
            sb_append(sb, "# once the source changes below are made:\n");
            break;
        }
    sb_append(sb, "from torch.export import Dim\n");
    /* roots, then the multiples of hidden roots */
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        if (dm->root >= 0 || !dim_used(s, k))
            continue;
        sb_printf(sb, "%s = Dim(\"%s\", min=%lld", dm->name, dm->name, (long long)dm->min);
        if (dm->max != SYM_RANGE_POS_INF)
            sb_printf(sb, ", max=%lld", (long long)dm->max);
        sb_append(sb, ")\n");
    }
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        if (dm->root < 0 || !dm->named || !dim_used(s, k))
            continue;
        char e[160];
        derived_text(s, k, e, sizeof e);
        sb_printf(sb, "%s = %s\n", dm->name, e);
    }
    bool by_name = named_inputs(ip);
    sb_append(sb, by_name ? "dynamic_shapes = {" : "dynamic_shapes = (");
    int n = interp_num_user_inputs(ip);
    bool args_open = false, first = true;
    int nvar = 0; /* items of *args so far: a 1-tuple needs its comma */
    for (int ui = 0; ui < n; ui++) {
        const char *name = user_input_name(interp_user_input(ip, ui));
        bool vararg = by_name && strncmp(name, "*args[", 6) == 0;
        if (args_open && !vararg) {
            sb_append(sb, nvar == 1 ? ",)" : ")");
            args_open = false;
        }
        nvar = vararg ? nvar + 1 : 0;
        if (!args_open || !vararg)
            sb_append(sb, first ? "" : ", ");
        first = false;
        if (vararg && !args_open) {
            /* the items of *args go in one tuple under "args" */
            sb_append(sb, "\"args\": (");
            args_open = true;
        } else if (vararg) {
            sb_append(sb, ", ");
        } else if (by_name) {
            sb_printf(sb, "\"%s\": ", name);
        }
        input_spec(s, ui, sb);
    }
    if (args_open)
        sb_append(sb, nvar == 1 ? ",)" : ")");
    if (!by_name && n == 1)
        sb_append(sb, ",");
    sb_append(sb, by_name ? "}\n" : ")\n");
}

/* The sections of the text, in the order printed. */
static const struct {
    SuggestNoteKind kind;
    const char *heading;
} SECTIONS[] = {
    {SN_INPUT, "the given inputs"},
    {SN_SOURCE_CHANGE, "change in the model's source"},
    {SN_WHY, "why"},
    {SN_STATIC, "stays static"},
    {SN_CHECK, "conditions on data: state them with torch._check before the use"},
    {SN_LEFT_OUT, "not covered by the analysis"},
};

void suggest_print_text(const Interp *ip, const Suggestion *s, StrBuf *sb)
{
    suggest_print_python(ip, s, sb);
    for (size_t k = 0; k < sizeof SECTIONS / sizeof SECTIONS[0]; k++) {
        bool head = false;
        for (int i = 0; i < s->nnotes; i++) {
            const SuggestNote *n = &s->notes[i];
            if (n->kind != SECTIONS[k].kind)
                continue;
            if (!head)
                sb_printf(sb, "\n%s:\n", SECTIONS[k].heading);
            head = true;
            if (n->kind == SN_CHECK && n->code)
                sb_printf(sb, "  %s    # %s\n", n->code, n->text);
            else
                sb_printf(sb, "  - %s\n", n->text);
        }
    }
    /* where min and max come from */
    bool head = false;
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        if (dm->root >= 0 || !dim_used(s, k) || (!dm->why_min[0] && !dm->why_max[0]))
            continue;
        if (!head)
            sb_append(sb, "\nranges:\n");
        head = true;
        if (dm->why_min[0] && strcmp(dm->why_min, dm->why_max) != 0)
            sb_printf(sb, "  - %s min=%lld: %s\n", dm->name, (long long)dm->min, dm->why_min);
        if (dm->why_max[0])
            sb_printf(sb, "  - %s %s: %s\n", dm->name,
                      strcmp(dm->why_min, dm->why_max) == 0 ? "range" : "max", dm->why_max);
    }
    if (s->after) {
        sb_append(sb, "\nonce the source changes above are made:\n");
        suggest_print_python(ip, s->after, sb);
        for (int i = 0; i < s->after->nnotes; i++)
            if (s->after->notes[i].kind == SN_WHY && !strstr(s->after->notes[i].text, "takes the "))
                sb_printf(sb, "  - %s\n", s->after->notes[i].text);
    }
    sb_printf(sb, "\n%s:\n", s->verified ? "verified" : "NOT verified");
    for (int i = 0; i < s->nchecks; i++)
        sb_printf(sb, "  %s %s\n", s->checks[i].ok ? "ok  " : "FAIL", s->checks[i].text);
    if (s->partial)
        sb_append(sb, "  (partial: the nodes under \"not covered\" were taken as recorded)\n");
}

static const char *NOTE_KIND[] = {
    [SN_WHY] = "why", [SN_SOURCE_CHANGE] = "source_change", [SN_CHECK] = "check",
    [SN_STATIC] = "static", [SN_LEFT_OUT] = "left_out", [SN_INPUT] = "input",
};

void suggest_print_json(const Interp *ip, const Suggestion *s, StrBuf *sb)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "verified", s->verified);
    cJSON_AddBoolToObject(o, "partial", s->partial);
    StrBuf py;
    sb_init(&py);
    suggest_print_python(ip, s, &py);
    cJSON_AddStringToObject(o, "python", py.data ? py.data : "");
    sb_free(&py);
    cJSON *dims = cJSON_AddArrayToObject(o, "dims");
    for (int k = 0; k < s->ndims; k++) {
        const SuggestDim *dm = &s->dims[k];
        if (!dim_used(s, k))
            continue;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "name", dm->name);
        if (dm->root < 0) {
            cJSON_AddNumberToObject(d, "min", (double)dm->min);
            if (dm->max != SYM_RANGE_POS_INF)
                cJSON_AddNumberToObject(d, "max", (double)dm->max);
            else
                cJSON_AddNullToObject(d, "max");
            cJSON_AddBoolToObject(d, "hidden", dm->hidden);
            if (dm->sym[0])
                cJSON_AddStringToObject(d, "symbol", dm->sym);
            if (dm->why_min[0])
                cJSON_AddStringToObject(d, "why_min", dm->why_min);
            if (dm->why_max[0])
                cJSON_AddStringToObject(d, "why_max", dm->why_max);
        } else {
            cJSON_AddStringToObject(d, "root", s->dims[dm->root].name);
            cJSON_AddNumberToObject(d, "multiplier", (double)dm->a);
            cJSON_AddNumberToObject(d, "offset", (double)dm->c);
        }
        cJSON_AddItemToArray(dims, d);
    }
    cJSON *ds = cJSON_AddObjectToObject(o, "dynamic_shapes");
    for (int ui = 0; ui < interp_num_user_inputs(ip); ui++) {
        const char *name = user_input_name(interp_user_input(ip, ui));
        cJSON *in = NULL;
        for (int e = 0; e < s->nentries; e++) {
            if (s->entries[e].input != ui)
                continue;
            if (!in)
                in = cJSON_CreateObject();
            char key[16], d[160];
            snprintf(key, sizeof key, "%d", s->entries[e].dim);
            dim_python(s, s->entries[e].dimref, d, sizeof d);
            cJSON_AddStringToObject(in, key, d);
        }
        cJSON_AddItemToObject(ds, name, in ? in : cJSON_CreateNull());
    }
    cJSON *notes = cJSON_AddArrayToObject(o, "notes");
    for (int i = 0; i < s->nnotes; i++) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "kind", NOTE_KIND[s->notes[i].kind]);
        if (s->notes[i].node >= 0 && s->notes[i].node < s->ep->graph.nnodes)
            cJSON_AddStringToObject(n, "node", s->ep->graph.nodes[s->notes[i].node].name);
        cJSON_AddStringToObject(n, "text", s->notes[i].text);
        if (s->notes[i].code)
            cJSON_AddStringToObject(n, "code", s->notes[i].code);
        cJSON_AddItemToArray(notes, n);
    }
    cJSON *checks = cJSON_AddArrayToObject(o, "checks");
    for (int i = 0; i < s->nchecks; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddBoolToObject(c, "ok", s->checks[i].ok);
        cJSON_AddStringToObject(c, "text", s->checks[i].text);
        cJSON_AddItemToArray(checks, c);
    }
    if (s->after) {
        StrBuf a;
        sb_init(&a);
        suggest_print_python(ip, s->after, &a);
        cJSON_AddStringToObject(o, "python_after_source_changes", a.data ? a.data : "");
        sb_free(&a);
    }
    char *txt = cJSON_Print(o);
    if (txt) {
        sb_append(sb, txt);
        sb_append(sb, "\n");
    }
    free(txt);
    cJSON_Delete(o);
}
