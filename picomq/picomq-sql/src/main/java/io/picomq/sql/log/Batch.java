package io.picomq.sql.log;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The proposals the flusher packed into one row, waiting for the outcome.
 *
 * <p>Several threads may try to settle a batch (the tailer when it applies or skips the row, the
 * flusher when a write fails, close): the first {@link #complete} or {@link #fail} wins and the
 * others do nothing. The decision is taken on the calling thread; the futures are completed on the
 * completion executor, so callers' callbacks never run on the tailer.
 */
final class Batch<R> {
  private final long sequence;
  private final List<CompletableFuture<R>> results;
  private final AtomicBoolean settled = new AtomicBoolean();

  /** 0 until the flusher knows the row's index; written by the flusher, read by the tailer. */
  private volatile long rowIndex;

  Batch(long sequence, List<CompletableFuture<R>> results) {
    this.sequence = sequence;
    this.results = List.copyOf(results);
  }

  long sequence() {
    return sequence;
  }

  long rowIndex() {
    return rowIndex;
  }

  void rowIndex(long index) {
    this.rowIndex = index;
  }

  boolean settled() {
    return settled.get();
  }

  /** Completes proposal {@code i} with {@code values.get(i)}, unless already settled. */
  void complete(List<R> values, Executor completions) {
    if (values.size() != results.size()) {
      throw new IllegalStateException(
          "batch "
              + sequence
              + " has "
              + results.size()
              + " proposals but "
              + values.size()
              + " results");
    }
    if (settled.compareAndSet(false, true)) {
      dispatch(
          completions,
          () -> {
            for (int i = 0; i < results.size(); i++) {
              results.get(i).complete(values.get(i));
            }
          });
    }
  }

  /** Fails every proposal with {@code failure}, unless already settled. */
  void fail(Throwable failure, Executor completions) {
    if (settled.compareAndSet(false, true)) {
      dispatch(completions, () -> results.forEach(result -> result.completeExceptionally(failure)));
    }
  }

  static void dispatch(Executor completions, Runnable task) {
    try {
      completions.execute(task);
    } catch (RejectedExecutionException e) {
      // The executor is shut down (process exit): completing inline beats never completing.
      task.run();
    }
  }
}
