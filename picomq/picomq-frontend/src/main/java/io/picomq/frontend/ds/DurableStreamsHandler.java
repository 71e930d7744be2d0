package io.picomq.frontend.ds;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.GONE;
import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.picomq.frontend.http.CorsPreflight;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.RequestHandler;
import io.picomq.frontend.http.StreamNames;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.server.stream.AppendOutcome;
import io.picomq.server.stream.AppendRequest;
import io.picomq.server.stream.CreateOutcome;
import io.picomq.server.stream.CreateRequest;
import io.picomq.server.stream.DeleteOutcome;
import io.picomq.server.stream.Expiry;
import io.picomq.server.stream.ForkPoint;
import io.picomq.server.stream.HeadOutcome;
import io.picomq.server.stream.NewRecord;
import io.picomq.server.stream.ProducerStamp;
import io.picomq.server.stream.StreamInfo;
import io.picomq.server.stream.StreamService;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * The Durable Streams protocol: routes {@code /v1/stream/{name}} requests by method and maps the
 * stream service's outcomes to the protocol's statuses and headers. Reads live in {@link Reads}.
 *
 * <p>Runs on the listener's virtual threads: it joins service futures directly.
 */
public final class DurableStreamsHandler implements RequestHandler {

  /** Where streams live: {@code /v1/stream/a/b} is the stream {@code /a/b}. */
  public static final String BASE_PATH = "/v1/stream";

