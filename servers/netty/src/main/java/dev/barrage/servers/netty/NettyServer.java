package dev.barrage.servers.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3FrameToHttpObjectCodec;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.InsecureQuicTokenHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.Version;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Barrage contract (servers/CONTRACT.md) on Netty 4.2 with the native epoll transport
 * (NIO when epoll is unavailable). One TCP port speaks HTTP/1.1 and h2c, by Upgrade or with
 * prior knowledge; given a certificate (TLS_CERT and TLS_KEY), the same port number on UDP
 * speaks HTTP/3 (netty-codec-http3 over QUIC); without one, its start-up line says h3=off.
 * Given TLS_PORT too, that port speaks HTTPS (h1s and h2 by ALPN) on the JDK's TLS, or on
 * OpenSSL (BoringSSL from netty-tcnative) with TLS_PROVIDER=openssl.
 * HTTP/2 and HTTP/3 streams are child channels running the same handler.
 */
public final class NettyServer {
    private static final int DEFAULT_FILE_SIZE = 1_048_576;
    private static final int MAX_FILE_SIZE = 104_857_600;
    /** Request bodies /load accepts (see CONTRACT.md); also the aggregators' limit. */
    private static final int MAX_BODY = 32 * 1024 * 1024;
    private static final String VERSION = Version.identify().get("netty-common").artifactVersion();
    private static final AsciiString SERVER = AsciiString.cached("Netty/" + VERSION);
    private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
    private static final byte[] HELLO = "Hello world".getBytes(StandardCharsets.US_ASCII);
    private static final ContractHandler HANDLER = new ContractHandler();

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
        String bind = System.getenv().getOrDefault("BIND", "127.0.0.1");
        QuicSslContext tls = quicSslContext(); // null without a certificate: no HTTP/3
        // TLS_PROVIDER (servers/netty/variants.tsv): HTTPS on jdk (JSSE, the default) or openssl (netty-tcnative)
        String provider = System.getenv().getOrDefault("TLS_PROVIDER", "jdk");
        if (!provider.equals("jdk") && !provider.equals("openssl")) {
            System.err.printf("netty: TLS_PROVIDER wants jdk or openssl, got '%s'%n", provider);
            System.exit(2);
        }
        String tlsPortText = System.getenv("TLS_PORT");
        SslContext https = tlsPortText == null || tlsPortText.isEmpty() ? null : sslContext(provider); // no HTTPS without TLS_PORT

