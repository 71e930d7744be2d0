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
 * {@link MetadataRejectedException} (fenced, offsets that do not line up) is final.
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

  /** Commits {@code request}; completes when it applied, or with the final error. */
  public CompletableFuture<Void> commit(CommitStreamSetObjectRequest request) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    attempt(request, 1, done);
    return done;
  }

  private void attempt(
      CommitStreamSetObjectRequest request, int attempt, CompletableFuture<Void> done) {
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
              () -> attempt(request, attempt + 1, done), BACKOFF.ceilingNanos(attempt));
        });
  }
}
