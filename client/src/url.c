/* url: the URL's parts, the request target normalised as a browser would
 * send it, and the RFC 9110 token and field-value checks (see url.h). */
#include "url.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int url_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static bool url_is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

static bool url_is_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int url_hex(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* RFC 3986: unreserved and sub-delims. */
static bool url_is_pchar_plain(unsigned char c)
{
    return url_is_alnum(c) || (c && strchr("-._~!$&'()*+,;=", c));
}

size_t url_token_span(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!url_is_alnum(c) && !strchr("!#$%&'*+-.^_`|~", c)) return i;
        if (c == '\0') return i;
    }
    return len;
}

size_t url_field_value_span(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (url_is_control((unsigned char)s[i]) && s[i] != '\t') return i;
    return len;
}

const char *url_printable(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\r') n += (size_t)snprintf(out + n, cap - n, "\\r");
        else if (c == '\n') n += (size_t)snprintf(out + n, cap - n, "\\n");
        else if (c == '\t') n += (size_t)snprintf(out + n, cap - n, "\\t");
        else if (url_is_control(c) || c >= 0x80) n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
        else out[n++] = (char)c;
    }
    if (cap) out[n < cap ? n : cap - 1] = '\0';
    return out;
}

char *url_base64(const char *s, size_t len)
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)s[i] << 16;
        if (i + 1 < len) v |= (uint32_t)(unsigned char)s[i + 1] << 8;
        if (i + 2 < len) v |= (unsigned char)s[i + 2];
        out[n++] = alphabet[v >> 18 & 63];
        out[n++] = alphabet[v >> 12 & 63];
        out[n++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        out[n++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[n] = '\0';
    return out;
}

void url_authority(const char *host, const char *port, bool tls, char *out, size_t cap)
{
    bool default_port = strcmp(port, tls ? "443" : "80") == 0, ipv6 = strchr(host, ':') != NULL;
    snprintf(out, cap, "%s%s%s%s%s", ipv6 ? "[" : "", host, ipv6 ? "]" : "", default_port ? "" : ":",
             default_port ? "" : port);
}

/* Checks the '%' escapes of s[0..len) (offset: where s starts in the URL). */
static int url_check_escapes(const char *s, size_t len, size_t offset, const char *part, char *err, size_t errlen)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (url_is_control(c))
            return url_fail(err, errlen, "a control character (0x%02x) in the URL's %s, at byte %zu: refused", c, part,
                        offset + i);
        bool escape = i + 2 < len && url_hex((unsigned char)s[i + 1]) >= 0 && url_hex((unsigned char)s[i + 2]) >= 0;
        if (c == '%' && !escape)
            return url_fail(err, errlen, "a '%%' not followed by two hex digits in the URL's %s, at byte %zu "
                            "(write a literal %% as %%25)", part, offset + i);
    }
    return 0;
}

