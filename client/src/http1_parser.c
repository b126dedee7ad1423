/* http1_parser: byte-at-a-time state machine for heads, bulk counting for bodies. */
#include "http1_parser.h"

#include <stdint.h>
#include <string.h>

enum {
    S_HTTP,          /* matching "HTTP/1." */
    S_MINOR,
    S_SP,
    S_CODE,
    S_AFTER_CODE,
    S_REASON,
    S_LINE_START,    /* start of a header line, of an obs-fold, or the empty line */
    S_NAME,
    S_VALUE,
    S_VALUE_LF,      /* a CR in a value: only LF may follow */
    S_HEAD_END_LF,
    S_CHUNK_SIZE,
    S_CHUNK_EXT,
    S_CHUNK_SIZE_LF,
    S_CHUNK_DATA_CR,
    S_CHUNK_DATA_LF,
    S_TRAILER_START,
    S_TRAILER_LINE,
    S_TRAILER_END_LF,
    /* body bytes, counted in bulk */
    S_BODY_LENGTH,
    S_BODY_EOF,
    S_CHUNK_DATA,
    S_DONE,
    S_ERROR,
};

/* the header a value belongs to: only these are read */
enum { FIELD_NONE, FIELD_OTHER, FIELD_CONTENT_LENGTH, FIELD_TRANSFER_ENCODING, FIELD_CONNECTION };

/* Where a value is in its current list item (Transfer-Encoding, Connection:
 * token *(OWS ";" parameter), comma-separated) or in its number (Content-Length). */
enum { ITEM_START, ITEM_TOKEN, ITEM_AFTER, ITEM_PARAMS, ITEM_QUOTED, ITEM_ESCAPE };

/* the list tokens that frame a response, matched case-insensitively */
enum { TOKEN_CHUNKED, TOKEN_CLOSE, TOKEN_KEEP_ALIVE, TOKEN_COUNT };
static const char *const tokens[TOKEN_COUNT] = {"chunked", "close", "keep-alive"};
static const uint8_t token_lens[TOKEN_COUNT] = {7, 5, 10};
#define TOKEN_BIT(t) (1u << (t))

#define CHUNK_SIZE_MAX (1ULL << 56)
#define LENGTH_DIGITS_MAX 18

static const char http_prefix[] = "HTTP/1.";

void http1_parser_init(struct http1_parser *p, size_t max_header)
{
    memset(p, 0, sizeof *p); /* no sink */
    p->max_header = max_header;
    http1_parser_next(p, false);
}

static void head_reset(struct http1_parser *p)
{
    p->state = S_HTTP;
    p->pos = 0;
    p->status = 0;
    p->header_bytes = 0;
    p->has_length = p->has_te = p->chunked = p->conn_close = p->conn_keep = false;
    p->field = FIELD_NONE;
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

/* A header name's character lowered, or 0 for a byte that is not a token
 * character (RFC 9110 5.6.2); bytes from 128 up are none. */
static const uint8_t token_lower[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, '!', 0, '#', '$', '%', '&', '\'', 0, 0, '*', '+', 0, '-', '.', 0,
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 0, 0, 0, 0, 0, 0,
    0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
    'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 0, 0, 0, '^', '_',
    '`', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
    'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 0, '|', 0, '~', 0,
};

static bool is_token(uint8_t c)
{
    return token_lower[c] != 0;
}

static bool is_ows(uint8_t c)
{
    return c == ' ' || c == '\t';
}

static uint8_t lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? c | 0x20 : c;
}

static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static bool name_is(const struct http1_parser *p, const char *name, size_t len)
{
    return !p->name_long && p->name_len == len && memcmp(p->name, name, len) == 0;
}

/* Whether a name of n characters can be one whose value is read (field_of). */
static bool read_length(size_t n)
{
    return n == sizeof "content-length" - 1 || n == sizeof "transfer-encoding" - 1 || n == sizeof "connection" - 1;
}

/* Which of the headers that frame the response a complete name is, once per line. */
static uint8_t field_of(const struct http1_parser *p)
{
    if (name_is(p, "content-length", 14)) return FIELD_CONTENT_LENGTH;
    if (name_is(p, "transfer-encoding", 17)) return FIELD_TRANSFER_ENCODING;
    if (name_is(p, "connection", 10)) return FIELD_CONNECTION;
    return FIELD_OTHER;
}

