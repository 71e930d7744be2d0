package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.wal.SealedBatch;
import io.picomq.s3stream.wal.SerialExecutor;
import io.picomq.s3stream.wal.WalBatcher;
import io.picomq.s3stream.wal.WalFailedException;
import io.picomq.s3stream.wal.WalFencedException;
import io.picomq.s3stream.wal.WalStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns sealed batches into slot rows, inserts them, acknowledges their records in offset order,
 * and runs trims.
 *
 * <p>Threading: every method runs on the owner executor, one task at a time; database calls run on
 * their own threads and post their outcome back to it. The volatile fields are published for
 * readers on other threads.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@link #pending} holds every sealed, unconfirmed batch in offset order; a batch is
 *       confirmed only when it and every batch before it are committed, so the confirm offset never
 *       skips a hole and acknowledgements complete in offset order.
 *   <li>A batch is framed once; every attempt inserts those same bytes at the same start offset, so
 *       a retry after a lost answer finds its own row ({@link InsertOutcome.AlreadyStored}).
 *   <li>At most {@code maxInflight} inserts run at once, each its own transaction, started in
 *       offset order; a batch whose slot still holds an untrimmed older generation waits, and every
 *       later batch with it ({@link RingSlots}). Waiting batches count as unflushed, so appends
 *       meet {@code OverCapacity} when too many wait.
 *   <li>Outages are retried until the WAL stops ({@link DatabaseCalls}); a conflicting row or any
 *       lasting failure stops the WAL for good, a fenced insert or trim fences it.
 *   <li>At most one trim runs at a time; trims asked for meanwhile are folded into the next.
 * </ul>
 */
final class BatchCommitter {

  private static final Logger LOG = LoggerFactory.getLogger(BatchCommitter.class);

  /** A sealed batch on its way into the database. Owner thread only. */
  private static final class PendingRow {
    final SealedBatch batch;
    final byte[] framed;
    boolean committed;

    PendingRow(SealedBatch batch, byte[] framed) {
      this.batch = batch;
      this.framed = framed;
    }

    String range() {
      return "[" + batch.startOffset() + ", " + batch.endOffset() + ")";
    }
  }

  /** A trim's caller, waiting until the trim offset is recorded and covered slots truncated. */
  private record TrimWaiter(long offset, CompletableFuture<Void> trimmed) {}

  private final WalDatabase database;
  private final DatabaseCalls calls;
  private final WalBatcher batcher;
  private final SerialExecutor owner;
  private final RingSlots ring;
  private final int maxInflight;
  private final long epoch;

  // Owner thread only.
  private final Deque<PendingRow> pending = new ArrayDeque<>();
  private final Deque<PendingRow> waiting = new ArrayDeque<>();
  private final List<TrimWaiter> trimWaiters = new ArrayList<>();
  private final List<CompletableFuture<Void>> shutdownWaiters = new ArrayList<>();
  private int inflight;
  private long requestedTrim = -1;
  private boolean trimRunning;
  private boolean ringFullLogged;
  private WalStatus stopped;

  // Written on the owner thread (and once by begin()), read anywhere.
  private volatile long confirmOffset;
  private volatile long persistedTrimOffset = -1;
  private volatile RuntimeException stopError;

  BatchCommitter(
      WalDatabase database,
      DatabaseCalls calls,
      WalBatcher batcher,
      SerialExecutor owner,
      RingGeometry geometry,
      int maxInflight,
      long epoch) {
    this.database = database;
    this.calls = calls;
    this.batcher = batcher;
    this.owner = owner;
    this.ring = new RingSlots(geometry);
    this.maxInflight = maxInflight;
    this.epoch = epoch;
  }

  long confirmOffset() {
    return confirmOffset;
  }

  long persistedTrimOffset() {
    return persistedTrimOffset;
  }

  /** Why database calls should stop retrying: the WAL stopped. Any thread. */
  Optional<RuntimeException> stopError() {
    return Optional.ofNullable(stopError);
  }

