/* hist_codec: HdrHistogram's compressed V2 encoding of struct hist (layout in
 * hist_codec.h), its base64, and decoding with every length checked. */
#include "hist_codec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The low nibble of a cookie's third byte says V2; 0x10 marks zero-run
 * (TLZE) encoding. Readers compare the cookie without bits 4-7. */
#define COMPRESSED_COOKIE (0x1c849304u | 0x10u)
#define ENCODING_COOKIE (0x1c849303u | 0x10u)
#define COOKIE_BASE(c) ((c) & ~0xf0u)
#define OUTER_HEADER 8  /* cookie, compressed length */
#define INNER_HEADER 40 /* cookie, payload length, offset, digits, lowest, highest, ratio */
#define MAX_WORD 9      /* ZigZag LEB128 of 64 bits: 8 bytes of 7 bits, then 8 */
#define SIGNIFICANT_DIGITS 3
#define LOWEST_TRACKABLE 1
#define OVERFLOW_SLOT (HIST_COUNTS_LEN - 1)
#define RAW_MAX (INNER_HEADER + (size_t)HIST_COUNTS_LEN * MAX_WORD)

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* ZigZag LEB128 as HdrHistogram's ZigZagEncoding.putLong: n >= 0 is 2n, n < 0
 * is -2n - 1; seven bits a byte with a continuation bit, the ninth byte whole. */
static size_t word_put(unsigned char *p, uint64_t zigzag)
{
    size_t n = 0;
    for (; n < MAX_WORD - 1; n++, zigzag >>= 7) {
        if (zigzag < 0x80) break;
        p[n] = (unsigned char)(zigzag | 0x80);
    }
    p[n] = (unsigned char)zigzag;
    return n + 1;
}

static int word_get(const unsigned char **p, const unsigned char *end, uint64_t *zigzag)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 7 * (MAX_WORD - 1); shift += 7) {
        if (*p == end) return -1;
        unsigned char b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *zigzag = v;
            return 0;
        }
    }
    if (*p == end) return -1;
    *zigzag = v | (uint64_t)*(*p)++ << 56;
    return 0;
}

/* What gets encoded: a counts array in HdrHistogram's layout for lowest 1,
 * 3 digits and `highest`, its last slot plus `last_extra` (the overflow). */
struct counts_view {
    const uint64_t *counts;
    size_t len;
    uint64_t last_extra, highest;
};

static uint64_t slot_count(const struct counts_view *v, size_t i)
{
    return i == v->len - 1 ? v->counts[i] + v->last_extra : v->counts[i];
}

/* counts[0 .. limit) into p (room for limit * MAX_WORD bytes); returns the
 * bytes written, or 0 with *bad set when a count exceeds INT64_MAX. */
static size_t counts_put(const struct counts_view *v, size_t limit, unsigned char *p, int *bad)
{
    size_t n = 0;
    for (size_t i = 0; i < limit;) {
        uint64_t count = slot_count(v, i++);
        if (count > INT64_MAX) *bad = 1;
        if (count == 0) {
            uint64_t zeros = 1;
            while (i < limit && slot_count(v, i) == 0) zeros++, i++;
            n += word_put(p + n, zeros > 1 ? 2 * zeros - 1 : 0);
        } else {
            n += word_put(p + n, 2 * count);
        }
    }
    return n;
}

