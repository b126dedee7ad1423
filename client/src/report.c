/* report: text in the spirit of wrk, and the metrics record as JSON
 * (schemas/metrics.schema.json, plus barrage's own extra fields). */
#include "report.h"

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Where the --json record goes: stdout, or what stdout was before a script's
 * output was sent to stderr (report_divert_stdout). */
static FILE *record_out;
#include <stdlib.h>

#include "hist_codec.h"
#include "steady.h"
#include "ws.h"

/* A fixed-rate run delivered its target when it sent at least this share of
 * the requests scheduled in its window and the schedule lag's p99 stayed
 * within REPORT_LAG_P99_LIMIT_US (docs/metrics.md). */
#define REPORT_SENT_MIN_SHARE 0.99
#define REPORT_LAG_P99_LIMIT_US 10000
/* a whole second whose sent requests fall below this share of its target is where delivery first fell short */
#define RATE_SHORT_FRACTION 0.95

static const char *const error_names[REQ_ERR_KINDS] = {"timeout", "read", "write", "protocol", "reset"};
static const char *const detail_names[DETAIL_KINDS] = {
    "none", "closed_before_response", "closed_mid_response", "header_too_large",
    "bad_status_line", "bad_header", "bad_chunk",
};

/* A default duration for --help: "10s", "500ms". */
static const char *fmt_default_time(char *buf, size_t len, uint64_t us)
{
    if (us % 1000000 == 0) snprintf(buf, len, "%" PRIu64 "s", us / 1000000);
    else snprintf(buf, len, "%" PRIu64 "ms", us / 1000);
    return buf;
}

