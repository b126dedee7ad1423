/* urllist: a line at a time, split on blanks into at most three fields. */
#include "urllist.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileread.h"
#include "url.h"

#define MAX_FIELD 8192

static int fail(char *err, size_t errlen, const char *name, unsigned lineno, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (lineno) snprintf(err, errlen, "%s:%u: %s", name, lineno, why);
    else snprintf(err, errlen, "%s: %s", name, why); /* an empty list: no line to name */
    return -1;
}

static bool tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c);
}

/* A request target may hold any visible ASCII character. */
static bool target_char(char c)
{
    return c > 0x20 && c < 0x7f;
}

static bool visible(const char *s)
{
    for (; *s; s++)
        if (!target_char(*s)) return false;
    return true;
}

static void set_authority(struct urllist_origin *o, bool tls)
{
    bool ipv6 = strchr(o->host, ':') != NULL, dflt = strcmp(o->port, tls ? "443" : "80") == 0;
    snprintf(o->authority, sizeof o->authority, "%s%s%s%s%s", ipv6 ? "[" : "", o->host, ipv6 ? "]" : "",
             dflt ? "" : ":", dflt ? "" : o->port);
}

/* The origin of host:port, added when new; its index, or -1 when out of memory. */
static long origin_index(struct urllist *l, const struct urllist_origin *o, bool tls)
{
    for (size_t i = 0; i < l->origin_count; i++)
        if (!strcmp(l->origins[i].host, o->host) && !strcmp(l->origins[i].port, o->port)) return (long)i;
    struct urllist_origin *more = realloc(l->origins, (l->origin_count + 1) * sizeof *more);
    if (!more) return -1;
    l->origins = more;
    more[l->origin_count] = *o;
    set_authority(&more[l->origin_count], tls);
    return (long)l->origin_count++;
}

/* http[s]://host[:port] at u; sets o and *path (the rest, "" when none). NULL: fine, else why not. */
static const char *parse_origin(const char *u, bool tls, struct urllist_origin *o, const char **path)
{
    const char *scheme = tls ? "https://" : "http://";
    if (strncmp(u, scheme, strlen(scheme)) != 0)
        return tls ? "every URL must be https:// as the command line's" : "every URL must be http:// as the command line's";
    u += strlen(scheme);
    const char *slash = strchr(u, '/'), *end = slash ? slash : u + strlen(u), *host = u, *colon;
    size_t host_len;
    if (*u == '[') {
        const char *close = memchr(u, ']', (size_t)(end - u));
        if (!close) return "bad IPv6 address";
        host = u + 1;
        host_len = (size_t)(close - host);
        colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
        if (!colon && close + 1 != end) return "bad host";
    } else {
        colon = memchr(u, ':', (size_t)(end - u));
        host_len = (size_t)((colon ? colon : end) - u);
    }
    if (host_len == 0 || host_len >= sizeof o->host) return "bad host";
    memcpy(o->host, host, host_len);
    o->host[host_len] = '\0';
    if (colon) {
        size_t port_len = (size_t)(end - colon - 1);
        if (port_len == 0 || port_len >= sizeof o->port || strspn(colon + 1, "0123456789") < port_len) return "bad port";
        memcpy(o->port, colon + 1, port_len);
        o->port[port_len] = '\0';
        long p = strtol(o->port, NULL, 10);
        if (p < 1 || p > 65535) return "bad port";
    } else {
        strcpy(o->port, tls ? "443" : "80");
    }
    *path = slash ? slash : "";
    return NULL;
}

static char *dup_range(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

/* Splits line (NUL-terminated, no newline) into up to 4 blank-separated fields. */
static size_t split(char *line, char *fields[4])
{
    size_t n = 0;
    char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t') *p++ = '\0';
        if (!*p) break;
        if (n == 4) return 5;
        fields[n++] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
    }
    return n;
}

/* Whether the first field is a METHOD (not a path, not an absolute URL). */
static bool is_method(const char *field)
{
    return field[0] != '/' && !strstr(field, "://");
}

/* The TARGET field of line (split in place): NULL for a blank or comment line,
 * "" for a METHOD without one. */
static const char *line_target(char *line)
{
    char *f[4];
    size_t n = split(line, f);
    if (n == 0 || f[0][0] == '#') return NULL;
    size_t i = is_method(f[0]) ? 1 : 0;
    return i < n ? f[i] : "";
}

