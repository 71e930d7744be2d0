package io.picomq.frontend.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.Optional;

/**
 * Access control on the request head, ahead of the body aggregator: a refused request becomes a
 * bodyless {@link RefusedRequest} that the aggregator passes through and the dispatcher answers
 * (401 or 403) in turn, so nothing of its body is buffered and nothing of it reaches routing or the
 * protocol. The body that still follows is dropped as it arrives; on HTTP/1.1 the connection closes
 * after the answer instead of reading a body nobody wants.
 *
 * <p>CORS preflights and every other {@code OPTIONS} pass unchecked: browsers send them without
 * credentials, and they reveal nothing.
 *
 * <p>One instance per HTTP/1.1 connection or HTTP/2 stream; every field is owned by its event loop.
 */
final class AccessGate extends ChannelInboundHandlerAdapter {

  private final AccessControl access;
  private final boolean http2;

  /** Dropping the rest of a refused request's body. */
  private boolean discarding;

  AccessGate(AccessControl access, boolean http2) {
    this.access = access;
    this.http2 = http2;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest head) {
      discarding = false;
      Optional<AccessRefusal> refusal = decide(head);
      if (refusal.isEmpty()) {
        ctx.fireChannelRead(msg);
        return;
      }
      boolean complete = msg instanceof LastHttpContent;
      boolean bodyFollows = !complete && mayHaveBody(head);
      RefusedRequest refused = new RefusedRequest(head, refusal.get(), bodyFollows && !http2);
      ReferenceCountUtil.release(msg);
      discarding = !complete;
      ctx.fireChannelRead(refused);
      return;
    }
    if (discarding && msg instanceof HttpContent content) {
      discarding = !(content instanceof LastHttpContent);
      content.release();
      return;
    }
    ctx.fireChannelRead(msg);
  }

  private Optional<AccessRefusal> decide(HttpRequest head) {
    if (access == AccessControl.OPEN
        || head.decoderResult().isFailure()
        || head.method().equals(HttpMethod.OPTIONS)) {
      // A malformed request is answered by the dispatcher, as without access control.
      return Optional.empty();
    }
    String path;
    try {
      path = new QueryStringDecoder(head.uri()).path();
    } catch (IllegalArgumentException badEncoding) {
      path = null;
    }
    return access.check(head, path, mayHaveBody(head));
  }

  private boolean mayHaveBody(HttpRequest head) {
    if (head instanceof FullHttpRequest full) {
      return full.content().isReadable();
    }
    long length;
    try {
      length = HttpUtil.getContentLength(head, -1L);
    } catch (NumberFormatException badLength) {
      return true;
    }
    if (length >= 0) {
      return length > 0;
    }
    // HTTP/1.1 without a length and not chunked has no body; HTTP/2 DATA frames may follow.
    return HttpUtil.isTransferEncodingChunked(head) || http2;
  }

  /**
   * A request refused on its head: its headers, an empty body, and the refusal. Being a full
   * message, it passes the aggregator untouched.
   */
  static final class RefusedRequest extends io.netty.handler.codec.http.DefaultFullHttpRequest {
    final AccessRefusal refusal;
    final boolean closeAfter;

    RefusedRequest(HttpRequest head, AccessRefusal refusal, boolean closeAfter) {
      super(
          head.protocolVersion(),
          head.method(),
          head.uri(),
          io.netty.buffer.Unpooled.EMPTY_BUFFER,
          head.headers(),
          io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE);
      this.refusal = refusal;
      this.closeAfter = closeAfter;
    }
  }
}
