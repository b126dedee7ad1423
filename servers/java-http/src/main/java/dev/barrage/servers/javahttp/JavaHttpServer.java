package dev.barrage.servers.javahttp;

import io.fusionauth.http.HTTPMethod;
import io.fusionauth.http.log.Level;
import io.fusionauth.http.log.Logger;
import io.fusionauth.http.log.SystemOutLoggerFactory;
import io.fusionauth.http.server.HTTPListenerConfiguration;
import io.fusionauth.http.server.HTTPRequest;
import io.fusionauth.http.server.HTTPResponse;
import io.fusionauth.http.server.HTTPServer;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.cert.CertificateFactory;
import java.security.cert.Certificate;
import java.security.PrivateKey;
import java.security.KeyFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/** The Barrage contract (servers/CONTRACT.md) on FusionAuth's java-http (HTTP/1.1, a virtual thread per connection). */
public final class JavaHttpServer {
    private static final int DEFAULT_FILE_SIZE = 1_048_576;
    private static final int MAX_FILE_SIZE = 104_857_600;
    private static final byte[] HELLO = "Hello world".getBytes(StandardCharsets.US_ASCII);
    private static final ConcurrentHashMap<Integer, byte[]> FILES = new ConcurrentHashMap<>();
    /** IMF-fixdate (RFC 9110 section 5.6.7): java-http does not send Date by itself. */
    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    /** The Date header, formatted once per second. */
    private static volatile CachedDate date = new CachedDate(0, "");

    private record CachedDate(long second, String value) {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        String version = libraryVersion();
        String server = "java-http/" + version;

        HTTPServer httpServer = new HTTPServer()
                .withHandler((request, response) -> handle(request, response, server))
                .withListener(new HTTPListenerConfiguration(InetAddress.getByName(bind), port))
                .withLoggerFactory(type -> {
                    // Errors only: its Info level announces start-up and shut-down on stdout.
                    Logger logger = SystemOutLoggerFactory.FACTORY.getLogger(type);
                    logger.setLevel(Level.Error);
                    return logger;
                })
                .withShutdownDuration(Duration.ofSeconds(2));
        // HTTPS: a second listener, java-http's TLS on the JDK's (JSSE), HTTP/1.1 only
        Integer tlsPort = tlsPort();
        if (tlsPort != null) {
            // (its PEM-string constructor reads RSA keys only: the suite's key is EC, read here)
            Certificate certificate;
            try (InputStream in = Files.newInputStream(Path.of(System.getenv("TLS_CERT")))) {
                certificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            String pem = Files.readString(Path.of(System.getenv("TLS_KEY")), StandardCharsets.US_ASCII)
                    .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
            PrivateKey key = KeyFactory.getInstance(certificate.getPublicKey().getAlgorithm())
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            httpServer.withListener(new HTTPListenerConfiguration(InetAddress.getByName(bind), tlsPort, certificate, key));
        }
        // java-http 1.2.0's start() logs a listener that cannot bind, closes, and returns as if
        // all went well (the JVM would then exit 0): find out first, and fail loudly.
        for (int listen : tlsPort == null ? new int[] {port} : new int[] {port, tlsPort}) {
            try {
                new ServerSocket(listen, 1, InetAddress.getByName(bind)).close();
            } catch (IOException e) {
                System.err.printf("java-http: cannot listen on %s:%d: %s%n", bind, listen, e.getMessage());
                System.exit(1);
            }
        }
        httpServer.start();
        Runtime.getRuntime().addShutdownHook(new Thread(httpServer::close));
        System.out.printf("server=java-http version=%s protocols=h1%s transport=blocking-io+virtual-threads port=%d bind=%s tls=%s%n",
                version, tlsPort == null ? "" : ",h1s", port, bind, tlsPort == null ? "off" : "tcp:" + tlsPort);
    }

    /**
     * HTTPS's port, TLS_PORT; null when it is unset (no HTTPS). Set without a readable TLS_CERT and
     * TLS_KEY (PEM certificate chain, PKCS#8 key), exits 2.
     */
    private static Integer tlsPort() {
        String port = System.getenv("TLS_PORT");
        if (port == null || port.isEmpty()) return null;
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !Files.isReadable(Path.of(cert)) || !Files.isReadable(Path.of(key))) {
            System.err.printf("java-http: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        return Integer.parseInt(port);
    }

    /** The library's version, from the Maven metadata in its jar. */
    private static String libraryVersion() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = HTTPServer.class.getResourceAsStream("/META-INF/maven/io.fusionauth/java-http/pom.properties")) {
            if (in != null) properties.load(in);
        }
        return properties.getProperty("version", "unknown");
    }

    private static void handle(HTTPRequest request, HTTPResponse response, String server) throws IOException {
        response.setHeader("Server", server);
        response.setHeader("Date", date());
        HTTPMethod method = request.getMethod();
        switch (request.getPath()) {
            case "/" -> {
                if (!allow(method, HTTPMethod.GET, response)) return;
                try (InputStream body = request.getInputStream()) {
                    body.transferTo(OutputStream.nullOutputStream());
                }
                send(response, 200, null, new byte[0]);
            }
            case "/no-read" -> {
                if (allow(method, HTTPMethod.GET, response)) send(response, 200, null, new byte[0]);
            }
            case "/hello" -> {
                if (allow(method, HTTPMethod.GET, response)) send(response, 200, "text/plain", HELLO);
            }
            case "/file" -> {
                if (allow(method, HTTPMethod.GET, response)) file(request.getURLParameter("size"), response);
            }
            case "/load" -> {
                if (!allow(method, HTTPMethod.POST, response)) return;
                byte[] body;
                try (InputStream in = request.getInputStream()) {
                    body = in.readAllBytes();
                }
                send(response, 200, "text/plain", Base64.getEncoder().encode(body));
            }
            default -> send(response, 404, "text/plain", ascii("not found\n"));
        }
    }

    private static boolean allow(HTTPMethod method, HTTPMethod allowed, HTTPResponse response) throws IOException {
        if (method.is(allowed)) return true;
        response.setHeader("Allow", allowed.name());
        send(response, 405, "text/plain", ascii("method not allowed\n"));
        return false;
    }

    private static void file(String raw, HTTPResponse response) throws IOException {
        long size;
        try {
            size = raw == null ? DEFAULT_FILE_SIZE : Long.parseLong(raw);
        } catch (NumberFormatException e) {
            size = -1;
        }
        if (size < 0 || size > MAX_FILE_SIZE) {
            send(response, 400, "text/plain", ascii("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n"));
            return;
        }
        send(response, 200, "application/octet-stream", FILES.computeIfAbsent((int) size, JavaHttpServer::content));
    }

    private static String date() {
        long second = System.currentTimeMillis() / 1000;
        CachedDate cached = date;
        if (cached.second() != second) {
            cached = new CachedDate(second, HTTP_DATE.format(Instant.ofEpochSecond(second)));
            date = cached;
        }
        return cached.value();
    }

    /** The contract's /file content: byte i is 'a' + i % 26. */
    private static byte[] content(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
        return bytes;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static void send(HTTPResponse response, int status, String contentType, byte[] body) throws IOException {
        response.setStatus(status);
        if (contentType != null) response.setContentType(contentType);
        response.setContentLength(body.length);
        try (OutputStream out = response.getOutputStream()) {
            out.write(body);
        }
    }
}
