/*
** refcheck.h -- compare an archive's outputs with reference .npy files.
*/
#ifndef EP_REFCHECK_H
#define EP_REFCHECK_H

#include "interp/interp.h"
#include "testutil.h"

/* Files prefix0.npy, prefix1.npy, ... present in dir. */
int ref_count_files(const char *dir, const char *prefix);

/* An array from a reference file as the value input u expects (a tensor
** referenced, or a Python number). */
Value ref_input_value(const UserInput *u, Tensor *t, EpError *err);

/* Run archive (program model_name, NULL for the default) on refdir/in*.npy
** and compare every user output with refdir/out*.npy at the corpus
** tolerances.  On failure writes what differed into msg. */
bool ref_check(const char *archive, const char *model_name, const char *refdir, const KernelConfig *kcfg,
               char *msg, size_t cap);

#endif
