package dev.barrage.servers.helidon;

import io.helidon.webserver.WebServerConfig;
import io.helidon.common.tls.Tls;
import java.util.List;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.cert.X509Certificate;
import java.security.cert.CertificateFactory;
import java.security.PrivateKey;
import java.security.KeyFactory;
import java.security.GeneralSecurityException;
import java.nio.file.Path;
import java.nio.file.Files;
import java.io.InputStream;
import java.io.IOException;
import io.helidon.common.Version;
import io.helidon.common.uri.UriQuery;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.logging.common.LogConfig;
import io.helidon.webserver.WebServer;
import io.helidon.common.buffers.BufferData;
import io.helidon.webserver.websocket.WsRouting;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Barrage contract (servers/CONTRACT.md) on Helidon 4 SE's WebServer: HTTP routing with
 * blocking handlers on virtual threads; helidon-webserver-http2 on the classpath adds h2c
 * (Upgrade and prior knowledge) to the same listener.
 */
public final class HelidonServer {
    private static final int DEFAULT_FILE_SIZE = 1_048_576;
    private static final int MAX_FILE_SIZE = 104_857_600;
    private static final Header SERVER = HeaderValues.createCached(HeaderNames.SERVER, "Helidon/" + Version.VERSION);
    private static final Header OCTET_STREAM = HeaderValues.createCached(HeaderNames.CONTENT_TYPE, "application/octet-stream");
    private static final byte[] HELLO = "Hello world".getBytes(StandardCharsets.US_ASCII);
    private static final ConcurrentHashMap<Integer, byte[]> FILES = new ConcurrentHashMap<>();

    public static void main(String[] args) {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");

        // As Helidon's SE quickstart does: java.util.logging from logging.properties (WARNING).
        LogConfig.configureRuntime();
        Tls tls = tls(); // null without TLS_PORT: no HTTPS
        WebServerConfig.Builder builder = WebServer.builder()
                .host(bind)
                .port(port)
                // TCP_NODELAY: Helidon's default leaves Nagle on, and its HTTP/2 writes a
                // response's HEADERS and DATA frames apart, so the DATA waited for the client's
                // delayed ACK: 44 ms per h2c request on an idle connection (23 requests/s).
                .connectionOptions(options -> options.tcpNoDelay(true))
                .routing(HelidonServer::routing)
                // GET /ws: a WebSocket echo (servers/CONTRACT.md), one listener per connection
                .addRouting(WsRouting.builder().endpoint("/ws", WebSocketEcho::new));
        // HTTPS: a named listener with TLS (the JDK's, JSSE) and the same routing; with
        // helidon-webserver-http2, ALPN offers h2 there (http/1.1 otherwise)
        if (tls != null) {
            builder.putSocket("https", socket -> socket.host(bind)
                    .port(Integer.parseInt(System.getenv("TLS_PORT")))
                    .tls(tls)
                    .connectionOptions(options -> options.tcpNoDelay(true))
                    .routing(HelidonServer::routing));
        }
        WebServer server = builder.build().start();
        // A listener that cannot bind is logged and start() returns a stopped server: exit
        // non-zero so that whoever started it sees the failure.
        if (!server.isRunning()) {
            System.err.printf("helidon: cannot listen on %s:%d (see the error above)%n", bind, port);
            System.exit(1);
        }
        // Helidon registers its own shutdown hook (shutdownHook is on by default): SIGTERM stops it.
        System.out.printf("server=helidon version=%s protocols=h1,h2c%s transport=virtual-threads port=%d bind=%s tls=%s%n",
                Version.VERSION, tls == null ? "" : ",h1s,h2", server.port(), bind,
                tls == null ? "off" : "tcp:" + server.port("https"));
    }

