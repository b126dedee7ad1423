/* Unit tests of flow.c (the --flow parser), flowvars.c (templates written
 * out, captures, JSON pointers) and expect.c (status lists): every line form,
 * each kind of bad line as "file:line: why", a flow cut at every byte. */
#include "../src/expect.c"
#include "../src/fileread.c"
#include "../src/flow.c"
#include "../src/flowvars.c"
#include "../src/signals.c"
#include "../src/url.c"

#include <unistd.h>

#include "tap.h"

static const char *const good =
    "# a chain\n"
    "POST /items @item.json\n"
    "  step create\n"
    "  Content-Type: application/json\n"
    "  expect 201\n"
    "  capture item = header:Location\n"
    "  capture id = json:/id\n"
    "\n"
    "GET ${item}?u=${user}\r\n"
    "\texpect 2xx,304\n"
    "\texpect body ~ \"id\": *[0-9]+\n"
    "\tthink 250ms\n"
    "PATCH /items/${id}\n"
    "  body {\"n\": ${seq}, \"r\": ${rand:5-9}, \"x\": \"${uuid}\"}\n"
    "  X-Trace: u${user}-${id}\n"
    "  capture tag = regex:tag=([a-z]+)\n"
    "DELETE /items/${id}\n"
    "/items\n";

static void test_forms(void)
{
    struct flow f;
    char err[300] = "";
    int rc = flow_parse(&f, good, strlen(good), "f.flow", err, sizeof err);
    TAP_CHECK(rc == 0 && f.count == 5, "five steps, comments, blanks and CRLF (%d, %s)", rc, err);
    if (rc) return;
    const struct flow_step *s = f.steps;
    TAP_CHECK(!strcmp(s[0].method, "POST") && !strcmp(s[0].name, "create") && !strcmp(s[0].body_file, "item.json") &&
                  s[0].lineno == 2 && s[0].header_count == 1 && !strcmp(s[0].headers[0].name, "Content-Type"),
              "a request line with a body file, a step name, a header");
    TAP_CHECK(s[0].expect_status && expect_status_has(&s[0].status, 201) && !expect_status_has(&s[0].status, 200),
              "expect 201");
    TAP_CHECK(s[0].capture_count == 2 && s[0].captures[0].from == FLOW_FROM_HEADER &&
                  !strcmp(s[0].captures[0].arg, "Location") && s[0].captures[1].from == FLOW_FROM_JSON &&
                  !strcmp(s[0].captures[1].arg, "/id") && f.var_count == 3 && !strcmp(f.vars[0], "item"),
              "captures from a header and a JSON pointer");
    TAP_CHECK(!strcmp(s[1].name, "GET ${item}?u=${user}") && s[1].target.part_count == 3 &&
                  s[1].target.parts[0].kind == FLOW_CAPTURED && s[1].target.parts[2].kind == FLOW_USER,
              "a target with a captured and a built-in variable, named by its line");
    TAP_CHECK(expect_status_has(&s[1].status, 204) && expect_status_has(&s[1].status, 304) &&
                  !expect_status_has(&s[1].status, 301) && s[1].expect_body && s[1].think_us == 250000,
              "a class and a code, a body check, a think time");
    TAP_CHECK(s[2].has_body && s[2].body.part_count == 7 && s[2].body.parts[3].kind == FLOW_RAND &&
                  s[2].body.parts[3].lo == 5 && s[2].body.parts[3].hi == 9 && s[2].body.parts[5].kind == FLOW_UUID,
              "an inline body with seq, rand and uuid");
    TAP_CHECK(!strcmp(s[4].method, "GET") && !strcmp(s[4].name, "GET /items") && f.reads_body, "GET when no method");
    flow_free(&f);
}

struct bad {
    const char *text, *why;
};

#define TOKEN_64 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TOKEN_256 TOKEN_64 TOKEN_64 TOKEN_64 TOKEN_64

