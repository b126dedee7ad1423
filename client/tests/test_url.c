/* Unit tests of url.c: the URL's parts (scheme in any case, userinfo, IPv6,
 * ports, a query without a path, the fragment dropped), the request target
 * percent-encoded as a browser would and refused where it would smuggle,
 * the token and field-value checks, the Host value, base64. */
#include "../src/url.c"

#include "tap.h"

/* Parses text; the target (or "ERR: reason") into out. */
static const char *target_of(const char *text, char *out, size_t cap)
{
    struct url u;
    char err[256];
    if (url_parse(text, &u, err, sizeof err)) {
        snprintf(out, cap, "ERR: %s", err);
        return out;
    }
    snprintf(out, cap, "%s", u.target);
    url_free(&u);
    return out;
}

static bool target_is(const char *text, const char *want)
{
    char got[512];
    target_of(text, got, sizeof got);
    if (strcmp(got, want) == 0) return true;
    printf("# %s: got '%s', want '%s'\n", text, got, want);
    return false;
}

static bool refused(const char *text, const char *reason)
{
    char got[512];
    target_of(text, got, sizeof got);
    if (strncmp(got, "ERR: ", 5) == 0 && strstr(got, reason)) return true;
    printf("# %s: got '%s', want an error with '%s'\n", text, got, reason);
    return false;
}

static void test_parts(void)
{
    struct url u;
    char err[256];
    int rc = url_parse("HTTPS://User:p%40ss@Example.test:8443?q=1#top", &u, err, sizeof err);
    TAP_CHECK(rc == 0 && u.tls && strcmp(u.host, "Example.test") == 0 && strcmp(u.port, "8443") == 0 && u.port_given &&
                  strcmp(u.target, "/?q=1") == 0 && u.credentials && strcmp(u.credentials, "User:p@ss") == 0,
              "uppercase scheme, decoded userinfo, port, a query without a path, fragment dropped");
    url_free(&u);
    rc = url_parse("http://[::1]:8080/x", &u, err, sizeof err);
    TAP_CHECK(rc == 0 && strcmp(u.host, "::1") == 0 && strcmp(u.port, "8080") == 0 && !u.credentials,
              "IPv6 host without brackets");
    url_free(&u);
    rc = url_parse("http://h:/", &u, err, sizeof err);
    TAP_CHECK(rc == 0 && strcmp(u.port, "80") == 0 && !u.port_given, "an empty port is the scheme's");
    url_free(&u);
    rc = url_parse("https://h", &u, err, sizeof err);
    TAP_CHECK(rc == 0 && strcmp(u.port, "443") == 0 && strcmp(u.target, "/") == 0, "https default port, target /");
    url_free(&u);
}

static void test_targets(void)
{
    TAP_CHECK(target_is("http://h/a b", "/a%20b"), "space -> %%20");
    TAP_CHECK(target_is("http://h/caf\xc3\xa9", "/caf%C3%A9"), "non-ASCII bytes percent-encoded");
    TAP_CHECK(target_is("http://h/\"<>`{}|\\^[]", "/%22%3C%3E%60%7B%7D%7C%5C%5E%5B%5D"),
              "bytes RFC 3986 does not allow in a path are percent-encoded");
    TAP_CHECK(target_is("http://h/a/b;c=d,e:f@g!$&'()*+~._-?x=1&y=/?z", "/a/b;c=d,e:f@g!$&'()*+~._-?x=1&y=/?z"),
              "pchar, '/' and the query's '?' and '/' kept");
    TAP_CHECK(target_is("http://h/%41%2f", "/%41%2f"), "escapes kept as written");
    TAP_CHECK(target_is("http://h/a#frag ment\r\n", "/a"), "the fragment (whatever it holds) is dropped");
    TAP_CHECK(target_is("http://h?x=1", "/?x=1") && target_is("http://h#x", "/"), "no path: /");
    TAP_CHECK(refused("http://h/a\r\nX-Evil: 1", "control character (0x0d)") &&
                  refused("http://h/a\nb", "(0x0a)") && refused("http://h/a\tb", "(0x09)") &&
                  refused("http://h/?a\x7f", "(0x7f)"),
              "CR, LF, tab and DEL in the path or query are refused");
    TAP_CHECK(refused("http://h/100%", "'%' not followed by two hex digits") && refused("http://h/%zz", "byte 9") &&
                  refused("http://h/%4", "'%'"),
              "a bad escape is refused, naming the byte");
}

