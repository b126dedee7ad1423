package dev.barrage.servers.tomcat;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.util.ServerInfo;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.websocket.server.WsSci;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.RemoteEndpoint;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

/**
 * The Barrage contract (servers/CONTRACT.md) as one servlet in embedded Tomcat: the default
 * NIO HTTP/1.1 connector with Http2Protocol as its upgrade protocol, which gives h2c by
 * Upgrade and by prior knowledge on the same port.
 */
public final class TomcatServer {
    /** Held so the level survives: java.util.logging keeps loggers weakly. */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");
    /** "11.0.25" from "Apache Tomcat/11.0.25". */
    private static final String VERSION = ServerInfo.getServerInfo().substring(ServerInfo.getServerInfo().indexOf('/') + 1);

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        TOMCAT_LOG.setLevel(Level.WARNING); // no start-up INFO lines, no per-request logs

        Path baseDir = Files.createTempDirectory("barrage-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(port);
        connector.setProperty("address", bind);
        connector.setProperty("server", "Apache-Tomcat/" + VERSION);
        // Tomcat closes a kept-alive connection after 100 requests by default; the contract
        // keeps connections open (-1: no limit), as the other servers do.
        connector.setProperty("maxKeepAliveRequests", "-1");
        connector.addUpgradeProtocol(new Http2Protocol());
        // THREADING (servers/tomcat/variants.tsv): platform (the connector's own pool of platform
        // threads, maxThreads 200: Tomcat's default) or virtual (useVirtualThreads: a virtual
        // thread per request, Tomcat's StandardVirtualThreadExecutor)
        String threading = System.getenv().getOrDefault("THREADING", "platform");
        switch (threading) {
            case "platform" -> { }
            case "virtual" -> {
                if (!connector.setProperty("useVirtualThreads", "true")) {
                    System.err.println("tomcat: the connector does not take useVirtualThreads");
                    System.exit(2);
                }
            }
            default -> {
                System.err.printf("tomcat: THREADING wants platform or virtual, got '%s'%n", threading);
                System.exit(2);
            }
        }
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Connector tls = httpsConnector(bind); // null without TLS_PORT: no HTTPS
        if (tls != null) tomcat.getService().addConnector(tls);

        Context context = tomcat.addContext("", baseDir.toString());
        Tomcat.addServlet(context, "contract", new ContractServlet());
        context.addServletMappingDecoded("/", "contract");
        // GET /ws: Tomcat's WebSocket container (WsSci, first), then the echo endpoint added to it
        context.addServletContainerInitializer(new WsSci(), null);
        context.addServletContainerInitializer((classes, servletContext) -> {
            try {
                ((ServerContainer) servletContext.getAttribute(ServerContainer.class.getName()))
                        .addEndpoint(ServerEndpointConfig.Builder.create(WebSocketEcho.class, "/ws").build());
            } catch (DeploymentException e) {
                throw new jakarta.servlet.ServletException(e);
            }
        }, null);
        tomcat.start();
        // A connector that cannot bind is logged and left out while Tomcat runs on without it:
        // exit instead, so whoever started the server sees the failure at once.
        if (connector.getState() != LifecycleState.STARTED) {
            System.err.printf("tomcat: cannot listen on %s:%d (see the error above)%n", bind, port);
            System.exit(1);
        }
        if (tls != null && tls.getState() != LifecycleState.STARTED) {
            System.err.printf("tomcat: cannot listen for HTTPS on %s:%d (see the error above)%n", bind, tls.getPort());
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                tomcat.stop();
                tomcat.destroy();
                try (Stream<Path> files = Files.walk(baseDir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                }
            } catch (Exception e) {
                System.err.println("tomcat: shutdown: " + e);
            }
        }));
        System.out.printf("server=tomcat version=%s protocols=h1,h2c%s transport=nio threading=%s port=%d bind=%s tls=%s%n",
                VERSION, tls == null ? "" : ",h1s,h2", threading, connector.getLocalPort(), bind,
                tls == null ? "off" : "tcp:" + tls.getLocalPort());
        tomcat.getServer().await();
    }

    /**
     * HTTPS on TLS_PORT (null when it is unset): a second NIO connector with the PEM certificate
     * and PKCS#8 key named by TLS_CERT and TLS_KEY on the JDK's TLS (JSSE), and Http2Protocol,
     * which TLS's ALPN selects (h2; http/1.1 otherwise). Without the certificate, exits 2.
     */
    private static Connector httpsConnector(String bind) {
        String port = System.getenv("TLS_PORT");
        if (port == null || port.isEmpty()) return null;
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !Files.isReadable(Path.of(cert)) || !Files.isReadable(Path.of(key))) {
            System.err.printf("tomcat: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        Connector connector = new Connector("HTTP/1.1");
        connector.setPort(Integer.parseInt(port));
        connector.setProperty("address", bind);
        connector.setProperty("server", "Apache-Tomcat/" + VERSION);
        connector.setProperty("maxKeepAliveRequests", "-1");
        connector.setProperty("SSLEnabled", "true");
        // JSSE, named: Tomcat would take OpenSSL when its native library is there (a variant's choice)
        connector.setProperty("sslImplementationName", "org.apache.tomcat.util.net.jsse.JSSEImplementation");
        connector.setScheme("https");
        connector.setSecure(true);
        SSLHostConfig host = new SSLHostConfig();
        SSLHostConfigCertificate certificate = new SSLHostConfigCertificate(host, SSLHostConfigCertificate.Type.UNDEFINED);
        certificate.setCertificateFile(cert);
        certificate.setCertificateKeyFile(key);
        host.addCertificate(certificate);
        connector.addSslHostConfig(host);
        connector.addUpgradeProtocol(new Http2Protocol());
        return connector;
    }

    private static final int MAX_WEBSOCKET_MESSAGE = 1 << 20;

    /**
     * GET /ws (servers/CONTRACT.md): each whole message sent back as the same type. Tomcat calls a
     * session's handlers one message at a time, so the blocking remote never overlaps itself; it
     * answers pings and the close handshake.
     */
    public static final class WebSocketEcho extends Endpoint {
        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.setMaxTextMessageBufferSize(MAX_WEBSOCKET_MESSAGE);
            session.setMaxBinaryMessageBufferSize(MAX_WEBSOCKET_MESSAGE);
            RemoteEndpoint.Basic remote = session.getBasicRemote();
            session.addMessageHandler(String.class, (MessageHandler.Whole<String>) text -> {
                try {
                    remote.sendText(text);
                } catch (java.io.IOException e) {
                    close(session);
                }
            });
            session.addMessageHandler(java.nio.ByteBuffer.class, (MessageHandler.Whole<java.nio.ByteBuffer>) data -> {
                try {
                    remote.sendBinary(data);
                } catch (java.io.IOException e) {
                    close(session);
                }
            });
        }

        private static void close(Session session) {
            try {
                session.close();
            } catch (java.io.IOException ignored) {
                // the connection is gone already
            }
        }
    }

    private static final class ContractServlet extends HttpServlet {
        private static final int DEFAULT_FILE_SIZE = 1_048_576;
        private static final int MAX_FILE_SIZE = 104_857_600;
        private static final byte[] HELLO = "Hello world".getBytes(StandardCharsets.US_ASCII);
        private static final ConcurrentHashMap<Integer, byte[]> FILES = new ConcurrentHashMap<>();

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String method = request.getMethod();
            switch (request.getRequestURI()) {
                case "/" -> {
                    if (!allow(method, "GET", response)) return;
                    try (InputStream body = request.getInputStream()) {
                        body.transferTo(OutputStream.nullOutputStream());
                    }
                    send(response, 200, null, new byte[0]);
                }
                case "/no-read" -> {
                    if (allow(method, "GET", response)) send(response, 200, null, new byte[0]);
                }
                case "/hello" -> {
                    if (allow(method, "GET", response)) send(response, 200, "text/plain", HELLO);
                }
                case "/file" -> {
                    if (allow(method, "GET", response)) file(request.getParameter("size"), response);
                }
                case "/load" -> {
                    if (!allow(method, "POST", response)) return;
                    byte[] body;
                    try (InputStream in = request.getInputStream()) {
                        body = in.readAllBytes();
                    }
                    send(response, 200, "text/plain", Base64.getEncoder().encode(body));
                }
                default -> send(response, 404, "text/plain", ascii("not found\n"));
            }
        }

        private static boolean allow(String method, String allowed, HttpServletResponse response) throws IOException {
            if (allowed.equals(method)) return true;
            response.setHeader("Allow", allowed);
            send(response, 405, "text/plain", ascii("method not allowed\n"));
            return false;
        }

        private static void file(String raw, HttpServletResponse response) throws IOException {
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
            send(response, 200, "application/octet-stream", FILES.computeIfAbsent((int) size, ContractServlet::content));
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

        private static void send(HttpServletResponse response, int status, String contentType, byte[] body) throws IOException {
            response.setStatus(status);
            if (contentType != null) response.setContentType(contentType);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }
}
