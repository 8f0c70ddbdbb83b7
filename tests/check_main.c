/*
** check_main.c -- runs every Check suite of tests/ (the list is generated
** from the "Suite *suite_NAME(void)" definitions by the Makefile).
**
** EPDBG_NO_PEAKS=1 is set for every suite (profiler/cost.h).
** Set CK_FORK=no to debug a failing test in gdb; CK_RUN_SUITE=name to run
** one suite.
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "interp/ops.h"

#define SUITE(fn) Suite *fn(void);
#include "suites.inc"
#undef SUITE

int main(void)
{
    /* profiles made by the suites do not measure this machine's peaks (0.3 s
    ** each, and a cache written into the user's home); test_cost measures
    ** them on purpose, in a cache folder of its own */
    setenv("EPDBG_NO_PEAKS", "1", 1);
    EpError err = {0};
    if (ops_init(&err) != EP_OK) {
        fprintf(stderr, "ops_init: %s\n", err.msg);
        return 1;
    }
    SRunner *sr = srunner_create(NULL);
#define SUITE(fn) srunner_add_suite(sr, fn());
#include "suites.inc"
#undef SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    ops_shutdown();
    return failed == 0 ? 0 : 1;
}
