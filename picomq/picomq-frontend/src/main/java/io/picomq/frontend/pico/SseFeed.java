package io.picomq.frontend.pico;

import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.ResponseStream;
import io.picomq.frontend.live.LiveOptions;
import io.picomq.server.stream.ReadOutcome;
import io.picomq.server.stream.StreamRecord;
import io.picomq.server.stream.StreamService;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Server-Sent Events response. Each record is an event whose {@code id} is its seq and whose
 * {@code data} is the record as JSON ({@code {seq, timestamp, headers, body | body_b64}}), so a
 * browser's {@code EventSource} resumes after a reconnect with {@code Last-Event-ID}. Control
 * events ({@code event: control}) say {@code {"next_seq": n, "up_to_date": true}} on reaching the
 * tail and {@code {"next_seq": n, "closed": true}} once a sealed stream is fully delivered, after
 * which the response ends. Their {@code id} is {@code n - 1}, the last seq delivered, so a
 * reconnect continues at the tail. An idle stream gets a comment every long-poll timeout (to keep
 * proxies from timing out); the response ends after {@link LiveOptions#sseMaxDuration}, when the
 * client goes away, or on shutdown, and the client reconnects.
 *
 * <p>A request at the end of a sealed stream gets {@code 204} with {@code Pico-Closed} and no
 * events: that is what makes an {@code EventSource} stop reconnecting.
 *
 * <p>The feed is a chain of steps on {@code continuations} threads: read, write, and read on only
 * when the client has taken the write (a slow client holds back reads, not the server's memory); at
 * the tail, wait on {@link StreamService#awaitBeyond} without a thread. Steps run one at a time
 * (each starts when the previous one's future completes), so the mutable fields need no lock.
 */
final class SseFeed {

  private static final Logger LOG = LoggerFactory.getLogger(SseFeed.class);

  private static final byte[] KEEP_ALIVE = ":\n\n".getBytes(StandardCharsets.UTF_8);

  private final Exchange exchange;
  private final String name;
  private final StreamService service;
  private final LiveOptions options;
  private final Executor continuations;
  private final ReadQuery query;
  private final RecordEvents shared;
  private final long deadlineNanos;

  // Owned by the running step.
  private ResponseStream response;
  private long position;
  private boolean toldUpToDate;

  SseFeed(
      Exchange exchange,
      String name,
      StreamService service,
      LiveOptions options,
      Executor continuations,
      ReadQuery query,
      RecordEvents shared) {
    this.exchange = exchange;
    this.name = name;
    this.service = service;
    this.options = options;
    this.continuations = continuations;
    this.query = query;
    this.shared = shared;
    this.deadlineNanos = System.nanoTime() + options.sseMaxDuration().toNanos();
  }

  /** Answers with the first batch, already read (a missing stream was answered before). */
  void start(ReadOutcome.Batch first) {
    if (first.records().isEmpty() && first.endOfStream()) {
      exchange.respond(NO_CONTENT, Reads.positionHeaders(first), Answers.EMPTY);
      return;
    }
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
    headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    // Tells nginx-style proxies not to buffer the stream.
    headers.set("X-Accel-Buffering", "no");
    response = exchange.stream(OK, headers);
    deliver(first);
  }

  private void deliver(ReadOutcome.Batch batch) {
    position = batch.nextSeq();
    ByteArrayOutputStream events = new ByteArrayOutputStream();
    for (StreamRecord record : batch.records()) {
      events.writeBytes(
          shared.get(batch.stream().streamId(), record.seq(), () -> recordEvent(record)));
    }
    if (batch.endOfStream()) {
      events.writeBytes(control(batch.nextSeq(), "\"closed\":true"));
    } else if (batch.upToDate() && (!batch.records().isEmpty() || !toldUpToDate)) {
      events.writeBytes(control(batch.nextSeq(), "\"up_to_date\":true"));
      toldUpToDate = true;
    }
    CompletableFuture<Void> written =
        events.size() == 0
            ? CompletableFuture.completedFuture(null)
            : response.write(events.toByteArray());
    written.whenCompleteAsync(
        (ignored, failure) ->
            step(
                () -> {
                  if (failure != null || batch.endOfStream()) {
                    response.end();
                  } else if (!batch.upToDate()) {
                    readAndDeliver();
                  } else {
                    awaitMore();
                  }
                }),
        continuations);
  }

  private void readAndDeliver() {
    if (over()) {
      response.end();
      return;
    }
    if (Reads.readFrom(service, name, position, query) instanceof ReadOutcome.Batch batch) {
      deliver(batch);
    } else {
      // Deleted (or expired) under the reader: the reconnect learns why (404).
      response.end();
    }
  }

  private void awaitMore() {
    long remainingNanos = deadlineNanos - System.nanoTime();
    if (over()) {
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
          step(signalled ? this::readAndDeliver : this::keepAlive);
        },
        continuations);
  }

  /** Nothing happened for a while: a comment line keeps intermediaries from closing on us. */
  private void keepAlive() {
    if (over()) {
      response.end();
      return;
    }
    response
        .write(KEEP_ALIVE)
        .whenCompleteAsync(
            (ignored, failure) -> step(failure != null ? response::end : this::awaitMore),
            continuations);
  }

  /** Runs a step; a bug in it ends the response rather than leaving the client hanging. */
  private void step(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException bug) {
      LOG.error("SSE on {} failed", name, bug);
      response.end();
    }
  }

  private boolean over() {
    return exchange.interrupted().isDone() || System.nanoTime() - deadlineNanos >= 0;
  }

  private static byte[] recordEvent(StreamRecord record) {
    byte[] json =
        Json.write(
            generator ->
                Json.writeRecord(
                    generator,
                    record.seq(),
                    record.timestampMillis(),
                    record.headers(),
                    record.body()));
    // JSON text has no raw line breaks (they are escaped in strings), so one data line suffices.
    return event("id: " + record.seq() + "\ndata: ", json);
  }

  private static byte[] control(long nextSeq, String field) {
    byte[] json = ("{\"next_seq\":" + nextSeq + "," + field + "}").getBytes(StandardCharsets.UTF_8);
    return event("event: control\nid: " + (nextSeq - 1) + "\ndata: ", json);
  }

  private static byte[] event(String prefix, byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length() + data.length + 2);
    out.writeBytes(prefix.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(data);
    out.writeBytes(new byte[] {'\n', '\n'});
    return out.toByteArray();
  }
}