static void test_errors(void)
{
    static const struct bad bad[] = {
        {"", "f.flow: no step"},
        {"# only\n\n", "f.flow: no step"},
        {"  expect 200\n", "f.flow:1: an indented line before the first request line"},
        {"GET /a\n  expect 2yx\n", "f.flow:2: expect: '2yx' is neither"},
        {"GET /a\n  expect 200,\n", "f.flow:2: expect: '' is neither"},
        {"GET /a\n  expect 600\n", "f.flow:2: expect: '600'"},
        {"GET /a\n  expect 200\n  expect 201\n", "f.flow:3: a second 'expect STATUS'"},
        {"GET /a\n  expect body ~ (\n", "f.flow:2: bad regular expression"},
        {"GET /a\n  expect body ~ *x\n", "f.flow:2: bad regular expression '*x' (POSIX extended): a repetition (*, +, ?, {N}) with nothing before it"},
        {"GET /a\n  expect body ~ a(b\n", "f.flow:2: bad regular expression 'a(b' (POSIX extended): unbalanced parentheses"},
        {"GET /a\n  expect body ~ ${nope}\n", "f.flow:2: ${nope} is neither built in"},
        {"POST /a\n  capture id = json:/id\nGET /b\n  expect body ~ (${id})\n", "f.flow:4: expect body ~ RE: a variable inside a group"},
        {"POST /a\n  capture id = json:/id\nGET /b\n  expect body ~ x${id}+\n", "f.flow:4: expect body ~ RE: a variable inside a group (...) or under a repeat"},
        {"POST /a\n  capture id = json:/id\nGET /b\n  expect body ~ [${id}]\n", "f.flow:4: expect body ~ RE: a variable inside [...]"},
        {"POST /a\n  capture id = json:/id\nGET /b\n  expect body ~ ${id}(\n", "f.flow:4: bad regular expression 'x(' (POSIX extended): unbalanced"},
        {"POST /a\n  capture id = json:/id\n  expect body ~ ${id}\n", "f.flow:3: ${id} is neither built in"},
        {"GET /a\n  expect body ~\n", "f.flow:2: expect body ~ RE"},
        {"GET /${id}\n", "f.flow:1: ${id} is neither built in"},
        {"GET /a\n  X: ${id}\n  capture id = json:/id\n", "f.flow:2: ${id} is neither built in"},
        {"GET /a\n  capture id = json:/id\n  X: ${id}\n", "f.flow:3: ${id} is neither built in"},
        {"GET /a\n  capture id = json:id\n", "f.flow:2: capture: a JSON pointer starts with '/'"},
        {"GET /a\n  capture id = cookie:x\n", "f.flow:2: capture: the source is"},
        {"GET /a\n  capture user = header:X\n", "f.flow:2: capture: 'user' is built in"},
        {"GET /a\n  capture 1d = header:X\n", "f.flow:2: capture NAME"},
        {"GET /a\n  capture id header:X\n", "f.flow:2: capture NAME = SOURCE: '=' missing"},
        {"GET /a\n  capture r = regex:(\n", "f.flow:2: bad regular expression"},
        {"GET /a\n  expect body ~ ((a{100}){100}){100}\n", "f.flow:2: regular expression '((a{100}){100}){100}' too large"},
        {"GET /a\n  expect body ~ ((a?){150}){150}\n", "f.flow:2: regular expression '((a?){150}){150}' too large"},
        {"GET /a\n  expect body ~ a{1000}\n", "f.flow:2: regular expression 'a{1000}' too large"},
        {"GET /a\n  capture r = regex:(x|[]{}]{99}(b{2,}c?){50,60}){400}\n", "f.flow:2: regular expression"},
        {"GET /a\n  expect body ~ ((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))\n", "f.flow:2: regular expression"},
        {"GET /a\n  think soon\n", "f.flow:2: think: 'soon' is not a duration"},
        {"GET /a\n  nonsense here\n", "f.flow:2: 'nonsense here' is neither a header line"},
        {"GET /a\n  X-A: b\x01\n", "f.flow:2: a control byte"},
        {"GET /a\n  body x\n  body y\n", "f.flow:3: a second body"},
        {"GET /a @b\n  body y\n", "f.flow:2: a second body"},
        {"GET a\n", "f.flow:1: the target 'a' is neither a path"},
        {"GET http://h/a\n", "f.flow:1: the target 'http://h/a' is neither"},
        {"G(T /a\n", "f.flow:1: 'G(T' is not a method"},
        {"GET\n", "f.flow:1: a method without a target"},
        {"GET /a b\n", "f.flow:1: 'b' after the target"},
        {"GET /a @b c\n", "f.flow:1: a request line is [METHOD] TARGET [@BODYFILE]"},
        {"GET /a%zz\n", "f.flow:1: bad target"},
        {"GET /${rand:9-5}\n", "f.flow:1: ${rand:A-B} needs two integers"},
        {"GET /${rand:x}\n", "f.flow:1: ${rand:A-B} needs two integers"},
        {"GET /${csv:f}\n", "f.flow:1: ${csv:FILE:COLUMN} needs a file and a column"},
        {"GET /${user\n", "f.flow:1: '${' without its '}'"},
        {"GET /a\n  step x\nGET /b\n  step x\n", "f.flow:4: step: 'x' names an earlier step"},
        {"GET /a\0b\n", "f.flow:1: a NUL byte"},
        {"GET /a\n  capture x = regex:^(a*)*(a*)*\\2\\1b\n", "f.flow:2: regular expression '^(a*)*(a*)*\\2\\1b': a back-reference"},
        {"GET /a\n  expect body ~ (a)\\1\n", "f.flow:2: regular expression '(a)\\1': a back-reference"},
        {"GET /a\n  capture x = json:/" TOKEN_256 "\n", "f.flow:2: capture: a JSON pointer token over 255 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct flow f;
        char err[300] = "";
        size_t len = strlen(bad[i].text);
        if (strstr(bad[i].why, "NUL")) len = 9;
        int rc = flow_parse(&f, bad[i].text, len, "f.flow", err, sizeof err);
        TAP_CHECK(rc == -1 && !strncmp(err, bad[i].why, strlen(bad[i].why)) && f.count == 0 && !f.steps,
                  "refused: %s (%s)", bad[i].why, err);
    }
}

/* Patterns regcomp keeps small are kept: a bracket's braces, escaped ones and
 * alternatives are not counted repetitions. */
static void test_regex_sizes(void)
{
    static const char *const good_patterns[] = {
        "[0-9a-f]{32}", "([{9999}]){99}", "([[:alpha:]{9999}]){99}", "(\\{9999}){99}", "(a{20}|b{20}){20}",
        "x{,9}y{9,}", "a{999}", ")a{99}", "[\\1]x", "\\\\1",
    };
    for (size_t i = 0; i < sizeof good_patterns / sizeof good_patterns[0]; i++) {
        char text[128], err[300] = "";
        snprintf(text, sizeof text, "GET /a\n  expect body ~ %s\n", good_patterns[i]);
        struct flow f;
        int rc = flow_parse(&f, text, strlen(text), "f.flow", err, sizeof err);
        TAP_CHECK(rc == 0, "kept: %s (%s)", good_patterns[i], err);
        if (!rc) flow_free(&f);
    }
}

/* Every prefix of a good flow parses or fails with "f.flow:..." and leaks nothing (ASan). */
static void test_cut_everywhere(void)
{
    size_t len = strlen(good), ok = 0, bad = 0, wrong = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        char *copy = malloc(cut + 1);
        memcpy(copy, good, cut); /* an exact-size buffer: a read past the cut is ASan's to catch */
        struct flow f;
        char err[300] = "";
        if (flow_parse(&f, copy, cut, "f.flow", err, sizeof err) == 0) {
            ok++;
            if (f.count == 0) wrong++;
            flow_free(&f);
        } else {
            bad++;
            if (strncmp(err, "f.flow", 6)) wrong++;
        }
        free(copy);
    }
    TAP_CHECK(wrong == 0 && ok > 0 && bad > 0, "the flow cut at each of its %zu bytes: %zu parse, %zu refused, 0 wrong",
              len, ok, bad);
}

