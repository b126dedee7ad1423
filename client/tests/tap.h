/* tap: minimal TAP output for the C unit tests (run-tests.sh counts the lines). */
#ifndef BARRAGE_TAP_H
#define BARRAGE_TAP_H

#include <stdio.h>

static int tap_failures;

/* Prints "ok - NAME" or "not ok - NAME"; returns cond. */
#define TAP_CHECK(cond, ...)                                  \
    do {                                                      \
        int tap_ok_ = (cond);                                 \
        if (!tap_ok_) tap_failures++;                         \
        printf("%s - ", tap_ok_ ? "ok" : "not ok");           \
        printf(__VA_ARGS__);                                  \
        printf("\n");                                         \
    } while (0)

#define TAP_EXIT() return tap_failures ? 1 : 0

#endif