void report_help(const struct config *d)
{
    char dur[32], timeout[32], connect[32], grace[32], ping[32];
    fputs("Usage: barrage [options] URL [-- script arguments]\n"
          "       barrage [options] --urls FILE | --rand-url http[s]://host[:port]/PATTERN   (the URL from them)\n"
          "       barrage [options] --urls-from-file FILE | --rand-regex-url PATTERN   (oha's command lines)\n"
          "       barrage [options] --flow FILE [--users N] URL   (request chains: client/FLOWS.md)\n"
          "HTTP/1.1, HTTP/2 (h2c, TLS with ALPN), HTTP/3 (--h3) and WebSocket (ws://, wss://) load generator\n"
          "with exact request accounting.\n\n"
          "Examples:\n"
          "  # closed loop (as wrk): 50 connections, each sends its next request when answered\n"
          "  barrage -c 50 -d 30s http://127.0.0.1:8080/\n"
          "  # fixed rate (open loop, as wrk2): 5000 requests/s on a schedule, latency from it\n"
          "  barrage -R 5000 -c 50 -d 30s --warmup 5s http://127.0.0.1:8080/\n"
          "  # a flow (client/FLOWS.md): 100 users on 10 connections, gated as in CI (exit 5)\n"
          "  barrage --flow api.flow --users 100 -c 10 -d 30s \\\n"
          "          --fail-on 'flow.failed>0,read.p95>50ms,failed>0.1%' http://127.0.0.1:8080/\n"
          "  # HTTP/2 (h2c): 4 connections with 100 concurrent streams each\n"
          "  barrage --h2 -c 4 --streams 100 -d 30s http://127.0.0.1:8080/\n"
          "  # HTTP/3 over QUIC: 4 connections with 10 streams each\n"
          "  barrage --h3 --cacert ca.pem -c 4 --streams 10 -d 30s https://localhost:8443/\n"
          "  # WebSocket echo: 10 connections, 4 messages of 1 KiB in flight on each\n"
          "  barrage -c 10 -m 4 --ws-size 1024 -d 30s ws://127.0.0.1:8080/ws\n"
          "  # the metrics record (docs/metrics.md) instead of the text report\n"
          "  barrage --json -c 10 -n 10000 http://127.0.0.1:8080/ | jq .latency_us\n\n"
          "URL: http[s]://[user:password@]host[:port][/path][?query], or ws[s]:// for WebSocket: the\n"
          "scheme in any case, an IPv6 host in brackets, user:password sent as Authorization: Basic\n"
          "(unless -H gives one); the fragment is dropped and bytes a path or query may not hold (space,\n"
          "non-ASCII, \"<>`{}|\\^[]) are percent-encoded, as a browser does; a control character or a\n"
          "bad %-escape is refused.\n\n",
          stdout);
    printf("  -c, --connections N          connections to keep open (default %u)\n"
           "  -t, --threads N              threads, one event loop each (default %u)\n"
           "  -d, --duration TIME          measured duration, e.g. 10s, 2m (default %s)\n",
           d->connections, d->threads, fmt_default_time(dur, sizeof dur, d->duration_us));
    printf("  -m, --pipeline N             HTTP/1.1: requests pipelined on each connection, sent\n"
           "                               before the answers (default %u, at most %d)\n"
           "      --streams N              HTTP/2, HTTP/3: concurrent streams on each connection\n"
           "                               (default %u, at most %d; never above the server's limit).\n"
           "                               -m and --streams are one setting: requests in flight per\n"
           "                               connection, named for each protocol\n",
           d->pipeline, CONFIG_MAX_PIPELINE, d->pipeline, CONFIG_MAX_PIPELINE);
    printf("      --timeout TIME           per request, more than 0 (default %s)\n"
           "      --connect-timeout TIME   per connection attempt, more than 0 (default %s)\n"
           "      --grace TIME             wait for requests in flight at the end (default %s)\n"
           "      --max-header-size BYTES  response head limit (default %zu)\n"
           "      --window-bits N          HTTP/2 stream window 2^N-1 (default %u)\n"
           "      --connection-window-bits N  HTTP/2 connection window 2^N-1 (default %u)\n"
           "      --idle-ping TIME         HTTP/2 PING (HTTP/3: QUIC PING when silent) on idle connections\n"
           "                               every TIME (default %s, as Chrome's QUIC; 0: none)\n",
           fmt_default_time(timeout, sizeof timeout, d->timeout_us),
           fmt_default_time(connect, sizeof connect, d->connect_timeout_us),
           fmt_default_time(grace, sizeof grace, d->grace_us), (size_t)d->max_header_size, d->window_bits,
           d->connection_window_bits, fmt_default_time(ping, sizeof ping, d->idle_ping_us));
    fputs(          "  -n, --requests N             stop after N requests instead (with -d: whichever first)\n"
          "      --warmup TIME            run this long first and discard it\n"
          "      --warmup auto[:MAX]      warm up until the load is in steady state (docs/steady-state.md),\n"
          "                               at most MAX (default 60s), and discard it\n"
          "      --h2                     HTTP/2: h2c with prior knowledge for http://, ALPN h2 for https://\n"
          "      --h3                     HTTP/3 over QUIC (https:// only; UDP to the URL's port; ALPN h3;\n"
          "                               -m streams per connection within the server's MAX_STREAMS)\n"
          "      --h1                     https:// only: offer only http/1.1 in ALPN (not with --h2)\n"
          "                               (https:// offers h2,http/1.1 by default; the server chooses)\n"
          "      --cacert FILE            trust this CA too (the system store is always used); checked at start\n"
          "      --insecure               do not verify the server's certificate\n"
          "      --sni NAME               TLS server name (default: the URL's host name)\n"
          "      --tls-resume             new connections resume the last TLS session the server gave\n"
          "                               (session tickets or IDs, TLS 1.3 and 1.2; off: every handshake\n"
          "                               is a full one); the record counts handshakes_full and _resumed\n"
          "      --cert FILE --key FILE   a client certificate and its key (PEM) for servers that ask\n"
          "                               (mutual TLS), over TLS and over QUIC (--h3)\n"
          "      --idle-connections N     open N more connections first and keep them open without\n"
          "                               requests for the whole run (not counted as load: the record's\n"
          "                               idle_connections); the open-file limit is raised to fit (exit 2\n"
          "                               when the hard limit or ip_local_port_range cannot hold them)\n"
          "      --ws-size BYTES          ws:// and wss:// (WebSocket, RFC 6455): each request is a message,\n"
          "                               its echo the answer; the message's size (default 32; -b/-B give\n"
          "                               its content instead); -m messages in flight per connection\n"
          "      --ws-binary              binary messages (default text)\n"
          "      --ws-max-message BYTES   the longest message the server may send (default 64 MiB)\n"
          "  -X, --method METHOD          request method, a token (RFC 9110; default GET)\n"
          "  -H, --header 'Name: value'   add a request header (repeatable): the name a token right\n"
          "                               before the colon, no control character but tab in the value\n"
          "  -b, --body STRING            request body\n"
          "  -B, --body-file FILE         request body from a regular file of at most 64 MiB\n"
          "      --no-keepalive           one request per connection (Connection: close)\n"
          "      --requests-per-connection N  reconnect after N requests\n"
          "      --unix-socket PATH       connect to a unix socket instead of the URL's host\n"
          "  -R, --rate N                 fixed rate: N requests/s in total, on a schedule (open loop;\n"
          "                               latency from each request's scheduled time)\n"
          "      --arrival even|poisson   spacing of the schedule (default even)\n"
          "      --pace-resolution TIME   at a fixed rate, wake once per window of TIME (e.g. 1ms) and send\n"
          "                               every request due in it; latency still from each scheduled\n"
          "                               time (default 0: a wake-up per request)\n"
          "      --rate-stages R:T[,R:T]  the target ramps linearly to each rate R over its time T, from\n"
          "                               -R (else the first R); the run lasts the stages unless -d\n"
          "      --seed N                 seed of the Poisson and random draws, 0..2^53 (default: random; the record's seed)\n"
          "      --control FILE           read 'rate N' and 'stop' from FILE (a FIFO or a file) while running\n"
          "      --hdr-log FILE           HdrHistogram interval log, one line per second (a FIFO must\n"
          "                               have its reader already; one that stops reading fails the log)\n"
          "      --hdr-log-unit ns|us     the log's unit (default ns, what HistogramLogProcessor and\n"
          "                               HistogramLogAnalyzer assume; us: barrage's own, exact)\n"
          "      --live                   one line per second on stderr\n"
          "      --metrics-listen ADDR:PORT  serve GET /metrics (Prometheus text) from ADDR:PORT while\n"
          "                               running: barrage_requests_total{outcome}, bytes, connections,\n"
          "                               in flight, schedule lag, barrage_latency_seconds (a histogram\n"
          "                               whose quantiles are within 9.1%); updated once a second\n"
          "      --metrics-linger TIME    then keep serving until the final figures are scraped once,\n"
          "                               at most TIME (default 0: exit at once)\n"
          "      --log FILE               a CSV line per completed request, after a header line:\n"
          "                               start_unix_us,thread,connection,step,status,error,latency_us,\n"
          "                               body_bytes,user,iteration (step: the request line or its kind's\n"
          "                               name; error 'unexpected' for a response that failed a check;\n"
          "                               user and iteration: a flow's);\n"
          "                               buffered per thread, written in whole lines\n"
          "      --log-sample R           log a share R of the requests, 0 < R <= 1 (--seed; default 1)\n"
          "      --start-at EPOCH_MS      begin (warm-up, then the measured run) at this wall-clock\n"
          "                               time, ms since the epoch: several load hosts start together\n"
          "      --json                   print the metrics record (JSON) instead of the text report\n"
          "      --latency                print the latency percentile spectrum\n"
          "      --verbose                show samples of unparsable responses\n"
          "      --fail-on EXPR           thresholds that fail the run with exit 5 (repeatable), e.g.\n"
          "                               'failed>0.1%,p99>20ms,rps<1000': FIGURE >, >=, < or <= LIMIT,\n"
          "                               comma-separated, broken when true; FIGURE a count of the record\n"
          "                               (failed, errors.timeout, status.5xx...: N, or N% of the requests),\n"
          "                               a rate (rps, successful_rps: N) or a duration (p95, p99, max,\n"
          "                               ttfb.p95...: with a unit, 20ms); a flow's iterations\n"
          "                               (flow.capture_failed>0, flow.failed>1%); a step by its name\n"
          "                               (read.p95>50ms, read.failed>0); a bad item lists them all.\n"
          "                               A figure not measured (p99 with no response) breaks\n"
          "  -q, --quiet                  no text report\n"
          "  -s, --script FILE            a wrk script (client/SCRIPTING.md); the arguments after\n"
          "                               the URL go to its init(args)\n"
          "      --urls FILE              requests from a list, one a line: [METHOD] PATH-or-URL [@BODYFILE];\n"
          "                               sent in order (each thread from the top); absolute URLs may\n"
          "                               name other origins, each with its own connections; with no URL\n"
          "                               on the command line, the first line's URL is the URL (h2load -i);\n"
          "                               FILE - reads the list from standard input; at most 256 MiB,\n"
          "                               body files 64 MiB (regular files: no device, no FIFO); each\n"
          "                               target made as the URL's (fragment dropped, percent-encoded)\n"
          "      --urls-random            draw each request from the list at random (--seed)\n"
          "      --urls-from-file         oha's flag: the argument (where the URL goes) is the list,\n"
          "                               drawn at random as oha does (--urls FILE --urls-random)\n"
          "      --rand-url PATTERN       each request's path drawn from a regular expression, e.g.\n"
          "                               '/item/[0-9]{1,6}' (--seed; unbounded repeats capped at 8);\n"
          "                               or, as oha's --rand-regex-url, 'http://host:port/item/[0-9]+':\n"
          "                               the origin as written (the URL's, or the URL when none is given),\n"
          "                               a bare '.' a dot as in oha; every target drawn starts with /\n"
          "                               and holds no '#', '%', '<', '\"', '{' ('%HH' written as such)\n"
          "      --rand-regex-url         oha's flag: the argument (where the URL goes) is the pattern,\n"
          "                               absolute, repeats capped at 4 as in oha (--max-repeat)\n"
          "      --max-repeat N           --rand-url's *, + and {m,} draw at most N more than their\n"
          "                               minimum (0..100, default 8; 4 with --rand-regex-url, as oha)\n"
          "      --flow FILE              a chain of steps each virtual user runs in order, again and\n"
          "                               again (client/FLOWS.md): a step is [METHOD] PATH [@BODYFILE]\n"
          "                               and indented lines: 'Name: value', 'body TEXT', 'expect 2xx,404',\n"
          "                               'expect body ~ RE', 'capture NAME = header:H | json:/PTR | regex:RE',\n"
          "                               'think 100ms', 'step NAME'; ${NAME} a capture or ${user} ${seq}\n"
          "                               ${rand:A-B} ${uuid} ${csv:FILE:COLUMN}. Per-step counts and latency\n"
          "                               in the report. -R counts requests (every step of every user),\n"
          "                               not chains; -n too\n"
          "      --users N                --flow's virtual users (default: connections x -m, at most\n"
          "                               100000; up to 1000000 when given), dealt to the\n"
          "                               threads and their connections; a user waits for each answer\n"
          "                               (HTTP/2 and HTTP/3 multiplex a connection's users)\n"
          "      --expect-status LIST     codes and classes such as 200,2xx,404: any other final status\n"
          "                               is 'unexpected' (its own failure, counted once, first few\n"
          "                               printed); a flow step's own 'expect' line wins\n"
          "      --jwt-key FILE           a signed JWT in every request, each with its own jti, signed\n"
          "                               ahead in a bounded pool on a thread of its own: FILE a PEM\n"
          "                               EC P-256 private key (ES256) or RSA private key (RS256), or with\n"
          "                               --jwt-alg HS256 a file whose bytes, as they are (no newline\n"
          "                               stripped: write it with printf), are the HMAC secret\n"
          "      --jwt-alg ES256|RS256|HS256  the algorithm (default: the PEM key's; HS256 must be given)\n"
          "      --jwt-header NAME        the header carrying it (default 'Authorization: Bearer': the line\n"
          "                               'Authorization: Bearer <token>'); NAME alone sends 'NAME: <token>',\n"
          "                               'NAME: PREFIX' sends 'NAME: PREFIX <token>'\n"
          "      --jwt-kid, --jwt-iss, --jwt-sub, --jwt-aud TEXT  the header's kid and the claims\n"
          "      --jwt-exp TIME           exp = iat + TIME (at least 1s; default: no exp); a token is sent\n"
          "                               within TIME/2 of its signing and at least 100 ms before its\n"
          "                               exp (others are dropped)\n"
          "      --help, --version\n\n"
          "Exit status: 0 the run finished (whatever the responses, without --fail-on), 2 usage\n"
          "error (a script that does not load, a bad method, header or URL, an option out of its\n"
          "range, a list or body file that is a device, a FIFO or over its limit included), 3 the target\n"
          "could not be reached: at start, or no connection (no TLS or QUIC handshake) was\n"
          "established in the whole run, also when the attempts were still waiting at its end\n"
          "(the report and record still printed), 4 a script\n"
          "callback failed or never returned (stopped by the watchdog at the run's end, or after\n"
          "--timeout for the top level, setup, init and done; the report says what was\n"
          "measured), 5 a --fail-on threshold broke (the report says which; 2, 3, 4 and the\n"
          "signals' statuses come first), 130 / 143 SIGINT / SIGTERM stopped the run (the report covers the window\n"
          "until then; a second signal ends barrage at once).\n",
          stdout);
}

