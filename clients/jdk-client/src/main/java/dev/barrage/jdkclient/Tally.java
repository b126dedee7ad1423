package dev.barrage.jdkclient;

import java.net.http.HttpClient;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one worker (one in-flight request slot) counted in the measured window. Each call is
 * synchronized on the tally; {@link #close()} stops it at the end of the grace period, so that a
 * request ending after that is not counted at all: it stays started and is reported aborted.
 * That one lock per worker is what makes the totals exact (docs/metrics.md accounting) while
 * workers keep running. Latencies go to the shared histograms under the same lock.
 */
final class Tally {
    static final int MAX_DETAILS = 32;

    long started, requests, succeeded, completedInGrace, bodyBytes, connectErrors, http1, http2;
    final long[] codes = new long[600];
    final long[] errors = new long[Failure.ErrorKind.values().length];
    final Map<String, Long> details = new TreeMap<>();
    private boolean closed;

    /** A request starts in the window; false once the tally is closed (the run is over). */
    synchronized boolean begin() {
        if (closed) return false;
        started++;
        return true;
    }

    /** A final response with {@code status} (100-599) after {@code micros}. */
    synchronized void response(int status, HttpClient.Version version, long body, long micros, boolean inGrace,
                               Latencies latencies) {
        if (closed) return;
        requests++;
        if (status < 400) succeeded++;
        codes[status]++;
        bodyBytes += body;
        if (version == HttpClient.Version.HTTP_2) http2++;
        else http1++;
        if (inGrace) completedInGrace++;
        latencies.recordResponse(micros);
    }

    /** A request that became an error after {@code micros}; a connection error un-starts it. */
    synchronized void failure(Failure failure, long micros, boolean inGrace, Latencies latencies) {
        if (closed) return;
        details.merge(details.size() < MAX_DETAILS || details.containsKey(failure.detail())
                ? failure.detail() : "other", 1L, Long::sum);
        if (failure.kind() == null) {
            started--;
            connectErrors++;
            return;
        }
        requests++;
        errors[failure.kind().ordinal()]++;
        if (inGrace) completedInGrace++;
        latencies.recordError(micros);
    }

    /** Ends counting; what is started and not ended by now is aborted. */
    synchronized void close() { closed = true; }

    /** Adds another (closed) tally into this one. */
    synchronized void add(Tally other) {
        started += other.started;
        requests += other.requests;
        succeeded += other.succeeded;
        completedInGrace += other.completedInGrace;
        bodyBytes += other.bodyBytes;
        connectErrors += other.connectErrors;
        http1 += other.http1;
        http2 += other.http2;
        for (int i = 0; i < codes.length; i++) codes[i] += other.codes[i];
        for (int i = 0; i < errors.length; i++) errors[i] += other.errors[i];
        other.details.forEach((k, v) -> details.merge(k, v, Long::sum));
    }
}
