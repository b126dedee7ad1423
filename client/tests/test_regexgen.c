/* Unit tests of regexgen.c: what each construct draws, repeats' bounds and
 * the cap, the same seed giving the same strings, errors with offsets, the
 * longest string. */
#include "../src/regexgen.c"

#include <ctype.h>
#include <stdlib.h>

#include "tap.h"

/* Draws n strings of pattern into a NUL-separated check: every one accepted by ok(). */
static bool all(const char *pattern, int n, bool (*ok)(const char *s, size_t len))
{
    char err[200];
    struct regexgen *g = regexgen_new(pattern, err, sizeof err);
    if (!g) return false;
    struct rng r;
    rng_seed(&r, 42);
    char *out = malloc(regexgen_max_len(g) + 1);
    bool good = true;
    for (int i = 0; i < n && good; i++) {
        size_t len = regexgen_generate(g, &r, out);
        out[len] = '\0';
        good = len <= regexgen_max_len(g) && ok(out, len);
    }
    free(out);
    regexgen_free(g);
    return good;
}

static bool digits_2_to_4(const char *s, size_t len)
{
    if (strncmp(s, "/item/", 6) || len < 8 || len > 10) return false;
    for (size_t i = 6; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static bool alt_abc(const char *s, size_t len)
{
    (void)len;
    return !strcmp(s, "/a") || !strcmp(s, "/bc") || !strcmp(s, "/") || !strcmp(s, "/x.y");
}

static bool class_members(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr("ab-z_%", s[i]) && !(s[i] >= 'b' && s[i] <= 'z')) return false;
    return len == 1;
}

static bool negated(const char *s, size_t len)
{
    return len == 1 && s[0] > 0x20 && s[0] < 0x7f && !strchr("abc/", s[0]);
}

static bool star_capped(const char *s, size_t len)
{
    (void)s;
    return len <= REGEXGEN_REPEAT_CAP + 1 && s[0] == '/';
}

static bool escapes(const char *s, size_t len)
{
    return len == 4 && s[0] == '.' && s[1] >= '0' && s[1] <= '9' && (isalnum((unsigned char)s[2]) || s[2] == '_') &&
           s[3] == 'A';
}

static void test_constructs(void)
{
    TAP_CHECK(all("/item/[0-9]{2,4}", 500, digits_2_to_4), "a class repeated {2,4}: 2 to 4 digits");
    TAP_CHECK(all("^/(a|bc|(?:)|x\\.y)$", 500, alt_abc), "alternation, groups, an empty branch, anchors, escaped dot");
    TAP_CHECK(all("[a-z_%-]", 500, class_members), "ranges and literals in a class, '-' last is literal");
    TAP_CHECK(all("[^abc/]", 2000, negated), "a negated class draws visible characters only, none of its members");
    TAP_CHECK(all("/a*", 500, star_capped), "an unbounded repeat draws at most the cap");
    TAP_CHECK(all("\\.\\d\\w\\x41", 500, escapes), "escapes \\. \\d \\w \\xHH");
}

static void test_counts_uniform(void)
{
    char err[200];
    struct regexgen *g = regexgen_new("a{0,3}", err, sizeof err);
    struct rng r;
    rng_seed(&r, 1);
    char out[8];
    int seen[4] = {0};
    for (int i = 0; i < 40000; i++) seen[regexgen_generate(g, &r, out)]++;
    bool even = true;
    for (int i = 0; i < 4; i++) even &= seen[i] > 9500 && seen[i] < 10500;
    TAP_CHECK(even, "{0,3} draws each count about as often (%d %d %d %d of 40000)", seen[0], seen[1], seen[2], seen[3]);
    regexgen_free(g);
}

static void test_same_seed(void)
{
    char err[200], a[64], b[64];
    struct regexgen *g = regexgen_new("/[a-z]{1,20}", err, sizeof err);
    struct rng r1, r2, r3;
    rng_seed(&r1, 7), rng_seed(&r2, 7), rng_seed(&r3, 8);
    bool same = true, differ = false;
    for (int i = 0; i < 100; i++) {
        size_t la = regexgen_generate(g, &r1, a), lb = regexgen_generate(g, &r2, b);
        same &= la == lb && !memcmp(a, b, la);
        size_t lc = regexgen_generate(g, &r3, b);
        differ |= la != lc || memcmp(a, b, la);
    }
    TAP_CHECK(same && differ, "the same seed draws the same strings, another seed others");
    regexgen_free(g);
}

static void test_errors(void)
{
    static const struct {
        const char *pattern, *why;
    } bad[] = {
        {"/a(b", "an unclosed ( (at offset 4)"},
        {"/a)b", "an unmatched ) (at offset 2)"},
        {"/[a-", "an unclosed [ (at offset 4)"},
        {"/[z-a]", "a range out of order (at offset 5)"},
        {"*a", "nothing to repeat (at offset 0)"},
        {"/a b", "a character a URL target cannot hold (at offset 2)"},
        {"/a{3,1}", "{m,n} with n below m (at offset 6)"},
        {"/a{x}", "bad {m,n} (at offset 3)"},
        {"/a**", "a quantifier after a quantifier (lazy and possessive ones are not supported) (at offset 3)"},
        {"/\\q", "unknown escape (at offset 2)"},
        {"/\\", "a trailing backslash (at offset 2)"},
        {"[^!-~]", "a class that matches nothing (at offset 6)"},
        {"/(a{9999}){9999}", "the pattern draws strings longer than 8192 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[200] = "";
        struct regexgen *g = regexgen_new(bad[i].pattern, err, sizeof err);
        TAP_CHECK(!g && !strcmp(err, bad[i].why), "'%s' is refused: %s (want %s)", bad[i].pattern, err, bad[i].why);
        regexgen_free(g);
    }
    char deep[400] = "";
    for (int i = 0; i < 100; i++) strcat(deep, "(");
    char err[200];
    TAP_CHECK(!regexgen_new(deep, err, sizeof err) && strstr(err, "nested too deep"), "deep nesting is refused: %s", err);
}

/* opts.target (--rand-url): every string a request target that starts with
 * '/', '.' and classes never drawing what a target cannot hold as itself;
 * patterns that could draw another start, a '#', a lone '%' are refused. */
static void test_target(void)
{
    const struct regexgen_opts opts = {.max_repeat = 8, .target = true};
    char err[200] = "", out[64];
    struct regexgen *g = regexgen_new_opts("/[!-~]{20}|/.{20}|/a%2F(b|/c)?", &opts, err, sizeof err);
    bool ok = g != NULL;
    struct rng r;
    rng_seed(&r, 3);
    for (int i = 0; g && i < 20000; i++) {
        size_t len = regexgen_generate(g, &r, out);
        ok &= len > 0 && out[0] == '/';
        for (size_t k = 0; k < len; k++) ok &= url_target_char((unsigned char)out[k]) || (out[k] == '%' && k == 2);
    }
    TAP_CHECK(ok, "target: 20,000 strings from '/', '.' and classes without '#', '%%', '<', '\"', '{' (%s)", err);
    regexgen_free(g);
    static const struct {
        const char *pattern, *why;
    } bad[] = {
        {"/a|b", "a drawn target may start here, not with / (at offset 3)"},
        {"/a|(b|/c)", "a drawn target may start here, not with / (at offset 4)"},
        {"x*/a", "a drawn target may start here, not with / (at offset 0)"},
        {"(/a)?", "the pattern may draw an empty target, without its / (at offset 0)"},
        {"/a#b", "a character a request target cannot hold as itself (write it %HH) (at offset 2)"},
        {"/a\\{", "a character a request target cannot hold as itself (write it %HH) (at offset 2)"},
        {"/a%2", "a '%' not followed by two hex digits (write %25) (at offset 2)"},
        {"/[#%<]", "a class that matches nothing (at offset 6)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        g = regexgen_new_opts(bad[i].pattern, &opts, err, sizeof err);
        TAP_CHECK(!g && !strcmp(err, bad[i].why), "target: '%s' is refused: %s (want %s)", bad[i].pattern, err, bad[i].why);
        regexgen_free(g);
    }
    TAP_CHECK((g = regexgen_new_opts("x*/a|b", &(struct regexgen_opts){.max_repeat = 8}, err, sizeof err)) != NULL,
              "without target the same patterns draw");
    regexgen_free(g);
}

static void test_max_len(void)
{
    char err[200];
    struct regexgen *g = regexgen_new("/(ab|c){2,3}x?", err, sizeof err);
    TAP_CHECK(g && regexgen_max_len(g) == 8, "the longest string: 1 + 3 * 2 + 1 (%zu)", g ? regexgen_max_len(g) : 0);
    regexgen_free(g);
}

/* literal_dot (oha's form): a bare '.', an escaped one and one in a class are all dots;
 * without the flag a bare '.' draws other characters too. */
static void test_literal_dot(void)
{
    char err[200], out[64];
    const struct regexgen_opts opts = {.max_repeat = REGEXGEN_REPEAT_CAP, .literal_dot = true};
    struct regexgen *dotted = regexgen_new_opts("/f.[.]\\.x{1,2}", &opts, err, sizeof err);
    struct regexgen *plain = regexgen_new("/f.", err, sizeof err);
    struct rng r;
    rng_seed(&r, 7);
    bool dots = dotted != NULL, other = false;
    for (int i = 0; i < 200 && dots && plain; i++) {
        size_t len = regexgen_generate(dotted, &r, out);
        dots = (len == 6 || len == 7) && !memcmp(out, "/f...x", 6);
        len = regexgen_generate(plain, &r, out);
        other = other || out[2] != '.';
    }
    TAP_CHECK(dots, "with literal_dot a bare dot is a dot (%s)", dotted ? "compiled" : err);
    TAP_CHECK(plain && other, "without it a bare dot draws other characters too");
    regexgen_free(dotted);
    regexgen_free(plain);
}

/* max_repeat: each unbounded repeat draws up to that many more than its minimum, and reaches it. */
static void test_max_repeat(void)
{
    char err[200], out[REGEXGEN_MAX_REPEAT * 4 + 8];
    const unsigned caps[] = {0, 3, REGEXGEN_MAX_REPEAT};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        const struct regexgen_opts opts = {.max_repeat = caps[i]};
        struct regexgen *all_kinds = regexgen_new_opts("/a*b+c{2,}", &opts, err, sizeof err);
        struct regexgen *one = regexgen_new_opts("/a*", &opts, err, sizeof err);
        struct rng r;
        rng_seed(&r, 3);
        size_t longest = 0, shortest = SIZE_MAX;
        for (int k = 0; one && k < 2000; k++) {
            size_t len = regexgen_generate(one, &r, out);
            longest = len > longest ? len : longest;
            shortest = len < shortest ? len : shortest;
        }
        TAP_CHECK(all_kinds && one && regexgen_max_len(all_kinds) == 4 + 3 * caps[i] && shortest == 1 &&
                      longest == 1 + caps[i],
                  "max_repeat %u: *, + and {m,} up to %u more; a* drew lengths %zu..%zu", caps[i], caps[i], shortest,
                  longest);
        regexgen_free(all_kinds);
        regexgen_free(one);
    }
    const struct regexgen_opts over = {.max_repeat = 100000};
    struct regexgen *g = regexgen_new_opts("/a*", &over, err, sizeof err);
    TAP_CHECK(g && regexgen_max_len(g) == 1 + REGEXGEN_MAX_REPEAT, "max_repeat above REGEXGEN_MAX_REPEAT is held to it");
    regexgen_free(g);
}

int main(void)
{
    test_max_repeat();
    test_literal_dot();
    test_constructs();
    test_counts_uniform();
    test_same_seed();
    test_errors();
    test_target();
    test_max_len();
    TAP_EXIT();
}
