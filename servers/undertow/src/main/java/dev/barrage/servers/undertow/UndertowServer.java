package dev.barrage.servers.undertow;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.websockets.WebSocketProtocolHandshakeHandler;
import io.undertow.websockets.core.AbstractReceiveListener;
import io.undertow.websockets.core.BufferedBinaryMessage;
import io.undertow.websockets.core.BufferedTextMessage;
import io.undertow.websockets.core.WebSocketChannel;
import io.undertow.websockets.core.WebSockets;
import io.undertow.UndertowOptions;
import io.undertow.Version;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Deque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Barrage contract (servers/CONTRACT.md) on Undertow's core API: one HTTP listener with
 * ENABLE_HTTP2 (HTTP/1.1, h2c by Upgrade and with prior knowledge) and a non-blocking
 * HttpHandler that runs on the XNIO I/O threads.
 */
public final class UndertowServer {
    /** Held so the levels survive: java.util.logging keeps loggers weakly. */
    private static final Logger XNIO_LOG = Logger.getLogger("org.xnio");
    private static final Logger UNDERTOW_LOG = Logger.getLogger("io.undertow");
    private static final String SERVER = "Undertow/" + Version.getVersionString();

    public static void main(String[] args) {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        XNIO_LOG.setLevel(Level.WARNING); // no "XNIO version" start-up lines
        UNDERTOW_LOG.setLevel(Level.WARNING);

        // DISPATCH (servers/undertow/variants.tsv): io (the handler on the XNIO I/O thread that
        // read the request: it never blocks; the default) or worker (every exchange dispatched to
        // Undertow's worker pool first, as a blocking handler must be)
        String dispatch = System.getenv().getOrDefault("DISPATCH", "io");
        HttpHandler contract = new ContractHandler();
        HttpHandler handler = switch (dispatch) {
            case "io" -> contract;
            case "worker" -> exchange -> {
                if (exchange.isInIoThread()) exchange.dispatch(contract);
                else contract.handleRequest(exchange);
            };
            default -> {
                System.err.printf("undertow: DISPATCH wants io or worker, got '%s'%n", dispatch);
                System.exit(2);
                yield contract;
            }
        };
        SSLContext tls = sslContext(); // null without TLS_PORT: no HTTPS
        Undertow.Builder builder = Undertow.builder().addHttpListener(port, bind);
        // HTTPS: a listener on the JDK's TLS; ENABLE_HTTP2 offers h2 by ALPN there (http/1.1 otherwise)
        if (tls != null) builder.addHttpsListener(Integer.parseInt(System.getenv("TLS_PORT")), bind, tls);
        Undertow server = builder
                .setServerOption(UndertowOptions.ENABLE_HTTP2, true)
                .setHandler(handler)
                .build();
        try {
            server.start();
        } catch (RuntimeException e) {
            // XNIO's threads are not daemons: exit rather than run on without the port.
            System.err.printf("undertow: cannot listen on %s:%d%s: %s%n", bind, port,
                    tls == null ? "" : " and " + System.getenv("TLS_PORT") + " (TLS)", e);
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
        System.out.printf("server=undertow version=%s protocols=h1,h2c%s transport=nio dispatch=%s port=%d bind=%s tls=%s%n",
                Version.getVersionString(), tls == null ? "" : ",h1s,h2", dispatch, port, bind,
                tls == null ? "off" : "tcp:" + System.getenv("TLS_PORT"));
    }

    /**
     * HTTPS's TLS (JSSE): an SSLContext on the PEM certificate chain and PKCS#8 key named by
     * TLS_CERT and TLS_KEY; null when TLS_PORT is unset (no HTTPS). TLS_PORT without a readable
     * certificate and key exits 2.
     */
    private static SSLContext sslContext() {
        String port = System.getenv("TLS_PORT");
        if (port == null || port.isEmpty()) return null;
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !Files.isReadable(Path.of(cert)) || !Files.isReadable(Path.of(key))) {
            System.err.printf("undertow: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        try {
            Certificate[] chain;
            try (InputStream in = Files.newInputStream(Path.of(cert))) {
                chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(Certificate[]::new);
            }
            String pem = Files.readString(Path.of(key), StandardCharsets.US_ASCII)
                    .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
            PrivateKey privateKey = KeyFactory.getInstance(chain[0].getPublicKey().getAlgorithm())
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            char[] password = "barrage".toCharArray(); // in memory only
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(null, null);
            keyStore.setKeyEntry("server", privateKey, password, chain);
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            System.err.printf("undertow: cannot read TLS_CERT and TLS_KEY (%s, %s): %s%n", cert, key, e);
            System.exit(2);
            return null;
        }
    }

    private static final class ContractHandler implements HttpHandler {
        private static final int DEFAULT_FILE_SIZE = 1_048_576;
        private static final int MAX_FILE_SIZE = 104_857_600;
        private static final HttpString SERVER_HEADER = Headers.SERVER;
        private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();
        private static final ByteBuffer HELLO = ByteBuffer.wrap("Hello world".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();
        private static final ConcurrentHashMap<Integer, ByteBuffer> FILES = new ConcurrentHashMap<>();

        @Override
        public void handleRequest(HttpServerExchange exchange) {
            exchange.getResponseHeaders().put(SERVER_HEADER, SERVER);
            HttpString method = exchange.getRequestMethod();
            switch (exchange.getRelativePath()) {
                case "/" -> {
                    if (allow(exchange, method, Methods.GET)) {
                        // Read to the end and drop each chunk; answer once the last one is in.
                        exchange.getRequestReceiver().receivePartialBytes((ex, chunk, last) -> {
                            if (last) send(ex, 200, null, EMPTY.duplicate());
                        });
                    }
                }
                case "/no-read" -> {
                    if (allow(exchange, method, Methods.GET)) send(exchange, 200, null, EMPTY.duplicate());
                }
                case "/hello" -> {
                    if (allow(exchange, method, Methods.GET)) send(exchange, 200, "text/plain", HELLO.duplicate());
                }
                case "/file" -> {
                    if (allow(exchange, method, Methods.GET)) file(exchange);
                }
                case "/ws" -> {
                    if (allow(exchange, method, Methods.GET)) webSocket(exchange);
                }
                case "/load" -> {
                    if (allow(exchange, method, Methods.POST)) {
                        exchange.getRequestReceiver().receiveFullBytes((ex, body) ->
                                send(ex, 200, "text/plain", ByteBuffer.wrap(Base64.getEncoder().encode(body))));
                    }
                }
                default -> send(exchange, 404, "text/plain", ascii("not found\n"));
            }
        }

        /**
         * GET /ws (servers/CONTRACT.md): Undertow's WebSocket handshake, then each message sent
         * back whole as the same type (the listener assembles fragments; it answers pings and
         * the close handshake itself). A GET that is no upgrade gets the handshake handler's 404.
         */
        private static final WebSocketProtocolHandshakeHandler WEBSOCKET = Handlers.websocket((exchange, channel) -> {
            channel.getReceiveSetter().set(new AbstractReceiveListener() {
                @Override
                protected void onFullTextMessage(WebSocketChannel ch, BufferedTextMessage message) {
                    WebSockets.sendText(message.getData(), ch, null);
                }

                @Override
                protected void onFullBinaryMessage(WebSocketChannel ch, BufferedBinaryMessage message) {
                    var data = message.getData();
                    try {
                        WebSockets.sendBinary(WebSockets.mergeBuffers(data.getResource()), ch, null);
                    } finally {
                        data.free();
                    }
                }
            });
            channel.resumeReceives();
        });

        private static void webSocket(HttpServerExchange exchange) {
            try {
                WEBSOCKET.handleRequest(exchange);
            } catch (Exception e) {
                send(exchange, 500, "text/plain", ascii("WebSocket handshake failed\n"));
            }
        }

        private static boolean allow(HttpServerExchange exchange, HttpString method, HttpString allowed) {
            if (allowed.equals(method)) return true;
            exchange.getResponseHeaders().put(Headers.ALLOW, allowed.toString());
            send(exchange, 405, "text/plain", ascii("method not allowed\n"));
            return false;
        }

        private static void file(HttpServerExchange exchange) {
            Deque<String> values = exchange.getQueryParameters().get("size");
            long size;
            try {
                size = values == null ? DEFAULT_FILE_SIZE : Long.parseLong(values.getFirst());
            } catch (NumberFormatException e) {
                size = -1;
            }
            if (size < 0 || size > MAX_FILE_SIZE) {
                send(exchange, 400, "text/plain", ascii("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n"));
                return;
            }
            send(exchange, 200, "application/octet-stream", FILES.computeIfAbsent((int) size, ContractHandler::content).duplicate());
        }

        /** The contract's /file content: byte i is 'a' + i % 26; read-only so duplicates can be shared. */
        private static ByteBuffer content(int size) {
            byte[] bytes = new byte[size];
            for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
            return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
        }

        private static ByteBuffer ascii(String text) {
            return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
        }

        /** The sender sets Content-Length from the buffer and ends the exchange. */
        private static void send(HttpServerExchange exchange, int status, String contentType, ByteBuffer body) {
            exchange.setStatusCode(status);
            if (contentType != null) exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, contentType);
            exchange.getResponseSender().send(body);
        }
    }
}
