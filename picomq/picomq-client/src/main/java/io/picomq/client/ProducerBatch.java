package io.picomq.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A sealed batch of a {@link ProducerSession}: its records, their futures, the producer seq it was
 * stamped with and its size. The records and the stamp never change after sealing, which is what
 * makes resending it safe.
 *
 * <p>The mutable fields are owned by the session's lock.
 */
final class ProducerBatch {

  final long producerSeq;
  final List<Record> records;
  final List<CompletableFuture<AppendResult>> futures;
  final long bytes;

  /**
   * The request that appends it, prepared once by the first transmission and resent as it is.
   * Written and read by whichever thread transmits the batch; transmissions of one batch never
   * overlap, and each starts after the previous one ended (a happens-before edge through the
   * session's lock or executor), so no further guard is needed.
   */
  Dialect.PreparedAppend prepared;

  /** Set on the first transmission: when the session gives up resending. */
  long deadlineNanos;

  /** Resends so far for failures (not for waiting on an earlier batch). */
  int attempts;

  /** Resends so far because the server had not yet taken an earlier batch. */
  int gapResends;

  ProducerBatch(
      long producerSeq,
      List<Record> records,
      List<CompletableFuture<AppendResult>> futures,
      long bytes) {
    this.producerSeq = producerSeq;
    this.records = List.copyOf(records);
    this.futures = List.copyOf(futures);
    this.bytes = bytes;
  }

  /** The result of the {@code index}-th record when the whole batch got {@code result}. */
  static AppendResult recordResult(AppendResult result, int index) {
    if (result.duplicate()) {
      return result;
    }
    long seq = result.startSeq() + index;
    return new AppendResult(seq, seq + 1, result.timestampMillis(), false);
  }
}
