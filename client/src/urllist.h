/* urllist: the request list of --urls FILE, parsed whole before the run.
 * One request per line:  [METHOD] TARGET [@BODYFILE]
 *   TARGET   a path on the command line's URL ("/a?b=1") or an absolute URL
 *            (http[s]://host[:port]/path) with the command line's scheme;
 *            each distinct host:port is an origin with its own connections
 *            its path made as the command line's URL's (url_target: the
 *            fragment dropped, bytes RFC 3986 does not allow percent-encoded,
 *            a control byte or a bad '%' escape an error)
 *   METHOD   a token (GET when absent); BODYFILE relative to the list's folder
 * The list is a file, or standard input for "-" (read once, by cli.c).
 * Blank lines and lines starting with '#' are skipped. A bad line is an error
 * "FILE:LINE: why"; a list without a request is an error too.
 * Ownership: everything is in the urllist (urllist_free). */
#ifndef BARRAGE_URLLIST_H
#define BARRAGE_URLLIST_H

#include <stdbool.h>
#include <stddef.h>

struct urllist_origin {
    char host[256]; /* without brackets */
    char port[8];
    char authority[300]; /* host[:port] as the Host header says it (port only when not the scheme's) */
};

struct urllist_line {
    char *method;     /* owned */
    char *path;       /* owned: the request target (url_target's) */
    size_t origin;    /* index in origins; 0 is the command line's URL */
    char *body_file;  /* owned, as written (NULL: none) */
    const char *body; /* in urllist.bodies, read by urllist_load (NULL: -b's body); lines naming
                       * the same file share it */
    size_t body_len;
    unsigned lineno;
};

struct urllist {
    struct urllist_line *lines;
    size_t count;
    size_t lines_cap; /* lines' room (urllist.c's) */
    struct urllist_origin *origins;
    size_t origin_count;
    char **bodies;    /* owned: each body file read, once however many lines name it */
    size_t body_count;
};

/* Parses text (len bytes) of the file called name; origin 0 is the command
 * line's URL (scheme tls, host, port). Body files are named, not read.
 * 0, or -1 with "name:line: why" in err (the list is then empty). */
int urllist_parse(struct urllist *l, const char *text, size_t len, const char *name, bool tls, const char *host,
                  const char *port, char *err, size_t errlen);
/* The list's text from path, or from standard input when path is "-" (as
 * h2load -i -), at most FILEREAD_LIST_MAX bytes; path must be a regular file
 * (fileread.h: a device or a FIFO is refused): 0 with *text malloc'd (the
 * caller's) and *len set, or -1 with "--urls PATH: why" in err. */
int urllist_read(const char *path, char **text, size_t *len, char *err, size_t errlen);
/* The name errors give the list at path: "stdin" for "-", else path. */
const char *urllist_name(const char *path);
/* Parses text, the list read from path, and reads its body files (relative to
 * path's folder; stdin's to the working folder; each a regular file of at
 * most FILEREAD_BODY_MAX bytes, FILEREAD_BODIES_MAX in all); 0 or -1 with err. */
int urllist_load(struct urllist *l, const char *text, size_t len, const char *path, bool tls, const char *host,
                 const char *port, char *err, size_t errlen);
void urllist_free(struct urllist *l);
/* As h2load -i takes the first URI's origin: the first request line's TARGET
 * in text (len bytes, the list called name), when no URL is on the command
 * line. 0 with *url set (malloc'd, the caller's) when it is an absolute URL,
 * else -1 with the reason in err ("name:line: ..." for a path, an empty list). */
int urllist_first_url(const char *text, size_t len, const char *name, char **url, char *err, size_t errlen);

#endif