static int encode_view(const struct counts_view *v, unsigned char **out, size_t *len)
{
    size_t limit = v->len;
    while (limit > 0 && slot_count(v, limit - 1) == 0) limit--;
    unsigned char *raw = malloc(INNER_HEADER + limit * MAX_WORD);
    if (!raw) return -1;
    int bad = 0;
    size_t payload = counts_put(v, limit, raw + INNER_HEADER, &bad);
    put32(raw, ENCODING_COOKIE);
    put32(raw + 4, (uint32_t)payload);
    put32(raw + 8, 0); /* normalizing index offset */
    put32(raw + 12, SIGNIFICANT_DIGITS);
    put64(raw + 16, LOWEST_TRACKABLE);
    put64(raw + 24, v->highest);
    put64(raw + 32, 0x3ff0000000000000ULL); /* 1.0: integer to double conversion ratio */
    uLong raw_len = (uLong)(INNER_HEADER + payload);
    uLongf deflated = compressBound(raw_len);
    unsigned char *buf = bad ? NULL : malloc(OUTER_HEADER + deflated);
    if (!buf || compress2(buf + OUTER_HEADER, &deflated, raw, raw_len, Z_DEFAULT_COMPRESSION) != Z_OK) {
        free(raw);
        free(buf);
        return -1;
    }
    free(raw);
    put32(buf, COMPRESSED_COOKIE);
    put32(buf + 4, (uint32_t)deflated);
    *out = buf;
    *len = OUTER_HEADER + deflated;
    return 0;
}

int hist_codec_encode(const struct hist *h, unsigned char **out, size_t *len)
{
    const struct counts_view v = {h->counts, HIST_COUNTS_LEN, h->overflow, HIST_HIGHEST_US};
    return encode_view(&v, out, len);
}

/* The slot of value v in the layout for lowest 1 and 3 digits (2,048 slots a
 * bucket, the first of them at unit width), whatever its highest. */
static size_t ns_slot(uint64_t v)
{
    unsigned bucket = 53u - (unsigned)__builtin_clzll(v | 2047u);
    return ((size_t)(bucket + 1) << 10) + (size_t)((v >> bucket) - 1024);
}

int hist_codec_encode_ns(const struct hist *h, unsigned char **out, size_t *len)
{
    uint64_t *ns = calloc(HIST_CODEC_NS_COUNTS_LEN, sizeof *ns);
    if (!ns) return -1;
    /* each microsecond slot's values land in the middle of their nanosecond range */
    for (size_t i = 0; i < OVERFLOW_SLOT; i++) {
        if (!h->counts[i]) continue;
        uint64_t low = hist_lowest_at(i) * 1000, high = hist_highest_at(i) * 1000 + 999;
        ns[ns_slot(low + (high - low) / 2)] += h->counts[i];
    }
    const struct counts_view v = {ns, HIST_CODEC_NS_COUNTS_LEN, h->overflow + h->counts[OVERFLOW_SLOT],
                                  HIST_HIGHEST_US * 1000};
    int rc = encode_view(&v, out, len);
    free(ns);
    return rc;
}

static const char BASE64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_of(unsigned char *bin, size_t len)
{
    char *text = malloc((len + 2) / 3 * 4 + 1), *t = text;
    for (size_t i = 0; text && i < len; i += 3) {
        uint32_t v = (uint32_t)bin[i] << 16 | (i + 1 < len ? (uint32_t)bin[i + 1] << 8 : 0)
                   | (i + 2 < len ? bin[i + 2] : 0);
        *t++ = BASE64[v >> 18];
        *t++ = BASE64[(v >> 12) & 63];
        *t++ = i + 1 < len ? BASE64[(v >> 6) & 63] : '=';
        *t++ = i + 2 < len ? BASE64[v & 63] : '=';
    }
    if (text) *t = '\0';
    free(bin);
    return text;
}

char *hist_codec_encode_base64(const struct hist *h)
{
    unsigned char *bin;
    size_t len;
    return hist_codec_encode(h, &bin, &len) ? NULL : base64_of(bin, len);
}

char *hist_codec_encode_base64_ns(const struct hist *h)
{
    unsigned char *bin;
    size_t len;
    return hist_codec_encode_ns(h, &bin, &len) ? NULL : base64_of(bin, len);
}

/* Adds `count` values of slot i (i < HIST_COUNTS_LEN); -1 when the total would wrap. */
static int slot_add(struct hist *h, size_t i, uint64_t count, size_t *lowest, size_t *highest)
{
    if (count == 0) return 0;
    if (count > UINT64_MAX - h->total) return -1;
    uint64_t low = hist_lowest_at(i), high = hist_highest_at(i);
    double middle = (double)(low + ((high - low + 1) >> 1));
    if (low > HIST_HIGHEST_US) {
        h->overflow += count;
    } else {
        h->counts[i] += count;
    }
    h->total += count;
    h->sum += (double)count * middle;
    h->sum_sq += (double)count * middle * middle;
    if (h->total == count) *lowest = i;
    *highest = i;
    return 0;
}

