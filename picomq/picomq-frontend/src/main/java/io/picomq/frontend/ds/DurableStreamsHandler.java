package io.picomq.frontend.ds;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.picomq.frontend.http.AllowedOrigins;
import io.picomq.frontend.http.CorsPolicy;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.RequestHandler;
import io.picomq.frontend.http.StreamNames;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.Expiry;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamService;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * The Durable Streams protocol: routes {@code /v1/stream/{name}} requests by method. Writes are
 * {@link Creates} and {@link Appends}, reads {@link Reads} (SSE through {@link SseSession}); {@code
 * HEAD} and {@code DELETE} live here, and the answers they share in {@link Answers}.
 *
 * <p>Runs on the listener's virtual threads, so it joins service futures directly; a live read that
 * parks continues on {@code continuations}. A request the protocol cannot accept is answered 400
 * ({@link BadRequest}) before anything changes.
 */
public final class DurableStreamsHandler implements RequestHandler {

  /** Where streams live: {@code /v1/stream/a/b} is the stream {@code /a/b}. */
  public static final String BASE_PATH = StreamPath.BASE;

  private static final String METHODS = "GET, HEAD, PUT, POST, DELETE, OPTIONS";

  private final StreamService service;
  private final Creates creates;
  private final Appends appends;
  private final Reads reads;

  /**
   * @param clock judges {@code Stream-Expires-At} and paces {@code Stream-Cursor}
   * @param continuations runs the rest of a live read after a wait (give it virtual threads)
   */
  public DurableStreamsHandler(
      StreamService service,
      LiveOptions options,
      InstantSource clock,
      RandomGenerator random,
      Executor continuations) {
    this.service = service;
    this.creates = new Creates(service, clock);
    this.appends = new Appends(service);
    this.reads = new Reads(service, options, new Cursors(clock, random), continuations);
  }

  /** Headers on every response of this protocol, errors included (protocol section 10.7). */
  public static Map<String, String> commonHeaders() {
    return Map.of(
        "X-Content-Type-Options", "nosniff",
        "Cross-Origin-Resource-Policy", "cross-origin");
  }

  /**
   * What browsers are told about pages of {@code origins} (changed with {@code setting}): they may
   * use every method and send every header of the protocol, and read its answer headers.
   */
  public static CorsPolicy cors(AllowedOrigins origins, String setting) {
    return new CorsPolicy(
        origins,
        setting,
        METHODS,
        DsHeaders.ALLOWED_REQUEST_HEADERS,
        DsHeaders.EXPOSED_RESPONSE_HEADERS);
  }

  @Override
  public void handle(Exchange exchange) {
    try {
      route(exchange);
    } catch (BadRequest bad) {
      Answers.badRequest(exchange, bad.getMessage());
    }
  }

  private void route(Exchange exchange) throws BadRequest {
    if (exchange.method().equals(HttpMethod.OPTIONS)) {
      // CORS preflights never get here: the listener answers them (CorsPolicy).
      HttpHeaders headers = new DefaultHttpHeaders();
      headers.set(HttpHeaderNames.ALLOW, METHODS);
      exchange.respond(NO_CONTENT, headers, Answers.EMPTY);
      return;
    }
    Optional<String> name = StreamPath.streamName(exchange.path());
    if (name.isEmpty()) {
      exchange.respondError(NOT_FOUND, "not_found", "streams live under " + BASE_PATH + "/");
      return;
    }
    Optional<String> problem = StreamNames.problem(name.get());
    if (problem.isPresent()) {
      exchange.respondError(BAD_REQUEST, "invalid_stream_name", problem.get());
      return;
    }
    switch (exchange.method().name()) {
      case "PUT" -> creates.create(exchange, name.get());
      case "POST" -> appends.append(exchange, name.get());
      case "GET" -> reads.read(exchange, name.get());
      case "HEAD" -> head(exchange, name.get());
      case "DELETE" -> delete(exchange, name.get());
      default -> {
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set(HttpHeaderNames.ALLOW, METHODS);
        exchange.respondError(
            METHOD_NOT_ALLOWED,
            headers,
            "method_not_allowed",
            exchange.method() + " is not served");
      }
    }
  }

  private void head(Exchange exchange, String name) {
    switch (service.head(name).join()) {
      case HeadOutcome.Found found -> {
        StreamDescription stream = found.stream();
        HttpHeaders headers = Answers.streamHeaders(stream);
        headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        switch (stream.expiry()) {
          case Expiry.Ttl ttl -> headers.set(DsHeaders.TTL, Long.toString(ttl.seconds()));
          case Expiry.At at -> headers.set(DsHeaders.EXPIRES_AT, at.instant().toString());
          case Expiry.Never never -> {}
        }
        exchange.respond(OK, headers, Answers.EMPTY);
      }
      case HeadOutcome.NotFound notFound -> Answers.notFound(exchange);
      case HeadOutcome.Gone gone -> Answers.gone(exchange);
    }
  }

  private void delete(Exchange exchange, String name) {
    switch (service.delete(name).join()) {
      case DeleteOutcome.Deleted deleted ->
          exchange.respond(NO_CONTENT, new DefaultHttpHeaders(), Answers.EMPTY);
      case DeleteOutcome.NotFound notFound -> Answers.notFound(exchange);
      case DeleteOutcome.Gone gone -> Answers.gone(exchange);
    }
  }
}
