/* hist_codec: a struct hist in HdrHistogram's compressed V2 encoding (what
 * HdrHistogram's Java encodeIntoCompressedByteBuffer, HdrHistogram_c and the
 * Python hdrhistogram package read and write), raw or in base64, and back. No I/O.
 *
 * The encoding: cookie 0x1c849314 (V2 compressed, 0x1c849304 | 0x10) and the
 * length, both 32-bit big-endian, then zlib's deflate of: cookie 0x1c849313,
 * payload length, normalizing index offset 0, significant digits 3, lowest
 * trackable value 1, highest HIST_HIGHEST_US, conversion ratio 1.0 (a 40-byte
 * big-endian header), then counts[0 .. the highest non-zero slot] as ZigZag
 * LEB128 (at most 9 bytes each), a run of two or more zero slots written as
 * the negative run length.
 *
 * Overflow: values above HIST_HIGHEST_US are not in counts[] and cannot be
 * encoded as what they are. They are counted in the array's last slot
 * (4,292,870,144 to 4,294,967,295 us, about 71.6 minutes, which hist_record
 * never fills as it is above the hour), so every reader's total equals
 * h->total and percentiles that fall among them read "beyond the hour";
 * decoding puts that slot back into overflow.
 *
 * What the encoding does not carry: exact min, max, mean and stdev. Decoding
 * gives exact counts (and so the same percentile ranks); min and max become
 * the lowest and highest values of the lowest and highest non-zero slots, the
 * sums come from each slot's middle value (as HdrHistogram's mean). */
#ifndef BARRAGE_HIST_CODEC_H
#define BARRAGE_HIST_CODEC_H

#include <stddef.h>

#include "hist.h"

/* The compressed encoding of h into a malloc'd buffer (*out, *len; the caller
 * frees *out). Returns 0, or -1 when out of memory (nothing to free). */
int hist_codec_encode(const struct hist *h, unsigned char **out, size_t *len);
/* The same in base64 (standard alphabet, padded), as the interval log and the
 * --json record carry it: a malloc'd NUL-terminated string the caller frees,
 * or NULL when out of memory. */
char *hist_codec_encode_base64(const struct hist *h);
/* The same histogram in nanoseconds, as HdrHistogram's tools assume
 * (HistogramLogProcessor, HistogramLogAnalyzer): lowest 1, highest
 * HIST_HIGHEST_US * 1000, 3 digits (HIST_CODEC_NS_COUNTS_LEN slots); the
 * values of each microsecond slot counted at the middle of its nanosecond
 * range (within 0.1%: the microsecond slot's own precision), overflow in the
 * last slot (about 73 minutes). hist_codec_decode does not read it back. */
#define HIST_CODEC_NS_COUNTS_LEN 33792
int hist_codec_encode_ns(const struct hist *h, unsigned char **out, size_t *len);
char *hist_codec_encode_base64_ns(const struct hist *h);
/* Replaces what h (initialised by hist_init) holds with the decoded
 * histogram of buf[0..len). Returns 0, or -1 when buf is not a V2 compressed
 * histogram with this layout (cookies, lengths, zlib stream, 3 significant
 * digits, lowest 1, normalizing offset 0, no value above 2^32 - 1) or memory
 * runs out; h is then empty. Reads any input safely. */
int hist_codec_decode(struct hist *h, const unsigned char *buf, size_t len);
/* The same from base64 text[0..len) (padding optional, nothing else around it). */
int hist_codec_decode_base64(struct hist *h, const char *text, size_t len);

#endif
