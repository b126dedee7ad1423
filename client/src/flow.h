/* flow: a declarative request chain (--flow FILE, client/FLOWS.md), parsed
 * whole before the run. Steps in order; a step is a request line as in
 * --urls, `[METHOD] TARGET [@BODYFILE]`, TARGET a path on the command line's
 * URL (@@BODYFILE: the file sent as it is, `${` and all), then indented lines for it:
 *   Name: value                 a header field (replaces a -H field of that name)
 *   body TEXT                   the body (instead of @BODYFILE)
 *   expect STATUS[,STATUS...]   codes or classes (2xx); anything else is unexpected
 *   expect body ~ RE            the body must match RE (POSIX extended; ${NAME} in it
 *                               matches its value literally, outside groups and repeats)
 *   capture NAME = header:H     the value of response header H,
 *                 json:/POINTER a JSON pointer into the body (RFC 6901),
 *                 regex:RE      RE's first group on the body (the whole match without one)
 *   think DURATION              wait after the answer before the next step (250ms, 1s, 500us)
 *   step NAME                   the step's name in the report (default: METHOD TARGET as written)
 * `${NAME}` in the target, header values and body text is replaced per
 * request: a name captured by an earlier step, or a built-in: ${user} (the
 * virtual user, from 1), ${seq} (its iteration, from 0), ${rand:A-B} (an
 * integer drawn in A..B), ${uuid} (a random v4 UUID), ${csv:FILE:COLUMN} (that
 * column, by header name or number from 1, of the user's row: user N reads
 * data row N, round and round). Blank lines and lines starting with '#' are
 * skipped. A bad line is an error "FILE:LINE: why".
 *
 * flow_parse reads nothing (body and CSV files are named); flow_load parses
 * and reads them, relative to the flow file's folder.
 * Ownership: everything is in the flow (flow_free). */
#ifndef BARRAGE_FLOW_H
#define BARRAGE_FLOW_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expect.h"

#define FLOW_MAX_STEPS 64  /* a step is a request kind (stats.h STATS_MAX_KINDS) */
#define FLOW_MAX_VARS 64   /* captured names */
#define FLOW_MAX_CSV 16    /* ${csv:...} columns */
#define FLOW_TOKEN_MAX 255 /* bytes of a JSON pointer's token (capture json:/...) */

enum flow_part_kind {
    FLOW_LITERAL,  /* text[off .. off+len) */
    FLOW_CAPTURED, /* the value of captured variable index */
    FLOW_USER,
    FLOW_SEQ,
    FLOW_RAND,     /* lo..hi */
    FLOW_UUID,
    FLOW_CSV,      /* column index of flow.csv */
};

struct flow_part {
    enum flow_part_kind kind;
    size_t off, len;
    unsigned index;
    int64_t lo, hi;
};

/* A text with ${...} in it: literal parts point into text. */
struct flow_template {
    char *text; /* owned, NUL-terminated: the literal bytes */
    size_t len;
    struct flow_part *parts; /* owned */
    size_t part_count;
};

struct flow_header {
    char *name; /* owned, as written */
    struct flow_template value;
};

enum flow_from { FLOW_FROM_HEADER, FLOW_FROM_JSON, FLOW_FROM_REGEX };

struct flow_capture {
    unsigned var;           /* index in flow.vars */
    enum flow_from from;
    char *arg;              /* owned: the header name, the pointer or the pattern */
    regex_t re;             /* FLOW_FROM_REGEX */
    unsigned lineno;
};

struct flow_step {
    char *method;           /* owned */
    char *name;             /* owned: `step NAME`, else the request line's METHOD TARGET */
    struct flow_template target;
    char *body_file;        /* owned, as written (NULL: none) */
    bool body_raw;          /* @@BODYFILE: the file's bytes as they are, no ${...} */
    bool has_body;          /* a `body` line or a body file (read by flow_load) */
    struct flow_template body;
    struct flow_header *headers; /* owned */
    size_t header_count;
    bool expect_status;     /* an `expect STATUS` line */
    struct expect_status status;
    bool expect_body;       /* an `expect body ~ RE` line */
    regex_t body_re;        /* its RE (with variables: each as "x", checked at load) */
    struct flow_template body_pattern; /* its RE with variables, written out per check; part_count 0: none */
    struct flow_capture *captures; /* owned */
    size_t capture_count;
    uint64_t think_us;
    unsigned lineno;
};

/* A CSV file some ${csv:...} names, read once (flow_load): its fields
 * unescaped in place, each NUL-terminated, so that its columns point into it. */
struct flow_csv_file {
    char *text;             /* owned (NULL until loaded) */
    size_t len;
};

/* CSV files are at most 64 MiB: a column then takes the file (once per file)
 * and 4 bytes a data row. */
#define FLOW_CSV_MAX ((size_t)64 << 20)

/* A ${csv:FILE:COLUMN}: the column's values, one per data row (flow_load). */
struct flow_csv {
    char *file, *column;    /* owned, as written */
    unsigned lineno;
    unsigned file_index;    /* in flow.csv_files: one per file named, however many columns */
    uint32_t *at;           /* owned: rows offsets of the values in their file's text (NULL until loaded) */
    size_t rows;
};

struct flow {
    struct flow_step *steps; /* owned */
    size_t count;
    char *vars[FLOW_MAX_VARS]; /* owned: captured names, by index */
    size_t var_count;
    struct flow_csv csv[FLOW_MAX_CSV];
    size_t csv_count;
    struct flow_csv_file csv_files[FLOW_MAX_CSV];
    size_t csv_file_count;
    bool reads_body;         /* some step captures or checks the body: responses are collected whole */
    bool checks_status;      /* some step has `expect STATUS`: the start of the body is kept (the examples) */
};

/* Parses text (len bytes) of the file called name: 0, or -1 with
 * "name:LINE: why" in err (the flow is then empty). */
int flow_parse(struct flow *f, const char *text, size_t len, const char *name, char *err, size_t errlen);
/* Reads path (a regular file, at most FILEREAD_LIST_MAX bytes), parses it and
 * reads its body and CSV files (relative to its folder; bodies as fileread.h
 * bounds them); 0 or -1 with "PATH[:LINE]: why" in err. */
int flow_load(struct flow *f, const char *path, char *err, size_t errlen);
void flow_free(struct flow *f);

/* Parses a duration "250ms", "1s", "500us", "2m" (a bare number: seconds)
 * into *us; 0 or -1. */
int flow_parse_duration(const char *s, uint64_t *us);

#endif
