package io.picomq.frontend.ds;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.StreamNames;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.ForkPoint;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamService;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * {@code PUT /v1/stream/{name}}: create, idempotently, or fork. {@code 201} with {@code Location}
 * when created, {@code 200} when it exists with the same configuration, {@code 409} otherwise. A
 * non-empty body holds the first records (a JSON stream's body may be an array of messages). With
 * {@code Stream-Forked-From} the new stream starts as a copy of the source up to {@code
 * Stream-Fork-Offset} (default: the source's tail), {@code 404}/{@code 409} when the source is
 * missing or deleted.
 */
final class Creates {

  static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";

  private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]*");
  private static final Pattern CONTENT_TYPE = Pattern.compile("^[\\w.+-]+/[\\w.+-]+.*");

  private final StreamService service;
  private final InstantSource clock;

  Creates(StreamService service, InstantSource clock) {
    this.service = service;
    this.clock = clock;
  }

  void create(Exchange exchange, String name) throws BadRequest {
    HttpHeaders request = exchange.headers();
    Optional<Expiry> expiry = expiry(request);
    String forkedFrom = request.get(DsHeaders.FORKED_FROM);
    if (request.get(DsHeaders.FORK_SUB_OFFSET) != null && forkedFrom == null) {
      throw new BadRequest("Stream-Fork-Sub-Offset needs Stream-Forked-From");
    }
    // A fork without a Content-Type takes its source's.
    String contentTypeHeader = request.get(HttpHeaderNames.CONTENT_TYPE);
    Optional<String> contentType =
        contentTypeHeader != null && CONTENT_TYPE.matcher(contentTypeHeader.strip()).matches()
            ? Optional.of(contentTypeHeader.strip())
            : forkedFrom == null ? Optional.of(DEFAULT_CONTENT_TYPE) : Optional.empty();
    boolean closed = "true".equalsIgnoreCase(request.get(DsHeaders.CLOSED));

    Optional<ForkPoint> fork = Optional.empty();
    String recordsContentType = contentType.orElse(DEFAULT_CONTENT_TYPE);
    if (forkedFrom != null) {
      ForkAsked asked = forkAsked(request, forkedFrom);
      StreamDescription source;
      switch (service.head(asked.source()).join()) {
        case HeadOutcome.Found found -> source = found.stream();
        case HeadOutcome.NotFound notFound -> {
          sourceNotFound(exchange);
          return;
        }
        case HeadOutcome.Gone gone -> {
          sourceGone(exchange);
          return;
        }
      }
      recordsContentType = contentType.orElse(source.contentType());
      fork = Optional.of(asked.at(source));
    }
    List<NewRecord> records = Body.records(exchange.body(), recordsContentType, true);
    CreateOutcome outcome =
        service.create(name, new CreateRequest(contentType, expiry, closed, records, fork)).join();
    answer(exchange, outcome);
  }

  private void answer(Exchange exchange, CreateOutcome outcome) {
    switch (outcome) {
      case CreateOutcome.Created created -> {
        HttpHeaders headers = Answers.streamHeaders(created.stream());
        String host = exchange.headers().get(HttpHeaderNames.HOST, "localhost");
        headers.set(
            HttpHeaderNames.LOCATION, exchange.scheme() + "://" + host + exchange.rawPath());
        exchange.respond(CREATED, headers, Answers.EMPTY);
      }
      case CreateOutcome.Exists exists ->
          exchange.respond(OK, Answers.streamHeaders(exists.stream()), Answers.EMPTY);
      case CreateOutcome.Conflict conflict ->
          exchange.respondError(CONFLICT, "stream_conflict", conflict.reason());
      case CreateOutcome.NameRetained retained ->
          exchange.respondError(
              CONFLICT,
              "name_retained",
              "the stream was deleted but forks still read it; the name is free once they are gone");
      case CreateOutcome.SourceNotFound notFound -> sourceNotFound(exchange);
      case CreateOutcome.SourceGone gone -> sourceGone(exchange);
      case CreateOutcome.InvalidForkPoint invalid ->
          exchange.respondError(BAD_REQUEST, "invalid_fork_point", invalid.reason());
    }
  }

  /** {@code Stream-TTL} (whole seconds) or {@code Stream-Expires-At} (RFC 3339), not both. */
  private Optional<Expiry> expiry(HttpHeaders request) throws BadRequest {
    String ttl = request.get(DsHeaders.TTL);
    String expiresAt = request.get(DsHeaders.EXPIRES_AT);
    if (ttl != null && expiresAt != null) {
      throw new BadRequest("give Stream-TTL or Stream-Expires-At, not both");
    }
    if (ttl != null) {
      if (!DECIMAL.matcher(ttl).matches()
          || ttl.length() > 18
          || Long.parseLong(ttl) > Expiry.MAX_SECONDS) {
        throw new BadRequest(
            "Stream-TTL is a whole number of seconds without leading zeros, at most "
                + Expiry.MAX_SECONDS
                + " (100 years)");
      }
      return Optional.of(new Expiry.Ttl(Long.parseLong(ttl)));
    }
    if (expiresAt != null) {
      Instant at;
      try {
        at =
            OffsetDateTime.parse(expiresAt.strip(), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                .toInstant();
      } catch (DateTimeParseException e) {
        throw new BadRequest("Stream-Expires-At is not an RFC 3339 timestamp");
      }
      if (at.isAfter(clock.instant().plusSeconds(Expiry.MAX_SECONDS))) {
        throw new BadRequest(
            "Stream-Expires-At is at most " + Expiry.MAX_SECONDS + " seconds (100 years) ahead");
      }
      return Optional.of(new Expiry.At(at));
    }
    return Optional.empty();
  }

  /** The fork the headers ask for, checked before the source is looked up. */
  private static ForkAsked forkAsked(HttpHeaders request, String forkedFrom) throws BadRequest {
    String value = forkedFrom.strip();
    String source = StreamPath.streamName(value).orElse(value);
    if (StreamNames.problem(source).isPresent()) {
      throw new BadRequest("Stream-Forked-From does not name a stream");
    }
    OptionalLong seq = OptionalLong.empty();
    String forkOffset = request.get(DsHeaders.FORK_OFFSET);
    if (forkOffset != null) {
      Optional<Long> parsed = OffsetToken.parsePosition(forkOffset.strip());
      if (parsed.isEmpty()) {
        throw new BadRequest("Stream-Fork-Offset is not an offset of this server");
      }
      seq = OptionalLong.of(parsed.get());
    }
    int subOffset = 0;
    String subOffsetHeader = request.get(DsHeaders.FORK_SUB_OFFSET);
    if (subOffsetHeader != null) {
      if (!DECIMAL.matcher(subOffsetHeader).matches() || subOffsetHeader.length() > 9) {
        throw new BadRequest("Stream-Fork-Sub-Offset is a whole number without leading zeros");
      }
      subOffset = Integer.parseInt(subOffsetHeader);
    }
    return new ForkAsked(source, seq, subOffset);
  }

  /**
   * A fork as the request asks for it.
   *
   * @param seq {@code Stream-Fork-Offset}, empty for the source's tail
   * @param subOffset {@code Stream-Fork-Sub-Offset}, 0 when absent
   */
  private record ForkAsked(String source, OptionalLong seq, int subOffset) {

    /** Where the fork starts in {@code stream}, the source as it is now. */
    ForkPoint at(StreamDescription stream) {
      if (Body.isJson(stream.contentType()) && subOffset > 0) {
        // A JSON sub-offset counts messages, and every message is a record of its own: a fork
        // taking k messages after offset X is a plain fork at X + k.
        return ForkPoint.at(source, seq.orElse(stream.nextSeq()) + subOffset);
      }
      return new ForkPoint(source, seq, subOffset);
    }
  }

  private static void sourceNotFound(Exchange exchange) {
    exchange.respondError(NOT_FOUND, "source_not_found", "the fork's source does not exist");
  }

  private static void sourceGone(Exchange exchange) {
    exchange.respondError(CONFLICT, "source_gone", "the fork's source was deleted");
  }
}
