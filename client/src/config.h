/* config: the run as the command line describes it, filled by cli.c and not
 * written after it, but for `setup` (struct run_setup): what main sets up
 * from it before the first thread starts. From the engine's start on the
 * whole of it is read-only, shared by every thread. */
#ifndef BARRAGE_CONFIG_H
#define BARRAGE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "expect.h"
#include "stages.h"
#include "threshold.h"

#define CONFIG_MAX_HEADERS 64
#define CONFIG_MAX_PIPELINE 256

struct script;
struct jwtpool;
struct quic_client;
struct tls_client;
struct control;
struct reqlog;

/* What main sets up for the run from the command line: the address, the
 * protocol, the clients, the files and the pools. cli.c leaves it zeroed;
 * main fills it before the engine starts and frees what it holds after. */
struct run_setup {
    struct sockaddr_storage addr;
    socklen_t addr_len;
    bool h2;                       /* the run speaks HTTP/2: --h2, or ALPN chose it */
    char tls_version[16];          /* negotiated ("TLSv1.3" for --h3) */
    struct tls_client *tls_client; /* https:// over TCP only */
    struct quic_client *quic_client; /* --h3 only (quic.h) */
    struct script *script;         /* -s: the loaded script, one state per thread */
    struct control *control;       /* opened from control_path, or NULL */
    FILE *hdr_log;                 /* opened from hdr_log_path, or NULL */
    struct reqlog *reqlog;         /* --log: opened from log_path (reqlog.h), or NULL */
    struct metrics *metrics;       /* --metrics-listen: its listener (metrics.h), or NULL */
    struct jwtpool *jwt_pool;      /* --jwt-key: ring t is worker thread t's */
    uint64_t seed;                 /* what draws at random start from: --seed, or chosen */
};