static void test_duration(void)
{
    uint64_t us = 0;
    TAP_CHECK(!flow_parse_duration("1s", &us) && us == 1000000 && !flow_parse_duration("2.5ms", &us) && us == 2500 &&
                  !flow_parse_duration("7us", &us) && us == 7 && !flow_parse_duration("1m", &us) && us == 60000000 &&
                  !flow_parse_duration("3", &us) && us == 3000000,
              "durations: s, ms, us, m, bare seconds");
    TAP_CHECK(flow_parse_duration("-1s", &us) && flow_parse_duration("1h", &us) && flow_parse_duration("", &us) &&
                  flow_parse_duration("nan", &us),
              "refused: negative, unknown unit, empty, nan");
}

static void test_expand(void)
{
    struct flow f;
    char err[300];
    const char *text = "POST /a\n  capture id = json:/id\nGET /items/${id}/${user}/${seq}/${rand:3-3}\n";
    int rc = flow_parse(&f, text, strlen(text), "f.flow", err, sizeof err);
    TAP_CHECK(rc == 0, "a flow to write out (%s)", rc ? err : "");
    if (rc) return;
    struct flowvars_buf values[FLOW_MAX_VARS] = {{0}}, out = {0}, target = {0};
    flowvars_append(&values[0], "4 2", 3);
    struct rng rng;
    rng_seed(&rng, 1);
    struct flowvars_env env = {.flow = &f, .user = 7, .seq = 12, .values = values, .rng = &rng};
    rc = flowvars_expand(&f.steps[1].target, &env, &out);
    TAP_CHECK(rc == 0 && !strcmp(out.p, "/items/4 2/7/12/3"), "variables written out (%s)", out.p);
    rc = flowvars_target(out.p, out.len, &target);
    TAP_CHECK(rc == 0 && !strcmp(target.p, "/items/4%202/7/12/3"), "as a target: a blank percent-encoded (%s)", target.p);
    target.len = 0;
    flowvars_target("http://127.0.0.1:8080/items/9?x=%41", 35, &target);
    TAP_CHECK(!strcmp(target.p, "/items/9?x=%41"), "an absolute URL becomes its path (%s)", target.p);
    target.len = 0;
    flowvars_target("items/9", 7, &target);
    TAP_CHECK(!strcmp(target.p, "/items/9"), "a relative one gets its '/' (%s)", target.p);
    struct flow_template uuid_t = {.text = "", .parts = &(struct flow_part){.kind = FLOW_UUID}, .part_count = 1};
    out.len = 0;
    flowvars_expand(&uuid_t, &env, &out);
    TAP_CHECK(out.len == 36 && out.p[14] == '4' && strchr("89ab", out.p[19]) && out.p[8] == '-', "a v4 UUID (%s)", out.p);
    flowvars_buf_free(&values[0]);
    flowvars_buf_free(&out);
    flowvars_buf_free(&target);
    flow_free(&f);
}

