package io.picomq.frontend.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Collects a request body up to the limit; past it, answers 413 with a JSON error and closes the
 * connection (HTTP/1.1) or the stream (HTTP/2), since the rest of the body is still on its way.
 */
final class LimitedAggregator extends HttpObjectAggregator {

  private final ListenerState state;

  LimitedAggregator(ListenerState state) {
    super(state.limits.maxBodyBytes());
    this.state = state;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    byte[] body =
        JsonError.body(
            "body_too_large", "the request body exceeds " + state.limits.maxBodyBytes() + " bytes");
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            Unpooled.wrappedBuffer(body));
    response.headers().add(state.commonHeaders);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    HttpUtil.setContentLength(response, body.length);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
