package dev.barrage.jdkclient;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;

/**
 * Why an exchange ended without a response, sorted into docs/metrics.md's error buckets from
 * what java.net.http throws (it has no error codes, so the exception's type and message decide;
 * the detail string keeps the original for errors_detail).
 * {@code kind == null}: the connection could not be made, so no byte of the request was written:
 * a connection error, not a request.
 */
record Failure(ErrorKind kind, String detail) {

    enum ErrorKind { TIMEOUT, READ, WRITE, PROTOCOL, RESET }

    static Failure of(Throwable t) {
        String detail = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + shortMessage(t.getMessage()));
        // HttpConnectTimeoutException is an HttpTimeoutException: test it first
        if (t instanceof ConnectException || t instanceof HttpConnectTimeoutException) return new Failure(null, detail);
        if (t instanceof HttpTimeoutException || t instanceof TimeoutException) return new Failure(ErrorKind.TIMEOUT, detail);
        if (t instanceof ProtocolException) return new Failure(ErrorKind.PROTOCOL, detail);
        String message = String.valueOf(t.getMessage());
        if (message.contains("RST_STREAM")) return new Failure(ErrorKind.RESET, detail);
        if (message.contains("Broken pipe")) return new Failure(ErrorKind.WRITE, detail);
        if (t instanceof IOException) return new Failure(ErrorKind.READ, detail);
        // anything else (an unexpected runtime exception inside the client) is not a server answer
        return new Failure(ErrorKind.PROTOCOL, detail);
    }

    /** A final status that is not an HTTP status (outside 100-599): a protocol error. */
    static Failure badStatus(int status) {
        return new Failure(ErrorKind.PROTOCOL, "status " + status);
    }

    /** The first line of a message, numbers replaced by N, so that errors_detail stays small. */
    private static String shortMessage(String message) {
        String line = message.lines().findFirst().orElse("").replaceAll("[0-9]+", "N");
        return line.length() > 100 ? line.substring(0, 100) : line;
    }
}
