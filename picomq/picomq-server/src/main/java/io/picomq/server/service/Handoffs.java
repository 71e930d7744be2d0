package io.picomq.server.service;

import io.picomq.s3stream.api.Stream;
import io.picomq.stream.StreamUnavailableException;
import io.picomq.stream.StreamUnavailableException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source's side of a transfer (the brief's section 5): stops taking appends for the stream,
 * waits until every append it took is durable and the entry holding their producer state is
 * written, writes the entry at the tail it ended at ({@link #writeAtTail}), closes the engine
 * stream (which uploads what the WAL holds and closes the stream in the log at its epoch) and lets
 * the instance go. The caller then proposes the completion with that epoch.
 *
 * <p>Appends that arrive meanwhile are refused with {@code 503 not_owner} and nothing written, so a
 * client's retry goes where the router now sends it: to the target. Long-polling readers are woken
 * and find the stream gone; their next read goes to the target too.
 *
 * <p>Threading: blocks (bounded, {@link ServiceFailures}); call it on a virtual thread.
 */
final class Handoffs {
  private static final Logger LOG = LoggerFactory.getLogger(Handoffs.class);

  private final LoadedStreams loaded;
  private final EngineStreams engineStreams;
  private final EntryWriter writer;
  private final ServiceFailures failures;

  Handoffs(
      LoadedStreams loaded,
      EngineStreams engineStreams,
      EntryWriter writer,
      ServiceFailures failures) {
    this.loaded = loaded;
    this.engineStreams = engineStreams;
    this.writer = writer;
    this.failures = failures;
  }

  /** What an append to a stream on its way to another node is answered. */
  static StreamUnavailableException moving(String name) {
    return new StreamUnavailableException(
        Reason.NOT_OWNER, false, name + " is moving to another node; retry there", null);
  }

  /**
   * Hands off engine stream {@code streamId}, which this process has open.
   *
   * @return the epoch the stream was closed at
   */
  long handOff(long streamId) {
    Optional<LiveStream> held = loaded.holding(streamId);
    if (held.isEmpty()) {
      // Open here with no instance: one was forgotten after a failed append, or it is read only
      // for a fork. The engine hands back the stream it has open (no proposal); once what it
      // took is settled, it closes like any other.
      Stream own = engineStreams.open(streamId);
      failures.await(own.settle().exceptionally(ignored -> null));
      failures.await(own.close());
      engineStreams.drop(own);
      return own.epoch();
    }
    LiveStream stream = held.get();
    CompletableFuture<Void> taken;
    stream.lock.lock();
    try {
      stream.handingOff = true;
      // Failed ones count as done: their instance was forgotten, and what they wrote is covered
      // by the stamps in their batches, which the target replays.
      taken =
          CompletableFuture.allOf(
              stream.lastAppend.exceptionally(ignored -> null),
              stream.persisted.exceptionally(ignored -> null));
    } finally {
      stream.lock.unlock();
    }
    long started = System.nanoTime();
    failures.await(taken);
    long settled = System.nanoTime();
    CompletableFuture<Void> entry = writeAtTail(stream);
    failures.await(stream.own.close());
    long closed = System.nanoTime();
    // Applied before the close by now (offered before it), unless it failed: then the target reads
    // the tail as any load does, and the entry it reads is still a correct one. Not waited for.
    boolean entryWritten = entry.isDone() && !entry.isCompletedExceptionally();
    // The source's steps, for the transfer's own line ("handed stream N off ... in X ms").
    LOG.debug(
        "stream {}: appends durable in {} ms, closed (uploaded, closed in the log) in {} ms;"
            + " entry written at the tail: {}",
        streamId,
        (settled - started) / 1_000_000,
        (closed - settled) / 1_000_000,
        entryWritten);
    loaded.handedOff(stream);
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    stream.lock.lock();
    try {
      stream.waiters.forEach(waiter -> waiting.add(waiter.signal()));
      stream.waiters.clear();
    } finally {
      stream.lock.unlock();
    }
    waiting.forEach(signal -> signal.complete(null));
    return stream.own.epoch();
  }

  /**
   * Once every append taken is durable: writes the entry at the stream's tail, with the last
   * record's timestamp, so the target loads it without reading anything (no stamps to replay past
   * {@code stampedThrough}, no last record to read from an object it never read). Costs the source
   * nothing on its chain: the put is offered now, runs while the close uploads, and is applied
   * before the close (the log applies a process's proposals in the order offered), so before the
   * completion that lets the target open the stream.
   *
   * <p>Offered only if it can be offered at once: an entry write still waiting for an earlier one
   * (a trim, say) would be offered after the close, and could land after the target's own writes.
   * Skipped then, as when the entry is at the tail already or the instance was forgotten (its entry
   * may hold effects that never became durable): the target reads the tail as any load does.
   *
   * @return completes once the put applied, or at once when there is nothing to write
   */
  private CompletableFuture<Void> writeAtTail(LiveStream stream) {
    stream.lock.lock();
    try {
      boolean settled =
          stream.persisted.isDone()
              && stream.lastAppend.isDone()
              && !stream.lastAppend.isCompletedExceptionally();
      if (!settled
          || stream.forgotten
          || stream.removed
          || stream.stampedThroughProposed == stream.assignedTail) {
        return CompletableFuture.completedFuture(null);
      }
      // Everything it waits for is complete, so the put is offered within this call.
      return writer.persist(stream, stream.registration, stream.lastAppend);
    } finally {
      stream.lock.unlock();
    }
  }
}
