/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What both unit-test programs share: a fatal signal names the test it ended. CUnit says
 * nothing while its tests run, and a crash loses what stdout buffered, so a crash in CI
 * once said only that the program "ended badly after 0 passed checks".
 */
#ifndef UNIT_H
#define UNIT_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

static void unit_crashed(int sig)
{
    CU_pTest t = CU_get_current_test();
    const char *name = t && t->pName ? t->pName : "(between tests)";
    const char *what = sig == SIGSEGV   ? "SIGSEGV"
                       : sig == SIGBUS  ? "SIGBUS"
                       : sig == SIGFPE  ? "SIGFPE"
                       : sig == SIGALRM ? "SIGALRM (a test hung)"
                                        : "SIGABRT";
    /* (write: nothing else is safe in a signal handler) */
    const char *parts[] = {"\nunit test crashed: ", what, " in test '", name, "'\n"};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0)
            break;
    signal(sig, SIG_DFL);
    raise(sig);
}

/** Before the tests run: stdout by lines, and a fatal signal named with its test. */
static inline void unit_watch_crashes(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGALRM};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], unit_crashed);
}

/** After the run: a line a test, PASS or FAIL with its suite and name, which the suite's
 *  summary counts. */
static inline void unit_report_each(void)
{
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            int failed = 0;
            for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext)
                failed |= f->pTest == t;
            printf("%s: unit/%s/%s\n", failed ? "FAIL" : "PASS", s->pName, t->pName);
        }
    }
}

/** One test of a suite: its name, its function. */
typedef struct {
    const char *name;
    CU_TestFunc fn;
} unit_test_t;

/** Runs the @p n tests of @p suite, prints a line for each (unit_report_each) and returns the
 *  program's exit status: 0 when all passed, 1 when one failed, 2 when CUnit could not
 *  start. */
static inline int unit_run(const char *suite, const unit_test_t *tests, size_t n)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite(suite, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        CU_add_test(s, tests[i].name, tests[i].fn);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unit_report_each();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}

#endif
