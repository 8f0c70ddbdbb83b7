/*
** testutil.c -- tensor comparison and test data locations.
*/
#include "testutil.h"

#include "debugger/session.h"
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The corpus README's tolerances, written here again on purpose rather
** than taken from numerics_tolerance: the tests judge the product by the
** README, so a change to the product's table cannot loosen its own tests. */
void tolerance_for(DType t, double *rtol, double *atol)
{
    switch (t) {
    case DT_F32: *rtol = 1e-4; *atol = 1e-5; break;
    case DT_F64: *rtol = 1e-10; *atol = 1e-12; break;
    case DT_F16: *rtol = 1e-3; *atol = 1e-5; break;
    case DT_BF16: *rtol = 8e-3; *atol = 1e-5; break;
    default: *rtol = 0; *atol = 0; break;
    }
}

bool tensors_close(const Tensor *got, const Tensor *ref, double rtol, double atol, char *msg, size_t cap)
{
    char b1[256], b2[256];
    bool bf16_as_f32 = got->dtype == DT_BF16 && ref->dtype == DT_F32;
    if (got->dtype != ref->dtype && !bf16_as_f32) {
        snprintf(msg, cap, "dtype %s, expected %s", dtype_name(got->dtype), dtype_name(ref->dtype));
        return false;
    }
    if (!shape_equal(got->ndim, got->sizes, ref->ndim, ref->sizes)) {
        snprintf(msg, cap, "shape %s, expected %s", shape_str(got->ndim, got->sizes, b1, sizeof b1),
                 shape_str(ref->ndim, ref->sizes, b2, sizeof b2));
        return false;
    }
    if (rtol < 0 || atol < 0)
        tolerance_for(bf16_as_f32 ? DT_BF16 : ref->dtype, &rtol, &atol);
    int64_t n = tensor_numel(ref);
    int64_t bad = 0, first = -1;
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = tensor_get_f64(got, i), r = tensor_get_f64(ref, i);
        bool ok;
        if (!dtype_is_float(ref->dtype) && !bf16_as_f32) {
            /* integers: compare exactly through int64 (doubles lose bits) */
            ok = tensor_get_i64(got, i) == tensor_get_i64(ref, i);
        } else if (isnan(r)) {
            ok = isnan(g);
        } else if (isinf(r)) {
            ok = g == r;
        } else {
            double d = fabs(g - r);
            ok = d <= atol + rtol * fabs(r);
            if (!ok && d > worst)
                worst = d;
        }
        if (!ok) {
            if (first < 0)
                first = i;
            bad++;
        }
    }
    if (bad) {
        snprintf(msg, cap, "%lld of %lld values differ; first at flat index %lld: got %.9g, expected %.9g "
                 "(largest difference %.3g; rtol %g atol %g)", (long long)bad, (long long)n, (long long)first,
                 tensor_get_f64(got, first), tensor_get_f64(ref, first), worst, rtol, atol);
        return false;
    }
    return true;
}

const char *test_project_dir(void)
{
    return ".";
}

const char *test_corpus_dir(void)
{
    static const char *dir = "../shared/corpus";
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int test_corpus_archives(char *const **stems)
{
    static char **found;
    static int n = -1;
    if (n < 0) {
        n = 0;
        int cap = 0;
        DIR *d = test_corpus_dir() ? opendir(test_corpus_dir()) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len <= 4 || strcmp(e->d_name + len - 4, ".ref") != 0)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                found = ep_xrealloc(found, (size_t)cap * sizeof *found);
            }
            found[n++] = ep_xstrndup(e->d_name, len - 4);
        }
        if (d)
            closedir(d);
        if (n)
            qsort(found, (size_t)n, sizeof *found, cmp_str);
    }
    *stems = found;
    return n;
}