/* expect body ~ with variables: written out per check, each value matched as
 * literal text (its special bytes escaped), a NUL in one matching nothing. */
static void test_pattern_variables(void)
{
    struct flow f;
    char err[300];
    const char *text = "POST /a\n  capture id = json:/id\nGET /b\n  expect body ~ \"id\": *${id}[,}] .*user ${user}$\n";
    int rc = flow_parse(&f, text, strlen(text), "f.flow", err, sizeof err);
    TAP_CHECK(rc == 0 && f.steps[1].expect_body && f.steps[1].body_pattern.part_count == 5, "a pattern with variables (%s)",
              rc ? err : "");
    if (rc) return;
    struct flowvars_buf values[FLOW_MAX_VARS] = {{0}}, pattern = {0}, scratch = {0};
    struct rng rng;
    rng_seed(&rng, 1);
    struct flowvars_env env = {.flow = &f, .user = 7, .seq = 0, .values = values, .rng = &rng};
    const struct flow_template *t = &f.steps[1].body_pattern;
    struct { const char *value; size_t len; const char *body; int want; } cases[] = {
        {"42", 2, "{\"id\": 42, \"n\": 1} user 7", 1},
        {"42", 2, "{\"id\": 43, \"n\": 1} user 7", 0},
        {"42", 2, "{\"id\": 42, \"n\": 1} user 8", 0},
        {"4.2", 3, "{\"id\": 4x2} user 7", 0}, /* the value's '.' is a dot, not any byte */
        {"4.2", 3, "{\"id\": 4.2} user 7", 1},
        {"a(b*", 4, "{\"id\": a(b*} user 7", 1},
        {"a\0b", 3, "{\"id\": a} user 7", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        values[0].len = 0;
        flowvars_append(&values[0], cases[i].value, cases[i].len);
        rc = flowvars_matches_pattern(t, &env, (const uint8_t *)cases[i].body, strlen(cases[i].body), &pattern, &scratch);
        TAP_CHECK(rc == cases[i].want, "${id} = '%s' on '%s': %d, want %d", cases[i].value, cases[i].body, rc,
                  cases[i].want);
    }
    flowvars_buf_free(&values[0]);
    flowvars_buf_free(&pattern);
    flowvars_buf_free(&scratch);
    flow_free(&f);
}

static void test_json_pointer(void)
{
    const char *doc = " {\"a\": {\"b\": [10, {\"c\": \"x\\u00e9\\\"y\"}, true]}, \"m~n\": null, \"s/t\": -1.5e3,"
                      " \"id\": 42, \"o\": {\"k\": [1, 2]}}";
    struct { const char *ptr, *want; int rc; } cases[] = {
        {"/id", "42", 1},           {"/a/b/0", "10", 1},          {"/a/b/1/c", "x\xc3\xa9\"y", 1},
        {"/a/b/2", "true", 1},      {"/m~0n", "null", 1},         {"/s~1t", "-1.5e3", 1},
        {"/o", "{\"k\": [1, 2]}", 1}, {"/a/b/3", NULL, 0},          {"/nope", NULL, 0},
        {"/a/b/x", NULL, 0},        {"/id/x", NULL, 0},           {"/a/b/01", NULL, 0},
    };
    struct flowvars_buf out = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = flowvars_json_pointer(doc, strlen(doc), cases[i].ptr, &out);
        TAP_CHECK(rc == cases[i].rc && (!cases[i].want || !strcmp(out.p, cases[i].want)), "json pointer %s (%d: %s)",
                  cases[i].ptr, rc, rc == 1 ? out.p : "-");
    }
    /* a token too long for the reader is not there, never cut to another member's name */
    char long_doc[600];
    snprintf(long_doc, sizeof long_doc, "{\"%.255s\": 1, \"%s\": 2}", TOKEN_256, TOKEN_256);
    TAP_CHECK(flowvars_json_pointer(long_doc, strlen(long_doc), "/" TOKEN_256, &out) == 0, "a 256-byte token is not cut");
    char ptr[300];
    snprintf(ptr, sizeof ptr, "/%.255s", TOKEN_256);
    TAP_CHECK(flowvars_json_pointer(long_doc, strlen(long_doc), ptr, &out) == 1 && !strcmp(out.p, "1"),
              "a 255-byte token found");
    const char *broken[] = {"{\"id\": ", "{\"id\" 1}", "[1,", "{\"a\": \"\\q\"}", "nope", ""};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
        TAP_CHECK(flowvars_json_pointer(broken[i], strlen(broken[i]), "/id", &out) == 0, "not JSON: '%s' gives nothing",
                  broken[i]);
    flowvars_buf_free(&out);
}

