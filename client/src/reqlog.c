/* reqlog: --log's per-request CSV lines (contract in reqlog.h). Each worker
 * formats its lines into its own buffer, by hand (no stdio, no lock), and
 * writes the buffer whole; a line is never split across two writes. */
#include "reqlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monotonic.h"
#include "rng.h"

/* the longest line: the numbers' digits, a step quoted with every byte doubled */
#define LINE_MAX_BYTES (2 * REQLOG_STEP_MAX + 256)

struct reqlog {
    int fd;
    bool all;                   /* sample 1: no draw */
    uint64_t below;             /* a draw under this is logged */
    uint64_t seed;
    int64_t wall_offset_us;     /* CLOCK_REALTIME - CLOCK_MONOTONIC, at the open */
    char path[512];             /* for messages */
    atomic_bool failed;         /* a write failed: nothing more is written */
    atomic_int first_errno;
    _Atomic uint64_t lost;      /* lines not written */
    _Atomic unsigned writer_failures; /* writers that could not be made */
};

/* A sampled request in flight: its step, until its line is written. */
struct entry {
    uint32_t next_free; /* the next free entry + 1, 0: none (while free) */
    uint16_t len;
    char step[REQLOG_STEP_MAX + 4];
    unsigned user;      /* request.user: 0 none */
    uint64_t iteration;
};

struct reqlog_writer {
    struct reqlog *log;
    unsigned thread;
    struct rng rng;
    struct entry *entries;
    uint32_t count, cap, free_head; /* free_head: a free entry + 1, 0: none */
    size_t len;
    char buf[REQLOG_BUFFER];
};

static const char *const error_names[REQ_ERR_KINDS] = {"timeout", "read", "write", "protocol", "reset"};

static int64_t wall_offset_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - (int64_t)monotonic_now_us();
}

/* Writes len bytes whole (a short write continues); on failure the log fails. */
static void log_write(struct reqlog *log, const char *data, size_t len, uint64_t lines)
{
    while (len > 0 && !atomic_load_explicit(&log->failed, memory_order_relaxed)) {
        ssize_t n = write(log->fd, data, len);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            int e = n < 0 ? errno : ENOSPC;
            int none = 0;
            atomic_compare_exchange_strong(&log->first_errno, &none, e);
            atomic_store(&log->failed, true);
        }
    }
    if (len > 0) atomic_fetch_add(&log->lost, lines);
}

struct reqlog *reqlog_open(const char *path, double sample, uint64_t seed, char *err, size_t errlen)
{
    struct reqlog *log = calloc(1, sizeof *log);
    if (!log) {
        snprintf(err, errlen, "--log %s: out of memory", path);
        return NULL;
    }
    log->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0666);
    if (log->fd < 0) {
        if (errno == ENXIO) snprintf(err, errlen, "--log %s: a FIFO that nobody reads (start its reader first)", path);
        else snprintf(err, errlen, "--log %s: %s", path, strerror(errno));
        free(log);
        return NULL;
    }
    log->all = sample >= 1;
    log->below = log->all ? UINT64_MAX : (uint64_t)(sample * 18446744073709551616.0);
    log->seed = seed;
    log->wall_offset_us = wall_offset_us();
    snprintf(log->path, sizeof log->path, "%s", path);
    log_write(log, REQLOG_HEADER, strlen(REQLOG_HEADER), 0);
    return log;
}

int reqlog_close(struct reqlog *log, char *err, size_t errlen)
{
    if (!log) return 0;
    int rc = 0;
    if (atomic_load(&log->failed)) {
        snprintf(err, errlen, "--log %s: could not be written whole (%s; %llu lines lost)", log->path,
                 strerror(atomic_load(&log->first_errno)), (unsigned long long)atomic_load(&log->lost));
        rc = -1;
    } else if (atomic_load(&log->writer_failures)) {
        snprintf(err, errlen, "--log %s: out of memory: %u threads' requests are not in it", log->path,
                 atomic_load(&log->writer_failures));
        rc = -1;
    }
    if (close(log->fd) != 0 && rc == 0) {
        snprintf(err, errlen, "--log %s: %s", log->path, strerror(errno));
        rc = -1;
    }
    free(log);
    return rc;
}

struct reqlog_writer *reqlog_writer_new(struct reqlog *log, unsigned thread)
{
    struct reqlog_writer *w = malloc(sizeof *w);
    if (!w) {
        atomic_fetch_add(&log->writer_failures, 1);
        return NULL;
    }
    w->log = log;
    w->thread = thread;
    w->entries = NULL;
    w->count = w->cap = w->free_head = 0;
    w->len = 0;
    rng_seed(&w->rng, log->seed ^ ((uint64_t)(thread + 1) * 0x9fb21c651e98df25ULL));
    return w;
}

static void writer_flush(struct reqlog_writer *w, uint64_t lines)
{
    if (w->len) log_write(w->log, w->buf, w->len, lines);
    w->len = 0;
}

/* Lines in the buffer (for the count of lost ones). */
static uint64_t buffered_lines(const struct reqlog_writer *w)
{
    uint64_t n = 0;
    for (size_t i = 0; i < w->len; i++) n += w->buf[i] == '\n';
    return n;
}

void reqlog_writer_tick(struct reqlog_writer *w)
{
    if (w && w->len) writer_flush(w, buffered_lines(w));
}

void reqlog_writer_free(struct reqlog_writer *w)
{
    if (!w) return;
    reqlog_writer_tick(w);
    free(w->entries);
    free(w);
}

