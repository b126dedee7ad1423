/* cli: getopt_long over the options of `barrage --help`. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "fileread.h"
#include "http2.h"
#include "pacer.h"
#include "regexgen.h"
#include "stages.h"
#include "url.h"
#include "urllist.h"

#define WS_DEFAULT_SIZE 32                  /* a small message: a chat line, a quote */
#define WS_DEFAULT_MAX_MESSAGE (64ull << 20) /* 64 MiB, twice -B's largest message */
#define OHA_MAX_REPEAT 4 /* oha's --max-repeat default, under its --rand-regex-url */

enum {
    OPT_WARMUP = 256, OPT_TIMEOUT, OPT_CONNECT_TIMEOUT, OPT_GRACE, OPT_NO_KEEPALIVE, OPT_PER_CONNECTION,
    OPT_UNIX, OPT_JSON, OPT_LATENCY, OPT_MAX_HEADER, OPT_VERBOSE, OPT_HELP, OPT_VERSION,
    OPT_H1, OPT_H2, OPT_H3, OPT_SNI, OPT_CACERT, OPT_INSECURE, OPT_WINDOW_BITS, OPT_CONNECTION_WINDOW_BITS,
    OPT_ARRIVAL, OPT_SEED, OPT_CONTROL, OPT_HDR_LOG, OPT_HDR_LOG_UNIT, OPT_LIVE, OPT_START_AT,
    OPT_URLS, OPT_URLS_RANDOM, OPT_URLS_FROM_FILE, OPT_RAND_URL, OPT_RAND_REGEX_URL, OPT_MAX_REPEAT,
    OPT_RATE_STAGES, OPT_PACE_RESOLUTION, OPT_FAIL_ON, OPT_LOG, OPT_LOG_SAMPLE, OPT_FLOW, OPT_USERS, OPT_EXPECT_STATUS,
    OPT_JWT_KEY, OPT_JWT_ALG, OPT_JWT_HEADER, OPT_JWT_KID, OPT_JWT_ISS, OPT_JWT_SUB, OPT_JWT_AUD, OPT_JWT_EXP,
    OPT_TLS_RESUME, OPT_CERT, OPT_KEY, OPT_IDLE_CONNECTIONS, OPT_IDLE_PING,
    OPT_METRICS_LISTEN, OPT_METRICS_LINGER,
    OPT_WS_SIZE, OPT_WS_BINARY, OPT_WS_MAX_MESSAGE,
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
    {"h3", no_argument, NULL, OPT_H3},
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
    {"hdr-log-unit", required_argument, NULL, OPT_HDR_LOG_UNIT},
    {"live", no_argument, NULL, OPT_LIVE},
    {"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
    {"metrics-linger", required_argument, NULL, OPT_METRICS_LINGER},
    {"start-at", required_argument, NULL, OPT_START_AT},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"script", required_argument, NULL, 's'},
    {"urls", required_argument, NULL, OPT_URLS},
    {"flow", required_argument, NULL, OPT_FLOW},
    {"users", required_argument, NULL, OPT_USERS},
    {"expect-status", required_argument, NULL, OPT_EXPECT_STATUS},
    {"urls-from-file", no_argument, NULL, OPT_URLS_FROM_FILE}, /* oha's flag: the argument is the list */
    {"urls-random", no_argument, NULL, OPT_URLS_RANDOM},
    {"rand-url", required_argument, NULL, OPT_RAND_URL},
    {"rand-regex-url", no_argument, NULL, OPT_RAND_REGEX_URL}, /* oha's flag: the argument is the pattern */
    {"max-repeat", required_argument, NULL, OPT_MAX_REPEAT},
    {"rate-stages", required_argument, NULL, OPT_RATE_STAGES},
    {"pace-resolution", required_argument, NULL, OPT_PACE_RESOLUTION},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    {"log", required_argument, NULL, OPT_LOG},
    {"log-sample", required_argument, NULL, OPT_LOG_SAMPLE},
    {"jwt-key", required_argument, NULL, OPT_JWT_KEY},
    {"jwt-alg", required_argument, NULL, OPT_JWT_ALG},
    {"jwt-header", required_argument, NULL, OPT_JWT_HEADER},
    {"jwt-kid", required_argument, NULL, OPT_JWT_KID},
    {"jwt-iss", required_argument, NULL, OPT_JWT_ISS},
    {"jwt-sub", required_argument, NULL, OPT_JWT_SUB},
    {"jwt-aud", required_argument, NULL, OPT_JWT_AUD},
    {"jwt-exp", required_argument, NULL, OPT_JWT_EXP},
    {"tls-resume", no_argument, NULL, OPT_TLS_RESUME},
    {"cert", required_argument, NULL, OPT_CERT},
    {"key", required_argument, NULL, OPT_KEY},
    {"idle-connections", required_argument, NULL, OPT_IDLE_CONNECTIONS},
    {"idle-ping", required_argument, NULL, OPT_IDLE_PING},
    {"ws-size", required_argument, NULL, OPT_WS_SIZE},
    {"ws-binary", no_argument, NULL, OPT_WS_BINARY},
    {"ws-max-message", required_argument, NULL, OPT_WS_MAX_MESSAGE},
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

/* -B: the body from a regular file of at most FILEREAD_BODY_MAX bytes (fileread.h). */
static enum cli_result read_body_file(const char *path, struct config *cfg, char *err, size_t errlen)
{
    char why[200], *buf;
    size_t len;
    if (fileread_path(path, FILEREAD_BODY_MAX, &buf, &len, why, sizeof why))
        return fail(err, errlen, "--body-file %s: %s", path, why);
    free(cfg->body);
    cfg->body = buf;
    cfg->body_len = len;
    return CLI_RUN;
}

void cli_defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->connections = 10;
    snprintf(cfg->jwt_name, sizeof cfg->jwt_name, "Authorization");
    snprintf(cfg->jwt_prefix, sizeof cfg->jwt_prefix, "Bearer ");
    cfg->threads = 1;
    cfg->pipeline = 1;
    cfg->method = "GET";
    cfg->timeout_us = 10000000;
    cfg->connect_timeout_us = 5000000;
    cfg->grace_us = 2000000;
    cfg->hdr_log_ns = true;
    cfg->keepalive = true;
    cfg->max_header_size = 65536;
    cfg->rand_url_max_repeat = -1;
    cfg->log_sample = 1;
    cfg->window_bits = HTTP2_DEFAULT_WINDOW_BITS;
    cfg->connection_window_bits = HTTP2_DEFAULT_CONNECTION_WINDOW_BITS;
    cfg->idle_ping_us = 15000000; /* Chrome's QUIC keep-alive */
    cfg->ws_size = WS_DEFAULT_SIZE;
    cfg->ws_max_message = WS_DEFAULT_MAX_MESSAGE;
}