void report_version(const struct run_libraries *libs)
{
    printf("barrage %s\nprotocols: http/1.1 h2c h2", BARRAGE_VERSION);
    if (libs->ngtcp2[0]) printf(" h3 (ngtcp2 %s, nghttp3 %s)\n", libs->ngtcp2, libs->nghttp3);
    else printf(" (no h3: built without libngtcp2/libnghttp3)\n");
}

/* HTTP/3 error codes by their value - 0x100 (RFC 9114, 8.1). */
static const char *const h3_code_names[STATS_H3_CODES] = {
    "H3_NO_ERROR", "H3_GENERAL_PROTOCOL_ERROR", "H3_INTERNAL_ERROR", "H3_STREAM_CREATION_ERROR",
    "H3_CLOSED_CRITICAL_STREAM", "H3_FRAME_UNEXPECTED", "H3_FRAME_ERROR", "H3_EXCESSIVE_LOAD", "H3_ID_ERROR",
    "H3_SETTINGS_ERROR", "H3_MISSING_SETTINGS", "H3_REQUEST_REJECTED", "H3_REQUEST_CANCELLED",
    "H3_REQUEST_INCOMPLETE", "H3_MESSAGE_ERROR", "H3_CONNECT_ERROR", "H3_VERSION_FALLBACK"};

/* The record's quic object: null unless --h3. */
static void json_quic(FILE *f, const struct config *cfg, const struct run_libraries *libs, const struct stats *s)
{
    const char *sep = "";
    if (!cfg->h3) {
        fputs("  \"quic\": null,\n", f);
        return;
    }
    const struct stats_quic *q = &s->quic;
    fprintf(f, "  \"quic\": {\"ngtcp2\": \"%s\", \"nghttp3\": \"%s\", \"handshake_failures\": %" PRIu64
               ", \"idle_timeouts\": %" PRIu64 ", \"closed_transport\": %" PRIu64 ", \"closed_application\": %" PRIu64
               ", \"goaways\": %" PRIu64 ", \"stream_resets\": {",
            libs->ngtcp2, libs->nghttp3, q->handshake_failures, q->idle_timeouts, q->closed_transport, q->closed_application,
            q->goaways);
    for (int i = 0; i <= STATS_H3_CODES; i++) {
        if (!q->stream_resets[i]) continue;
        fprintf(f, "%s\"%s\": %" PRIu64, sep, i < STATS_H3_CODES ? h3_code_names[i] : "other", q->stream_resets[i]);
        sep = ", ";
    }
    fputs("}},\n", f);
}

static void text_quic(const struct config *cfg, const struct stats *s)
{
    if (!cfg->h3) return;
    const struct stats_quic *q = &s->quic;
    uint64_t resets = 0;
    for (int i = 0; i <= STATS_H3_CODES; i++) resets += q->stream_resets[i];
    printf("  QUIC: handshake failures %" PRIu64 ", idle timeouts %" PRIu64 ", closed by the server %" PRIu64
           " (transport) %" PRIu64 " (HTTP/3), GOAWAY %" PRIu64 ", streams reset %" PRIu64 "\n",
           q->handshake_failures, q->idle_timeouts, q->closed_transport, q->closed_application, q->goaways, resets);
}

/* A WebSocket close-code table (stats_ws), as a JSON object: "1000": n, ..., "other": n. */
static void json_ws_codes(FILE *f, const char *name, const uint64_t *codes)
{
    const char *sep = "";
    fprintf(f, ", \"%s\": {", name);
    for (unsigned i = 0; i <= STATS_WS_CODES; i++) {
        if (!codes[i]) continue;
        if (i < STATS_WS_CODES) fprintf(f, "%s\"%u\": %" PRIu64, sep, 1000 + i, codes[i]);
        else fprintf(f, "%s\"other\": %" PRIu64, sep, codes[i]);
        sep = ", ";
    }
    fputs("}", f);
}

/* The record's websocket object: null unless ws:// or wss:// (docs/metrics.md).
 * Messages are the requests: sent = echoed + failed, failed = timeout + closed + protocol_error. */
static void json_ws(FILE *f, const struct config *cfg, const struct stats *s)
{
    if (!cfg->ws) {
        fputs("  \"websocket\": null,\n", f);
        return;
    }
    const struct stats_ws *w = &s->ws;
    const char *sep = "";
    fprintf(f, "  \"websocket\": {\"messages\": {\"sent\": %" PRIu64 ", \"echoed\": %" PRIu64 ", \"failed\": %" PRIu64
               ", \"timeout\": %" PRIu64 ", \"closed\": %" PRIu64 ", \"protocol_error\": %" PRIu64 ", \"aborted\": %" PRIu64
               "},\n    \"message_bytes\": %zu, \"binary\": %s, \"upgraded\": %" PRIu64 ", \"refused\": %" PRIu64
               ", \"refused_status\": {",
            stats_requests(s), s->succeeded, stats_failed(s), s->errors[REQ_ERR_TIMEOUT],
            s->errors[REQ_ERR_READ] + s->errors[REQ_ERR_WRITE] + s->errors[REQ_ERR_RESET], s->errors[REQ_ERR_PROTOCOL],
            s->aborted, cfg->body_len ? cfg->body_len : cfg->ws_size, cfg->ws_binary ? "true" : "false", w->upgraded,
            w->refused);
    for (int c = 100; c < 600; c++) {
        if (!w->refused_status[c]) continue;
        fprintf(f, "%s\"%d\": %" PRIu64, sep, c, w->refused_status[c]);
        sep = ", ";
    }
    fputs("}, \"refused_reasons\": {", f);
    sep = "";
    for (unsigned c = 1; c < WS_REFUSAL_KINDS; c++) {
        if (!w->refused_status[c]) continue;
        fprintf(f, "%s\"%s\": %" PRIu64, sep, ws_refusal_name(c), w->refused_status[c]);
        sep = ", ";
    }
    fprintf(f, "},\n    \"closed_by_server\": %" PRIu64, w->closed_by_server);
    json_ws_codes(f, "server_close_codes", w->server_codes);
    fprintf(f, ", \"closed_by_client\": %" PRIu64, w->closed_by_client);
    json_ws_codes(f, "client_close_codes", w->client_codes);
    fprintf(f, ",\n    \"pings_answered\": %" PRIu64 ", \"protocol_errors\": {", w->pings);
    sep = "";
    for (unsigned i = 1; i < WS_FAULT_KINDS; i++) {
        if (!w->faults[i]) continue;
        fprintf(f, "%s\"%s\": %" PRIu64, sep, ws_fault_name(i), w->faults[i]);
        sep = ", ";
    }
    fputs("}},\n", f);
}

static void text_ws(const struct config *cfg, const struct stats *s)
{
    if (!cfg->ws) return;
    const struct stats_ws *w = &s->ws;
    uint64_t faults = 0;
    for (unsigned i = 1; i < WS_FAULT_KINDS; i++) faults += w->faults[i];
    printf("  WebSocket: messages sent %" PRIu64 ", echoed %" PRIu64 ", failed %" PRIu64 " (timeout %" PRIu64
           ", closed %" PRIu64 ", protocol error %" PRIu64 ")\n",
           stats_requests(s), s->succeeded, stats_failed(s), s->errors[REQ_ERR_TIMEOUT],
           s->errors[REQ_ERR_READ] + s->errors[REQ_ERR_WRITE] + s->errors[REQ_ERR_RESET], s->errors[REQ_ERR_PROTOCOL]);
    printf("  WebSocket connections: upgraded %" PRIu64 ", refused %" PRIu64 ", closed by the server %" PRIu64
           ", by the client %" PRIu64 ", pings answered %" PRIu64 ", protocol errors %" PRIu64 "\n",
           w->upgraded, w->refused, w->closed_by_server, w->closed_by_client, w->pings, faults);
    for (unsigned i = 1; i < WS_FAULT_KINDS; i++)
        if (w->faults[i]) printf("    %s %" PRIu64 "\n", ws_fault_name(i), w->faults[i]);
}

