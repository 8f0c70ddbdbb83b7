/*
** prerun.h -- the checks a program's nodes impose on its input sizes
** beyond the guards the exporter recorded (issue 11: "a dimension that
** passes every guard but would make a node fail is reported before
** running").  torch.export lets `arange(x.shape[0])` into an embedding of
** 8 rows through with s0 in [2, 64]; the shape rules (shape_prop.h) find
** that node needs s0 <= 8.  interp_bind evaluates these conditions with the
** symbols the inputs bound, after the guards pass, and refuses a size that
** would make a node fail, naming the input dimension, the bound, the node
** and its source line.
*/
#ifndef EP_PRERUN_H
#define EP_PRERUN_H

#include "guards.h"
#include "interp.h"

typedef struct PrerunChecks PrerunChecks;

/* The BOUND and RELATION conditions of ep's shape propagation, computed
** once (the recorded input shapes, which are symbolic where the export made
** them dynamic).  Never fails: a program whose propagation fails yields no
** checks (propagation is an aid here, never a reason to refuse). */
PrerunChecks *prerun_checks_new(const ExportedProgram *ep);
void prerun_checks_free(PrerunChecks *pc); /* NULL ok */
int prerun_checks_count(const PrerunChecks *pc);

/* Evaluate every condition whose symbols b binds; the first that is false
** fails with EP_ERR_INPUT: "input x.shape[0] is 9: it passes the program's
** guards (s0 in [2, 64]) but node 3 'embedding' (aten.embedding.default)
** at f.py:15 in forward: ... needs s0 <= 8 (embedding index below the
** rows)".  A condition with an unbound (data-dependent) symbol, or one that
** cannot be evaluated, is left to the run.  g says where a symbol no input
** dimension states comes from. */
EpStatus prerun_checks_run(const PrerunChecks *pc, const Interp *ip, const Guards *g, const SymBindings *b,
                           EpError *err);

#endif
