package io.picomq.s3stream.core.stream;

import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.wal.WalClosedException;
import io.picomq.s3stream.wal.WalFencedException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Acknowledges appends in the order the WAL placed them, as the WAL confirms them.
 *
 * <p>Design: the write path adds each accepted append to {@link #pending} under its lock, right
 * after the WAL fixed its offset, so the queue is in WAL order, and per stream in offset order.
 * When the WAL answers for a record, the record is marked and a drain is signalled. One drain runs
 * at a time, on the thread that signalled first (the one the WAL answered on: it already has the
 * result, so handing the drain to another executor would only add a thread hand-off to every
 * acknowledgement): it pops answered appends from the head while there are any, raising each
 * stream's confirm offset, then completing the caller's future. Because only the single drainer
 * completes futures, and only from the head, futures complete in offset order per stream (and in
 * WAL order overall) and never inside a lock. Callers' callbacks thus may run on the WAL's thread:
 * they must not block (the host's hand the answer to the connection's event loop).
 *
 * <p>Worked example: appends a (stream 1), b (stream 2), c (stream 1) are pending. The WAL answers
 * c's batch first (its futures complete in order, but callbacks may be observed in any order):
 * nothing drains, a is not answered. Then a and b are answered: one drain pops a (stream 1 confirm
 * -> a.next), b, c in that order.
 */
final class Confirmer {

  private final Queue<PendingAppend> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger wip = new AtomicInteger();
  private final EngineMetrics metrics;
  private final Consumer<Throwable> onWalError;
  private final Runnable afterDrain;

  /**
   * @param onWalError hears every WAL failure an append met (fenced, failed, closed)
   * @param afterDrain runs after each drain: the write path retries waiting appends
   */
  Confirmer(EngineMetrics metrics, Consumer<Throwable> onWalError, Runnable afterDrain) {
    this.metrics = metrics;
    this.onWalError = onWalError;
    this.afterDrain = afterDrain;
  }

  /** Caller: the write path, under its lock, in WAL order. */
  void add(PendingAppend append) {
    pending.add(append);
  }

  /** The WAL answered for {@code append}: durable when {@code error} is null. Any thread. */
  void walAnswered(PendingAppend append, Throwable error) {
    append.walDone(error);
    signal();
  }

  private void signal() {
    if (wip.getAndIncrement() == 0) {
      drainLoop();
    }
  }

  private void drainLoop() {
    int missed = 1;
    do {
      PendingAppend head;
      while ((head = pending.peek()) != null && head.isDone()) {
        pending.poll();
        finish(head);
      }
      missed = wip.addAndGet(-missed);
    } while (missed != 0);
    afterDrain.run();
  }

  private void finish(PendingAppend append) {
    Throwable error = append.error();
    if (error == null) {
      append.stream.confirmed(append.nextOffset());
      append.block.onBatchConfirmed();
      metrics.appendedRecords.increment(append.count);
      metrics.appendedBytes.increment(append.sizeBytes);
      metrics.appendLatency.record(System.nanoTime() - append.startedNanos, TimeUnit.NANOSECONDS);
      append.outcome.complete(new AppendOutcome.Appended(append.baseOffset, append.nextOffset()));
      return;
    }
    append.block.onBatchFailed(error);
    onWalError.accept(error);
    if (error instanceof WalFencedException) {
      metrics.appendFenced.increment();
      append.outcome.complete(new AppendOutcome.Fenced(append.stream.epoch()));
    } else if (error instanceof WalClosedException) {
      metrics.appendClosed.increment();
      append.outcome.complete(new AppendOutcome.Closed());
    } else {
      metrics.appendFailed.increment();
      append.outcome.completeExceptionally(error);
    }
  }
}