void report_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("barrage: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* "jwt": the tokens of --jwt-key (docs/metrics.md), or null. */
static void json_jwt(FILE *f, const struct run_jwt *j)
{
    if (!j->on) {
        fputs("  \"jwt\": null,\n", f);
        return;
    }
    fprintf(f, "  \"jwt\": {\"alg\": \"%s\", \"signed\": %" PRIu64 ", \"used\": %" PRIu64 ", \"waited\": %" PRIu64
               ", \"wait_us_max\": %" PRIu64 ", \"stale\": %" PRIu64 "},\n",
            j->alg, j->signed_count, j->taken, j->waited, j->wait_us_max, j->stale);
}

/* A latency object, or null for an empty histogram. */
static void json_hist(FILE *f, const struct hist *h)
{
    if (h->total == 0) {
        fputs("null", f);
        return;
    }
    fprintf(f,
            "{\"min\": %" PRIu64 ", \"mean\": %.1f, \"stdev\": %.1f, \"p50\": %" PRIu64
            ", \"p75\": %" PRIu64 ", \"p90\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64
            ", \"p9999\": %" PRIu64 ", \"max\": %" PRIu64 ", \"overflow\": %" PRIu64 "}",
            h->min, hist_mean(h), hist_stdev(h), hist_percentile(h, 50), hist_percentile(h, 75),
            hist_percentile(h, 90), hist_percentile(h, 99), hist_percentile(h, 99.9), hist_percentile(h, 99.99),
            h->max, h->overflow);
}

static void json_latency(FILE *f, const char *name, const struct hist *h, int last)
{
    fprintf(f, "  \"%s\": ", name);
    json_hist(f, h);
    fprintf(f, "%s\n", last ? "" : ",");
}

/* A JSON string (a script's message or kind name: any bytes). */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
        else if (*c == '\n') fputs("\\n", f);
        else if (*c == '\t') fputs("\\t", f);
        else if (*c < 0x20 || *c == 0x7f) fprintf(f, "\\u%04x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

/* "kinds": counts and latency per kind of request, when a script named kinds. */
static void json_kinds(FILE *f, const struct stats *s)
{
    if (!s->kinds[0]) return;
    fputs("  \"kinds\": {", f);
    for (unsigned i = 0; i < STATS_MAX_KINDS && s->kinds[i]; i++) {
        const struct stats_kind *k = s->kinds[i];
        fputs(i ? ",\n    " : "\n    ", f);
        json_string(f, k->name);
        fprintf(f, ": {\"requests\": %" PRIu64 ", \"succeeded\": %" PRIu64 ", \"failed\": %" PRIu64
                   ", \"unexpected\": %" PRIu64 ", \"latency_us\": ", k->requests, k->succeeded, k->failed, k->unexpected);
        json_hist(f, &k->latency);
        fputc('}', f);
    }
    fputs("},\n", f);
}

/* "unexpected_examples" (the first few responses that failed a check) and,
 * with --flow, "flow": its users and how their iterations ended. */
static void json_checks(FILE *f, const struct config *cfg, const struct stats *s)
{
    if (s->unexpected_examples) {
        fputs("  \"unexpected_examples\": [", f);
        for (unsigned i = 0; i < s->unexpected_examples; i++) {
            const struct stats_unexpected_example *e = &s->unexpected_example[i];
            fprintf(f, "%s{\"status\": %d, \"step\": ", i ? ", " : "", e->status);
            if (e->step[0]) json_string(f, e->step);
            else fputs("null", f);
            fputs(", \"body\": ", f);
            json_string(f, e->body);
            fputc('}', f);
        }
        fputs("],\n", f);
    }
    if (!cfg->flow_file) return;
    fprintf(f, "  \"flow\": {\"users\": %u, \"completed\": %" PRIu64 ", \"capture_failed\": %" PRIu64
               ", \"broken\": %" PRIu64 ", \"iteration_us\": ",
            cfg->users, s->flow.completed, s->flow.capture_failed, s->flow.broken);
    json_hist(f, &s->flow.iteration);
    fputs(", \"wait_us\": ", f);
    json_hist(f, &s->flow.wait);
    fputs("},\n", f);
}

/* Did the schedule go out: NULL, or why not (a sentence for people). */
static const char *rate_shortfall(const struct stats *s, char *buf, size_t len)
{
    if (s->scheduled && (double)s->started < REPORT_SENT_MIN_SHARE * (double)s->scheduled) {
        snprintf(buf, len, "only %" PRIu64 " of the %" PRIu64 " requests scheduled were sent (%.1f%%): the rest were "
                 "still waiting for a free connection or stream at the end",
                 s->started, s->scheduled, 100.0 * (double)s->started / (double)s->scheduled);
        return buf;
    }
    uint64_t lag = hist_percentile(&s->schedule_lag, 99);
    if (lag > REPORT_LAG_P99_LIMIT_US) {
        snprintf(buf, len, "requests left late: schedule lag p99 %.1f ms (limit %.0f ms): every connection or stream "
                 "was busy, or the client could not keep up (more -c, -m or -t may help)",
                 (double)lag / 1e3, REPORT_LAG_P99_LIMIT_US / 1e3);
        return buf;
    }
    return NULL;
}

static void json_string_or_null(FILE *f, const char *text)
{
    if (!text) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"' || *c == '\\') fputc('\\', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static void json_rate(FILE *f, const struct config *cfg, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    const struct timeline *tl = &r->timeline;
    char why[256];
    const char *shortfall = rate_shortfall(s, why, sizeof why);
    double seconds = (double)r->duration_us / 1e6;
    fprintf(f, "  \"rate\": {\"target\": %.3f, \"arrival\": \"%s\", \"seed\": ", cfg->rate,
            cfg->poisson ? "poisson" : "even");
    if (cfg->poisson) fprintf(f, "%" PRIu64, cfg->setup.seed);
    else fputs("null", f);
    fprintf(f, ", \"scheduled\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"unsent\": %" PRIu64
               ", \"achieved\": %.3f, \"backlog_max\": %" PRIu64 ", \"delivered\": %s, \"not_delivered\": ",
            s->scheduled, s->started, s->unsent, seconds > 0 ? (double)s->started / seconds : 0.0, s->backlog_max,
            shortfall ? "false" : "true");
    json_string_or_null(f, shortfall);
    fputs(", \"changes\": [", f);
    for (size_t i = 1; i < tl->nchanges; i++)
        fprintf(f, "%s{\"at_s\": %.6f, \"rate\": %.3f}", i > 1 ? ", " : "",
                (double)(tl->changes[i].at_us - tl->measure_start) / 1e6, tl->changes[i].rate);
    fputs("], \"stages\": ", f);
    if (cfg->stage_count) {
        fprintf(f, "{\"start_rate\": %.3f, \"points\": [", cfg->stages_start_rate);
        for (unsigned i = 0; i < cfg->stage_count; i++)
            fprintf(f, "%s{\"rate\": %.3f, \"duration_s\": %.6f}", i ? ", " : "", cfg->stages[i].rate,
                    (double)cfg->stages[i].duration_us / 1e6);
        fputs("]}", f);
    } else {
        fputs("null", f);
    }
    long short_at = timeline_first_short(tl, RATE_SHORT_FRACTION);
    fputs(", \"first_short\": ", f);
    if (short_at >= 0) {
        const struct timeline_entry *e = &tl->entries[short_at];
        fprintf(f, "{\"t_s\": %.3f, \"target_rate\": %.3f, \"rate\": %.3f}", (double)e->start_us / 1e6,
                e->target_rate, (double)e->sent / ((double)e->length_us / 1e6));
    } else {
        fputs("null", f);
    }
    fputs("},\n", f);
}

static void json_histogram(FILE *f, const char *name, const struct hist *h, bool wanted, bool last)
{
    char *b64 = wanted && h->total ? hist_codec_encode_base64(h) : NULL;
    fprintf(f, "\"%s\": ", name);
    json_string_or_null(f, b64);
    fputs(last ? "" : ", ", f);
    free(b64);
}

/* The whole run's histograms, so that records merge exactly (tools/merge-records). */
static void json_histograms(FILE *f, const struct config *cfg, const struct stats *s)
{
    fputs("  \"histograms\": {\"encoding\": \"HdrHistogram V2 compressed, base64; microseconds\", ", f);
    json_histogram(f, "latency_us", &s->latency, true, false);
    json_histogram(f, "latency_uncorrected_us", &s->latency_uncorrected, cfg->rate > 0, false);
    json_histogram(f, "error_latency_us", &s->error_latency, true, false);
    json_histogram(f, "schedule_lag_us", &s->schedule_lag, cfg->rate > 0, true);
    fputs("},\n", f);
}

static void json_point_latency(FILE *f, const char *name, const struct timeline_latency *l)
{
    if (!l->present) {
        fprintf(f, ", \"%s\": null", name);
        return;
    }
    fprintf(f, ", \"%s\": {\"p50\": %" PRIu64 ", \"p90\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}",
            name, l->p50, l->p90, l->p99, l->max);
}

static void json_timeline(FILE *f, const struct config *cfg, const char *name, const struct timeline *tl)
{
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; i < tl->len; i++) {
        const struct timeline_entry *e = &tl->entries[i];
        double length = (double)e->length_us / 1e6;
        fprintf(f, "%s\n    {\"t_s\": %.3f, \"length_s\": %.6f, \"in_grace\": %s, \"sent\": %" PRIu64
                   ", \"rate\": %.3f, \"requests\": %" PRIu64 ", \"succeeded\": %" PRIu64 ", \"failed\": %" PRIu64
                   ", \"status_4xx\": %" PRIu64 ", \"status_5xx\": %" PRIu64 ", \"errors\": {",
                i ? "," : "", (double)e->start_us / 1e6, length, e->in_grace ? "true" : "false", e->sent,
                length > 0 ? (double)e->sent / length : 0.0, e->requests, e->succeeded, e->failed, e->status_4xx,
                e->status_5xx);
        for (int k = 0; k < REQ_ERR_KINDS; k++) fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "", error_names[k], e->errors[k]);
        fprintf(f, "}, \"open_connections\": %" PRIu64 ", \"new_connections\": %" PRIu64 ", \"target_rate\": ",
                e->open_connections, e->new_connections);
        if (e->target_rate >= 0) fprintf(f, "%.3f", e->target_rate);
        else fputs("null", f);
        json_point_latency(f, "latency_us", &e->latency);
        struct timeline_latency none = {.present = false};
        json_point_latency(f, "latency_uncorrected_us", cfg->rate > 0 ? &e->uncorrected : &none);
        fputs("}", f);
    }
    fputs(tl->len ? "\n  ],\n" : "],\n", f);
}

