/* cli: getopt_long over the options of `barrage --help`. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http2.h"
#include "pacer.h"
#include "stages.h"

enum {
    OPT_WARMUP = 256, OPT_TIMEOUT, OPT_CONNECT_TIMEOUT, OPT_GRACE, OPT_NO_KEEPALIVE, OPT_PER_CONNECTION,
    OPT_UNIX, OPT_JSON, OPT_LATENCY, OPT_MAX_HEADER, OPT_VERBOSE, OPT_HELP, OPT_VERSION,
    OPT_H1, OPT_H2, OPT_SNI, OPT_CACERT, OPT_INSECURE, OPT_WINDOW_BITS, OPT_CONNECTION_WINDOW_BITS,
    OPT_ARRIVAL, OPT_SEED, OPT_CONTROL, OPT_HDR_LOG, OPT_LIVE, OPT_START_AT,
    OPT_URLS, OPT_URLS_RANDOM, OPT_RAND_URL, OPT_RATE_STAGES, OPT_PACE_RESOLUTION,
};

static const struct option options[] = {
    {"connections", required_argument, NULL, 'c'},
    {"threads", required_argument, NULL, 't'},
    {"duration", required_argument, NULL, 'd'},
    {"requests", required_argument, NULL, 'n'},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"pipeline", required_argument, NULL, 'm'},
    {"streams", required_argument, NULL, 'm'},
    {"h1", no_argument, NULL, OPT_H1},
    {"h2", no_argument, NULL, OPT_H2},
    {"sni", required_argument, NULL, OPT_SNI},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"insecure", no_argument, NULL, OPT_INSECURE},
    {"window-bits", required_argument, NULL, OPT_WINDOW_BITS},
    {"connection-window-bits", required_argument, NULL, OPT_CONNECTION_WINDOW_BITS},
    {"method", required_argument, NULL, 'X'},
    {"header", required_argument, NULL, 'H'},
    {"body", required_argument, NULL, 'b'},
    {"body-file", required_argument, NULL, 'B'},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"no-keepalive", no_argument, NULL, OPT_NO_KEEPALIVE},
    {"requests-per-connection", required_argument, NULL, OPT_PER_CONNECTION},
    {"unix-socket", required_argument, NULL, OPT_UNIX},
    {"max-header-size", required_argument, NULL, OPT_MAX_HEADER},
    {"json", no_argument, NULL, OPT_JSON},
    {"latency", no_argument, NULL, OPT_LATENCY},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"rate", required_argument, NULL, 'R'},
    {"arrival", required_argument, NULL, OPT_ARRIVAL},
    {"seed", required_argument, NULL, OPT_SEED},
    {"control", required_argument, NULL, OPT_CONTROL},
    {"hdr-log", required_argument, NULL, OPT_HDR_LOG},
    {"live", no_argument, NULL, OPT_LIVE},
    {"start-at", required_argument, NULL, OPT_START_AT},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"script", required_argument, NULL, 's'},
    {"urls", required_argument, NULL, OPT_URLS},
    {"urls-random", no_argument, NULL, OPT_URLS_RANDOM},
    {"rand-url", required_argument, NULL, OPT_RAND_URL},
    {"rate-stages", required_argument, NULL, OPT_RATE_STAGES},
    {"pace-resolution", required_argument, NULL, OPT_PACE_RESOLUTION},
    {NULL, 0, NULL, 0},
};

static enum cli_result fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

long long cli_duration_us(const char *text)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || v < 0) return -1;
    double unit;
    if (*end == '\0' || strcmp(end, "s") == 0) unit = 1e6;
    else if (strcmp(end, "ms") == 0) unit = 1e3;
    else if (strcmp(end, "us") == 0) unit = 1;
    else if (strcmp(end, "m") == 0) unit = 60e6;
    else if (strcmp(end, "h") == 0) unit = 3600e6;
    else return -1;
    if (v * unit > 1e15) return -1;
    return (long long)(v * unit);
}

/* A whole number in [min, max]; -1 when invalid. */
static long long parse_count(const char *text, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max) return -1;
    return v;
}