/* The URL (url.h) into cfg: host, port, target, and the userinfo's
 * credentials as an Authorization header unless -H gives one. */
static enum cli_result parse_url(struct config *cfg, char *err, size_t errlen)
{
    struct url u;
    if (url_parse(cfg->url, &u, err, errlen)) return CLI_ERROR;
    cfg->tls = u.tls;
    cfg->ws = u.ws;
    memcpy(cfg->host, u.host, sizeof cfg->host);
    memcpy(cfg->port, u.port, sizeof cfg->port);
    cfg->path = u.target;
    if (!u.credentials || config_header(cfg, "authorization")) {
        free(u.credentials);
        return CLI_RUN;
    }
    char *basic = url_base64(u.credentials, strlen(u.credentials));
    size_t len = basic ? strlen(basic) + 32 : 0;
    cfg->authorization = basic ? malloc(len) : NULL;
    free(u.credentials);
    if (!cfg->authorization) {
        free(basic);
        return fail(err, errlen, "out of memory");
    }
    snprintf(cfg->authorization, len, "Authorization: Basic %s", basic);
    free(basic);
    if (cfg->header_count == CONFIG_MAX_HEADERS) return fail(err, errlen, "too many --header options");
    cfg->headers[cfg->header_count++] = cfg->authorization;
    return CLI_RUN;
}

/* --rand-url as oha's --rand-regex-url: an absolute pattern, one that does not
 * start with "/" and holds "://", names its origin "http[s]://host[:port]" up
 * to the path; only the path is drawn. */
static bool rand_url_absolute(const char *pattern)
{
    return pattern && pattern[0] != '/' && strstr(pattern, "://");
}

/* An absolute pattern's origin, taken as written (a backslash before a
 * character stands for it: 127\.0\.0\.1 or 127.0.0.1), into origin (cap
 * bytes, with a "/" after it) and parsed into u (the caller's: url_free);
 * *path is where the path pattern starts ("" when there is none). */
static enum cli_result rand_url_origin(const char *pattern, char *origin, size_t cap, struct url *u,
                                       const char **path, char *err, size_t errlen)
{
    const char *end = strchr(strstr(pattern, "://") + 3, '/');
    if (!end) end = pattern + strlen(pattern);
    size_t n = 0;
    for (const char *c = pattern; c < end; c++) {
        if (*c == '\\' && c + 1 < end) c++;
        if (n + 2 >= cap) return fail(err, errlen, "--rand-url '%s': its origin is too long", pattern);
        origin[n++] = *c;
    }
    origin[n++] = '/';
    origin[n] = '\0';
    *path = end;
    char why[200];
    if (url_parse(origin, u, why, sizeof why))
        return fail(err, errlen, "--rand-url '%s': its origin '%s' is not one (only the path is drawn): %s", pattern,
                    origin, why);
    return CLI_RUN;
}

/* No URL on the command line: --rand-url's origin when the pattern is absolute,
 * else the first line of --urls when it is an absolute URL (as h2load -i). */
static enum cli_result url_from_source(struct config *cfg, char *err, size_t errlen)
{
    if (rand_url_absolute(cfg->rand_url)) {
        char origin[URL_HOST_MAX + 64];
        const char *path;
        struct url u;
        if (rand_url_origin(cfg->rand_url, origin, sizeof origin, &u, &path, err, errlen) != CLI_RUN) return CLI_ERROR;
        url_free(&u);
        if (!(cfg->url_owned = strdup(origin))) return fail(err, errlen, "out of memory");
    } else if (cfg->urls_file && !cfg->rand_url) {
        if (urllist_first_url(cfg->urls_text, cfg->urls_len, urllist_name(cfg->urls_file), &cfg->url_owned, err, errlen))
            return CLI_ERROR;
    } else {
        return fail(err, errlen, "expected one URL (see --help)");
    }
    cfg->url = cfg->url_owned;
    return CLI_RUN;
}

/* An absolute --rand-url pattern names the URL's origin (scheme, host and
 * port, as parsed from both); cfg->rand_url becomes its path pattern. */
static enum cli_result check_rand_url_origin(struct config *cfg, char *err, size_t errlen)
{
    if (!rand_url_absolute(cfg->rand_url)) return CLI_RUN;
    char origin[URL_HOST_MAX + 64];
    const char *path;
    struct url u;
    if (rand_url_origin(cfg->rand_url, origin, sizeof origin, &u, &path, err, errlen) != CLI_RUN) return CLI_ERROR;
    bool same = u.tls == cfg->tls && !strcmp(u.host, cfg->host) && !strcmp(u.port, cfg->port);
    url_free(&u);
    if (!same)
        return fail(err, errlen, "--rand-url '%s': its origin is not the URL's (%s): connections go to one origin",
                    cfg->rand_url, cfg->url);
    cfg->rand_url = *path ? path : "/";
    cfg->rand_url_literal_dot = true;
    return CLI_RUN;
}

