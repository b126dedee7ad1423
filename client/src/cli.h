/* cli: the command line into a struct config. No output: errors come back as text. */
#ifndef BARRAGE_CLI_H
#define BARRAGE_CLI_H

#include <stddef.h>

#include "config.h"

enum cli_result { CLI_RUN, CLI_HELP, CLI_VERSION, CLI_ERROR };

/* Fills cfg (cfg->body is allocated: free it with cli_free). On CLI_ERROR the
 * reason is in err. */
/* The duration of a run without -d or -n. */
#define CLI_DEFAULT_DURATION_US 10000000ULL

/* cfg zeroed, then every option's default (those --help prints). */
void cli_defaults(struct config *cfg);

enum cli_result cli_parse(int argc, char **argv, struct config *cfg, char *err, size_t errlen);
void cli_free(struct config *cfg);
/* Parses "10s", "2m", "500ms", "250us", "1h" or plain seconds; -1 when invalid. */
long long cli_duration_us(const char *text);

#endif
