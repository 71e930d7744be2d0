package io.picomq.frontend.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A test client speaking HTTP/2 over cleartext with prior knowledge (the connection opens with the
 * HTTP/2 preface, no upgrade), which {@link java.net.http.HttpClient} cannot do.
 */
final class H2PriorKnowledgeClient implements AutoCloseable {

  /** A response: status, headers (lower-case names), body as UTF-8. */
  record Response(int status, Map<String, String> headers, String body) {}

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel connection;

  H2PriorKnowledgeClient(InetSocketAddress server) throws InterruptedException {
    connection =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel channel) {
                    channel
                        .pipeline()
                        .addLast(Http2FrameCodecBuilder.forClient().build())
                        .addLast(
                            new Http2MultiplexHandler(
                                new SimpleChannelInboundHandler<>() {
                                  @Override
                                  protected void channelRead0(
                                      ChannelHandlerContext ctx, Object msg) {}
                                }));
                  }
                })
            .connect(server)
            .sync()
            .channel();
  }

  Response send(HttpMethod method, String path, Map<String, String> headers, String body)
      throws Exception {
    CompletableFuture<Response> response = new CompletableFuture<>();
    Http2StreamChannel stream =
        new Http2StreamChannelBootstrap(connection)
            .handler(
                new ChannelInitializer<Http2StreamChannel>() {
                  @Override
                  protected void initChannel(Http2StreamChannel channel) {
                    channel
                        .pipeline()
                        .addLast(new Http2StreamFrameToHttpObjectCodec(false))
                        .addLast(new HttpObjectAggregator(1 << 20))
                        .addLast(
                            new SimpleChannelInboundHandler<FullHttpResponse>() {
                              @Override
                              protected void channelRead0(
                                  ChannelHandlerContext ctx, FullHttpResponse message) {
                                Map<String, String> names = new HashMap<>();
                                message
                                    .headers()
                                    .forEach(
                                        h ->
                                            names.put(
                                                h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
                                response.complete(
                                    new Response(
                                        message.status().code(),
                                        names,
                                        message.content().toString(StandardCharsets.UTF_8)));
                              }
                            });
                  }
                })
            .open()
            .sync()
            .getNow();
    FullHttpRequest request =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1,
            method,
            path,
            Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    request.headers().set(HttpHeaderNames.HOST, "localhost");
    request.headers().set("x-http2-scheme", "http");
    headers.forEach(request.headers()::set);
    HttpUtil.setContentLength(request, request.content().readableBytes());
    stream.writeAndFlush(request);
    return response.get(10, TimeUnit.SECONDS);
  }

  /** Whether the connection is still open (the server may close it). */
  boolean isOpen() {
    return connection.isActive();
  }

  @Override
  public void close() {
    connection.close().awaitUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
