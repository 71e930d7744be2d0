package io.picomq.frontend.ds;

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
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamService;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * {@code GET /v1/stream/{name}?offset=&live=&cursor=}: catch-up reads, long-polls and (through
 * {@link SseSession}) SSE. A read starts at an opaque offset ({@code -1}: the first retained
 * record; {@code now}: the tail); a long-poll at the tail waits up to the long-poll timeout and
 * answers 204 when nothing came.
 *
 * <p>A long-poll that must wait holds no thread ({@link TailWait}).
 */
final class Reads {

  private static final int MAX_RECORDS_PER_READ = 10_000;

  private final StreamService service;
  private final LiveOptions options;
  private final Cursors cursors;
  private final Executor continuations;
  private final TailWait tailWait;
  private final EventCache dataEvents = new EventCache();

  Reads(StreamService service, LiveOptions options, Cursors cursors, Executor continuations) {
    this.service = service;
    this.options = options;
    this.cursors = cursors;
    this.continuations = continuations;
    this.tailWait = new TailWait(service, continuations);
  }

  void read(Exchange exchange, String name) throws BadRequest {
    List<String> offsets = exchange.query().get("offset");
    OffsetToken token = new OffsetToken.Start();
    if (offsets != null) {
      if (offsets.size() > 1) {
        throw new BadRequest("give one offset");
      }
      token =
          OffsetToken.parse(offsets.getFirst())
              .orElseThrow(() -> new BadRequest("malformed offset"));
    }
    String live = first(exchange, "live");
    String cursor = first(exchange, "cursor");
    if (live != null && offsets == null) {
      throw new BadRequest("live reads need an offset");
    }
    if (live == null) {
      catchUp(exchange, name, token);
    } else if (live.equals("long-poll")) {
      longPoll(exchange, name, token, cursor);
    } else if (live.equals("sse")) {
      sse(exchange, name, token, cursor);
    } else {
      throw new BadRequest("live is long-poll or sse");
    }
  }

  private static String first(Exchange exchange, String parameter) {
    List<String> values = exchange.query().get(parameter);
    return values == null ? null : values.getFirst();
  }

  /**
   * {@code live=sse}: the first batch from {@code token} here (or the error a missing stream or a
   * bad offset gets), then an {@link SseSession} paced by an {@link SseLoop}.
   */
  private void sse(Exchange exchange, String name, OffsetToken token, String cursor) {
    ReadOutcome first;
    if (token instanceof OffsetToken.Now) {
      HeadOutcome head = service.head(name).join();
      if (!(head instanceof HeadOutcome.Found found)) {
        Answers.miss(exchange, head);
        return;
      }
      first = read(name, found.stream().nextSeq());
    } else {
      first = readFrom(name, token);
    }
    if (!(first instanceof ReadOutcome.Batch batch)) {
      Answers.miss(exchange, first);
      return;
    }
    SseSession session = new SseSession(name, service, options, cursors, dataEvents, cursor);
    session.start(batch, new SseLoop(exchange, name, tailWait, options, continuations, session));
  }

  private void catchUp(Exchange exchange, String name, OffsetToken token) {
    if (token instanceof OffsetToken.Now) {
      readNow(exchange, name);
      return;
    }
    ReadOutcome outcome = readFrom(name, token);
    if (outcome instanceof ReadOutcome.Batch batch) {
      respondWithBatch(exchange, batch, token, null);
    } else {
      Answers.miss(exchange, outcome);
    }
  }