static void test_captures(void)
{
    struct flow f;
    char err[300];
    const char *text = "GET /a\n  capture loc = header:location\n  capture tag = regex:tag=([a-z]+)\n"
                       "  capture all = regex:[0-9]+\n  expect body ~ ^ok\n";
    if (flow_parse(&f, text, strlen(text), "f.flow", err, sizeof err)) {
        TAP_CHECK(0, "a flow with captures (%s)", err);
        return;
    }
    struct response_header h[] = {{"Content-Type", "text/plain", 12, 10}, {"Location", "/items/3", 8, 8}};
    const char body[] = "ok tag=abc\0 n=123";
    struct response_data r = {h, 2, (const uint8_t *)body, sizeof body - 1};
    struct flowvars_buf out = {0};
    const struct flow_step *s = &f.steps[0];
    TAP_CHECK(flowvars_capture(&s->captures[0], &r, &out) == 1 && !strcmp(out.p, "/items/3"),
              "a header, its name in any case");
    TAP_CHECK(flowvars_capture(&s->captures[1], &r, &out) == 1 && !strcmp(out.p, "abc"), "a regex's first group");
    TAP_CHECK(flowvars_capture(&s->captures[2], &r, &out) == 1 && !strcmp(out.p, "123"),
              "a whole match, past a NUL in the body");
    TAP_CHECK(flowvars_matches(&s->body_re, r.body, r.body_len, &out) && !flowvars_matches(&s->body_re, (const uint8_t *)"no", 2, &out),
              "the body check");
    /* a value that would add header lines (or a request) is not taken */
    const char *text2 = "GET /a\n  capture v = json:/v\n  capture w = regex:w=([^;]*)\n";
    struct flow f2;
    if (!flow_parse(&f2, text2, strlen(text2), "f.flow", err, sizeof err)) {
        const char inj[] = "{\"v\": \"a\\r\\nX-Injected: yes\", \"w=x\x01y;\": 1}";
        struct response_data ri = {NULL, 0, (const uint8_t *)inj, sizeof inj - 1};
        TAP_CHECK(flowvars_capture(&f2.steps[0].captures[0], &ri, &out) == 0 &&
                      flowvars_capture(&f2.steps[0].captures[1], &ri, &out) == 0,
                  "captured CR LF or a control byte: found nothing");
        const char tab[] = "{\"v\": \"a\\tb\"}";
        struct response_data rt = {NULL, 0, (const uint8_t *)tab, sizeof tab - 1};
        TAP_CHECK(flowvars_capture(&f2.steps[0].captures[0], &rt, &out) == 1 && !strcmp(out.p, "a\tb"), "a tab is taken");
        flow_free(&f2);
    }
    struct response_data empty = {NULL, 0, NULL, 0};
    TAP_CHECK(flowvars_capture(&s->captures[0], &empty, &out) == 0 && flowvars_capture(&s->captures[1], &empty, &out) == 0 &&
                  flowvars_capture(&s->captures[0], NULL, &out) == 0,
              "missing: no header, no match, no response");
    flowvars_buf_free(&out);
    flow_free(&f);
}

