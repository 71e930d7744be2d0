package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.Scheduler;
import io.picomq.s3stream.walobject.EncodedWalObject;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns sealed batches into WAL objects, PUTs them, and acknowledges their records in offset order.
 *
 * <p>Threading: every method runs on the owner executor; store callbacks and timers post back to
 * it. The volatile fields are published for readers on other threads.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>{@link #pending} holds every sealed, unconfirmed batch in offset order; a batch is
 *       confirmed only when it and every batch before it are stored, so {@link #confirmOffset}
 *       never skips a hole and acknowledgements complete in offset order.
 *   <li>A batch is encoded once; every PUT attempt sends those same bytes to the same key, so a WAL
 *       key never holds two different contents, whatever a paused or retrying store does with a
 *       late attempt.
 *   <li>At most {@code maxInflightUploadCount} batches are between their first PUT and their
 *       confirmation (a batch waiting out a retry backoff counts).
 *   <li>A transient failure is retried with backoff for as long as the WAL is open; any other
 *       failure is sticky: the WAL fails every pending and later append.
 * </ul>
 */
final class WalUploader {

  private static final Logger LOG = LoggerFactory.getLogger(WalUploader.class);

  static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final ObjectStore store;
  private final WalNode node;
  private final String nodePrefix;
  private final WalConfig config;
  private final WalBatcher batcher;
  private final Scheduler scheduler;
  private final Executor owner;
  private final ByteBufAllocator allocator;

  // Owner thread only.
  private final Deque<SealedBatch> pending = new ArrayDeque<>();
  private final Deque<SealedBatch> waiting = new ArrayDeque<>();

  /** This epoch's stored objects after the fence object, ascending; trims delete from the head. */
  private final Deque<StoredObject> storedObjects = new ArrayDeque<>();

  /** Keys a failed delete left behind, tried again with the next trim. */
  private final List<String> undeleted = new ArrayList<>();

  private final List<CompletableFuture<Void>> shutdownWaiters = new ArrayList<>();
  private int inflight;
  private WalStatus stopped;

  // Written on the owner thread, read anywhere.
  private volatile long confirmOffset;
  private volatile long persistedTrimOffset = -1;
  private volatile long putCount;

  WalUploader(
      ObjectStore store,
      WalNode node,
      WalConfig config,
      WalBatcher batcher,
      Scheduler scheduler,
      Executor owner,
      ByteBufAllocator allocator) {
    this.store = store;
    this.node = node;
    this.nodePrefix = node.nodePrefix();
    this.config = config;
    this.batcher = batcher;
    this.scheduler = scheduler;
    this.owner = owner;
    this.allocator = allocator;
  }

  /** A stored object of this epoch, for trim's deletions. */
  private record StoredObject(String key, long startOffset, long endOffset) {}

  long confirmOffset() {
    return confirmOffset;
  }

  long persistedTrimOffset() {
    return persistedTrimOffset;
  }

  /** PUT attempts made so far, retries included. */
  long putCount() {
    return putCount;
  }

  /**
   * Starts confirming from {@code offset}, the end of the fence object. Called once, before any
   * batch exists, from the thread that completed start-up.
   */
  void begin(long offset, long trimOffset) {
    confirmOffset = offset;
    persistedTrimOffset = trimOffset;
  }

  /**
   * Takes the batches the batcher sealed, in order, and starts PUTs as the in-flight cap allows.
   */
  void drain() {
    SealedBatch batch;
    while ((batch = batcher.sealed.poll()) != null) {
      if (stopped != null) {
        batch.fail(stopped.error());
        batch.releaseUnlessInFlight();
        continue;
      }
      try {
        encode(batch);
      } catch (RuntimeException e) {
        WalFailedException failure = new WalFailedException("cannot encode " + batch, e);
        pending.addLast(batch);
        stop(new WalStatus.Failed(failure), batcher.stop(new WalStatus.Failed(failure)));
        continue;
      }
      pending.addLast(batch);
      waiting.addLast(batch);
    }
    startUploads();
    finishShutdownIfIdle();
  }

  /**
   * Stops for good: fails every pending batch in offset order, then the batcher's leftovers. Later
   * store callbacks only release buffers.
   */
  void stop(WalStatus terminal, SealedBatch leftover) {
    if (stopped == null) {
      stopped = terminal;
      RuntimeException error = terminal.error();
      for (SealedBatch batch : pending) {
        batch.fail(error);
        batch.releaseUnlessInFlight();
      }
      pending.clear();
      waiting.clear();
      SealedBatch queued;
      while ((queued = batcher.sealed.poll()) != null) {
        queued.fail(error);
        queued.releaseUnlessInFlight();
      }
    }
    if (leftover != null) {
      leftover.fail(stopped.error());
      leftover.releaseUnlessInFlight();
    }
    finishShutdownIfIdle();
  }

  /** Completes {@code done} once every sealed batch is confirmed, or failed by a stop. */
  void whenIdle(CompletableFuture<Void> done) {
    shutdownWaiters.add(done);
    drain();
  }

  private void encode(SealedBatch batch) {
    EncodedWalObject encoded =
        WalObjectCodec.encode(
            batch.startOffset,
            node.nodeId(),
            node.epoch(),
            batch.trimOffset,
            batch.bodies,
            allocator);
    if (encoded.endOffset() != batch.endOffset) {
      encoded.bytes().release();
      throw new IllegalStateException(
          "the codec ends " + batch + " at " + encoded.endOffset() + ", the batcher did not");
    }
    batch.bodies.forEach(ByteBuf::release); // the object holds its own slices
    batch.bodies = null;
    batch.object = encoded.bytes();
    batch.key = WalObjectKeys.keyV1(nodePrefix, node.epoch(), batch.startOffset, batch.endOffset);
  }

  private void startUploads() {
    while (inflight < config.maxInflightUploadCount() && !waiting.isEmpty()) {
      inflight++;
      put(waiting.pollFirst());
    }
  }

  private void put(SealedBatch batch) {
    batch.putInFlight = true;
    batch.attempts++;
    putCount++;
    CompletableFuture<Void> stored;
    try {
      stored = store.put(batch.key, batch.object);
    } catch (RuntimeException e) {
      stored = CompletableFuture.failedFuture(e);
    }
    stored.whenComplete((ignored, error) -> owner.execute(() -> onPutDone(batch, error)));
  }

  private void onPutDone(SealedBatch batch, Throwable error) {
    batch.putInFlight = false;
    if (stopped != null) {
      inflight--;
      batch.releaseUnlessInFlight();
      finishShutdownIfIdle();
      return;
    }
    if (error == null) {
      inflight--;
      batch.stored = true;
      confirmStored();
      startUploads();
      return;
    }
    Throwable cause = unwrap(error);
    if (cause instanceof ObjectStoreException e && e.isRetryable()) {
      long backoffNanos = backoffNanos(batch.attempts);
      LOG.warn(
          "WAL PUT {} failed (attempt {}), retrying the same bytes in {} ms: {}",
          batch.key,
          batch.attempts,
          TimeUnit.NANOSECONDS.toMillis(backoffNanos),
          cause.getMessage());
      scheduler.schedule(() -> owner.execute(() -> retry(batch)), backoffNanos);
      return;
    }
    inflight--;
    WalFailedException failure =
        new WalFailedException(
            "WAL PUT " + batch.key + " failed and cannot be retried: " + cause, cause);
    LOG.error("the WAL of node {} failed", node, failure);
    stop(new WalStatus.Failed(failure), batcher.stop(new WalStatus.Failed(failure)));
    batch.releaseUnlessInFlight();
  }

  private void retry(SealedBatch batch) {
    if (stopped != null) {
      inflight--;
      batch.releaseUnlessInFlight();
      finishShutdownIfIdle();
      return;
    }
    put(batch);
  }

  static long backoffNanos(int failedAttempts) {
    int doublings = Math.min(failedAttempts - 1, 20);
    return Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << doublings);
  }

  private void confirmStored() {
    while (!pending.isEmpty() && pending.peekFirst().stored) {
      SealedBatch batch = pending.pollFirst();
      confirmOffset = batch.endOffset;
      batcher.stored(batch.sizeBytes);
      storedObjects.addLast(new StoredObject(batch.key, batch.startOffset, batch.endOffset));
      batch.releaseUnlessInFlight();
      for (CompletableFuture<Void> ack : batch.acks) {
        if (ack != null) {
          ack.complete(null);
        }
      }
      if (!batch.trimWaiters.isEmpty()) {
        persistedTrimOffset = Math.max(persistedTrimOffset, batch.trimOffset);
        deleteTrimmed(batch.trimWaiters);
      }
    }
    finishShutdownIfIdle();
  }

  /**
   * Deletes this epoch's objects whose every record is trimmed, except the newest stored one (its
   * end is where the next epoch continues the address space), then completes the trims. A failed
   * delete is logged and tried again with the next trim; the trim itself is durable already.
   *
   * <p>Only objects ending at or below {@code trimOffset + 1} go, which keeps recovery's contiguity
   * check sound: the first remaining object starts at or below {@code trimOffset + 1}.
   */
  private void deleteTrimmed(List<CompletableFuture<Void>> trims) {
    List<String> keys = new ArrayList<>(undeleted);
    undeleted.clear();
    long firstUntrimmed = persistedTrimOffset + 1;
    while (storedObjects.size() > 1 && storedObjects.peekFirst().endOffset() <= firstUntrimmed) {
      keys.add(storedObjects.pollFirst().key());
    }
    if (keys.isEmpty()) {
      trims.forEach(t -> t.complete(null));
      return;
    }
    store
        .delete(keys)
        .whenComplete(
            (ignored, error) ->
                owner.execute(
                    () -> {
                      if (error != null) {
                        LOG.warn("WAL trim could not delete {} objects, will retry", keys.size());
                        undeleted.addAll(keys);
                      }
                      trims.forEach(t -> t.complete(null));
                    }));
  }

  private void finishShutdownIfIdle() {
    if (shutdownWaiters.isEmpty()) {
      return;
    }
    boolean idle = pending.isEmpty() && batcher.sealed.isEmpty();
    if (!idle && stopped == null) {
      return;
    }
    Optional<RuntimeException> failure =
        stopped == null || stopped instanceof WalStatus.Closed
            ? Optional.empty()
            : Optional.of(stopped.error());
    List<CompletableFuture<Void>> waiters = List.copyOf(shutdownWaiters);
    shutdownWaiters.clear();
    for (CompletableFuture<Void> waiter : waiters) {
      failure.ifPresentOrElse(waiter::completeExceptionally, () -> waiter.complete(null));
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
