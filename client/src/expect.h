/* expect: the statuses a response may have, as `expect 200,201` in a flow
 * (flow.h) and --expect-status LIST write them: codes (100-599) and classes
 * such as 2xx, comma-separated. Plain data, no I/O, no allocation. */
#ifndef BARRAGE_EXPECT_H
#define BARRAGE_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One bit per status code 0..599. */
struct expect_status {
    uint64_t bits[10];
};

/* Parses text (len bytes, no NUL needed) into *set: 0, or -1 with the reason
 * in why ("'2yx' is neither a status code (100-599) nor a class such as 2xx"). */
int expect_status_parse(struct expect_status *set, const char *text, size_t len, char *why, size_t whylen);

/* Whether status is in the set (any status outside 100-599 is not). */
static inline bool expect_status_has(const struct expect_status *set, int status)
{
    return status >= 100 && status < 600 && (set->bits[status / 64] >> (status % 64) & 1);
}

#endif