struct config {
    const char *url;
    char *url_owned;       /* owned: the URL when none is on the command line (--rand-url's origin, --urls' first line) */
    char host[256];        /* from the URL, for the Host header and the address */
    char port[8];
    char *path;            /* owned: the URL's request target, normalised (url.h) */
    char *authorization;   /* owned: "Authorization: Basic ..." from the URL's userinfo, in headers[]; or NULL */
    const char *unix_socket;
    unsigned connections, threads, pipeline;
    uint64_t duration_us;  /* 0: no time limit (-n alone) */
    uint64_t requests;     /* 0: no request limit */
    uint64_t warmup_us;    /* fixed: its length; --warmup auto: its cap (MAX) */
    bool warmup_auto;      /* --warmup auto[:MAX]: until steady state (steady.h), at most warmup_us */
    uint64_t start_at_ms;  /* --start-at: wall-clock start, ms since the epoch; 0: at once */
    const char *method;
    const char *headers[CONFIG_MAX_HEADERS];
    unsigned header_count;
    char *body;            /* owned (read from --body or --body-file) */
    size_t body_len;
    uint64_t timeout_us, connect_timeout_us, grace_us;
    bool keepalive;
    uint64_t requests_per_connection; /* 0: unlimited */
    size_t max_header_size;
    bool json, latency, quiet, verbose;
    /* HTTP/2 and TLS */
    bool tls;                  /* https:// */
    enum config_protocol { PROTOCOL_AUTO, PROTOCOL_H1, PROTOCOL_H2, PROTOCOL_H3 } force; /* --h1 / --h2 / --h3 */
    bool h3;                   /* --h3: HTTP/3 over QUIC (https:// only) */
    const char *sni, *cacert;
    bool insecure;
    bool tls_resume;           /* --tls-resume: new connections resume the last TLS session (tls.h) */
    const char *cert, *key;    /* --cert/--key: a client certificate (mutual TLS, TCP and QUIC) */
    unsigned idle_connections; /* --idle-connections: opened first, kept open without requests */
    uint64_t idle_ping_us;     /* --idle-ping: their HTTP/2 and HTTP/3 pings' interval; 0: none */
    unsigned window_bits, connection_window_bits;
    /* -s: a wrk script, and the arguments after the URL (init(args)) */
    const char *script_file;
    const char *const *script_args;
    unsigned script_arg_count;
    /* open loop (-R): a fixed-rate schedule instead of a request whenever a connection has room */
    double rate;               /* requests/s over all threads and connections; 0: closed loop */
    bool poisson;              /* --arrival poisson (exponential gaps), else evenly spaced */
    uint64_t seed;             /* --seed (the run's own: setup.seed) */
    bool seed_set;             /* --seed was given */
    const char *control_path;  /* --control FILE */
    const char *hdr_log_path;  /* --hdr-log FILE */
    bool hdr_log_ns;           /* --hdr-log-unit ns (the default): values in nanoseconds, else microseconds */
    bool live;                 /* --live: a line per second on stderr */
    const char *metrics_listen; /* --metrics-listen ADDR:PORT, or NULL */
    uint64_t metrics_linger_us; /* --metrics-linger: after the run, until the final figures are scraped */
    const char *log_path;      /* --log FILE: a CSV line per request (reqlog.h) */
    double log_sample;         /* --log-sample: the share of requests logged, (0, 1]; 1 by default */
    /* request sources without a script (source_gen.c) */
    const char *urls_file;     /* --urls FILE ("-": standard input) */
    char *urls_text;           /* owned: the list as read once by cli.c */
    size_t urls_len;
    bool urls_random;          /* --urls-random: lines drawn at random (seeded), else in order */
    bool oha_urls_from_file;   /* --urls-from-file, oha's flag: the argument is the list (drawn at random) */
    bool oha_rand_regex_url;   /* --rand-regex-url, oha's flag: the argument is the pattern */
    const char *rand_url;      /* --rand-url PATTERN: the path pattern (an absolute one's path, cli.c) */
    bool rand_url_literal_dot; /* the pattern was absolute (oha's form): a bare '.' is a dot */
    long long rand_url_max_repeat; /* --max-repeat: -1 when not given (regexgen's default) */
    /* --flow: a chain of steps run by virtual users (flow.h, source_flow.c) */
    const char *flow_file;     /* --flow FILE, or NULL */
    unsigned users;            /* --users N (default: connections x streams) */
    /* --expect-status LIST: any other final status is unexpected (stats.h); a flow's steps
     * without their own `expect STATUS` take it too */
    bool expect_status_set;
    struct expect_status expect_status;
    /* --jwt-key: a signed token per request (jwt.h), from a pool signed ahead (jwtpool.h) */
    const char *jwt_key;       /* --jwt-key FILE, or NULL */
    const char *jwt_alg;       /* --jwt-alg, or NULL: from the key */
    const char *jwt_kid, *jwt_iss, *jwt_sub, *jwt_aud; /* NULL: left out */
    uint64_t jwt_exp_us;       /* --jwt-exp; 0: no exp claim */
    char jwt_name[128];        /* the header's name (--jwt-header, default Authorization) */
    char jwt_prefix[128];      /* what goes before the token in its value ("Bearer " by default) */
    /* --rate-stages: the target ramps through them from the measured phase's start */
    struct rate_stage stages[STAGES_MAX];
    unsigned stage_count;      /* 0: a constant rate (-R) */
    double stages_start_rate;  /* the rate the first stage ramps from (-R, else the first stage's) */
    uint64_t pace_resolution_us; /* --pace-resolution: wake once per window of this length, sending
                                  * every request due by then; 0: a wake-up per request's time */
    /* WebSocket (ws:// and wss://, ws.h): each request is a message, echoed back */
    bool ws;                   /* the URL's scheme is ws or wss */
    size_t ws_size;            /* --ws-size: the message's bytes without -b/-B (default 32) */
    bool ws_binary;            /* --ws-binary: binary messages, else text */
    uint64_t ws_max_message;   /* --ws-max-message: the longest message the server may send */
    struct thresholds fail_on; /* --fail-on: limits that set the exit status (threshold.h); count 0: none */
    struct run_setup setup;    /* set by main before the engine starts (above) */
};

/* The value of -H 'name: value' (name in any case, leading blanks skipped), or NULL. */
static inline const char *config_header(const struct config *cfg, const char *name)
{
    size_t n = strlen(name);
    for (unsigned i = 0; i < cfg->header_count; i++) {
        if (strncasecmp(cfg->headers[i], name, n) != 0 || cfg->headers[i][n] != ':') continue;
        const char *v = cfg->headers[i] + n + 1;
        while (*v == ' ' || *v == '\t') v++;
        return v;
    }
    return NULL;
}

/* A source without a script was asked for (source_gen). */
static inline bool config_generated(const struct config *cfg)
{
    return cfg->urls_file || cfg->rand_url || cfg->jwt_key;
}

/* Something draws from cfg->seed: a Poisson schedule, a random list, a pattern, a flow (${rand}, ${uuid}),
 * --log's sample. */
static inline bool config_seeded(const struct config *cfg)
{
    return cfg->rate > 0 || cfg->urls_random || cfg->rand_url || cfg->flow_file || (cfg->log_path && cfg->log_sample < 1);
}

#endif
