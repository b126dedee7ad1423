package dev.barrage.jdkclient;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

/**
 * The requests a run rotates through, built once (HttpRequest is immutable and reusable): each
 * in-flight slot starts at its own offset so that the mix is even from the first round.
 */
final class RequestMix {
    private final HttpRequest[] requests;
    private final URI base;
    private final Duration timeout;

    RequestMix(Options options) throws IOException {
        base = options.base();
        timeout = Duration.ofNanos((long) (options.timeoutS() * 1e9));
        byte[] body = options.body() == null ? null : Files.readAllBytes(options.body());
        List<String> lines = options.requests();
        requests = new HttpRequest[lines.size()];
        for (int i = 0; i < requests.length; i++) {
            String[] parts = lines.get(i).split(" ", 2);
            String method = parts[0];
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(options.base() + parts[1]))
                    .timeout(timeout);
            boolean withBody = body != null && (method.equals("POST") || method.equals("PUT"));
            if (withBody) builder.header("Content-Type", options.contentType());
            builder.method(method, withBody ? HttpRequest.BodyPublishers.ofByteArray(body)
                    : HttpRequest.BodyPublishers.noBody());
            requests[i] = builder.build();
        }
    }

    /** The request number {@code index} of a slot whose rotation starts at {@code offset}. */
    HttpRequest get(int offset, long index) {
        return requests[(int) ((offset + index) % requests.length)];
    }

    int size() { return requests.length; }

    /** The request that sets up a connection before the run: the mix's first GET, else GET /. */
    HttpRequest prime() {
        for (HttpRequest request : requests) if (request.method().equals("GET")) return request;
        return HttpRequest.newBuilder(URI.create(base + "/")).timeout(timeout).GET().build();
    }
}
