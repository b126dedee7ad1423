"""fmt: numbers for people, as lib/format.jq writes them (the README and compare-results.sh),
so that the page and the README say the same. None renders as "–" everywhere."""

import math

DASH = "–"
# invisible characters that reorder or break a line: LRM, RLM, U+2028/9, the bidi embeddings
# and overrides, the bidi isolates
_INVISIBLE = {0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}


def safe(text):
    """TEXT fit for a terminal, as lib/format.jq's safe: C0 and DEL in caret notation ("\x1b" ->
    "^["), C1 and the invisible ones as "<U+202E>"."""
    out = []
    for c in str(text):
        n = ord(c)
        if n < 32:
            out.append("^" + chr(64 + n))
        elif n == 127:
            out.append("^?")
        elif 128 <= n < 160 or n in _INVISIBLE:
            out.append("<U+%04X>" % n)
        else:
            out.append(c)
    return "".join(out)


def _half_up(x):
    """jq's round: half away from zero (Python's round is half to even)."""
    return math.floor(abs(x) + 0.5) * (1 if x >= 0 else -1)


def fixed(x, d):
    if x is None:
        return DASH
    if d == 0:
        return str(int(_half_up(x)))
    r = int(_half_up(abs(x) * 10 ** d))
    sign = "-" if x < 0 and r > 0 else ""
    s = str(r).rjust(d + 1, "0")
    return sign + s[:-d] + "." + s[-d:]


def thousands(x):
    if x is None:
        return DASH
    return ("-" if x < 0 else "") + "{:,}".format(int(_half_up(abs(x))))


def signed_pct(x, d=1):
    if x is None:
        return DASH
    s = fixed(x * 100, d)
    return (s if s.startswith("-") or float(s) == 0 else "+" + s) + "%"


def _share_decimals(pct):
    d = 1
    while d < 7 and pct * 10 ** d < 10:
        d += 1
    return d


def share(x):
    if x is None:
        return DASH
    if x == 0:
        return "0%"
    pct = x * 100
    return fixed(pct, _share_decimals(abs(pct))) + "%"


def latency(us):
    if us is None:
        return DASH
    if us < 1000:
        return "%d µs" % _half_up(us)
    if us < 10000:
        return fixed(us / 1000, 2) + " ms"
    if us < 100000:
        return fixed(us / 1000, 1) + " ms"
    if us < 1000000:
        return fixed(us / 1000, 0) + " ms"
    return fixed(us / 1000000, 2) + " s"


def kib(k):
    if k is None:
        return DASH
    if k < 1024:
        return "%d KiB" % _half_up(k)
    if k < 1048576:
        return fixed(k / 1024, 0) + " MiB"
    return fixed(k / 1048576, 1) + " GiB"


def pct(x, d=1):
    """A percentage that is already in percent (CPU: 100 = one core)."""
    return DASH if x is None else fixed(x, d) + "%"
