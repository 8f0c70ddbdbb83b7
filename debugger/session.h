/*
** session.h -- the debugger session: one loaded program, its interpreter
** (with history, so the run can go backwards), the inputs it was started
** with, breakpoints, watches and displays, and the stepping commands that
** move through the graph and report why they stopped.
**
** The session knows nothing of terminals: the command layer (cmd*.c)
** turns text into these calls and the results into text, for the TUI and
** batch mode alike.
**
** Positions: the program counter names the next node to run.  A stop is
** "before" a node (a location breakpoint, a step) or "after" one (a
** breakpoint condition on its output, a NaN, a watched tensor changing);
** either way the node named is where the user is looking.
*/
#ifndef EP_SESSION_H
#define EP_SESSION_H

#include <signal.h>

#include "interp/interp.h"
#include "interp/srcinfo.h"
#include "node_table.h"
#include "profiler/profile.h"

typedef struct Session Session;
typedef struct BpCond BpCond;

typedef struct SessionOptions {
    const char *model_path;
    const char *model_name;   /* --model, or NULL */
    KernelConfig kernels;
    const char *const *source_dirs; /* where `list` looks for source files */
    int nsource_dirs;
} SessionOptions;

/* Open the program.  Nothing runs until inputs are set and the run
** restarted (a front end binds the user's --input files or the archive's
** examples, then calls session_restart). */
Session *session_open(const SessionOptions *opt, EpError *err);
/* The same over a model already open (opt->model_path is only its name):
** the session borrows it, so session_free leaves it to the caller, who
** frees it after every session over it.  A program that mutates buffers
** writes into the model, so sessions that must not see each other's runs
** need a model of their own (the command fuzzer shares one of mlp.pt2). */
Session *session_open_model(const SessionOptions *opt, Model *model, EpError *err);
void session_free(Session *s); /* NULL ok */

Model *session_model(const Session *s);
/* The options the session was opened with (kernels: BLAS or reference
** loops, for work such as `check numerics` that runs the program again). */
const SessionOptions *session_options(const Session *s);
Interp *session_interp(const Session *s);
int session_num_nodes(const Session *s);
/* The inputs the run was started with (borrowed; NULL before any). */
const Value *session_inputs(const Session *s, int *n);
/* Set the inputs used by `run`/`restart` (references are taken). */
void session_set_inputs(Session *s, const Value *inputs, int n);
/* Rebind user input i for the next `run`/`restart` (a reference is taken),
** keeping the others; inputs never given stay unset (V_NONE), and a
** restart names them until they are.  Its source becomes unknown. */
void session_set_input(Session *s, int i, const Value *v);
/* Where input i came from, for `info inputs`: "x.npy", "in.pt: inputs[1]",
** "the archive's example inputs"; NULL when not told.  Setting the inputs
** forgets their sources; a front end tells them after (copied). */
void session_set_input_source(Session *s, int i, const char *source);
const char *session_input_source(const Session *s, int i);
/* Whether the program's guards refused the inputs as they are now, at the
** last run or restart (they stay bound, as gdb keeps `run ARGS`). */
bool session_inputs_rejected(const Session *s);

/* ---- where nodes come from -------------------------------------------- */

/* The session's node table (node_table.h): node 0 <= node <
** session_num_nodes(s). */
const NodeInfo *session_node_info(const Session *s, int node);
/* A node by name, by "#N" (its index), by a value it defines or by unique
** prefix of its name; -1 if none (err says why: unknown or ambiguous). */
int session_find_node(const Session *s, const char *name, EpError *err);

/* ---- stopping ----------------------------------------------------------- */

typedef enum StopKind {
    STOP_NONE,
    STOP_START,      /* the run was (re)started: before node 0 */
    STOP_STEP,       /* a step/next/finish/until/goto finished */
    STOP_BREAKPOINT,
    STOP_NAN,        /* catch nan: a node's output is not finite */
    STOP_WATCH,      /* a watched tensor changed */
    STOP_END,        /* the program returned */
    STOP_ERROR,      /* a node failed */
    STOP_INTERRUPT,  /* session_interrupt() */
    STOP_BACK_START, /* going backwards reached node 0 */
} StopKind;