/* One more character of a list item's token: drop the known tokens it rules out. */
static void token_byte(struct http1_parser *p, uint8_t c)
{
    for (unsigned bits = p->item_tokens; bits; bits &= bits - 1) {
        unsigned t = (unsigned)__builtin_ctz(bits);
        if (p->item_len >= token_lens[t] || (uint8_t)tokens[t][p->item_len] != lower(c))
            p->item_tokens &= (uint8_t)~TOKEN_BIT(t);
    }
    if (p->item_len < UINT8_MAX) p->item_len++;
}

/* The item's token ended: keep only the known tokens it equals. */
static void token_end(struct http1_parser *p)
{
    for (unsigned t = 0; t < TOKEN_COUNT; t++)
        if (token_lens[t] != p->item_len) p->item_tokens &= (uint8_t)~TOKEN_BIT(t);
    p->item_state = ITEM_AFTER;
}

/* A non-empty list item ended: the last transfer coding decides chunked;
 * close and keep-alive count wherever they are. */
static void item_end(struct http1_parser *p)
{
    if (p->item_state == ITEM_TOKEN) token_end(p);
    if (p->field == FIELD_TRANSFER_ENCODING) {
        p->has_te = true;
        p->chunked = p->item_tokens & TOKEN_BIT(TOKEN_CHUNKED);
    } else {
        p->conn_close |= (p->item_tokens & TOKEN_BIT(TOKEN_CLOSE)) != 0;
        p->conn_keep |= (p->item_tokens & TOKEN_BIT(TOKEN_KEEP_ALIVE)) != 0;
    }
    p->item_state = ITEM_START;
}

/* Parameters after a ';' (or anything after a token but a ',') until the next
 * comma, quoted strings included; they never make an item one of the tokens. */
static void params_byte(struct http1_parser *p, uint8_t c)
{
    switch (p->item_state) {
    case ITEM_QUOTED:
        if (c == '\\') p->item_state = ITEM_ESCAPE;
        else if (c == '"') p->item_state = ITEM_PARAMS;
        return;
    case ITEM_ESCAPE:
        p->item_state = ITEM_QUOTED;
        return;
    default:
        if (c == ',') item_end(p);
        else if (c == '"') p->item_state = ITEM_QUOTED;
        return;
    }
}

/* One byte of a Transfer-Encoding or Connection value, read as a list in
 * fixed memory: each item is one of the known tokens or not. */
static void list_byte(struct http1_parser *p, uint8_t c)
{
    switch (p->item_state) {
    case ITEM_START:
        if (is_ows(c) || c == ',') return; /* empty items are allowed */
        p->item_len = 0;
        p->item_tokens = p->field == FIELD_TRANSFER_ENCODING ? TOKEN_BIT(TOKEN_CHUNKED)
                                                              : TOKEN_BIT(TOKEN_CLOSE) | TOKEN_BIT(TOKEN_KEEP_ALIVE);
        p->item_state = ITEM_TOKEN;
        /* fall through */
    case ITEM_TOKEN:
        if (is_token(c)) {
            token_byte(p, c);
            return;
        }
        token_end(p);
        /* fall through */
    case ITEM_AFTER:
        if (is_ows(c)) return;
        if (c == ',') {
            item_end(p);
            return;
        }
        if (c != ';') p->item_tokens = 0; /* "chunked x", "close\"": not the token */
        p->item_state = ITEM_PARAMS;
        /* fall through */
    default:
        params_byte(p, c);
    }
}

/* One byte of a Content-Length value: digits between optional whitespace. */
static int length_byte(struct http1_parser *p, uint8_t c)
{
    if (is_ows(c)) {
        if (p->item_state == ITEM_TOKEN) p->item_state = ITEM_AFTER;
        return S_VALUE;
    }
    if (c < '0' || c > '9' || p->item_state == ITEM_AFTER || ++p->item_len > LENGTH_DIGITS_MAX)
        return fail(p, HTTP1_BAD_HEADER);
    p->value_number = p->value_number * 10 + (uint64_t)(c - '0');
    p->item_state = ITEM_TOKEN;
    return S_VALUE;
}

/* A Content-Length value ended: one number, the same on every line. */
static bool length_end(struct http1_parser *p)
{
    if (p->item_state == ITEM_START || (p->has_length && p->value_number != p->content_length)) {
        fail(p, HTTP1_BAD_HEADER);
        return false;
    }
    p->has_length = true;
    p->content_length = p->value_number;
    return true;
}

/* A name and its colon were read: start reading its value. */
static int value_start(struct http1_parser *p)
{
    p->field = field_of(p);
    p->item_state = ITEM_START;
    p->item_len = 0;
    p->value_number = 0;
    return S_VALUE;
}

