package io.picomq.frontend.live;

import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import io.netty.handler.codec.http.HttpHeaders;
import io.picomq.frontend.http.Exchange;
import io.picomq.frontend.http.ResponseStream;
import io.picomq.frontend.http.Unavailable;
import io.picomq.stream.ReadOutcome;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pacing of one Server-Sent Events response, the same for both protocols: what goes on the wire
 * is the {@link SseWire}'s. The response is a chain of steps on {@code continuations} threads:
 * read, write, and read on only when the client has taken the write (a slow client holds back
 * reads, not the server's memory); at the tail, a {@link TailWait} without a thread. An idle
 * response gets a keep-alive every long-poll timeout, then reads again (a reader following the
 * stream is activity: it renews a sliding TTL); it ends after {@link LiveOptions#sseMaxDuration},
 * when a read finds no batch, when the client goes away, or on shutdown, and the client reconnects.
 *
 * <p>Threading: the steps run one at a time (each starts when the previous one's future completes),
 * so the mutable fields need no lock.
 */
public final class SseLoop {

  private static final Logger LOG = LoggerFactory.getLogger(SseLoop.class);

  private final Exchange exchange;
  private final String name;
  private final TailWait tailWait;
  private final Duration longPollTimeout;
  private final Executor continuations;
  private final SseWire wire;
  private final long deadlineNanos;

  // Owned by the running step.
  private ResponseStream response;
  private long position;

  public SseLoop(
      Exchange exchange,
      String name,
      TailWait tailWait,
      LiveOptions options,
      Executor continuations,
      SseWire wire) {
    this.exchange = exchange;
    this.name = name;
    this.tailWait = tailWait;
    this.longPollTimeout = options.longPollTimeout();
    this.continuations = continuations;
    this.wire = wire;
    this.deadlineNanos = System.nanoTime() + options.sseMaxDuration().toNanos();
  }

  /** Answers {@code 200} with {@code headers} and goes on from {@code first}, already read. */
  public void start(HttpHeaders headers, ReadOutcome.Batch first) {
    response = exchange.stream(OK, headers);
    deliver(first);
  }

  /** Writes what a batch says and decides what comes next. */
  private void deliver(ReadOutcome.Batch batch) {
    position = batch.nextSeq();
    byte[] events = wire.events(batch);
    CompletableFuture<Void> written =
        events.length == 0 ? CompletableFuture.completedFuture(null) : response.write(events);
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
    if (wire.read(position) instanceof ReadOutcome.Batch batch) {
      deliver(batch);
    } else {
      response.end();
    }
  }

  private void awaitMore() {
    long remainingNanos = deadlineNanos - System.nanoTime();
    if (over()) {
      response.end();
      return;
    }
    Duration wait = Duration.ofNanos(Math.min(remainingNanos, longPollTimeout.toNanos()));
    tailWait
        .beyond(name, position, exchange, wait)
        .thenAccept(moved -> step(moved ? this::readAndDeliver : this::keepAlive));
  }

  /** Nothing happened for a while: say so, and go on. */
  private void keepAlive() {
    if (over()) {
      response.end();
      return;
    }
    // Then reads: a read is activity, so a reader idle at the tail keeps a sliding TTL alive.
    response
        .write(wire.keepAlive(position))
        .whenCompleteAsync(
            (ignored, failure) -> step(failure != null ? response::end : this::readAndDeliver),
            continuations);
  }

  /** Runs a step; a failure in it ends the response rather than leaving the client hanging. */
  private void step(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException failure) {
      if (Unavailable.of(failure).isPresent()) {
        // Storage or metadata failing: not a bug; the client reconnects from its last event.
        LOG.warn("SSE on {} ended: {}", name, failure.getMessage());
      } else {
        LOG.error("SSE on {} failed", name, failure);
      }
      response.end();
    }
  }

  private boolean over() {
    return exchange.interrupted().isDone() || System.nanoTime() - deadlineNanos >= 0;
  }
}
