package dev.barrage.jdkclient;

import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/**
 * The metrics record of docs/metrics.md as one JSON object, with jdk-client's own fields:
 * tool, version, protocol, started, prime_requests, response_versions (responses by the HTTP
 * version java.net.http reports), warmup (as barrage's: mode, seconds, max_seconds, steady, rule;
 * and successful_rps, the auto warm-up's whole seconds), exceptions (what it threw, by type and message) and
 * histograms (as barrage writes them, so records merge). What java.net.http does not expose is
 * null: wire bytes (only body bytes are seen: body_bytes_received), connection counts other
 * than connect errors, refused streams (it resends them itself).
 */
final class MetricsRecord {
    /** The pom's version, from the jar's manifest. */
    static final String VERSION = String.valueOf(MetricsRecord.class.getPackage().getImplementationVersion());

    private MetricsRecord() { }

    static String json(Options options, LoadRun.Result result) {
        Tally t = result.total();
        double seconds = result.durationNanos() / 1e9;
        long failed = t.requests - t.succeeded;
        StringBuilder json = new StringBuilder(2048);
        json.append("{\"tool\":\"jdk-client\",\"version\":\"").append(VERSION)
                .append("\",\"java\":\"").append(Runtime.version())
                .append("\",\"protocol\":\"").append(options.protocol())
                .append("\",\"requests\":").append(t.requests)
                .append(",\"succeeded\":").append(t.succeeded)
                .append(",\"failed\":").append(failed)
                .append(",\"aborted\":").append(t.started - t.requests)
                .append(",\"started\":").append(t.started)
                .append(",\"prime_requests\":").append(result.primeRequests())
                .append(",\"status\":{").append(classes(t.codes)).append(",\"codes\":").append(codes(t.codes)).append('}')
                .append(",\"errors\":{");
        Failure.ErrorKind[] kinds = Failure.ErrorKind.values();
        for (Failure.ErrorKind kind : kinds) {
            json.append(kind.ordinal() == 0 ? "" : ",").append('"').append(kind.name().toLowerCase(Locale.ROOT))
                    .append("\":").append(t.errors[kind.ordinal()]);
        }
        json.append("},\"connections\":{\"connect_attempts\":null,\"connect_errors\":").append(t.connectErrors)
                .append(",\"established\":null,\"peak\":null,\"tls_errors\":null,\"refused_streams\":null}")
                .append(",\"duration_us\":").append(result.durationNanos() / 1000)
                .append(",\"rps\":").append(rate(t.requests, seconds))
                .append(",\"successful_rps\":").append(rate(t.succeeded, seconds))
                .append(",\"completed_in_grace\":").append(result.timed() ? String.valueOf(t.completedInGrace) : "null")
                .append(",\"bytes_received\":null,\"bytes_sent\":null")
                .append(",\"body_bytes_received\":").append(t.bodyBytes)
                .append(",\"response_versions\":{\"HTTP/1.1\":").append(t.http1).append(",\"HTTP/2\":").append(t.http2).append('}')
                .append(",\"latency_us\":").append(latency(result.latencies().responses, result.latencies().responsesOverflow()))
                .append(",\"error_latency_us\":").append(latency(result.latencies().errors, result.latencies().errorsOverflow()))
                .append(",\"histograms\":{\"encoding\":\"HdrHistogram V2 compressed, base64; microseconds\",\"latency_us\":")
                .append(encoded(result.latencies().responses)).append(",\"latency_uncorrected_us\":null,\"error_latency_us\":")
                .append(encoded(result.latencies().errors)).append('}')
                .append(",\"warmup\":").append(warmup(options, result.warmup()))
                .append(",\"exceptions\":{");
        String separator = "";
        for (Map.Entry<String, Long> detail : t.details.entrySet()) {
            json.append(separator).append(quoted(detail.getKey())).append(':').append(detail.getValue());
            separator = ",";
        }
        return json.append("},\"accounting\":\"exact\"}").toString();
    }

    /** The warm-up object: barrage's fields (docs/metrics.md), with its seconds' rates when auto. */
    private static String warmup(Options options, LoadRun.Warmup warmup) {
        String seconds = String.format(Locale.ROOT, "%.3f", warmup.nanos() / 1e9);
        if (!options.warmupAuto()) {
            return "{\"mode\":\"" + (options.warmupS() > 0 ? "fixed" : "none") + "\",\"seconds\":" + seconds
                    + ",\"max_seconds\":null,\"steady\":null,\"rule\":null,\"successful_rps\":null}";
        }
        StringBuilder rates = new StringBuilder("[");
        for (double rate : warmup.perSecond())
            rates.append(rates.length() > 1 ? "," : "").append(String.format(Locale.ROOT, "%.0f", rate));
        return String.format(Locale.ROOT, "{\"mode\":\"auto\",\"seconds\":%s,\"max_seconds\":%.3f,\"steady\":%s,"
                        + "\"rule\":{\"watched\":\"successful_rps\",\"window_s\":%d,\"trend\":%.3f,\"spread\":%.3f,\"floor\":0},"
                        + "\"successful_rps\":%s]}",
                seconds, options.warmupS(), warmup.steady(), Steady.WINDOW, Steady.TOLERANCE, Steady.TOLERANCE, rates);
    }

    private static String classes(long[] codes) {
        long[] byClass = new long[6];
        for (int code = 100; code < codes.length; code++) byClass[code / 100] += codes[code];
        return "\"2xx\":" + byClass[2] + ",\"3xx\":" + byClass[3] + ",\"4xx\":" + byClass[4] + ",\"5xx\":" + byClass[5];
    }

    private static String codes(long[] codes) {
        StringBuilder json = new StringBuilder("{");
        for (int code = 100; code < codes.length; code++) {
            if (codes[code] == 0) continue;
            json.append(json.length() > 1 ? "," : "").append('"').append(code).append("\":").append(codes[code]);
        }
        return json.append('}').toString();
    }

    private static String rate(long count, double seconds) {
        return seconds > 0 ? String.format(Locale.ROOT, "%.3f", count / seconds) : "0";
    }

    /** A latency object, or null when nothing was measured. */
    private static String latency(Histogram h, long overflow) {
        if (h.getTotalCount() == 0 && overflow == 0) return "null";
        if (h.getTotalCount() == 0) {
            return "{\"min\":null,\"mean\":null,\"stdev\":null,\"p50\":null,\"p75\":null,\"p90\":null,\"p99\":null,"
                    + "\"p999\":null,\"p9999\":null,\"max\":null,\"overflow\":" + overflow + "}";
        }
        return String.format(Locale.ROOT, "{\"min\":%d,\"mean\":%.3f,\"stdev\":%.3f,\"p50\":%d,\"p75\":%d,\"p90\":%d,"
                        + "\"p99\":%d,\"p999\":%d,\"p9999\":%d,\"max\":%d,\"overflow\":%d}",
                h.getMinValue(), h.getMean(), h.getStdDeviation(), h.getValueAtPercentile(50), h.getValueAtPercentile(75),
                h.getValueAtPercentile(90), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                h.getValueAtPercentile(99.99), h.getMaxValue(), overflow);
    }

    /** HdrHistogram's V2 compressed encoding in base64 (as barrage writes it), or null when empty. */
    private static String encoded(Histogram h) {
        if (h.getTotalCount() == 0) return "null";
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes, 0, length);
        return '"' + Base64.getEncoder().encodeToString(bytes) + '"';
    }

    private static String quoted(String text) {
        StringBuilder json = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') json.append('\\').append(c);
            else if (c < 0x20) json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            else json.append(c);
        }
        return json.append('"').toString();
    }
}
