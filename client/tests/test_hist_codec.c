/* Unit tests of hist_codec.c: vectors written by the Python hdrhistogram
 * package (a port of HdrHistogram's Java and C code), exact round trips,
 * overflow, and malformed input (safe under ASan, refused). */
#include "../src/hist.c"
#include "../src/hist_codec.c"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

struct slot {
    uint64_t value, count;
};

/* HdrHistogram(1, 3600000000, 3) with record_value(value, count), encode(),
 * and zlib.decompress of the part after the 8-byte header, from
 * .cache/hdrvenv's hdrhistogram 0.10.8. */
struct vector {
    const char *name, *base64, *inflated_hex;
    struct slot slots[8];
    size_t nslots;
};

static const struct vector VECTORS[] = {
    {"empty", "HISTFAAAABx4nJNpmSzMgADMUJoRRFybvITB/gNEAABQ2gSH",
     "1c849313000000000000000000000003000000000000000100000000d693a4003ff0000000000000", {{0, 0}}, 0},
    {"small", "HISTFAAAADJ4nJNpmSzMwMAgyAABzFCaEURcm7yEwf4DRICN6Sc/C9dvfia+jRFMGz8xsgAAyjAJgw==",
     "1c849313000000110000000000000003000000000000000100000000d693a4003ff00000000000000602f90f040afb0f020eb158"
     "02b1f20104",
     {{0, 3}, {1, 1}, {1023, 2}, {1024, 5}, {2047, 1}, {2048, 7}, {100000, 1}, {3600000000, 2}}, 8},
    {"big counts", "HISTFAAAADN4nJNpmSzMwMAgzQABzFCaEURcm7yEwf4DRICzAQQcDvI3MO1MbICBlWsY/zECAHM8EKw=",
     "1c8493130000001b0000000000000003000000000000000100000000d693a4003ff000000000000009808080808040c10f8002b9"
     "61808080808080808080a9ac01fe01",
     {{5, 1ULL << 40}, {70000, 1ULL << 62}, {123456789, 127}, {999, 128}}, 4},
};

static void fill(struct hist *h, const struct slot *slots, size_t n)
{
    hist_reset(h);
    for (size_t i = 0; i < n; i++) {
        h->counts[index_of(slots[i].value)] += slots[i].count;
        h->total += slots[i].count;
    }
}

static int same_counts(const struct hist *a, const struct hist *b)
{
    if (a->total != b->total || a->overflow != b->overflow) return 0;
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++)
        if (a->counts[i] != b->counts[i]) return 0;
    return 1;
}

/* What zlib inflates from the part after the 8-byte header, as hex. */
static char *inflated_hex(const unsigned char *buf, size_t len)
{
    static unsigned char raw[RAW_MAX];
    static char hex[2 * RAW_MAX + 1];
    uLongf n = sizeof raw;
    if (uncompress(raw, &n, buf + 8, (uLong)(len - 8)) != Z_OK) return strcpy(hex, "(inflate failed)");
    for (size_t i = 0; i < n; i++) sprintf(hex + 2 * i, "%02x", raw[i]);
    return hex;
}

static void test_vectors(struct hist *h, struct hist *want)
{
    for (size_t v = 0; v < sizeof VECTORS / sizeof VECTORS[0]; v++) {
        const struct vector *vec = &VECTORS[v];
        fill(want, vec->slots, vec->nslots);
        int rc = hist_codec_decode_base64(h, vec->base64, strlen(vec->base64));
        TAP_CHECK(rc == 0 && same_counts(h, want), "hist_codec decodes the Python package's '%s' exactly", vec->name);
        unsigned char *buf;
        size_t len;
        hist_codec_encode(want, &buf, &len);
        const char *hex = inflated_hex(buf, len);
        TAP_CHECK(strcmp(hex, vec->inflated_hex) == 0 && get32(buf) == 0x1c849314 && get32(buf + 4) == len - 8,
                  "hist_codec encodes '%s' as the Python package does (inflated payload byte for byte)", vec->name);
        if (strcmp(hex, vec->inflated_hex) != 0) printf("# got  %s\n# want %s\n", hex, vec->inflated_hex);
        free(buf);
    }
}

/* xorshift64*, as test_hist.c */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

