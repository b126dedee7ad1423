package dev.barrage.jdkclient;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One closed-loop run: the clients, one priming request per client, then one virtual thread per
 * in-flight request, the warm-up (not counted), the measured window and its grace period.
 * With --warmup auto the warm-up lasts until the successful requests/s of its whole seconds are
 * in steady state ({@link Steady}), at most its cap: the window starts then.
 * A request belongs to the window when it starts in it (after the warm-up, before the deadline);
 * one still in flight when the grace ends is aborted. With a request count instead of a
 * duration, the window ends when the last counted request ends.
 */
final class LoadRun {
    /** The run's totals; durationNanos is the measured window. */
    record Result(Tally total, Latencies latencies, long durationNanos, int primeRequests, boolean timed,
                  Warmup warmup) { }

    /** How the warm-up went: its length, and (auto) whether steady state ended it; its seconds' rates. */
    record Warmup(long nanos, Boolean steady, double[] perSecond) { }

    /** The target could not be reached (exit 3) or would not speak h2c (exit 5). */
    static final class SetupFailure extends Exception {
        private static final long serialVersionUID = 1L;
        final int exitStatus;

        SetupFailure(int exitStatus, String message) {
            super(message);
            this.exitStatus = exitStatus;
        }
    }

    private static final long CONNECT_RETRY_MILLIS = 10;

    private final Options options;
    private final RequestMix mix;
    private final Latencies latencies = new Latencies();
    private final long timeoutNanos;
    /** Where the measured window starts and ends (System.nanoTime): moved once by an auto warm-up. */
    private volatile long windowStart, deadline;
    /** Successful responses of the warm-up, read once a second by an auto warm-up. */
    private final LongAdder warmupSucceeded = new LongAdder();

    LoadRun(Options options, RequestMix mix) {
        this.options = options;
        this.mix = mix;
        this.timeoutNanos = (long) (options.timeoutS() * 1e9);
    }

    Result run() throws InterruptedException, SetupFailure {
        List<HttpClient> clients = openClients();
        boolean timed = options.durationS() > 0;
        int slots = options.concurrency();
        Tally[] tallies = new Tally[slots];
        Thread[] workers = new Thread[slots];
        AtomicLong tickets = new AtomicLong(options.requestCount());
        AtomicLong lastEnd = new AtomicLong();
        long runStart = System.nanoTime();
        windowStart = runStart + (long) (options.warmupS() * 1e9);
        deadline = timed ? windowStart + (long) (options.durationS() * 1e9) : Long.MAX_VALUE;
        for (int slot = 0; slot < slots; slot++) {
            Tally tally = tallies[slot] = new Tally();
            // h1: one client for every slot; h2c: a client (connection) per S slots
            HttpClient client = clients.get(clients.size() == 1 ? 0 : slot / options.streams());
            int offset = slot % mix.size();
            workers[slot] = Thread.ofVirtual().name("slot-" + slot).start(() ->
                    loop(client, offset, tally, timed ? null : tickets, lastEnd));
        }
        Warmup warmup = options.warmupAuto() ? warmUntilSteady(runStart, timed)
                : new Warmup(windowStart - runStart, null, new double[0]);
        long end = timed ? deadline + (long) (options.graceS() * 1e9) : Long.MAX_VALUE;
        for (Thread worker : workers) {
            long left = end - System.nanoTime();
            if (!timed) worker.join();
            else if (left > 0) worker.join(Duration.ofNanos(left));
        }
        Tally total = new Tally();
        for (Tally tally : tallies) {
            tally.close();
            total.add(tally);
        }
        long duration = timed ? deadline - windowStart : Math.max(0, lastEnd.get() - windowStart);
        return new Result(total, latencies, duration, clients.size(), timed, warmup);
    }

    /**
     * The auto warm-up, on the calling thread while the workers run: each whole second's successful
     * requests/s, until the last {@link Steady#WINDOW} pass the rule or the cap (windowStart as set)
     * comes; then the window starts at once (windowStart, deadline moved to now).
     */
    private Warmup warmUntilSteady(long runStart, boolean timed) throws InterruptedException {
        long cap = windowStart;
        double[] perSecond = new double[(int) Math.ceil(options.warmupS()) + 1];
        int seconds = 0;
        long last = 0;
        boolean steady = false;
        while (!steady) {
            long next = runStart + (seconds + 1) * 1_000_000_000L;
            if (next - cap > 0) break;
            long wait = next - System.nanoTime();
            if (wait > 0) Thread.sleep(Duration.ofNanos(wait));
            long now = warmupSucceeded.sum();
            perSecond[seconds++] = now - last;
            last = now;
            steady = Steady.reached(perSecond, seconds);
        }
        if (steady) {
            long start = System.nanoTime();
            // the deadline first: a worker that sees the new start sees a deadline after it
            deadline = timed ? start + (long) (options.durationS() * 1e9) : Long.MAX_VALUE;
            windowStart = start;
        } else {
            long wait = cap - System.nanoTime();
            if (wait > 0) Thread.sleep(Duration.ofNanos(wait));
        }
        return new Warmup(windowStart - runStart, steady, Arrays.copyOf(perSecond, seconds));
    }