/* -X: a token (RFC 9110 9.1). */
static enum cli_result set_method(struct config *cfg, const char *arg, char *err, size_t errlen)
{
    char shown[128];
    size_t len = strlen(arg), bad = url_token_span(arg, len);
    if (len == 0) return fail(err, errlen, "bad --method '': a method is not empty");
    if (bad < len)
        return fail(err, errlen, "bad --method '%s': byte %zu (0x%02x) is not allowed in a method, a token of "
                    "letters, digits and !#$%%&'*+-.^_`|~ (RFC 9110 9.1)", url_printable(arg, shown, sizeof shown),
                    bad, (unsigned char)arg[bad]);
    cfg->method = arg;
    return CLI_RUN;
}

/* -H 'Name: value': the name a token right before the colon, the value
 * without control bytes but tab (RFC 9110 5.1, 5.5). */
static enum cli_result add_header(struct config *cfg, const char *arg, char *err, size_t errlen)
{
    char shown[160];
    const char *colon = strchr(arg, ':');
    size_t name_len = colon ? (size_t)(colon - arg) : 0;
    if (cfg->header_count == CONFIG_MAX_HEADERS) return fail(err, errlen, "too many --header options (at most %d)",
                                                             CONFIG_MAX_HEADERS);
    if (!colon) return fail(err, errlen, "bad --header '%s': no colon (Name: value)", url_printable(arg, shown, sizeof shown));
    if (name_len == 0) return fail(err, errlen, "bad --header '%s': an empty name", url_printable(arg, shown, sizeof shown));
    size_t bad = url_token_span(arg, name_len);
    if (bad < name_len)
        return fail(err, errlen, "bad --header '%s': byte %zu (0x%02x) is not allowed in a header name, a token of "
                    "letters, digits and !#$%%&'*+-.^_`|~ (RFC 9110 5.1)", url_printable(arg, shown, sizeof shown),
                    bad, (unsigned char)arg[bad]);
    size_t value_len = strlen(colon + 1);
    bad = url_field_value_span(colon + 1, value_len);
    if (bad < value_len)
        return fail(err, errlen, "bad --header '%s': a control character (0x%02x) at byte %zu of the value "
                    "(RFC 9110 5.5)", url_printable(arg, shown, sizeof shown), (unsigned char)colon[1 + bad],
                    name_len + 1 + bad);
    cfg->headers[cfg->header_count++] = arg;
    return CLI_RUN;
}

/* A file that must be there to read (-s, --jwt-key, --cacert), checked before
 * anything starts: a regular file of at most FILEREAD_CONFIG_MAX bytes
 * (fileread.h: a FIFO would block, a device be read for ever). */
static enum cli_result readable_file(const char *option, const char *path, char *err, size_t errlen)
{
    char why[200];
    if (fileread_check(path, FILEREAD_CONFIG_MAX, why, sizeof why)) return fail(err, errlen, "%s %s: %s", option, path, why);
    return CLI_RUN;
}

/* --control: a file or a FIFO that is there, checked before anything starts. */
static enum cli_result control_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) return fail(err, errlen, "--control %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return fail(err, errlen, "--control %s: %s (it takes a file or a FIFO)", path,
                    S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
    return CLI_RUN;
}

/* A whole number option in [min, max] into *out; the error names the range. */
static enum cli_result set_count(long long *out, const char *name, const char *arg, long long min, long long max,
                                 char *err, size_t errlen)
{
    if ((*out = parse_count(arg, min, max)) < 0)
        return fail(err, errlen, "bad %s '%s': must be a whole number %lld..%lld", name, arg, min, max);
    return CLI_RUN;
}

static enum cli_result set_duration(uint64_t *field, const char *name, const char *text, char *err, size_t errlen)
{
    long long us = cli_duration_us(text);
    if (us < 0) return fail(err, errlen, "bad %s '%s' (examples: 10s, 2m, 500ms)", name, text);
    *field = (uint64_t)us;
    return CLI_RUN;
}

