package dev.barrage.servers.jetty;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http3.server.HTTP3ServerConnectionFactory;
import org.eclipse.jetty.http3.server.HTTP3ServerQuicConfiguration;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.quic.quiche.server.QuicheServerConnector;
import org.eclipse.jetty.quic.quiche.server.QuicheServerQuicConfiguration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.Jetty;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * The Barrage contract (servers/CONTRACT.md) on Jetty 12's core (non-servlet) API: one
 * ServerConnector speaking HTTP/1.1 and h2c (Upgrade and prior knowledge) on one port, and a
 * QuicheServerConnector speaking HTTP/3 on the same port number over UDP when given a
 * certificate (TLS_CERT, TLS_KEY); without one, HTTP/1.1 and h2c only, as its start-up line says.
 */
public final class JettyServer {
    private static final int DEFAULT_FILE_SIZE = 1_048_576;
    private static final int MAX_FILE_SIZE = 104_857_600;
    /** Request bodies /load accepts (see CONTRACT.md). */
    private static final int MAX_LOAD_BODY = 32 * 1024 * 1024;
    private static final ByteBuffer HELLO = ByteBuffer.wrap("Hello world".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();
    private static final HttpField TEXT_PLAIN = new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain");
    private static final HttpField OCTET_STREAM = new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "application/octet-stream");
    private static final ConcurrentHashMap<Integer, ByteBuffer> FILES = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        KeyStore keys = keyStore(); // null without a certificate: no HTTP/3, no HTTPS
        SslContextFactory.Server tls = keys == null ? null : sslContextFactory(keys);
        String tlsPortText = System.getenv("TLS_PORT");
        boolean https = tlsPortText != null && !tlsPortText.isEmpty();
        if (https && keys == null) {
            System.err.println("jetty: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files;"
                    + " lib/certs.sh (certs::export) makes them");
            System.exit(2);
        }

