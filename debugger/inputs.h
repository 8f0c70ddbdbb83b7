/*
** inputs.h -- the program's user inputs from files: the --input/--inputs
** options of `epdbg run` and of the debugger, the debugger's `run --input
** ...`, and `set NAME = FILE`.
**
** A file's format is told by its content, never by its name: numpy's .npy
** magic; a zip holding <root>/data.pkl is a torch.save file (read by the
** pickle reader that executes nothing); any other zip is an .npz.  A
** torch.save file may hold a tensor or number, a tuple or list of them (in
** signature order), a dict by argument name, or an (args, kwargs) pair as
** torch.export stores example inputs.  A folder holds in0.npy, in1.npy, ...
** or NAME.npy (or .pt).
**
** An input is named by its placeholder or by the argument name of the
** user's forward when they differ (interp_find_user_input).
*/
#ifndef EP_INPUTS_H
#define EP_INPUTS_H

#include "interp/interp.h"

/* Input options in the order given. */
typedef struct InputArgs {
    int n;
    char **specs;     /* "FILE" or "NAME=FILE" */
    char *npz;        /* --inputs FILE|DIR, or NULL */
} InputArgs;

void input_args_add(InputArgs *a, const char *spec);
/* --inputs FILE|DIR: replaces an earlier one. */
void input_args_set_all(InputArgs *a, const char *path);
void input_args_free(InputArgs *a);
bool input_args_empty(const InputArgs *a);
/* Parse input options from words ("--input F --input NAME=F --inputs F",
** also `--input=F`), as the debugger's `run` takes them.  Appends to a. */
EpStatus input_args_parse(const char *text, InputArgs *a, EpError *err);

/* The name a user gives input i in a command: the forward's argument name
** (x for l_x_), else the placeholder.  Borrowed. */
const char *inputs_user_name(const Interp *ip, int i);
/* What to type to give inputs ("`run --input x=FILE`, or `set x = FILE`";
** NAME for a program of several inputs; with full_screen the TUI's
** `:run`, `:set`).  A new string. */
char *inputs_how_to_give(const Interp *ip, bool full_screen);
/* "x (l_x_)" when the argument name differs from the placeholder, else
** "x": how messages name input i.  A new string. */
char *inputs_display_name(const Interp *ip, int i);

/* Build the user inputs for ip from the options.  Inputs the options do
** not give keep their value in keep (the current inputs, n of them; V_NONE
** entries count as unset), or, with keep NULL and no options at all, come
** from the archive's stored example inputs.  Positional files bind in
** signature order from the first input not named.  Returns a new array
** of values in signature order (caller clears each and frees).  Converts a float32
** array given for a bfloat16 input (numpy has no bfloat16) and 0-d arrays
** or numbers for SymInt/SymFloat/SymBool inputs. */
EpStatus inputs_load(const Interp *ip, const InputArgs *a, const Value *keep, Value **vals, int *n, EpError *err);
/* inputs_load, also telling where each value came from: (*sources)[i] is
** "FILE", "FILE:NAME" (an .npz entry), "FILE: inputs[1]" (in a torch.save
** file) or "the archive's example inputs", and NULL for a value kept from
** keep.  sources may be NULL; free it with inputs_sources_free. */
EpStatus inputs_load_traced(const Interp *ip, const InputArgs *a, const Value *keep, Value **vals, char ***sources,
                            int *n, EpError *err);
void inputs_sources_free(char **sources, int n);
/* The value of user input idx from a file holding one array or number. */
EpStatus inputs_load_one(const Interp *ip, int idx, const char *path, Value *out, EpError *err);
/* One array from a file of any of the formats (.npy; an .npz or torch.save
** file holding exactly one tensor).  A new reference or NULL + err. */
Tensor *inputs_load_array(const char *path, EpError *err);

#endif