/* A time that must be more than 0 (a timeout of 0 would fail every request). */
static enum cli_result set_positive_duration(uint64_t *field, const char *name, const char *text, char *err,
                                             size_t errlen)
{
    if (set_duration(field, name, text, err, errlen) != CLI_RUN) return CLI_ERROR;
    return *field ? CLI_RUN : fail(err, errlen, "bad %s '%s': must be more than 0", name, text);
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

#define WARMUP_AUTO_MAX_US 60000000ULL

/* --warmup TIME, or auto[:MAX] (until steady state, at most MAX, default 60s). */
static enum cli_result set_warmup(struct config *cfg, const char *arg, char *err, size_t errlen)
{
    cfg->warmup_auto = strncmp(arg, "auto", 4) == 0 && (arg[4] == '\0' || arg[4] == ':');
    if (!cfg->warmup_auto) return set_duration(&cfg->warmup_us, "--warmup", arg, err, errlen);
    cfg->warmup_us = WARMUP_AUTO_MAX_US;
    if (arg[4] == ':' && (set_duration(&cfg->warmup_us, "--warmup auto:MAX", arg + 5, err, errlen) != CLI_RUN ||
                          cfg->warmup_us == 0))
        return fail(err, errlen, "bad --warmup '%s' (auto, or auto:MAX with MAX above 0, e.g. auto:30s)", arg);
    return CLI_RUN;
}

/* -R, --arrival, --seed. */
static enum cli_result apply_rate(int opt, const char *arg, struct config *cfg, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    if (opt == 'R') {
        double rate = strtod(arg, &end);
        if (errno || end == arg || *end || !(rate >= 0.001 && rate <= PACER_MAX_RATE))
            return fail(err, errlen, "bad --rate '%s': must be 0.001..%.0f (requests/s in total)", arg, PACER_MAX_RATE);
        cfg->rate = rate;
        return CLI_RUN;
    }
    if (opt == OPT_ARRIVAL) {
        if (strcmp(arg, "even") && strcmp(arg, "poisson")) return fail(err, errlen, "bad --arrival '%s' (even or poisson)", arg);
        cfg->poisson = strcmp(arg, "poisson") == 0;
        return CLI_RUN;
    }
    unsigned long long seed = strtoull(arg, &end, 10);
    /* the record's seed must read back exactly in any JSON reader (doubles: 2^53) */
    if (errno || end == arg || *end || *arg == '-' || seed > (1ULL << 53))
        return fail(err, errlen, "bad --seed '%s': a whole number 0..9007199254740992 (2^53, what JSON readers hold exactly)", arg);
    cfg->seed = seed;
    cfg->seed_set = true;
    return CLI_RUN;
}

/* One option; CLI_RUN when it was fine. */
/* --jwt-header NAME or 'NAME: PREFIX': the field's name (a token) and what
 * goes before the token in its value (PREFIX and a space; none for a bare NAME). */
static enum cli_result set_jwt_header(struct config *cfg, const char *arg, char *err, size_t errlen)
{
    const char *colon = strchr(arg, ':'), *prefix = colon ? colon + 1 : "";
    size_t name_len = colon ? (size_t)(colon - arg) : strlen(arg);
    while (*prefix == ' ' || *prefix == '\t') prefix++;
    size_t prefix_len = strlen(prefix);
    while (prefix_len && (prefix[prefix_len - 1] == ' ' || prefix[prefix_len - 1] == '\t')) prefix_len--;
    if (name_len == 0 || url_token_span(arg, name_len) < name_len || name_len >= sizeof cfg->jwt_name)
        return fail(err, errlen, "bad --jwt-header '%s': NAME or 'NAME: PREFIX', NAME a header name (a token)", arg);
    if (prefix_len + 2 > sizeof cfg->jwt_prefix || url_field_value_span(prefix, prefix_len) < prefix_len)
        return fail(err, errlen, "bad --jwt-header '%s': the prefix is too long or holds a control character", arg);
    snprintf(cfg->jwt_name, sizeof cfg->jwt_name, "%.*s", (int)name_len, arg);
    snprintf(cfg->jwt_prefix, sizeof cfg->jwt_prefix, "%.*s%s", (int)prefix_len, prefix, prefix_len ? " " : "");
    return CLI_RUN;
}

/* A --jwt-* claim: any text but control characters (it goes into JSON escaped). */
static enum cli_result set_claim(const char **field, const char *name, const char *arg, char *err, size_t errlen)
{
    for (const char *c = arg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) return fail(err, errlen, "bad %s: a control character", name);
    *field = arg;
    return CLI_RUN;
}

/* The --jwt-* options. */
static enum cli_result apply_jwt(int opt, const char *arg, struct config *cfg, char *err, size_t errlen)
{
    switch (opt) {
    case OPT_JWT_KEY: return readable_file("--jwt-key", arg, err, errlen) == CLI_RUN ? (cfg->jwt_key = arg, CLI_RUN) : CLI_ERROR;
    case OPT_JWT_ALG: cfg->jwt_alg = arg; return CLI_RUN;
    case OPT_JWT_HEADER: return set_jwt_header(cfg, arg, err, errlen);
    case OPT_JWT_KID: return set_claim(&cfg->jwt_kid, "--jwt-kid", arg, err, errlen);
    case OPT_JWT_ISS: return set_claim(&cfg->jwt_iss, "--jwt-iss", arg, err, errlen);
    case OPT_JWT_SUB: return set_claim(&cfg->jwt_sub, "--jwt-sub", arg, err, errlen);
    case OPT_JWT_AUD: return set_claim(&cfg->jwt_aud, "--jwt-aud", arg, err, errlen);
    default:
        if (set_positive_duration(&cfg->jwt_exp_us, "--jwt-exp", arg, err, errlen) != CLI_RUN) return CLI_ERROR;
        if (cfg->jwt_exp_us < 1000000) return fail(err, errlen, "--jwt-exp '%s': at least 1s (exp is in seconds)", arg);
        return CLI_RUN;
    }
}

/* --log-sample R: a share of the requests, 0 < R <= 1 (0.01: one in a hundred). */
static enum cli_result set_log_sample(struct config *cfg, const char *arg, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v > 0 && v <= 1))
        return fail(err, errlen, "bad --log-sample '%s': the share of requests logged, more than 0 and at most 1 "
                    "(0.01: one in a hundred)", arg);
    cfg->log_sample = v;
    return CLI_RUN;
}

/* --jwt-*: with --jwt-key, its header not also a -H one. */
static enum cli_result check_jwt(const struct config *cfg, char *err, size_t errlen)
{
    bool any = cfg->jwt_alg || cfg->jwt_kid || cfg->jwt_iss || cfg->jwt_sub || cfg->jwt_aud || cfg->jwt_exp_us ||
               strcmp(cfg->jwt_name, "Authorization") || strcmp(cfg->jwt_prefix, "Bearer ");
    if (!cfg->jwt_key) return any ? fail(err, errlen, "--jwt-alg, --jwt-header and the claims need --jwt-key") : CLI_RUN;
    if (config_header(cfg, cfg->jwt_name))
        return fail(err, errlen, "--jwt-header %s: -H (or the URL's user:password) sets that header too", cfg->jwt_name);
    return CLI_RUN;
}

/* --ws-size, --ws-binary, --ws-max-message (issue 53). */
static enum cli_result apply_ws(int opt, const char *arg, struct config *cfg, char *err, size_t errlen)
{
    long long v;
    if (opt == OPT_WS_BINARY) {
        cfg->ws_binary = true;
        return CLI_RUN;
    }
    bool size = opt == OPT_WS_SIZE;
    if (set_count(&v, size ? "--ws-size" : "--ws-max-message", arg, size ? 0 : 1, (long long)1 << (size ? 26 : 40), err,
                  errlen) != CLI_RUN)
        return CLI_ERROR;
    if (size) cfg->ws_size = (size_t)v;
    else cfg->ws_max_message = (uint64_t)v;
    return CLI_RUN;
}

