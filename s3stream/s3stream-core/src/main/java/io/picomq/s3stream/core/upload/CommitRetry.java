package io.picomq.s3stream.core.upload;

import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.time.Backoff;
import io.picomq.s3stream.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one request, repeating it after failures that are not refusals. Repeating is safe: the
 * metadata plane treats a commit whose object ids are already catalogued as already applied. A
 * {@link MetadataRejectedException} (fenced, offsets that do not line up) is final, unless the
 * attempt was offered before the commit it follows had completed (see {@link #commit(
 * CommitStreamSetObjectRequest, CompletableFuture)}).
 */
public final class CommitRetry {

  private static final Logger LOG = LoggerFactory.getLogger(CommitRetry.class);

  /** Attempts before giving up: with the backoff below, about a minute and a half. */
  static final int MAX_ATTEMPTS = 20;

  /** Between attempts: 50 ms doubling to 5 s. */
  private static final Backoff BACKOFF =
      Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(5));

  private final ObjectManager objectManager;
  private final Scheduler scheduler;
  private final EngineMetrics metrics;

  public CommitRetry(ObjectManager objectManager, Scheduler scheduler, EngineMetrics metrics) {
    this.objectManager = objectManager;
    this.scheduler = scheduler;
    this.metrics = metrics;
  }

  /**
   * Commits {@code request}, whose commits before it have all completed; completes when it applied,
   * or with the final error.
   */
  public CompletableFuture<Void> commit(CommitStreamSetObjectRequest request) {
    return commit(request, CompletableFuture.completedFuture(null));
  }

  /**
   * Commits {@code request} right behind {@code previous}, a commit already offered that may still
   * be under way; completes when {@code request} applied, or with the final error. The first
   * attempt is offered within this call.
   *
   * <p>The metadata log applies one process's proposals in the order they were offered, so the
   * first attempt normally applies right after {@code previous}. But {@code previous} may fail (and
   * be retried later), and then this attempt reaches the plane first: its ranges do not continue
   * the committed ends and it is refused. So a failure of an attempt offered before {@code
   * previous} completed is never final: it waits for {@code previous}, fails with it if it failed,
   * and otherwise is offered again, now judged as usual. Worked example, blocks 1 and 2 of one
   * stream: 1's first attempt times out unapplied, 2's first attempt is refused (the stream ends
   * where 1 starts), 1's retry applies, then 2's second attempt applies.
   *
   * @param previous completes once the commit before this one applied (and every one before it), or
   *     fails if it will not
   */
  public CompletableFuture<Void> commit(
      CommitStreamSetObjectRequest request, CompletableFuture<Void> previous) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    attempt(request, 1, previous, done);
    return done;
  }

  private void attempt(
      CommitStreamSetObjectRequest request,
      int attempt,
      CompletableFuture<Void> previous,
      CompletableFuture<Void> done) {
    if (previous.isCompletedExceptionally()) {
      previous.whenComplete((ignored, error) -> done.completeExceptionally(Causes.unwrap(error)));
      return;
    }
    // Read before offering: only an attempt offered after previous applied is judged on its own.
    boolean afterPrevious = previous.isDone();
    long started = System.nanoTime();
    CompletableFuture<Void> call;
    try {
      call = objectManager.commitStreamSetObject(request);
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete(
        (ignored, error) -> {
          metrics.commitLatency.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
          if (error == null) {
            metrics.commits.increment();
            done.complete(null);
            return;
          }
          metrics.commitFailures.increment();
          Throwable cause = Causes.unwrap(error);
          if (!afterPrevious) {
            LOG.debug(
                "commit of upload {} failed before the one before it completed: {}",
                request.orderId(),
                cause.toString());
            previous.whenComplete(
                (applied, previousError) -> attempt(request, attempt + 1, previous, done));
            return;
          }
          if (cause instanceof MetadataRejectedException || attempt >= MAX_ATTEMPTS) {
            done.completeExceptionally(cause);
            return;
          }
          LOG.warn(
              "commit of upload {} failed (attempt {}), retrying: {}",
              request.orderId(),
              attempt,
              cause.toString());
          scheduler.schedule(
              () -> attempt(request, attempt + 1, previous, done), BACKOFF.ceilingNanos(attempt));
        });
  }
}
