/* Unit tests of reqlog.c (--log): the header and a line per completed
 * request, byte for byte; the step from HTTP/1.1 text, HTTP/2 fields and a
 * kind name, CSV-quoted, control bytes and long steps cut; aborted and
 * refused requests not written; entries reused; more lines than a buffer
 * holds written whole; the sample's share for a seed, the same seed the same
 * draws; a file that cannot be written fails the close with the lines lost. */
#include "../src/reqlog.c"

#include <math.h>
#include <stdlib.h>

#include "tap.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char buf[8 << 20];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    return buf;
}

static struct request text_request(const char *text)
{
    return (struct request){.text = (const uint8_t *)text, .text_len = strlen(text), .copies = 1, .kind = -1};
}

/* One request through begin and end with this outcome (a response that
 * passed its checks unless unexpected); the slot it had. */
static uint32_t one_checked(struct reqlog_writer *w, const struct request *req, unsigned conn, struct outcome o,
                            bool unexpected)
{
    uint32_t slot = reqlog_begin(w, req);
    struct req_ctx ctx = {.scheduled_us = 1000, .sent_us = 1000, .kind = req->kind, .measured = true, .log_slot = slot};
    if (slot) reqlog_end(w, slot, conn, &ctx, &o, !unexpected);
    return slot;
}

static uint32_t one(struct reqlog_writer *w, const struct request *req, unsigned conn, struct outcome o)
{
    return one_checked(w, req, conn, o, false);
}

