/*
** record.h -- replay files: the exact inputs of a run, optionally every
** value it computed, and what went wrong, in one .npz that numpy can open.
**
** Members: one NAME.npy per user input (SymInt/SymFloat/SymBool inputs as
** 0-d arrays, bfloat16 widened to float32 as .npy requires), values/NAME.npy
** for recorded intermediates, and __epdbg__.npy, a uint8 array holding a
** small JSON object (the model, the program, the failure).  `epdbg run
** --inputs FILE.npz` reads the inputs back; `epdbg replay` reads it all.
*/
#ifndef EP_RECORD_H
#define EP_RECORD_H

#include "interp/interp.h"

/* What a replay file says about its run. */
typedef struct RecordMeta {
    char *model_path;   /* as given to epdbg */
    char *model_name;   /* PT2 program, or NULL */
    char *failure;      /* "input", "error", "nan", or NULL for a plain recording */
    char *node;         /* the failing node's name, or NULL */
    char *message;      /* the failure message as printed, or NULL */
    int status;         /* the exit status of the failure (0 if none) */
} RecordMeta;

void record_meta_free(RecordMeta *m);

/* Write path atomically: the user inputs of ip (inputs[0..n), in signature
** order), and with all_values every value ip still holds (a run with
** keep_values keeps them all).  meta may be NULL. */
EpStatus record_save(const char *path, const Interp *ip, const Value *inputs, int n, bool all_values,
                     const RecordMeta *meta, EpError *err);

/* Read the metadata of a replay file (a file without any gives an empty
** meta, not an error: any inputs .npz can be replayed). */
EpStatus record_load_meta(const char *path, RecordMeta *meta, EpError *err);

/* A free file name "<base>-replay.npz", "<base>-replay-2.npz", ... for the
** model at model_path, in $EPDBG_REPLAY_DIR when set (CI jobs collect
** replays there), else the current directory (new string). */
char *record_replay_name(const char *model_path);

#endif
