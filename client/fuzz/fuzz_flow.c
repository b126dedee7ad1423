/* libFuzzer target for flow.c (the --flow parser) and flowvars.c's JSON
 * pointer reader. The input up to the first 0x01 byte is a flow, the rest a
 * response body. Checked on any input: flow_parse either fails with
 * "flow:LINE: why" (or "flow: why") and leaves the flow empty, or gives 1 to
 * FLOW_MAX_STEPS steps, each with a method, a name and a target whose
 * variables are in range; every template written out for a user and made a
 * request target holds only RFC 3986 target bytes and %XX escapes. The body
 * is read at a few pointers and by each capture; a found value is
 * NUL-terminated at its length. Any violation is a crash. */
#include "../src/expect.c"
#include "../src/fileread.c"
#include "../src/flow.c"
#include "../src/flowvars.c"
#include "../src/signals.c"
#include "../src/url.c"

#include <stdint.h>

static void check_template(const struct flow *f, const struct flow_template *t)
{
    for (size_t i = 0; i < t->part_count; i++) {
        const struct flow_part *p = &t->parts[i];
        if (p->kind == FLOW_LITERAL && p->off + p->len > t->len) abort();
        if (p->kind == FLOW_CAPTURED && p->index >= f->var_count) abort();
        if (p->kind == FLOW_CSV && p->index >= f->csv_count) abort();
        if (p->kind == FLOW_RAND && p->lo > p->hi) abort();
    }
}

static void check_target(const char *s, size_t len)
{
    if (len == 0 || s[0] != '/' || strlen(s) != len) abort();
    for (size_t i = 0; i < len; i++) {
        if (url_target_char((unsigned char)s[i])) continue;
        if (s[i] != '%' || i + 2 >= len + 0 || !flowvars_hex(s[i + 1]) || !flowvars_hex(s[i + 2])) abort();
    }
}

static void check_flow(const struct flow *f, const uint8_t *body, size_t body_len)
{
    if (f->count == 0 || f->count > FLOW_MAX_STEPS) abort();
    struct flowvars_buf values[FLOW_MAX_VARS], out, target;
    memset(values, 0, sizeof values);
    memset(&out, 0, sizeof out);
    memset(&target, 0, sizeof target);
    struct rng rng;
    rng_seed(&rng, 7);
    struct flowvars_env env = {.flow = f, .user = 3, .seq = 1, .values = values, .rng = &rng};
    struct response_header h = {"location", "/items/1 2", 8, 10};
    struct response_data r = {&h, 1, body, body_len};
    for (size_t i = 0; i < f->count; i++) {
        const struct flow_step *st = &f->steps[i];
        if (!st->method || !st->method[0] || !st->name || !st->name[0] || st->target.part_count == 0) abort();
        check_template(f, &st->target);
        check_template(f, &st->body);
        for (size_t k = 0; k < st->header_count; k++) check_template(f, &st->headers[k].value);
        out.len = target.len = 0;
        if (flowvars_expand(&st->target, &env, &out) || flowvars_target(out.p, out.len, &target)) abort();
        check_target(target.p, target.len);
        for (size_t c = 0; c < st->capture_count; c++) {
            if (st->captures[c].var >= f->var_count) abort();
            int rc = flowvars_capture(&st->captures[c], &r, &values[st->captures[c].var]);
            if (rc < 0 || (rc == 1 && values[st->captures[c].var].p[values[st->captures[c].var].len] != '\0')) abort();
        }
        if (st->expect_body) flowvars_matches(&st->body_re, body, body_len, &out);
    }
    for (size_t i = 0; i < FLOW_MAX_VARS; i++) flowvars_buf_free(&values[i]);
    flowvars_buf_free(&out);
    flowvars_buf_free(&target);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 1, size);
    size_t text_len = sep ? (size_t)(sep - data) : size;
    const uint8_t *body = sep ? sep + 1 : data + size;
    size_t body_len = size - text_len - (sep ? 1 : 0);
    struct flow f;
    char err[512];
    if (flow_parse(&f, (const char *)data, text_len, "flow", err, sizeof err) == 0) {
        check_flow(&f, body, body_len);
        flow_free(&f);
    } else if (strncmp(err, "flow:", 5) || f.count || f.steps || f.var_count) {
        abort();
    }
    static const char *const pointers[] = {"/id", "/a/1/b", "/0", "/a~1b/~0"};
    struct flowvars_buf out;
    memset(&out, 0, sizeof out);
    for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++) {
        int rc = flowvars_json_pointer((const char *)body, body_len, pointers[i], &out);
        if (rc < 0 || (rc == 1 && out.p[out.len] != '\0')) abort();
    }
    flowvars_buf_free(&out);
    return 0;
}