/* The warm-up: how, how long, whether steady state was reached (auto), the
 * rule it was judged by, and its per-second series (warmup_timeline, t_s
 * from the run's start). */
static void json_warmup(FILE *f, const struct config *cfg, const struct run_result *r)
{
    const struct steady_rule *rule = steady_rule_for(cfg->rate > 0);
    fprintf(f, "  \"warmup\": {\"mode\": \"%s\", \"seconds\": %.3f, ",
            cfg->warmup_auto ? "auto" : cfg->warmup_us ? "fixed" : "none", (double)r->warmup.duration_us / 1e6);
    if (!cfg->warmup_auto) {
        fputs("\"max_seconds\": null, \"steady\": null, \"rule\": null},\n", f);
    } else {
        fprintf(f, "\"max_seconds\": %.3f, \"steady\": %s, \"rule\": {\"watched\": \"%s\", \"window_s\": %u, "
                   "\"trend\": %.3f, \"spread\": %.3f, \"floor\": %g}},\n",
                (double)cfg->warmup_us / 1e6, r->warmup.steady ? "true" : "false",
                rule->watched, rule->window, rule->trend, rule->spread, rule->floor);
    }
    json_timeline(f, cfg, "warmup_timeline", &r->warmup.timeline);
}

static void json_codes(FILE *f, const struct stats *s)
{
    const char *sep = "";
    fputs("\"codes\": {", f);
    for (int c = 100; c < 600; c++) {
        if (!s->codes[c]) continue;
        fprintf(f, "%s\"%d\": %" PRIu64, sep, c, s->codes[c]);
        sep = ", ";
    }
    fputs("}", f);
}

static const char *protocol_name(const struct config *cfg)
{
    if (cfg->h3) return "h3";
    if (cfg->ws) return cfg->tls ? "wss" : "ws";
    return cfg->setup.h2 ? (cfg->tls ? "h2" : "h2c") : "http/1.1";
}

/* Header compression savings as h2load prints them: 1 - wire / decoded. */
static double header_savings(const struct stats *s)
{
    return s->header_bytes_decoded ? 100.0 * (1.0 - (double)s->header_bytes / (double)s->header_bytes_decoded) : 0.0;
}

/* SIGINT, SIGTERM: the signals that interrupt a run. */
static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* "fail_on": the thresholds and their verdicts (docs/metrics.md), or null. */
static void json_thresholds(FILE *f, const struct threshold_verdicts *tv)
{
    static const char *const units[] = {"count", "percent", "per_second", "us"};
    if (!tv->count) {
        fputs("  \"fail_on\": null,\n", f);
        return;
    }
    fprintf(f, "  \"fail_on\": {\"broken\": %u, \"thresholds\": [", tv->broken);
    for (unsigned i = 0; i < tv->count; i++) {
        const struct threshold_verdict *v = &tv->v[i];
        fputs(i ? ",\n    {\"item\": " : "\n    {\"item\": ", f);
        json_string(f, v->threshold->text);
        fputs(", \"figure\": ", f);
        json_string(f, v->threshold->figure);
        fprintf(f, ", \"op\": \"%s\", \"limit\": %.6g, \"unit\": \"%s\", \"value\": ",
                threshold_op_text(v->threshold->op), v->threshold->limit, units[v->threshold->unit]);
        if (v->measured) fprintf(f, "%.6f", v->value);
        else fputs("null", f);
        fprintf(f, ", \"broken\": %s}", v->broken ? "true" : "false");
    }
    fputs("\n  ]},\n", f);
}

/* --idle-connections: what became of them (null without). */
static void json_idle(FILE *f, const struct config *cfg, const struct stats *s)
{
    const struct stats_idle *i = &s->idle;
    if (!cfg->idle_connections) {
        fputs("  \"idle_connections\": null,\n", f);
        return;
    }
    fprintf(f, "  \"idle_connections\": {\"requested\": %" PRIu64 ", \"established\": %" PRIu64 ", \"peak\": %" PRIu64
               ", \"open_at_end\": %" PRIu64 ", \"connect_errors\": %" PRIu64 ", \"closed\": %" PRIu64
               ", \"ping_every_us\": %" PRIu64 ", \"pings\": %" PRIu64 "},\n",
            i->requested, i->established, i->peak, i->open_at_end, i->connect_errors, i->closed, cfg->idle_ping_us,
            i->pings);
}