/* One byte of a value that is neither CR nor LF (an obs-fold's whitespace included). */
static int value_byte(struct http1_parser *p, uint8_t c)
{
    if (p->field == FIELD_CONTENT_LENGTH) return length_byte(p, c);
    if (p->field != FIELD_OTHER) list_byte(p, c);
    return S_VALUE;
}

/* The value of the last header line ended (no obs-fold follows): act on it. */
static bool field_end(struct http1_parser *p)
{
    bool ok = true;
    if (p->field == FIELD_CONTENT_LENGTH) ok = length_end(p);
    else if ((p->field == FIELD_TRANSFER_ENCODING || p->field == FIELD_CONNECTION) && p->item_state != ITEM_START)
        item_end(p);
    p->field = FIELD_NONE;
    return ok;
}

/* The empty line after the headers: decide how the body is delimited (RFC 9112 6.3). */
static int head_done(struct http1_parser *p)
{
    if (p->status < 200) {
        if (p->status == 101) return fail(p, HTTP1_BAD_STATUS); /* no protocol switch was asked for */
        p->interim++;
        head_reset(p);
        return S_HTTP;
    }
    p->keep_alive = p->minor >= 1 ? !p->conn_close : (p->conn_keep && !p->conn_close);
    /* Transfer-Encoding beside Content-Length, or in HTTP/1.0, is framing a
     * peer may read otherwise: the connection is not trusted after it (6.1, 6.3) */
    if (p->has_te && (p->has_length || p->minor == 0)) p->keep_alive = false;
    if (p->head || p->status == 204 || p->status == 304) return S_DONE;
    if (p->chunked) {
        p->header_bytes = 0; /* each chunk-size line has the limit */
        return S_CHUNK_SIZE;
    }
    if (p->has_length && !p->has_te) {
        p->remaining = p->content_length;
        return p->remaining ? S_BODY_LENGTH : S_DONE;
    }
    p->keep_alive = false; /* the body ends when the connection does */
    return S_BODY_EOF;
}

static int step_status(struct http1_parser *p, uint8_t c)
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
        if (c == ' ' || c == '\r') return S_REASON;
        if (c == '\n') return S_LINE_START;
        return fail(p, HTTP1_BAD_STATUS);
    default: /* S_REASON */
        return c == '\n' ? S_LINE_START : S_REASON;
    }
}

/* One more character of the name (a token character). */
static void name_add(struct http1_parser *p, uint8_t c)
{
    if (p->name_len < HTTP1_NAME_CAP) p->name[p->name_len++] = (char)token_lower[c];
    else p->name_long = true;
}

/* One byte of a header name, up to its colon. */
static int name_byte(struct http1_parser *p, uint8_t c)
{
    if (c == ':') return value_start(p);
    if (!is_token(c)) return fail(p, HTTP1_BAD_HEADER);
    name_add(p, c);
    return S_NAME;
}

/* The first byte of a line in the head: an obs-fold continues the last value
 * after one space (RFC 9112 5.2); anything else ends it. */
static int line_start(struct http1_parser *p, uint8_t c)
{
    if (is_ows(c)) return p->field == FIELD_NONE ? fail(p, HTTP1_BAD_HEADER) : value_byte(p, ' ');
    if (!field_end(p)) return S_ERROR;
    if (c == '\r') return S_HEAD_END_LF;
    if (c == '\n') return head_done(p);
    if (c == ':') return fail(p, HTTP1_BAD_HEADER); /* an empty name */
    p->name_len = 0;
    p->name_long = false;
    return name_byte(p, c);
}

static int step_header(struct http1_parser *p, uint8_t c)
{
    switch (p->state) {
    case S_LINE_START:
        return line_start(p, c);
    case S_NAME:
        return name_byte(p, c);
    case S_VALUE:
        if (c == '\r') return S_VALUE_LF;
        if (c == '\n') return S_LINE_START;
        return value_byte(p, c);
    case S_VALUE_LF:
        return c == '\n' ? S_LINE_START : fail(p, HTTP1_BAD_HEADER); /* a bare CR */
    default: /* S_HEAD_END_LF */
        return c == '\n' ? head_done(p) : fail(p, HTTP1_BAD_HEADER);
    }
}

/* A chunk-size line ended: its data, or the trailers after the last chunk. */
static int chunk_line_done(struct http1_parser *p)
{
    p->chunk_digits = false;
    if (p->remaining == 0) {
        p->header_bytes = 0; /* trailers get their own limit */
        return S_TRAILER_START;
    }
    return S_CHUNK_DATA;
}

