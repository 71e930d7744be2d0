package io.picomq.frontend.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

/**
 * Collects a request body up to the limit; past it, answers 413 with a JSON error and closes the
 * connection (HTTP/1.1) or the stream (HTTP/2), since the rest of the body is still on its way.
 *
 * <p>A request with {@code Expect: 100-continue} is refused before its body is sent: Netty answers
 * such a request itself (413 when its {@code Content-Length} is too large, 417 for an expectation
 * it does not know), with an empty body; those answers are replaced by the same JSON errors.
 */
final class LimitedAggregator extends HttpObjectAggregator {

  private final ListenerState state;

  LimitedAggregator(ListenerState state) {
    super(state.limits.maxBodyBytes());
    this.state = state;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    ctx.writeAndFlush(tooLarge()).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
    if (!(answer instanceof FullHttpResponse refusal)) {
      return answer;
    }
    HttpResponseStatus status = refusal.status();
    if (status.equals(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE)) {
      ReferenceCountUtil.release(refusal);
      return tooLarge();
    }
    if (status.equals(HttpResponseStatus.EXPECTATION_FAILED)) {
      ReferenceCountUtil.release(refusal);
      return error(
          HttpResponseStatus.EXPECTATION_FAILED,
          "expectation_failed",
          "the only Expect this server knows is 100-continue");
    }
    return answer;
  }

  /** A refused expectation closes the connection: the body the client may still send is unread. */
  @Override
  protected boolean closeAfterContinueResponse(Object response) {
    return ignoreContentAfterContinueResponse(response);
  }

  private FullHttpResponse tooLarge() {
    return error(
        HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
        "body_too_large",
        "the request body exceeds " + state.limits.maxBodyBytes() + " bytes");
  }

  private FullHttpResponse error(HttpResponseStatus status, String error, String message) {
    byte[] body = JsonError.body(error, message);
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers().add(state.commonHeaders);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    HttpUtil.setContentLength(response, body.length);
    return response;
  }
}