/* ws:// and wss://: messages over HTTP/1.1's upgrade, the message from -b,
 * -B or --ws-size; what makes requests of another shape is refused. */
static enum cli_result check_ws(struct config *cfg, bool ws_option, char *err, size_t errlen)
{
    if (!cfg->ws) return ws_option ? fail(err, errlen, "--ws-size, --ws-binary and --ws-max-message need a ws:// or wss:// URL") : CLI_RUN;
    if (cfg->force == PROTOCOL_H2 || cfg->force == PROTOCOL_H3)
        return fail(err, errlen, "ws:// and wss:// upgrade an HTTP/1.1 connection: not with --h2 or --h3 (RFC 8441 is not spoken)");
    if (cfg->script_file || cfg->flow_file || cfg->urls_file || cfg->rand_url || cfg->jwt_key)
        return fail(err, errlen, "ws:// and wss:// send one message: not with --script, --flow, --urls, --rand-url or --jwt-key");
    if (strcmp(cfg->method, "GET")) return fail(err, errlen, "ws:// and wss:// upgrade with GET: not with -X");
    if (!cfg->keepalive) return fail(err, errlen, "ws:// and wss:// keep connections open: --requests-per-connection N closes after N messages");
    if (cfg->idle_connections) return fail(err, errlen, "--idle-connections is not for ws:// and wss://");
    if (cfg->expect_status_set) return fail(err, errlen, "--expect-status is not for ws:// and wss:// (an echo has no status)");
    if (cfg->body_len && cfg->ws_size != WS_DEFAULT_SIZE)
        return fail(err, errlen, "-b/-B give the message: not with --ws-size");
    if (cfg->body_len > cfg->ws_max_message || (!cfg->body_len && cfg->ws_size > cfg->ws_max_message))
        return fail(err, errlen, "the message is longer than --ws-max-message (%llu): its echo would be refused",
                    (unsigned long long)cfg->ws_max_message);
    cfg->force = PROTOCOL_H1; /* wss:// offers http/1.1 alone in ALPN */
    return CLI_RUN;
}

/* --tls-resume, --cert, --key, --idle-connections and --idle-ping (issue 39). */
static enum cli_result apply_connection(int opt, const char *arg, struct config *cfg, char *err, size_t errlen)
{
    long long v;
    switch (opt) {
    case OPT_TLS_RESUME: cfg->tls_resume = true; return CLI_RUN;
    case OPT_CERT: cfg->cert = arg; return readable_file("--cert", arg, err, errlen);
    case OPT_KEY: cfg->key = arg; return readable_file("--key", arg, err, errlen);
    case OPT_IDLE_PING: return set_duration(&cfg->idle_ping_us, "--idle-ping", arg, err, errlen);
    default:
        if (set_count(&v, "--idle-connections", arg, 0, 1000000, err, errlen) != CLI_RUN) return CLI_ERROR;
        cfg->idle_connections = (unsigned)v;
        return CLI_RUN;
    }
}

/* --tls-resume and --cert/--key need https:// (--tls-resume: over TCP; QUIC
 * has no resumption here); --cert and --key go together. */
static enum cli_result check_connection(const struct config *cfg, char *err, size_t errlen)
{
    if (!cfg->cert != !cfg->key) return fail(err, errlen, "--cert and --key go together: give both (mutual TLS)");
    if (cfg->cert && !cfg->tls) return fail(err, errlen, "--cert needs an https:// URL (a client certificate is TLS)");
    if (cfg->tls_resume && !cfg->tls) return fail(err, errlen, "--tls-resume needs an https:// URL");
    if (cfg->tls_resume && cfg->force == PROTOCOL_H3)
        return fail(err, errlen, "--tls-resume is for TLS over TCP: barrage's QUIC connections make full handshakes");
    return CLI_RUN;
}

