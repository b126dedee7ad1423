/* http1_parser: byte-at-a-time state machine for heads, bulk counting for bodies. */
#include "http1_parser.h"

#include <string.h>

enum {
    S_HTTP,          /* matching "HTTP/1." */
    S_MINOR,
    S_SP,
    S_CODE,
    S_AFTER_CODE,
    S_REASON,
    S_LINE_START,    /* start of a header line, or the empty line */
    S_NAME,
    S_VALUE_SKIP_WS,
    S_VALUE,
    S_HEAD_END_LF,
    S_BODY_LENGTH,
    S_BODY_EOF,
    S_CHUNK_SIZE,
    S_CHUNK_EXT,
    S_CHUNK_SIZE_LF,
    S_CHUNK_DATA,
    S_CHUNK_DATA_CR,
    S_CHUNK_DATA_LF,
    S_TRAILER_START,
    S_TRAILER_LINE,
    S_TRAILER_END_LF,
    S_DONE,
    S_ERROR,
};

/* the header a line carries: only these have their value kept and read */
enum { FIELD_OTHER, FIELD_CONTENT_LENGTH, FIELD_TRANSFER_ENCODING, FIELD_CONNECTION };

#define CHUNK_SIZE_MAX (1ULL << 56)

static const char http_prefix[] = "HTTP/1.";

void http1_parser_init(struct http1_parser *p, size_t max_header)
{
    memset(p, 0, sizeof *p);
    p->max_header = max_header;
    http1_parser_next(p, false);
}

static void head_reset(struct http1_parser *p)
{
    p->state = S_HTTP;
    p->pos = 0;
    p->status = 0;
    p->header_bytes = 0;
    p->has_length = p->chunked = p->conn_close = p->conn_keep = false;
    p->content_length = 0;
    p->remaining = 0;
    p->chunk_digits = false;
}

void http1_parser_next(struct http1_parser *p, bool head)
{
    p->head = head;
    p->keep_alive = false;
    p->body_bytes = 0;
    p->bytes = 0;
    p->interim = 0;
    p->error = HTTP1_OK;
    head_reset(p);
}

const char *http1_error_name(enum http1_error e)
{
    switch (e) {
    case HTTP1_OK: return "ok";
    case HTTP1_BAD_STATUS: return "bad status line";
    case HTTP1_BAD_HEADER: return "bad header";
    case HTTP1_HEADER_TOO_LARGE: return "header too large";
    case HTTP1_BAD_CHUNK: return "bad chunk";
    case HTTP1_TRUNCATED: return "truncated";
    }
    return "unknown";
}

static int fail(struct http1_parser *p, enum http1_error e)
{
    p->error = e;
    p->state = S_ERROR;
    return S_ERROR;
}

