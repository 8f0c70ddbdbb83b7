/*
** cli_run.c -- `epdbg run MODEL.pt2 [--input ...] [--inputs F.npz]
** [--outputs DIR] [--model NAME] [--no-blas] [--stop-on-nan] [--record F]
** [--record-all] [--shadow-fp64]`: run the program once and report (and
** optionally save) its outputs.  A run that fails saves its inputs to a
** replay file (debugger/record.h) and prints the command that replays it.
*/
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/npy.h"
#include "debugger/format.h"
#include "debugger/numerics.h"
#include "debugger/record.h"

static const char RUN_USAGE[] =
    "usage: epdbg run MODEL.pt2 [--input FILE]... [--input NAME=FILE]... [--inputs FILE|DIR]\n"
    "                 [--outputs DIR] [--model NAME] [--no-blas]\n"
    "                 [--stop-on-nan] [--record FILE.npz [--record-all]] [--shadow-fp64]\n"
    "  Positional --input files bind the user inputs in signature order; with no inputs the\n"
    "  archive's stored example inputs are used; --inputs DIR reads DIR/in0.npy, in1.npy, ...\n"
    "  Files are .npy, .npz or torch.save (.pt: a tensor, a tuple or list, a dict by name).\n"
    "  --outputs writes DIR/out0.npy, out1.npy, ...\n"
    "  --stop-on-nan   fail at the first node whose output has NaN or Inf (keeps every value)\n"
    "  --record F.npz  save the inputs (--record-all: and every value computed) to replay\n"
    "  --shadow-fp64   also run every floating node in float64 and report where float32 departs\n"
    "  --timeout S     stop at the first node boundary after S seconds (exit 4, inputs saved)\n"
    "  Ctrl-C stops at the next node boundary too (exit 130, inputs saved).\n"
    "  A failing run saves its inputs to MODEL-replay.npz here; `epdbg replay` re-runs them.\n";

