package io.picomq.frontend.http;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns aggregated requests into {@link Exchange}s and runs the handler on a virtual thread.
 *
 * <p>Before a request reaches the handler: a malformed or oversized one is answered here, so is one
 * whose {@code Host} (HTTP/2: {@code :authority}, which the codec turns into {@code Host}) the
 * listener does not answer for ({@code 421}, {@link AllowedHosts}), one access control refused on
 * its head ({@code 401}/{@code 403}, {@link AccessGate}), a CORS preflight, and a write sent by a
 * page of a foreign origin ({@code 403}, {@link CorsPolicy}).
 *
 * <p>One instance per HTTP/1.1 connection or per HTTP/2 stream. On HTTP/1.1 it answers requests in
 * arrival order: a pipelined request waits until the response before it has been written.
 *
 * <p>Threading: every field is owned by the channel's event loop.
 */
final class RequestDispatcher extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);

  private final ListenerState state;
  private final boolean http2;
  private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
  private Exchange current;

  RequestDispatcher(ListenerState state, boolean http2) {
    this.state = state;
    this.http2 = http2;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (current != null) {
      waiting.add(request);
      return;
    }
    dispatch(ctx, request);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (current != null) {
      current.interrupt();
    }
    waiting.forEach(ReferenceCountUtil::release);
    waiting.clear();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("closing {} after an error", ctx.channel(), cause);
    ctx.close();
  }

  private void dispatch(ChannelHandlerContext ctx, FullHttpRequest request) {
    Exchange exchange;
    Rejection rejection;
    try {
      rejection = check(request);
      if (rejection == null && request instanceof AccessGate.RefusedRequest refused) {
        rejection = Rejection.of(refused);
      }
      QueryStringDecoder uri = new QueryStringDecoder(rejection == null ? request.uri() : "/");
      String path = uri.path();
      Map<String, List<String>> query = uri.parameters();
      exchange =
          new Exchange(
              ctx.channel(),
              state,
              http2,
              request.method(),
              path,
              uri.rawPath(),
              query,
              // The request's own headers: releasing the request frees only its body buffer.
              request.headers(),
              ByteBufUtil.getBytes(request.content()),
              () -> next(ctx));
    } catch (IllegalArgumentException badEncoding) {
      rejection =
          new Rejection(
              HttpResponseStatus.BAD_REQUEST, "bad_request", "malformed request target", true);
      exchange = emptyExchange(ctx, request);
    } finally {
      request.release();
    }
    current = exchange;
    state.began(exchange);
    ConnectionGuard.of(ctx.channel()).requestStarted();
    if (rejection != null) {
      if (rejection.close) {
        exchange.closeConnectionAfterResponse();
      }
      exchange.respondError(
          rejection.status, rejection.headers(), rejection.error, rejection.message);
      return;
    }
    if (CorsPolicy.isPreflight(exchange.method(), exchange.headers())) {
      state.cors.answerPreflight(exchange);
      return;
    }
    if (state.cors.refusesWrite(exchange.method(), exchange.headers())) {
      state.cors.refuseWrite(exchange);
      return;
    }
    Exchange running = exchange;
    state.handlerExecutor.execute(() -> run(running));
  }

  private Exchange emptyExchange(ChannelHandlerContext ctx, FullHttpRequest request) {
    return new Exchange(
        ctx.channel(),
        state,
        http2,
        request.method(),
        "/",
        "/",
        Map.of(),
        new DefaultHttpHeaders(),
        new byte[0],
        () -> next(ctx));
  }

  private void run(Exchange exchange) {
    try {
      state.handler.handle(exchange);
    } catch (RuntimeException | Error failed) {
      FailureAnswers.answer(exchange, failed);
    }
  }

  /** Runs on the event loop once the current response is written. */
  private void next(ChannelHandlerContext ctx) {
    current = null;
    ConnectionGuard.of(ctx.channel()).requestFinished();
    FullHttpRequest request = waiting.poll();
    if (request != null) {
      if (ctx.channel().isActive()) {
        dispatch(ctx, request);
      } else {
        request.release();
      }
    }
  }

  private Rejection check(FullHttpRequest request) {
    DecoderResult decoded = request.decoderResult();
    if (decoded.isFailure()) {
      Throwable cause = decoded.cause();
      if (cause instanceof TooLongHttpHeaderException) {
        return tooManyHeaders();
      }
      if (cause instanceof TooLongHttpLineException) {
        return new Rejection(
            HttpResponseStatus.REQUEST_URI_TOO_LONG,
            "uri_too_long",
            "the request line is longer than " + state.limits.maxRequestLineBytes() + " bytes",
            true);
      }
      if (cause instanceof TooLongFrameException) {
        return tooManyHeaders();
      }
      return new Rejection(
          HttpResponseStatus.BAD_REQUEST, "bad_request", "malformed request", true);
    }
    if (headerBytes(request.headers()) > state.limits.maxHeaderBytes()) {
      return tooManyHeaders();
    }
    for (String host : request.headers().getAll(HttpHeaderNames.HOST)) {
      if (!state.allowedHosts.allows(host)) {
        // Well framed, so the connection stays usable.
        return new Rejection(
            HttpResponseStatus.MISDIRECTED_REQUEST,
            "host_not_allowed",
            "this listener does not answer for Host '"
                + host
                + "' (a guard against DNS rebinding); to allow it, add it to --allowed-hosts"
                + " (PICO_ALLOWED_HOSTS)",
            false);
      }
    }
    if (!RequestTargets.decodesToUtf8(request.uri())) {
      // Well framed, so the connection stays usable.
      return new Rejection(
          HttpResponseStatus.BAD_REQUEST,
          "bad_request",
          "the request target is not UTF-8 once percent-decoded",
          false);
    }
    return null;
  }

  private Rejection tooManyHeaders() {
    return new Rejection(
        HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
        "headers_too_large",
        "the request headers exceed " + state.limits.maxHeaderBytes() + " bytes",
        true);
  }

  private static long headerBytes(HttpHeaders headers) {
    long bytes = 0;
    // The CharSequence view: the String view would turn every name and value into a new String.
    Iterator<Entry<CharSequence, CharSequence>> all = headers.iteratorCharSequence();
    while (all.hasNext()) {
      Entry<CharSequence, CharSequence> header = all.next();
      bytes += header.getKey().length() + header.getValue().length();
    }
    return bytes;
  }

  /**
   * @param close whether to close the connection after the answer (the request was not framed well,
   *     or its rest may still be on its way)
   */
  private record Rejection(
      HttpResponseStatus status, String error, String message, boolean close, HttpHeaders headers) {

    Rejection(HttpResponseStatus status, String error, String message, boolean close) {
      this(status, error, message, close, new DefaultHttpHeaders());
    }

    /** Access control's answer: a 401 carries the challenge. */
    static Rejection of(AccessGate.RefusedRequest refused) {
      HttpHeaders headers = new DefaultHttpHeaders();
      if (refused.refusal.status().equals(HttpResponseStatus.UNAUTHORIZED)) {
        headers.set(HttpHeaderNames.WWW_AUTHENTICATE, AccessRefusal.CHALLENGE);
      }
      return new Rejection(
          refused.refusal.status(),
          refused.refusal.error(),
          refused.refusal.message(),
          refused.closeAfter,
          headers);
    }
  }
}
