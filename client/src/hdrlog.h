/* hdrlog: an HdrHistogram interval log (format 1.3, as HdrHistogram's
 * HistogramLogWriter writes it and its readers in Java, C and Python read it)
 * into a FILE* the caller owns (a file, or a buffer through open_memstream or
 * fmemopen). Nothing is flushed or closed here.
 *
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1700000000.123 (seconds since epoch), 2023-11-14T22:13:20.123Z]
 *   #[BaseTime: 1700000000.123 (seconds since epoch)]
 *   #barrage: values are nanoseconds (ns); Interval_Max is in milliseconds; ...
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   0.000,1.000,12.345,HISTFAAAA...
 *   Tag=uncorrected,0.000,1.000,0.987,HISTFAAAA...
 *
 * Interval timestamps are seconds since BaseTime (the start), to the
 * millisecond; the histogram is hist_codec's base64 (its note on overflow
 * applies) in the log's unit: nanoseconds (HDRLOG_NS: what HdrHistogram's
 * HistogramLogProcessor and HistogramLogAnalyzer assume, so their output in
 * milliseconds is right) or microseconds (HDRLOG_US: barrage's own unit,
 * exact; those tools then need -outputValueUnitRatio 1000); the header's
 * barrage comment names the unit. Interval_Max is the interval's exact max
 * (overflow included) in milliseconds in both, as Java's writer reports
 * nanosecond values in milliseconds. */
#ifndef BARRAGE_HDRLOG_H
#define BARRAGE_HDRLOG_H

#include <stdint.h>
#include <stdio.h>

#include "hist.h"

enum hdrlog_unit { HDRLOG_NS, HDRLOG_US };

/* Writes the header above: StartTime and BaseTime both start_epoch_ms
 * (milliseconds since the epoch), the units comment, `comment` as one more
 * comment line when not NULL (one line, no newline in it), the legend.
 * Returns 0, or -1 for a comment with a newline or a write error. */
int hdrlog_write_header(FILE *out, uint64_t start_epoch_ms, enum hdrlog_unit unit, const char *comment);
/* Writes one interval line for h: `tag` NULL for an untagged line, else a
 * name of letters, digits, '_', '-', '.' (the readers split on ',' and
 * spaces); start_us and length_us from BaseTime, in microseconds.
 * Returns 0, or -1 for a bad tag, no memory or a write error. */
int hdrlog_write_interval(FILE *out, enum hdrlog_unit unit, const char *tag, uint64_t start_us, uint64_t length_us,
                          const struct hist *h);

#endif
