/* libFuzzer target for regexgen.c: any bytes as a pattern. A pattern that
 * compiles draws strings no longer than its maximum, of visible ASCII only,
 * the same for the same seed; as request targets (opts.target, bit 1 of the
 * size) each starts with '/' and holds only url_target_char bytes and "%HH". Any difference or sanitizer report is a crash. */
#include "../src/regexgen.c"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *pattern = malloc(size + 1);
    memcpy(pattern, data, size);
    pattern[size] = '\0';
    char err[256];
    /* the options from the size, so that the corpus keeps its meaning */
    const struct regexgen_opts opts = {.max_repeat = (unsigned)(size % 17), .literal_dot = size & 1,
                                      .target = (size & 2) != 0};
    struct regexgen *g = regexgen_new_opts(pattern, &opts, err, sizeof err);
    if (g) {
        size_t max = regexgen_max_len(g);
        char *a = malloc(max + 1), *b = malloc(max + 1);
        struct rng r1, r2;
        rng_seed(&r1, size), rng_seed(&r2, size);
        for (int i = 0; i < 4; i++) {
            size_t la = regexgen_generate(g, &r1, a), lb = regexgen_generate(g, &r2, b);
            if (la > max || la != lb || memcmp(a, b, la)) abort();
            for (size_t k = 0; k < la; k++)
                if (a[k] < 0x21 || a[k] > 0x7e) abort();
            if (opts.target && (la == 0 || a[0] != '/')) abort();
            for (size_t k = 0; opts.target && k < la; k++) {
                if (url_target_char((unsigned char)a[k])) continue;
                if (a[k] != '%' || k + 2 >= la || hex(a[k + 1]) < 0 || hex(a[k + 2]) < 0) abort();
                k += 2;
            }
        }
        free(a);
        free(b);
    } else if (!err[0]) {
        abort();
    }
    regexgen_free(g);
    free(pattern);
    return 0;
}
