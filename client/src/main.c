/* barrage: HTTP/1.1, HTTP/2 and HTTP/3 load generator. main parses the command line,
 * checks the file limit and that the target answers, chooses the protocol
 * (after ALPN for https://) and the request source (a script's states made
 * here: setup and init before the run, done after), runs the engine and
 * reports. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "control.h"
#include "engine.h"
#include "http1.h"
#include "http2.h"
#ifdef HAVE_H3
#include "http3.h"
#include "quic.h"
#endif
#include "jwt.h"
#include "jwtpool.h"
#include "metrics.h"
#include "reqlog.h"
#include "report.h"
#include "signals.h"
#include "source.h"
#include "source_script.h"
#include "tls.h"
#include "ws.h"

#define EXIT_USAGE 2
#define EXIT_UNREACHABLE 3
#define EXIT_SCRIPT SCRIPT_EXIT_STATUS
#define EXIT_THRESHOLD 5 /* --fail-on: a threshold broke */
#define SPARE_FILES 32 /* stdio, epoll, eventfd, and a margin */
/* --jwt-key: tokens signed ahead per worker thread (fewer at a low fixed rate
 * with --jwt-exp, so none waits past half its lifetime), and how long main
 * may sign before the run to fill them */
#define JWT_POOL_TOKENS 1024
#define JWT_POOL_MIN_TOKENS 16
#define JWT_PREFILL_US 2000000

/* Raises the soft open-file limit when the connections need it; -1 when the
 * hard limit is too low (the message says what to change). */
