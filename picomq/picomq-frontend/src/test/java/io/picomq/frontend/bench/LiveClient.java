package io.picomq.frontend.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Many HTTP/1.1 connections on a couple of event-loop threads, one live request each (a parked
 * long-poll or an SSE response): what ten thousand waiting clients cost a load generator is a
 * socket and a small handler each, not a thread.
 */
final class LiveClient implements AutoCloseable {

  /** What a connection hears of its one response. Called on an event-loop thread. */
  interface Listener {
    void head(int status);

    void content(ByteBuf content);

    void end();

    void failed(Throwable cause);
  }

  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final String host;
  private final int port;

  /** Caps connects in flight, so bursts stay inside the server's accept backlog. */
  private final Semaphore connecting = new Semaphore(256);

  LiveClient(URI endpoint, int threads) {
    host = endpoint.getHost();
    port = endpoint.getPort();
    group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
    bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000);
  }

  /** Opens a connection and sends {@code GET path}; completes once the request is written. */
  CompletableFuture<Channel> get(String path, Listener listener) throws InterruptedException {
    connecting.acquire();
    CompletableFuture<Channel> sent = new CompletableFuture<>();
    Bootstrap connection =
        bootstrap
            .clone()
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    channel.pipeline().addLast(new HttpClientCodec()).addLast(new Relay(listener));
                  }
                });
    ChannelFuture connected = connection.connect(host, port);
    connected.addListener(
        done -> {
          connecting.release();
          if (!done.isSuccess()) {
            listener.failed(done.cause());
            sent.completeExceptionally(done.cause());
            return;
          }
          Channel channel = connected.channel();
          DefaultFullHttpRequest request =
              new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
          request.headers().set(HttpHeaderNames.HOST, host + ":" + port);
          channel
              .writeAndFlush(request)
              .addListener(
                  written -> {
                    if (written.isSuccess()) {
                      sent.complete(channel);
                    } else {
                      listener.failed(written.cause());
                      sent.completeExceptionally(written.cause());
                    }
                  });
        });
    return sent;
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static final class Relay extends SimpleChannelInboundHandler<HttpObject> {
    private final Listener listener;
    private boolean ended;

    Relay(Listener listener) {
      this.listener = listener;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject message) {
      if (message instanceof HttpResponse response) {
        listener.head(response.status().code());
      }
      if (message instanceof HttpContent content) {
        listener.content(content.content());
        if (message instanceof LastHttpContent) {
          ended = true;
          listener.end();
        }
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (!ended) {
        ended = true;
        listener.failed(new IllegalStateException("connection closed before the response ended"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!ended) {
        ended = true;
        listener.failed(cause);
      }
      ctx.close();
    }
  }
}