    /**
     * HTTPS's TLS on TLS_PORT: the PEM certificate chain and PKCS#8 key named by TLS_CERT and
     * TLS_KEY; null when TLS_PORT is unset. Without a readable certificate and key, exits 2.
     */
    private static Tls tls() {
        String port = System.getenv("TLS_PORT");
        if (port == null || port.isEmpty()) return null;
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !Files.isReadable(Path.of(cert)) || !Files.isReadable(Path.of(key))) {
            System.err.printf("helidon: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        try {
            List<X509Certificate> chain;
            try (InputStream in = Files.newInputStream(Path.of(cert))) {
                chain = CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                        .map(X509Certificate.class::cast).toList();
            }
            String pem = Files.readString(Path.of(key), StandardCharsets.US_ASCII)
                    .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
            PrivateKey privateKey = KeyFactory.getInstance(chain.get(0).getPublicKey().getAlgorithm())
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            return Tls.builder().privateKey(privateKey).privateKeyCertChain(chain).build();
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            System.err.printf("helidon: cannot read TLS_CERT and TLS_KEY (%s, %s): %s%n", cert, key, e);
            System.exit(2);
            return null;
        }
    }

    /**
     * A WebSocket at /ws: Helidon hands a message over in parts (last marks its end), collected
     * here and sent back whole as the same type; pings are answered with their payload.
     */
    static final class WebSocketEcho implements WsListener {
        private final StringBuilder text = new StringBuilder();
        private final BufferData binary = BufferData.growing(1024);

        @Override
        public void onMessage(WsSession session, String part, boolean last) {
            if (!last) {
                text.append(part);
                return;
            }
            String message = text.isEmpty() ? part : text.append(part).toString();
            text.setLength(0);
            session.send(message, true);
        }

        @Override
        public void onMessage(WsSession session, BufferData part, boolean last) {
            binary.write(part);
            if (!last) return;
            byte[] message = binary.readBytes();
            binary.reset();
            session.send(BufferData.create(message), true);
        }

        @Override
        public void onPing(WsSession session, BufferData buffer) {
            session.pong(buffer);
        }
    }

    static void routing(HttpRouting.Builder routing) {
        routing.addFilter((chain, req, res) -> {
                    res.header(SERVER);
                    chain.proceed();
                })
                .get("/", (req, res) -> {
                    req.content().consume();
                    res.send();
                })
                .get("/no-read", (req, res) -> res.send())
                .get("/hello", (req, res) -> send(res, 200, HeaderValues.CONTENT_TYPE_TEXT_PLAIN, HELLO))
                .get("/file", HelidonServer::file)
                .post("/load", (req, res) -> {
                    // A request without a body has no entity to read (as() would throw).
                    byte[] body = req.content().hasEntity() ? req.content().as(byte[].class) : new byte[0];
                    send(res, 200, HeaderValues.CONTENT_TYPE_TEXT_PLAIN, Base64.getEncoder().encode(body));
                })
                // Registered after the methods above: only a wrong method on a known path gets here.
                .any("/", notAllowed("GET"))
                .any("/no-read", notAllowed("GET"))
                .any("/hello", notAllowed("GET"))
                .any("/file", notAllowed("GET"))
                .any("/load", notAllowed("POST"))
                .any((req, res) -> send(res, 404, HeaderValues.CONTENT_TYPE_TEXT_PLAIN, ascii("not found\n")));
    }

    private static Handler notAllowed(String allowed) {
        return (req, res) -> {
            res.header(HeaderNames.ALLOW, allowed);
            send(res, 405, HeaderValues.CONTENT_TYPE_TEXT_PLAIN, ascii("method not allowed\n"));
        };
    }

    private static void file(ServerRequest req, ServerResponse res) {
        UriQuery query = req.query();
        long size;
        try {
            size = query.contains("size") ? Long.parseLong(query.get("size")) : DEFAULT_FILE_SIZE;
        } catch (NumberFormatException e) {
            size = -1;
        }
        if (size < 0 || size > MAX_FILE_SIZE) {
            send(res, 400, HeaderValues.CONTENT_TYPE_TEXT_PLAIN, ascii("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n"));
            return;
        }
        send(res, 200, OCTET_STREAM, FILES.computeIfAbsent((int) size, HelidonServer::content));
    }

    /** The contract's /file content: byte i is 'a' + i % 26 (never written to once cached). */
    private static byte[] content(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
        return bytes;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** send(byte[]) sets Content-Length. */
    private static void send(ServerResponse res, int status, Header contentType, byte[] body) {
        res.status(status).header(contentType).send(body);
    }
}
