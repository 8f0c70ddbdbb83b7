/*
** archive.h -- a .pt2 file opened as a Model: the exported program, its
** weights and constants, and its stored sample inputs, from either layout:
**
**   legacy flat zip (PyTorch 2.1-2.7): serialized_exported_program.json,
**     serialized_state_dict.{json,pt}, serialized_constants.{json,pt},
**     serialized_example_inputs.pt, version
**   PT2 archive (2.8+): <root>/archive_format = "pt2", models/<name>.json,
**     data/weights/<name>.pt or <name>_weights_config.json + weight_N,
**     data/constants/..., data/sample_inputs/<name>.pt, extra/...
**
** AOTInductor packages (compiled code, no exported program) and plain
** torch.save files are refused with a message saying what they are.
*/
#ifndef EP_ARCHIVE_H
#define EP_ARCHIVE_H

#include "pickle.h"
#include "program.h"
#include "zipread.h"

typedef struct Weight {
    Tensor *t;          /* owned reference */
    bool is_param;
} Weight;

typedef struct Model {
    char *path;
    ZipArchive *zip;
    bool is_pt2;            /* PT2 archive, else legacy flat zip */
    char *root;             /* "" or "linear_3/" */
    char *layout;           /* human description of the layout */
    char *name;             /* the chosen program ("model") */
    int nmodels;
    char **models;          /* every program name in a PT2 archive */
    char *format_version;   /* legacy `version` or PT2 `archive_version` */
    ExportedProgram *ep;
    StrMap weights;         /* FQN -> Weight* (state dict: parameters, buffers) */
    StrMap constants;       /* FQN -> Weight* (lifted constants, non-persistent buffers) */
    PyObj *sample_inputs;   /* the stored (args, kwargs), or NULL */
    int nextra;
    char **extra_files;     /* names of user extra files */
    bool weights_in_place;  /* every weight viewed in the mapped file */
    /* Weights that could not be viewed in place: each its own storage and
    ** why; a stored record is read when model_weight first hands it out,
    ** so opening (and `epdbg info`) reads no weight bytes. */
    ZipCopies copies;
    char *fill_error; /* why reading a copied record failed, or NULL */
} Model;

/* Open path and load program `model_name` (NULL: "model", or the only one).
** Errors: EP_ERR_FORMAT, naming the file and the member or JSON path. */
EpStatus model_open(const char *path, const char *model_name, Model **out, EpError *err);
void model_free(Model *m); /* NULL ok */
/* The names of the programs in the archive at path, in archive order: a new
** array of *n new strings (a legacy archive has one, "model").  Errors as
** model_open's for a file that is not an exported program. */
EpStatus model_list_programs(const char *path, char ***names, int *n, EpError *err);

/* The tensor of a parameter/buffer (state dict) or a constant, or NULL
** (borrowed), its bytes read if it is a copy not read yet.  NULL also when
** that read fails: m->fill_error says why. */
Tensor *model_weight(const Model *m, const char *fqn);
Tensor *model_constant(const Model *m, const char *fqn);
/* The same without reading anything: for the metadata only (a copy's
** bytes may not be there yet). */
const Tensor *model_weight_peek(const Model *m, const char *fqn);
const Tensor *model_constant_peek(const Model *m, const char *fqn);
/* Why the tensor's bytes are a copy rather than viewed in the archive, or
** NULL. */
const char *model_copy_reason(const Model *m, const Tensor *t);

/* Bytes of all weights and constants (distinct storages counted once). */
size_t model_weight_bytes(const Model *m);

#endif