        // TRANSPORT (servers/netty/variants.tsv): epoll (native, the default where Linux has it)
        // or nio (the JDK's selector)
        String wanted = System.getenv().getOrDefault("TRANSPORT", "epoll");
        if (!wanted.equals("epoll") && !wanted.equals("nio")) {
            System.err.printf("netty: TRANSPORT wants epoll or nio, got '%s'%n", wanted);
            System.exit(2);
        }
        boolean epoll = wanted.equals("epoll") && Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Class<? extends DatagramChannel> datagram = epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
        String transport = epoll ? "epoll" : wanted.equals("nio") ? "nio" : "nio (epoll unavailable: " + Epoll.unavailabilityCause() + ")";

        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(io);
        Channel server;
        Channel quic = null;
        Channel secure = null;
        try {
            // HTTPS: TLS (JSSE or OpenSSL), then ALPN choosing HTTP/2 or HTTP/1.1, as in Netty's http2 tiles example
            if (https != null) {
                secure = new ServerBootstrap()
                        .group(boss, workers)
                        .channel(channel)
                        .childHandler(new TlsConnectionInitializer(https))
                        .bind(new InetSocketAddress(bind, Integer.parseInt(tlsPortText))).sync().channel();
            }
            server = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(channel)
                    .childHandler(new ConnectionInitializer())
                    .bind(new InetSocketAddress(bind, port)).sync().channel();
            // HTTP/3: one UDP channel on the same port number, as in Netty's HTTP/3 example.
            if (tls != null) {
                quic = new Bootstrap()
                        .group(workers)
                        .channel(datagram)
                        .handler(quicCodec(tls))
                        .bind(new InetSocketAddress(bind, port)).sync().channel();
            }
        } catch (Exception e) { // sync() rethrows the bind failure, e.g. a BindException
            // the event loops are not daemon threads: without an exit the JVM would run on, port-less
            System.err.printf("netty: cannot listen on %s:%d (%s%s): %s%n", bind, port, tls == null ? "tcp" : "tcp and udp",
                    https == null ? "" : ", and " + tlsPortText + " for TLS", e.getMessage());
            System.exit(1);
            return;
        }
        Channel h3 = quic;
        Channel tcpTls = secure;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (h3 != null) h3.close().syncUninterruptibly();
            if (tcpTls != null) tcpTls.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }));
        String protocols = "h1,h2c" + (tcpTls == null ? "" : ",h1s,h2");
        String tlsText = tcpTls == null ? "tls=off"
                : "tls=tcp:" + ((InetSocketAddress) tcpTls.localAddress()).getPort() + " tls_provider=" + provider;
        if (h3 != null) {
            System.out.printf("server=netty version=%s protocols=%s,h3 transport=%s port=%d bind=%s %s h3=udp:%d%n",
                    VERSION, protocols, transport, port, bind, tlsText, port);
        } else {
            System.out.printf("server=netty version=%s protocols=%s transport=%s port=%d bind=%s %s"
                    + " h3=off (no certificate: set TLS_CERT and TLS_KEY for HTTP/3)%n", VERSION, protocols, transport, port, bind,
                    tlsText);
        }
        server.closeFuture().sync();
    }

    /**
     * HTTP/3's TLS: the PEM certificate chain and PKCS#8 key named by TLS_CERT and TLS_KEY; null
     * when neither is set (no HTTP/3). One set without the other, or unreadable, exits 2.
     */
    private static QuicSslContext quicSslContext() {
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if ((cert == null || cert.isEmpty()) && (key == null || key.isEmpty())) return null;
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !new File(cert).canRead() || !new File(key).canRead()) {
            System.err.printf("netty: HTTP/3 needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        return QuicSslContextBuilder.forServer(new File(key), null, new File(cert))
                .applicationProtocols(Http3.supportedApplicationProtocols())
                .build();
    }

    /**
     * HTTPS's TLS (TLS_PORT is set): the PEM certificate chain and PKCS#8 key named by TLS_CERT and
     * TLS_KEY on the JDK's TLS (JSSE, provider jdk) or OpenSSL (provider openssl: netty-tcnative's
     * BoringSSL), ALPN offering h2 and http/1.1. Without a readable certificate and key, or
     * openssl where netty-tcnative does not load, exits 2: no quiet fall-back to JSSE.
     */
    private static SslContext sslContext(String provider) {
        String cert = System.getenv("TLS_CERT");
        String key = System.getenv("TLS_KEY");
        if (cert == null || cert.isEmpty() || key == null || key.isEmpty()
                || !new File(cert).canRead() || !new File(key).canRead()) {
            System.err.printf("netty: HTTPS on TLS_PORT needs a certificate: set TLS_CERT and TLS_KEY to readable PEM files"
                    + " (TLS_CERT=%s TLS_KEY=%s); lib/certs.sh (certs::export) makes them%n", cert, key);
            System.exit(2);
        }
        if (provider.equals("openssl") && !OpenSsl.isAvailable()) {
            System.err.printf("netty: TLS_PROVIDER=openssl, but OpenSSL (netty-tcnative) is not available: %s%n",
                    OpenSsl.unavailabilityCause());
            System.exit(2);
        }
        try {
            return SslContextBuilder.forServer(new File(cert), new File(key))
                    .sslProvider(provider.equals("openssl") ? SslProvider.OPENSSL : SslProvider.JDK)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                    .build();
        } catch (Exception e) {
            System.err.printf("netty: cannot read TLS_CERT and TLS_KEY (%s, %s): %s%n", cert, key, e);
            System.exit(2);
            return null;
        }
    }

    /** Per TLS connection: the handshake, then HTTP/2 or HTTP/1.1 as ALPN chose (HTTP/1.1 without ALPN). */
    private static final class TlsConnectionInitializer extends ChannelInitializer<SocketChannel> {
        private final SslContext tls;

        TlsConnectionInitializer(SslContext tls) {
            this.tls = tls;
        }

        @Override
        protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(tls.newHandler(ch.alloc()), new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                @Override
                protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                        ctx.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                                new Http2MultiplexHandler(new StreamInitializer()));
                    } else {
                        ctx.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY), HANDLER);
                    }
                }
            });
        }
    }

    /** The QUIC server codec: per connection an Http3ServerConnectionHandler, per request stream the contract. */
    private static ChannelHandler quicCodec(QuicSslContext tls) {
        return Http3.newQuicServerCodecBuilder()
                .sslContext(tls)
                .maxIdleTimeout(30, TimeUnit.SECONDS)
                .initialMaxData(10_000_000)
                .initialMaxStreamDataBidirectionalLocal(1_000_000)
                .initialMaxStreamDataBidirectionalRemote(1_000_000)
                .initialMaxStreamsBidirectional(100)
                .tokenHandler(InsecureQuicTokenHandler.INSTANCE)
                .handler(new ChannelInitializer<QuicChannel>() {
                    @Override
                    protected void initChannel(QuicChannel ch) {
                        ch.pipeline().addLast(new Http3ServerConnectionHandler(new ChannelInitializer<QuicStreamChannel>() {
                            @Override
                            protected void initChannel(QuicStreamChannel stream) {
                                stream.pipeline().addLast(new Http3FrameToHttpObjectCodec(true),
                                        new HttpObjectAggregator(MAX_BODY), HANDLER);
                            }
                        }));
                    }
                })
                .build();
    }

    /** Per connection: HTTP/1.1, switching to HTTP/2 on Upgrade: h2c or on the HTTP/2 preface. */
    private static final class ConnectionInitializer extends ChannelInitializer<SocketChannel> {
        @Override
        protected void initChannel(SocketChannel ch) {
            HttpServerCodec http1 = new HttpServerCodec();
            HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(http1, protocol ->
                    AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                            ? new Http2ServerUpgradeCodec(Http2FrameCodecBuilder.forServer().build(),
                                    new Http2MultiplexHandler(new StreamInitializer()))
                            : null,
                    MAX_BODY);
            ChannelHandler priorKnowledge = new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel c) {
                    c.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                            new Http2MultiplexHandler(new StreamInitializer()));
                }
            };
            ChannelPipeline p = ch.pipeline();
            p.addLast(new CleartextHttp2ServerUpgradeHandler(http1, upgrade, priorKnowledge));
            // Reached only when the client stays on HTTP/1.1: aggregate, then the contract.
            p.addLast(new SimpleChannelInboundHandler<HttpMessage>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, HttpMessage msg) {
                    ChannelPipeline pipeline = ctx.pipeline();
                    pipeline.addAfter(ctx.name(), null, HANDLER);
                    // GET /ws: Netty's WebSocket handshake, then whole messages echoed (WebSocketEcho)
                    pipeline.addAfter(ctx.name(), null, WEBSOCKET_ECHO);
                    pipeline.addAfter(ctx.name(), null, new WebSocketFrameAggregator(MAX_WEBSOCKET_MESSAGE));
                    pipeline.addAfter(ctx.name(), null, new WebSocketServerProtocolHandler(WEBSOCKET));
                    pipeline.replace(this, null, new HttpObjectAggregator(MAX_BODY));
                    ctx.fireChannelRead(ReferenceCountUtil.retain(msg));
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    ctx.close(); // e.g. a peer reset on an HTTP/2 connection: nothing to answer
                }
            });
        }
    }

    private static final int MAX_WEBSOCKET_MESSAGE = 1 << 20;
    private static final WebSocketServerProtocolConfig WEBSOCKET = WebSocketServerProtocolConfig.newBuilder()
            .websocketPath("/ws").checkStartsWith(false).allowExtensions(false)
            .maxFramePayloadLength(MAX_WEBSOCKET_MESSAGE).build();
    private static final WebSocketEcho WEBSOCKET_ECHO = new WebSocketEcho();

    /**
     * GET /ws (servers/CONTRACT.md): each message, assembled by the WebSocketFrameAggregator before
     * it, sent back whole as the same type; WebSocketServerProtocolHandler answers pings and the close.
     */
    @ChannelHandler.Sharable
    private static final class WebSocketEcho extends SimpleChannelInboundHandler<WebSocketFrame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
                ctx.write(frame.retainedDuplicate());
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
            ctx.fireChannelReadComplete();
        }
    }

    /** Per HTTP/2 stream: frames to HTTP/1-style objects, aggregated, then the same contract handler. */
    private static final class StreamInitializer extends ChannelInitializer<Http2StreamChannel> {
        @Override
        protected void initChannel(Http2StreamChannel ch) {
            ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true), new HttpObjectAggregator(MAX_BODY), HANDLER);
        }
    }

    @ChannelHandler.Sharable
    private static final class ContractHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private static final ConcurrentHashMap<Integer, byte[]> FILES = new ConcurrentHashMap<>();
        /** The Date header, formatted once per second. */
        private static volatile CachedDate date = new CachedDate(0, AsciiString.EMPTY_STRING);

        private record CachedDate(long second, AsciiString value) {}

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            QueryStringDecoder uri = new QueryStringDecoder(request.uri());
            HttpMethod method = request.method();
            FullHttpResponse response = switch (uri.path()) {
                // The aggregator has already read (and here discards) any request body.
                case "/", "/no-read" -> method == HttpMethod.GET ? response(HttpResponseStatus.OK, null, new byte[0]) : notAllowed("GET");
                case "/hello" -> method == HttpMethod.GET ? response(HttpResponseStatus.OK, TEXT_PLAIN, HELLO) : notAllowed("GET");
                case "/file" -> method == HttpMethod.GET ? file(uri.parameters().get("size")) : notAllowed("GET");
                case "/load" -> method == HttpMethod.POST ? load(request.content()) : notAllowed("POST");
                default -> response(HttpResponseStatus.NOT_FOUND, TEXT_PLAIN, ascii("not found\n"));
            };
            if (HttpUtil.isKeepAlive(request)) {
                ctx.write(response);
            } else {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.write(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush(); // one flush per read batch: pipelined responses go out together
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        private static FullHttpResponse file(List<String> sizes) {
            long size;
            try {
                size = sizes == null ? DEFAULT_FILE_SIZE : Long.parseLong(sizes.get(0));
            } catch (NumberFormatException e) {
                size = -1;
            }
            if (size < 0 || size > MAX_FILE_SIZE) {
                return response(HttpResponseStatus.BAD_REQUEST, TEXT_PLAIN,
                        ascii("size must be an integer from 0 to " + MAX_FILE_SIZE + "\n"));
            }
            return response(HttpResponseStatus.OK, HttpHeaderValues.APPLICATION_OCTET_STREAM,
                    FILES.computeIfAbsent((int) size, ContractHandler::content));
        }

        /** The contract's /file content: byte i is 'a' + i % 26. */
        private static byte[] content(int size) {
            byte[] bytes = new byte[size];
            for (int i = 0; i < size; i++) bytes[i] = (byte) ('a' + i % 26);
            return bytes;
        }

        private static FullHttpResponse load(ByteBuf body) {
            byte[] bytes = new byte[body.readableBytes()];
            body.readBytes(bytes);
            return response(HttpResponseStatus.OK, TEXT_PLAIN, Base64.getEncoder().encode(bytes));
        }

        private static FullHttpResponse notAllowed(String allowed) {
            FullHttpResponse response = response(HttpResponseStatus.METHOD_NOT_ALLOWED, TEXT_PLAIN, ascii("method not allowed\n"));
            response.headers().set(HttpHeaderNames.ALLOW, allowed);
            return response;
        }

        private static byte[] ascii(String text) {
            return text.getBytes(StandardCharsets.US_ASCII);
        }

        private static FullHttpResponse response(HttpResponseStatus status, CharSequence contentType, byte[] body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
            if (contentType != null) response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            response.headers()
                    .set(HttpHeaderNames.SERVER, SERVER)
                    .set(HttpHeaderNames.DATE, date())
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            return response;
        }

        private static AsciiString date() {
            long second = System.currentTimeMillis() / 1000;
            CachedDate cached = date;
            if (cached.second() != second) {
                cached = new CachedDate(second, new AsciiString(DateFormatter.format(new Date(second * 1000))));
                date = cached;
            }
            return cached.value();
        }
    }
}
