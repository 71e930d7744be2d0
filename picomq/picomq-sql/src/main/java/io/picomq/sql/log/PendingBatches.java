package io.picomq.sql.log;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * This node's batches that are written or being written but not yet applied, by sequence.
 *
 * <p>A batch is registered before its row is inserted, so the tailer can settle it whenever it
 * meets the row, even before the flusher hears back from the database.
 *
 * <p>A tailer that reinstalls a snapshot skips rows, possibly this node's own. The flusher writes a
 * batch's index then reads {@code reinstalledThrough}; the tailer writes {@code reinstalledThrough}
 * then reads every batch's index. Both are volatile, so at least one side sees the other's write
 * and settles a skipped batch as {@link ProposalOutcomeUnknownException}.
 */
final class PendingBatches<R> {
  private final ConcurrentHashMap<Long, Batch<R>> bySequence = new ConcurrentHashMap<>();
  private final Executor completions;

  /** The highest snapshot index the tailer reinstalled; written by the tailer only. */
  private volatile long reinstalledThrough;

  PendingBatches(Executor completions) {
    this.completions = completions;
  }

  void register(Batch<R> batch) {
    bySequence.put(batch.sequence(), batch);
  }

  /** The flusher learned that {@code batch} is row {@code index}. */
  void written(Batch<R> batch, long index) {
    batch.rowIndex(index);
    if (reinstalledThrough >= index) {
      skipped(batch, reinstalledThrough);
    }
  }

  /** The tailer applied the row of batch {@code sequence} with these results. */
  void applied(long sequence, List<R> results) {
    Batch<R> batch = bySequence.remove(sequence);
    if (batch != null) {
      batch.complete(results, completions);
    }
  }

  /** The tailer installed the snapshot through row {@code snapshotIndex}, skipping rows. */
  void reinstalled(long snapshotIndex) {
    reinstalledThrough = snapshotIndex;
    for (Batch<R> batch : bySequence.values()) {
      long index = batch.rowIndex();
      if (index != 0 && index <= snapshotIndex) {
        skipped(batch, snapshotIndex);
      }
    }
  }

  private void skipped(Batch<R> batch, long snapshotIndex) {
    bySequence.remove(batch.sequence());
    batch.fail(
        new ProposalOutcomeUnknownException(
            "proposal committed at row "
                + batch.rowIndex()
                + " but this node crossed it by installing the snapshot through row "
                + snapshotIndex
                + ", so its result is unknown; the command took effect once"),
        completions);
  }

  void fail(Batch<R> batch, Throwable failure) {
    bySequence.remove(batch.sequence());
    batch.fail(failure, completions);
  }

  void failAll(Throwable failure) {
    for (Batch<R> batch : bySequence.values()) {
      fail(batch, failure);
    }
  }
}