static int parse_line(struct urllist *l, char *line, unsigned lineno, const char *name, bool tls, char *err,
                      size_t errlen)
{
    char *f[4];
    size_t n = split(line, f);
    if (n == 0 || f[0][0] == '#') return 0;
    if (n > 3) return fail(err, errlen, name, lineno, "too many fields (expected [METHOD] TARGET [@BODYFILE])");
    size_t i = 0;
    const char *method = "GET";
    if (is_method(f[0])) {
        method = f[i++];
        for (const char *c = method; *c; c++)
            if (!tchar(*c)) return fail(err, errlen, name, lineno, "bad method '%s'", method);
    }
    if (i == n) return fail(err, errlen, name, lineno, "no target after the method");
    const char *target = f[i++], *path = target;
    const char *body_file = NULL;
    if (i < n) {
        if (f[i][0] != '@' || !f[i][1]) return fail(err, errlen, name, lineno, "bad body '%s' (expected @FILE)", f[i]);
        body_file = f[i] + 1;
    }
    if (strlen(target) > MAX_FIELD) return fail(err, errlen, name, lineno, "target longer than %d bytes", MAX_FIELD);
    long origin = 0;
    if (target[0] != '/' && !strstr(target, "://"))
        return fail(err, errlen, name, lineno, "bad target '%s' (a path from / or an absolute URL)", target);
    if (target[0] != '/') {
        struct urllist_origin o = {0};
        const char *why = parse_origin(target, tls, &o, &path);
        if (why) return fail(err, errlen, name, lineno, "%s: '%s'", why, target);
        if ((origin = origin_index(l, &o, tls)) < 0) return fail(err, errlen, name, lineno, "out of memory");
        if (!*path) path = "/";
        if (*path != '/') return fail(err, errlen, name, lineno, "bad target '%s'", target);
    }
    if (!visible(path)) return fail(err, errlen, name, lineno, "bad character in target '%s'", target);
    char *made, why[200];
    if (url_target(path, &made, why, sizeof why)) return fail(err, errlen, name, lineno, "%s: '%s'", why, target);
    if (l->count == l->lines_cap) { /* doubling: a million lines without a million reallocations */
        size_t cap = l->lines_cap ? 2 * l->lines_cap : 64;
        struct urllist_line *more = realloc(l->lines, cap * sizeof *more);
        if (!more) free(made);
        if (!more) return fail(err, errlen, name, lineno, "out of memory");
        l->lines = more;
        l->lines_cap = cap;
    }
    struct urllist_line *ln = &l->lines[l->count];
    *ln = (struct urllist_line){.method = dup_range(method, strlen(method)), .path = made, .origin = (size_t)origin,
                                .lineno = lineno};
    l->count++;
    if (!ln->method || !ln->path || (body_file && !(ln->body_file = dup_range(body_file, strlen(body_file)))))
        return fail(err, errlen, name, lineno, "out of memory");
    return 0;
}

int urllist_parse(struct urllist *l, const char *text, size_t len, const char *name, bool tls, const char *host,
                  const char *port, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    struct urllist_origin first = {0};
    snprintf(first.host, sizeof first.host, "%s", host);
    snprintf(first.port, sizeof first.port, "%s", port);
    if (origin_index(l, &first, tls) < 0) return fail(err, errlen, name, 0, "out of memory");
    char *line = NULL;
    size_t at = 0;
    unsigned lineno = 0;
    int rc = 0;
    while (at < len && rc == 0) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t raw = nl ? (size_t)(nl - (text + at)) : len - at, n = raw;
        lineno++;
        if (n && text[at + n - 1] == '\r') n--;
        if (memchr(text + at, '\0', n)) {
            rc = fail(err, errlen, name, lineno, "a NUL byte");
            break;
        }
        free(line);
        if (!(line = dup_range(text + at, n))) rc = fail(err, errlen, name, lineno, "out of memory");
        else rc = parse_line(l, line, lineno, name, tls, err, errlen);
        at += raw + (nl != NULL);
    }
    free(line);
    if (rc == 0 && l->count == 0) rc = fail(err, errlen, name, lineno, "no request in the list");
    if (rc) urllist_free(l);
    return rc;
}

const char *urllist_name(const char *path)
{
    return strcmp(path, "-") ? path : "stdin";
}

int urllist_read(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    char why[200];
    int rc = strcmp(path, "-") ? fileread_path(path, FILEREAD_LIST_MAX, text, len, why, sizeof why)
                               : fileread_fd(0, FILEREAD_LIST_MAX, text, len, why, sizeof why);
    if (rc) snprintf(err, errlen, "--urls %s: %s", urllist_name(path), why);
    return rc;
}

/* The slot of name in an open-addressing table (mask + 1 slots, more than the
 * lines naming a body file) of the first line naming it, as its index + 1
 * (0: none yet). */