/* The CRLF after a chunk's data: the next chunk-size line starts. */
static int chunk_next(struct http1_parser *p)
{
    p->header_bytes = 0;
    return S_CHUNK_SIZE;
}

static int chunk_size_byte(struct http1_parser *p, uint8_t c)
{
    int h = hex_value(c);
    if (h >= 0) {
        if (p->remaining >= CHUNK_SIZE_MAX) return fail(p, HTTP1_BAD_CHUNK);
        p->remaining = p->remaining * 16 + (uint64_t)h;
        p->chunk_digits = true;
        return S_CHUNK_SIZE;
    }
    if (!p->chunk_digits) return fail(p, HTTP1_BAD_CHUNK);
    if (c == ';' || is_ows(c)) return S_CHUNK_EXT;
    if (c == '\r') return S_CHUNK_SIZE_LF;
    if (c == '\n') return chunk_line_done(p);
    return fail(p, HTTP1_BAD_CHUNK);
}

static int step_chunk(struct http1_parser *p, uint8_t c)
{
    switch (p->state) {
    case S_CHUNK_SIZE:
        return chunk_size_byte(p, c);
    case S_CHUNK_EXT: /* extensions are skipped, within the limit */
        if (c == '\r') return S_CHUNK_SIZE_LF;
        return c == '\n' ? chunk_line_done(p) : S_CHUNK_EXT;
    case S_CHUNK_SIZE_LF:
        return c == '\n' ? chunk_line_done(p) : fail(p, HTTP1_BAD_CHUNK);
    case S_CHUNK_DATA_CR:
        if (c == '\r') return S_CHUNK_DATA_LF;
        return c == '\n' ? chunk_next(p) : fail(p, HTTP1_BAD_CHUNK);
    default: /* S_CHUNK_DATA_LF */
        return c == '\n' ? chunk_next(p) : fail(p, HTTP1_BAD_CHUNK);
    }
}

static int step_trailer(struct http1_parser *p, uint8_t c)
{
    switch (p->state) {
    case S_TRAILER_START:
        if (c == '\r') return S_TRAILER_END_LF;
        return c == '\n' ? S_DONE : S_TRAILER_LINE;
    case S_TRAILER_LINE:
        return c == '\n' ? S_TRAILER_START : S_TRAILER_LINE;
    default: /* S_TRAILER_END_LF */
        return c == '\n' ? S_DONE : fail(p, HTTP1_BAD_CHUNK);
    }
}

/* One byte of a head (status line, headers), of chunk framing or of trailers. */
static int step(struct http1_parser *p, uint8_t c)
{
    if (p->state <= S_REASON) return step_status(p, c);
    if (p->state <= S_HEAD_END_LF) return step_header(p, c);
    if (p->state <= S_CHUNK_DATA_LF) return step_chunk(p, c);
    return step_trailer(p, c);
}

/* Counts n bytes of the head, of a chunk-size line or of the trailers (the CRLF
 * after chunk data belongs to none); false (an error) over the limit. */
static bool head_add(struct http1_parser *p, size_t n)
{
    if (p->state == S_CHUNK_DATA_CR || p->state == S_CHUNK_DATA_LF) return true;
    if (p->header_bytes + n > p->max_header) {
        fail(p, HTTP1_HEADER_TOO_LARGE);
        return false;
    }
    p->header_bytes += n;
    return true;
}

/* Body bytes are counted in bulk, up to what the framing allows; returns how many. */
static size_t body_span(struct http1_parser *p, size_t avail)
{
    size_t n = avail;
    if (p->state != S_BODY_EOF && n > p->remaining) n = (size_t)p->remaining;
    p->body_bytes += n;
    if (p->state == S_BODY_EOF) return n;
    p->remaining -= n;
    if (p->remaining == 0) p->state = p->state == S_BODY_LENGTH ? S_DONE : S_CHUNK_DATA_CR;
    return n;
}

/* The rest of a header name's token characters, taken in bulk (the byte
 * that ends them goes through step()). */
static size_t name_span(struct http1_parser *p, const uint8_t *data, size_t len)
{
    size_t n = 0;
    while (n < len && token_lower[data[n]]) name_add(p, data[n++]);
    return n;
}

/* A whole "HTTP/1.x NNN" at the start of a status line, in one go: what the
 * byte-by-byte states would do with it (S_AFTER_CODE next); 0 when it is not
 * all there or not plainly valid (the bytes then go one by one). */