  private static final String METHODS = "GET, HEAD, PUT, POST, DELETE, OPTIONS";
  private static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";
  private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]*");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");
  private static final Pattern CONTENT_TYPE = Pattern.compile("^[\\w.+-]+/[\\w.+-]+.*");
  private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private final StreamService service;
  private final InstantSource clock;
  private final Reads reads;

  /**
   * @param continuations runs the rest of a live read after a wait (give it virtual threads)
   */
  public DurableStreamsHandler(
      StreamService service,
      LiveOptions options,
      InstantSource clock,
      RandomGenerator random,
      Executor continuations) {
    this.service = service;
    this.clock = clock;
    this.reads = new Reads(service, options, new Cursors(clock, random), continuations);
  }

  /** Headers on every response of this protocol, errors included (protocol section 10.7). */
  public static Map<String, String> commonHeaders() {
    return Map.of(
        "Access-Control-Allow-Origin", "*",
        "Access-Control-Expose-Headers", DsHeaders.EXPOSED_RESPONSE_HEADERS,
        "X-Content-Type-Options", "nosniff",
        "Cross-Origin-Resource-Policy", "cross-origin");
  }

  @Override
  public void handle(Exchange exchange) {
    if (exchange.method().equals(HttpMethod.OPTIONS)) {
      CorsPreflight.answer(exchange, METHODS, DsHeaders.ALLOWED_REQUEST_HEADERS);
      return;
    }
    Optional<String> name = streamName(exchange.path());
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
      case "PUT" -> create(exchange, name.get());
      case "POST" -> append(exchange, name.get());
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

  /** The stream a request path names, or empty when the path is not under {@link #BASE_PATH}. */
  static Optional<String> streamName(String path) {
    if (path.startsWith(BASE_PATH + "/")) {
      return Optional.of(path.substring(BASE_PATH.length()));
    }
    return Optional.empty();
  }

  // ---- PUT: create or fork ------------------------------------------------------------------

  private void create(Exchange exchange, String name) {
    HttpHeaders request = exchange.headers();
    String forkedFrom = request.get(DsHeaders.FORKED_FROM);
    String ttl = request.get(DsHeaders.TTL);
    String expiresAt = request.get(DsHeaders.EXPIRES_AT);
    if (ttl != null && expiresAt != null) {
      badRequest(exchange, "give Stream-TTL or Stream-Expires-At, not both");
      return;
    }
    Optional<Expiry> expiry = Optional.empty();
    if (ttl != null) {
      if (!DECIMAL.matcher(ttl).matches()
          || ttl.length() > 18
          || Long.parseLong(ttl) > Expiry.MAX_SECONDS) {
        badRequest(
            exchange,
            "Stream-TTL is a whole number of seconds without leading zeros, at most "
                + Expiry.MAX_SECONDS
                + " (100 years)");
        return;
      }
      expiry = Optional.of(new Expiry.Ttl(Long.parseLong(ttl)));
    }
    if (expiresAt != null) {
      Instant at;
      try {
        at =
            OffsetDateTime.parse(expiresAt.strip(), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                .toInstant();
      } catch (DateTimeParseException e) {
        badRequest(exchange, "Stream-Expires-At is not an RFC 3339 timestamp");
        return;
      }
      if (at.isAfter(clock.instant().plusSeconds(Expiry.MAX_SECONDS))) {
        badRequest(
            exchange,
            "Stream-Expires-At is at most " + Expiry.MAX_SECONDS + " seconds (100 years) ahead");
        return;
      }
      expiry = Optional.of(new Expiry.At(at));
    }
    String subOffsetHeader = request.get(DsHeaders.FORK_SUB_OFFSET);
    if (subOffsetHeader != null && forkedFrom == null) {
      badRequest(exchange, "Stream-Fork-Sub-Offset needs Stream-Forked-From");
      return;
    }
    String contentTypeHeader = request.get(HttpHeaderNames.CONTENT_TYPE);
    Optional<String> contentType =
        contentTypeHeader != null && CONTENT_TYPE.matcher(contentTypeHeader.strip()).matches()
            ? Optional.of(contentTypeHeader.strip())
            : forkedFrom == null ? Optional.of(DEFAULT_CONTENT_TYPE) : Optional.empty();
    boolean closed = "true".equalsIgnoreCase(request.get(DsHeaders.CLOSED));

    Optional<ForkPoint> fork = Optional.empty();
    String effectiveContentType = contentType.orElse(DEFAULT_CONTENT_TYPE);
    if (forkedFrom != null) {
      Optional<String> source = sourceName(forkedFrom);
      if (source.isEmpty()) {
        badRequest(exchange, "Stream-Forked-From does not name a stream");
        return;
      }
      OptionalLong forkSeq = OptionalLong.empty();
      String forkOffset = request.get(DsHeaders.FORK_OFFSET);
      if (forkOffset != null) {
        Optional<Long> seq = OffsetToken.parsePosition(forkOffset.strip());
        if (seq.isEmpty()) {
          badRequest(exchange, "Stream-Fork-Offset is not an offset of this server");
          return;
        }
        forkSeq = OptionalLong.of(seq.get());
      }
      int subOffset = 0;
      if (subOffsetHeader != null) {
        if (!DECIMAL.matcher(subOffsetHeader).matches() || subOffsetHeader.length() > 9) {
          badRequest(exchange, "Stream-Fork-Sub-Offset is a whole number without leading zeros");
          return;
        }
        subOffset = Integer.parseInt(subOffsetHeader);
      }
      StreamInfo sourceInfo;
      switch (service.head(source.get()).join()) {
        case HeadOutcome.Found found -> sourceInfo = found.stream();
        case HeadOutcome.NotFound notFound -> {
          exchange.respondError(NOT_FOUND, "source_not_found", "the fork's source does not exist");
          return;
        }
        case HeadOutcome.Gone gone -> {
          exchange.respondError(CONFLICT, "source_gone", "the fork's source was deleted");
          return;
        }
      }
      effectiveContentType = contentType.orElse(sourceInfo.contentType());
      if (Body.isJson(sourceInfo.contentType()) && subOffset > 0) {
        // A JSON sub-offset counts messages, and every message is a record of its own: a fork
        // taking k messages after offset X is a plain fork at X + k.
        long base = forkSeq.orElse(sourceInfo.nextSeq());
        fork = Optional.of(ForkPoint.at(source.get(), base + subOffset));
      } else {
        fork = Optional.of(new ForkPoint(source.get(), forkSeq, subOffset));
      }
    }

    List<NewRecord> records;
    try {
      records = records(exchange.body(), effectiveContentType, true);
    } catch (InvalidJson e) {
      badRequest(exchange, e.getMessage());
      return;
    }
    CreateOutcome outcome =
        service.create(name, new CreateRequest(contentType, expiry, closed, records, fork)).join();
    switch (outcome) {
      case CreateOutcome.Created created -> {
        HttpHeaders headers = streamHeaders(created.stream());
        String host = request.get(HttpHeaderNames.HOST, "localhost");
        headers.set(HttpHeaderNames.LOCATION, "http://" + host + exchange.rawPath());
        exchange.respond(CREATED, headers, new byte[0]);
      }
      case CreateOutcome.Exists exists ->
          exchange.respond(OK, streamHeaders(exists.stream()), new byte[0]);
      case CreateOutcome.Conflict conflict ->
          exchange.respondError(CONFLICT, "stream_conflict", conflict.reason());
      case CreateOutcome.NameRetained retained ->
          exchange.respondError(
              CONFLICT,
              "name_retained",
              "the stream was deleted but forks still read it; the name is free once they are gone");
      case CreateOutcome.SourceNotFound notFound ->
          exchange.respondError(NOT_FOUND, "source_not_found", "the fork's source does not exist");
      case CreateOutcome.SourceGone gone ->
          exchange.respondError(CONFLICT, "source_gone", "the fork's source was deleted");
      case CreateOutcome.InvalidForkPoint invalid ->
          exchange.respondError(BAD_REQUEST, "invalid_fork_point", invalid.reason());
    }
  }

  private static Optional<String> sourceName(String header) {
    String value = header.strip();
    String name = streamName(value).orElse(value);
    return StreamNames.problem(name).isEmpty() ? Optional.of(name) : Optional.empty();
  }

  private static HttpHeaders streamHeaders(StreamInfo stream) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, stream.contentType());
    headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(stream.nextSeq()));
    if (stream.closed()) {
      headers.set(DsHeaders.CLOSED, "true");
    }
    return headers;
  }

  /** The records a body holds in a stream of this content type. */
  private static List<NewRecord> records(byte[] body, String contentType, boolean create)
      throws InvalidJson {
    if (Body.isJson(contentType)) {
      if (body.length == 0) {
        return List.of();
      }
      return JsonMessages.split(body, create).stream().map(NewRecord::of).toList();
    }
    return body.length == 0 ? List.of() : List.of(NewRecord.of(body));
  }

  // ---- POST: append, close ------------------------------------------------------------------

  private void append(Exchange exchange, String name) {
    HttpHeaders request = exchange.headers();
    String producerId = request.get(DsHeaders.PRODUCER_ID);
    String producerEpoch = request.get(DsHeaders.PRODUCER_EPOCH);
    String producerSeq = request.get(DsHeaders.PRODUCER_SEQ);
    Optional<ProducerStamp> producer = Optional.empty();
    if (producerId != null || producerEpoch != null || producerSeq != null) {
      if (producerId == null || producerEpoch == null || producerSeq == null) {
        badRequest(exchange, "Producer-Id, Producer-Epoch and Producer-Seq go together");
        return;
      }
      if (producerId.isEmpty()) {
        badRequest(exchange, "Producer-Id must not be empty");
        return;
      }
      long epoch = safeInteger(producerEpoch);
      long seq = safeInteger(producerSeq);
      if (epoch < 0 || seq < 0) {
        badRequest(exchange, "Producer-Epoch and Producer-Seq are integers from 0 to 2^53-1");
        return;
      }
      producer = Optional.of(new ProducerStamp(producerId, epoch, seq));
    }
    boolean close = "true".equalsIgnoreCase(request.get(DsHeaders.CLOSED));
    Optional<String> writerSeq = Optional.ofNullable(request.get(DsHeaders.SEQ));
    byte[] body = exchange.body();

    AppendRequest append;
    if (body.length == 0) {
      if (!close) {
        badRequest(exchange, "an append needs a body");
        return;
      }
      append =
          new AppendRequest(
              List.of(), Optional.empty(), producer, writerSeq, OptionalLong.empty(), true);
    } else {
      String contentType = request.get(HttpHeaderNames.CONTENT_TYPE);
      if (contentType == null || contentType.isBlank()) {
        badRequest(exchange, "an append needs a Content-Type");
        return;
      }
      StreamInfo stream;
      switch (service.head(name).join()) {
        case HeadOutcome.Found found -> stream = found.stream();
        case HeadOutcome.NotFound notFound -> {
          notFound(exchange);
          return;
        }
        case HeadOutcome.Gone gone -> {
          gone(exchange);
          return;
        }
      }
      if (!StreamService.sameMediaType(contentType, stream.contentType())) {
        contentTypeMismatch(exchange, stream.contentType());
        return;
      }
      List<NewRecord> records;
      try {
        records = records(body, stream.contentType(), false);
      } catch (InvalidJson e) {
        badRequest(exchange, e.getMessage());
        return;
      }
      append =
          new AppendRequest(
              records, Optional.of(contentType), producer, writerSeq, OptionalLong.empty(), close);
    }
    AppendRequest sent = append;
    exchange.answerWhenDone(
        service.append(name, sent), outcome -> respondToAppend(exchange, sent, outcome));
  }

  private static void respondToAppend(
      Exchange exchange, AppendRequest append, AppendOutcome outcome) {
    HttpHeaders headers = new DefaultHttpHeaders();
    switch (outcome) {
      case AppendOutcome.Accepted accepted -> {
        headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(accepted.nextSeq()));
        if (accepted.closed()) {
          headers.set(DsHeaders.CLOSED, "true");
        }
        append
            .producer()
            .ifPresent(
                producer -> {
                  headers.set(DsHeaders.PRODUCER_EPOCH, Long.toString(producer.epoch()));
                  headers.set(DsHeaders.PRODUCER_SEQ, Long.toString(producer.seq()));
                });
        // A producer's fresh data answers 200; a plain append and a close-only call answer 204.
        boolean fresh = append.producer().isPresent() && !append.records().isEmpty();
        exchange.respond(fresh ? OK : NO_CONTENT, headers, new byte[0]);
      }
      case AppendOutcome.Duplicate duplicate -> {
        headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(duplicate.nextSeq()));
        headers.set(
            DsHeaders.PRODUCER_EPOCH, Long.toString(append.producer().orElseThrow().epoch()));
        headers.set(DsHeaders.PRODUCER_SEQ, Long.toString(duplicate.lastProducerSeq()));
        if (duplicate.closed()) {
          headers.set(DsHeaders.CLOSED, "true");
        }
        exchange.respond(NO_CONTENT, headers, new byte[0]);
      }
      case AppendOutcome.StaleEpoch stale -> {
        headers.set(DsHeaders.PRODUCER_EPOCH, Long.toString(stale.currentEpoch()));
        exchange.respondError(
            FORBIDDEN, headers, "stale_producer_epoch", "a newer producer epoch is active");
      }
      case AppendOutcome.EpochMustStartAtZero epoch ->
          badRequest(exchange, "a new producer epoch starts at Producer-Seq 0");
      case AppendOutcome.SeqGap gap -> {
        headers.set(DsHeaders.PRODUCER_EXPECTED_SEQ, Long.toString(gap.expectedSeq()));
        headers.set(DsHeaders.PRODUCER_RECEIVED_SEQ, Long.toString(gap.receivedSeq()));
        exchange.respondError(
            CONFLICT,
            headers,
            "producer_seq_gap",
            "expected Producer-Seq " + gap.expectedSeq() + ", received " + gap.receivedSeq());
      }
      case AppendOutcome.WriterSeqRegression regression ->
          exchange.respondError(
              CONFLICT,
              "stream_seq_regression",
              "Stream-Seq must rise above " + regression.lastWriterSeq());
      case AppendOutcome.TailMismatch mismatch ->
          exchange.respondError(CONFLICT, "tail_mismatch", "the stream's tail moved");
      case AppendOutcome.Closed closed -> {
        headers.set(DsHeaders.CLOSED, "true");
        headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(closed.nextSeq()));
        exchange.respondError(CONFLICT, headers, "stream_closed", "the stream is closed");
      }
      case AppendOutcome.ContentTypeMismatch mismatch ->
          contentTypeMismatch(exchange, mismatch.streamContentType());
      case AppendOutcome.NotFound notFound -> notFound(exchange);
      case AppendOutcome.Gone gone -> gone(exchange);
    }
  }

  /** A non-negative integer no larger than 2^53-1 (safe in JavaScript), or -1. */
  private static long safeInteger(String value) {
    if (!DIGITS.matcher(value).matches() || value.length() > 16) {
      return -1;
    }
    long parsed = Long.parseLong(value);
    return parsed <= MAX_SAFE_INTEGER ? parsed : -1;
  }

  // ---- HEAD, DELETE -------------------------------------------------------------------------

  private void head(Exchange exchange, String name) {
    switch (service.head(name).join()) {
      case HeadOutcome.Found found -> {
        StreamInfo stream = found.stream();
        HttpHeaders headers = streamHeaders(stream);
        headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        switch (stream.expiry()) {
          case Expiry.Ttl ttl -> headers.set(DsHeaders.TTL, Long.toString(ttl.seconds()));
          case Expiry.At at -> headers.set(DsHeaders.EXPIRES_AT, at.instant().toString());
          case Expiry.Never never -> {}
        }
        exchange.respond(OK, headers, new byte[0]);
      }
      case HeadOutcome.NotFound notFound -> notFound(exchange);
      case HeadOutcome.Gone gone -> gone(exchange);
    }
  }

  private void delete(Exchange exchange, String name) {
    switch (service.delete(name).join()) {
      case DeleteOutcome.Deleted deleted ->
          exchange.respond(NO_CONTENT, new DefaultHttpHeaders(), new byte[0]);
      case DeleteOutcome.NotFound notFound -> notFound(exchange);
      case DeleteOutcome.Gone gone -> gone(exchange);
    }
  }

  // ---- errors -------------------------------------------------------------------------------

  static void badRequest(Exchange exchange, String message) {
    exchange.respondError(BAD_REQUEST, "bad_request", message);
  }

  static void notFound(Exchange exchange) {
    exchange.respondError(NOT_FOUND, "stream_not_found", "no such stream");
  }

  static void gone(Exchange exchange) {
    exchange.respondError(
        GONE, "stream_gone", "the stream was deleted; forks of it still read its records");
  }

  private static void contentTypeMismatch(Exchange exchange, String streamContentType) {
    exchange.respondError(
        CONFLICT, "content_type_mismatch", "the stream's content type is " + streamContentType);
  }
}