static size_t *body_slot(size_t *slots, size_t mask, const struct urllist *l, const char *name)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask)
        if (!slots[i] || !strcmp(l->lines[slots[i] - 1].body_file, name)) return &slots[i];
}

/* Reads each body file once, relative to the list's folder; the lines naming
 * it share what was read. */
static int read_bodies(struct urllist *l, const char *path, char *err, size_t errlen)
{
    const char *slash = strcmp(path, "-") ? strrchr(path, '/') : NULL; /* stdin's: from the working folder */
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0, mask = 1, named = 0;
    for (size_t i = 0; i < l->count; i++) named += l->lines[i].body_file != NULL;
    if (!named) return 0;
    while (mask < 2 * named) mask <<= 1;
    size_t *slots = calloc(mask, sizeof *slots);
    if (!slots || !(l->bodies = calloc(named, sizeof *l->bodies))) {
        free(slots);
        return fail(err, errlen, urllist_name(path), 0, "out of memory");
    }
    int rc = 0;
    size_t total = 0;
    for (size_t i = 0; i < l->count && rc == 0; i++) {
        struct urllist_line *ln = &l->lines[i];
        if (!ln->body_file) continue;
        size_t *slot = body_slot(slots, mask - 1, l, ln->body_file);
        if (*slot) {
            const struct urllist_line *first = &l->lines[*slot - 1];
            ln->body = first->body, ln->body_len = first->body_len;
            continue;
        }
        char full[4096];
        if (ln->body_file[0] == '/') snprintf(full, sizeof full, "%s", ln->body_file);
        else snprintf(full, sizeof full, "%.*s%s", (int)dir_len, path, ln->body_file);
        char *body, why[200];
        if (fileread_path(full, FILEREAD_BODY_MAX, &body, &ln->body_len, why, sizeof why)) {
            rc = fail(err, errlen, urllist_name(path), ln->lineno, "cannot read body file %s: %s", full, why);
            break;
        }
        if ((total += ln->body_len) > FILEREAD_BODIES_MAX) {
            free(body);
            rc = fail(err, errlen, urllist_name(path), ln->lineno, "body file %s: the list's body files are over %zu MiB in all",
                      full, FILEREAD_BODIES_MAX >> 20);
            break;
        }
        ln->body = l->bodies[l->body_count++] = body;
        *slot = i + 1;
    }
    free(slots);
    return rc;
}

int urllist_load(struct urllist *l, const char *text, size_t len, const char *path, bool tls, const char *host,
                 const char *port, char *err, size_t errlen)
{
    int rc = urllist_parse(l, text, len, urllist_name(path), tls, host, port, err, errlen);
    if (rc == 0 && read_bodies(l, path, err, errlen)) {
        urllist_free(l);
        return -1;
    }
    return rc;
}

void urllist_free(struct urllist *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->lines[i].method);
        free(l->lines[i].path);
        free(l->lines[i].body_file);
    }
    for (size_t i = 0; i < l->body_count; i++) free(l->bodies[i]);
    free(l->bodies);
    free(l->lines);
    free(l->origins);
    memset(l, 0, sizeof *l);
}

int urllist_first_url(const char *text, size_t len, const char *name, char **url, char *err, size_t errlen)
{
    size_t at = 0;
    unsigned lineno = 0;
    *url = NULL;
    char *line = NULL;
    const char *target = NULL;
    int rc = 0;
    bool nul = false;
    while (!target && !nul && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t raw = nl ? (size_t)(nl - (text + at)) : len - at, n = raw;
        lineno++;
        free(line);
        if (n && text[at + n - 1] == '\r') n--;
        if (!(line = dup_range(text + at, n))) break;
        nul = memchr(text + at, '\0', n) != NULL;
        at += raw + (nl != NULL);
        target = line_target(line);
    }
    if (nul) rc = fail(err, errlen, name, lineno, "a NUL byte");
    else if (at < len && !line) rc = fail(err, errlen, name, lineno, "out of memory");
    else if (!target) rc = fail(err, errlen, name, lineno, "no request in the list");
    else if (!*target) rc = fail(err, errlen, name, lineno, "no target after the method");
    else if (!strstr(target, "://"))
        rc = fail(err, errlen, name, lineno,
                  "the first request is a path ('%s'): give the URL on the command line, or make it an absolute URL",
                  target);
    else if (!visible(target)) rc = fail(err, errlen, name, lineno, "bad character in target '%s'", target);
    else if (!(*url = dup_range(target, strlen(target)))) rc = fail(err, errlen, name, lineno, "out of memory");
    free(line);
    return rc;
}
