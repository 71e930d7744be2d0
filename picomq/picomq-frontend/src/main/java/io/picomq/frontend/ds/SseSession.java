package io.picomq.frontend.ds;

import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.ResponseStream;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.server.stream.HeadOutcome;
import io.picomq.server.stream.ReadOutcome;
import io.picomq.server.stream.ReadRequest;
import io.picomq.server.stream.StreamService;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One SSE response (protocol section 5.7): catch-up data, then live data as it arrives, each {@code
 * data} event followed by a {@code control} event with the next offset; a final control event with
 * {@code streamClosed} once a closed stream is fully delivered.
 *
 * <p>The session is a chain of steps, each on a {@code continuations} thread: read a chunk, write
 * it, and only when the client has taken it read the next (so a slow client holds back the reads,
 * not the server's memory); at the tail, wait on {@link StreamService#awaitBeyond} without a
 * thread. An idle connection gets a control event every long-poll timeout; the response ends after
 * {@link LiveOptions#sseMaxDuration}, when the client goes away, or on shutdown.
 *
 * <p>Threading: the steps run one at a time (each starts when the previous one's future completes),
 * so the mutable fields need no lock.
 */
final class SseSession {

  private static final int MAX_RECORDS_PER_EVENT = 10_000;

  private final Exchange exchange;
  private final String name;
  private final StreamService service;
  private final LiveOptions options;
  private final Cursors cursors;
  private final Executor continuations;
  private final long deadlineNanos;

  // Owned by the step that is running.
  private ResponseStream response;
  private String clientCursor;
  private long lastCursor = -1;
  private boolean base64;
  private long position;
  private boolean sentUpToDate;

  SseSession(
      Exchange exchange,
      String name,
      StreamService service,
      LiveOptions options,
      Cursors cursors,
      Executor continuations) {
    this.exchange = exchange;
    this.name = name;
    this.service = service;
    this.options = options;
    this.cursors = cursors;
    this.continuations = continuations;
    this.deadlineNanos = System.nanoTime() + options.sseMaxDuration().toNanos();
  }

  void start(OffsetToken token, String clientCursor) {
    this.clientCursor = clientCursor;
    ReadOutcome first;
    if (token instanceof OffsetToken.Now) {
      HeadOutcome head = service.head(name).join();
      if (!(head instanceof HeadOutcome.Found found)) {
        Reads.respondToMiss(exchange, head);
        return;
      }
      first = read(found.stream().nextSeq());
    } else {
      first = Reads.readFrom(service, name, token, options.maxChunkBytes());
    }
    if (!(first instanceof ReadOutcome.Batch batch)) {
      Reads.respondToMiss(exchange, first);
      return;
    }
    base64 = !Body.sseAsText(batch.stream().contentType());
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
    if (base64) {
      headers.set(DsHeaders.SSE_DATA_ENCODING, "base64");
    }
    response = exchange.stream(OK, headers);
    deliver(batch);
  }

  /** Writes a batch (or, at the tail, a control event) and decides what comes next. */
  private void deliver(ReadOutcome.Batch batch) {
    position = batch.nextSeq();
    byte[] events;
    String next = OffsetToken.format(batch.nextSeq());
    if (!batch.records().isEmpty()) {
      byte[] data = SseEvents.data(payload(batch));
      byte[] control =
          batch.endOfStream()
              ? SseEvents.closed(next)
              : SseEvents.control(next, nextCursor(), batch.upToDate());
      events = concat(data, control);
      sentUpToDate = batch.upToDate();
    } else if (batch.endOfStream()) {
      events = SseEvents.closed(next);
    } else if (!sentUpToDate) {
      events = SseEvents.control(next, nextCursor(), true);
      sentUpToDate = true;
    } else {
      events = null;
    }
    CompletableFuture<Void> written =
        events == null ? CompletableFuture.completedFuture(null) : response.write(events);
    written.whenCompleteAsync(
        (ignored, failure) -> {
          if (failure != null || batch.endOfStream()) {
            response.end();
          } else if (!batch.upToDate()) {
            readAndDeliver();
          } else {
            awaitMore();
          }
        },
        continuations);
  }

  private void readAndDeliver() {
    if (exchange.interrupted().isDone() || System.nanoTime() - deadlineNanos >= 0) {
      response.end();
      return;
    }
    if (read(position) instanceof ReadOutcome.Batch batch) {
      deliver(batch);
    } else {
      response.end();
    }
  }

  private void awaitMore() {
    long remainingNanos = deadlineNanos - System.nanoTime();
    if (exchange.interrupted().isDone() || remainingNanos <= 0) {
      response.end();
      return;
    }
    long waitNanos = Math.min(remainingNanos, options.longPollTimeout().toNanos());
    CompletableFuture<Void> signal = service.awaitBeyond(name, position);
    CompletableFuture<Boolean> wake = new CompletableFuture<>();
    signal.whenComplete((ignored, failure) -> wake.complete(true));
    exchange.interrupted().whenComplete((ignored, failure) -> wake.complete(true));
    wake.completeOnTimeout(false, waitNanos, TimeUnit.NANOSECONDS);
    wake.thenAcceptAsync(
        signalled -> {
          signal.cancel(false);
          if (signalled) {
            readAndDeliver();
          } else {
            keepAlive();
          }
        },
        continuations);
  }

  /** Nothing happened for a while: say so, with a fresh cursor, and keep waiting. */
  private void keepAlive() {
    if (System.nanoTime() - deadlineNanos >= 0) {
      response.end();
      return;
    }
    response
        .write(SseEvents.control(OffsetToken.format(position), nextCursor(), true))
        .whenCompleteAsync(
            (ignored, failure) -> {
              if (failure != null) {
                response.end();
              } else {
                readAndDeliver();
              }
            },
            continuations);
  }

  private ReadOutcome read(long from) {
    return service
        .read(name, new ReadRequest(from, MAX_RECORDS_PER_EVENT, options.maxChunkBytes()))
        .join();
  }

  /**
   * The client's cursor decides the first one (moved past it if needed); later ones follow the
   * clock but never go backwards within the session.
   */
  private String nextCursor() {
    long next = Long.parseLong(cursors.next(lastCursor < 0 ? clientCursor : null));
    lastCursor = Math.max(lastCursor, next);
    return Long.toString(lastCursor);
  }

  /** One data event's text: JSON streams as an array, text as is, anything else in base64. */
  private String payload(ReadOutcome.Batch batch) {
    Body body = Body.of(batch.stream().contentType());
    byte[] bytes = body.render(batch.records());
    if (base64) {
      return Base64.getEncoder().encodeToString(bytes);
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[] first, byte[] second) {
    byte[] both = new byte[first.length + second.length];
    System.arraycopy(first, 0, both, 0, first.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }
}
