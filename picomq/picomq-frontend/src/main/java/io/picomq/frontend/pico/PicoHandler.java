package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.AllowedOrigins;
import io.picomq.frontend.http.CorsPolicy;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.RequestHandler;
import io.picomq.frontend.http.StreamNames;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.protocol.PicoHeaders;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.Expiry;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ListQuery;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamPage;
import io.picomq.stream.StreamService;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;

/**
 * The Pico protocol: routes a request by path and method. {@code /} is the stream list; any other
 * path names a stream ({@link StreamNames}). Writes are {@link Creates} and {@link Appends}, reads
 * {@link Reads} and {@link SseFeed}; {@code HEAD}, {@code DELETE} and the list live here.
 *
 * <p>Runs on the listener's virtual threads, so it joins service futures directly; a live read that
 * parks continues on {@code continuations}. A request the protocol cannot accept is answered 400
 * before anything changes; an outcome of the service maps to exactly one status.
 */
public final class PicoHandler implements RequestHandler {

  private static final int DEFAULT_LIST_LIMIT = 100;
  private static final int MAX_LIST_LIMIT = 1000;
  private static final String STREAM_METHODS = "GET, HEAD, PUT, POST, DELETE, OPTIONS";
  private static final String LIST_METHODS = "GET, OPTIONS";

  /** Request headers a page of an allowed origin may send (answered in CORS preflights). */
  private static final String ALLOWED_REQUEST_HEADERS =
      "Content-Type, Authorization, If-None-Match, Last-Event-ID, "
          + String.join(
              ", ",
              PicoHeaders.PRODUCER_ID,
              PicoHeaders.PRODUCER_EPOCH,
              PicoHeaders.PRODUCER_SEQ,
              PicoHeaders.MATCH_SEQ,
              PicoHeaders.CLOSED,
              PicoHeaders.TRIM_SEQ,
              PicoHeaders.TTL,
              PicoHeaders.EXPIRES_AT);

  private final StreamService service;
  private final Creates creates;
  private final Appends appends;
  private final Reads reads;

  /**
   * @param clock judges {@code Pico-Expires-At} (at create and append) and paces {@code
   *     Pico-Cursor}
   * @param continuations runs the rest of a live read after a wait (give it virtual threads)
   */
  public PicoHandler(
      StreamService service, LiveOptions options, InstantSource clock, Executor continuations) {
    this.service = service;
    this.creates = new Creates(service, clock);
    this.appends = new Appends(service, clock);
    this.reads = new Reads(service, options, new LiveCursor(clock), continuations);
  }

  /** Headers on every answer of this protocol, errors included. */
  public static Map<String, String> commonHeaders() {
    return Map.of("X-Content-Type-Options", "nosniff");
  }

  /**
   * What browsers are told about pages of {@code origins} (changed with {@code setting}): they may
   * use every method and send every header of the protocol, and read the {@code Pico-*} headers.
   */
  public static CorsPolicy cors(AllowedOrigins origins, String setting) {
    return new CorsPolicy(
        origins, setting, STREAM_METHODS, ALLOWED_REQUEST_HEADERS, exposedHeaders());
  }

  @Override
  public void handle(Exchange exchange) {
    try {
      route(exchange);
    } catch (InvalidRequest invalid) {
      Answers.invalid(exchange, invalid);
    }
  }

  private void route(Exchange exchange) throws InvalidRequest {
    String method = exchange.method().name();
    String path = exchange.path();
    if (path.equals("/")) {
      switch (method) {
        case "GET" -> list(exchange);
        case "OPTIONS" -> options(exchange, LIST_METHODS);
        default -> notAllowed(exchange, LIST_METHODS);
      }
      return;
    }
    if (method.equals("OPTIONS")) {
      // CORS preflights never get here: the listener answers them (CorsPolicy).
      options(exchange, STREAM_METHODS);
      return;
    }
    Optional<String> problem = StreamNames.problem(path);
    if (problem.isPresent()) {
      Answers.error(exchange, BAD_REQUEST, "invalid_stream_name", problem.get());
      return;
    }
    switch (method) {
      case "PUT" -> creates.create(exchange, path);
      case "POST" -> appends.append(exchange, path);
      case "GET" -> reads.read(exchange, path);
      case "HEAD" -> head(exchange, path);
      case "DELETE" -> delete(exchange, path);
      default -> notAllowed(exchange, STREAM_METHODS);
    }
  }