static int ensure_file_limit(unsigned connections, unsigned idle, char *err, size_t errlen)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)connections + idle + SPARE_FILES;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need) return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        char idle_text[64] = "";
        if (idle) snprintf(idle_text, sizeof idle_text, " with --idle-connections %u", idle);
        snprintf(err, errlen,
                 "-c %u%s needs %llu open files but the hard limit (ulimit -Hn) is %llu: raise it "
                 "(limits.conf nofile, or systemd LimitNOFILE) or use fewer connections",
                 connections, idle_text, (unsigned long long)need, (unsigned long long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(err, errlen, "cannot raise the open-file limit to %llu: %s", (unsigned long long)rl.rlim_max,
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* --idle-connections: the run's connections to the one address each take
 * a local port; more than ip_local_port_range holds cannot all be open
 * (-1, the message says so). Unix sockets take none. */
static int ensure_ports(const struct config *cfg, char *err, size_t errlen)
{
    unsigned long low, high;
    uint64_t want = (uint64_t)cfg->connections + cfg->idle_connections;
    FILE *f;
    if (!cfg->idle_connections || cfg->unix_socket || !(f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")))
        return 0;
    int n = fscanf(f, "%lu %lu", &low, &high);
    fclose(f);
    if (n != 2 || high < low || want <= high - low + 1) return 0;
    snprintf(err, errlen,
             "-c %u with --idle-connections %u: %llu connections to one address need as many local ports, but "
             "ip_local_port_range (%lu-%lu) holds %lu: widen it (sysctl net.ipv4.ip_local_port_range) or open fewer",
             cfg->connections, cfg->idle_connections, (unsigned long long)want, low, high, high - low + 1);
    return -1;
}

static int resolve(struct config *cfg, char *err, size_t errlen)
{
    if (cfg->unix_socket) {
        struct sockaddr_un *un = (struct sockaddr_un *)&cfg->setup.addr;
        if (strlen(cfg->unix_socket) >= sizeof un->sun_path) {
            snprintf(err, errlen, "unix socket path too long: %s", cfg->unix_socket);
            return -1;
        }
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, cfg->unix_socket);
        cfg->setup.addr_len = sizeof *un;
        return 0;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(cfg->host, cfg->port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", cfg->host, gai_strerror(rc));
        return -1;
    }
    memcpy(&cfg->setup.addr, res->ai_addr, res->ai_addrlen);
    cfg->setup.addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* One connection attempt within the connect timeout, to fail fast and clearly. */
static int probe(const struct config *cfg, char *err, size_t errlen)
{
    int fd = socket(cfg->setup.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int soerr = 0;
    if (fd < 0) {
        soerr = errno;
    } else if (connect(fd, (const struct sockaddr *)&cfg->setup.addr, cfg->setup.addr_len) < 0) {
        soerr = errno;
        if (soerr == EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int ready = poll(&p, 1, (int)(cfg->connect_timeout_us / 1000));
            socklen_t len = sizeof soerr;
            if (ready == 0) soerr = ETIMEDOUT;
            else if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0) soerr = errno;
        }
    }
    if (fd >= 0) close(fd);
    if (soerr == 0) return 0;
    snprintf(err, errlen, "cannot connect to %s: %s", cfg->unix_socket ? cfg->unix_socket : cfg->url,
             strerror(soerr));
    return -1;
}

/* https://: the shared TLS client, and one handshake to learn the protocol
 * (ALPN) and TLS version. A failed handshake is shown here, once; a timed
 * run goes on and counts every failure as a tls_error, a run bounded by -n
 * alone would never end, so it stops here. */
static int tls_setup(struct config *cfg, char *err, size_t errlen)
{
    struct tls_session_info info;
    if (tls_probe(cfg->setup.tls_client, (const struct sockaddr *)&cfg->setup.addr, cfg->setup.addr_len,
                  (int)(cfg->connect_timeout_us / 1000), &info, err, errlen) == 0) {
        cfg->setup.h2 = cfg->force == PROTOCOL_H2 || (cfg->force == PROTOCOL_AUTO && strcmp(info.alpn, "h2") == 0);
        snprintf(cfg->setup.tls_version, sizeof cfg->setup.tls_version, "%s", info.version);
        return 0;
    }
    if (cfg->duration_us == 0) return -1;
    report_error("%s", err);
    return 0;
}

/* https://: the shared TLS client (a --cacert that does not load is a usage
 * error); 0 without TLS. */
static int tls_client_setup(struct config *cfg, char *err, size_t errlen)
{
    if (!cfg->tls || cfg->h3) return 0;
    const char *alpn = cfg->force == PROTOCOL_H2 ? "h2" : cfg->force == PROTOCOL_H1 ? "http/1.1" : "h2,http/1.1";
    struct tls_options opt = {.host = cfg->host, .sni = cfg->sni, .cacert = cfg->cacert,
                              .insecure = cfg->insecure, .alpn = alpn, .resume = cfg->tls_resume,
                              .cert = cfg->cert, .key = cfg->key};
    cfg->setup.tls_client = tls_client_new(&opt, err, errlen);
    return cfg->setup.tls_client ? 0 : -1;
}

/* --h3: the shared QUIC client (a --cacert that does not load is a usage
 * error). There is no probe: a server that does not answer shows as
 * handshake failures (connect_errors) and exit 3. The QUIC idle timeout is
 * twice --timeout: a connection silent that long is dead, and a request that
 * gets no answer is a timeout first (sending it restarts the idle timer). */
static int quic_client_setup(struct config *cfg, char *err, size_t errlen)
{
#ifdef HAVE_H3
    if (!cfg->h3) return 0;
    struct quic_options opt = {.host = cfg->host, .sni = cfg->sni, .cacert = cfg->cacert, .insecure = cfg->insecure,
                               .cert = cfg->cert, .key = cfg->key,
                               .handshake_timeout_us = cfg->connect_timeout_us, .idle_timeout_us = 2 * cfg->timeout_us};
    cfg->setup.quic_client = quic_client_new(&opt, err, errlen);
    snprintf(cfg->setup.tls_version, sizeof cfg->setup.tls_version, "TLSv1.3");
    return cfg->setup.quic_client ? 0 : -1;
#else
    (void)cfg;
    (void)err;
    (void)errlen;
    return 0;
#endif
}

/* The protocol the run speaks. */
static const struct protocol *run_protocol(const struct config *cfg)
{
#ifdef HAVE_H3
    if (cfg->h3) return &http3_protocol;
#endif
    if (cfg->ws) return &ws_protocol;
    return cfg->setup.h2 ? &http2_protocol : &http1_protocol;
}

/* --hdr-log: opened without blocking, so a FIFO nobody reads is an error at
 * once and a reader that stops reading fails the log, never the run. */
static FILE *open_hdr_log(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f) return f;
    if (errno == ENXIO) snprintf(err, errlen, "--hdr-log %s: a FIFO that nobody reads (start its reader first)", path);
    else snprintf(err, errlen, "--hdr-log %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* --log and --hdr-log, before each is opened (truncated): each a regular file
 * or a FIFO (a device or a socket refused), never the same file as the other
 * (by a symlink, a hard link, another spelling) nor as the standard output
 * (the record or the report): two writers would mix their formats. A path
 * not there yet is checked once the other has created it. 0 or -1. */
static int outputs_check(const struct config *cfg, char *err, size_t errlen)
{
    const char *opts[2] = {"--log", "--hdr-log"}, *paths[2] = {cfg->log_path, cfg->hdr_log_path};
    struct stat st[2], out;
    bool there[2] = {false, false}, out_file = fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode);
    for (int i = 0; i < 2; i++) {
        if (!paths[i] || stat(paths[i], &st[i])) continue;
        there[i] = true;
        if (!S_ISREG(st[i].st_mode) && !S_ISFIFO(st[i].st_mode)) {
            snprintf(err, errlen, "%s %s: not a regular file or a FIFO", opts[i], paths[i]);
            return -1;
        }
        if (out_file && same_file(&st[i], &out)) {
            snprintf(err, errlen, "%s %s: the standard output's file too (the record or the report)", opts[i], paths[i]);
            return -1;
        }
    }
    if (there[0] && there[1] && same_file(&st[0], &st[1])) {
        snprintf(err, errlen, "--log %s and --hdr-log %s are the same file", paths[0], paths[1]);
        return -1;
    }
    return 0;
}

/* --metrics-listen: listening before the probe, so that a bad address or a
 * port in use is a usage error whatever the target; 0, or -1 with the reason. */
static int metrics_setup(struct config *cfg, char *err, size_t errlen)
{
    if (!cfg->metrics_listen) return 0;
    if (!(cfg->setup.metrics = metrics_open(cfg->metrics_listen, err, errlen))) return -1;
    report_error("metrics at http://%s/metrics", metrics_address(cfg->setup.metrics));
    return 0;
}

/* The files of an open-loop run and its timeline, opened before the run so a
 * bad path fails at once; the seed of the draws when none was given (the
 * record's seed), kept below 2^53 so that a JSON reader working in doubles
 * (jq 1.6) reads it exactly. */
static int open_run_files(struct config *cfg, struct control *control, char *err, size_t errlen)
{
    cfg->setup.seed = cfg->seed;
    if (config_seeded(cfg) && !cfg->seed_set) {
        if (getrandom(&cfg->setup.seed, sizeof cfg->setup.seed, 0) != sizeof cfg->setup.seed)
            cfg->setup.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        cfg->setup.seed &= (UINT64_C(1) << 53) - 1;
    }
    if (cfg->control_path) {
        if (control_open(control, cfg->control_path, err, errlen)) return -1;
        cfg->setup.control = control;
    }
    if (cfg->hdr_log_path && !(cfg->setup.hdr_log = open_hdr_log(cfg->hdr_log_path, err, errlen))) return -1;
    if (outputs_check(cfg, err, errlen)) return -1; /* --log named the file --hdr-log created */
    if (cfg->log_path &&
        !(cfg->setup.reqlog = reqlog_open(cfg->log_path, cfg->log_sample, cfg->setup.seed, err, errlen)))
        return -1;
    return 0;
}

/* Closes them; -1 when a log could not be written whole (the reason printed). */
static int close_run_files(struct config *cfg)
{
    int rc = 0;
    char err[768];
    if (reqlog_close(cfg->setup.reqlog, err, sizeof err)) {
        report_error("%s", err);
        rc = -1;
    }
    cfg->setup.reqlog = NULL;
    if (cfg->setup.control) control_close(cfg->setup.control);
    if (cfg->setup.metrics) metrics_finish(cfg->setup.metrics, cfg->metrics_linger_us);
    metrics_close(cfg->setup.metrics);
    cfg->setup.metrics = NULL;
    if (cfg->setup.hdr_log && (ferror(cfg->setup.hdr_log) | fclose(cfg->setup.hdr_log))) {
        report_error("--hdr-log %s: could not be written whole", cfg->hdr_log_path);
        rc = -1;
    }
    cfg->setup.control = NULL;
    cfg->setup.hdr_log = NULL;
    return rc;
}

/* --start-at: the most ahead it may be (a guard against a wrong unit), and how
 * late a start may be before it is worth a warning. */
#define START_AT_MAX_AHEAD_MS 3600000
#define START_LATE_WARN_MS 100

/* Sleeps until the wall clock reaches --start-at (returns at once without it,
 * or when it has passed: a warning when it passed over START_LATE_WARN_MS ago).
 * -1 with a message when it is over an hour ahead. */
static int wait_for_start(const struct config *cfg, char *err, size_t errlen)
{
    if (!cfg->start_at_ms) return 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long ahead_ms = (long long)cfg->start_at_ms - ((long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    if (ahead_ms > START_AT_MAX_AHEAD_MS) {
        snprintf(err, errlen, "--start-at is %lld s ahead (at most an hour; it takes milliseconds since the epoch)",
                 ahead_ms / 1000);
        return -1;
    }
    if (ahead_ms < -START_LATE_WARN_MS) report_error("warning: --start-at passed %lld ms ago: starting now", -ahead_ms);
    struct timespec at = {.tv_sec = (time_t)(cfg->start_at_ms / 1000), .tv_nsec = (long)(cfg->start_at_ms % 1000) * 1000000};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == EINTR && !signals_caught()) {}
    return 0;
}

/* Peak resident memory of this program in KiB: VmHWM, because getrusage's
 * ru_maxrss keeps the parent's peak across exec. */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1) break;
    if (f) fclose(f);
    if (kb < 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        kb = ru.ru_maxrss;
    }
    return kb;
}

/* --jwt-key: the key and the claims; NULL without --jwt-key or with err set. */
static struct jwt *jwt_setup(const struct config *cfg, char *err, size_t errlen)
{
    err[0] = '\0';
    if (!cfg->jwt_key) return NULL;
    uint64_t run_id;
    if (getrandom(&run_id, sizeof run_id, 0) != sizeof run_id) run_id = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    struct jwt_claims claims = {.kid = cfg->jwt_kid, .iss = cfg->jwt_iss, .sub = cfg->jwt_sub, .aud = cfg->jwt_aud,
                                .exp_s = cfg->jwt_exp_us / 1000000};
    return jwt_new(cfg->jwt_key, cfg->jwt_alg, &claims, run_id, err, errlen);
}

/* The pool of tokens signed ahead (jwtpool.h), filled before the run (for at
 * most JWT_PREFILL_US) and kept full by its signer thread; NULL when out of
 * memory or a signature failed. */
static struct jwtpool *jwt_pool_start(const struct config *cfg, struct jwt *jwt)
{
    size_t tokens = JWT_POOL_TOKENS;
    uint64_t max_age_us = cfg->jwt_exp_us ? cfg->jwt_exp_us / 2 : UINT64_MAX;
    if (cfg->rate > 0 && cfg->jwt_exp_us && !cfg->stage_count) {
        double per_ring = cfg->rate / cfg->threads * ((double)max_age_us / 2e6);
        if (per_ring < (double)tokens) tokens = per_ring < JWT_POOL_MIN_TOKENS ? JWT_POOL_MIN_TOKENS : (size_t)per_ring;
    }
    struct jwtpool *p = jwtpool_new(cfg->threads, tokens, jwt_max_len(jwt) + 1, max_age_us, jwt_sign_seq, jwt);
    if (p && jwtpool_start(p, JWT_PREFILL_US, true) == 0) return p;
    jwtpool_free(p);
    return NULL;
}

/* The record's jwt object from the pool's counts. */
static void jwt_result(const struct config *cfg, const struct jwt *jwt, struct run_result *result)
{
    if (!cfg->setup.jwt_pool) return;
    struct jwtpool_stats st = jwtpool_stats(cfg->setup.jwt_pool);
    result->jwt = (struct run_jwt){.on = true, .alg = jwt_alg_name(jwt), .signed_count = st.signed_count,
                                   .taken = st.taken, .waited = st.waited, .wait_us_max = st.wait_us_max,
                                   .stale = st.stale};
}

/* The HTTP/3 libraries' versions ("" in a build without them). */
static struct run_libraries run_libraries(void)
{
    struct run_libraries libs = {.ngtcp2 = "", .nghttp3 = ""};
#ifdef HAVE_H3
    http3_library_versions(&libs.ngtcp2, &libs.nghttp3);
#endif
    return libs;
}

/* A run that measured nothing (a script error in setup or init, a signal
 * before the run): its empty report with the error (or ""); the exit status. */
static int report_empty(const struct config *cfg, const char *error)
{
    struct run_result result = {.libraries = run_libraries()};
    if (stats_init(&result.stats) || hist_init(&result.thread_rps)) return EXIT_FAILURE;
    snprintf(result.error, sizeof result.error, "%s", error);
    result.interrupted = signals_caught();
    if (error[0]) report_error("%s", error);
    report_run(cfg, &result, peak_rss_kb());
    stats_free(&result.stats);
    hist_free(&result.thread_rps);
    return result.interrupted ? 128 + result.interrupted : error[0] ? EXIT_SCRIPT : 0;
}

/* Nothing reached the server in the window: every connection attempt (TCP
 * or TLS handshake) failed, or was still connecting when the run ended (a
 * peer that never answers, with -d shorter than --connect-timeout), and not a
 * byte came back (over QUIC the failed handshakes' packets did come back: no
 * handshake completed). */
static bool never_connected(const struct config *cfg, const struct stats *st)
{
    return st->established == 0 && (cfg->h3 || st->bytes_received == 0) &&
           st->connect_errors + st->connects_abandoned > 0;
}

/* The run, reported: with a script its setup and init first, its done after
 * the text report (as wrk) or before the --json record (so the record can
 * name an error of done). Returns the exit status. */
static int run_and_report(struct config *cfg, const struct protocol *protocol, const struct source_type *source,
                          void *source_shared, const struct jwt *jwt)
{
    struct run_result result = {.libraries = run_libraries()};
    char err[512];
    int status = 0;
    report_start(cfg);
    if (cfg->setup.script && source_script_threads(cfg->setup.script, cfg)) {
        /* nothing was measured: an empty record with the error */
        return report_empty(cfg, script_error(cfg->setup.script));
    } else if (signals_caught()) {
        return report_empty(cfg, "");
    } else if (engine_run(cfg, protocol, source, source_shared, &result, err, sizeof err)) {
        report_error("%s", err);
        return EXIT_FAILURE;
    } else if (result.interrupted && cfg->setup.script) {
        script_halt_signal(false); /* handled: done() runs, as wrk's after Ctrl-C */
    }
    jwt_result(cfg, jwt, &result);
    threshold_evaluate(&cfg->fail_on, &result, &result.thresholds);
    if (cfg->setup.script && !result.error[0] && cfg->json && source_script_done(cfg->setup.script, &result)) {
        snprintf(result.error, sizeof result.error, "%s", script_error(cfg->setup.script));
    }
    if (result.timeline.failed) report_error("out of memory: the timeline (and --hdr-log) miss some seconds");
    if (result.error[0]) {
        report_error("%s", result.error);
        status = EXIT_SCRIPT;
    } else if (never_connected(cfg, &result.stats)) {
        report_error("no connection to %s was ever established%s (%" PRIu64 " attempts failed, %" PRIu64
                     " still connecting at the end): unreachable",
                     cfg->unix_socket ? cfg->unix_socket : cfg->url, cfg->h3 ? " (no QUIC handshake completed)" : cfg->tls ? " (no TLS handshake completed)" : "",
                     result.stats.connect_errors, result.stats.connects_abandoned);
        status = EXIT_UNREACHABLE;
    }
    report_run(cfg, &result, peak_rss_kb());
    if (cfg->setup.script && !status && !cfg->json && source_script_done(cfg->setup.script, &result)) {
        report_error("%s", script_error(cfg->setup.script));
        status = EXIT_SCRIPT;
    }
    if (!status && result.thresholds.broken) status = EXIT_THRESHOLD;
    if (result.interrupted) status = 128 + result.interrupted;
    stats_free(&result.stats);
    hist_free(&result.thread_rps);
    timeline_free(&result.timeline);
    timeline_free(&result.warmup.timeline);
    return status;
}

/* -s: the script loaded (a usage error when it does not load). With --json
 * what it prints goes to stderr. */
static int load_script(struct config *cfg, char *err, size_t errlen)
{
    if (!cfg->script_file) return 0;
    if (cfg->json && report_divert_stdout()) {
        snprintf(err, errlen, "cannot send the script's output to stderr");
        return -1;
    }
    cfg->setup.script = source_script_load(cfg, err, errlen);
    return cfg->setup.script ? 0 : -1;
}

/* The first SIGINT/SIGTERM (in the handler): Lua running in this thread stops. */
static void on_first_signal(int sig)
{
    (void)sig;
    script_halt_signal(true);
}

/* err printed; status returned (for one-line error branches). */
static int fail(const char *err, int status)
{
    report_error("%s", err);
    return status;
}

/* After the source is built: the outputs checked, the TLS or QUIC client, the probe, the run's
 * files, the JWT pool, --start-at's wait, then the run. Frees what it made
 * (the clients, the files, the pool) on every path. */
static int connect_and_run(struct config *cfg, const struct source_type *source, void *source_shared,
                           const struct jwt *jwt, char *err, size_t errlen)
{
    int status = EXIT_UNREACHABLE;
    struct control control;
    bool bad_setup = outputs_check(cfg, err, errlen) != 0 || metrics_setup(cfg, err, errlen) != 0 ||
                     tls_client_setup(cfg, err, errlen) != 0 || quic_client_setup(cfg, err, errlen) != 0;
    bool unreachable = !bad_setup && !cfg->h3 && (probe(cfg, err, errlen) || (cfg->tls && tls_setup(cfg, err, errlen)));
    if (bad_setup) {
        status = fail(err, EXIT_USAGE);
    } else if (signals_caught()) {
        /* interrupted while connecting: the empty report of a run that did not begin */
        status = report_empty(cfg, "");
    } else if (unreachable) {
        status = fail(err, EXIT_UNREACHABLE);
    } else if (open_run_files(cfg, &control, err, errlen)) {
        status = fail(err, EXIT_USAGE);
    } else if (jwt && !(cfg->setup.jwt_pool = jwt_pool_start(cfg, (struct jwt *)jwt))) {
        /* before --start-at's wait: the pool's prefill must not delay the start */
        status = fail("--jwt-key: cannot sign ahead (out of memory, no thread, or a signature failed)", EXIT_FAILURE);
    } else if (wait_for_start(cfg, err, errlen)) {
        status = fail(err, EXIT_USAGE);
    } else {
        status = run_and_report(cfg, run_protocol(cfg), source, source_shared, jwt);
    }
    jwtpool_free(cfg->setup.jwt_pool);
    cfg->setup.jwt_pool = NULL;
    if (close_run_files(cfg) && status == 0) status = EXIT_FAILURE;
    tls_client_free(cfg->setup.tls_client);
    cfg->setup.tls_client = NULL;
#ifdef HAVE_H3
    quic_client_free(cfg->setup.quic_client);
    cfg->setup.quic_client = NULL;
#endif
    return status;
}

/* A parsed command line run: the key, the file limit, the address, the
 * script, the request source (before the probe: a bad --urls line, body file
 * or --rand-url pattern is a usage error whether or not the target is up),
 * then connect_and_run. Frees what it made on every path; the exit status. */
static int setup_and_run(struct config *cfg, char *err, size_t errlen)
{
    const struct source_type *source = cfg->flow_file     ? &source_flow
                                       : cfg->script_file ? &source_script
                                       : config_generated(cfg) ? &source_gen : &source_static;
    void *source_shared = NULL;
    /* http:// speaks h2c with prior knowledge when asked; https:// lets ALPN choose (tls_setup) */
    cfg->setup.h2 = cfg->force == PROTOCOL_H2;
    struct jwt *jwt = jwt_setup(cfg, err, errlen);
    int status;
    if (cfg->jwt_key && !jwt) {
        status = fail(err, EXIT_USAGE);
    } else if (ensure_ports(cfg, err, errlen) ||
               ensure_file_limit(cfg->connections, cfg->idle_connections, err, errlen)) {
        status = fail(err, EXIT_USAGE);
    } else if (resolve(cfg, err, errlen)) {
        status = fail(err, EXIT_UNREACHABLE);
    } else if (load_script(cfg, err, errlen)) {
        /* a signal stopped the script's top level: the empty report of a run that did not begin */
        status = signals_caught() ? report_empty(cfg, err) : fail(err, EXIT_USAGE);
    } else if (!(source_shared = source->shared_new(cfg, err, errlen))) {
        status = fail(err, EXIT_USAGE);
    } else {
        free(cfg->urls_text); /* the list's text, parsed now */
        cfg->urls_text = NULL;
        status = connect_and_run(cfg, source, source_shared, jwt, err, errlen);
    }
    if (source_shared) source->shared_free(source_shared);
    jwt_free(jwt);
    script_free(cfg->setup.script);
    cfg->setup.script = NULL;
    return status;
}

int main(int argc, char **argv)
{
    struct config cfg;
    char err[SCRIPT_ERROR_MAX];
    int status = 0;
    if (signals_init(on_first_signal)) return fail("cannot set up the signal handlers", EXIT_FAILURE);
    switch (cli_parse(argc, argv, &cfg, err, sizeof err)) {
    case CLI_HELP: {
        struct config defaults;
        cli_defaults(&defaults);
        defaults.duration_us = CLI_DEFAULT_DURATION_US;
        report_help(&defaults);
        break;
    }
    case CLI_VERSION: {
        struct run_libraries libs = run_libraries();
        report_version(&libs);
        break;
    }
    case CLI_ERROR:
        /* a signal that stopped reading a file (fileread.h) ends the process as it would a run */
        status = fail(err, signals_caught() ? 128 + signals_caught() : EXIT_USAGE);
        break;
    case CLI_RUN: status = setup_and_run(&cfg, err, sizeof err); break;
    }
    cli_free(&cfg);
    return status;
}
