package io.picomq.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Gathers a producer's records into batches: a batch is sealed when it reaches the record or byte
 * limit, or when the session says so (linger time passed, flush). A record bigger than the byte
 * limit gets a batch of its own. Each sealed batch takes the next producer seq, from 0.
 *
 * <p>Not thread-safe: the session calls it under its lock.
 */
final class BatchAccumulator {

  private final int maxRecords;
  private final long maxBytes;

  private long nextProducerSeq;
  private final List<Record> records = new ArrayList<>();
  private final List<CompletableFuture<AppendResult>> futures = new ArrayList<>();
  private long bytes;

  BatchAccumulator(int maxRecords, long maxBytes) {
    this.maxRecords = (int) OptionChecks.positive(maxRecords, "maxRecords");
    this.maxBytes = OptionChecks.positive(maxBytes, "maxBytes");
  }

  /**
   * Adds a record. Answers the batches this sealed, in order: the open batch if the record does not
   * fit beside it, and the new one if the record fills it.
   */
  List<ProducerBatch> add(Record record, CompletableFuture<AppendResult> future) {
    List<ProducerBatch> sealed = new ArrayList<>(2);
    long size = record.body().length;
    if (!records.isEmpty() && bytes + size > maxBytes) {
      seal().ifPresent(sealed::add);
    }
    records.add(record);
    futures.add(future);
    bytes += size;
    if (records.size() >= maxRecords || bytes >= maxBytes) {
      seal().ifPresent(sealed::add);
    }
    return sealed;
  }

  /** Seals the open batch, if it has records. */
  Optional<ProducerBatch> seal() {
    if (records.isEmpty()) {
      return Optional.empty();
    }
    ProducerBatch batch = new ProducerBatch(nextProducerSeq++, records, futures, bytes);
    records.clear();
    futures.clear();
    bytes = 0;
    return Optional.of(batch);
  }

  /** Whether a batch is open (has records not yet sealed). */
  boolean hasOpenBatch() {
    return !records.isEmpty();
  }

  /** The futures of the open batch, which a failing session fails too. */
  List<CompletableFuture<AppendResult>> drainOpen() {
    List<CompletableFuture<AppendResult>> open = List.copyOf(futures);
    records.clear();
    futures.clear();
    bytes = 0;
    return open;
  }

  /** The producer seq the next sealed batch will take. */
  long nextProducerSeq() {
    return nextProducerSeq;
  }
}