    /**
     * h1: one client; its connection pool opens a connection per request in flight. h2c: a client
     * per connection, as java.net.http keeps one HTTP/2 connection per origin and client. Each
     * client sends one request before the run: it checks that the server answers and, on h2c,
     * makes the client's one connection by Upgrade (java.net.http has no prior knowledge; the
     * Upgrade request is HTTP/1.1, so it stays out of the window).
     */
    private List<HttpClient> openClients() throws InterruptedException, SetupFailure {
        boolean h2c = options.protocol().equals("h2c");
        boolean http2 = options.http2();
        int count = http2 ? options.connections() : 1;
        HttpRequest prime = mix.prime();
        SSLContext tls = Trust.context(options.cacert());
        List<HttpClient> clients = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            HttpClient.Builder builder = HttpClient.newBuilder()
                    .version(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                    .executor(Executors.newVirtualThreadPerTaskExecutor())
                    .connectTimeout(Duration.ofNanos(timeoutNanos))
                    // a 3xx is a response to count, as every tool of the suite counts it
                    .followRedirects(HttpClient.Redirect.NEVER);
            if (tls != null) builder.sslContext(tls);
            HttpClient client = builder.build();
            HttpResponse<Long> response = null;
            try {
                response = client.send(prime, CountingBody.HANDLER);
            } catch (IOException e) {
                Failure failure = Failure.of(e);
                if (failure.kind() == null)
                    throw new SetupFailure(3, "cannot connect to " + options.base() + ": " + failure.detail());
                // h1: the server is there, and what it does to requests is what the run measures
                if (h2c) throw new SetupFailure(5, "the h2c Upgrade request failed: " + failure.detail());
                if (http2) throw new SetupFailure(5, "the first h2 request failed: " + failure.detail());
            }
            if (h2c && response.version() != HttpClient.Version.HTTP_2)
                throw new SetupFailure(5, options.base() + " did not upgrade to h2c (" + prime.method() + " "
                        + prime.uri().getPath() + " answered " + response.statusCode() + " over HTTP/1.1);"
                        + " java.net.http speaks h2c only by Upgrade");
            if (http2 && !h2c && response.version() != HttpClient.Version.HTTP_2)
                throw new SetupFailure(5, options.base() + " did not choose h2 by ALPN (" + prime.method() + " "
                        + prime.uri().getPath() + " answered " + response.statusCode() + " over HTTP/1.1)");
            clients.add(client);
        }
        return clients;
    }

    /** One in-flight slot: sends, waits, counts, again, until the deadline or the last ticket. */
    private void loop(HttpClient client, int offset, Tally tally, AtomicLong tickets, AtomicLong lastEnd) {
        for (long index = 0; ; index++) {
            long start = System.nanoTime();
            boolean timed = tickets == null;
            if (timed && start - deadline >= 0) return;
            boolean counted = start - windowStart >= 0;
            if (counted && tickets != null && tickets.getAndDecrement() <= 0) return;
            if (counted && !tally.begin()) return;
            CompletableFuture<HttpResponse<Long>> exchange = client.sendAsync(mix.get(offset, index), CountingBody.HANDLER);
            HttpResponse<Long> response = null;
            Failure failure;
            try {
                response = exchange.get(timeoutNanos, TimeUnit.NANOSECONDS);
                failure = response.statusCode() < 100 || response.statusCode() > 599
                        ? Failure.badStatus(response.statusCode()) : null;
            } catch (ExecutionException e) {
                failure = Failure.of(e.getCause());
            } catch (TimeoutException e) {
                exchange.cancel(true);
                failure = new Failure(Failure.ErrorKind.TIMEOUT, "no complete response within the timeout");
            } catch (InterruptedException e) {
                exchange.cancel(true);
                return;
            }
            long end = System.nanoTime();
            if (!counted) {
                if (failure == null && response.statusCode() < 400) warmupSucceeded.increment();
                continue;
            }
            lastEnd.accumulateAndGet(end, Math::max);
            long micros = (end - start) / 1000;
            boolean inGrace = timed && end - deadline > 0;
            if (failure == null) {
                tally.response(response.statusCode(), response.version(), response.body(), micros, inGrace, latencies);
            } else {
                tally.failure(failure, micros, inGrace, latencies);
                if (failure.kind() == null) {
                    // not a request (no byte was written): its ticket goes back
                    if (!timed) tickets.incrementAndGet();
                    if (!pause()) return;
                }
            }
        }
    }

    /** After a refused connection: a short pause, so that a dead server is not hammered. */
    private static boolean pause() {
        try {
            Thread.sleep(CONNECT_RETRY_MILLIS);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
