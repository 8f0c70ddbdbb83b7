/*
** picklewrite.h -- writing torch.save files: a protocol-2 pickle of
** containers and tensors (as torch._utils._rebuild_tensor_v2 with
** persistent storage ids) plus the data/<key> storage records, in the zip
** layout torch.save produces.  Used by the generator (weights, example
** inputs, fixtures) and by the debugger's `dump NAME FILE.pt`.
*/
#ifndef EP_PICKLEWRITE_H
#define EP_PICKLEWRITE_H

#include "tensor.h"

typedef enum PwKind { PW_NONE, PW_BOOL, PW_INT, PW_FLOAT, PW_STR, PW_TUPLE, PW_LIST, PW_DICT, PW_TENSOR } PwKind;

typedef struct PwObj {
    PwKind kind;
    bool b;
    int64_t i;
    double f;
    char *s;
    int n;
    struct PwObj **items; /* dict: key, value, key, value ... */
    Tensor *t;            /* owned reference */
    bool is_parameter;
} PwObj;

PwObj *pw_none(void);
PwObj *pw_bool(bool b);
PwObj *pw_int(int64_t i);
PwObj *pw_float(double f);
PwObj *pw_str(const char *s);
PwObj *pw_tensor(Tensor *t, bool is_parameter); /* takes a new reference on t */
PwObj *pw_tuple(int n, PwObj **items);          /* steals the items */
PwObj *pw_list(int n, PwObj **items);
PwObj *pw_dict(void);
void pw_dict_set(PwObj *d, const char *key, PwObj *value); /* steals value */
void pw_free(PwObj *o);

/* The bytes of a torch.save zip holding root, under folder root_name
** ("archive" for in-memory saves).  Caller frees. */
char *torchsave_bytes(const PwObj *root, const char *root_name, size_t *len);
/* Write root to path as torch.save does to a file: the records' folder is
** the file name without its extension. */
EpStatus torchsave_save_file(const char *path, const PwObj *root, EpError *err);

#endif
