/*
** test_kernels.c -- every kernel against PyTorch's numbers.
**
** Replays each case of the tests/kernels/ .cases files (format: make_goldens.py) on
** the registry's kernel, with the committed inputs, and compares every
** result with PyTorch's output in tests/kernels/golden/.  Each case runs
** twice: with OpenBLAS and with the plain reference loops, so the two GEMM /
** convolution paths are checked against PyTorch and thereby each other;
** the second run also takes the pointwise reference path
** (ew_set_reference_path), the first the fast one.
*/
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/npy.h"
#include "interp/ops.h"
#include "interp/ops/elementwise.h"
#include "testutil.h"

#define KERNEL_DIR "tests/kernels"

typedef struct CaseParser {
    const char *p;
    const char *golden_dir;
    int next_input;
    char err[512];
} CaseParser;

static void skip_ws(CaseParser *cp)
{
    while (isspace((unsigned char)*cp->p))
        cp->p++;
}

/* Column-major copy with the same values: nc(X) of the case file. */
static Tensor *make_noncontiguous(Tensor *t)
{
    if (t->ndim < 2)
        return tensor_ref(t);
    EpError err;
    int64_t rev[EP_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        rev[i] = t->sizes[t->ndim - 1 - i];
    Tensor *base = tensor_empty(t->dtype, t->ndim, rev, &err);
    int64_t st[EP_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        st[i] = base->strides[t->ndim - 1 - i];
    Tensor *v = tensor_as_strided(base, t->ndim, t->sizes, st, 0, &err);
    tensor_copy_into(v, t, &err);
    tensor_unref(base);
    return v;
}

static bool parse_value(CaseParser *cp, Value *out);

/* A tensor maker call: read the next committed input. */
static bool parse_tensor_call(CaseParser *cp, const char *fname, Value *out)
{
    if (strcmp(fname, "nc") == 0) {
        skip_ws(cp);
        Value inner;
        if (!parse_value(cp, &inner))
            return false;
        skip_ws(cp);
        if (*cp->p != ')' || inner.kind != V_TENSOR) {
            snprintf(cp->err, sizeof cp->err, "nc() takes one tensor");
            value_clear(&inner);
            return false;
        }
        cp->p++;
        *out = value_tensor(make_noncontiguous(inner.t));
        value_clear(&inner);
        return true;
    }
    int depth = 1;
    while (*cp->p && depth) {
        if (*cp->p == '(' || *cp->p == '[')
            depth++;
        else if (*cp->p == ')' || *cp->p == ']')
            depth--;
        cp->p++;
    }
    char path[1024], marker[1024];
    int k = cp->next_input++;
    snprintf(path, sizeof path, "%s/in%d.npy", cp->golden_dir, k);
    snprintf(marker, sizeof marker, "%s/in%d.bfloat16", cp->golden_dir, k);
    EpError err;
    Tensor *t = npy_load_file(path, &err);
    if (!t) {
        snprintf(cp->err, sizeof cp->err, "%.400s", err.msg);
        return false;
    }
    struct stat st;
    if (stat(marker, &st) == 0) { /* a bfloat16 input stored widened to float32 */
        Tensor *b = tensor_to_dtype(t, DT_BF16, &err);
        tensor_unref(t);
        t = b;
    }
    *out = value_tensor(t);
    return true;
}

static bool parse_value(CaseParser *cp, Value *out)
{
    skip_ws(cp);
    const char *p = cp->p;
    if (*p == '[' || *p == '(') {
        char close = *p == '[' ? ']' : ')';
        cp->p++;
        Value items[64];
        int n = 0;
        skip_ws(cp);
        while (*cp->p != close) {
            if (n == 64 || !parse_value(cp, &items[n])) {
                for (int i = 0; i < n; i++)
                    value_clear(&items[i]);
                return false;
            }
            n++;
            skip_ws(cp);
            if (*cp->p == ',')
                cp->p++;
            skip_ws(cp);
        }
        cp->p++;
        out->kind = V_LIST;
        out->list = value_list_new(n);
        for (int i = 0; i < n; i++)
            out->list->items[i] = items[i];
        return true;
    }
    if (*p == '\'' || *p == '"') {
        const char *e = strchr(p + 1, *p);
        if (!e)
            return false;
        out->kind = V_STR;
        out->s = ep_xstrndup(p + 1, (size_t)(e - p - 1));
        cp->p = e + 1;
        return true;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        char word[64];
        size_t n = 0;
        while ((isalnum((unsigned char)*cp->p) || *cp->p == '_' || *cp->p == '.') && n + 1 < sizeof word)
            word[n++] = *cp->p++;
        word[n] = '\0';
        skip_ws(cp);
        if (*cp->p == '(') {
            cp->p++;
            return parse_tensor_call(cp, word, out);
        }
        if (strcmp(word, "True") == 0 || strcmp(word, "False") == 0) {
            *out = value_bool(word[0] == 'T');
        } else if (strcmp(word, "None") == 0) {
            out->kind = V_NONE;
        } else if (strcmp(word, "inf") == 0) {
            *out = value_float(INFINITY);
        } else if (strcmp(word, "nan") == 0) {
            *out = value_float(NAN);
        } else if (strcmp(word, "torch.contiguous_format") == 0 || strcmp(word, "torch.channels_last") == 0 ||
                   strcmp(word, "torch.preserve_format") == 0) {
            out->kind = V_MEMFMT;
            out->i = word[6] == 'c' && word[7] == 'o' ? 1 : word[6] == 'c' ? 2 : 4;
        } else if (strcmp(word, "torch.strided") == 0) {
            out->kind = V_LAYOUT;
            out->i = 7;
        } else if (dtype_from_name(word) != DT_INVALID) {
            out->kind = V_DTYPE;
            out->i = dtype_from_name(word);
        } else {
            snprintf(cp->err, sizeof cp->err, "unknown name '%s'", word);
            return false;
        }
        return true;
    }
    /* number */
    char *end;
    if (*p == '-' && strncmp(p + 1, "inf", 3) == 0) {
        *out = value_float(-INFINITY);
        cp->p += 4;
        return true;
    }
    const char *q = p + (*p == '-' || *p == '+');
    while (isdigit((unsigned char)*q))
        q++;
    if (*q == '.' || *q == 'e' || *q == 'E') {
        *out = value_float(strtod(p, &end));
    } else {
        *out = value_int(strtoll(p, &end, 10));
    }
    if (end == p) {
        snprintf(cp->err, sizeof cp->err, "cannot parse a value at '%.20s'", p);
        return false;
    }
    cp->p = end;
    return true;
}

/* Flatten kernel outputs in the order make_goldens.py does. */
static int flatten_outputs(const Value *v, const Value **flat, int n, int max)
{
    if (v->kind == V_LIST) {
        for (int i = 0; i < v->list->n; i++)
            n = flatten_outputs(&v->list->items[i], flat, n, max);
        return n;
    }
    if (n < max)
        flat[n] = v;
    return n + 1;
}

static bool compare_scalar(const Value *got, const Tensor *ref, char *msg, size_t cap)
{
    if (ref->ndim != 0) {
        snprintf(msg, cap, "got a %s, expected a tensor", value_kind_name(got->kind));
        return false;
    }
    double g = value_as_f64(got), r = tensor_item_f64(ref);
    bool ok = dtype_is_float(ref->dtype) ? (isnan(r) ? isnan(g) : fabs(g - r) <= 1e-12 + 1e-10 * fabs(r))
                                         : g == r;
    if (!ok)
        snprintf(msg, cap, "got %s %.17g, expected %.17g", value_kind_name(got->kind), g, r);
    return ok;
}

typedef struct CaseOptions {
    double rtol, atol;
    bool expect_error;
} CaseOptions;

static void parse_options(const char *text, size_t len, CaseOptions *o)
{
    o->rtol = o->atol = -1;
    o->expect_error = false;
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)len, text);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        while (isspace((unsigned char)*tok))
            tok++;
        if (strncmp(tok, "rtol=", 5) == 0)
            o->rtol = strtod(tok + 5, NULL);
        else if (strncmp(tok, "atol=", 5) == 0)
            o->atol = strtod(tok + 5, NULL);
        else if (strncmp(tok, "error", 5) == 0)
            o->expect_error = true;
    }
    if (o->rtol >= 0 && o->atol < 0)
        o->atol = 1e-6;
    if (o->atol >= 0 && o->rtol < 0)
        o->rtol = 1e-4;
}

