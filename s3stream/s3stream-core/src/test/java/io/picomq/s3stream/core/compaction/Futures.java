package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.Causes;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting on futures in tests: a deadline, and failures surfacing as their cause. */
final class Futures {

  private Futures() {}

  static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = Causes.unwrap(e.getCause());
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The cause a future failed with. */
  static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return Causes.unwrap(e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
    throw new AssertionError("the future did not fail");
  }
}