        // THREADING (servers/jetty/variants.tsv): platform (Jetty's default pool) or virtual (the
        // same QueuedThreadPool, handing blocking work to virtual threads)
        String threading = System.getenv().getOrDefault("THREADING", "platform");
        QueuedThreadPool pool = new QueuedThreadPool();
        switch (threading) {
            case "platform" -> { }
            case "virtual" -> pool.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("jetty-vt-"));
            default -> {
                System.err.printf("jetty: THREADING wants platform or virtual, got '%s'%n", threading);
                System.exit(2);
            }
        }
        Server server = new Server(pool);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(true);
        config.setSendDateHeader(true);
        ServerConnector connector = new ServerConnector(server,
                new HttpConnectionFactory(config), new HTTP2CServerConnectionFactory(config));
        connector.setHost(bind);
        connector.setPort(port);
        server.addConnector(connector);

        // HTTP/3, as in Jetty's programming guide: its own HttpConfiguration (a copy, plus the
        // SecureRequestCustomizer the guide adds), quiche reading the key pair from a PEM
        // directory that Jetty writes from the KeyStore.
        QuicheServerConnector h3 = null;
        if (tls != null) {
            privateNativeDir();
            HttpConfiguration h3Config = new HttpConfiguration(config);
            h3Config.addCustomizer(new SecureRequestCustomizer());
            Path pemDir = Files.createTempDirectory("barrage-jetty-quic-");
            pemDir.toFile().deleteOnExit(); // Jetty deletes the PEM files on stop, then the JVM the directory
            h3 = new QuicheServerConnector(server, tls,
                    HTTP3ServerQuicConfiguration.configure(new QuicheServerQuicConfiguration(pemDir)),
                    new HTTP3ServerConnectionFactory(h3Config));
            h3.setHost(bind);
            h3.setPort(port);
            server.addConnector(h3);
        }

        // HTTPS over TCP on TLS_PORT, as in Jetty's programming guide: TLS (JSSE), then ALPN
        // choosing h2 or http/1.1 (the default for a client that offers no ALPN).
        ServerConnector tlsConnector = null;
        if (https) {
            HttpConfiguration httpsConfig = new HttpConfiguration(config);
            httpsConfig.addCustomizer(new SecureRequestCustomizer());
            HttpConnectionFactory http1 = new HttpConnectionFactory(httpsConfig);
            ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory();
            alpn.setDefaultProtocol(http1.getProtocol());
            tlsConnector = new ServerConnector(server, new SslConnectionFactory(sslContextFactory(keys), alpn.getProtocol()),
                    alpn, new HTTP2ServerConnectionFactory(httpsConfig), http1);
            tlsConnector.setHost(bind);
            tlsConnector.setPort(Integer.parseInt(tlsPortText));
            server.addConnector(tlsConnector);
        }

        // GET /ws upgrades to a WebSocket echo (servers/CONTRACT.md); every other request goes on
        // to the contract handler
        WebSocketUpgradeHandler webSocket = WebSocketUpgradeHandler.from(server, container -> {
            container.setMaxTextMessageSize(MAX_WEBSOCKET_MESSAGE);
            container.setMaxBinaryMessageSize(MAX_WEBSOCKET_MESSAGE);
            container.addMapping("/ws", (upgradeRequest, upgradeResponse, callback) -> new WebSocketEcho());
        });
        webSocket.setHandler(new ContractHandler());
        server.setHandler(webSocket);
        server.setStopAtShutdown(true);
        server.setStopTimeout(2_000);
        try {
            server.start();
        } catch (Exception e) { // e.g. a BindException: do not run on without the port
            try {
                server.stop();
            } catch (Exception stopFailure) { // the start's cause is the one to report: it is printed last
                e.addSuppressed(stopFailure);
            }
            System.err.printf("jetty: cannot start on %s:%d (%s): %s%n", bind, port, h3 == null ? "tcp" : "tcp and udp", e);
            System.exit(1);
        }
        String tlsText = tlsConnector == null ? "tls=off" : "tls=tcp:" + tlsConnector.getLocalPort();
        String protocols = "h1,h2c" + (tlsConnector == null ? "" : ",h1s,h2");
        if (h3 != null) {
            System.out.printf("server=jetty version=%s protocols=%s,h3 transport=nio threading=%s port=%d bind=%s %s h3=udp:%d%n",
                    Jetty.VERSION, protocols, threading, connector.getLocalPort(), bind, tlsText, h3.getLocalPort());
        } else {
            System.out.printf("server=jetty version=%s protocols=%s transport=nio threading=%s port=%d bind=%s %s"
                    + " h3=off (no certificate: set TLS_CERT and TLS_KEY for HTTP/3)%n",
                    Jetty.VERSION, protocols, threading, connector.getLocalPort(), bind, tlsText);
        }
        server.join();
    }

    private static final String KEY_PASSWORD = "barrage"; // in memory only; Jetty needs one to read the key back

    /** A TLS context on the key store: one per connector (HTTP/3's quiche, HTTPS's JSSE). */
    private static SslContextFactory.Server sslContextFactory(KeyStore keys) {
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStore(keys);
        tls.setKeyStorePassword(KEY_PASSWORD);
        return tls;
    }

    /**
     * Points java.io.tmpdir at a directory of this JVM's own before quiche's native library is
     * loaded: Jetty's NativeHelper extracts it to java.io.tmpdir/linux-x86-64/libquiche.so and
     * overwrites that file in place, so a second Jetty started on the machine rewrote the code
     * a running one had mapped, which then crashed (SIGSEGV in a quiche call). The library is
     * deleted on exit by Jetty, the directories by the JVM (registered first, deleted last).
     */
    private static void privateNativeDir() throws IOException {
        Path dir = Files.createTempDirectory("barrage-jetty-native-");
        dir.toFile().deleteOnExit();
        dir.resolve("linux-x86-64").toFile().deleteOnExit();
        System.setProperty("java.io.tmpdir", dir.toString());
    }

    /**
     * TLS's key material: a KeyStore made in memory from the PEM certificate chain and PKCS#8 key named
     * by TLS_CERT and TLS_KEY (Jetty's SslContextFactory reads key stores, not PEM files); null
     * when neither is set (no HTTP/3, no HTTPS). One set without the other, or unreadable, exits 2.
     */
    private static KeyStore keyStore() throws IOException, GeneralSecurityException {
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if ((cert == null || cert.isEmpty()) && (key == null || key.isEmpty())) return null;
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !Files.isReadable(Path.of(cert)) || !Files.isReadable(Path.of(key))) {
            System.err.printf("jetty: TLS (HTTP/3, HTTPS) needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        Certificate[] chain;
        try (InputStream in = Files.newInputStream(Path.of(cert))) {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(Certificate[]::new);
        }
        String pem = Files.readString(Path.of(key), StandardCharsets.US_ASCII)
                .replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
        PrivateKey privateKey = KeyFactory.getInstance(chain[0].getPublicKey().getAlgorithm())
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry("server", privateKey, KEY_PASSWORD.toCharArray(), chain);
        return keyStore;
    }

    private static final int MAX_WEBSOCKET_MESSAGE = 1 << 20;

    /**
     * A WebSocket at /ws: each whole message sent back as the same type. Jetty assembles
     * fragments, answers pings and the close handshake; the binary buffer is held until its echo
     * is sent (the callback).
     */
    public static final class WebSocketEcho implements Session.Listener.AutoDemanding {
        private Session session;

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
        }

        @Override
        public void onWebSocketText(String message) {
            session.sendText(message, org.eclipse.jetty.websocket.api.Callback.NOOP);
        }

        @Override
        public void onWebSocketBinary(java.nio.ByteBuffer payload, org.eclipse.jetty.websocket.api.Callback callback) {
            session.sendBinary(payload, callback);
        }
    }

    private static final class ContractHandler extends Handler.Abstract.NonBlocking {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String method = request.getMethod();
            switch (Request.getPathInContext(request)) {
                case "/" -> {
                    if (allow(method, "GET", response, callback)) {
                        Content.Source.consumeAll(request, Callback.from(
                                () -> send(response, 200, null, null, callback), callback::failed));
                    }
                }
                case "/no-read" -> {
                    if (allow(method, "GET", response, callback)) send(response, 200, null, null, callback);
                }
                case "/hello" -> {
                    if (allow(method, "GET", response, callback)) send(response, 200, TEXT_PLAIN, HELLO.slice(), callback);
                }
                case "/file" -> {
                    if (allow(method, "GET", response, callback)) file(request, response, callback);
                }
                case "/load" -> {
                    if (allow(method, "POST", response, callback)) {
                        Content.Source.asByteArrayAsync(request, MAX_LOAD_BODY).whenComplete((body, failure) -> {
                            if (failure != null) callback.failed(failure);
                            else send(response, 200, TEXT_PLAIN, ByteBuffer.wrap(Base64.getEncoder().encode(body)), callback);
                        });
                    }
                }
                default -> send(response, 404, TEXT_PLAIN, ascii("not found\n"), callback);
            }
            return true;
        }

        private static boolean allow(String method, String allowed, Response response, Callback callback) {
            if (allowed.equals(method)) return true;
            response.getHeaders().put(HttpHeader.ALLOW, allowed);
            send(response, 405, TEXT_PLAIN, ascii("method not allowed\n"), callback);
            return false;
        }

        private static void file(Request request, Response response, Callback callback) {
            Fields query = Request.extractQueryParameters(request);
            String raw = query.getValue("size");
            long size;
            try {
                size = raw == null ? DEFAULT_FILE_SIZE : Long.parseLong(raw);
            } catch (NumberFormatException e) {
                size = -1;
            }
            if (size < 0 || size > MAX_FILE_SIZE) {
                send(response, 400, TEXT_PLAIN, ascii("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n"), callback);
                return;
            }
            send(response, 200, OCTET_STREAM, FILES.computeIfAbsent((int) size, ContractHandler::content).slice(), callback);
        }

        /** The contract's /file content: byte i is 'a' + i % 26; read-only so slices can be shared. */
        private static ByteBuffer content(int size) {
            byte[] bytes = new byte[size];
            for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
            return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
        }

        private static ByteBuffer ascii(String text) {
            return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
        }

        private static void send(Response response, int status, HttpField contentType, ByteBuffer body, Callback callback) {
            response.setStatus(status);
            if (contentType != null) response.getHeaders().put(contentType);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body == null ? 0 : body.remaining());
            response.write(true, body, callback);
        }
    }
}