/* Run one case line; on failure append a report to fails. */
static void run_case(const char *family, const char *line, bool use_blas, StrBuf *fails, int *ncases)
{
    char name[128];
    const char *colon = strchr(line, ':');
    const char *bracket = strchr(line, '[');
    size_t nlen = (size_t)((bracket && bracket < colon ? bracket : colon) - line);
    while (nlen && isspace((unsigned char)line[nlen - 1]))
        nlen--;
    snprintf(name, sizeof name, "%.*s", (int)nlen, line);
    CaseOptions opt;
    if (bracket && bracket < colon)
        parse_options(bracket + 1, (size_t)(strchr(bracket, ']') - bracket - 1), &opt);
    else
        parse_options("", 0, &opt);
    const char *tstart = colon + 1;
    while (isspace((unsigned char)*tstart))
        tstart++;
    const char *paren = strchr(tstart, '(');
    char target[128];
    snprintf(target, sizeof target, "%.*s", (int)(paren - tstart), tstart);
    char gdir[512];
    snprintf(gdir, sizeof gdir, "%s/golden/%s/%s", KERNEL_DIR, family, name);
    (*ncases)++;

    const OpDef *op = op_lookup(target);
    if (!op) {
        sb_printf(fails, "  %s/%s: %s is not in the registry\n", family, name, target);
        return;
    }
    CaseParser cp = {paren + 1, gdir, 0, {0}};
    const char *names[OP_MAX_ARGS];
    char namebuf[OP_MAX_ARGS][64];
    Value vals[OP_MAX_ARGS];
    int n = 0;
    bool ok = true;
    skip_ws(&cp);
    while (*cp.p && *cp.p != ')' && ok) {
        size_t k = 0;
        while ((isalnum((unsigned char)*cp.p) || *cp.p == '_') && k + 1 < 64)
            namebuf[n][k++] = *cp.p++;
        namebuf[n][k] = '\0';
        skip_ws(&cp);
        if (*cp.p != '=') {
            snprintf(cp.err, sizeof cp.err, "expected name=value");
            ok = false;
            break;
        }
        cp.p++;
        if (!parse_value(&cp, &vals[n])) {
            ok = false;
            break;
        }
        names[n] = namebuf[n];
        n++;
        skip_ws(&cp);
        if (*cp.p == ',')
            cp.p++;
        skip_ws(&cp);
    }
    if (!ok) {
        sb_printf(fails, "  %s/%s: bad case: %s\n", family, name, cp.err);
        for (int i = 0; i < n; i++)
            value_clear(&vals[i]);
        return;
    }
    EpError err = {0};
    Value args[OP_MAX_ARGS];
    if (op_bind(op, n, names, vals, args, &err) != EP_OK) {
        sb_printf(fails, "  %s/%s: %s\n", family, name, err.msg);
        for (int i = 0; i < n; i++)
            value_clear(&vals[i]);
        return;
    }
    Value outs[OP_MAX_RETS];
    for (int i = 0; i < OP_MAX_RETS; i++)
        outs[i].kind = V_NONE;
    KernelConfig cfg = {.use_blas = use_blas};
    OpCall call = {op, args, op->schema->nargs, outs, op->schema->nrets, &err, &cfg};
    ew_set_reference_path(!use_blas); /* the pointwise reference path too */
    EpStatus rc = op->fn(&call);
    ew_set_reference_path(false);
    const char *mode = use_blas ? "" : " [reference loops]";
    if (opt.expect_error) {
        if (rc == EP_OK)
            sb_printf(fails, "  %s/%s%s: PyTorch raises here, the kernel returned a result\n", family, name, mode);
    } else if (rc != EP_OK) {
        sb_printf(fails, "  %s/%s%s: kernel failed: %s\n", family, name, mode, err.msg);
    } else {
        const Value *flat[64];
        int nflat = 0;
        for (int k = 0; k < op->schema->nrets; k++)
            nflat = flatten_outputs(&outs[k], flat, nflat, 64);
        for (int k = 0; k < nflat && k < 64; k++) {
            char path[600], msg[1024];
            snprintf(path, sizeof path, "%s/out%d.npy", gdir, k);
            Tensor *ref = npy_load_file(path, &err);
            if (!ref) {
                sb_printf(fails, "  %s/%s: %s\n", family, name, err.msg);
                break;
            }
            bool same = flat[k]->kind == V_TENSOR
                            ? tensors_close(flat[k]->t, ref, opt.rtol, opt.atol, msg, sizeof msg)
                            : compare_scalar(flat[k], ref, msg, sizeof msg);
            if (!same)
                sb_printf(fails, "  %s/%s%s: output %d: %s\n", family, name, mode, k, msg);
            tensor_unref(ref);
        }
        char extra[600];
        snprintf(extra, sizeof extra, "%s/out%d.npy", gdir, nflat);
        struct stat st;
        if (stat(extra, &st) == 0)
            sb_printf(fails, "  %s/%s: the kernel gave %d outputs, PyTorch more\n", family, name, nflat);
    }
    for (int k = 0; k < OP_MAX_RETS; k++)
        value_clear(&outs[k]);
    for (int i = 0; i < op->schema->nargs; i++)
        value_clear(&args[i]);
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
}