  /**
   * Sets where confirmation starts and the trim offset in force. Called by start and reset before
   * any batch is sealed; the batcher's hand-off publishes the values to the owner thread.
   */
  void begin(long offset, long trimOffset) {
    confirmOffset = offset;
    persistedTrimOffset = trimOffset;
  }

  /** Takes the batches the batcher sealed, in order, and starts inserts as allowed. */
  void drain() {
    SealedBatch batch;
    while ((batch = batcher.pollSealed()) != null) {
      if (stopped != null) {
        batch.fail(stopError);
        batch.releaseBodies();
        continue;
      }
      byte[] framed;
      try {
        framed = FramedRecords.encode(batch.startOffset(), batch.bodies());
      } catch (RuntimeException e) {
        batch.releaseBodies();
        pending.addLast(new PendingRow(batch, new byte[0]));
        fail(new WalFailedException("cannot frame the batch " + batch, e));
        continue;
      }
      batch.releaseBodies(); // the framed bytes are all an insert needs
      PendingRow row = new PendingRow(batch, framed);
      pending.addLast(row);
      waiting.addLast(row);
    }
    startInserts();
    finishShutdownIfIdle();
  }

  /** Asks for a trim; {@code trimmed} completes once it is recorded and its slots truncated. */
  void trim(long offset, CompletableFuture<Void> trimmed) {
    if (stopped != null) {
      trimmed.completeExceptionally(stopError);
      return;
    }
    if (offset <= persistedTrimOffset) {
      trimmed.complete(null);
      return;
    }
    trimWaiters.add(new TrimWaiter(offset, trimmed));
    requestedTrim = Math.max(requestedTrim, offset);
    runTrim();
  }

  /** Completes {@code done} once every sealed batch is confirmed, or failed by a stop. */
  void whenIdle(CompletableFuture<Void> done) {
    shutdownWaiters.add(done);
    drain();
  }

  /**
   * Stops for good: fails every pending batch in offset order, then the batcher's leftovers and the
   * trims waiting. Later database answers are ignored.
   */
  void stop(WalStatus terminal, SealedBatch leftover) {
    if (stopped == null) {
      stopped = terminal;
      stopError = terminal.error();
      for (PendingRow row : pending) {
        row.batch.fail(stopError);
      }
      pending.clear();
      waiting.clear();
      SealedBatch queued;
      while ((queued = batcher.pollSealed()) != null) {
        queued.fail(stopError);
        queued.releaseBodies();
      }
      trimWaiters.forEach(waiter -> waiter.trimmed().completeExceptionally(stopError));
      trimWaiters.clear();
    }
    if (leftover != null) {
      leftover.fail(stopError);
      leftover.releaseBodies();
    }
    finishShutdownIfIdle();
  }

  private void startInserts() {
    while (stopped == null && inflight < maxInflight && !waiting.isEmpty()) {
      PendingRow row = waiting.peekFirst();
      if (!ring.admits(row.batch.startOffset())) {
        if (!ringFullLogged) {
          ringFullLogged = true;
          LOG.info(
              "WAL of epoch {}: the batch {} waits until its slot is trimmed (it holds generation"
                  + " {}); appends slow down until the engine trims",
              epoch,
              row.range(),
              ring.heldBy(row.batch.startOffset()));
        }
        return;
      }
      ringFullLogged = false;
      waiting.pollFirst();
      int slot = ring.occupy(row.batch.startOffset(), row.batch.endOffset());
      inflight++;
      calls
          .call(
              "inserting the WAL batch " + row.range() + " into " + database.slotTable(slot),
              connection ->
                  database.insert(
                      connection, slot, row.batch.startOffset(), row.batch.endOffset(), row.framed),
              this::stopError)
          // The thread that ran the insert runs the owner's turn when the owner is idle: one
          // thread hand-off fewer between a commit and its acknowledgement.
          .whenComplete(
              (outcome, error) -> owner.runHereOrQueue(() -> onInserted(row, outcome, error)));
    }
  }

