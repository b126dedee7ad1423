/* expect: --expect-status and a flow's `expect LIST` (contract in expect.h). */
#include "expect.h"

#include <stdio.h>
#include <string.h>

static void expect_add(struct expect_status *set, int lo, int hi)
{
    for (int s = lo; s <= hi; s++) set->bits[s / 64] |= (uint64_t)1 << (s % 64);
}

/* One item: "204" or "2xx" (x in any case); false when it is neither. */
static bool expect_item(struct expect_status *set, const char *s, size_t len)
{
    if (len != 3 || s[0] < '1' || s[0] > '5') return false;
    int hundreds = s[0] - '0';
    if ((s[1] == 'x' || s[1] == 'X') && (s[2] == 'x' || s[2] == 'X')) {
        expect_add(set, hundreds * 100, hundreds * 100 + 99);
        return true;
    }
    if (s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9') return false;
    int code = hundreds * 100 + (s[1] - '0') * 10 + (s[2] - '0');
    expect_add(set, code, code);
    return true;
}

int expect_status_parse(struct expect_status *set, const char *text, size_t len, char *why, size_t whylen)
{
    memset(set, 0, sizeof *set);
    size_t at = 0;
    do {
        size_t end = at;
        while (end < len && text[end] != ',') end++;
        size_t a = at, b = end;
        while (a < b && (text[a] == ' ' || text[a] == '\t')) a++;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t')) b--;
        if (!expect_item(set, text + a, b - a)) {
            snprintf(why, whylen, "'%.*s' is neither a status code (100-599) nor a class such as 2xx",
                     (int)(b - a > 40 ? 40 : b - a), text + a);
            memset(set, 0, sizeof *set);
            return -1;
        }
        at = end + 1;
    } while (at <= len);
    return 0;
}