static void run_family(const char *file, bool use_blas, StrBuf *fails, int *ncases)
{
    char path[512], family[128];
    snprintf(path, sizeof path, "%s/%s", KERNEL_DIR, file);
    snprintf(family, sizeof family, "%.*s", (int)(strlen(file) - 6), file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '#' || !*s)
            continue;
        char *hash = strchr(s, '#');
        if (hash)
            *hash = '\0';
        size_t len = strlen(s);
        while (len && isspace((unsigned char)s[len - 1]))
            s[--len] = '\0';
        if (!strchr(s, ':'))
            continue;
        run_case(family, s, use_blas, fails, ncases);
    }
    fclose(f);
}

START_TEST(test_all_kernel_cases)
{
    DIR *d = opendir(KERNEL_DIR);
    ck_assert_msg(d != NULL, "cannot open %s", KERNEL_DIR);
    char *files[64];
    int nfiles = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nfiles < 64) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".cases") == 0)
            files[nfiles++] = ep_xstrdup(e->d_name);
    }
    closedir(d);
    StrBuf fails;
    sb_init(&fails);
    int ncases = 0;
    /* EPDBG_KERNEL_CASES=family[,family...] runs only those .cases files */
    const char *only = getenv("EPDBG_KERNEL_CASES");
    for (int i = 0; i < nfiles; i++) {
        if (only) {
            char fam[128];
            snprintf(fam, sizeof fam, "%.*s", (int)(strlen(files[i]) - 6), files[i]);
            bool want = false;
            for (const char *p = only; *p;) {
                size_t len = strcspn(p, ",");
                if (len == strlen(fam) && strncmp(p, fam, len) == 0)
                    want = true;
                p += len + (p[len] == ',');
            }
            if (!want) {
                free(files[i]);
                continue;
            }
        }
        run_family(files[i], true, &fails, &ncases);
        run_family(files[i], false, &fails, &ncases);
        free(files[i]);
    }
    if (fails.len)
        fprintf(stderr, "kernel cases failing:\n%s", fails.data);
    ck_assert_msg(fails.len == 0, "kernel cases failed (listed above)");
    ck_assert_msg(ncases > 0, "no kernel cases found");
    sb_free(&fails);
}
END_TEST

Suite *suite_kernels(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("pytorch-goldens");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_all_kernel_cases);
    suite_add_tcase(s, tc);
    return s;
}
