/*
** testutil.h -- helpers shared by the Check suites: tolerances, tensor
** comparison with a readable report, and paths to test data.
*/
#ifndef EP_TESTUTIL_H
#define EP_TESTUTIL_H

#include <check.h>

#include "interp/tensor.h"

/* Tolerances of the reference corpus (../shared/corpus/README.md) for a
** dtype: float32 rtol 1e-4 atol 1e-5, float64 1e-10, float16 1e-3,
** bfloat16 8e-3; integers and bools exact (0, 0). */
void tolerance_for(DType t, double *rtol, double *atol);

/* Compare got with ref: same shape, dtype (a bfloat16 result matches a
** float32 reference, which is how .npy stores bfloat16), and values with
** |got - ref| <= atol + rtol*|ref| (NaN equals NaN, infinities exact).
** rtol/atol < 0 pick tolerance_for(ref dtype).  On mismatch writes a short
** report into msg and returns false. */
bool tensors_close(const Tensor *got, const Tensor *ref, double rtol, double atol, char *msg, size_t cap);

/* Root of the project (from the test binary's working directory). */
const char *test_project_dir(void);
/* ../shared/corpus when present, else NULL. */
const char *test_corpus_dir(void);
/* The corpus archives that have a reference folder: the stems of its
** <stem>.ref folders, sorted (borrowed; 0 without the corpus).  Archives
** are found by their .ref folders because one is not named .pt2. */
int test_corpus_archives(char *const **stems);
/* The archive file beside stem's .ref folder (new string), or NULL. */
char *test_corpus_archive_path(const char *stem);

/* The epdbg binary run as users run it: $EPDBG_BIN (the build variant
** under test), else ./epdbg. */
typedef struct RunResult {
    int code;        /* exit status, or 128 + signal */
    char *out, *err; /* everything written to stdout and stderr */
} RunResult;

/* Run the binary with args (NULL-terminated) in cwd (NULL: the current
** directory), feeding stdin_text (NULL: an empty stdin). */
RunResult test_run_binary(const char *const *args, const char *cwd, const char *stdin_text);
void run_result_free(RunResult *r);

/* A debugger session on path, stopped before node 0 with its inputs bound:
** inputs NULL for the archive's examples, else a .npy file (the one user
** input), an .npz or a folder (as --inputs).  bind false: opened only.  A
** failure fails the test. */
typedef struct Session Session;
Session *test_session_open(const char *path, const char *inputs, bool bind);

/* A new empty temporary folder (caller frees the name; the folder stays). */
char *test_tmpdir(void);

/* Prototypes of every suite (the list the Makefile generates). */
#define SUITE(fn) Suite *fn(void);
#include "suites.inc"
#undef SUITE

#endif
