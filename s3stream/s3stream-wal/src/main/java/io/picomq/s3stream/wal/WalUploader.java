package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.time.Backoff;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.walobject.EncodedWalObject;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns sealed batches into WAL objects, PUTs them, and acknowledges their records in offset order.
 *
 * <p>Threading: every method runs on the owner executor (one task at a time); timers post back to
 * it, and a PUT's completion runs the owner's turn on its own thread when the owner is idle. The
 * volatile fields are published for readers on other threads.
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
 *   <li>With {@link WalConfig#fenceCheck} on, a stored batch is acknowledged only after a LIST of
 *       the fence markers that <em>began after its PUT completed</em> found no newer epoch. At most
 *       one such LIST runs at a time and it covers every batch stored before it began, so the cost
 *       is one LIST round trip of latency and at most one LIST per acknowledgement round. Why this
 *       is enough: {@code s3stream/specification/wal.md}, Fencing.
 * </ul>
 */
final class WalUploader {

  private static final Logger LOG = LoggerFactory.getLogger(WalUploader.class);

  /**
   * Between retries of a WAL PUT or fence-check LIST: 100 ms doubling to 5 s, without jitter (one
   * writer per node, nothing to spread out).
   */
  static final Backoff BACKOFF = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(5));

  private final ObjectStore store;
  private final WalNode node;
  private final String nodePrefix;
  private final WalConfig config;
  private final WalBatcher batcher;
  private final Scheduler scheduler;
  private final SerialExecutor owner;
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

  /** A fence-check LIST is running or waiting out its retry backoff. */
  private boolean fenceCheckBusy;

  private int fenceListAttempts;

  // Written on the owner thread, read anywhere.
  private volatile long confirmOffset;
  private volatile long persistedTrimOffset = -1;
  private volatile long putCount;
  private volatile long fenceListCount;

  WalUploader(
      ObjectStore store,
      WalNode node,
      WalConfig config,
      WalBatcher batcher,
      Scheduler scheduler,
      SerialExecutor owner,
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

  /** Fence-check LIST attempts so far, retries included. */
  long fenceListCount() {
    return fenceListCount;
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
    // The thread that completed the PUT runs the owner's turn when the owner is idle: one thread
    // hand-off fewer between a stored batch and its acknowledgement.
    stored.whenComplete((ignored, error) -> owner.runHereOrQueue(() -> onPutDone(batch, error)));
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
      batch.releaseUnlessInFlight(); // stored: the bytes are no longer needed
      if (config.fenceCheck()) {
        checkFence();
      } else {
        batch.fenceChecked = true;
        confirmStored();
      }
      startUploads();
      return;
    }
    Throwable cause = Causes.unwrap(error);
    if (cause instanceof ObjectStoreException e && e.isRetryable()) {
      long backoffNanos = BACKOFF.ceilingNanos(batch.attempts);
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

  /**
   * Starts a fence-check LIST covering every batch stored so far and not yet checked, unless one is
   * running (then the batches wait for the next, started when it ends).
   */
  private void checkFence() {
    if (fenceCheckBusy || stopped != null) {
      return;
    }
    List<SealedBatch> covered = new ArrayList<>();
    for (SealedBatch batch : pending) {
      if (batch.stored && !batch.fenceChecked) {
        covered.add(batch);
      }
    }
    if (covered.isEmpty()) {
      return;
    }
    fenceCheckBusy = true;
    fenceListCount++;
    CompletableFuture<List<ObjectInfo>> listed;
    try {
      listed = store.list(FenceMarkers.prefix(nodePrefix));
    } catch (RuntimeException e) {
      listed = CompletableFuture.failedFuture(e);
    }
    // As with a PUT: the LIST's own thread runs the owner's turn when the owner is idle.
    listed.whenComplete(
        (objects, error) -> owner.runHereOrQueue(() -> onFenceListed(covered, objects, error)));
  }

  private void onFenceListed(List<SealedBatch> covered, List<ObjectInfo> objects, Throwable error) {
    if (stopped != null) {
      fenceCheckBusy = false;
      finishShutdownIfIdle();
      return;
    }
    if (error != null) {
      Throwable cause = Causes.unwrap(error);
      if (cause instanceof ObjectStoreException e && e.isRetryable()) {
        fenceListAttempts++;
        long backoffNanos = BACKOFF.ceilingNanos(fenceListAttempts);
        LOG.warn(
            "WAL fence check LIST failed (attempt {}), retrying in {} ms: {}",
            fenceListAttempts,
            TimeUnit.NANOSECONDS.toMillis(backoffNanos),
            cause.getMessage());
        scheduler.schedule(
            () ->
                owner.execute(
                    () -> {
                      fenceCheckBusy = false;
                      checkFence();
                      finishShutdownIfIdle();
                    }),
            backoffNanos);
        return;
      }
      fenceCheckBusy = false;
      WalFailedException failure =
          new WalFailedException(
              "WAL fence check LIST failed and cannot be retried: " + cause, cause);
      LOG.error("the WAL of node {} failed", node, failure);
      stop(new WalStatus.Failed(failure), batcher.stop(new WalStatus.Failed(failure)));
      return;
    }
    fenceCheckBusy = false;
    fenceListAttempts = 0;
    OptionalLong newest = FenceMarkers.newestEpoch(nodePrefix, objects);
    if (newest.isPresent() && newest.getAsLong() > node.epoch()) {
      WalStatus.Fenced fenced =
          new WalStatus.Fenced(
              node.epoch(), "the newer epoch " + newest.getAsLong() + " started on this WAL");
      LOG.warn("the WAL of node {} is fenced: {}", node, fenced.reason());
      stop(fenced, batcher.stop(fenced));
      return;
    }
    covered.forEach(batch -> batch.fenceChecked = true);
    confirmStored();
    checkFence(); // the batches stored while this LIST ran
  }

  private void confirmStored() {
    while (!pending.isEmpty() && pending.peekFirst().stored && pending.peekFirst().fenceChecked) {
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
}