  private void head(Exchange exchange, String name) {
    switch (service.head(name).join()) {
      case HeadOutcome.Found found -> {
        StreamDescription stream = found.stream();
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set(HttpHeaderNames.CONTENT_TYPE, stream.contentType());
        headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        headers.set(PicoHeaders.NEXT_SEQ, Long.toString(stream.nextSeq()));
        headers.set(PicoHeaders.START_SEQ, Long.toString(stream.startSeq()));
        if (stream.expiry() instanceof Expiry.Ttl ttl) {
          headers.set(PicoHeaders.TTL, Long.toString(ttl.seconds()));
        }
        stream
            .expiresAt()
            .ifPresent(instant -> headers.set(PicoHeaders.EXPIRES_AT, instant.toString()));
        if (stream.closed()) {
          headers.set(PicoHeaders.CLOSED, "true");
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

  /** {@code GET /?prefix=&limit=&start_after=}: a page of streams in name order. */
  private void list(Exchange exchange) throws InvalidRequest {
    String prefix = Params.query(exchange, "prefix");
    String startAfter = Params.query(exchange, "start_after");
    int limit =
        Params.within(
            Params.query(exchange, "limit"), "limit", 1, MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT);
    StreamPage page =
        service
            .list(
                new ListQuery(prefix == null ? "" : prefix, Optional.ofNullable(startAfter), limit))
            .join();
    byte[] body =
        Json.write(
            json -> {
              json.writeStartObject();
              json.writeArrayFieldStart("streams");
              for (StreamDescription stream : page.streams()) {
                json.writeStartObject();
                json.writeStringField("name", stream.name());
                json.writeStringField("content_type", stream.contentType());
                json.writeNumberField("start_seq", stream.startSeq());
                json.writeNumberField("next_seq", stream.nextSeq());
                json.writeBooleanField("closed", stream.closed());
                if (stream.expiry() instanceof Expiry.Ttl ttl) {
                  json.writeNumberField("ttl", ttl.seconds());
                } else {
                  json.writeNullField("ttl");
                }
                if (stream.expiresAt().isPresent()) {
                  json.writeStringField("expires_at", stream.expiresAt().get().toString());
                } else {
                  json.writeNullField("expires_at");
                }
                json.writeEndObject();
              }
              json.writeEndArray();
              json.writeBooleanField("has_more", page.hasMore());
              json.writeEndObject();
            });
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    exchange.respond(OK, headers, body);
  }

  /** A plain {@code OPTIONS}: the methods served here. */
  private static void options(Exchange exchange, String allowed) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.ALLOW, allowed);
    exchange.respond(NO_CONTENT, headers, Answers.EMPTY);
  }

  private static void notAllowed(Exchange exchange, String allowed) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.ALLOW, allowed);
    Answers.error(
        exchange,
        METHOD_NOT_ALLOWED,
        headers,
        "method_not_allowed",
        exchange.method() + " is not served here; allowed: " + allowed,
        OptionalLong.empty());
  }

  private static String exposedHeaders() {
    return String.join(
        ", ",
        "ETag",
        PicoHeaders.NEXT_SEQ,
        PicoHeaders.START_SEQ,
        PicoHeaders.TIMESTAMP,
        PicoHeaders.PRODUCER_EPOCH,
        PicoHeaders.PRODUCER_SEQ,
        PicoHeaders.EXPECTED_SEQ,
        PicoHeaders.RECEIVED_SEQ,
        PicoHeaders.CLOSED,
        PicoHeaders.TTL,
        PicoHeaders.EXPIRES_AT,
        PicoHeaders.UP_TO_DATE,
        PicoHeaders.CURSOR);
  }
}
