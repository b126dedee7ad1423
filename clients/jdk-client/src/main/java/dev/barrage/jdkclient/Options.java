package dev.barrage.jdkclient;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line (see {@link #USAGE}). {@link #parse} throws IllegalArgumentException with a
 * message for anything it cannot use; Main turns that into exit status 2.
 */
record Options(URI base, String protocol, int connections, int streams, double durationS,
               long requestCount, double warmupS, boolean warmupAuto, double timeoutS, double graceS,
               List<String> requests, Path body, String contentType, Path cacert) {

    /** --warmup auto's cap when it names none, as barrage's. */
    static final double DEFAULT_STEADY_CAP_S = 60;

    static final String USAGE = """
            usage: jdk-client --url http[s]://HOST:PORT --request 'METHOD PATH' [--request ...]
                              [--protocol h1|h2c|h1s|h2] [--connections C] [--streams S]
                              [--duration SECONDS | --requests N] [--warmup SECONDS | auto[:MAX]]
                              [--timeout SECONDS] [--grace SECONDS] [--body FILE] [--content-type TYPE]
                              [--cacert FILE]
            Closed loop: h1 and h1s (HTTP/1.1 over TLS) keep C requests in flight (one virtual
            thread each) on one HttpClient; h2c opens C HttpClients (one HTTP/2 connection each, set
            up by an Upgrade request before the run) and h2 (HTTP/2 over TLS, by ALPN) C HttpClients
            (one connection each, made by a request before the run), with S requests in flight on
            each. h1 and h2c take an http:// URL, h1s and h2 an https:// one, the server's
            certificate verified against the JDK's trust store, or against the PEM CA certificate(s)
            of --cacert instead. Each in-flight request rotates through the --request list. --body
            is sent with POST and PUT requests. --warmup auto[:MAX] warms up (this JVM and the
            server) until the successful requests/s are in steady state, the suite's rule
            (docs/steady-state.md), at most MAX seconds (default 60); the record's warmup says how
            long it took and whether it got there. Prints the metrics record (docs/metrics.md) as
            JSON on stdout.
            Exit: 0 record printed; 2 bad arguments; 3 cannot connect; 5 the server did not speak
            HTTP/2 (h2c: no upgrade; h2: ALPN chose HTTP/1.1).
            """;

    static Options parse(String[] args) {
        URI base = null;
        String protocol = "h1";
        int connections = 1, streams = 1;
        double duration = -1, warmup = 0, timeout = 2, grace = 2;
        boolean warmupAuto = false;
        long count = -1;
        List<String> requests = new ArrayList<>();
        Path body = null;
        String contentType = "application/json";
        Path cacert = null;
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException(name + " needs a value");
            String value = args[i + 1];
            switch (name) {
                case "--url" -> base = URI.create(value.endsWith("/") ? value.substring(0, value.length() - 1) : value);
                case "--protocol" -> protocol = value;
                case "--connections" -> connections = positiveInt(name, value);
                case "--streams" -> streams = positiveInt(name, value);
                case "--duration" -> duration = seconds(name, value);
                case "--requests" -> count = positiveInt(name, value);
                case "--warmup" -> {
                    warmupAuto = value.equals("auto") || value.startsWith("auto:");
                    warmup = !warmupAuto ? seconds(name, value)
                            : value.equals("auto") ? DEFAULT_STEADY_CAP_S : seconds(name, value.substring(5));
                    if (warmupAuto && warmup == 0) throw new IllegalArgumentException("--warmup auto:MAX needs a MAX above 0");
                }
                case "--timeout" -> timeout = seconds(name, value);
                case "--grace" -> grace = seconds(name, value);
                case "--request" -> requests.add(requestLine(value));
                case "--body" -> body = Path.of(value);
                case "--content-type" -> contentType = value;
                case "--cacert" -> cacert = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (!List.of("h1", "h2c", "h1s", "h2").contains(protocol))
            throw new IllegalArgumentException("--protocol is h1, h2c, h1s or h2, not " + protocol);
        String scheme = protocol.equals("h1s") || protocol.equals("h2") ? "https" : "http";
        if (base == null || !scheme.equals(base.getScheme()))
            throw new IllegalArgumentException("--url " + scheme + "://HOST:PORT is required (--protocol " + protocol + ")");
        if ((duration < 0) == (count < 0))
            throw new IllegalArgumentException("give one of --duration and --requests");
        if (duration == 0 || timeout <= 0)
            throw new IllegalArgumentException("--duration and --timeout must be more than 0");
        if (requests.isEmpty()) throw new IllegalArgumentException("at least one --request 'METHOD PATH'");
        Options options = new Options(base, protocol, connections, 1, duration, count,
                warmup, warmupAuto, timeout, grace, List.copyOf(requests), body, contentType, cacert);
        return options.http2() ? new Options(base, protocol, connections, streams, duration, count,
                warmup, warmupAuto, timeout, grace, List.copyOf(requests), body, contentType, cacert) : options;
    }

    /** HTTP/2 (h2c, h2): a client (connection) per connection, S streams on each. */
    boolean http2() { return protocol.equals("h2c") || protocol.equals("h2"); }

    /** Requests kept in flight at once: C on h1 and h1s, C x S on h2c and h2. */
    int concurrency() { return connections * streams; }

    private static int positiveInt(String name, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) return n;
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(name + " wants a positive integer, got " + value);
    }

    private static double seconds(String name, String value) {
        try {
            double s = Double.parseDouble(value.endsWith("s") ? value.substring(0, value.length() - 1) : value);
            if (s >= 0) return s;
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(name + " wants seconds, got " + value);
    }

    private static String requestLine(String value) {
        if (!value.matches("[A-Z]+ /\\S*")) throw new IllegalArgumentException("--request wants 'METHOD /path', got " + value);
        return value;
    }
}
