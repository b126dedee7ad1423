/* report: the module that writes to stdout and stderr. The exceptions: the
 * --hdr-log file (hdrlog.c), what a script prints (script.c) and the first
 * TLS handshake failure, which tls.c prints from a worker thread.
 * stdout: the text report or, with --json, the metrics record
 * (docs/metrics.md), and --help/--version; stderr: messages for people
 * ("barrage: ...") and the --live lines. Once report_divert_stdout was called
 * (a script with --json) the record goes to what stdout was and everything
 * else printed to fd 1 goes to stderr. Reads run_result (run_result.h), never
 * the engine. */
#ifndef BARRAGE_REPORT_H
#define BARRAGE_REPORT_H

#include <stdint.h>

#include "config.h"
#include "run_result.h"

#define BARRAGE_VERSION "0.1.0"

/* --help on stdout: examples first, then the options with the defaults
 * in cfg (cli_defaults, duration_us the default duration). */
void report_help(const struct config *defaults);
/* --version: barrage's and the HTTP/3 libraries' (libs: main asks http3.c, so
 * that report.c includes no protocol module). */
void report_version(const struct run_libraries *libs);
/* "barrage: MESSAGE" on stderr. */
void report_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The text report's first lines ("Running 10.00s test @ URL", threads and
 * connections) before the run, flushed so that they come before --live's
 * lines; nothing with --json or -q. */
void report_start(const struct config *cfg);
/* One line of --live on stderr: a second of the timeline. */
void report_live(const struct config *cfg, const struct timeline_entry *e);
/* The run's result: the text report, or the metrics record with --json.
 * max_rss_kb is the process's peak resident memory. */
void report_run(const struct config *cfg, const struct run_result *r, long max_rss_kb);
/* From now on stdout (fd 1: what scripts print) goes to stderr, and the
 * --json record to what stdout was, so that it stays the only thing there.
 * 0, or -1 (nothing changed). */
int report_divert_stdout(void);

#endif
