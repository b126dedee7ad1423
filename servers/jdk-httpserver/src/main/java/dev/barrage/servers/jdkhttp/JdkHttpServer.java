package dev.barrage.servers.jdkhttp;

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
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/** The Barrage contract (servers/CONTRACT.md) on the JDK's built-in HttpServer, one virtual thread per exchange. */
public final class JdkHttpServer {
    private static final int DEFAULT_FILE_SIZE = 1_048_576;
    private static final int MAX_FILE_SIZE = 104_857_600;
    private static final byte[] HELLO = "Hello world".getBytes(StandardCharsets.US_ASCII);
    private static final String SERVER = "jdk-httpserver/" + Runtime.version().feature();
    /** /file bodies by size, each built once. */
    private static final ConcurrentHashMap<Integer, byte[]> FILES = new ConcurrentHashMap<>();

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 0);
        // EXECUTOR (servers/jdk-httpserver/variants.tsv): virtual (a virtual thread per exchange,
        // the default), platform (a cached pool of platform threads) or dispatcher (none: the
        // server's one dispatcher thread runs every exchange)
        // (the HTTPS server below shares it)
        String executor = System.getenv().getOrDefault("EXECUTOR", "virtual");
        Executor pool = switch (executor) {
            case "virtual" -> Executors.newVirtualThreadPerTaskExecutor();
            case "platform" -> Executors.newCachedThreadPool();
            case "dispatcher" -> null;
            default -> {
                System.err.printf("jdk-httpserver: EXECUTOR wants virtual, platform or dispatcher, got '%s'%n", executor);
                System.exit(2);
                yield null;
            }
        };
        server.setExecutor(pool);
        server.createContext("/", JdkHttpServer::handle);
        // HTTPS: the JDK's HttpsServer beside it, on the JDK's TLS (HTTP/1.1 only, as the JDK's server)
        SSLContext tls = sslContext(); // null without TLS_PORT: no HTTPS
        HttpsServer https = null;
        if (tls != null) {
            https = HttpsServer.create(new InetSocketAddress(bind, Integer.parseInt(System.getenv("TLS_PORT"))), 0);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            https.setExecutor(pool);
            https.createContext("/", JdkHttpServer::handle);
        }
        server.start();
        if (https != null) https.start();
        HttpsServer httpsServer = https;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (httpsServer != null) httpsServer.stop(0);
            server.stop(0);
        }));
        System.out.printf("server=jdk-httpserver version=%s protocols=h1%s transport=nio executor=%s port=%d bind=%s tls=%s%n",
                Runtime.version(), https == null ? "" : ",h1s", executor, port, bind,
                https == null ? "off" : "tcp:" + https.getAddress().getPort());
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
            System.err.printf("jdk-httpserver: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
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
            System.err.printf("jdk-httpserver: cannot read TLS_CERT and TLS_KEY (%s, %s): %s%n", cert, key, e);
            System.exit(2);
            return null;
        }
    }

    private static void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("Server", SERVER);
            String method = exchange.getRequestMethod();
            switch (exchange.getRequestURI().getPath()) {
                case "/" -> {
                    if (!allow(exchange, method, "GET")) return;
                    try (InputStream body = exchange.getRequestBody()) {
                        body.transferTo(OutputStream.nullOutputStream());
                    }
                    send(exchange, 200, null, new byte[0]);
                }
                case "/no-read" -> {
                    if (allow(exchange, method, "GET")) send(exchange, 200, null, new byte[0]);
                }
                case "/hello" -> {
                    if (allow(exchange, method, "GET")) send(exchange, 200, "text/plain", HELLO);
                }
                case "/file" -> {
                    if (allow(exchange, method, "GET")) file(exchange);
                }
                case "/load" -> {
                    if (!allow(exchange, method, "POST")) return;
                    byte[] body;
                    try (InputStream in = exchange.getRequestBody()) {
                        body = in.readAllBytes();
                    }
                    send(exchange, 200, "text/plain", Base64.getEncoder().encode(body));
                }
                default -> send(exchange, 404, "text/plain", "not found\n".getBytes(StandardCharsets.US_ASCII));
            }
        }
    }

    private static boolean allow(HttpExchange exchange, String method, String allowed) throws IOException {
        if (allowed.equals(method)) return true;
        exchange.getResponseHeaders().set("Allow", allowed);
        send(exchange, 405, "text/plain", "method not allowed\n".getBytes(StandardCharsets.US_ASCII));
        return false;
    }

    private static void file(HttpExchange exchange) throws IOException {
        String raw = queryParameter(exchange.getRequestURI().getRawQuery(), "size");
        long size;
        try {
            size = raw == null ? DEFAULT_FILE_SIZE : Long.parseLong(raw);
        } catch (NumberFormatException e) {
            size = -1;
        }
        if (size < 0 || size > MAX_FILE_SIZE) {
            byte[] reason = ("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n").getBytes(StandardCharsets.US_ASCII);
            send(exchange, 400, "text/plain", reason);
            return;
        }
        send(exchange, 200, "application/octet-stream", FILES.computeIfAbsent((int) size, JdkHttpServer::content));
    }

    /** The contract's /file content: byte i is 'a' + i % 26. */
    private static byte[] content(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
        return bytes;
    }

    private static String queryParameter(String query, String name) {
        if (query == null) return null;
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name)) return pair.substring(eq + 1);
        }
        return null;
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        if (contentType != null) exchange.getResponseHeaders().set("Content-Type", contentType);
        // -1 means "no body" (Content-Length: 0); 0 would mean chunked.
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