/* Set by SIGINT or the --timeout alarm; the run loop reads it between
** nodes (a handler touching one flag, as lj_profile's does). */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static EpStatus make_dirs(const char *dir, EpError *err)
{
    char *p = ep_xstrdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(p, 0777);
        *s = '/';
    }
    int r = mkdir(p, 0777);
    free(p);
    struct stat st;
    if (r != 0 && (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return ep_fail(err, EP_ERR_USAGE, "--outputs %s: cannot create the folder: %s", dir, strerror(errno));
    return EP_OK;
}

int cli_run(int argc, char **argv)
{
    const char *path = NULL, *model_name = NULL, *out_dir = NULL, *record_path = NULL;
    long timeout = 0;
    bool stop_on_nan = false, record_all = false, shadow_fp64 = false;
    InputArgs inputs = {0};
    InterpOptions opt = INTERP_OPTIONS_DEFAULT;
    int rc = EP_OK;
    for (int i = 0; i < argc && rc == EP_OK; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--input") == 0 && has_value) {
            input_args_add(&inputs, argv[++i]);
        } else if (strcmp(a, "--inputs") == 0 && has_value) {
            if (inputs.npz) {
                fprintf(stderr, "epdbg run: --inputs is given twice\n");
                rc = EP_ERR_USAGE;
            } else {
                input_args_set_all(&inputs, argv[++i]);
            }
        } else if (strcmp(a, "--outputs") == 0 && has_value) {
            out_dir = argv[++i];
        } else if (strcmp(a, "--model") == 0 && has_value) {
            model_name = argv[++i];
        } else if (strcmp(a, "--no-blas") == 0) {
            opt.kernels.use_blas = false;
        } else if (strcmp(a, "--stop-on-nan") == 0) {
            stop_on_nan = true;
        } else if (strcmp(a, "--record") == 0 && has_value) {
            record_path = argv[++i];
        } else if (strcmp(a, "--record-all") == 0) {
            record_all = true;
        } else if (strcmp(a, "--timeout") == 0 && has_value) {
            char *end;
            timeout = strtol(argv[++i], &end, 10);
            if (*end || timeout <= 0 || timeout > 86400 * 365) {
                fprintf(stderr, "epdbg run: --timeout %s: expected a whole number of seconds, 1 or more\n", argv[i]);
                rc = EP_ERR_USAGE;
            }
        } else if (strcmp(a, "--shadow-fp64") == 0) {
            shadow_fp64 = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(RUN_USAGE, stdout);
            input_args_free(&inputs);
            return EP_OK;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "epdbg run: unknown option or missing value: %s\n%s", a, RUN_USAGE);
            rc = EP_ERR_USAGE;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "epdbg run: one model at a time (got %s and %s)\n", path, a);
            rc = EP_ERR_USAGE;
        }
    }
    if (rc == EP_OK && !path) {
        fputs(RUN_USAGE, stderr);
        rc = EP_ERR_USAGE;
    }
    if (rc == EP_OK && record_all && !record_path) {
        fprintf(stderr, "epdbg run: --record-all goes with --record FILE.npz\n");
        rc = EP_ERR_USAGE;
    }
    if (rc) {
        input_args_free(&inputs);
        return rc;
    }
    /* --stop-on-nan keeps the values so the report can say which inputs of
    ** the node were already non-finite, as the debugger does */
    opt.keep_values = stop_on_nan || record_all;
    EpError err = {0};
    Model *m = NULL;
    Interp *ip = NULL;
    Value *vals = NULL;
    int nvals = 0;
    rc = model_open(path, model_name, &m, &err);
    if (rc == EP_OK) {
        ip = interp_new(m, &opt, &err);
        if (!ip)
            rc = err.code ? err.code : EP_ERR_FORMAT;
    }
    if (rc == EP_OK && (rc = inputs_load(ip, &inputs, NULL, &vals, &nvals, &err)) && input_args_empty(&inputs)) {
        size_t len = strlen(err.msg);
        if (interp_num_user_inputs(ip) == 1)
            snprintf(err.msg + len, sizeof err.msg - len, "Pass it with --input FILE (.npy, .npz or torch.save .pt).");
        else
            snprintf(err.msg + len, sizeof err.msg - len, "Pass them with --input FILE (in this order) or --input "
                     "NAME=FILE (.npy, .npz or torch.save .pt), or all at once with --inputs FILE|DIR.");
    }
    /* from here on a failure is the program's: its inputs are worth saving */
    RecordMeta failure = {0};
    /* a copy: the replay file and the float64 shadow need the inputs as
    ** given, whatever the program writes into them */
    if (rc == EP_OK && (rc = interp_bind_copy(ip, vals, nvals, &err)))
        failure.failure = ep_xstrdup("input");
    struct sigaction sa = {.sa_handler = on_stop}, old_int, old_alrm;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGALRM, &sa, &old_alrm);
    if (timeout)
        alarm((unsigned)timeout);
    while (rc == EP_OK && !interp_finished(ip)) {
        int node = interp_pc(ip);
        char *detail = NULL;
        if (stop_signal) {
            char *where = interp_describe_node(ip, node);
            if (stop_signal == SIGALRM)
                rc = ep_fail(&err, EP_ERR_EXEC, "--timeout %ld s reached before %s; the run stopped there", timeout,
                             where);
            else
                rc = ep_fail(&err, 128 + SIGINT, "interrupted (Ctrl-C) before %s; the run stopped there", where);
            free(where);
            failure.failure = ep_xstrdup(stop_signal == SIGALRM ? "timeout" : "interrupt");
            failure.node = ep_xstrdup(interp_node(ip, node)->name);
        } else if ((rc = interp_step(ip, &err))) {
            failure.failure = ep_xstrdup("error");
            failure.node = ep_xstrdup(interp_node(ip, node)->name);
        } else if (stop_on_nan && interp_node_nonfinite(ip, node, &detail)) {
            char *where = interp_describe_node(ip, node);
            size_t dl = strlen(detail);
            rc = ep_fail(&err, EP_ERR_EXEC, "non-finite values at %s:\n%.*s", where,
                         (int)(dl && detail[dl - 1] == '\n' ? dl - 1 : dl), detail);
            free(where);
            failure.failure = ep_xstrdup("nan");
            failure.node = ep_xstrdup(interp_node(ip, node)->name);
            failure.message = detail; /* as the debugger's catch nan reports it */
        }
    }
    alarm(0);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGALRM, &old_alrm, NULL);
    if (rc && failure.failure) {
        EpError serr = {0};
        char *file = record_path ? ep_xstrdup(record_path) : record_replay_name(path);
        failure.model_path = ep_xstrdup(path);
        failure.model_name = model_name ? ep_xstrdup(model_name) : NULL;
        if (!failure.message)
            failure.message = ep_xstrdup(err.msg);
        failure.status = rc;
        fprintf(stderr, "epdbg: %s\n", err.msg);
        if (interp_check_supported(ip, &serr) != EP_OK && strstr(serr.msg, "more nodes cannot run"))
            fprintf(stderr, "note: %s\n", serr.msg);
        if (record_save(file, ip, vals, nvals, record_all, &failure, &serr) == EP_OK)
            fprintf(stderr, "epdbg: the inputs are saved; replay with:\n  epdbg replay %s %s%s%s\n", file, path,
                    model_name ? " --model " : "", model_name ? model_name : "");
        else
            fprintf(stderr, "epdbg: could not save the inputs for replay: %s\n", serr.msg);
        free(file);
        record_meta_free(&failure);
        ep_error_clear(&err);
        goto done;
    }
    record_meta_free(&failure);
    if (rc == EP_OK && record_path) {
        RecordMeta meta = {.model_path = (char *)path, .model_name = (char *)model_name};
        rc = record_save(record_path, ip, vals, nvals, record_all, &meta, &err);
        if (rc == EP_OK)
            fprintf(stderr, "epdbg: recorded the inputs%s in %s\n", record_all ? " and every value" : "",
                    record_path);
    }
    if (rc == EP_OK && out_dir)
        rc = make_dirs(out_dir, &err);
    for (int i = 0; rc == EP_OK && i < interp_num_user_outputs(ip); i++) {
        const Value *v = interp_user_output(ip, i);
        char *d = format_value_stats(v);
        const char *name = interp_user_output_name(ip, i);
        printf("out%d %s: %s\n", i, name ? name : "(literal)", d);
        free(d);
        if (out_dir) {
            Tensor *t = value_to_array(v, &err);
            char *file = ep_xasprintf("%s/out%d.npy", out_dir, i);
            rc = t ? npy_save_file(file, t, &err) : EP_ERR_EXEC;
            free(file);
            tensor_unref(t);
        }
    }
    if (rc == EP_OK && shadow_fp64) {
        NumericsOptions nopt = NUMERICS_OPTIONS_DEFAULT;
        nopt.kernels = opt.kernels;
        printf("\n");
        rc = numerics_shadow_print(stdout, m, vals, nvals, &nopt, NULL, &err);
    }
    if (rc)
        fprintf(stderr, "epdbg: %s\n", err.msg);
done:
    for (int i = 0; i < nvals; i++)
        value_clear(&vals[i]);
    free(vals);
    interp_free(ip);
    model_free(m);
    input_args_free(&inputs);
    return rc;
}
