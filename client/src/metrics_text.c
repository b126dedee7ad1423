/* metrics_text: running totals and their Prometheus text (metrics_text.h). */
#include "metrics_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double metrics_bucket_bound_us(unsigned k)
{
    return exp2((double)k / METRICS_BUCKETS_PER_DOUBLING);
}

unsigned metrics_bucket_of(uint64_t value_us)
{
    if (value_us <= 1) return 0;
    /* the estimate from the logarithm, then corrected: rounding must not move a value across a bound */
    double est = ceil(log2((double)value_us) * METRICS_BUCKETS_PER_DOUBLING);
    unsigned k = est >= METRICS_BUCKETS ? METRICS_BUCKETS : (unsigned)est;
    while (k > 0 && (double)value_us <= metrics_bucket_bound_us(k - 1)) k--;
    while (k < METRICS_BUCKETS && (double)value_us > metrics_bucket_bound_us(k)) k++;
    return k;
}

void metrics_totals_add(struct metrics_totals *t, const struct interval *m)
{
    t->sent += m->sent;
    t->succeeded += m->succeeded;
    t->status_4xx += m->status_4xx;
    t->status_5xx += m->status_5xx;
    t->unexpected += m->unexpected;
    for (int i = 0; i < REQ_ERR_KINDS; i++) t->errors[i] += m->errors[i];
    t->bytes_sent += m->bytes_sent;
    t->bytes_received += m->bytes_received;
    t->connections_opened += m->new_connections;
    t->connections_closed += m->closed_connections;
    t->open_connections = m->open_connections;
    t->in_flight = m->in_flight;
    t->lag_count += m->lag_count;
    t->lag_sum_us += (double)m->lag_sum_us;
    const struct hist *h = &m->latency;
    if (h->total) {
        for (size_t i = 0; i < HIST_COUNTS_LEN; i++) {
            if (!h->counts[i]) continue;
            /* the slot's highest value, as hist_percentile reports it */
            unsigned k = metrics_bucket_of(hist_highest_at(i));
            if (k < METRICS_BUCKETS) t->buckets[k] += h->counts[i];
        }
        t->latency_count += h->total;
        t->latency_sum_us += h->sum;
    }
    t->seconds++;
}

static const char *const error_names[REQ_ERR_KINDS] = {"timeout", "read", "write", "protocol", "reset"};

/* One metric of one value: its HELP and TYPE lines, then the value. */
static void render_value(FILE *f, const char *name, const char *type, const char *help, uint64_t value)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help, name, type, name, (unsigned long long)value);
}

static void render_counters(FILE *f, const struct metrics_totals *t)
{
    fprintf(f, "# HELP barrage_requests_total Requests of the measured phase that ended, by outcome "
               "(success: a status below 400; http_4xx, http_5xx; unexpected: failed a check; the rest are errors).\n"
               "# TYPE barrage_requests_total counter\n");
    fprintf(f, "barrage_requests_total{outcome=\"success\"} %llu\n", (unsigned long long)t->succeeded);
    fprintf(f, "barrage_requests_total{outcome=\"http_4xx\"} %llu\n", (unsigned long long)t->status_4xx);
    fprintf(f, "barrage_requests_total{outcome=\"http_5xx\"} %llu\n", (unsigned long long)t->status_5xx);
    fprintf(f, "barrage_requests_total{outcome=\"unexpected\"} %llu\n", (unsigned long long)t->unexpected);
    for (int i = 0; i < REQ_ERR_KINDS; i++)
        fprintf(f, "barrage_requests_total{outcome=\"%s\"} %llu\n", error_names[i], (unsigned long long)t->errors[i]);
    render_value(f, "barrage_requests_sent_total", "counter", "Requests written in the measured phase.", t->sent);
    render_value(f, "barrage_sent_bytes_total", "counter", "Bytes written to the load connections.", t->bytes_sent);
    render_value(f, "barrage_received_bytes_total", "counter", "Bytes read from the load connections.", t->bytes_received);
    render_value(f, "barrage_connections_opened_total", "counter", "Load connections established.", t->connections_opened);
    render_value(f, "barrage_connections_closed_total", "counter", "Established load connections that closed.", t->connections_closed);
}

static void render_gauges(FILE *f, const struct metrics_totals *t)
{
    render_value(f, "barrage_connections_open", "gauge", "Load connections open at the last second's end.", t->open_connections);
    render_value(f, "barrage_requests_in_flight", "gauge", "Requests sent and not yet ended at the last second's end.", t->in_flight);
    fprintf(f, "# HELP barrage_schedule_lag_seconds From a request's scheduled time to its send (-R only).\n"
               "# TYPE barrage_schedule_lag_seconds summary\n"
               "barrage_schedule_lag_seconds_sum %.9g\nbarrage_schedule_lag_seconds_count %llu\n",
            t->lag_sum_us / 1e6, (unsigned long long)t->lag_count);
    render_value(f, "barrage_measured_seconds", "gauge", "Seconds of the measured phase merged so far.", t->seconds);
    fprintf(f, "# HELP barrage_run_finished 1 once the figures are the run's final ones.\n"
               "# TYPE barrage_run_finished gauge\nbarrage_run_finished %d\n", t->finished ? 1 : 0);
}

/* Cumulative: each bucket counts every latency at or below its bound; +Inf is the count. */
static void render_latency(FILE *f, const struct metrics_totals *t)
{
    fprintf(f, "# HELP barrage_latency_seconds Latency of final responses (open loop: from the scheduled time); "
               "buckets 2^(1/8) apart, so a quantile is within 9.1%%.\n"
               "# TYPE barrage_latency_seconds histogram\n");
    uint64_t cumulative = 0;
    for (unsigned k = 0; k < METRICS_BUCKETS; k++) {
        cumulative += t->buckets[k];
        fprintf(f, "barrage_latency_seconds_bucket{le=\"%.9g\"} %llu\n", metrics_bucket_bound_us(k) / 1e6,
                (unsigned long long)cumulative);
    }
    fprintf(f, "barrage_latency_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)t->latency_count);
    fprintf(f, "barrage_latency_seconds_sum %.9g\nbarrage_latency_seconds_count %llu\n", t->latency_sum_us / 1e6,
            (unsigned long long)t->latency_count);
}

char *metrics_render(const struct metrics_totals *t, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) return NULL;
    render_counters(f, t);
    render_gauges(f, t);
    render_latency(f, t);
    if (ferror(f) | fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