static int read_file(const char *path, struct config *cfg)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    free(cfg->body);
    cfg->body = buf;
    cfg->body_len = len;
    return 0;
}

static void defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->connections = 10;
    cfg->threads = 1;
    cfg->pipeline = 1;
    cfg->method = "GET";
    cfg->timeout_us = 10000000;
    cfg->connect_timeout_us = 5000000;
    cfg->grace_us = 2000000;
    cfg->keepalive = true;
    cfg->max_header_size = 65536;
    cfg->window_bits = HTTP2_DEFAULT_WINDOW_BITS;
    cfg->connection_window_bits = HTTP2_DEFAULT_CONNECTION_WINDOW_BITS;
}

/* http://host[:port][/path]; the host is kept without brackets. */
static enum cli_result parse_url(struct config *cfg, char *err, size_t errlen)
{
    const char *u = cfg->url;
    cfg->tls = strncmp(u, "https://", 8) == 0;
    if (!cfg->tls && strncmp(u, "http://", 7) != 0)
        return fail(err, errlen, "the URL must start with http:// or https://: %s", u);
    u += cfg->tls ? 8 : 7;
    const char *path = strchr(u, '/');
    size_t authority = path ? (size_t)(path - u) : strlen(u);
    cfg->path = path ? path : "/";
    const char *host = u, *colon;
    size_t host_len = authority;
    if (*u == '[') {
        const char *close = memchr(u, ']', authority);
        if (!close) return fail(err, errlen, "bad IPv6 address in URL: %s", cfg->url);
        host = u + 1;
        host_len = (size_t)(close - host);
        colon = close + 1 < u + authority && close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = memchr(u, ':', authority);
        if (colon) host_len = (size_t)(colon - u);
    }
    size_t port_len = colon ? (size_t)(u + authority - colon - 1) : 0;
    if (host_len == 0 || host_len >= sizeof cfg->host) return fail(err, errlen, "bad host in URL: %s", cfg->url);
    if (colon && (port_len == 0 || port_len >= sizeof cfg->port)) return fail(err, errlen, "bad port in URL: %s", cfg->url);
    memcpy(cfg->host, host, host_len);
    cfg->host[host_len] = '\0';
    if (colon) {
        memcpy(cfg->port, colon + 1, port_len);
        cfg->port[port_len] = '\0';
    } else {
        strcpy(cfg->port, cfg->tls ? "443" : "80");
    }
    return parse_count(cfg->port, 1, 65535) < 0 ? fail(err, errlen, "bad port in URL: %s", cfg->url) : CLI_RUN;
}

static enum cli_result set_duration(uint64_t *field, const char *name, const char *text, char *err, size_t errlen)
{
    long long us = cli_duration_us(text);
    if (us < 0) return fail(err, errlen, "bad %s '%s' (examples: 10s, 2m, 500ms)", name, text);
    *field = (uint64_t)us;
    return CLI_RUN;
}

/* --rate-stages into out (at most STAGES_MAX); the count, or -1 with why in err. */
static int parse_stages(const char *text, struct rate_stage *out, char *err, size_t errlen)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
        char item[64];
        size_t len = (size_t)(end - p);
        if (len == 0 || len >= sizeof item) {
            snprintf(err, errlen, "bad --rate-stages '%s': stage %d is empty or too long (RATE:TIME,...)", text, n + 1);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *colon = strchr(item, ':'), *rest;
        if (n == STAGES_MAX) {
            snprintf(err, errlen, "bad --rate-stages: more than %d stages", STAGES_MAX);
            return -1;
        }
        if (!colon) {
            snprintf(err, errlen, "bad --rate-stages stage '%s' (RATE:TIME, e.g. 1000:10s)", item);
            return -1;
        }
        *colon = '\0';
        errno = 0;
        double rate = strtod(item, &rest);
        long long us = cli_duration_us(colon + 1);
        if (errno || rest == item || *rest || !(rate >= 0 && rate <= PACER_MAX_RATE) || (rate > 0 && rate < 0.001)) {
            snprintf(err, errlen, "bad --rate-stages rate '%s' (requests/s, 0 or 0.001 to %.0f)", item, PACER_MAX_RATE);
            return -1;
        }
        if (us <= 0) {
            snprintf(err, errlen, "bad --rate-stages time '%s' (more than 0: 10s, 2m, 500ms)", colon + 1);
            return -1;
        }
        out[n++] = (struct rate_stage){.rate = rate, .duration_us = (uint64_t)us};
        if (!comma) break;
        p = comma + 1;
        if (!*p) {
            snprintf(err, errlen, "bad --rate-stages '%s': a trailing comma", text);
            return -1;
        }
    }
    if (n == 0) snprintf(err, errlen, "bad --rate-stages '%s': no stage", text);
    return n ? n : -1;
}

