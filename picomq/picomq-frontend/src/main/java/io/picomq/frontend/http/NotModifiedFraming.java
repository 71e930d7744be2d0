package io.picomq.frontend.http;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Keeps an HTTP/1.1 connection alive across a {@code 304 Not Modified}. Netty's {@code
 * HttpServerKeepAliveHandler} closes the connection after any response whose end it cannot tell
 * from its headers (no {@code Content-Length}, not chunked), and it does not know that a 304 never
 * has a body. So {@link Exchange} marks its HTTP/1.1 304s with {@code Content-Length: 0}, which
 * passes that check, and this handler, sitting between the codec and the keep-alive handler, takes
 * the mark off on the way out: a 304 must not carry a {@code Content-Length} other than that of the
 * 200 it stands for (RFC 9110, section 8.6), and the codec frames a 304 as bodiless by itself.
 */
@Sharable
final class NotModifiedFraming extends ChannelOutboundHandlerAdapter {
  static final NotModifiedFraming INSTANCE = new NotModifiedFraming();

  private NotModifiedFraming() {}

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse response
        && response.status().code() == HttpResponseStatus.NOT_MODIFIED.code()) {
      response.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
    }
    ctx.write(msg, promise);
  }
}
