package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.protocol.PicoHeaders;
import io.picomq.protocol.PicoMediaTypes;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamService;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code PUT /{stream}}: create, idempotently. {@code 201} when created, {@code 200} when it exists
 * with the same configuration (content type, expiry, closed flag), {@code 409} otherwise. A
 * non-empty body becomes the stream's first record, in the stream's content type; a repeated create
 * writes nothing.
 */
final class Creates {

  static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

  /** {@code type/subtype}, optionally followed by parameters. */
  private static final Pattern CONTENT_TYPE = Pattern.compile("[\\w.+-]+/[\\w.+-]+(\\s*;.*)?");

  private final StreamService service;
  private final InstantSource clock;

  Creates(StreamService service, InstantSource clock) {
    this.service = service;
    this.clock = clock;
  }

  void create(Exchange exchange, String name) throws InvalidRequest {
    String contentType = contentType(exchange);
    Optional<Expiry> expiry = Params.expiry(exchange, clock);
    boolean closed = Params.flag(Params.header(exchange, PicoHeaders.CLOSED), PicoHeaders.CLOSED);
    byte[] body = exchange.body();
    List<NewRecord> records = body.length == 0 ? List.of() : List.of(NewRecord.of(body));
    CreateRequest request =
        new CreateRequest(Optional.of(contentType), expiry, closed, records, Optional.empty());
    switch (service.create(name, request).join()) {
      case CreateOutcome.Created created ->
          exchange.respond(CREATED, streamHeaders(created.stream()), Answers.EMPTY);
      case CreateOutcome.Exists exists ->
          exchange.respond(OK, streamHeaders(exists.stream()), Answers.EMPTY);
      case CreateOutcome.Conflict conflict ->
          Answers.error(exchange, CONFLICT, "stream_conflict", conflict.reason());
      case CreateOutcome.NameRetained retained ->
          Answers.error(
              exchange,
              CONFLICT,
              "name_retained",
              "a deleted stream of this name is still read by its forks; the name is free once"
                  + " they are gone");
      case CreateOutcome.SourceNotFound outcome -> noForkAskedFor(outcome);
      case CreateOutcome.SourceGone outcome -> noForkAskedFor(outcome);
      case CreateOutcome.InvalidForkPoint outcome -> noForkAskedFor(outcome);
    }
  }

  private static String contentType(Exchange exchange) throws InvalidRequest {
    String header = Params.header(exchange, HttpHeaderNames.CONTENT_TYPE);
    if (header == null || header.isEmpty()) {
      return DEFAULT_CONTENT_TYPE;
    }
    if (!CONTENT_TYPE.matcher(header).matches()) {
      throw new InvalidRequest("Content-Type \"" + header + "\" is not type/subtype");
    }
    String mediaType = StreamService.mediaType(header);
    if (mediaType.equals(PicoMediaTypes.BATCH_JSON)
        || mediaType.equals(PicoMediaTypes.BATCH_BINARY)) {
      throw new InvalidRequest(
          "a stream's content type cannot be a Pico batch type: appends would read as batches");
    }
    return header;
  }

  /** The headers of a create's answer. */
  private static HttpHeaders streamHeaders(StreamDescription stream) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(PicoHeaders.NEXT_SEQ, Long.toString(stream.nextSeq()));
    if (stream.closed()) {
      headers.set(PicoHeaders.CLOSED, "true");
    }
    return headers;
  }

  private static void noForkAskedFor(CreateOutcome outcome) {
    throw new IllegalStateException("a Pico create asks for no fork, yet: " + outcome);
  }
}
