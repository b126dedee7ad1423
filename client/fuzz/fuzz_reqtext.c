/* libFuzzer target for reqtext.c. The first input byte picks the HTTP/2
 * options (scheme, a default authority or none) and a cut; the rest is the
 * text. Checked: the contract of tests/reqtext_check.h on the text and on a
 * prefix of it (count and parse agree, errors point inside the text, requests
 * in order and each parsing alone, header blocks valid), a valid text
 * repeated twice holds twice its requests, and the cache hits on the same
 * bytes. Any difference or sanitizer report is a crash. */
#include "../src/reqtext.c"

#include <stdlib.h>

#include "../tests/reqtext_check.h"

static void check(const char *text, size_t len, const struct reqtext_h2_opts *opts)
{
    char why[256];
    char *copy = malloc(len ? len : 1); /* exact size: ASan sees any read past the end */
    memcpy(copy, text, len);
    if (!reqtext_check(copy, len, opts, why, sizeof why)) {
        fprintf(stderr, "reqtext contract: %s\n", why);
        abort();
    }
    free(copy);
}

static void check_twice(const char *text, size_t len, size_t count)
{
    char *twice = malloc(2 * len);
    memcpy(twice, text, len);
    memcpy(twice + len, text, len);
    if (reqtext_count(twice, 2 * len, NULL) != 2 * count) abort();
    free(twice);
}

static void check_cache(const char *text, size_t len, const struct reqtext_h2_opts *opts)
{
    struct reqtext_cache cache;
    reqtext_cache_init(&cache, opts);
    struct reqtext_set *first = reqtext_cache_get(&cache, text, len, NULL);
    if (first && reqtext_cache_get(&cache, text, len, NULL) != first) abort();
    reqtext_cache_free(&cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const authorities[4] = {NULL, "", "d.test", "[::1]:8443"};
    if (size < 1) return 0;
    struct reqtext_h2_opts opts = {data[0] & 1 ? "https" : "http", authorities[(data[0] >> 1) & 3]};
    const char *text = (const char *)data + 1;
    size_t len = size - 1, cut = len ? (size_t)(data[0] >> 3) * 7919 % (len + 1) : 0;
    check(text, len, &opts);
    check(text, cut, &opts);
    size_t count = reqtext_count(text, len, NULL);
    if (count) check_twice(text, len, count);
    check_cache(text, len, &opts);
    return 0;
}