static void test_round_trip(struct hist *h, struct hist *back)
{
    uint64_t state = 88172645463325252ULL;
    hist_reset(h);
    for (int i = 0; i < 1000000; i++) {
        double exponent = (double)(next_random(&state) >> 11) / (double)(1ULL << 53) * 33.0;
        hist_record(h, (uint64_t)pow(2.0, exponent) - 1); /* 0 .. 2^33: some overflow */
    }
    char *text = hist_codec_encode_base64(h);
    int rc = hist_codec_decode_base64(back, text, strlen(text));
    TAP_CHECK(rc == 0 && same_counts(h, back) && h->overflow > 0,
              "hist_codec round trip of 10^6 values: every count exact, overflow (%llu) included",
              (unsigned long long)h->overflow);
    static const double ps[] = {1, 10, 50, 90, 95}; /* below the overflow's 3.8% */
    int same = 1;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        uint64_t a = hist_percentile(h, ps[i]), b = hist_percentile(back, ps[i]);
        same &= hist_highest_at(index_of(a)) == b;
    }
    TAP_CHECK(same, "hist_codec round trip: the same percentiles (to the histogram's precision)");
    TAP_CHECK(back->min == 0 && back->max == 4294967295ULL && hist_percentile(back, 100) == back->max,
              "hist_codec decoded min 0, overflow read as the last slot (max %llu)", (unsigned long long)back->max);
    free(text);

    /* merging decoded parts equals the whole */
    struct hist part, sum;
    hist_init(&part);
    hist_init(&sum);
    hist_reset(h);
    for (int k = 0; k < 3; k++) {
        hist_reset(back);
        for (int i = 0; i < 30000; i++) hist_record(back, next_random(&state) % 5000000 * (uint64_t)(k + 1));
        hist_merge(h, back);
        text = hist_codec_encode_base64(back);
        hist_codec_decode_base64(&part, text, strlen(text));
        hist_merge(&sum, &part);
        free(text);
    }
    TAP_CHECK(sum.total == 90000 && same_counts(&sum, h), "hist_codec: decoded records merge exactly");
    TAP_CHECK(fabs(hist_mean(&sum) - hist_mean(h)) < hist_mean(h) * 1e-3
                  && fabs(hist_stdev(&sum) - hist_stdev(h)) < hist_stdev(h) * 1e-3,
              "hist_codec decoded mean and stdev within 0.1%% (%.1f, want %.1f)", hist_mean(&sum), hist_mean(h));
    hist_free(&part);
    hist_free(&sum);
}

static void test_words(struct hist *h, struct hist *back)
{
    static const uint64_t counts[] = {1, 63, 64, 127, 128, 8191, 8192, (1ULL << 56) - 1, 1ULL << 56, 1ULL << 62,
                                      INT64_MAX / 4};
    int exact = 1;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        struct slot s[2] = {{7, counts[i]}, {1u << 20, 1}};
        fill(h, s, 2);
        unsigned char *buf;
        size_t len;
        exact &= hist_codec_encode(h, &buf, &len) == 0 && hist_codec_decode(back, buf, len) == 0
              && same_counts(h, back);
        free(buf);
    }
    TAP_CHECK(exact, "hist_codec: counts at every LEB128 length up to 9 bytes round-trip");
    hist_reset(h);
    h->counts[3] = (uint64_t)INT64_MAX + 1;
    h->total = h->counts[3];
    unsigned char *buf = NULL;
    size_t len;
    TAP_CHECK(hist_codec_encode(h, &buf, &len) == -1 && buf == NULL, "hist_codec refuses a count above 2^63 - 1");
}

/* A compressed histogram made of a raw header and payload. Caller frees. */
static unsigned char *crafted(const unsigned char *payload, size_t payload_len, uint32_t digits, uint32_t offset,
                              size_t *len)
{
    unsigned char raw[256];
    put32(raw, ENCODING_COOKIE);
    put32(raw + 4, (uint32_t)payload_len);
    put32(raw + 8, offset);
    put32(raw + 12, digits);
    put64(raw + 16, 1);
    put64(raw + 24, 1ULL << 40);
    put64(raw + 32, 0x3ff0000000000000ULL);
    memcpy(raw + 40, payload, payload_len);
    uLongf n = 300;
    unsigned char *buf = malloc(8 + n);
    compress2(buf + 8, &n, raw, (uLong)(40 + payload_len), 6);
    put32(buf, COMPRESSED_COOKIE);
    put32(buf + 4, (uint32_t)n);
    *len = 8 + n;
    return buf;
}

