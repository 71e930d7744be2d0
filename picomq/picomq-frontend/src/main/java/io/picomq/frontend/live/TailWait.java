package io.picomq.frontend.live;

import io.picomq.frontend.http.Exchange;
import io.picomq.stream.StreamService;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A live reader's wait at the tail, holding no thread: it registers with {@link
 * StreamService#awaitBeyond} and resumes on {@code continuations} when a record arrives, the stream
 * closes or goes away, the timeout passes, or the exchange is interrupted (client gone, shutdown).
 * The service's waiter is cancelled on every path, so abandoned waits leave nothing behind.
 */
public final class TailWait {

  private final StreamService service;
  private final Executor continuations;

  /**
   * @param continuations where a reader resumes after its wait (give it virtual threads)
   */
  public TailWait(StreamService service, Executor continuations) {
    this.service = service;
    this.continuations = continuations;
  }

  /**
   * Waits until stream {@code name} moves past {@code seq}. Completes on a {@code continuations}
   * thread: {@code true} when the stream moved (or closed, or went away) or the exchange was
   * interrupted, so the caller should read and see; {@code false} when {@code timeout} passed
   * first.
   */
  public CompletableFuture<Boolean> beyond(
      String name, long seq, Exchange exchange, Duration timeout) {
    CompletableFuture<Void> signal = service.awaitBeyond(name, seq);
    CompletableFuture<Boolean> wake = new CompletableFuture<>();
    signal.whenComplete((ignored, failure) -> wake.complete(true));
    exchange.interrupted().whenComplete((ignored, failure) -> wake.complete(true));
    wake.completeOnTimeout(false, timeout.toNanos(), TimeUnit.NANOSECONDS);
    return wake.thenApplyAsync(
        moved -> {
          signal.cancel(false);
          return moved;
        },
        continuations);
  }
}
