package dev.barrage.jdkclient;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The run's two histograms (docs/metrics.md: latency_us of final responses, error_latency_us of
 * errored requests), in microseconds, shared by all workers: HdrHistogram's ConcurrentHistogram
 * takes concurrent recordings without a lock. Values above {@link #HIGHEST_US} are counted in
 * overflow instead.
 */
final class Latencies {
    static final long HIGHEST_US = 3_600_000_000L;

    final Histogram responses = new ConcurrentHistogram(1, HIGHEST_US, 3);
    final Histogram errors = new ConcurrentHistogram(1, HIGHEST_US, 3);
    private final AtomicLong responsesOverflow = new AtomicLong();
    private final AtomicLong errorsOverflow = new AtomicLong();

    void recordResponse(long micros) { record(responses, responsesOverflow, micros); }

    void recordError(long micros) { record(errors, errorsOverflow, micros); }

    long responsesOverflow() { return responsesOverflow.get(); }

    long errorsOverflow() { return errorsOverflow.get(); }

    private static void record(Histogram histogram, AtomicLong overflow, long micros) {
        if (micros > HIGHEST_US) overflow.incrementAndGet();
        else histogram.recordValue(micros);
    }
}