/* The counts words of payload[0..len) into h. */
static int counts_get(struct hist *h, const unsigned char *p, size_t len)
{
    const unsigned char *end = p + len;
    size_t i = 0, lowest = 0, highest = 0;
    while (p < end) {
        uint64_t word;
        if (word_get(&p, end, &word)) return -1;
        if (word & 1) { /* a run of (word + 1) / 2 zero slots */
            uint64_t zeros = (word >> 1) + 1;
            i = zeros < HIST_COUNTS_LEN - i ? i + (size_t)zeros : HIST_COUNTS_LEN;
            continue;
        }
        if (word != 0 && i == HIST_COUNTS_LEN) return -1; /* a value above 2^32 - 1 */
        if (slot_add(h, i, word >> 1, &lowest, &highest)) return -1;
        if (i < HIST_COUNTS_LEN) i++;
    }
    if (h->total) {
        h->min = hist_lowest_at(lowest);
        h->max = hist_highest_at(highest);
    }
    return 0;
}

/* The inflated header and counts of a V2 histogram with hist's layout. */
static int raw_get(struct hist *h, const unsigned char *raw, size_t len)
{
    if (len < INNER_HEADER || COOKIE_BASE(get32(raw)) != COOKIE_BASE(ENCODING_COOKIE)) return -1;
    uint32_t payload = get32(raw + 4);
    if (payload > len - INNER_HEADER || get32(raw + 8) != 0 || get32(raw + 12) != SIGNIFICANT_DIGITS
        || get64(raw + 16) != LOWEST_TRACKABLE)
        return -1;
    return counts_get(h, raw + INNER_HEADER, payload);
}

int hist_codec_decode(struct hist *h, const unsigned char *buf, size_t len)
{
    hist_reset(h);
    if (len < OUTER_HEADER || COOKIE_BASE(get32(buf)) != COOKIE_BASE(COMPRESSED_COOKIE)
        || get32(buf + 4) != len - OUTER_HEADER)
        return -1;
    unsigned char *raw = malloc(RAW_MAX);
    uLongf raw_len = RAW_MAX;
    int rc = raw && uncompress(raw, &raw_len, buf + OUTER_HEADER, (uLong)(len - OUTER_HEADER)) == Z_OK
               ? raw_get(h, raw, raw_len)
               : -1;
    free(raw);
    if (rc) hist_reset(h);
    return rc;
}

static int base64_value(char c)
{
    const char *at = c ? strchr(BASE64, c) : NULL;
    return at ? (int)(at - BASE64) : -1;
}

int hist_codec_decode_base64(struct hist *h, const char *text, size_t len)
{
    if (len >= 1 && text[len - 1] == '=') len--;
    if (len >= 1 && text[len - 1] == '=') len--;
    unsigned char *bin = len % 4 == 1 ? NULL : malloc(len / 4 * 3 + 2);
    size_t n = 0;
    uint32_t bits = 0;
    for (size_t i = 0; bin && i < len; i++) {
        int v = base64_value(text[i]);
        if (v < 0) {
            free(bin);
            bin = NULL;
            break;
        }
        bits = bits << 6 | (uint32_t)v;
        if (i % 4 == 3 || i + 1 == len) { /* a group of 4, or the 2 or 3 that end the text */
            size_t bytes = i % 4; /* 3 from 4 characters, 2 from 3, 1 from 2 */
            bits <<= 6 * (3 - bytes);
            for (size_t k = 0; k < bytes; k++) bin[n++] = (unsigned char)(bits >> (16 - 8 * k));
            bits = 0;
        }
    }
    if (!bin) {
        hist_reset(h);
        return -1;
    }
    int rc = hist_codec_decode(h, bin, n);
    free(bin);
    return rc;
}