static bool is_token(uint8_t c)
{
    if (c >= '0' && c <= '9') return true;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static bool name_is(const struct http1_parser *p, const char *name)
{
    return !p->name_long && p->name_len == strlen(name) && memcmp(p->name, name, p->name_len) == 0;
}

/* Which of the headers that frame the response a complete name is, once per line. */
static uint8_t field_of(const struct http1_parser *p)
{
    if (name_is(p, "content-length")) return FIELD_CONTENT_LENGTH;
    if (name_is(p, "transfer-encoding")) return FIELD_TRANSFER_ENCODING;
    if (name_is(p, "connection")) return FIELD_CONNECTION;
    return FIELD_OTHER;
}

static bool value_has_token(const struct http1_parser *p, const char *token)
{
    size_t n = strlen(token);
    for (size_t i = 0; i + n <= p->value_len; i++) {
        bool start = i == 0 || p->value[i - 1] == ',' || p->value[i - 1] == ' ';
        bool end = i + n == p->value_len || p->value[i + n] == ',' || p->value[i + n] == ' ';
        if (start && end && memcmp(p->value + i, token, n) == 0) return true;
    }
    return false;
}

/* A header line ended: act on the few headers that frame the response. */
static int header_done(struct http1_parser *p)
{
    if (p->field == FIELD_OTHER) return S_LINE_START;
    while (p->value_len > 0 && (p->value[p->value_len - 1] == ' ' || p->value[p->value_len - 1] == '\t'))
        p->value_len--;
    switch (p->field) {
    case FIELD_CONTENT_LENGTH: {
        uint64_t v = 0;
        if (p->value_long || p->value_len == 0 || p->value_len > 18) return fail(p, HTTP1_BAD_HEADER);
        for (unsigned i = 0; i < p->value_len; i++) {
            if (p->value[i] < '0' || p->value[i] > '9') return fail(p, HTTP1_BAD_HEADER);
            v = v * 10 + (uint64_t)(p->value[i] - '0');
        }
        if (p->has_length && v != p->content_length) return fail(p, HTTP1_BAD_HEADER);
        p->has_length = true;
        p->content_length = v;
        break;
    }
    case FIELD_TRANSFER_ENCODING:
        p->chunked = p->value_len >= 7 && memcmp(p->value + p->value_len - 7, "chunked", 7) == 0;
        break;
    case FIELD_CONNECTION:
        p->conn_close |= value_has_token(p, "close");
        p->conn_keep |= value_has_token(p, "keep-alive");
        break;
    default:
        break;
    }
    return S_LINE_START;
}

/* The empty line after the headers: decide how the body is delimited. */
static int head_done(struct http1_parser *p)
{
    if (p->status < 200) {
        if (p->status == 101) return fail(p, HTTP1_BAD_STATUS); /* no protocol switch was asked for */
        p->interim++;
        head_reset(p);
        return S_HTTP;
    }
    p->keep_alive = p->minor >= 1 ? !p->conn_close : (p->conn_keep && !p->conn_close);
    if (p->head || p->status == 204 || p->status == 304) return S_DONE;
    if (p->chunked) return S_CHUNK_SIZE;
    if (p->has_length) {
        p->remaining = p->content_length;
        return p->remaining ? S_BODY_LENGTH : S_DONE;
    }
    p->keep_alive = false; /* the body ends when the connection does */
    return S_BODY_EOF;
}

/* One byte of a head (status line, headers) or of chunk framing. */
static int step(struct http1_parser *p, uint8_t c)
{
    switch (p->state) {
    case S_HTTP:
        if (c != (uint8_t)http_prefix[p->pos]) return fail(p, HTTP1_BAD_STATUS);
        return ++p->pos == sizeof http_prefix - 1 ? S_MINOR : S_HTTP;
    case S_MINOR:
        if (c < '0' || c > '9') return fail(p, HTTP1_BAD_STATUS);
        p->minor = c - '0';
        return S_SP;
    case S_SP:
        if (c != ' ') return fail(p, HTTP1_BAD_STATUS);
        p->pos = 0;
        return S_CODE;
    case S_CODE:
        if (c < '0' || c > '9') return fail(p, HTTP1_BAD_STATUS);
        p->status = p->status * 10 + (c - '0');
        if (++p->pos < 3) return S_CODE;
        return p->status >= 100 && p->status <= 599 ? S_AFTER_CODE : fail(p, HTTP1_BAD_STATUS);
    case S_AFTER_CODE:
        if (c == ' ') return S_REASON;
        if (c == '\r') return S_REASON;
        if (c == '\n') return S_LINE_START;
        return fail(p, HTTP1_BAD_STATUS);
    case S_REASON:
        return c == '\n' ? S_LINE_START : S_REASON;
    case S_LINE_START:
        if (c == '\r') return S_HEAD_END_LF;
        if (c == '\n') return head_done(p);
        if (!is_token(c)) return fail(p, HTTP1_BAD_HEADER);
        p->name_len = p->value_len = 0;
        p->name_long = p->value_long = false;
        /* fall through */
    case S_NAME:
        if (c == ':') {
            p->field = field_of(p);
            return p->name_len ? S_VALUE_SKIP_WS : fail(p, HTTP1_BAD_HEADER);
        }
        if (!is_token(c)) return fail(p, HTTP1_BAD_HEADER);
        if (p->name_len < HTTP1_NAME_CAP) p->name[p->name_len++] = (char)(c | ((c >= 'A' && c <= 'Z') ? 0x20 : 0));
        else p->name_long = true;
        return S_NAME;
    case S_VALUE_SKIP_WS:
        if (c == ' ' || c == '\t') return S_VALUE_SKIP_WS;
        /* fall through */
    case S_VALUE:
        if (c == '\n') return header_done(p);
        if (c == '\r') return S_VALUE;
        if (p->value_len < HTTP1_VALUE_CAP) p->value[p->value_len++] = (char)(c | ((c >= 'A' && c <= 'Z') ? 0x20 : 0));
        else p->value_long = true;
        return S_VALUE;
    case S_HEAD_END_LF:
        return c == '\n' ? head_done(p) : fail(p, HTTP1_BAD_HEADER);
    case S_CHUNK_SIZE: {
        int h = hex_value(c);
        if (h >= 0) {
            if (p->remaining >= CHUNK_SIZE_MAX) return fail(p, HTTP1_BAD_CHUNK);
            p->remaining = p->remaining * 16 + (uint64_t)h;
            p->chunk_digits = true;
            return S_CHUNK_SIZE;
        }
        if (!p->chunk_digits) return fail(p, HTTP1_BAD_CHUNK);
        if (c == ';' || c == ' ' || c == '\t') return S_CHUNK_EXT;
        if (c == '\r') return S_CHUNK_SIZE_LF;
        if (c == '\n') break;
        return fail(p, HTTP1_BAD_CHUNK);
    }
    case S_CHUNK_EXT:
        if (c != '\n') return S_CHUNK_EXT;
        break;
    case S_CHUNK_SIZE_LF:
        if (c != '\n') return fail(p, HTTP1_BAD_CHUNK);
        break;
    case S_CHUNK_DATA_CR:
        if (c == '\r') return S_CHUNK_DATA_LF;
        if (c == '\n') return S_CHUNK_SIZE;
        return fail(p, HTTP1_BAD_CHUNK);
    case S_CHUNK_DATA_LF:
        return c == '\n' ? S_CHUNK_SIZE : fail(p, HTTP1_BAD_CHUNK);
    case S_TRAILER_START:
        if (c == '\r') return S_TRAILER_END_LF;
        if (c == '\n') return S_DONE;
        return S_TRAILER_LINE;
    case S_TRAILER_LINE:
        return c == '\n' ? S_TRAILER_START : S_TRAILER_LINE;
    case S_TRAILER_END_LF:
        return c == '\n' ? S_DONE : fail(p, HTTP1_BAD_CHUNK);
    default:
        return fail(p, HTTP1_BAD_STATUS);
    }
    /* a chunk-size line ended */
    p->chunk_digits = false;
    if (p->remaining == 0) {
        p->header_bytes = 0; /* trailers get their own limit */
        return S_TRAILER_START;
    }
    return S_CHUNK_DATA;
}

static bool counts_as_head(int state)
{
    return state <= S_HEAD_END_LF || state >= S_TRAILER_START;
}

enum http1_result http1_parse(struct http1_parser *p, const uint8_t *data, size_t len, size_t *consumed)
{
    size_t i = 0;
    while (i < len && p->state != S_DONE && p->state != S_ERROR) {
        if (p->state == S_BODY_LENGTH || p->state == S_CHUNK_DATA || p->state == S_BODY_EOF) {
            size_t n = len - i;
            if (p->state != S_BODY_EOF && n > p->remaining) n = (size_t)p->remaining;
            p->body_bytes += n;
            i += n;
            if (p->state == S_BODY_EOF) continue;
            p->remaining -= n;
            if (p->remaining == 0) p->state = p->state == S_BODY_LENGTH ? S_DONE : S_CHUNK_DATA_CR;
            continue;
        }
        if (p->state == S_REASON || (p->state == S_VALUE && p->field == FIELD_OTHER)) {
            /* text nobody reads: jump to the end of the line */
            const uint8_t *nl = memchr(data + i, '\n', len - i);
            size_t n = nl ? (size_t)(nl - (data + i)) : len - i;
            if (p->header_bytes + n > p->max_header) {
                fail(p, HTTP1_HEADER_TOO_LARGE);
                break;
            }
            p->header_bytes += n;
            i += n;
            if (!nl) continue;
        }
        if (counts_as_head(p->state) && ++p->header_bytes > p->max_header) {
            fail(p, HTTP1_HEADER_TOO_LARGE);
            break;
        }
        p->state = step(p, data[i++]);
    }
    p->bytes += i;
    *consumed = i;
    if (p->state == S_DONE) return HTTP1_DONE;
    return p->state == S_ERROR ? HTTP1_ERROR : HTTP1_MORE;
}

enum http1_result http1_parse_eof(struct http1_parser *p)
{
    if (p->state == S_BODY_EOF || p->state == S_DONE) {
        p->state = S_DONE;
        return HTTP1_DONE;
    }
    if (p->state != S_ERROR) fail(p, HTTP1_TRUNCATED);
    return HTTP1_ERROR;
}
