"""hdr: read HdrHistogram's V2 compressed encoding (base64), as barrage's records hold it.

    decode(text) -> Histogram       raises ValueError on anything that is not such a histogram
    Histogram.buckets()             [(highest value of the bucket, count)] of the non-empty buckets
    Histogram.total                 the number of values recorded
    Histogram.value_at(q)           the value at quantile q (0..1), as HdrHistogram reports it:
                                    the highest value equivalent to the bucket that holds it
    Histogram.percentile_curve()    [(q, value)]: the quantile reached at the end of each
                                    non-empty bucket: the whole distribution, one point per bucket

The encoding (HdrHistogram's EncodableHistogram): a 4-byte cookie and length, then a zlib stream
holding a 40-byte header (cookie, payload length, normalizing offset, significant digits,
lowest and highest trackable value, conversion ratio) and the counts as ZigZag LEB128 varints,
a negative one standing for that many empty buckets.
"""

import base64
import math
import struct
import zlib

_COMPRESSED_COOKIE = 0x1C849304
_ENCODING_COOKIE = 0x1C849303


class Histogram:
    def __init__(self, lowest, significant_digits, counts):
        largest_single_unit = 2 * 10 ** significant_digits
        sub_bucket_count_magnitude = int(math.ceil(math.log2(largest_single_unit)))
        self._half_count_magnitude = max(sub_bucket_count_magnitude, 1) - 1
        self._half_count = 1 << self._half_count_magnitude
        self._unit_magnitude = int(math.floor(math.log2(max(lowest, 1))))
        self.counts = counts
        self.total = sum(counts)

    def _bucket_range(self, index):
        """(lowest, highest) value of the bucket at a counts index."""
        bucket = (index >> self._half_count_magnitude) - 1
        sub_bucket = (index & (self._half_count - 1)) + self._half_count
        if bucket < 0:
            sub_bucket -= self._half_count
            bucket = 0
        shift = bucket + self._unit_magnitude
        low = sub_bucket << shift
        return low, low + (1 << shift) - 1

    def buckets(self):
        return [(self._bucket_range(i)[1], c) for i, c in enumerate(self.counts) if c > 0]

    def value_at(self, q):
        if self.total == 0:
            return None
        want = max(1, int(math.ceil(q * self.total)))
        seen = 0
        for value, count in self.buckets():
            seen += count
            if seen >= want:
                return value
        return self.buckets()[-1][0]

    def percentile_curve(self):
        curve, seen = [], 0
        for value, count in self.buckets():
            seen += count
            curve.append((seen / self.total, value))
        return curve


def _varints(data, offset, end):
    """ZigZag LEB128 values (at most 9 bytes each, the 9th holding 8 bits) from data[offset:end]."""
    while offset < end:
        value, shift = 0, 0
        for i in range(9):
            byte = data[offset]
            offset += 1
            if i == 8:
                value |= byte << shift
                break
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0:
                break
        yield (value >> 1) ^ -(value & 1)


def decode(text):
    try:
        raw = base64.b64decode(text, validate=True)
        cookie, length = struct.unpack(">ii", raw[:8])
        if cookie & ~0xF0 != _COMPRESSED_COOKIE & ~0xF0:
            raise ValueError("not an HdrHistogram V2 compressed histogram")
        payload = zlib.decompress(raw[8:8 + length])
        cookie, payload_length, _normalizing, digits, lowest, _highest, _ratio = \
            struct.unpack(">iiiiqqd", payload[:40])
    except (ValueError, struct.error, zlib.error) as e:
        raise ValueError("bad histogram: %s" % e) from None
    if cookie & ~0xF0 != _ENCODING_COOKIE & ~0xF0:
        raise ValueError("bad histogram: not the V2 encoding")
    counts = []
    for value in _varints(payload, 40, 40 + payload_length):
        if value < 0:
            counts.extend([0] * -value)
        else:
            counts.append(value)
    return Histogram(lowest, digits, counts)