char *test_corpus_archive_path(const char *stem)
{
    const char *dir = test_corpus_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    char *found = NULL;
    size_t n = strlen(stem);
    while (d && (e = readdir(d)))
        if (!found && strncmp(e->d_name, stem, n) == 0 && e->d_name[n] == '.' && strcmp(e->d_name + n, ".ref") != 0)
            found = ep_xasprintf("%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    return found;
}

static char *slurp(int fd)
{
    StrBuf sb;
    sb_init(&sb);
    lseek(fd, 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sb_appendn(&sb, buf, (size_t)n);
    close(fd);
    return sb_take(&sb);
}

/* A temporary file holding text, opened for reading (unlinked already). */
static int temp_file(const char *text)
{
    char path[] = "/tmp/epdbg-test-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    if (fd >= 0 && text) {
        size_t len = strlen(text);
        if (write(fd, text, len) != (ssize_t)len) {
            close(fd);
            return -1;
        }
        lseek(fd, 0, SEEK_SET);
    }
    return fd;
}

static char *replay_scratch;

static void remove_replay_scratch(void)
{
    DIR *d = opendir(replay_scratch);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            char *p = ep_xasprintf("%s/%s", replay_scratch, e->d_name);
            remove(p);
            free(p);
        }
    if (d)
        closedir(d);
    rmdir(replay_scratch);
    free(replay_scratch);
}

RunResult test_run_binary(const char *const *args, const char *cwd, const char *stdin_text)
{
    const char *bin = getenv("EPDBG_BIN");
    if (!bin)
        bin = "./epdbg";
    /* a relative binary path must survive the chdir */
    char *abs_bin = bin[0] == '/' || !cwd ? ep_xstrdup(bin) : realpath(bin, NULL);
    int out = temp_file(NULL), errfd = temp_file(NULL), in = temp_file(stdin_text ? stdin_text : "");
    const char *argv[128];
    int n = 0;
    argv[n++] = abs_bin ? abs_bin : bin;
    for (int i = 0; args[i] && n < 127; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    /* failing runs save replay files (debugger/record.h): into cwd when the
    ** test chose one, else into a scratch folder, never the source tree */
    if (!cwd && !replay_scratch) {
        replay_scratch = test_tmpdir();
        atexit(remove_replay_scratch);
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (cwd)
            unsetenv("EPDBG_REPLAY_DIR");
        else
            setenv("EPDBG_REPLAY_DIR", replay_scratch, 1);
        dup2(in, 0);
        dup2(out, 1);
        dup2(errfd, 2);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    RunResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(errfd);
    close(in);
    free(abs_bin);
    return r;
}

void run_result_free(RunResult *r)
{
    free(r->out);
    free(r->err);
}

char *test_tmpdir(void)
{
    char tmpl[] = "/tmp/epdbg-test-XXXXXX";
    return ep_xstrdup(mkdtemp(tmpl));
}

Session *test_session_open(const char *path, const char *inputs, bool bind)
{
    SessionOptions so = {.model_path = path, .kernels = {.use_blas = true}};
    EpError err = {0};
    Session *s = session_open(&so, &err);
    ck_assert_msg(s != NULL, "%s: %s", path, err.msg);
    if (!bind)
        return s;
    InputArgs ia = {0};
    size_t len = inputs ? strlen(inputs) : 0;
    if (len > 4 && strcmp(inputs + len - 4, ".npy") == 0)
        input_args_add(&ia, inputs);
    else if (inputs)
        ia.npz = ep_xstrdup(inputs);
    Value *vals;
    int n;
    ck_assert_msg(inputs_load(session_interp(s), &ia, NULL, &vals, &n, &err) == EP_OK, "%s: %s", path, err.msg);
    input_args_free(&ia);
    session_set_inputs(s, vals, n);
    for (int i = 0; i < n; i++)
        value_clear(&vals[i]);
    free(vals);
    ck_assert_msg(session_restart(s, &err) == EP_OK, "%s: %s", path, err.msg);
    return s;
}
