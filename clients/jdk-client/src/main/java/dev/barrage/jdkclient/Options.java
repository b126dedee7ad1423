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
               long requestCount, double warmupS, double timeoutS, double graceS,
               List<String> requests, Path body, String contentType) {

    static final String USAGE = """
            usage: jdk-client --url http://HOST:PORT --request 'METHOD PATH' [--request ...]
                              [--protocol h1|h2c] [--connections C] [--streams S]
                              [--duration SECONDS | --requests N] [--warmup SECONDS]
                              [--timeout SECONDS] [--grace SECONDS] [--body FILE] [--content-type TYPE]
            Closed loop: h1 keeps C requests in flight (one virtual thread each) on one HttpClient;
            h2c opens C HttpClients (one HTTP/2 connection each, set up by an Upgrade request before
            the run) with S requests in flight on each. Each in-flight request rotates through the
            --request list. --body is sent with POST and PUT requests. Prints the metrics record
            (docs/metrics.md) as JSON on stdout.
            Exit: 0 record printed; 2 bad arguments; 3 cannot connect; 5 the server did not upgrade to h2c.
            """;

    static Options parse(String[] args) {
        URI base = null;
        String protocol = "h1";
        int connections = 1, streams = 1;
        double duration = -1, warmup = 0, timeout = 2, grace = 2;
        long count = -1;
        List<String> requests = new ArrayList<>();
        Path body = null;
        String contentType = "application/json";
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
                case "--warmup" -> warmup = seconds(name, value);
                case "--timeout" -> timeout = seconds(name, value);
                case "--grace" -> grace = seconds(name, value);
                case "--request" -> requests.add(requestLine(value));
                case "--body" -> body = Path.of(value);
                case "--content-type" -> contentType = value;
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (base == null || !"http".equals(base.getScheme()))
            throw new IllegalArgumentException("--url http://HOST:PORT is required (cleartext only)");
        if (!protocol.equals("h1") && !protocol.equals("h2c"))
            throw new IllegalArgumentException("--protocol is h1 or h2c, not " + protocol);
        if ((duration < 0) == (count < 0))
            throw new IllegalArgumentException("give one of --duration and --requests");
        if (duration == 0 || timeout <= 0)
            throw new IllegalArgumentException("--duration and --timeout must be more than 0");
        if (requests.isEmpty()) throw new IllegalArgumentException("at least one --request 'METHOD PATH'");
        return new Options(base, protocol, connections, protocol.equals("h2c") ? streams : 1, duration, count,
                warmup, timeout, grace, List.copyOf(requests), body, contentType);
    }

    /** Requests kept in flight at once: C on h1, C x S on h2c. */
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