static void test_authorities(void)
{
    TAP_CHECK(refused("ftp://h/", "http://, https://, ws:// or wss://") && refused("http:/h/", "http://") &&
                  refused("wss:/h/", "ws://"),
              "other schemes");
    struct url u;
    char err[256];
    bool ws = url_parse("WS://h/chat?x", &u, err, sizeof err) == 0 && u.ws && !u.tls && !strcmp(u.port, "80") &&
              !strcmp(u.target, "/chat?x");
    if (ws) url_free(&u);
    bool wss = url_parse("wss://h", &u, err, sizeof err) == 0 && u.ws && u.tls && !strcmp(u.port, "443") &&
               !strcmp(u.target, "/");
    if (wss) url_free(&u);
    bool http = url_parse("https://h/", &u, err, sizeof err) == 0 && !u.ws && u.tls;
    if (http) url_free(&u);
    TAP_CHECK(ws && wss && http, "ws:// and wss:// as http:// and https://, marked ws");
    TAP_CHECK(refused("http:///x", "no host") && refused("http://u@/x", "no host"), "no host");
    TAP_CHECK(refused("http://h:0/", "must be 1..65535") && refused("http://h:65536/", "1..65535") &&
                  refused("http://h:8x/", "bad port '8x'") && refused("http://h:99999999999999999999/", "1..65535"),
              "bad ports name the range");
    TAP_CHECK(refused("http://[::1/", "closing ']'") && refused("http://[::1]x/", "after the IPv6 address") &&
                  refused("http://[g::1]/", "IPv6 address") && refused("http://[]/", "empty IPv6"),
              "bad IPv6 addresses");
    TAP_CHECK(refused("http://a b/", "host") && refused("http://h\r\nX: y/", "host") && refused("http://a]b/", "bracket"),
              "bad bytes in the host");
    TAP_CHECK(refused("http://u%zz@h/", "userinfo"), "a bad escape in the userinfo");
}

static void test_syntax(void)
{
    TAP_CHECK(url_token_span("GET", 3) == 3 && url_token_span("M-SEARCH", 8) == 8 && url_token_span("a!#$%&'*+.^_`|~z", 16) == 16,
              "tokens");
    TAP_CHECK(url_token_span("", 0) == 0 && url_token_span("GE T", 4) == 2 && url_token_span("GET\r\n", 5) == 3 &&
                  url_token_span("X:", 2) == 1 && url_token_span("a\0b", 3) == 1 && url_token_span("\xc3\xa9", 2) == 0,
              "not tokens: empty, space, CR, colon, NUL, non-ASCII");
    TAP_CHECK(url_field_value_span(" a\tb \xff", 6) == 6, "a field value may hold spaces, tabs, obs-text");
    TAP_CHECK(url_field_value_span("a\r\nb", 4) == 1 && url_field_value_span("a\0", 2) == 1 &&
                  url_field_value_span("\x7f", 1) == 0,
              "CR, LF, NUL, DEL are not in a field value");
    char out[64];
    TAP_CHECK(strcmp(url_printable("a\r\n\t\x01\xc3", out, sizeof out), "a\\r\\n\\t\\x01\\xc3") == 0, "printable");
    url_authority("::1", "8080", false, out, sizeof out);
    bool v6 = strcmp(out, "[::1]:8080") == 0;
    url_authority("::1", "80", false, out, sizeof out);
    v6 = v6 && strcmp(out, "[::1]") == 0;
    url_authority("h", "443", true, out, sizeof out);
    TAP_CHECK(v6 && strcmp(out, "h") == 0, "authority: IPv6 in brackets, default ports left out");
    char *b = url_base64("u:p@x", 5), *b1 = url_base64("a", 1), *b0 = url_base64("", 0);
    TAP_CHECK(b && b1 && b0 && strcmp(b, "dTpwQHg=") == 0 && strcmp(b1, "YQ==") == 0 && strcmp(b0, "") == 0, "base64");
    free(b);
    free(b1);
    free(b0);
}

int main(void)
{
    test_parts();
    test_targets();
    test_authorities();
    test_syntax();
    TAP_EXIT();
}