typedef struct Stop {
    StopKind kind;
    int node;        /* the node concerned (-1 at the end) */
    bool after;      /* the node has run (a condition, NaN or watch stop) */
    int breakpoint;  /* number of the breakpoint or watch that hit */
    char *detail;    /* what happened, for STOP_NAN, STOP_WATCH, STOP_ERROR */
    EpStatus error;  /* STOP_ERROR: the failure class */
} Stop;

/* The last stop (never NULL; STOP_NONE after open; STOP_ERROR with node
** -1 when binding the inputs failed, the message in detail). */
const Stop *session_last_stop(const Session *s);

/* Wall time node took when it last ran in this session, in seconds (-1 if
** it has not run): its kernel (or its subgraphs) only, as the session's
** profiler/node_timer measures it inside the interpreter -- not the
** stepping and progress callback around it.  What the TUI's profile pane
** shows until the sampling profiler exists. */
double session_node_seconds(const Session *s, int node);

/* Called while a moving command runs, about every 50 ms, with the node about
** to run: a front end shows progress there (and may call
** session_interrupt). */
typedef void (*SessionProgressFn)(void *ctx, int node, int nnodes);
void session_set_progress(Session *s, SessionProgressFn fn, void *ctx);

/* Ask a running command to stop at the next node (a SIGINT handler may call
** this: it only sets a flag). */
void session_interrupt(Session *s);

/* Each moves the run and sets the last stop.  Errors of the command itself
** (e.g. "the program has finished") are returned; a node failing is a stop
** (STOP_ERROR), not an error of the command. */
EpStatus session_restart(Session *s, EpError *err);          /* bind the inputs, stop at node 0 */
EpStatus session_run(Session *s, EpError *err);              /* restart, then continue */
EpStatus session_step(Session *s, int n, EpError *err);      /* n nodes */
EpStatus session_next(Session *s, int n, EpError *err);      /* over the rest of the module call */
EpStatus session_finish(Session *s, EpError *err);           /* until the module scope ends */
EpStatus session_continue(Session *s, int n, EpError *err);  /* to the n-th breakpoint hit */
EpStatus session_until(Session *s, int node, EpError *err);  /* run until node is next */
EpStatus session_goto(Session *s, int node, EpError *err);   /* forwards or backwards */
EpStatus session_reverse_step(Session *s, int n, EpError *err);
EpStatus session_reverse_continue(Session *s, EpError *err); /* back to a breakpoint or the start */

/* ---- breakpoints ----------------------------------------------------------- */

typedef enum BpKind {
    BP_NODE,    /* a node name */
    BP_REGEX,   /* /re/ on node names and op targets (PCRE2) */
    BP_SOURCE,  /* FILE:LINE or FILE:FUNC of any frame of the stack trace */
    BP_MODULE,  /* the first node of each call of an nn.Module path */
    BP_NAN,     /* any node whose output is not finite (catch nan) */
} BpKind;

typedef struct Breakpoint {
    int id;
    BpKind kind;
    char *where;    /* as given: "relu", "/add/", "mlp.py:21", "module fc1", "nan" */
    char *cond;     /* condition text, or NULL */
    BpCond *cond_parsed;
    bool enabled;
    bool temporary; /* tbreak: deleted when hit */
    int hits;
    int nmatch;     /* how many nodes the location matches */
    uint8_t *at;    /* per node: the location matches */
} Breakpoint;

/* Add a breakpoint from its text ("relu", "/re/", "f.py:12", "f.py:forward",
** "module encoder.layer0", "nan"; an optional " if COND" follows).  Fails
** with a message on a bad regex, condition or unknown location; a location
** matching no node is an error too.  Returns the new breakpoint. */
const Breakpoint *session_break(Session *s, const char *spec, bool temporary, EpError *err);
EpStatus session_delete(Session *s, int id, EpError *err); /* id -1: all */
EpStatus session_enable(Session *s, int id, bool enable, EpError *err);
int session_num_breakpoints(const Session *s);
const Breakpoint *session_breakpoint(const Session *s, int i);