static size_t status_span(struct http1_parser *p, const uint8_t *data, size_t len)
{
    if (p->state != S_HTTP || p->pos != 0 || len < 12 || memcmp(data, http_prefix, sizeof http_prefix - 1) != 0)
        return 0;
    const uint8_t *d = data + sizeof http_prefix - 1; /* "x NNN" */
    if (d[0] < '0' || d[0] > '9' || d[1] != ' ') return 0;
    int status = 0;
    for (int k = 2; k < 5; k++) {
        if (d[k] < '0' || d[k] > '9') return 0;
        status = status * 10 + (d[k] - '0');
    }
    if (status < 100 || status > 599) return 0;
    p->minor = d[0] - '0';
    p->status = status;
    p->pos = 3;
    p->state = S_AFTER_CODE;
    return 12;
}

/* A header line that is all there, from its first byte: its name and colon in
 * one go and, when nobody reads its value, the value up to the line's LF,
 * leaving the states where the byte-by-byte ones would be before that LF
 * (S_VALUE_LF after a CR, else S_VALUE); a read value (Content-Length,
 * Transfer-Encoding, Connection) is left to the states (S_VALUE). 0, and the
 * bytes go one by one, for anything else: an obs-fold, the empty line, a line
 * not all there, a previous value still to act on, no colon after the name, a
 * bare CR in the value. */
static size_t line_span(struct http1_parser *p, const uint8_t *data, size_t len)
{
    if ((p->field != FIELD_NONE && p->field != FIELD_OTHER) || !token_lower[data[0]]) return 0;
    const uint8_t *nl = memchr(data, '\n', len);
    if (!nl) return 0;
    size_t n = 1;
    while (token_lower[data[n]]) n++; /* the LF ends it at the latest */
    if (data[n] != ':') return 0;
    /* (what line_start's field_end does for these fields) */
    p->field = FIELD_NONE;
    /* only a name as long as one that is read is kept, for field_of */
    p->name_long = !read_length(n);
    p->name_len = p->name_long ? 0 : (unsigned)n;
    for (unsigned k = 0; k < p->name_len; k++) p->name[k] = (char)token_lower[data[k]];
    p->state = value_start(p);
    if (p->field != FIELD_OTHER) return n + 1;
    const uint8_t *value = data + n + 1;
    const uint8_t *cr = memchr(value, '\r', (size_t)(nl - value));
    if (cr && cr != nl - 1) return n + 1;
    if (cr) p->state = S_VALUE_LF;
    return (size_t)(nl - data);
}

/* Text nobody reads (a reason phrase, another header's value) can be skipped
 * up to the end of its line, or in a value up to a CR (a bare one is an error);
 * a header name's characters are read in bulk, a whole header line when it is
 * all there. */
static size_t text_span(struct http1_parser *p, const uint8_t *data, size_t len)
{
    if (p->state == S_LINE_START) return line_span(p, data, len);
    if (p->state == S_NAME) return name_span(p, data, len);
    if (p->state == S_HTTP) return status_span(p, data, len);
    if (p->state != S_REASON && (p->state != S_VALUE || p->field != FIELD_OTHER)) return 0;
    const uint8_t *nl = memchr(data, '\n', len);
    size_t n = nl ? (size_t)(nl - data) : len;
    const uint8_t *cr = p->state == S_VALUE ? memchr(data, '\r', n) : NULL;
    return cr ? (size_t)(cr - data) : n;
}

/* A head's bytes data[from..to) go to the sink, if any. */
static void sink_head(const struct http1_parser *p, const uint8_t *data, size_t from, size_t to)
{
    if (p->sink && to > from) p->sink->head(p->sink->user, data + from, to - from);
}

enum http1_result http1_parse(struct http1_parser *p, const uint8_t *data, size_t len, size_t *consumed)
{
    size_t i = 0, head_from = SIZE_MAX; /* where the head bytes of this call began */
    while (i < len && p->state != S_DONE && p->state != S_ERROR) {
        if (p->state >= S_BODY_LENGTH) {
            size_t n = body_span(p, len - i);
            if (p->sink) p->sink->body(p->sink->user, data + i, n);
            i += n;
            continue;
        }
        if (head_from == SIZE_MAX && p->state <= S_HEAD_END_LF) head_from = i;
        size_t skip = text_span(p, data + i, len - i);
        bool more = i + skip < len; /* a byte after the span, for step() */
        if (!head_add(p, skip + more)) break;
        i += skip;
        if (!more) break;
        p->state = step(p, data[i++]);
        if (head_from != SIZE_MAX && p->state > S_HEAD_END_LF) {
            sink_head(p, data, head_from, i);
            head_from = SIZE_MAX;
        }
    }
    if (head_from != SIZE_MAX) sink_head(p, data, head_from, i);
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