/* -R, --arrival, --seed. */
static enum cli_result apply_rate(int opt, const char *arg, struct config *cfg, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    if (opt == 'R') {
        double rate = strtod(arg, &end);
        if (errno || end == arg || *end || !(rate >= 0.001 && rate <= PACER_MAX_RATE))
            return fail(err, errlen, "bad --rate '%s' (requests/s in total, 0.001 to %.0f)", arg, PACER_MAX_RATE);
        cfg->rate = rate;
        return CLI_RUN;
    }
    if (opt == OPT_ARRIVAL) {
        if (strcmp(arg, "even") && strcmp(arg, "poisson")) return fail(err, errlen, "bad --arrival '%s' (even or poisson)", arg);
        cfg->poisson = strcmp(arg, "poisson") == 0;
        return CLI_RUN;
    }
    unsigned long long seed = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || *arg == '-') return fail(err, errlen, "bad --seed '%s' (a whole number)", arg);
    cfg->seed = seed;
    cfg->seed_set = true;
    return CLI_RUN;
}

/* One option; CLI_RUN when it was fine. */
static enum cli_result apply(int opt, const char *arg, struct config *cfg, bool *duration_set, char *err, size_t errlen)
{
    long long v;
    switch (opt) {
    case 'c':
        if ((v = parse_count(arg, 1, 1000000)) < 0) return fail(err, errlen, "bad --connections '%s'", arg);
        cfg->connections = (unsigned)v;
        return CLI_RUN;
    case 't':
        if ((v = parse_count(arg, 1, 1024)) < 0) return fail(err, errlen, "bad --threads '%s'", arg);
        cfg->threads = (unsigned)v;
        return CLI_RUN;
    case 'n':
        if ((v = parse_count(arg, 1, (long long)1 << 62)) < 0) return fail(err, errlen, "bad --requests '%s'", arg);
        cfg->requests = (uint64_t)v;
        return CLI_RUN;
    case 'm':
        if ((v = parse_count(arg, 1, CONFIG_MAX_PIPELINE)) < 0)
            return fail(err, errlen, "bad --pipeline '%s' (1 to %d)", arg, CONFIG_MAX_PIPELINE);
        cfg->pipeline = (unsigned)v;
        return CLI_RUN;
    case OPT_PER_CONNECTION:
        if ((v = parse_count(arg, 1, (long long)1 << 62)) < 0)
            return fail(err, errlen, "bad --requests-per-connection '%s'", arg);
        cfg->requests_per_connection = (uint64_t)v;
        return CLI_RUN;
    case OPT_MAX_HEADER:
        if ((v = parse_count(arg, 64, (long long)1 << 30)) < 0) return fail(err, errlen, "bad --max-header-size '%s'", arg);
        cfg->max_header_size = (size_t)v;
        return CLI_RUN;
    case 'd':
        *duration_set = true;
        return set_duration(&cfg->duration_us, "--duration", arg, err, errlen);
    case OPT_WARMUP: return set_duration(&cfg->warmup_us, "--warmup", arg, err, errlen);
    case OPT_TIMEOUT: return set_duration(&cfg->timeout_us, "--timeout", arg, err, errlen);
    case OPT_CONNECT_TIMEOUT: return set_duration(&cfg->connect_timeout_us, "--connect-timeout", arg, err, errlen);
    case OPT_GRACE: return set_duration(&cfg->grace_us, "--grace", arg, err, errlen);
    case 'X': cfg->method = arg; return CLI_RUN;
    case 'H':
        if (cfg->header_count == CONFIG_MAX_HEADERS) return fail(err, errlen, "too many --header options");
        if (!strchr(arg, ':') || strpbrk(arg, "\r\n")) return fail(err, errlen, "bad --header '%s' (Name: value)", arg);
        cfg->headers[cfg->header_count++] = arg;
        return CLI_RUN;
    case 'b':
        free(cfg->body);
        cfg->body_len = strlen(arg);
        cfg->body = malloc(cfg->body_len + 1);
        if (!cfg->body) return fail(err, errlen, "out of memory");
        memcpy(cfg->body, arg, cfg->body_len + 1);
        return CLI_RUN;
    case 'B':
        return read_file(arg, cfg) ? fail(err, errlen, "cannot read --body-file '%s'", arg) : CLI_RUN;
    case OPT_NO_KEEPALIVE: cfg->keepalive = false; return CLI_RUN;
    case OPT_UNIX: cfg->unix_socket = arg; return CLI_RUN;
    case OPT_JSON: cfg->json = true; return CLI_RUN;
    case OPT_LATENCY: cfg->latency = true; return CLI_RUN;
    case 'q': cfg->quiet = true; return CLI_RUN;
    case 's': cfg->script_file = arg; return CLI_RUN;
    case OPT_VERBOSE: cfg->verbose = true; return CLI_RUN;
    case OPT_H1: cfg->force = PROTOCOL_H1; return CLI_RUN;
    case OPT_H2: cfg->force = PROTOCOL_H2; return CLI_RUN;
    case OPT_SNI: cfg->sni = arg; return CLI_RUN;
    case OPT_CACERT: cfg->cacert = arg; return CLI_RUN;
    case OPT_INSECURE: cfg->insecure = true; return CLI_RUN;
    case OPT_WINDOW_BITS:
    case OPT_CONNECTION_WINDOW_BITS:
        /* HTTP/2 windows go up to 2^31-1; 2^16-1 is the protocol's initial one */
        if ((v = parse_count(arg, opt == OPT_WINDOW_BITS ? 1 : 16, 31)) < 0)
            return fail(err, errlen, "bad %s '%s' (%d to 31)", opt == OPT_WINDOW_BITS ? "--window-bits" : "--connection-window-bits",
                        arg, opt == OPT_WINDOW_BITS ? 1 : 16);
        *(opt == OPT_WINDOW_BITS ? &cfg->window_bits : &cfg->connection_window_bits) = (unsigned)v;
        return CLI_RUN;
    case 'R':
    case OPT_ARRIVAL:
    case OPT_SEED:
        return apply_rate(opt, arg, cfg, err, errlen);
    case OPT_CONTROL: cfg->control_path = arg; return CLI_RUN;
    case OPT_HDR_LOG: cfg->hdr_log_path = arg; return CLI_RUN;
    case OPT_LIVE: cfg->live = true; return CLI_RUN;
    case OPT_START_AT:
        if ((v = parse_count(arg, 1, (long long)1 << 50)) < 0)
            return fail(err, errlen, "bad --start-at '%s' (milliseconds since the epoch, as date +%%s%%3N prints)", arg);
        cfg->start_at_ms = (uint64_t)v;
        return CLI_RUN;
    case OPT_URLS: cfg->urls_file = arg; return CLI_RUN;
    case OPT_URLS_RANDOM: cfg->urls_random = true; return CLI_RUN;
    case OPT_RAND_URL: cfg->rand_url = arg; return CLI_RUN;
    case OPT_PACE_RESOLUTION:
        if (set_duration(&cfg->pace_resolution_us, "--pace-resolution", arg, err, errlen) != CLI_RUN) return CLI_ERROR;
        if (cfg->pace_resolution_us > 1000000) return fail(err, errlen, "--pace-resolution '%s': at most 1s", arg);
        return CLI_RUN;
    case OPT_RATE_STAGES: {
        int n = parse_stages(arg, cfg->stages, err, errlen);
        if (n < 0) return CLI_ERROR;
        cfg->stage_count = (unsigned)n;
        return CLI_RUN;
    }
    case OPT_HELP: return CLI_HELP;
    case OPT_VERSION: return CLI_VERSION;
    default: return fail(err, errlen, "unknown option (see --help)");
    }
}

