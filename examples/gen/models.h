/*
** models.h -- the example models and test fixtures the generator writes.
*/
#ifndef EP_MODELS_H
#define EP_MODELS_H

#include "progbuild.h"

/* core_aten: the decomposed core-ATen program of an older exporter (with
** arg0_1-style names) instead of the 2.11 training dialect. */
ProgBuilder *model_mlp(bool core_aten);
ProgBuilder *model_cnn(bool core_aten);

/* examples/{mlp,mlp_legacy,cnn,cnn_legacy}.pt2 into dir. */
EpStatus write_examples(const char *dir, EpError *err);
/* The test fixtures (tests/refs/README.md lists them) into dir. */
EpStatus write_fixtures(const char *dir, EpError *err);
/* The dynamic-shape fixtures (tests/src/dyn_fixtures.md), static and
** dynamic exports of each, into dir (examples/gen/fixtures_dynamic.c). */
EpStatus write_dyn_fixtures(const char *dir, EpError *err);
/* The PyTorch-issue fixtures (tests/src/issue_fixtures.md), likewise
** (examples/gen/fixtures_issues.c). */
EpStatus write_issue_fixtures(const char *dir, EpError *err);

#endif
