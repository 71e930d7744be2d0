package io.picomq.server.service;

import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.server.service.Registration.ProducerState;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.ProducerTag;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Writes a loaded stream's registry entry, and rebuilds it from the stamps in the stream's batches
 * when loading.
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>Every change of an existing entry (producer state, writer seq, closed flag, trim, fork
 *       references, soft delete) is a KV put proposed in order per name: {@link
 *       LiveStream#persisted} chains them, so the log holds them in the order they were decided.
 *   <li>An entry is never ahead of the records: it is proposed only once every append it reflects
 *       is durable ({@link LiveStream#lastAppend}), and says up to which seq it covers the stamps
 *       ({@code stampedThrough}). A producer seq in the entry whose records were lost would answer
 *       a retry as a duplicate.
 *   <li>An append that changes the entry stores that change as a {@link BatchStamp} in its own
 *       batch; loading replays the stamps past {@code stampedThrough} ({@link #replayStamps}). So a
 *       retry after a crash at any point is a duplicate exactly when its records are in the stream.
 *   <li>Plain appends do not write the entry; once {@link #CHECKPOINT_RECORDS} records (or {@link
 *       #CHECKPOINT_BYTES}) passed since the entry's {@code stampedThrough}, one write moves it up,
 *       so loading replays a bounded tail.
 * </ul>
 *
 * <h2>Threading</h2>
 *
 * {@link #persist} runs under the stream's lock and only chains futures; the proposal runs when
 * they complete, taking the lock again just to see whether the name was removed meanwhile. {@link
 * #replayStamps} blocks on the engine (bounded, {@link ServiceFailures}) and takes no lock.
 */
final class EntryWriter {
  /** Plain appends between two checkpoint entry writes, at most. */
  static final long CHECKPOINT_RECORDS = 4096;

  /** Payload bytes of plain appends between two checkpoint entry writes, at most. */
  static final long CHECKPOINT_BYTES = 16L << 20;

  private final EntryLog entries;
  private final ServiceFailures failures;

  EntryWriter(EntryLog entries, ServiceFailures failures) {
    this.entries = entries;
    this.failures = failures;
  }

  /**
   * Under the stream's lock: makes {@code next} the stream's entry and proposes it once {@code
   * after} completed, every append handed to the engine so far is durable, and every earlier write
   * of this entry applied, keeping the log in decision order. Nothing is written once the name is
   * removed.
   *
   * <p>The stored entry says it covers the stamps of every batch below the assigned tail ({@code
   * stampedThrough}): {@code next} holds the effect of every append assigned so far, and waiting
   * for the last of them to be durable keeps the entry from ever being ahead of the records.
   *
   * @return completes once the entry applied; fails when it or an append it waits for failed
   */
  CompletableFuture<Void> persist(
      LiveStream stream, Registration next, CompletableFuture<Void> after) {
    stream.registration = next;
    String key = Registry.key(stream.name);
    long stampedThrough = stream.assignedTail;
    stream.stampedThroughProposed = stampedThrough;
    stream.unstampedBytes = 0;
    // The last assigned record's timestamp goes with the tail it belongs to: a load that finds the
    // durable tail still there need not read that record (see Registration#tailTimestampAt).
    byte[] bytes =
        next.withActivity(stream.activityMillis)
            .withStampedThrough(stampedThrough)
            .withTailTimestamp(stream.lastTimestampMillis)
            .encode();
    // A failed earlier write was reported to its caller; this entry holds its effect anyway
    // (entries are cumulative), so the chain goes on.
    CompletableFuture<Void> previous = stream.persisted.exceptionally(ignored -> null);
    CompletableFuture<Void> written =
        CompletableFuture.allOf(previous, after, stream.lastAppend)
            .thenCompose(
                ignored -> {
                  stream.lock.lock();
                  try {
                    if (stream.removed) {
                      return CompletableFuture.completedFuture(null);
                    }
                    return entries.put(key, bytes);
                  } finally {
                    stream.lock.unlock();
                  }
                });
    stream.persisted = written;
    return written;
  }

  /**
   * Under the stream's lock, after a plain append assigned seqs below {@code nextSeq}: whether
   * enough passed since the last entry write that one should move {@code stampedThrough} up.
   */
  static boolean checkpointDue(LiveStream stream, long nextSeq) {
    return nextSeq - stream.stampedThroughProposed >= CHECKPOINT_RECORDS
        || stream.unstampedBytes >= CHECKPOINT_BYTES;
  }

  /**
   * The entry with the effect of the stamps stored in this stream's own batches from the entry's
   * {@code stampedThrough} up to the durable {@code tail}: what appends that became durable did to
   * the entry when the node that took them died before writing it.
   *
   * <p>Why stamps in the log rather than an intent entry written before the append: the log is the
   * one place that says whether a batch is durable, so a stamp stored in it is true exactly when
   * its records are; an intent would cost a second metadata write before every producer append and
   * still need the log to tell whether it happened. This is how Kafka rebuilds producer state from
   * the log tail past its last snapshot.
   */
  Registration replayStamps(Registration registration, Stream own, long tail) {
    Segment segment = registration.own();
    // Below startSeq the engine may have trimmed; an entry's stampedThrough is never below the
    // startSeq it was written with, so nothing there is uncovered (a version 1 entry says 0).
    long from =
        Math.max(
            registration.stampedThrough(), Math.max(registration.startSeq(), segment.seqStart()));
    long offset = segment.offsetOf(from);
    long end = segment.offsetOf(tail);
    if (offset >= end) {
      return registration;
    }
    Map<String, ProducerState> producers = new HashMap<>(registration.producers());
    Optional<String> writerSeq = registration.writerSeq();
    boolean closed = registration.closed();
    while (offset < end) {
      long before = offset;
      try (FetchResult result =
          failures.await(
              own.fetch(offset, end, SegmentReader.MAX_FETCH_BYTES, ReadOptions.DEFAULT))) {
        for (FetchedBatch batch : result.batches()) {
          if (batch.baseOffset() < offset) {
            continue; // covered already: the entry's position is always a batch boundary
          }
          BatchStamp stamp = RecordBatchPayload.stamp(batch.payload(), batch.count());
          if (stamp.producer().isPresent()) {
            ProducerTag producer = stamp.producer().get();
            producers.put(producer.id(), new ProducerState(producer.epoch(), producer.seq()));
          }
          if (stamp.writerSeq().isPresent()) {
            writerSeq = stamp.writerSeq();
          }
          closed |= stamp.close();
          offset = batch.nextOffset();
        }
      }
      if (offset == before) {
        throw new IllegalStateException(
            "engine stream " + own.streamId() + " returned nothing at offset " + offset);
      }
    }
    return registration
        .withWriter(writerSeq, producers)
        .withClosed(closed)
        .withStampedThrough(tail);
  }
}