/* Column k's value in data row row (from 0). */
static const char *csv_value(const struct flow *f, size_t k, size_t row)
{
    return f->csv_files[f->csv[k].file_index].text + f->csv[k].at[row];
}

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    fwrite(text, 1, len, fp);
    fclose(fp);
}

/* CSV files: a byte-order mark, a value of any length, quotes, a control byte
 * refused; binary body files, as they are with @@ and escaped in errors. */
static void test_load_files(void)
{
    char dir[] = "/tmp/flow files XXXXXX", path[300], err[600] = "";
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/f.flow", dir);
    static char long_row[10000];
    memset(long_row, 'j', sizeof long_row - 1);
    char *csv = malloc(sizeof long_row + 64);
    int n = snprintf(csv, sizeof long_row + 64, "\xef\xbb\xbfname,jwt\n\"a\"\"b\",%s\nc\n", long_row);
    write_file(dir, "u.csv", csv, (size_t)n);
    free(csv);
    const char *flow_text = "GET /${csv:u.csv:name}\n  X-Jwt: ${csv:u.csv:jwt}\n";
    write_file(dir, "f.flow", flow_text, strlen(flow_text));
    struct flow f;
    int rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == 0 && f.csv[0].rows == 2 && !strcmp(csv_value(&f, 0, 0), "a\"b") && !strcmp(csv_value(&f, 0, 1), "c") &&
                  strlen(csv_value(&f, 1, 0)) == sizeof long_row - 1 && !strcmp(csv_value(&f, 1, 1), ""),
              "a CSV with a byte-order mark, a 9,999-byte value whole, quotes unescaped (%s)", err);
    if (rc == 0) flow_free(&f);
    write_file(dir, "u.csv", "name,jwt\nann,a\rb\n", 17);
    rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "data row 1, column 'jwt': a control byte (0x0d)"), "a CR in a CSV value refused (%s)", err);
    static const char binary[] = "\x1b[31m${\x01\xff\x1b[0m}";
    write_file(dir, "b.bin", binary, sizeof binary - 1);
    flow_text = "POST /a @b.bin\n";
    write_file(dir, "f.flow", flow_text, strlen(flow_text));
    rc = flow_load(&f, path, err, sizeof err);
    bool raw = false;
    for (const char *c = err; *c; c++) raw |= (unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f;
    TAP_CHECK(rc == -1 && strstr(err, "${\\x01\\xff\\x1b[0m} is neither") && !raw, "a binary @FILE's error escaped (%s)", err);
    /* a CSV cut at every byte loads or is refused, never reads past its end (ASan) */
    static const char cut[] = "\xef\xbb\xbfname,\"jwt\"\r\n\"a,\"\"b\",x\"y\r\n\"open\n,\n\"\",z,w\nlast";
    flow_text = "GET /${csv:u.csv:name}\n  X-Jwt: ${csv:u.csv:jwt}\n";
    write_file(dir, "f.flow", flow_text, strlen(flow_text));
    size_t loaded = 0, refused = 0, too_long = 0;
    for (size_t len = 0; len <= sizeof cut - 1; len++) {
        write_file(dir, "u.csv", cut, len);
        if (flow_load(&f, path, err, sizeof err) == 0) {
            for (size_t r = 0; r < f.csv[0].rows; r++) too_long += strlen(csv_value(&f, 0, r)) > len;
            loaded++;
            flow_free(&f);
        } else {
            refused++;
        }
    }
    TAP_CHECK(loaded > 0 && refused > 0 && too_long == 0, "a CSV cut at each of its %zu bytes: %zu load, %zu refused",
              sizeof cut - 1, loaded, refused);
    flow_text = "POST /a @@b.bin\n";
    write_file(dir, "f.flow", flow_text, strlen(flow_text));
    rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == 0 && f.steps[0].body_raw && f.steps[0].body.part_count == 1 && f.steps[0].body.len == sizeof binary - 1 &&
                  !memcmp(f.steps[0].body.text, binary, sizeof binary - 1),
              "@@FILE: the body as it is (%s)", err);
    if (rc == 0) flow_free(&f);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) { /* a temp dir left behind */ }
}