/* A free entry's index, or -1 when out of memory. */
static long entry_take(struct reqlog_writer *w)
{
    if (w->free_head) {
        uint32_t i = w->free_head - 1;
        w->free_head = w->entries[i].next_free;
        return i;
    }
    if (w->count == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 16;
        struct entry *e = cap > w->cap ? realloc(w->entries, (size_t)cap * sizeof *e) : NULL;
        if (!e) return -1;
        w->entries = e;
        w->cap = cap;
    }
    return w->count++;
}

/* Appends n bytes of s to the step, as one line of text (control bytes as '?'). */
static void step_put(struct entry *e, const char *s, size_t n)
{
    size_t i = 0;
    for (; i < n && e->len < REQLOG_STEP_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        e->step[e->len++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    if (i < n) memcpy(e->step + REQLOG_STEP_MAX - 3, "...", 3); /* cut */
}

/* The request line's method and target from HTTP/2 fields. */
static bool step_of_fields(struct entry *e, const struct request *req)
{
    const nghttp2_nv *method = NULL, *path = NULL;
    for (size_t i = 0; i < req->field_count; i++) {
        const nghttp2_nv *f = &req->fields[i];
        if (f->namelen == 7 && !memcmp(f->name, ":method", 7)) method = f;
        else if (f->namelen == 5 && !memcmp(f->name, ":path", 5)) path = f;
    }
    if (!method || !path) return false;
    step_put(e, (const char *)method->value, method->valuelen);
    step_put(e, " ", 1);
    step_put(e, (const char *)path->value, path->valuelen);
    return true;
}

/* The first line of an HTTP/1.1 text without its " HTTP/1.1". */
static bool step_of_text(struct entry *e, const struct request *req)
{
    const char *t = (const char *)req->text;
    size_t n = 0;
    while (n < req->text_len && t[n] != '\r' && t[n] != '\n') n++;
    size_t end = n;
    while (end > 0 && t[end - 1] != ' ') end--;
    if (end > 0 && n - end >= 5 && !memcmp(t + end, "HTTP/", 5)) n = end - 1;
    step_put(e, t, n);
    return n > 0;
}

static void step_of(struct entry *e, const struct request *req)
{
    e->len = 0;
    if (req->kind >= 0 && req->kind_name) step_put(e, req->kind_name, strlen(req->kind_name));
    else if (!(req->field_count && step_of_fields(e, req)) && !(req->text_len && step_of_text(e, req)))
        step_put(e, "-", 1);
}

uint32_t reqlog_begin(struct reqlog_writer *w, const struct request *req)
{
    if (!w || (!w->log->all && rng_next(&w->rng) >= w->log->below)) return 0;
    long i = entry_take(w);
    if (i < 0) {
        atomic_fetch_add(&w->log->lost, 1);
        return 0;
    }
    step_of(&w->entries[i], req);
    w->entries[i].user = req->user;
    w->entries[i].iteration = req->iteration;
    return (uint32_t)i + 1;
}

/* The decimal digits of v at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

/* The step as a CSV field: quoted, quotes doubled, when it holds a comma or a quote. */
static char *put_step(char *p, const struct entry *e)
{
    if (!memchr(e->step, ',', e->len) && !memchr(e->step, '"', e->len)) {
        memcpy(p, e->step, e->len);
        return p + e->len;
    }
    *p++ = '"';
    for (size_t i = 0; i < e->len; i++) {
        if (e->step[i] == '"') *p++ = '"';
        *p++ = e->step[i];
    }
    *p++ = '"';
    return p;
}

/* The error column: the request error's name, "unexpected" for a response that failed its checks. */
static char *put_error(char *p, const struct outcome *o, bool expected)
{
    const char *name = o->kind == OUTCOME_ERROR ? error_names[o->error] : expected ? "" : "unexpected";
    size_t n = strlen(name);
    memcpy(p, name, n);
    return p + n;
}

void reqlog_end(struct reqlog_writer *w, uint32_t slot, unsigned conn, const struct req_ctx *ctx,
                const struct outcome *o, bool expected)
{
    struct entry *e = &w->entries[slot - 1];
    if (o->kind == OUTCOME_RESPONSE || o->kind == OUTCOME_ERROR) {
        if (w->len + LINE_MAX_BYTES > sizeof w->buf) writer_flush(w, buffered_lines(w));
        char *p = w->buf + w->len;
        int64_t start = (int64_t)ctx->scheduled_us + w->log->wall_offset_us;
        p = put_u64(p, start > 0 ? (uint64_t)start : 0);
        *p++ = ',';
        p = put_u64(p, w->thread);
        *p++ = ',';
        p = put_u64(p, conn);
        *p++ = ',';
        p = put_step(p, e);
        *p++ = ',';
        if (o->kind == OUTCOME_RESPONSE) p = put_u64(p, (uint64_t)o->status);
        *p++ = ',';
        p = put_error(p, o, expected);
        *p++ = ',';
        p = put_u64(p, o->now_us - ctx->scheduled_us);
        *p++ = ',';
        p = put_u64(p, o->kind == OUTCOME_RESPONSE ? o->body_bytes : 0);
        *p++ = ',';
        if (e->user) p = put_u64(p, e->user);
        *p++ = ',';
        if (e->user) p = put_u64(p, e->iteration);
        *p++ = '\n';
        w->len = (size_t)(p - w->buf);
    }
    e->next_free = w->free_head;
    w->free_head = slot;
}
