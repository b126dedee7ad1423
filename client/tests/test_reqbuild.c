/* Unit tests of reqbuild.c: the fixed request and a filled one (another
 * path, an extra field) byte for byte in HTTP/1.1, and their HTTP/2 fields. */
#include "../src/reqbuild.c"

#include "tap.h"

static bool field_is(const nghttp2_nv *nv, const char *name, const char *value)
{
    return nv->namelen == strlen(name) && !memcmp(nv->name, name, nv->namelen) && nv->valuelen == strlen(value) &&
           !memcmp(nv->value, value, nv->valuelen);
}

int main(void)
{
    struct config cfg = {.keepalive = true, .header_count = 2, .headers = {"X-A: 1", "Connection: keep-alive"}};
    struct reqbuild_spec spec = {.method = "POST", .path = "/p", .authority = "h:81", .body = "xyz", .body_len = 3};
    struct reqbuild b;
    if (reqbuild_init(&b, &cfg, &spec)) return 1;
    const char *fixed = "POST /p HTTP/1.1\r\nHost: h:81\r\nX-A: 1\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nxyz";
    TAP_CHECK(b.fixed.text_len == strlen(fixed) && !memcmp(b.fixed.text, fixed, b.fixed.text_len),
              "the fixed request in HTTP/1.1, byte for byte");
    TAP_CHECK(b.fixed.field_count == 6 && field_is(&b.fixed.fields[0], ":method", "POST") &&
                  field_is(&b.fixed.fields[2], ":authority", "h:81") && field_is(&b.fixed.fields[3], ":path", "/p") &&
                  field_is(&b.fixed.fields[4], "x-a", "1") && field_is(&b.fixed.fields[5], "content-length", "3"),
              "its HTTP/2 fields: pseudo-headers, -H lower-cased without Connection, content-length");
    struct reqbuild_extra x = {.name = "Authorization", .name_len = 13, .prefix = "Bearer ", .prefix_len = 7,
                               .token = "t.o.k", .token_len = 5};
    size_t size = reqbuild_size(&b, 9, &x);
    char *block = malloc(size);
    struct request r;
    reqbuild_fill(&b, block, "/drawn/42", 9, &x, &r);
    const char *want = "POST /drawn/42 HTTP/1.1\r\nHost: h:81\r\nX-A: 1\r\nConnection: keep-alive\r\nContent-Length: 3\r\n"
                       "Authorization: Bearer t.o.k\r\n\r\nxyz";
    TAP_CHECK(r.text_len == strlen(want) && !memcmp(r.text, want, r.text_len) && (char *)r.text + r.text_len <= block + size,
              "a filled request: its path and the extra field, within its block");
    TAP_CHECK(r.field_count == 7 && field_is(&r.fields[3], ":path", "/drawn/42") &&
                  field_is(&r.fields[6], "authorization", "Bearer t.o.k") && field_is(&b.fixed.fields[3], ":path", "/p"),
              "its HTTP/2 fields: :path replaced, the extra field last; the fixed request's unchanged");
    TAP_CHECK(r.body_len == 3 && !memcmp(r.body, "xyz", 3) && r.copies == 1 && r.kind == -1, "the body, one copy, no kind");
    reqbuild_fill(&b, block, "/q", 2, NULL, &r);
    TAP_CHECK(r.field_count == 6 && r.text_len == b.fixed.text_len, "no extra: as the fixed request's size");
    free(block);
    reqbuild_free(&b);
    TAP_EXIT();
}