static void report_json(const struct config *cfg, const struct run_result *r, long max_rss_kb)
{
    const struct stats *s = &r->stats;
    double seconds = (double)r->duration_us / 1e6;
    uint64_t requests = stats_requests(s);
    FILE *f = record_out ? record_out : stdout;
    fprintf(f, "{\n  \"tool\": \"barrage\", \"version\": \"%s\", \"protocol\": \"%s\",\n", BARRAGE_VERSION,
            protocol_name(cfg));
    /* the seed of the run's draws, given or drawn, so that a run can be repeated with --seed */
    if (config_seeded(cfg)) fprintf(f, "  \"seed\": %" PRIu64 ",\n", cfg->setup.seed);
    else fputs("  \"seed\": null,\n", f);
    if (cfg->tls)
        fprintf(f, "  \"tls\": {\"version\": \"%s\", \"verified\": %s},\n", cfg->setup.tls_version,
                cfg->insecure ? "false" : "true");
    if (cfg->setup.h2)
        fprintf(f, "  \"header_compression\": {\"wire_bytes\": %" PRIu64 ", \"decoded_bytes\": %" PRIu64
                   ", \"savings_percent\": %.2f},\n",
                s->header_bytes, s->header_bytes_decoded, header_savings(s));
    fprintf(f, "  \"started\": %" PRIu64 ", \"requests\": %" PRIu64 ", \"succeeded\": %" PRIu64
               ", \"failed\": %" PRIu64 ", \"aborted\": %" PRIu64 ", \"unexpected\": %" PRIu64 ",\n",
            s->started, requests, s->succeeded, stats_failed(s), s->aborted, s->unexpected);
    fprintf(f, "  \"status\": {\"2xx\": %" PRIu64 ", \"3xx\": %" PRIu64 ", \"4xx\": %" PRIu64 ", \"5xx\": %" PRIu64 ", ",
            stats_status_class(s, 2), stats_status_class(s, 3), stats_status_class(s, 4), stats_status_class(s, 5));
    json_codes(f, s);
    fputs("},\n  \"errors\": {", f);
    for (int i = 0; i < REQ_ERR_KINDS; i++) fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", error_names[i], s->errors[i]);
    fputs("},\n  \"errors_detail\": {", f);
    for (int i = 1; i < DETAIL_KINDS; i++) fprintf(f, "%s\"%s\": %" PRIu64, i > 1 ? ", " : "", detail_names[i], s->details[i]);
    fprintf(f, "},\n  \"connections\": {\"requested\": %u, \"connect_attempts\": %" PRIu64 ", \"connect_errors\": %" PRIu64
               ", \"established\": %" PRIu64 ", \"peak\": %" PRIu64 ", \"abandoned\": %" PRIu64
               ", \"tls_errors\": %" PRIu64 ", \"refused_streams\": %" PRIu64,
            cfg->connections, s->connect_attempts, s->connect_errors, s->established, s->peak, s->connects_abandoned,
            s->tls_errors, s->refused_streams);
    if (cfg->tls)
        fprintf(f, ", \"handshakes_full\": %" PRIu64 ", \"handshakes_resumed\": %" PRIu64 "},\n", s->handshakes_full,
                s->handshakes_resumed);
    else
        fputs(", \"handshakes_full\": null, \"handshakes_resumed\": null},\n", f);
    json_idle(f, cfg, s);
    fprintf(f, "  \"threads\": %u, \"pipeline\": %u, \"streams\": %u, \"server_max_streams\": ", cfg->threads,
            cfg->setup.h2 || cfg->h3 ? 1 : cfg->pipeline, cfg->setup.h2 || cfg->h3 ? cfg->pipeline : 1);
    if ((cfg->setup.h2 || cfg->h3) && s->server_max_streams) fprintf(f, "%" PRIu64 ",\n", s->server_max_streams);
    else fputs("null,\n", f);
    fprintf(f, "  \"duration_us\": %" PRIu64 ", \"rps\": %.3f, \"successful_rps\": %.3f, \"completed_in_grace\": %" PRIu64
               ",\n", r->duration_us, seconds > 0 ? (double)requests / seconds : 0.0,
            seconds > 0 ? (double)s->succeeded / seconds : 0.0, s->completed_in_grace);
    fprintf(f, "  \"bytes_received\": %" PRIu64 ", \"bytes_sent\": %" PRIu64 ", \"body_bytes\": %" PRIu64 ",\n",
            s->bytes_received, s->bytes_sent, s->body_bytes);
    fprintf(f, "  \"max_rss_kb\": %ld,\n", max_rss_kb);
    json_latency(f, "latency_us", &s->latency, 0);
    if (cfg->rate > 0) json_latency(f, "latency_uncorrected_us", &s->latency_uncorrected, 0);
    else fputs("  \"latency_uncorrected_us\": null,\n", f);
    json_latency(f, "error_latency_us", &s->error_latency, 0);
    json_latency(f, "connect_us", &s->connect, 0);
    json_latency(f, "ttfb_us", &s->ttfb, 0);
    json_kinds(f, s);
    json_checks(f, cfg, s);
    if (r->error[0]) {
        fputs("  \"error\": ", f);
        json_string(f, r->error);
        fputs(",\n", f);
    }
    if (r->interrupted) fprintf(f, "  \"interrupted\": \"%s\",\n", signal_name(r->interrupted));
    else fputs("  \"interrupted\": null,\n", f);
    if (cfg->rate > 0) {
        json_rate(f, cfg, r);
        json_latency(f, "schedule_lag_us", &s->schedule_lag, 0);
    } else {
        fputs("  \"rate\": null, \"schedule_lag_us\": null,\n", f);
    }
    json_histograms(f, cfg, s);
    json_timeline(f, cfg, "timeline", &r->timeline);
    json_warmup(f, cfg, r);
    json_jwt(f, &r->jwt);
    json_thresholds(f, &r->thresholds);
    json_quic(f, cfg, &r->libraries, s);
    json_ws(f, cfg, s);
    fputs("  \"accounting\": \"exact\"\n}\n", f);
    fflush(f);
}

/* 1234 us -> "1.23ms" */
static const char *fmt_us(char *buf, size_t len, double us)
{
    if (us < 1000) snprintf(buf, len, "%.0fus", us);
    else if (us < 1e6) snprintf(buf, len, "%.2fms", us / 1e3);
    else snprintf(buf, len, "%.2fs", us / 1e6);
    return buf;
}

static const char *fmt_bytes(char *buf, size_t len, double b)
{
    const char *units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%.2f%s", b, units[u]);
    return buf;
}

/* One line, then with --latency the percentile spectrum; nothing for an empty histogram. */
static void text_latency(const struct config *cfg, const char *title, const struct hist *h)
{
    char a[32], b[32], c[32];
    if (h->total == 0) return;
    char d[32], e[32];
    printf("  %s mean %s, stdev %s, p50 %s, p99 %s, max %s\n", title, fmt_us(a, sizeof a, hist_mean(h)),
           fmt_us(b, sizeof b, hist_stdev(h)), fmt_us(d, sizeof d, (double)hist_percentile(h, 50)),
           fmt_us(e, sizeof e, (double)hist_percentile(h, 99)), fmt_us(c, sizeof c, (double)h->max));
    if (!cfg->latency) return;
    static const double ps[] = {50, 75, 90, 99, 99.9, 99.99};
    printf("  %s Distribution\n", title);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        printf("  %7.2f%%  %s\n", ps[i], fmt_us(a, sizeof a, (double)hist_percentile(h, ps[i])));
    printf("  %7s   %s (min %s)\n", "max", fmt_us(a, sizeof a, (double)h->max), fmt_us(b, sizeof b, (double)h->min));
    if (h->overflow) printf("  %" PRIu64 " values above 1 hour\n", h->overflow);
}

/* One line per kind of request, when a script named kinds (a flow's steps). */
static void text_kinds(const struct stats *s, const char *label)
{
    char a[32], b[32];
    for (unsigned i = 0; i < STATS_MAX_KINDS && s->kinds[i]; i++) {
        const struct stats_kind *k = s->kinds[i];
        printf("  %s %s: %" PRIu64 " requests, succeeded %" PRIu64 ", failed %" PRIu64, label, k->name, k->requests,
               k->succeeded, k->failed);
        if (k->unexpected) printf(" (unexpected %" PRIu64 ")", k->unexpected);
        if (k->latency.total)
            printf("; latency mean %s, p99 %s", fmt_us(a, sizeof a, hist_mean(&k->latency)),
                   fmt_us(b, sizeof b, (double)hist_percentile(&k->latency, 99)));
        printf("\n");
    }
}

static uint64_t unexpected_class(const struct stats *s, int hundreds)
{
    uint64_t n = 0;
    for (int c = hundreds * 100; c < hundreds * 100 + 100; c++) n += s->unexpected_codes[c];
    return n;
}

/* The requests that ended in --grace, when they are more than 1% of the
 * requests: Requests/sec counts them, in a window they ran past. */
static void text_grace(const struct stats *s, double seconds)
{
    uint64_t requests = stats_requests(s);
    if (s->completed_in_grace * 100 <= requests) return;
    printf("  completed in the grace after the deadline: %" PRIu64 " (%.1f%% of the requests: counted in them and in "
           "Requests/sec, though they ended after the %.2fs window)\n",
           s->completed_in_grace, 100.0 * (double)s->completed_in_grace / (double)requests, seconds);
}

