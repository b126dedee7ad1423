/* url: the command line's URL into what a request needs, and the syntax
 * checks of what goes into a request line or header (RFC 9110, 9112, 3986).
 * Pure: no I/O, no allocation but the target and the credentials.
 *
 * Accepted: scheme http, https, ws or wss (WebSocket, as http and https) in any case, "://", an authority
 * [userinfo@]host[:port], then an optional path, query and fragment.
 *  - host: a name or IPv4 address (letters, digits, "-._~" and sub-delims),
 *    or an IPv6 address in brackets (kept without them);
 *  - port: 1..65535; absent or empty ("h:/") is the scheme's (80, 443);
 *  - userinfo: percent-decoded into `credentials` ("user:password"), for an
 *    Authorization: Basic header as curl sends it;
 *  - the request target: the path ("/" when there is none, also before a
 *    query: "http://h?x" -> "/?x") and the query; the fragment is dropped,
 *    as a browser does. Bytes RFC 3986 does not allow there (space, "<>\"`{}|\\^[]",
 *    non-ASCII) are percent-encoded as a browser does (space -> %20);
 *    a control byte (CR, LF, tab, ...) and a '%' not followed by two
 *    hex digits are errors.
 * Errors name the part and the byte. */
#ifndef BARRAGE_URL_H
#define BARRAGE_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define URL_HOST_MAX 256
#define URL_PORT_MAX 8

struct url {
    bool tls;                 /* https, wss */
    bool ws;                  /* ws, wss */
    bool port_given;          /* the URL names a port */
    char host[URL_HOST_MAX];  /* IPv6 without brackets */
    char port[URL_PORT_MAX];  /* decimal, the scheme's when not given */
    char *target;             /* owned (url_free): origin-form path[?query] */
    char *credentials;        /* owned: decoded userinfo, or NULL when the URL has none */
};

/* RFC 3986: a byte a request target holds as itself, which url_parse and
 * url_target keep unchanged: unreserved, sub-delims, ':', '@', '/' and '?'
 * (not '%', which starts an escape, nor '#', the fragment's). */
static inline bool url_target_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && c < 0x80 && strchr("-._~!$&'()*+,;=:@/?", c));
}

/* Parses text into u; 0, or -1 with the reason in err (u then holds nothing
 * to free). */
int url_parse(const char *text, struct url *u, char *err, size_t errlen);
void url_free(struct url *u);

/* A request target from another source (a --urls line's path, from '/'),
 * checked and made as url_parse makes the URL's: the fragment dropped, the
 * bytes RFC 3986 does not allow percent-encoded; into *target (malloc'd, the
 * caller's). 0, or -1 with why in err (a control byte, a '%' not followed by
 * two hex digits: "at byte N"). */
int url_target(const char *s, char **target, char *err, size_t errlen);

/* The Host header's value / HTTP/2 :authority for host and port: IPv6 in
 * brackets, the port only when it is not the scheme's default. Writes at most
 * cap bytes (NUL included). */
void url_authority(const char *host, const char *port, bool tls, char *out, size_t cap);

/* RFC 9110 5.6.2: s[0..len) is a token (one or more tchar). Returns len when
 * it is, else the index of the first bad byte (0 for an empty string). */
size_t url_token_span(const char *s, size_t len);
/* RFC 9110 5.5: the index of the first byte not allowed in a field value (a
 * control byte but tab: CR, LF, NUL, DEL ...), or len when there is none. */
size_t url_field_value_span(const char *s, size_t len);

/* s with control and non-ASCII bytes written as \r, \n, \t or \xNN, for
 * error messages (truncated to cap, NUL-terminated). Returns out. */
const char *url_printable(const char *s, char *out, size_t cap);

/* Base64 (standard alphabet, padded) of s[0..len) into a malloc'd string the
 * caller frees; NULL when out of memory. */
char *url_base64(const char *s, size_t len);

#endif
