/* Unit tests of textfield.c (--jwt-key with -s): a script's text written again
 * with barrage's field after each request line, byte for byte: pipelined
 * requests each with their own value, a field of that name the script wrote
 * (any case) left out, bare-LF lines, blank lines between requests, a chunked
 * body and a Content-Length body kept; the result parses with the field
 * where it should be; a value that gives up fails the write. */
#include "../src/reqtext.c"
#include "../src/textfield.c"

#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static const char *numbered(void *ctx, size_t i, size_t *len)
{
    static char buf[32];
    (void)ctx;
    *len = (size_t)snprintf(buf, sizeof buf, "tok%zu", i);
    return buf;
}

static const char *give_up_second(void *ctx, size_t i, size_t *len)
{
    return i == 1 ? NULL : numbered(ctx, i, len);
}

static struct reqtext_set *parse_text(const char *text)
{
    struct reqtext_error err;
    static const struct reqtext_h2_opts h2 = {.scheme = "http", .authority = "h"};
    struct reqtext_set *set = reqtext_parse(text, strlen(text), &h2, &err);
    if (!set) {
        char msg[256];
        reqtext_error_format(&err, msg, sizeof msg);
        printf("# parse: %s\n", msg);
    }
    return set;
}

int main(void)
{
    const char *text = "GET /a HTTP/1.1\nHost: h\nauthorization: Basic x\nX-A: 1\n\n"
                       "\r\n"
                       "POST /b HTTP/1.1\r\nContent-Length: 4\r\nAUTHORIZATION:  old \r\n\r\nbody"
                       "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    const char *want = "GET /a HTTP/1.1\nAuthorization: Bearer tok0\r\nHost: h\nX-A: 1\n\n"
                       "\r\n"
                       "POST /b HTTP/1.1\r\nAuthorization: Bearer tok1\r\nContent-Length: 4\r\n\r\nbody"
                       "PUT /c HTTP/1.1\r\nAuthorization: Bearer tok2\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    struct reqtext_set *set = parse_text(text);
    const struct textfield f = {.name = "Authorization", .prefix = "Bearer "};
    size_t len = 0;
    char *out = set ? textfield_write(set, &f, numbered, NULL, &len) : NULL;
    TAP_CHECK(out && len == strlen(want) && !memcmp(out, want, len), "three requests, each with its token, the "
              "script's Authorization left out, the rest byte for byte");
    if (out && (len != strlen(want) || memcmp(out, want, len))) printf("# got: %.*s\n", (int)len, out);
    char *copy = out ? strndup(out, len) : NULL;
    struct reqtext_set *again = copy ? parse_text(copy) : NULL;
    bool fields_ok = again && again->count == 3;
    for (size_t i = 0; fields_ok && i < 3; i++) {
        const struct reqtext_request *r = &again->requests[i];
        char tok[16];
        snprintf(tok, sizeof tok, "Bearer tok%zu", i);
        size_t auth = 0;
        for (size_t k = 0; k < r->field_count; k++)
            auth += r->fields[k].name.len == 13 && !strncasecmp(r->fields[k].name.ptr, "authorization", 13);
        fields_ok = auth == 1 && r->fields[0].value.len == strlen(tok) && !memcmp(r->fields[0].value.ptr, tok, strlen(tok));
    }
    TAP_CHECK(fields_ok && again->requests[1].body_len == 4 && again->requests[2].body_len == 3,
              "it parses: one Authorization each, first, the bodies kept");
    free(copy);
    free(out);
    reqtext_release(again);
    const struct textfield x = {.name = "X-JWT", .prefix = ""};
    out = set ? textfield_write(set, &x, numbered, NULL, &len) : NULL;
    TAP_CHECK(out && strstr(out, "GET /a HTTP/1.1\nX-JWT: tok0\r\nHost: h\nauthorization: Basic x\n") &&
                  strstr(out, "AUTHORIZATION:  old \r\n"),
              "another name: the script's Authorization kept as written");
    free(out);
    TAP_CHECK(set && textfield_write(set, &f, give_up_second, NULL, &len) == NULL, "a value that gives up fails it");
    reqtext_release(set);
    TAP_EXIT();
}
