package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_MODIFIED;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.live.EventCache;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.frontend.live.SseLoop;
import io.picomq.frontend.live.TailWait;
import io.picomq.protocol.PicoHeaders;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamService;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.Executor;

/**
 * {@code GET /{stream}}: catch-up reads and long-polls; SSE is {@link SseFeed}'s.
 *
 * <p>A seq below the stream's start (trimmed away) reads from the start: the records carry their
 * seqs and the answer {@code Pico-Start-Seq}, so a client sees the jump. A seq past the tail is a
 * 400 with the tail in {@code next_seq}.
 *
 * <p>A long-poll that must wait holds no thread ({@link TailWait}).
 */
final class Reads {

  private final StreamService service;
  private final LiveOptions options;
  private final LiveCursor cursors;
  private final Executor continuations;
  private final TailWait tailWait;
  private final EventCache events = new EventCache();

  Reads(StreamService service, LiveOptions options, LiveCursor cursors, Executor continuations) {
    this.service = service;
    this.options = options;
    this.cursors = cursors;
    this.continuations = continuations;
    this.tailWait = new TailWait(service, continuations);
  }

  void read(Exchange exchange, String name) throws InvalidRequest {
    ReadQuery query = ReadQuery.parse(exchange, options);
    ReadOutcome outcome = first(name, query);
    if (!(outcome instanceof ReadOutcome.Batch batch)) {
      answerMiss(exchange, outcome);
      return;
    }
    switch (query.live()) {
      case NONE -> catchUp(exchange, query, batch);
      case LONG_POLL -> longPoll(exchange, name, query, batch);
      case SSE -> {
        SseFeed feed = new SseFeed(name, service, query, events);
        feed.start(
            exchange, batch, new SseLoop(exchange, name, tailWait, options, continuations, feed));
      }
    }
  }

  /** The first read of a request: from its seq, or from the tail for {@code now}. */
  private ReadOutcome first(String name, ReadQuery query) {
    if (query.from().isPresent()) {
      return readFrom(service, name, query.from().getAsLong(), query);
    }
    return switch (service.head(name).join()) {
      case HeadOutcome.Found found -> readFrom(service, name, found.stream().nextSeq(), query);
      case HeadOutcome.NotFound notFound -> new ReadOutcome.NotFound();
      case HeadOutcome.Gone gone -> new ReadOutcome.Gone();
    };
  }

  /** Reads from {@code from}, or from the start when that was trimmed away. */
  static ReadOutcome readFrom(StreamService service, String name, long from, ReadQuery query) {
    ReadOutcome outcome =
        service.read(name, new ReadWindow(from, query.count(), query.bytes())).join();
    // Trims only move the start forward, so this ends.
    while (outcome instanceof ReadOutcome.Trimmed trimmed) {
      outcome =
          service
              .read(name, new ReadWindow(trimmed.startSeq(), query.count(), query.bytes()))
              .join();
    }
    return outcome;
  }

  private static void catchUp(Exchange exchange, ReadQuery query, ReadOutcome.Batch batch) {
    HttpHeaders headers = positionHeaders(batch);
    headers.set(HttpHeaderNames.CONTENT_TYPE, query.format().contentType(batch.stream()));
    // Records never change, but the answer's headers do (the tail moves): revalidate each time.
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
    String etag = etag(batch, query.format());
    headers.set(HttpHeaderNames.ETAG, etag);
    if (matches(exchange.headers().get(HttpHeaderNames.IF_NONE_MATCH), etag)) {
      exchange.respond(NOT_MODIFIED, headers, Answers.EMPTY);
      return;
    }
    exchange.respond(OK, headers, query.format().render(batch.records()));
  }

  private void longPoll(Exchange exchange, String name, ReadQuery query, ReadOutcome.Batch batch) {
    if (!batch.records().isEmpty() || batch.endOfStream()) {
      answerLive(exchange, query, batch);
      return;
    }
    long from = batch.nextSeq();
    tailWait
        .beyond(name, from, exchange, options.longPollTimeout())
        .thenAccept(
            ignored -> {
              try {
                ReadOutcome after = readFrom(service, name, from, query);
                if (after instanceof ReadOutcome.Batch next) {
                  answerLive(exchange, query, next);
                } else {
                  answerMiss(exchange, after);
                }
              } catch (RuntimeException bug) {
                Answers.bug(exchange, bug);
              }
            });
  }

  /** A long-poll's answer: 200 with records, or 204 when none came (timeout or close). */
  private void answerLive(Exchange exchange, ReadQuery query, ReadOutcome.Batch batch) {
    HttpHeaders headers = positionHeaders(batch);
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    if (!batch.endOfStream()) {
      headers.set(PicoHeaders.CURSOR, cursors.next(query.cursor()));
    }
    if (batch.records().isEmpty()) {
      exchange.respond(NO_CONTENT, headers, Answers.EMPTY);
      return;
    }
    headers.set(HttpHeaderNames.CONTENT_TYPE, query.format().contentType(batch.stream()));
    exchange.respond(OK, headers, query.format().render(batch.records()));
  }

  /** Where a read left off: the next seq, the stream's start, and whether it reached the end. */
  static HttpHeaders positionHeaders(ReadOutcome.Batch batch) {
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(PicoHeaders.NEXT_SEQ, Long.toString(batch.nextSeq()));
    headers.set(PicoHeaders.START_SEQ, Long.toString(batch.stream().startSeq()));
    if (batch.upToDate()) {
      headers.set(PicoHeaders.UP_TO_DATE, "true");
    }
    if (batch.endOfStream()) {
      headers.set(PicoHeaders.CLOSED, "true");
    }
    return headers;
  }

  /**
   * Names one answer exactly: the stream's incarnation, the range read, the format, and what the
   * headers said about the tail. Records in a range never change, so equal tags mean equal bodies.
   */
  private static String etag(ReadOutcome.Batch batch, ReadFormat format) {
    long from = batch.records().isEmpty() ? batch.nextSeq() : batch.records().getFirst().seq();
    return "\""
        + batch.stream().streamId()
        + "-"
        + from
        + "-"
        + batch.nextSeq()
        + "-"
        + format.name().toLowerCase(Locale.ROOT)
        + (batch.upToDate() ? "-u" : "")
        + (batch.endOfStream() ? "-c" : "")
        + "\"";
  }

  private static boolean matches(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String candidate : ifNoneMatch.split(",")) {
      String tag = candidate.strip();
      if (tag.equals("*") || tag.equals(etag) || tag.equals("W/" + etag)) {
        return true;
      }
    }
    return false;
  }

  /** Answers a read that found no batch. */
  static void answerMiss(Exchange exchange, ReadOutcome outcome) {
    switch (outcome) {
      case ReadOutcome.NotFound notFound -> Answers.notFound(exchange);
      case ReadOutcome.Gone gone -> Answers.gone(exchange);
      case ReadOutcome.BeyondTail beyond ->
          Answers.error(
              exchange,
              BAD_REQUEST,
              new DefaultHttpHeaders(),
              "seq_beyond_tail",
              "the stream's next seq is " + beyond.nextSeq(),
              OptionalLong.of(beyond.nextSeq()));
      case ReadOutcome.Trimmed trimmed ->
          throw new IllegalStateException("readFrom follows trims: " + trimmed);
      case ReadOutcome.Batch batch -> throw new IllegalStateException("not a miss: " + batch);
    }
  }
}