/* Conditions: parsed once, evaluated on a node after it runs.
**   cond   := or ; or := and {'||' and} ; and := not {'&&' not}
**   not    := '!' not | cmp ; cmp := sum [('<'|'<='|'>'|'>='|'=='|'!=') sum]
**   sum    := prod {('+'|'-') prod} ; prod := unary {('*'|'/') unary}
**   unary  := '-' unary | NUMBER | '(' cond ')' | [VALUE '.'] PROP ['[' INT ']'] | DTYPE
**   VALUE  := out | outN | in | inN    (the node's outputs / tensor inputs; default out)
**   PROP   := nan inf finite max min abs_max mean std sum numel ndim shape dtype zeros
** e.g. "nan", "shape[0] > 8", "max > 1e3 && !in0.nan", "dtype == float16". */
BpCond *bpcond_parse(const char *text, EpError *err);
void bpcond_free(BpCond *c);
/* Evaluate on node (which has run) of ip; false on a missing value. */
bool bpcond_eval(const BpCond *c, const Interp *ip, int node);

/* ---- watches and displays ----------------------------------------------------- */

typedef struct Watch {
    int id;
    char *name;      /* as given */
    Tensor *target;  /* the parameter, buffer or user input (a reference) */
    Tensor *last;    /* its values when last checked */
    int hits;
} Watch;

/* Watch a parameter/buffer (placeholder name or FQN) or user input. */
const Watch *session_watch(Session *s, const char *name, EpError *err);
int session_num_watches(const Session *s);
const Watch *session_watch_at(const Session *s, int i);

/* Displays: expressions the front end prints at every stop. */
int session_display_add(Session *s, const char *expr);
EpStatus session_display_delete(Session *s, int id, EpError *err);
int session_num_displays(const Session *s);
const char *session_display(const Session *s, int i, int *id);

/* ---- values --------------------------------------------------------------------- */

/* The value of a graph name (node output, placeholder), a parameter/buffer
** FQN, or "NODE" for a node's first output; NULL if unknown or not computed
** yet (err says which). */
const Value *session_value(const Session *s, const char *name, EpError *err);

/* Replace the value session_value(name) finds with v (stolen): the edit a
** debugger's `set` makes before continuing.  Going back over the node that
** computed it, or restarting, drops the edit. */
EpStatus session_set_value(Session *s, const char *name, Value v, EpError *err);

/* Nodes whose output has NaN/Inf: which of node's tensor inputs were already
** non-finite, as "in0 (x): 3 NaN" lines (new string, caller frees). */
char *session_nonfinite_inputs(const Session *s, int node);

/* ---- profiling (profiler/profile.h) ------------------------------------------- */

/* Start profiling the nodes the session runs from now on (exact or
** sampling, opt NULL for the defaults): every step, continue and run is
** measured until session_profile_stop; each time node 0 starts counts as a
** new iteration.  EP_ERR_USAGE when already profiling; EP_ERR_EXEC when
** the system refuses the sampling timer. */
EpStatus session_profile_start(Session *s, const ProfileOptions *opt, EpError *err);
/* Stop measuring; the profile stays for session_profile.  EP_ERR_USAGE
** when not profiling. */
EpStatus session_profile_stop(Session *s, EpError *err);
bool session_profiling(const Session *s);
/* What the current (or the last stopped) profile measured, or NULL when
** nothing was ever profiled.  Owned by the session: valid until the next
** session call that runs nodes or starts, stops or reads a profile. */
const Profile *session_profile(Session *s);
/* Show p (taken, whatever happens) as the session's profile, as if it had
** been measured here: a profile read back from its JSON (`profile load`),
** a test's hand-made one.  EP_ERR_USAGE while profiling, or when p is not
** of this program (its node count or names differ). */
EpStatus session_profile_adopt(Session *s, Profile *p, EpError *err);

#endif