static void test_malformed(struct hist *h)
{
    struct slot s[3] = {{12, 5}, {40000, 2}, {3000000, 1}};
    fill(h, s, 3);
    unsigned char *good, *bad = malloc(4096);
    size_t len;
    hist_codec_encode(h, &good, &len);
    struct hist d;
    hist_init(&d);
    int refused = 1;
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(bad, good, cut);
        if (cut >= 8) put32(bad + 4, (uint32_t)(cut - 8)); /* a length that agrees with the cut */
        refused &= hist_codec_decode(&d, bad, cut) == -1 && d.total == 0;
    }
    TAP_CHECK(refused, "hist_codec refuses every truncation (and leaves the histogram empty)");

    int safe = 1;
    for (size_t at = 0; at < len; at++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, good, len);
            bad[at] ^= (unsigned char)(1 << bit);
            if (hist_codec_decode(&d, bad, len) == 0) safe &= d.total > 0; /* a flip zlib's check missed */
        }
    }
    TAP_CHECK(safe, "hist_codec reads every single-bit corruption safely");

    int wrong = 1;
    memcpy(bad, good, len);
    bad[3] = 0x13; /* the uncompressed cookie outside */
    wrong &= hist_codec_decode(&d, bad, len) == -1;
    memcpy(bad, good, len);
    put32(bad + 4, (uint32_t)len); /* length beyond the buffer */
    wrong &= hist_codec_decode(&d, bad, len) == -1;
    static const unsigned char one[] = {2};
    unsigned char *c = crafted(one, 1, 3, 0, &len);
    wrong &= hist_codec_decode(&d, c, len) == 0 && d.total == 1 && d.counts[0] == 1;
    free(c);
    c = crafted(one, 1, 2, 0, &len);
    wrong &= hist_codec_decode(&d, c, len) == -1;
    free(c);
    c = crafted(one, 1, 3, 1, &len);
    wrong &= hist_codec_decode(&d, c, len) == -1;
    free(c);
    /* 23552 zero slots (ZigZag of -23552 = 47103: LEB128 ff ef 02), then a count: a value above 2^32 - 1 */
    static const unsigned char beyond[] = {0xff, 0xef, 0x02, 2};
    c = crafted(beyond, 4, 3, 0, &len);
    wrong &= hist_codec_decode(&d, c, len) == -1;
    free(c);
    static const unsigned char last[] = {0xfd, 0xef, 0x02, 2}; /* 23551 zeros, then the last slot */
    c = crafted(last, 4, 3, 0, &len);
    wrong &= hist_codec_decode(&d, c, len) == 0 && d.overflow == 1 && d.total == 1;
    free(c);
    static const unsigned char unended[] = {0x80, 0x80};
    c = crafted(unended, 2, 3, 0, &len);
    wrong &= hist_codec_decode(&d, c, len) == -1;
    free(c);
    TAP_CHECK(wrong, "hist_codec refuses wrong cookies, lengths, digits, offsets, values above 2^32 - 1, cut words");

    char *text = hist_codec_encode_base64(h);
    size_t n = strlen(text);
    int b64 = hist_codec_decode_base64(&d, text, n) == 0 && same_counts(&d, h);
    while (n > 0 && text[n - 1] == '=') n--;
    b64 &= hist_codec_decode_base64(&d, text, n) == 0 && same_counts(&d, h); /* padding optional */
    text[5] = '*';
    b64 &= hist_codec_decode_base64(&d, text, n) == -1 && d.total == 0;
    b64 &= hist_codec_decode_base64(&d, "", 0) == -1 && hist_codec_decode_base64(&d, "HISTF", 5) == -1;
    TAP_CHECK(b64, "hist_codec base64: padding optional, foreign characters refused");
    free(text);
    free(good);
    free(bad);
    hist_free(&d);
}

int main(void)
{
    struct hist h, back;
    if (hist_init(&h) || hist_init(&back)) return 1;
    test_vectors(&h, &back);
    test_round_trip(&h, &back);
    test_words(&h, &back);
    test_malformed(&h);
    hist_free(&h);
    hist_free(&back);
    TAP_EXIT();
}