  /** {@code offset=now} without live: nothing, and where the tail is. */
  private void readNow(Exchange exchange, String name) {
    HeadOutcome head = service.head(name).join();
    if (!(head instanceof HeadOutcome.Found found)) {
      Answers.miss(exchange, head);
      return;
    }
    long tail = found.stream().nextSeq();
    // A read at the tail: returns nothing, but counts as activity for a sliding TTL.
    ReadOutcome outcome = service.read(name, new ReadWindow(tail, 1, 1)).join();
    if (!(outcome instanceof ReadOutcome.Batch batch)) {
      Answers.miss(exchange, outcome);
      return;
    }
    StreamDescription stream = batch.stream();
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, stream.contentType());
    headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(tail));
    headers.set(DsHeaders.UP_TO_DATE, "true");
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    if (stream.closed() && stream.nextSeq() == tail) {
      headers.set(DsHeaders.CLOSED, "true");
    }
    byte[] body = Body.of(stream.contentType()).render(List.of());
    exchange.respond(OK, headers, body);
  }

  private void longPoll(Exchange exchange, String name, OffsetToken token, String cursor) {
    long from;
    if (token instanceof OffsetToken.Now) {
      HeadOutcome head = service.head(name).join();
      if (!(head instanceof HeadOutcome.Found found)) {
        Answers.miss(exchange, head);
        return;
      }
      from = found.stream().nextSeq();
    } else {
      ReadOutcome first = readFrom(name, token);
      if (!(first instanceof ReadOutcome.Batch batch)) {
        Answers.miss(exchange, first);
        return;
      }
      if (!batch.records().isEmpty()) {
        respondWithBatch(exchange, batch, token, cursor);
        return;
      }
      from = batch.nextSeq();
    }
    awaitThenAnswer(exchange, name, token, from, cursor);
  }

  private void awaitThenAnswer(
      Exchange exchange, String name, OffsetToken token, long from, String cursor) {
    tailWait
        .beyond(name, from, exchange, options.longPollTimeout())
        .thenAccept(ignored -> answerAfterWait(exchange, name, token, from, cursor));
  }

  private void answerAfterWait(
      Exchange exchange, String name, OffsetToken token, long from, String cursor) {
    ReadOutcome outcome = read(name, from);
    if (!(outcome instanceof ReadOutcome.Batch batch)) {
      Answers.miss(exchange, outcome);
      return;
    }
    if (!batch.records().isEmpty()) {
      respondWithBatch(exchange, batch, token, cursor);
      return;
    }
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(batch.nextSeq()));
    headers.set(DsHeaders.UP_TO_DATE, "true");
    if (batch.endOfStream()) {
      headers.set(DsHeaders.CLOSED, "true");
    } else {
      headers.set(DsHeaders.CURSOR, cursors.next(cursor));
    }
    exchange.respond(NO_CONTENT, headers, new byte[0]);
  }

  /**
   * A 200 with records (or none, at the tail). {@code cursor} is non-null for long-polls, which
   * carry a fresh cursor.
   */
  private void respondWithBatch(
      Exchange exchange, ReadOutcome.Batch batch, OffsetToken from, String cursor) {
    StreamDescription stream = batch.stream();
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, stream.contentType());
    headers.set(DsHeaders.NEXT_OFFSET, OffsetToken.format(batch.nextSeq()));
    if (batch.upToDate()) {
      headers.set(DsHeaders.UP_TO_DATE, "true");
    }
    if (batch.endOfStream()) {
      headers.set(DsHeaders.CLOSED, "true");
    }
    boolean live = cursor != null || exchange.query().containsKey("live");
    if (live) {
      headers.set(DsHeaders.CURSOR, cursors.next(cursor));
    }
    // Records below the tail never change: a partial chunk may be cached; the tail may not.
    headers.set(
        HttpHeaderNames.CACHE_CONTROL,
        batch.upToDate() ? "no-cache" : "public, max-age=60, stale-while-revalidate=300");
    String etag = etag(stream, from, batch);
    headers.set(HttpHeaderNames.ETAG, etag);
    if (etag.equals(exchange.headers().get(HttpHeaderNames.IF_NONE_MATCH))) {
      exchange.respond(NOT_MODIFIED, headers, new byte[0]);
      return;
    }
    exchange.respond(OK, headers, Body.of(stream.contentType()).render(batch.records()));
  }

  /**
   * Identifies one response: the stream's incarnation, where the read started and ended, and
   * whether it saw the close.
   */
  private static String etag(StreamDescription stream, OffsetToken from, ReadOutcome.Batch batch) {
    String start =
        switch (from) {
          case OffsetToken.At at -> Long.toString(at.seq());
          case OffsetToken.Start start1 -> "-1";
          case OffsetToken.Now now -> "now";
        };
    return "\""
        + stream.streamId()
        + ":"
        + start
        + ":"
        + batch.nextSeq()
        + (batch.endOfStream() ? ":c" : "")
        + "\"";
  }

  private ReadOutcome read(String name, long from) {
    return service
        .read(name, new ReadWindow(from, MAX_RECORDS_PER_READ, options.maxChunkBytes()))
        .join();
  }

  /** Reads from a token that is not {@code now}; {@code -1} starts at the first retained record. */
  private ReadOutcome readFrom(String name, OffsetToken token) {
    ReadOutcome outcome = read(name, token instanceof OffsetToken.At at ? at.seq() : 0);
    if (token instanceof OffsetToken.Start && outcome instanceof ReadOutcome.Trimmed trimmed) {
      outcome = read(name, trimmed.startSeq());
    }
    return outcome;
  }
}