static void test_load(void)
{
    char dir[] = "/tmp/flow test XXXXXX", path[300];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/users.csv", dir);
    FILE *fp = fopen(path, "w");
    fputs("name,token\nann,\"t,1\"\r\nbob\n\ncid,t3\n", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/item.json", dir);
    fp = fopen(path, "w");
    fputs("{\"owner\": \"${csv:users.csv:name}\", \"id\": \"${id}\"}", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/f.flow", dir);
    fp = fopen(path, "w");
    fputs("GET /a\n  capture id = json:/id\nPOST /b @item.json\n  Authorization: ${csv:users.csv:2}\n", fp);
    fclose(fp);
    struct flow f;
    char err[600] = "";
    int rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == 0 && f.csv_count == 2 && f.csv[1].rows == 3 && !strcmp(csv_value(&f, 1, 1), "bob") &&
                  !strcmp(csv_value(&f, 0, 0), "t,1") && !strcmp(csv_value(&f, 0, 1), "") &&
                  f.steps[1].body.part_count == 5 && f.csv_file_count == 1,
              "a body file with variables, CSV columns by name and number, the file read once (%s)", err);
    if (rc == 0) {
        struct flowvars_buf values[FLOW_MAX_VARS] = {{0}}, out = {0};
        flowvars_append(&values[0], "9", 1);
        struct flowvars_env env = {.flow = &f, .user = 5, .values = values};
        flowvars_expand(&f.steps[1].body, &env, &out);
        TAP_CHECK(!strcmp(out.p, "{\"owner\": \"bob\", \"id\": \"9\"}"), "user 5 reads row 2 of 3 (%s)", out.p);
        flowvars_buf_free(&values[0]);
        flowvars_buf_free(&out);
        flow_free(&f);
    }
    fp = fopen(path, "w");
    fputs("GET /a\nGET /${csv:users.csv:email}\n", fp);
    fclose(fp);
    rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "f.flow:2: CSV file") && strstr(err, "no column 'email'"), "a missing column (%s)", err);
    fp = fopen(path, "w");
    fputs("GET /a @missing.json\n", fp);
    fclose(fp);
    rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "f.flow:1: cannot read body file"), "a missing body file (%s)", err);
    snprintf(path, sizeof path, "%s/item.json", dir);
    fp = fopen(path, "w");
    fputs("{\"id\": \"${nope}\"}", fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/f.flow", dir);
    fp = fopen(path, "w");
    fputs("GET /a @item.json\n", fp);
    fclose(fp);
    rc = flow_load(&f, path, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "f.flow:1: ${nope}"), "an unknown variable in a body file (%s)", err);
    rc = flow_load(&f, "/dev/zero", err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "--flow /dev/zero: ") && strstr(err, "not a regular file"), "a device refused (%s)", err);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) { /* a temp dir left behind */ }
}

static void test_expect_status(void)
{
    struct expect_status s;
    char why[200];
    TAP_CHECK(!expect_status_parse(&s, "2xx, 404 ,3XX", 13, why, sizeof why) && expect_status_has(&s, 200) &&
                  expect_status_has(&s, 299) && expect_status_has(&s, 404) && expect_status_has(&s, 301) &&
                  !expect_status_has(&s, 405) && !expect_status_has(&s, 500) && !expect_status_has(&s, 600) &&
                  !expect_status_has(&s, -1),
              "--expect-status 2xx,404,3XX");
    TAP_CHECK(expect_status_parse(&s, "", 0, why, sizeof why) && expect_status_parse(&s, "099", 3, why, sizeof why) &&
                  expect_status_parse(&s, "2x0", 3, why, sizeof why) && expect_status_parse(&s, "20", 2, why, sizeof why),
              "refused: empty, 099, 2x0, 20");
}

int main(void)
{
    test_forms();
    test_errors();
    test_regex_sizes();
    test_cut_everywhere();
    test_duration();
    test_expand();
    test_pattern_variables();
    test_json_pointer();
    test_captures();
    test_load();
    test_load_files();
    test_expect_status();
    TAP_EXIT();
}