static enum cli_result apply(int opt, const char *arg, struct config *cfg, bool *duration_set, bool *ws_option, char *err,
                             size_t errlen)
{
    long long v;
    enum cli_result r = CLI_RUN;
    switch (opt) {
    case 'c':
        if ((r = set_count(&v, "-c/--connections", arg, 1, 1000000, err, errlen)) == CLI_RUN) cfg->connections = (unsigned)v;
        return r;
    case 't':
        if ((r = set_count(&v, "-t/--threads", arg, 1, 1024, err, errlen)) == CLI_RUN) cfg->threads = (unsigned)v;
        return r;
    case 'n':
        if ((r = set_count(&v, "-n/--requests", arg, 1, (long long)1 << 62, err, errlen)) == CLI_RUN) cfg->requests = (uint64_t)v;
        return r;
    case 'm':
        if ((r = set_count(&v, "-m/--pipeline/--streams", arg, 1, CONFIG_MAX_PIPELINE, err, errlen)) == CLI_RUN)
            cfg->pipeline = (unsigned)v;
        return r;
    case OPT_PER_CONNECTION:
        if ((r = set_count(&v, "--requests-per-connection", arg, 1, (long long)1 << 62, err, errlen)) == CLI_RUN)
            cfg->requests_per_connection = (uint64_t)v;
        return r;
    case OPT_MAX_HEADER:
        if ((r = set_count(&v, "--max-header-size", arg, 64, (long long)1 << 30, err, errlen)) == CLI_RUN)
            cfg->max_header_size = (size_t)v;
        return r;
    case 'd':
        *duration_set = true;
        return set_duration(&cfg->duration_us, "--duration", arg, err, errlen);
    case OPT_WARMUP: return set_warmup(cfg, arg, err, errlen);
    case OPT_TIMEOUT: return set_positive_duration(&cfg->timeout_us, "--timeout", arg, err, errlen);
    case OPT_CONNECT_TIMEOUT: return set_positive_duration(&cfg->connect_timeout_us, "--connect-timeout", arg, err, errlen);
    case OPT_GRACE: return set_duration(&cfg->grace_us, "--grace", arg, err, errlen);
    case 'X': return set_method(cfg, arg, err, errlen);
    case 'H': return add_header(cfg, arg, err, errlen);
    case 'b':
        free(cfg->body);
        cfg->body_len = strlen(arg);
        cfg->body = malloc(cfg->body_len + 1);
        if (!cfg->body) return fail(err, errlen, "out of memory");
        memcpy(cfg->body, arg, cfg->body_len + 1);
        return CLI_RUN;
    case 'B':
        return read_body_file(arg, cfg, err, errlen);
    case OPT_NO_KEEPALIVE: cfg->keepalive = false; return CLI_RUN;
    case OPT_UNIX:
        if (!*arg) return fail(err, errlen, "bad --unix-socket '': give the socket's path");
        if (strlen(arg) >= sizeof ((struct sockaddr_un *)0)->sun_path)
            return fail(err, errlen, "bad --unix-socket '%s': longer than %zu bytes (the system's limit)", arg,
                        sizeof ((struct sockaddr_un *)0)->sun_path - 1);
        cfg->unix_socket = arg;
        return CLI_RUN;
    case OPT_JSON: cfg->json = true; return CLI_RUN;
    case OPT_LATENCY: cfg->latency = true; return CLI_RUN;
    case 'q': cfg->quiet = true; return CLI_RUN;
    case 's': cfg->script_file = arg; return readable_file("--script", arg, err, errlen);
    case OPT_VERBOSE: cfg->verbose = true; return CLI_RUN;
    case OPT_H1:
    case OPT_H2:
    case OPT_H3: {
        enum config_protocol p = opt == OPT_H1 ? PROTOCOL_H1 : opt == OPT_H2 ? PROTOCOL_H2 : PROTOCOL_H3;
        if (cfg->force != PROTOCOL_AUTO && cfg->force != p && (p == PROTOCOL_H3 || cfg->force == PROTOCOL_H3))
            return fail(err, errlen, "--h3 excludes --h1 and --h2: give one (or none, to let ALPN choose h2 or http/1.1)");
        if (cfg->force != PROTOCOL_AUTO && cfg->force != p)
            return fail(err, errlen, "--h1 and --h2 exclude each other: give one (or neither, to let ALPN choose)");
        cfg->force = p;
        return CLI_RUN;
    }
    case OPT_SNI: cfg->sni = arg; return CLI_RUN;
    case OPT_CACERT: cfg->cacert = arg; return readable_file("--cacert", arg, err, errlen);
    case OPT_INSECURE: cfg->insecure = true; return CLI_RUN;
    case OPT_WINDOW_BITS:
    case OPT_CONNECTION_WINDOW_BITS:
        /* HTTP/2 windows go up to 2^31-1; 2^16-1 is the protocol's initial one */
        if ((r = set_count(&v, opt == OPT_WINDOW_BITS ? "--window-bits" : "--connection-window-bits", arg,
                           opt == OPT_WINDOW_BITS ? 1 : 16, 31, err, errlen)) == CLI_RUN)
            *(opt == OPT_WINDOW_BITS ? &cfg->window_bits : &cfg->connection_window_bits) = (unsigned)v;
        return r;
    case 'R':
    case OPT_ARRIVAL:
    case OPT_SEED:
        return apply_rate(opt, arg, cfg, err, errlen);
    case OPT_CONTROL: cfg->control_path = arg; return control_file(arg, err, errlen);
    case OPT_HDR_LOG: cfg->hdr_log_path = arg; return CLI_RUN;
    case OPT_HDR_LOG_UNIT:
        if (strcmp(arg, "ns") && strcmp(arg, "us")) return fail(err, errlen, "bad --hdr-log-unit '%s': ns or us", arg);
        cfg->hdr_log_ns = strcmp(arg, "ns") == 0;
        return CLI_RUN;
    case OPT_LIVE: cfg->live = true; return CLI_RUN;
    case OPT_METRICS_LISTEN: cfg->metrics_listen = arg; return CLI_RUN;
    case OPT_METRICS_LINGER: return set_duration(&cfg->metrics_linger_us, "--metrics-linger", arg, err, errlen);
    case OPT_START_AT:
        if ((v = parse_count(arg, 1, (long long)1 << 50)) < 0)
            return fail(err, errlen, "bad --start-at '%s' (milliseconds since the epoch, as date +%%s%%3N prints)", arg);
        cfg->start_at_ms = (uint64_t)v;
        return CLI_RUN;
    case OPT_URLS: cfg->urls_file = arg; return CLI_RUN;
    case OPT_FLOW: cfg->flow_file = arg; return CLI_RUN;
    case OPT_USERS: {
        long long n = 0;
        if ((r = set_count(&n, "--users", arg, 1, 1000000, err, errlen)) == CLI_RUN) cfg->users = (unsigned)n;
        return r;
    }
    case OPT_EXPECT_STATUS: {
        char why[160];
        if (expect_status_parse(&cfg->expect_status, arg, strlen(arg), why, sizeof why))
            return fail(err, errlen, "bad --expect-status '%s': %s", arg, why);
        cfg->expect_status_set = true;
        return CLI_RUN;
    }
    case OPT_URLS_RANDOM: cfg->urls_random = true; return CLI_RUN;
    case OPT_URLS_FROM_FILE: cfg->oha_urls_from_file = true; return CLI_RUN;
    case OPT_RAND_URL: cfg->rand_url = arg; return CLI_RUN;
    case OPT_RAND_REGEX_URL: cfg->oha_rand_regex_url = true; return CLI_RUN;
    case OPT_MAX_REPEAT: return set_count(&cfg->rand_url_max_repeat, "--max-repeat", arg, 0, REGEXGEN_MAX_REPEAT, err, errlen);
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
    case OPT_FAIL_ON: return threshold_parse(arg, &cfg->fail_on, err, errlen) ? CLI_ERROR : CLI_RUN;
    case OPT_LOG:
        if (!*arg) return fail(err, errlen, "bad --log '': give the file's path");
        cfg->log_path = arg;
        return CLI_RUN;
    case OPT_LOG_SAMPLE: return set_log_sample(cfg, arg, err, errlen);
    case OPT_HELP: return CLI_HELP;
    case OPT_VERSION: return CLI_VERSION;
    case OPT_JWT_KEY: case OPT_JWT_ALG: case OPT_JWT_HEADER: case OPT_JWT_KID: case OPT_JWT_ISS: case OPT_JWT_SUB:
    case OPT_JWT_AUD: case OPT_JWT_EXP:
        return apply_jwt(opt, arg, cfg, err, errlen);
    case OPT_TLS_RESUME: case OPT_CERT: case OPT_KEY: case OPT_IDLE_CONNECTIONS: case OPT_IDLE_PING:
        return apply_connection(opt, arg, cfg, err, errlen);
    case OPT_WS_SIZE: case OPT_WS_BINARY: case OPT_WS_MAX_MESSAGE:
        *ws_option = true;
        return apply_ws(opt, arg, cfg, err, errlen);
    default: return fail(err, errlen, "unknown option (see --help)");
    }
}