/* The unexpected responses by status (in no class of the Status line), on it. */
static void text_unexpected_codes(const struct stats *s)
{
    if (!s->unexpected) return;
    printf("; unexpected (failed a check, in no class above): 2xx %" PRIu64 ", 3xx %" PRIu64 ", 4xx %" PRIu64
           ", 5xx %" PRIu64 "; codes:", unexpected_class(s, 2), unexpected_class(s, 3), unexpected_class(s, 4),
           unexpected_class(s, 5));
    for (int c = 100; c < 600; c++)
        if (s->unexpected_codes[c]) printf(" %d=%" PRIu64, c, s->unexpected_codes[c]);
}

/* A flow time's line: mean, p50, p99, max; nothing when empty. */
static void text_flow_time(const char *title, const struct hist *h)
{
    char a[32], b[32], c[32], d[32];
    if (!h->total) return;
    printf("  %s: mean %s, p50 %s, p99 %s, max %s\n", title, fmt_us(a, sizeof a, hist_mean(h)),
           fmt_us(b, sizeof b, (double)hist_percentile(h, 50)), fmt_us(c, sizeof c, (double)hist_percentile(h, 99)),
           fmt_us(d, sizeof d, (double)h->max));
}

/* The flow's iterations, and the first unexpected responses. */
static void text_checks(const struct config *cfg, const struct stats *s)
{
    if (cfg->flow_file) {
        const struct stats_flow *fl = &s->flow;
        printf("  Flow: %u users; iterations %" PRIu64 ": completed %" PRIu64 ", FAILED %" PRIu64
               " (a capture that found nothing %" PRIu64 ", a request error %" PRIu64 ")\n",
               cfg->users, fl->completed + fl->capture_failed + fl->broken, fl->completed,
               fl->capture_failed + fl->broken, fl->capture_failed, fl->broken);
        text_flow_time("Flow iteration (first step ready to last answer)", &s->flow.iteration);
        text_flow_time(cfg->rate > 0 ? "Flow wait (user ready to request sent: queued for the schedule or a connection)"
                                     : "Flow wait (user ready to request sent: queued for a connection)",
                       &s->flow.wait);
    }
    for (unsigned i = 0; i < s->unexpected_examples; i++) {
        const struct stats_unexpected_example *e = &s->unexpected_example[i];
        printf("  Unexpected response %u: status %d%s%s, body '%s'\n", i + 1, e->status, e->step[0] ? ", step " : "",
               e->step, e->body);
    }
}

/* The open-loop lines: target and achieved rate, backlog, lag, changes, and a
 * plain sentence when the target was not delivered. */
static void text_rate(const struct config *cfg, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    const struct timeline *tl = &r->timeline;
    double seconds = r->duration_us > 0 ? (double)r->duration_us / 1e6 : 1e-9;
    char a[32], b[32], c[32], d[32], why[256];
    printf("  Rate: target %.2f/s (%s arrival", cfg->rate, cfg->poisson ? "poisson" : "even");
    if (cfg->poisson) printf(", seed %" PRIu64, cfg->setup.seed);
    printf("), achieved %.2f/s: %" PRIu64 " sent of %" PRIu64 " scheduled, %" PRIu64 " unsent; largest backlog %" PRIu64
           "\n", (double)s->started / seconds, s->started, s->scheduled, s->unsent, s->backlog_max);
    const struct hist *lag = &s->schedule_lag;
    if (lag->total)
        printf("  Schedule lag (scheduled to sent): p50 %s, p90 %s, p99 %s, max %s\n",
               fmt_us(a, sizeof a, (double)hist_percentile(lag, 50)), fmt_us(b, sizeof b, (double)hist_percentile(lag, 90)),
               fmt_us(c, sizeof c, (double)hist_percentile(lag, 99)), fmt_us(d, sizeof d, (double)lag->max));
    for (size_t i = 1; i < tl->nchanges; i++)
        printf("  Rate changed (--control) at %.3fs to %.2f/s\n",
               (double)(tl->changes[i].at_us - tl->measure_start) / 1e6, tl->changes[i].rate);
    if (cfg->stage_count) {
        printf("  Rate stages: from %.2f/s", cfg->stages_start_rate);
        for (unsigned i = 0; i < cfg->stage_count; i++)
            printf(", to %.2f/s over %.3fs", cfg->stages[i].rate, (double)cfg->stages[i].duration_us / 1e6);
        printf("\n");
    }
    long short_at = timeline_first_short(tl, RATE_SHORT_FRACTION);
    if (short_at >= 0)
        printf("  Delivery first fell short in second %.0f: %.2f/s sent of a %.2f/s target\n",
               (double)tl->entries[short_at].start_us / 1e6,
               (double)tl->entries[short_at].sent / ((double)tl->entries[short_at].length_us / 1e6),
               tl->entries[short_at].target_rate);
    const char *shortfall = rate_shortfall(s, why, sizeof why);
    if (shortfall) printf("  TARGET RATE NOT DELIVERED: %s\n", shortfall);
}

/* One line on the warm-up, when there was one. */
static void text_warmup(const struct config *cfg, const struct run_result *r)
{
    double seconds = (double)r->warmup.duration_us / 1e6;
    if (!cfg->warmup_us) return;
    if (!cfg->warmup_auto) {
        printf("  Warm-up: %.2fs (fixed), not measured\n", seconds);
        return;
    }
    const struct steady_rule *rule = steady_rule_for(cfg->rate > 0);
    if (r->warmup.steady)
        printf("  Warm-up: %.2fs, until steady state (%s: no trend beyond %.0f%%, spread within %.0f%%%s over %us)\n",
               seconds, rule->watched_text, rule->trend * 100, rule->spread * 100,
               rule->floor > 0 ? " or 1 ms" : "", rule->window);
    else
        printf("  Warm-up: %.2fs, STEADY STATE NOT REACHED (%s)\n", seconds,
               seconds + 0.5 >= (double)cfg->warmup_us / 1e6 ? "its cap ended it" : "the run stopped first");
}

/* --jwt-key: one line, the tokens and whether sending waited for one. */
static void text_jwt(const struct run_jwt *j)
{
    if (!j->on) return;
    printf("  JWT %s: %" PRIu64 " signed, %" PRIu64 " sent", j->alg, j->signed_count, j->taken);
    if (j->waited)
        printf(", %" PRIu64 " WAITED for a signature (the longest %" PRIu64 "us)", j->waited, j->wait_us_max);
    else
        printf(", none waited for a signature");
    if (j->stale) printf(", %" PRIu64 " dropped as stale", j->stale);
    printf("\n");
}

/* A --fail-on figure's value in its unit, for people: "1.234%", "35.21ms". */
static const char *fmt_figure(char *buf, size_t len, const struct threshold_verdict *v)
{
    if (!v->measured) snprintf(buf, len, "not measured");
    else if (v->threshold->unit == THRESHOLD_DURATION) fmt_us(buf, len, v->value);
    else if (v->threshold->unit == THRESHOLD_PERCENT) snprintf(buf, len, "%.3f%%", v->value);
    else if (v->threshold->unit == THRESHOLD_RATE) snprintf(buf, len, "%.2f/s", v->value);
    else snprintf(buf, len, "%.0f", v->value);
    return buf;
}

/* --fail-on: a line per threshold, the broken ones first said so. */
static void text_thresholds(const struct threshold_verdicts *tv)
{
    char a[64];
    if (!tv->count) return;
    printf("  Thresholds (--fail-on): %u of %u BROKEN%s\n", tv->broken, tv->count, tv->broken ? " (exit 5)" : "");
    for (unsigned i = 0; i < tv->count; i++)
        printf("    %-6s %s: %s %s\n", tv->v[i].broken ? "BROKEN" : "held", tv->v[i].threshold->text,
               tv->v[i].threshold->figure, fmt_figure(a, sizeof a, &tv->v[i]));
}

/* --fail-on with --json or -q: the broken thresholds on stderr, one line each. */
static void stderr_thresholds(const struct threshold_verdicts *tv)
{
    char a[64];
    for (unsigned i = 0; i < tv->count; i++)
        if (tv->v[i].broken)
            report_error("--fail-on: threshold %s broken: %s %s", tv->v[i].threshold->text, tv->v[i].threshold->figure,
                         fmt_figure(a, sizeof a, &tv->v[i]));
}

