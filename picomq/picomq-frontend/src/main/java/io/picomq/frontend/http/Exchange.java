package io.picomq.frontend.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One request and the means to answer it, once. The request is fully read (the body is in memory,
 * within {@link HttpLimits}). Answer with {@link #respond} or {@link #stream}; any thread may.
 */
public final class Exchange {

  private final Channel channel;
  private final ListenerState state;
  private final boolean http2;
  private final HttpMethod method;
  private final String path;
  private final String rawPath;
  private final Map<String, List<String>> query;
  private final HttpHeaders headers;
  private final byte[] body;
  private final Runnable onFinished;
  private final AtomicBoolean answered = new AtomicBoolean();
  private final AtomicBoolean finished = new AtomicBoolean();
  private final CompletableFuture<Void> interrupted = new CompletableFuture<>();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private volatile boolean closeConnection;

  /** The status answered, 0 until then; read by a {@link RequestObserver}. */
  private volatile int status;

  Exchange(
      Channel channel,
      ListenerState state,
      boolean http2,
      HttpMethod method,
      String path,
      String rawPath,
      Map<String, List<String>> query,
      HttpHeaders headers,
      byte[] body,
      Runnable onFinished) {
    this.channel = channel;
    this.state = state;
    this.http2 = http2;
    this.method = method;
    this.path = path;
    this.rawPath = rawPath;
    this.query = query;
    this.headers = headers;
    this.body = body;
    this.onFinished = onFinished;
  }

  public HttpMethod method() {
    return method;
  }

  /** The request path, percent-decoded, without the query. */
  public String path() {
    return path;
  }

  /** The request path as sent, still percent-encoded, without the query. */
  public String rawPath() {
    return rawPath;
  }

  /** Query parameters, decoded; a parameter given twice has two values. */
  public Map<String, List<String>> query() {
    return query;
  }

  /** The request headers (read-only by convention: do not modify). */
  public HttpHeaders headers() {
    return headers;
  }

  /** The request body; empty when there was none. Owned by the exchange: do not modify. */
  public byte[] body() {
    return body;
  }

  public boolean isHttp2() {
    return http2;
  }

  /**
   * {@code https} when the request came over TLS, else {@code http}: for URLs the answer names,
   * such as a {@code Location}.
   */
  public String scheme() {
    Channel connection = channel instanceof Http2StreamChannel stream ? stream.parent() : channel;
    return connection.pipeline().get(SslHandler.class) != null ? "https" : "http";
  }

  /**
   * Completes when the exchange should stop waiting: the client went away or the listener is
   * shutting down. Live responses (long-poll, SSE) watch it.
   */
  public CompletableFuture<Void> interrupted() {
    return interrupted;
  }

  /** Answers with a complete response. {@code headers} are added to the listener's own. */
  public void respond(HttpResponseStatus status, HttpHeaders headers, byte[] body) {
    claim();
    this.status = status.code();
    boolean bodyless =
        method.equals(HttpMethod.HEAD)
            || status.equals(HttpResponseStatus.NO_CONTENT)
            || status.equals(HttpResponseStatus.NOT_MODIFIED);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            status,
            bodyless ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    decorate(response, headers);
    if (!bodyless) {
      HttpUtil.setContentLength(response, body.length);
    } else if (method.equals(HttpMethod.HEAD) && !HttpUtil.isContentLengthSet(response)) {
      // Without a length an HTTP/1.1 connection could not be kept alive after a HEAD.
      HttpUtil.setContentLength(response, 0);
    } else if (!http2 && status.equals(HttpResponseStatus.NOT_MODIFIED)) {
      // Tells the keep-alive handler the response ends here; NotModifiedFraming removes it again.
      HttpUtil.setContentLength(response, 0);
    }
    channel.writeAndFlush(response).addListener(written -> finished(!written.isSuccess()));
  }

  /**
   * Answers once {@code outcome} completes, without a thread waiting for it: {@code answer} runs on
   * the connection's event loop, where the response is written anyway, so a request costs one
   * hand-off back instead of a parked virtual thread woken to hand off again. A failed outcome, or
   * an {@code answer} that throws, is answered by {@link FailureAnswers} (a bug: logged, 500).
   */
  public <T> void answerWhenDone(CompletableFuture<T> outcome, Consumer<? super T> answer) {
    outcome.whenCompleteAsync(
        (value, failure) -> {
          try {
            if (failure != null) {
              throw new CompletionException(failure);
            }
            answer.accept(value);
          } catch (RuntimeException | Error failed) {
            FailureAnswers.answer(this, failed);
          }
        },
        channel.eventLoop());
  }

  /** Answers with the JSON error body of {@link JsonError}. */
  public void respondError(HttpResponseStatus status, String error, String message) {
    respondError(status, new DefaultHttpHeaders(), error, message);
  }

  /** Answers with the JSON error body of {@link JsonError}, plus these headers. */
  public void respondError(
      HttpResponseStatus status, HttpHeaders headers, String error, String message) {
    headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    respond(status, headers, JsonError.body(error, message));
  }

  /** Starts a response whose body follows over time; end it with {@link ResponseStream#end}. */
  public ResponseStream stream(HttpResponseStatus status, HttpHeaders headers) {
    claim();
    this.status = status.code();
    HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
    decorate(response, headers);
    if (!http2) {
      HttpUtil.setTransferEncodingChunked(response, true);
    }
    channel.writeAndFlush(response);
    return new ResponseStream(channel, this);
  }

  /** Completes once the response is fully written, or failed to be (after {@link #interrupted}). */
  public CompletableFuture<Void> done() {
    return done;
  }

  /** The status code answered, or 0 while unanswered (or if the client left first). */
  public int status() {
    return status;
  }

  void closeConnectionAfterResponse() {
    closeConnection = true;
  }

  void interrupt() {
    interrupted.complete(null);
  }

  boolean answered() {
    return answered.get();
  }

  /** Called once the response is fully written, or failed to be. */
  void finished(boolean failed) {
    if (!finished.compareAndSet(false, true)) {
      return;
    }
    interrupt();
    state.finished(this);
    if (failed || (!http2 && (closeConnection || state.draining()))) {
      channel.close();
    }
    // Usually called by the write's listener, on the event loop already: no task to queue then.
    if (channel.eventLoop().inEventLoop()) {
      onFinished.run();
    } else if (!channel.eventLoop().isShuttingDown()) {
      channel.eventLoop().execute(onFinished);
    }
    done.complete(null);
  }

  private void claim() {
    if (!answered.compareAndSet(false, true)) {
      throw new IllegalStateException("the exchange for " + method + " " + path + " is answered");
    }
  }

  private void decorate(HttpResponse response, HttpHeaders headers) {
    response.headers().add(state.commonHeaders).add(headers);
    state.cors.decorate(this.headers.get(HttpHeaderNames.ORIGIN), response.headers());
    if (!http2 && (closeConnection || state.draining())) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
  }
}