/* --h3: https:// only, over UDP (no --unix-socket), and only in a build with
 * the QUIC libraries (HAVE_H3). */
static enum cli_result check_h3(const struct config *cfg, char *err, size_t errlen)
{
    if (cfg->force != PROTOCOL_H3) return CLI_RUN;
#ifndef HAVE_H3
    return fail(err, errlen, "--h3: this barrage was built without HTTP/3; install the QUIC libraries "
                             "(apt-get install -y libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev "
                             "libgnutls28-dev) and rebuild (make -C client)");
#else
    if (!cfg->tls) return fail(err, errlen, "--h3 needs an https:// URL (HTTP/3 runs over QUIC, which is TLS)");
    if (cfg->unix_socket) return fail(err, errlen, "--h3 runs over UDP: not with --unix-socket");
    return CLI_RUN;
#endif
}

/* --flow: its own requests (no --urls, --rand-url, --script, -X/-b/-B, -m
 * pipelining on HTTP/1.1 is fine: users take turns); --users needs it. */
static enum cli_result check_flow(struct config *cfg, char *err, size_t errlen)
{
    if (!cfg->flow_file) {
        if (cfg->users) return fail(err, errlen, "--users needs --flow");
        return CLI_RUN;
    }
    if (cfg->urls_file || cfg->rand_url || cfg->script_file)
        return fail(err, errlen, "--flow gives the requests: not with --urls, --rand-url or --script");
    if (strcmp(cfg->method, "GET") || cfg->body_len)
        return fail(err, errlen, "--flow gives each step's method and body: not with -X, -b or -B");
    if (!cfg->users) { /* each user holds ~2 KB of buffers: a default that stays small */
        unsigned long long n = (unsigned long long)cfg->connections * cfg->pipeline;
        cfg->users = n > 100000 ? 100000 : (unsigned)n;
    }
    if (cfg->users < cfg->threads)
        return fail(err, errlen, "--users (%u) must be at least --threads (%u)", cfg->users, cfg->threads);
    return CLI_RUN;
}

/* oha's --urls-from-file and --rand-regex-url are flags: the one argument
 * (where oha takes its URL) is the list or the pattern. As in oha, the list's
 * requests are drawn at random and the pattern's repeats are capped at 4
 * (--max-repeat changes it); the URL then comes from the list or the pattern. */
static enum cli_result oha_argument(struct config *cfg, int argc, char **argv, char *err, size_t errlen)
{
    bool list = cfg->oha_urls_from_file;
    const char *flag = list ? "--urls-from-file" : "--rand-regex-url", *what = list ? "the list file" : "the pattern";
    if (cfg->oha_urls_from_file && cfg->oha_rand_regex_url)
        return fail(err, errlen, "--urls-from-file and --rand-regex-url both choose the target: give one");
    if (list ? cfg->urls_file != NULL : cfg->rand_url != NULL)
        return fail(err, errlen, "%s (oha's flag) takes %s from its argument: not with %s", flag, what,
                    list ? "--urls" : "--rand-url");
    if (optind >= argc) return fail(err, errlen, "%s (oha's flag): give %s as the argument, as to oha", flag, what);
    if (optind + 1 < argc)
        return fail(err, errlen, "%s (oha's flag): one argument, %s ('%s' is one too many)", flag, what, argv[optind + 1]);
    if (list) {
        cfg->urls_file = argv[optind];
        cfg->urls_random = true;
        return CLI_RUN;
    }
    if (!rand_url_absolute(argv[optind]))
        return fail(err, errlen, "--rand-regex-url (oha's flag): '%s' is not an absolute pattern, http[s]://host[:port]/PATTERN",
                    argv[optind]);
    cfg->rand_url = argv[optind];
    if (cfg->rand_url_max_repeat < 0) cfg->rand_url_max_repeat = OHA_MAX_REPEAT;
    return CLI_RUN;
}