enum cli_result cli_parse(int argc, char **argv, struct config *cfg, char *err, size_t errlen)
{
    bool duration_set = false;
    int opt;
    defaults(cfg);
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "c:t:d:n:m:X:H:b:B:qs:R:", options, NULL)) != -1) {
        if (opt == '?' || opt == ':') return fail(err, errlen, "unknown option or missing value: %s", argv[optind - 1]);
        enum cli_result r = apply(opt, optarg, cfg, &duration_set, err, errlen);
        if (r != CLI_RUN) return r;
    }
    /* as wrk: options anywhere (GNU getopt), the URL, then the script's
     * arguments (after "--" when they look like options) */
    if (optind >= argc) return fail(err, errlen, "expected one URL (see --help)");
    cfg->url = argv[optind];
    cfg->script_args = (const char *const *)argv + optind + 1;
    cfg->script_arg_count = (unsigned)(argc - optind - 1);
    if (cfg->script_arg_count && !cfg->script_file)
        return fail(err, errlen, "arguments after the URL ('%s') are for a script (--script)", argv[optind + 1]);
    if (cfg->threads > cfg->connections) return fail(err, errlen, "--threads (%u) must not exceed --connections (%u)",
                                                     cfg->threads, cfg->connections);
    if (!duration_set && cfg->requests == 0) cfg->duration_us = 10000000;
    if (duration_set && cfg->duration_us == 0) return fail(err, errlen, "--duration must be more than 0");
    if (cfg->requests && cfg->requests < cfg->threads) cfg->threads = (unsigned)cfg->requests;
    if (cfg->stage_count) {
        /* the ramps start from -R, else from the first stage's rate; the run lasts the stages unless -d says */
        if (cfg->control_path) return fail(err, errlen, "--control does not combine with --rate-stages");
        if (cfg->rate == 0) cfg->rate = cfg->stages[0].rate;
        if (cfg->rate == 0) return fail(err, errlen, "--rate-stages starting at 0 needs a starting rate (-R)");
        cfg->stages_start_rate = cfg->rate;
        if (!duration_set) cfg->duration_us = stages_duration(cfg->stages, cfg->stage_count);
    }
    if (cfg->rate == 0 && (cfg->poisson || (cfg->seed_set && !config_seeded(cfg))))
        return fail(err, errlen, "--arrival and --seed need a fixed rate (-R), --urls-random or --rand-url");
    if (cfg->pace_resolution_us && cfg->rate == 0 && !cfg->stage_count)
        return fail(err, errlen, "--pace-resolution needs a fixed rate (-R or --rate-stages)");
    if (cfg->urls_random && !cfg->urls_file) return fail(err, errlen, "--urls-random needs --urls");
    if (cfg->urls_file && cfg->rand_url) return fail(err, errlen, "--urls and --rand-url both choose the target: give one");
    if (config_generated(cfg) && cfg->script_file) return fail(err, errlen, "--urls and --rand-url do not combine with --script");
    enum cli_result r = parse_url(cfg, err, errlen);
    /* http:// speaks h2c with prior knowledge when asked; https:// lets ALPN choose (main) */
    cfg->h2 = cfg->force == PROTOCOL_H2;
    return r;
}

void cli_free(struct config *cfg)
{
    free(cfg->body);
    cfg->body = NULL;
}