  private void onInserted(PendingRow row, InsertOutcome outcome, Throwable error) {
    inflight--;
    if (stopped != null) {
      finishShutdownIfIdle();
      return;
    }
    if (error != null) {
      Throwable cause = Causes.unwrap(error);
      fail(
          new WalFailedException(
              "inserting the WAL batch " + row.range() + " failed: " + cause, cause));
      return;
    }
    switch (outcome) {
      case InsertOutcome.Inserted inserted -> committed(row);
      case InsertOutcome.AlreadyStored again -> {
        LOG.info("WAL batch {} was stored by an attempt whose answer was lost", row.range());
        committed(row);
      }
      case InsertOutcome.Conflict conflict ->
          fail(new WalFailedException("the WAL is corrupt: " + conflict.description(), null));
      case InsertOutcome.Fenced fenced -> fence(fenced.reason());
    }
  }

  private void committed(PendingRow row) {
    row.committed = true;
    while (!pending.isEmpty() && pending.peekFirst().committed) {
      PendingRow confirmed = pending.pollFirst();
      confirmOffset = confirmed.batch.endOffset();
      batcher.stored(confirmed.batch.sizeBytes());
      confirmed.batch.acknowledge();
    }
    startInserts();
    finishShutdownIfIdle();
  }

  private void runTrim() {
    if (trimRunning || stopped != null || requestedTrim <= persistedTrimOffset) {
      return;
    }
    long target = requestedTrim;
    List<Integer> truncatable = ring.truncatable(target);
    trimRunning = true;
    calls
        .call(
            "trimming the WAL to " + target,
            connection -> {
              database.trim(connection, target, truncatable);
              return null;
            },
            this::stopError)
        .whenComplete(
            (ignored, error) -> owner.execute(() -> onTrimmed(target, truncatable, error)));
  }

  private void onTrimmed(long target, List<Integer> truncated, Throwable error) {
    trimRunning = false;
    if (stopped != null) {
      finishShutdownIfIdle();
      return;
    }
    if (error != null) {
      Throwable cause = Causes.unwrap(error);
      if (cause instanceof WalFencedException fenced) {
        fence(fenced.getMessage());
      } else {
        fail(new WalFailedException("trimming the WAL to " + target + " failed: " + cause, cause));
      }
      return;
    }
    persistedTrimOffset = Math.max(persistedTrimOffset, target);
    ring.truncated(truncated);
    for (Iterator<TrimWaiter> it = trimWaiters.iterator(); it.hasNext(); ) {
      TrimWaiter waiter = it.next();
      if (waiter.offset() <= persistedTrimOffset) {
        it.remove();
        waiter.trimmed().complete(null);
      }
    }
    startInserts(); // a truncated slot may be what the next batch waited for
    runTrim();
  }

  private void fence(String reason) {
    WalStatus.Fenced fenced = new WalStatus.Fenced(epoch, reason);
    LOG.warn("the WAL of epoch {} is fenced: {}", epoch, reason);
    stop(fenced, batcher.stop(fenced));
  }

  private void fail(WalFailedException failure) {
    LOG.error("the WAL of epoch {} failed", epoch, failure);
    WalStatus.Failed failed = new WalStatus.Failed(failure);
    stop(failed, batcher.stop(failed));
  }

  private void finishShutdownIfIdle() {
    if (shutdownWaiters.isEmpty()) {
      return;
    }
    boolean idle = pending.isEmpty() && batcher.noneSealed();
    if (!idle && stopped == null) {
      return;
    }
    Optional<RuntimeException> failure =
        stopped == null || stopped instanceof WalStatus.Closed
            ? Optional.empty()
            : Optional.of(stopError);
    List<CompletableFuture<Void>> waiters = List.copyOf(shutdownWaiters);
    shutdownWaiters.clear();
    for (CompletableFuture<Void> waiter : waiters) {
      failure.ifPresentOrElse(waiter::completeExceptionally, () -> waiter.complete(null));
    }
  }
}
