package dev.barrage.servers.vertx;

import io.vertx.core.http.HttpVersion;
import java.util.List;
import java.nio.file.Path;
import java.nio.file.Files;
import io.vertx.core.net.PemKeyCertOptions;
import io.netty.handler.ssl.OpenSsl;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Barrage contract (servers/CONTRACT.md) on Vert.x core: a verticle with an HttpServer,
 * deployed once per event loop (Vert.x shares the port between the instances). HTTP/1.1
 * and h2c (Upgrade and prior knowledge: Vert.x's cleartext HTTP/2, on by default) on one port;
 * given TLS_PORT, HTTPS there on the JDK's TLS or, with TLS_PROVIDER=openssl, OpenSSL (netty-tcnative).
 */
public final class VertxServer extends VerticleBase {
    private static final int DEFAULT_FILE_SIZE = 1_048_576;
    private static final int MAX_FILE_SIZE = 104_857_600;
    private static final String VERSION = version();
    private static final CharSequence SERVER = HttpHeaders.createOptimized("Vert.x/" + VERSION);
    private static final CharSequence TEXT_PLAIN = HttpHeaders.createOptimized("text/plain");
    private static final CharSequence OCTET_STREAM = HttpHeaders.createOptimized("application/octet-stream");
    private static final Buffer HELLO = Buffer.buffer("Hello world");
    private static final ConcurrentHashMap<Integer, Buffer> FILES = new ConcurrentHashMap<>();
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    /** The Date header, formatted once a second by each verticle's own timer. */
    private CharSequence date = now();

    public static void main(String[] args) {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        // THREADING (servers/vertx/variants.tsv): eventloop (the handlers on the event loops,
        // Vert.x's default) or virtual (virtual-thread verticles: ThreadingModel.VIRTUAL_THREAD)
        String threading = System.getenv().getOrDefault("THREADING", "eventloop");
        ThreadingModel model = switch (threading) {
            case "eventloop" -> ThreadingModel.EVENT_LOOP;
            case "virtual" -> ThreadingModel.VIRTUAL_THREAD;
            default -> {
                System.err.printf("vertx: THREADING wants eventloop or virtual, got '%s'%n", threading);
                System.exit(2);
                yield ThreadingModel.EVENT_LOOP;
            }
        };
        // TLS_PROVIDER (servers/vertx/variants.tsv): HTTPS on jdk (JSSE, the default) or openssl (netty-tcnative)
        String provider = System.getenv().getOrDefault("TLS_PROVIDER", "jdk");
        if (!provider.equals("jdk") && !provider.equals("openssl")) {
            System.err.printf("vertx: TLS_PROVIDER wants jdk or openssl, got '%s'%n", provider);
            System.exit(2);
        }
        HttpServerOptions tls = httpsOptions(bind, provider); // null without TLS_PORT: no HTTPS
        Vertx vertx = Vertx.vertx();
        HttpServerOptions options = new HttpServerOptions().setHost(bind).setPort(port);
        // One verticle instance per event loop, as Vert.x's documentation scales a server
        // over the cores; the event-loop count stays at Vert.x's default.
        try {
            vertx.deployVerticle(() -> new VertxServer(options, tls),
                    new DeploymentOptions().setInstances(VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE)
                            .setThreadingModel(model)).await();
        } catch (Exception e) {
            // The event loops are not daemons: exit rather than run on without the port.
            System.err.printf("vertx: cannot listen on %s:%d%s: %s%n", bind, port,
                    tls == null ? "" : " and " + tls.getPort() + " (TLS)", e);
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await()));
        System.out.printf("server=vertx version=%s protocols=h1,h2c%s transport=%s threading=%s port=%d bind=%s tls=%s%n",
                VERSION, tls == null ? "" : ",h1s,h2", vertx.isNativeTransportEnabled() ? "native" : "nio", threading,
                port, bind,
                tls == null ? "off" : "tcp:" + tls.getPort() + " tls_provider=" + provider);
    }

    /**
     * HTTPS on TLS_PORT (null when it is unset): the PEM certificate and PKCS#8 key named by
     * TLS_CERT and TLS_KEY on the JDK's TLS (JSSE, provider jdk) or OpenSSL (provider openssl:
     * netty-tcnative's BoringSSL), ALPN offering h2 and http/1.1. Without a readable certificate
     * and key, or openssl where netty-tcnative does not load, exits 2: no quiet fall-back to JSSE.
     */
    private static HttpServerOptions httpsOptions(String bind, String provider) {
        String port = System.getenv("TLS_PORT");
        if (port == null || port.isEmpty()) return null;
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !Files.isReadable(Path.of(cert)) || !Files.isReadable(Path.of(key))) {
            System.err.printf("vertx: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        if (provider.equals("openssl") && !OpenSSLEngineOptions.isAvailable()) {
            System.err.printf("vertx: TLS_PROVIDER=openssl, but OpenSSL (netty-tcnative) is not available: %s%n",
                    OpenSsl.unavailabilityCause());
            System.exit(2);
        }
        return new HttpServerOptions().setHost(bind).setPort(Integer.parseInt(port))
                .setSsl(true)
                .setSslEngineOptions(provider.equals("openssl") ? new OpenSSLEngineOptions() : new JdkSSLEngineOptions())
                .setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert).setKeyPath(key))
                .setUseAlpn(true)
                .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1));
    }

    private final HttpServerOptions options;
    private final HttpServerOptions tlsOptions;

    private VertxServer(HttpServerOptions options, HttpServerOptions tlsOptions) {
        this.options = options;
        this.tlsOptions = tlsOptions;
    }

    @Override
    public Future<?> start() {
        vertx.setPeriodic(1000, id -> date = now());
        Future<?> plain = vertx.createHttpServer(options).requestHandler(this::handle).listen();
        if (tlsOptions == null) return plain;
        return Future.all(plain, vertx.createHttpServer(tlsOptions).requestHandler(this::handle).listen());
    }

    private void handle(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        response.headers().add(HttpHeaders.SERVER, SERVER).add(HttpHeaders.DATE, date);
        HttpMethod method = request.method();
        switch (request.path()) {
            case "/" -> {
                // Nothing handles the data, so Vert.x drops it; answer once the body has ended.
                if (allow(request, method, HttpMethod.GET)) request.end().onComplete(done -> response.end());
            }
            case "/no-read" -> {
                if (allow(request, method, HttpMethod.GET)) response.end();
            }
            case "/hello" -> {
                if (allow(request, method, HttpMethod.GET)) send(response, 200, TEXT_PLAIN, HELLO);
            }
            case "/file" -> {
                if (allow(request, method, HttpMethod.GET)) file(request, response);
            }
            case "/ws" -> {
                if (allow(request, method, HttpMethod.GET)) webSocket(request);
            }
            case "/load" -> {
                if (allow(request, method, HttpMethod.POST)) {
                    request.body().onSuccess(body ->
                            send(response, 200, TEXT_PLAIN, Buffer.buffer(Base64.getEncoder().encode(body.getBytes()))));
                }
            }
            default -> send(response, 404, TEXT_PLAIN, Buffer.buffer("not found\n"));
        }
    }

    /**
     * GET /ws (servers/CONTRACT.md): upgrades to a WebSocket that sends each message back whole, as
     * the same type. With both message handlers set, Vert.x assembles fragmented messages; it answers
     * pings and the close handshake itself. A request that is no upgrade is a 400.
     */
    private static void webSocket(HttpServerRequest request) {
        request.toWebSocket().onSuccess(ws -> {
            ws.textMessageHandler(ws::writeTextMessage);
            ws.binaryMessageHandler(ws::writeBinaryMessage);
        }).onFailure(e -> {
            if (!request.response().headWritten()) send(request.response(), 400, TEXT_PLAIN, Buffer.buffer("not a WebSocket upgrade\n"));
        });
    }

    private static boolean allow(HttpServerRequest request, HttpMethod method, HttpMethod allowed) {
        if (allowed.equals(method)) return true;
        request.response().putHeader(HttpHeaders.ALLOW, allowed.name());
        send(request.response(), 405, TEXT_PLAIN, Buffer.buffer("method not allowed\n"));
        return false;
    }

    private static void file(HttpServerRequest request, HttpServerResponse response) {
        String raw = request.getParam("size");
        long size;
        try {
            size = raw == null ? DEFAULT_FILE_SIZE : Long.parseLong(raw);
        } catch (NumberFormatException e) {
            size = -1;
        }
        if (size < 0 || size > MAX_FILE_SIZE) {
            send(response, 400, TEXT_PLAIN, Buffer.buffer("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n"));
            return;
        }
        send(response, 200, OCTET_STREAM, FILES.computeIfAbsent((int) size, VertxServer::content));
    }

    /** The contract's /file content: byte i is 'a' + i % 26. */
    private static Buffer content(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
        return Buffer.buffer(bytes);
    }

    /** end(Buffer) sets Content-Length. */
    private static void send(HttpServerResponse response, int status, CharSequence contentType, Buffer body) {
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, contentType).end(body);
    }

    private static CharSequence now() {
        return HttpHeaders.createOptimized(HTTP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
    }

    /** vertx-core's own version file (META-INF/vertx/vertx-version.txt), e.g. 5.2.3. */
    private static String version() {
        try (InputStream in = Vertx.class.getClassLoader().getResourceAsStream("META-INF/vertx/vertx-version.txt")) {
            return in == null ? "unknown" : new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