static void report_text(const struct config *cfg, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    double seconds = r->duration_us > 0 ? (double)r->duration_us / 1e6 : 1e-9;
    char a[32], b[32], c1[32], c2[32];
    printf("  Protocol: %s", protocol_name(cfg));
    if (cfg->tls) printf(" over TLS %s%s", cfg->setup.tls_version[0] ? cfg->setup.tls_version : "(no handshake)",
                         cfg->insecure ? ", certificate NOT verified (--insecure)" : "");
    if (cfg->setup.h2) printf("; header compression: %.2f%% saved", header_savings(s));
    if ((cfg->setup.h2 || cfg->h3) && s->server_max_streams)
        printf("; streams: -m %u, the server allows %" PRIu64 "%s", cfg->pipeline, s->server_max_streams,
               s->server_max_streams == UINT32_MAX ? " (no limit announced)" : "");
    printf("\n");
    if (cfg->rate > 0) {
        text_latency(cfg, "Latency (responses, from the schedule)", &s->latency);
        text_latency(cfg, "Latency (responses, from the send)    ", &s->latency_uncorrected);
    } else {
        text_latency(cfg, "Latency (responses)", &s->latency);
    }
    text_latency(cfg, "Latency (errors)   ", &s->error_latency);
    printf("  Connect   mean %s, max %s; time to first byte mean %s, p99 %s\n",
           fmt_us(a, sizeof a, hist_mean(&s->connect)), fmt_us(b, sizeof b, (double)s->connect.max),
           fmt_us(c1, sizeof c1, hist_mean(&s->ttfb)), fmt_us(c2, sizeof c2, (double)hist_percentile(&s->ttfb, 99)));
    if (cfg->rate > 0) text_rate(cfg, r);
    text_warmup(cfg, r);
    text_jwt(&r->jwt);
    printf("  %" PRIu64 " requests in %.2fs, %s read, %s body\n", stats_requests(s), seconds,
           fmt_bytes(a, sizeof a, (double)s->bytes_received), fmt_bytes(b, sizeof b, (double)s->body_bytes));
    printf("  succeeded %" PRIu64 ", failed %" PRIu64, s->succeeded, stats_failed(s));
    if (s->unexpected || cfg->expect_status_set || cfg->flow_file)
        printf(" (unexpected %" PRIu64 ": responses that failed a check)", s->unexpected);
    printf(", aborted %" PRIu64 " (in flight at the end)\n", s->aborted);
    text_grace(s, seconds);
    printf("  Status: 2xx %" PRIu64 ", 3xx %" PRIu64 ", 4xx %" PRIu64 ", 5xx %" PRIu64 "; codes:",
           stats_status_class(s, 2), stats_status_class(s, 3), stats_status_class(s, 4), stats_status_class(s, 5));
    for (int c = 100; c < 600; c++)
        if (s->codes[c]) printf(" %d=%" PRIu64, c, s->codes[c]);
    text_unexpected_codes(s);
    printf("\n  Errors: ");
    for (int i = 0; i < REQ_ERR_KINDS; i++) printf("%s%s %" PRIu64, i ? ", " : "", error_names[i], s->errors[i]);
    for (int i = 1; i < DETAIL_KINDS; i++)
        if (s->details[i]) printf("; %s %" PRIu64, detail_names[i], s->details[i]);
    printf("\n  Connections: requested %u, established %" PRIu64 ", peak %" PRIu64 ", attempts %" PRIu64
           ", connect errors %" PRIu64 "\n",
           cfg->connections, s->established, s->peak, s->connect_attempts, s->connect_errors);
    text_quic(cfg, s);
    text_ws(cfg, s);
    if (cfg->idle_connections)
        printf("  Idle connections: requested %" PRIu64 ", open at the end %" PRIu64 ", peak %" PRIu64
               ", established %" PRIu64 ", closed by the server %" PRIu64 ", connect errors %" PRIu64 "\n",
               s->idle.requested, s->idle.open_at_end, s->idle.peak, s->idle.established, s->idle.closed,
               s->idle.connect_errors);
    if (cfg->tls || cfg->setup.h2)
        printf("  TLS errors %" PRIu64 ", refused streams %" PRIu64 " (sent again)\n", s->tls_errors, s->refused_streams);
    if (cfg->tls)
        printf("  TLS handshakes: full %" PRIu64 ", resumed %" PRIu64 "%s; %.1f connections/s\n", s->handshakes_full,
               s->handshakes_resumed, cfg->tls_resume ? "" : " (--tls-resume off)",
               r->duration_us ? (double)s->established * 1e6 / (double)r->duration_us : 0.0);
    if (cfg->verbose)
        for (unsigned i = 0; i < s->samples; i++) printf("  Bad response sample %u: %s\n", i + 1, s->sample[i]);
    text_kinds(s, cfg->flow_file ? "Step" : "Kind");
    text_checks(cfg, s);
    if (r->error[0]) printf("  Stopped by a script error: %.*s\n", (int)strcspn(r->error, "\n"), r->error);
    if (r->interrupted)
        printf("  Interrupted by %s: what was measured in the %.2fs before it\n", signal_name(r->interrupted),
               (double)r->duration_us / 1e6);
    text_thresholds(&r->thresholds);
    printf("Requests/sec: %10.2f\nTransfer/sec: %10s\n", (double)stats_requests(s) / seconds,
           fmt_bytes(a, sizeof a, (double)s->bytes_received / seconds));
}

int report_divert_stdout(void)
{
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        if (f) fclose(f);
        else if (fd >= 0) close(fd);
        return -1;
    }
    record_out = f;
    setvbuf(stdout, NULL, _IOLBF, 0); /* what scripts print keeps its place among barrage's messages */
    return 0;
}

void report_start(const struct config *cfg)
{
    if (cfg->json || cfg->quiet) return;
    printf("Running ");
    if (cfg->duration_us) printf("%.2fs test", (double)cfg->duration_us / 1e6);
    if (cfg->requests) printf("%s%" PRIu64 " requests", cfg->duration_us ? " (or " : "", cfg->requests);
    printf("%s @ %s\n  %u threads and %u connections", cfg->duration_us && cfg->requests ? ")" : "", cfg->url,
           cfg->threads, cfg->connections);
    if (cfg->warmup_us) printf(", after a warm-up of %s%.2fs", cfg->warmup_auto ? "at most " : "",
                               (double)cfg->warmup_us / 1e6);
    printf("\n");
    fflush(stdout); /* before --live's lines on stderr */
}

void report_live(const struct config *cfg, const struct timeline_entry *e)
{
    char a[32], b[32], c[32], d[32];
    uint64_t errors = 0;
    for (int k = 0; k < REQ_ERR_KINDS; k++) errors += e->errors[k];
    fprintf(stderr, "[%6.1fs]%s sent %" PRIu64, (double)e->start_us / 1e6, e->in_grace ? " grace" : "", e->sent);
    if (e->target_rate >= 0) fprintf(stderr, " (target %.0f/s)", e->target_rate);
    fprintf(stderr, ", done %" PRIu64 ": ok %" PRIu64 ", failed %" PRIu64 " (errors %" PRIu64 ")", e->requests,
            e->succeeded, e->failed, errors);
    if (e->latency.present)
        fprintf(stderr, "; p50 %s p90 %s p99 %s max %s", fmt_us(a, sizeof a, (double)e->latency.p50),
                fmt_us(b, sizeof b, (double)e->latency.p90), fmt_us(c, sizeof c, (double)e->latency.p99),
                fmt_us(d, sizeof d, (double)e->latency.max));
    if (cfg->rate > 0 && e->uncorrected.present)
        fprintf(stderr, " (from the send: p99 %s)", fmt_us(a, sizeof a, (double)e->uncorrected.p99));
    fprintf(stderr, "; %" PRIu64 " connections\n", e->open_connections);
}

void report_run(const struct config *cfg, const struct run_result *r, long max_rss_kb)
{
    if (cfg->json) report_json(cfg, r, max_rss_kb);
    else if (!cfg->quiet) report_text(cfg, r);
    fflush(stdout);
    if (cfg->json || cfg->quiet) stderr_thresholds(&r->thresholds);
}
