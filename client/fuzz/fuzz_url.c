/* libFuzzer target for url.c. Checked on any input: url_parse either fails
 * with a message, or gives a host that fits and holds no byte a Host header
 * may not, a port 1..65535, and a target that starts with '/', holds only
 * bytes RFC 3986 allows in a path and query (every '%' a valid escape) and no
 * control byte, space or '#', so it can never add a line to a request; the
 * target parses the same again (it is its own normal form). The token and
 * field-value spans stay within their input. Any violation is a crash. */
#include "../src/url.c"

static bool target_ok(const char *t)
{
    if (t[0] != '/') return false;
    for (size_t i = 0; t[i]; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '%') {
            if (url_hex((unsigned char)t[i + 1]) < 0 || url_hex((unsigned char)t[i + 2]) < 0) return false;
            continue;
        }
        if (!url_is_pchar_plain(c) && !strchr(":@/?", c)) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct url u;
    char err[256];
    if (url_parse(text, &u, err, sizeof err) == 0) {
        if (!u.host[0] || strpbrk(u.host, " \r\n\t/?#@") || !target_ok(u.target)) abort();
        long port = strtol(u.port, NULL, 10);
        if (port < 1 || port > 65535) abort();
        char again[4096];
        if (strlen(u.target) < 3000) {
            snprintf(again, sizeof again, "http://h%s", u.target);
            struct url v;
            if (url_parse(again, &v, err, sizeof err) || strcmp(v.target, u.target)) abort();
            url_free(&v);
        }
        url_free(&u);
    } else if (!err[0]) {
        abort();
    }
    if (url_token_span(text, size) > size || url_field_value_span(text, size) > size) abort();
    char shown[64];
    url_printable(text, shown, sizeof shown);
    if (strlen(shown) >= sizeof shown) abort();
    free(text);
    return 0;
}
