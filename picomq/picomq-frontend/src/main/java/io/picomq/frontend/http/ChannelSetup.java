package io.picomq.frontend.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of an accepted connection. One port serves three ways in:
 *
 * <ul>
 *   <li>HTTP/1.1: codec, 304 framing ({@link NotModifiedFraming}), keep-alive, access control on
 *       the request head ({@link AccessGate}), body aggregation, dispatch;
 *   <li>HTTP/2 with prior knowledge: the client opens with the HTTP/2 preface, detected before any
 *       HTTP/1.1 parsing;
 *   <li>HTTP/1.1 with {@code Upgrade: h2c}: the first request is answered over HTTP/2 as stream 1.
 * </ul>
 *
 * Before any of it, a connection gets its {@link ConnectionGuard} (header and idle timeouts) at the
 * head of the pipeline. (Connections beyond the cap never get here: {@link GatedServerChannel}.)
 *
 * <p>A TLS listener ({@link ListenerState#tls}) has two ways in instead, chosen by ALPN once the
 * handshake is done ({@link AlpnSetup}): {@code h2} goes straight to the HTTP/2 handlers, {@code
 * http/1.1} (or no ALPN) to the HTTP/1.1 ones. There is no h2c upgrade over TLS. The guard still
 * comes first, so the header timeout bounds the handshake too.
 *
 * <p>Every HTTP/2 stream gets its own child channel whose pipeline converts frames to HTTP/1-style
 * messages, so both versions reach the same aggregator and dispatcher.
 */
final class ChannelSetup extends ChannelInitializer<SocketChannel> {

  private static final Logger LOG = LoggerFactory.getLogger(ChannelSetup.class);

  private final ListenerState state;
  private final ChannelGroup connections;

  ChannelSetup(ListenerState state, ChannelGroup connections) {
    this.state = state;
    this.connections = connections;
  }

  @Override
  protected void initChannel(SocketChannel channel) {
    // Admitted by the GatedServerChannel: the place is given back when the connection closes.
    channel.closeFuture().addListener(closed -> state.connections.release());
    connections.add(channel);
    channel
        .pipeline()
        .addLast(new ConnectionGuard(state.connectionLimits, state.connections, state::draining));
    if (state.tls.isPresent()) {
      channel
          .pipeline()
          .addLast(state.tls.get().newHandler(channel.alloc()))
          .addLast(new AlpnSetup());
      return;
    }
    HttpServerCodec http1 = http1Codec();
    HttpServerUpgradeHandler upgrade =
        new HttpServerUpgradeHandler(
            http1,
            protocol ->
                AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                    ? new Http2ServerUpgradeCodec(
                        http2Codec(), new Http2MultiplexHandler(streams()))
                    : null,
            state.limits.maxBodyBytes()) {
          /**
           * Only a request without a body upgrades: Netty reads an upgrade request whole before
           * passing it on, so one with a body would be buffered (up to the body limit) before the
           * access gate saw its head. Any other is served as HTTP/1.1, which a server may do with
           * any Upgrade (RFC 9110, 7.8); clients upgrade with a bodiless request (the SDK with an
           * OPTIONS).
           */
          @Override
          protected boolean shouldHandleUpgradeRequest(HttpRequest request) {
            return super.shouldHandleUpgradeRequest(request)
                && !HttpUtil.isTransferEncodingChunked(request)
                && HttpUtil.getContentLength(request, 0L) == 0;
          }
        };
    ChannelPipeline pipeline = channel.pipeline();
    pipeline.addLast(
        new CleartextHttp2ServerUpgradeHandler(
            http1,
            upgrade,
            new PriorKnowledge(http2Codec(), new Http2MultiplexHandler(streams()))));
    pipeline.addLast(new PlainHttp1(state));
  }

  private HttpServerCodec http1Codec() {
    HttpLimits limits = state.limits;
    return new HttpServerCodec(limits.maxRequestLineBytes(), limits.maxHeaderBytes(), 64 << 10);
  }

  /** The HTTP/1.1 handlers after the codec, as {@link PlainHttp1} adds them. */
  private void addHttp1Handlers(ChannelPipeline pipeline) {
    pipeline
        .addLast(NotModifiedFraming.INSTANCE)
        .addLast(new HttpServerKeepAliveHandler())
        .addLast(ConnectionGuard.RequestProgress.INSTANCE)
        .addLast(new LimitedAggregator(state))
        .addLast(new RequestDispatcher(state, false));
  }

  /**
   * Installs the pipeline ALPN chose once the TLS handshake is done. Handshake failures (a client
   * that does not trust the certificate, a scanner, plain HTTP sent to the TLS port) are the
   * client's business: logged at debug, the connection closed.
   */
  private final class AlpnSetup extends ApplicationProtocolNegotiationHandler {
    AlpnSetup() {
      super(ApplicationProtocolNames.HTTP_1_1);
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
      ChannelPipeline pipeline = ctx.pipeline();
      if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
        ConnectionGuard.of(ctx.channel()).http2();
        // The multiplexer looks for the frame codec when added: the codec goes in first.
        pipeline.addLast(http2Codec()).addLast(new Http2MultiplexHandler(streams()));
      } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
        pipeline.addLast(http1Codec());
        addHttp1Handlers(pipeline);
      } else {
        throw new IllegalStateException("ALPN chose a protocol never offered: " + protocol);
      }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug(
          "TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("closing {} before its protocol was chosen", ctx.channel(), cause);
      ctx.close();
    }
  }

  private Http2FrameCodec http2Codec() {
    // A hard cap well above the configured limit: requests between the two get the dispatcher's
    // JSON 431; only beyond it does the codec refuse the stream itself.
    long hardCap = 2L * state.limits.maxHeaderBytes() + 1024;
    return Http2FrameCodecBuilder.forServer()
        .initialSettings(Http2Settings.defaultSettings().maxHeaderListSize(hardCap))
        .build();
  }

  private ChannelInitializer<Channel> streams() {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel stream) {
        ConnectionGuard.of(stream).http2();
        stream
            .pipeline()
            .addLast(new Http2StreamFrameToHttpObjectCodec(true))
            .addLast(ConnectionGuard.RequestProgress.INSTANCE)
            .addLast(new AccessGate(state.access, true))
            .addLast(new LimitedAggregator(state))
            .addLast(new RequestDispatcher(state, true));
      }
    };
  }

  /** Installs the HTTP/2 handlers when the client opened with the preface. */
  private static final class PriorKnowledge extends io.netty.channel.ChannelInboundHandlerAdapter {
    private final Http2FrameCodec codec;
    private final Http2MultiplexHandler multiplex;

    PriorKnowledge(Http2FrameCodec codec, Http2MultiplexHandler multiplex) {
      this.codec = codec;
      this.multiplex = multiplex;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      // The multiplexer looks for the frame codec when added: the codec goes in first.
      ChannelPipeline pipeline = ctx.pipeline();
      pipeline.addAfter(ctx.name(), "http2-codec", codec);
      pipeline.addAfter("http2-codec", null, multiplex);
      pipeline.remove(this);
    }
  }

  /**
   * Reached by the first HTTP/1.1 message that is not an upgrade: the connection stays HTTP/1.1, so
   * it gets the rest of the HTTP/1.1 pipeline and passes the message on.
   */
  private static final class PlainHttp1 extends SimpleChannelInboundHandler<HttpMessage> {
    private final ListenerState state;

    PlainHttp1(ListenerState state) {
      this.state = state;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpMessage message) {
      ChannelPipeline pipeline = ctx.pipeline();
      pipeline.addAfter(ctx.name(), null, new RequestDispatcher(state, false));
      pipeline.addAfter(ctx.name(), null, new LimitedAggregator(state));
      pipeline.addAfter(ctx.name(), null, new AccessGate(state.access, false));
      pipeline.addAfter(ctx.name(), null, ConnectionGuard.RequestProgress.INSTANCE);
      pipeline.addBefore(ctx.name(), null, NotModifiedFraming.INSTANCE);
      pipeline.replace(this, null, new HttpServerKeepAliveHandler());
      ctx.fireChannelRead(ReferenceCountUtil.retain(message));
    }
  }
}