enum cli_result cli_parse(int argc, char **argv, struct config *cfg, char *err, size_t errlen)
{
    bool duration_set = false, ws_option = false;
    int opt;
    cli_defaults(cfg);
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "c:t:d:n:m:X:H:b:B:qs:R:", options, NULL)) != -1) {
        if (opt == '?' || opt == ':') return fail(err, errlen, "unknown option or missing value: %s", argv[optind - 1]);
        enum cli_result r = apply(opt, optarg, cfg, &duration_set, &ws_option, err, errlen);
        if (r != CLI_RUN) return r;
    }
    bool oha_form = cfg->oha_urls_from_file || cfg->oha_rand_regex_url;
    if (oha_form && oha_argument(cfg, argc, argv, err, errlen) != CLI_RUN) return CLI_ERROR;
    if (cfg->urls_random && !cfg->urls_file) return fail(err, errlen, "--urls-random needs --urls");
    if (cfg->log_sample < 1 && !cfg->log_path) return fail(err, errlen, "--log-sample needs --log");
    if (cfg->rand_url_max_repeat >= 0 && !cfg->rand_url) return fail(err, errlen, "--max-repeat needs --rand-url");
    if (cfg->urls_file && cfg->rand_url) return fail(err, errlen, "--urls and --rand-url both choose the target: give one");
    if ((cfg->urls_file || cfg->rand_url) && cfg->script_file)
        return fail(err, errlen, "--urls and --rand-url do not combine with --script");
    enum cli_result fr = check_flow(cfg, err, errlen);
    if (fr != CLI_RUN) return fr;
    /* read once: standard input ("-") cannot be read again by the source */
    if (cfg->urls_file && urllist_read(cfg->urls_file, &cfg->urls_text, &cfg->urls_len, err, errlen)) return CLI_ERROR;
    /* as wrk: options anywhere (GNU getopt), the URL, then the script's
     * arguments (after "--" when they look like options) */
    if (optind < argc && !oha_form) {
        cfg->url = argv[optind];
        cfg->script_args = (const char *const *)argv + optind + 1;
        cfg->script_arg_count = (unsigned)(argc - optind - 1);
    } else {
        enum cli_result r = url_from_source(cfg, err, errlen);
        if (r != CLI_RUN) return r;
    }
    if (cfg->script_arg_count && !cfg->script_file)
        return fail(err, errlen, "arguments after the URL ('%s') are for a script (--script)", argv[optind + 1]);
    if (cfg->threads > cfg->connections) return fail(err, errlen, "--threads (%u) must not exceed --connections (%u)",
                                                     cfg->threads, cfg->connections);
    if (!duration_set && cfg->requests == 0) cfg->duration_us = CLI_DEFAULT_DURATION_US;
    if (duration_set && cfg->duration_us == 0) return fail(err, errlen, "--duration must be more than 0");
    if (cfg->requests && cfg->requests < cfg->threads) cfg->threads = (unsigned)cfg->requests;
    if (cfg->stage_count) {
        /* the ramps start from -R, else from the first stage's rate; the run lasts the stages unless -d says */
        if (cfg->control_path) return fail(err, errlen, "--control does not combine with --rate-stages");
        /* the ramp is timed from the measured phase's start, which a --warmup auto does not know ahead */
        if (cfg->warmup_auto) return fail(err, errlen, "--warmup auto does not combine with --rate-stages (give a fixed --warmup)");
        if (cfg->rate == 0) cfg->rate = cfg->stages[0].rate;
        if (cfg->rate == 0) return fail(err, errlen, "--rate-stages starting at 0 needs a starting rate (-R)");
        cfg->stages_start_rate = cfg->rate;
        if (!duration_set) cfg->duration_us = stages_duration(cfg->stages, cfg->stage_count);
    }
    if (cfg->rate == 0 && (cfg->poisson || (cfg->seed_set && !config_seeded(cfg))))
        return fail(err, errlen, "--arrival and --seed need a fixed rate (-R), --urls-random, --rand-url, --flow or --log-sample");
    if (cfg->pace_resolution_us && cfg->rate == 0 && !cfg->stage_count)
        return fail(err, errlen, "--pace-resolution needs a fixed rate (-R or --rate-stages)");
    const struct threshold *fixed = cfg->rate == 0 ? threshold_needs_rate(&cfg->fail_on) : NULL;
    if (fixed) return fail(err, errlen, "--fail-on '%s': %s is measured at a fixed rate only (-R or --rate-stages)",
                           fixed->text, fixed->figure);
    const struct threshold *flow_only = cfg->flow_file ? NULL : threshold_needs_flow(&cfg->fail_on);
    if (flow_only) return fail(err, errlen, "--fail-on '%s': %s is measured in a flow only (--flow)", flow_only->text,
                               flow_only->figure);
    const struct threshold *step = cfg->flow_file || cfg->script_file ? NULL : threshold_first_step(&cfg->fail_on);
    if (step) return fail(err, errlen, "--fail-on '%s': %s names a step '%.*s': steps are a flow's (--flow) or a "
                          "script's kinds (-s)", step->text, step->figure, (int)step->step_len, step->figure);
    enum cli_result r = parse_url(cfg, err, errlen);
    if (r == CLI_RUN) r = check_rand_url_origin(cfg, err, errlen);
    if (r == CLI_RUN) r = check_jwt(cfg, err, errlen);
    if (r == CLI_RUN) r = check_h3(cfg, err, errlen);
    if (r == CLI_RUN) r = check_connection(cfg, err, errlen);
    const struct threshold *tls_only = r == CLI_RUN && !cfg->tls ? threshold_needs_tls(&cfg->fail_on) : NULL;
    if (tls_only)
        r = fail(err, errlen, "--fail-on '%s': %s is measured over TLS only (https://); on http:// the record says null",
                 tls_only->text, tls_only->figure);
    if (r == CLI_RUN) r = check_ws(cfg, ws_option, err, errlen);
    cfg->h3 = cfg->force == PROTOCOL_H3;
    return r;
}

void cli_free(struct config *cfg)
{
    free(cfg->body);
    free(cfg->path);
    free(cfg->authorization);
    free(cfg->url_owned);
    free(cfg->urls_text);
    cfg->body = cfg->path = cfg->authorization = cfg->url_owned = cfg->urls_text = NULL;
}
