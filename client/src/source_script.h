/* source_script: what main does with a wrk script around the run; the
 * source itself is source_script in source.h. */
#ifndef BARRAGE_SOURCE_SCRIPT_H
#define BARRAGE_SOURCE_SCRIPT_H

#include <stddef.h>

#include "config.h"
#include "run_result.h"
#include "script.h"

/* Loads cfg->script_file into the main state with the wrk table from the
 * command line (cfg->addr resolved); NULL with the reason in err (a usage
 * error: exit 2). Free with script_free, after the last use of cfg->script. */
struct script *source_script_load(const struct config *cfg, char *err, size_t errlen);

/* One state per thread (-t): setup(thread), then init(args) with the
 * arguments after the URL; -1 with the message in script_error(s). */
int source_script_threads(struct script *s, const struct config *cfg);

/* done(summary, latency, requests) with wrk's fields from the run: requests
 * are final responses; errors.read counts read, protocol and reset errors,
 * errors.status responses of 400 and up; requests holds each thread's
 * requests/s. -1 with the message in script_error(s). */
int source_script_done(struct script *s, const struct run_result *r);

#endif