/* The origin-form target from the text after the authority (before any '#'). */
static char *url_make_target(const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = malloc(len * 3 + 2), *o = out;
    if (!out) return NULL;
    if (len == 0 || s[0] != '/') *o++ = '/';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        /* pchar and '/' in the path; '?' too in the query; escapes kept */
        if (url_target_char(c) || c == '%') {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return out;
}

/* Percent-decodes s[0..len) (escapes already checked) into a malloc'd string. */
static char *url_decode(const char *s, size_t len)
{
    char *out = malloc(len + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%') {
            *o++ = (char)(url_hex((unsigned char)s[i + 1]) * 16 + url_hex((unsigned char)s[i + 2]));
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return out;
}

static int url_parse_host(const char *text, const char *h, size_t len, struct url *u, char *err, size_t errlen)
{
    size_t offset = (size_t)(h - text);
    if (len == 0) return url_fail(err, errlen, "no host in the URL: %s", text);
    if (h[0] == '[') {
        if (h[len - 1] != ']') return url_fail(err, errlen, "an IPv6 address without its closing ']' in the URL");
        h++;
        len -= 2;
        offset++;
        for (size_t i = 0; i < len; i++)
            if (url_hex((unsigned char)h[i]) < 0 && h[i] != ':' && h[i] != '.')
                return url_fail(err, errlen, "a bad character in the URL's IPv6 address, at byte %zu", offset + i);
        if (len == 0) return url_fail(err, errlen, "an empty IPv6 address in the URL");
    } else {
        for (size_t i = 0; i < len; i++)
            if (!url_is_pchar_plain((unsigned char)h[i]))
                return url_fail(err, errlen, "a bad character (%s0x%02x) in the URL's host, at byte %zu",
                            h[i] == '[' || h[i] == ']' ? "a bracket outside an IPv6 address, " : "",
                            (unsigned char)h[i], offset + i);
    }
    if (len >= sizeof u->host) return url_fail(err, errlen, "the URL's host is too long (at most %zu bytes)", sizeof u->host - 1);
    memcpy(u->host, h, len);
    u->host[len] = '\0';
    return 0;
}

static int url_parse_port(const char *p, size_t len, struct url *u, char *err, size_t errlen)
{
    long port = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9' || port > 65535)
            return url_fail(err, errlen, "bad port '%.*s' in the URL: must be 1..65535", (int)(len > 16 ? 16 : len), p);
        port = port * 10 + (p[i] - '0');
    }
    if (len && (port < 1 || port > 65535))
        return url_fail(err, errlen, "bad port '%.*s' in the URL: must be 1..65535", (int)(len > 16 ? 16 : len), p);
    u->port_given = len > 0;
    snprintf(u->port, sizeof u->port, "%ld", len ? port : u->tls ? 443 : 80);
    return 0;
}

/* [userinfo@]host[:port] */
static int url_parse_authority(const char *text, const char *a, size_t len, struct url *u, char *err, size_t errlen)
{
    const char *at = NULL;
    for (size_t i = 0; i < len; i++)
        if (a[i] == '@') at = a + i;
    if (at) {
        size_t n = (size_t)(at - a);
        if (url_check_escapes(a, n, (size_t)(a - text), "userinfo", err, errlen)) return -1;
        u->credentials = url_decode(a, n);
        if (!u->credentials) return url_fail(err, errlen, "out of memory");
        len -= n + 1;
        a = at + 1;
    }
    const char *colon = NULL;
    const char *close = len && a[0] == '[' ? memchr(a, ']', len) : NULL;
    if (len && a[0] == '[' && !close) return url_fail(err, errlen, "an IPv6 address without its closing ']' in the URL");
    const char *after_host = close ? close + 1 : a;
    colon = memchr(after_host, ':', len - (size_t)(after_host - a));
    size_t host_len = colon ? (size_t)(colon - a) : len;
    if (close && after_host < a + len && !colon)
        return url_fail(err, errlen, "unexpected text after the IPv6 address in the URL, at byte %zu",
                    (size_t)(after_host - text));
    if (url_parse_host(text, a, host_len, u, err, errlen)) return -1;
    return url_parse_port(colon ? colon + 1 : a + len, colon ? (size_t)(a + len - colon - 1) : 0, u, err, errlen);
}

int url_parse(const char *text, struct url *u, char *err, size_t errlen)
{
    *u = (struct url){0};
    size_t scheme = strncasecmp(text, "https://", 8) == 0 ? 8 : strncasecmp(text, "http://", 7) == 0 ? 7 : 0;
    if (!scheme) { /* WebSocket (RFC 6455 3): ws:// as http://, wss:// as https:// */
        scheme = strncasecmp(text, "wss://", 6) == 0 ? 6 : strncasecmp(text, "ws://", 5) == 0 ? 5 : 0;
        u->ws = scheme != 0;
    }
    if (!scheme) return url_fail(err, errlen, "the URL must start with http://, https://, ws:// or wss://: %s", text);
    u->tls = scheme == 8 || scheme == 6;
    const char *a = text + scheme;
    size_t authority = strcspn(a, "/?#");
    const char *rest = a + authority;
    size_t target_len = strcspn(rest, "#"); /* the fragment is the browser's, never sent */
    if (url_parse_authority(text, a, authority, u, err, errlen) ||
        url_check_escapes(rest, target_len, (size_t)(rest - text), "path or query", err, errlen)) {
        url_free(u);
        return -1;
    }
    u->target = url_make_target(rest, target_len);
    if (!u->target) {
        url_free(u);
        return url_fail(err, errlen, "out of memory");
    }
    return 0;
}

int url_target(const char *s, char **target, char *err, size_t errlen)
{
    size_t len = strcspn(s, "#");
    *target = NULL;
    if (url_check_escapes(s, len, 0, "target", err, errlen)) return -1;
    if (!(*target = url_make_target(s, len))) return url_fail(err, errlen, "out of memory");
    return 0;
}

void url_free(struct url *u)
{
    free(u->target);
    free(u->credentials);
    u->target = u->credentials = NULL;
}