static void test_lines(const char *dir)
{
    char path[512], err[768];
    snprintf(path, sizeof path, "%s/lines.csv", dir);
    struct reqlog *log = reqlog_open(path, 1, 1, err, sizeof err);
    log->wall_offset_us = 1700000000000000; /* start_unix_us = 1000 + this */
    struct reqlog_writer *w = reqlog_writer_new(log, 3);
    struct request h1 = text_request("GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    one(w, &h1, 2, outcome_response(200, 5, 1250));
    nghttp2_nv nv[] = {{(uint8_t *)":method", (uint8_t *)"POST", 7, 4, 0}, {(uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0},
                       {(uint8_t *)":path", (uint8_t *)"/x,\"y\"", 5, 6, 0}};
    struct request h2 = {.fields = nv, .field_count = 3, .copies = 1, .kind = -1};
    one(w, &h2, 0, outcome_error(REQ_ERR_TIMEOUT, DETAIL_NONE, 11000));
    struct request kind = text_request("GET / HTTP/1.1\r\n\r\n");
    kind.kind = 0;
    kind.kind_name = "login\nstep";
    one(w, &kind, 1, outcome_response(503, 0, 1001));
    uint32_t a = one(w, &h1, 0, outcome_of(OUTCOME_ABORTED));
    uint32_t b = one(w, &h1, 0, outcome_of(OUTCOME_REFUSED));
    struct request pipelined = {.text = h1.text, .text_len = 0, .copies = 1, .kind = -1};
    one(w, &pipelined, 0, outcome_response(204, 0, 1000));
    char long_target[600] = "GET /";
    memset(long_target + 5, 'z', 400);
    strcpy(long_target + 405, " HTTP/1.1\r\n\r\n");
    struct request longer = text_request(long_target);
    one(w, &longer, 0, outcome_response(200, 0, 2000));
    struct request step = text_request("GET /items/7 HTTP/1.1\r\n\r\n");
    step.kind = 1;
    step.kind_name = "read";
    step.user = 12;
    step.iteration = 3;
    one_checked(w, &step, 1, outcome_response(500, 4, 1500), true);
    step.iteration = 4;
    one(w, &step, 1, outcome_error(REQ_ERR_READ, DETAIL_NONE, 1200));
    TAP_CHECK(a == b && a != 0, "an aborted request's entry is reused by the next (%u, %u)", a, b);
    reqlog_writer_free(w);
    TAP_CHECK(reqlog_close(log, err, sizeof err) == 0, "closed whole");
    char want[2048];
    snprintf(want, sizeof want,
             REQLOG_HEADER "1700000000001000,3,2,GET /a?b=1,200,,250,5,,\n"
                           "1700000000001000,3,0,\"POST /x,\"\"y\"\"\",,timeout,10000,0,,\n"
                           "1700000000001000,3,1,login?step,503,,1,0,,\n"
                           "1700000000001000,3,0,-,204,,0,0,,\n"
                           "1700000000001000,3,0,GET /%.*s...,200,,1000,0,,\n"
                           "1700000000001000,3,1,read,500,unexpected,500,4,12,3\n"
                           "1700000000001000,3,1,read,,read,200,0,12,4\n",
             REQLOG_STEP_MAX - 8, long_target + 5);
    const char *got = slurp(path);
    TAP_CHECK(strcmp(got, want) == 0, "the lines byte for byte");
    if (strcmp(got, want)) printf("# got:\n%s# want:\n%s", got, want);
}

static void test_many(const char *dir)
{
    char path[512], err[768];
    snprintf(path, sizeof path, "%s/many.csv", dir);
    struct reqlog *log = reqlog_open(path, 1, 1, err, sizeof err);
    struct reqlog_writer *w1 = reqlog_writer_new(log, 0), *w2 = reqlog_writer_new(log, 1);
    struct request req = text_request("GET /many HTTP/1.1\r\n\r\n");
    for (int i = 0; i < 40000; i++) one(i % 3 ? w1 : w2, &req, (unsigned)i % 7, outcome_response(200, 123456, 99999));
    reqlog_writer_tick(w1);
    reqlog_writer_free(w1);
    reqlog_writer_free(w2);
    int rc = reqlog_close(log, err, sizeof err);
    const char *got = slurp(path);
    size_t lines = 0, bad = 0;
    for (const char *l = strchr(got, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        lines++;
        int fields = 1;
        for (const char *c = l; *c != '\n'; c++) fields += *c == ',';
        bad += fields != 10;
    }
    TAP_CHECK(rc == 0 && lines == 40000 && bad == 0,
              "40,000 lines from two writers (several buffers each): all there, all whole (%zu, %zu bad)", lines, bad);
}

static void test_sample(const char *dir)
{
    char path[512], err[768];
    snprintf(path, sizeof path, "%s/sample.csv", dir);
    unsigned drawn[3] = {0};
    uint64_t seeds[3] = {42, 42, 43};
    uint32_t first[3][64];
    for (int run = 0; run < 3; run++) {
        struct reqlog *log = reqlog_open(path, 0.01, seeds[run], err, sizeof err);
        struct reqlog_writer *w = reqlog_writer_new(log, 0);
        struct request req = text_request("GET / HTTP/1.1\r\n\r\n");
        unsigned k = 0;
        for (uint32_t i = 0; i < 1000000; i++) {
            if (!one(w, &req, 0, outcome_response(200, 0, 1000))) continue;
            if (k < 64) first[run][k] = i;
            k++;
        }
        drawn[run] = k;
        reqlog_writer_free(w);
        reqlog_close(log, err, sizeof err);
    }
    double sigma = sqrt(1e6 * 0.01 * 0.99);
    TAP_CHECK(fabs(drawn[0] - 10000.0) < 5 * sigma, "--log-sample 0.01 of 1,000,000: %u drawn (within 5 sigma)", drawn[0]);
    TAP_CHECK(drawn[0] == drawn[1] && !memcmp(first[0], first[1], sizeof first[0]), "the same seed, the same draws");
    TAP_CHECK(memcmp(first[0], first[2], sizeof first[0]) != 0, "another seed, other draws");
}

static void test_failure(void)
{
    char err[768];
    struct reqlog *log = reqlog_open("/dev/full", 1, 1, err, sizeof err);
    if (!log) {
        TAP_CHECK(0, "open /dev/full: %s", err);
        return;
    }
    struct reqlog_writer *w = reqlog_writer_new(log, 0);
    struct request req = text_request("GET / HTTP/1.1\r\n\r\n");
    for (int i = 0; i < 10; i++) one(w, &req, 0, outcome_response(200, 0, 1000));
    reqlog_writer_free(w);
    int rc = reqlog_close(log, err, sizeof err);
    TAP_CHECK(rc == -1 && strstr(err, "--log /dev/full: could not be written whole") && strstr(err, "10 lines lost"),
              "a full disk fails the log, saying how many lines were lost: %s", err);
    TAP_CHECK(reqlog_open("/nonexistent-dir/x.csv", 1, 1, err, sizeof err) == NULL &&
                  strstr(err, "--log /nonexistent-dir/x.csv: No such file"),
              "a path that cannot be opened: %s", err);
}

int main(void)
{
    char dir[] = "/tmp/test_reqlog.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    test_lines(dir);
    test_many(dir);
    test_sample(dir);
    test_failure();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
    TAP_EXIT();
}
