package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.walobject.WalObjectCodec;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongBinaryOperator;

/**
 * Gives each appended record its offset and gathers records into batches; decides when a batch is
 * sealed.
 *
 * <p>Threading: {@link WriteAheadLog#append} must return the record's offset, so offsets are
 * assigned on the appender's thread, under {@link #lock}. The critical section only assigns the
 * offset, adds a retained slice to the open batch and maybe seals it: no I/O, no encoding, no
 * future completion. A sealed batch goes into {@link #sealed}, an ordered hand-off queue that the
 * owner thread drains ({@link WalUploader#drain}); {@code afterSeal} tells the owner to drain.
 *
 * <p>Sealing rule (adaptive group commit with a PUT budget): the open batch is sealed
 *
 * <ul>
 *   <li>as soon as its framed records reach {@code maxBytesInBatch}; or
 *   <li>when a record arrives at an idle WAL (every earlier record is stored, so no PUT is in
 *       flight and there is nothing to group with): a lone writer is bound by the store's own
 *       latency, never by the interval; or
 *   <li>when a record arrives and at least {@code batchInterval} has passed since the previous
 *       seal; or
 *   <li>otherwise by a timer, {@code batchInterval} after the previous seal;
 * </ul>
 *
 * but a seal due to the interval waits while {@code maxInflightUploadCount} sealed batches are not
 * yet confirmed, and happens when the next of them is: the open batch keeps gathering instead of
 * queueing behind the PUTs in flight, so when storing is the bottleneck (a slow disk, a busy CPU)
 * batches grow and the store does fewer, larger writes for the same records.
 *
 * <p>So seals caused by neither size nor idleness are at least {@code batchInterval} apart, and an
 * idle seal has no other PUT of this WAL in flight (at most one at a time, each at least a PUT's
 * latency apart), which bounds the PUT rate by {@code max(1/batchInterval, 1/putLatency) +
 * ingest/maxBytesInBatch}, and a record waits at most {@code batchInterval} before its batch is
 * sealed. Under load the WAL is never idle, so records group as before.
 *
 * <p>Public for WAL implementations (the object WAL, the Postgres WAL): each says where a sealed
 * batch's range ends ({@code batchEnd}) and drains {@link #pollSealed()} on its owner thread.
 */
public final class WalBatcher {

  private final WalConfig config;
  private final Scheduler scheduler;
  private final long intervalNanos;
  private final Runnable afterSeal;
  private final LongBinaryOperator batchEnd;

  /** Sealed batches in offset order, for the owner thread. */
  final Queue<SealedBatch> sealed = new ConcurrentLinkedQueue<>();

  /** Framed bytes appended and not yet stored; grows under the lock, shrinks on the owner. */
  private final AtomicLong unflushedBytes = new AtomicLong();

  /** Sealed batches not yet confirmed; grows at a seal (under the lock), shrinks on the owner. */
  private final AtomicInteger unconfirmedBatches = new AtomicInteger();

  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private volatile WalStatus status = new WalStatus.NotOpen();
  private OpenBatch open = new OpenBatch(0);
  private long trimOffset = -1;
  private long lastSealNanos;
  private boolean timerArmed;

  /** A batcher for object WAL objects: each batch's range ends at the next 64 MiB boundary. */
  WalBatcher(WalConfig config, Scheduler scheduler, Runnable afterSeal) {
    this(config, scheduler, afterSeal, WalObjectCodec::endOffset);
  }

  /**
   * @param config batching limits ({@code batchInterval}, {@code maxBytesInBatch}, {@code
   *     maxUnflushedBytes})
   * @param scheduler clock and the batch timer
   * @param afterSeal called (outside the lock) after a batch was sealed: tell the owner to drain
   * @param batchEnd {@code (startOffset, framedBytes) -> endOffset} of a sealed batch, where the
   *     next batch starts: {@code Long::sum} for dense offsets
   */
  public WalBatcher(
      WalConfig config, Scheduler scheduler, Runnable afterSeal, LongBinaryOperator batchEnd) {
    this.config = config;
    this.scheduler = scheduler;
    this.intervalNanos = config.batchInterval().toNanos();
    this.afterSeal = afterSeal;
    this.batchEnd = batchEnd;
  }

  /** The status, as of now; for reads outside the lock. */
  public WalStatus status() {
    return status;
  }

  /** Framed bytes appended and not yet stored. */
  public long unflushedBytes() {
    return unflushedBytes.get();
  }

  /**
   * The owner confirmed a sealed batch of {@code bytes} framed records; seals the open batch if it
   * waited only for that.
   */
  public void stored(long bytes) {
    unflushedBytes.addAndGet(-bytes);
    if (unconfirmedBatches.decrementAndGet() >= config.maxInflightUploadCount()) {
      return;
    }
    boolean sealedOne = false;
    lock.lock();
    try {
      if (!open.isEmpty() && (status instanceof WalStatus.Open)) {
        sealedOne = sealIfDueLocked();
      }
    } finally {
      lock.unlock();
    }
    if (sealedOne) {
      afterSeal.run();
    }
  }

  /** The next sealed batch in offset order, or null; for the owner thread. */
  public SealedBatch pollSealed() {
    return sealed.poll();
  }

  /** True if no sealed batch waits for the owner. */
  public boolean noneSealed() {
    return sealed.isEmpty();
  }

  /** Opens for appends: the first record goes at {@code startOffset}. */
  public void open(long startOffset, long initialTrimOffset) {
    lock.lock();
    try {
      if (!(status instanceof WalStatus.NotOpen)) {
        throw new IllegalStateException("the WAL cannot open from status " + status);
      }
      open = new OpenBatch(startOffset);
      trimOffset = initialTrimOffset;
      lastSealNanos = scheduler.nanoTime() - intervalNanos;
      status = new WalStatus.Open();
    } finally {
      lock.unlock();
    }
  }

  /** See {@link WriteAheadLog#append}; the body is retained (sliced) only if accepted. */
  public WalAppendResult append(ByteBuf body) {
    long size = OpenBatch.framedSize(body);
    if (size > config.maxUnflushedBytes()) {
      throw new IllegalArgumentException(
          "a record of "
              + size
              + " framed bytes can never fit under maxUnflushedBytes="
              + config.maxUnflushedBytes());
    }
    if (TrimMarkerBody.is(body)) {
      throw new IllegalArgumentException(
          "the body is a trim marker batch (stream -1, epoch -1), which the WAL reserves");
    }
    WalAppendResult result;
    boolean sealedOne;
    lock.lock();
    try {
      if (!(status instanceof WalStatus.Open)) {
        return status.refusal();
      }
      long unflushed = unflushedBytes.get();
      if (unflushed + size > config.maxUnflushedBytes()) {
        return new WalAppendResult.OverCapacity(unflushed, config.maxUnflushedBytes());
      }
      CompletableFuture<Void> durable = new CompletableFuture<>();
      long offset = open.add(body.retainedSlice(), durable);
      unflushedBytes.addAndGet(size);
      result = new WalAppendResult.Accepted(offset, durable);
      sealedOne = unflushed == 0 ? sealIdleLocked() : sealIfDueLocked();
    } finally {
      lock.unlock();
    }
    if (sealedOne) {
      afterSeal.run();
    }
    return result;
  }

  /**
   * Records a new trim offset, to be carried by the open batch's header (adding a marker record if
   * the batch is empty, since an object cannot be empty).
   *
   * @return completes when the batch carrying the trim is stored (see {@link WalUploader})
   */
  CompletableFuture<Void> trim(long offset) {
    boolean sealedOne;
    CompletableFuture<Void> trimmed = new CompletableFuture<>();
    lock.lock();
    try {
      if (!(status instanceof WalStatus.Open)) {
        return CompletableFuture.failedFuture(status.error());
      }
      trimOffset = Math.max(trimOffset, offset);
      if (open.isEmpty()) {
        ByteBuf marker = TrimMarkerBody.body();
        open.add(marker, null);
        unflushedBytes.addAndGet(OpenBatch.framedSize(marker));
      }
      open.trimWaiters.add(trimmed);
      sealedOne = sealIfDueLocked();
    } finally {
      lock.unlock();
    }
    if (sealedOne) {
      afterSeal.run();
    }
    return trimmed;
  }

  /** Starts a graceful shutdown: no more appends; the open batch is sealed now. */
  public void beginClosing() {
    lock.lock();
    try {
      if (!(status instanceof WalStatus.Open)) {
        return;
      }
      status = new WalStatus.Closing();
      sealLocked();
    } finally {
      lock.unlock();
    }
    afterSeal.run();
  }

  /**
   * Moves to a terminal status, unless already in one.
   *
   * @return the open batch's records, sealed into a batch for the owner to fail, or null if there
   *     were none or the status was already terminal
   */
  public SealedBatch stop(WalStatus terminal) {
    lock.lock();
    try {
      if (status.terminal()) {
        return null;
      }
      status = terminal;
      if (open.isEmpty()) {
        return null;
      }
      SealedBatch leftover = new SealedBatch(open, open.nextOffset(), trimOffset);
      open = new OpenBatch(open.nextOffset());
      return leftover;
    } finally {
      lock.unlock();
    }
  }

  /** Nothing was unstored before this record: no PUT to group with, so seal now. */
  private boolean sealIdleLocked() {
    sealLocked();
    return true;
  }

  private boolean sealIfDueLocked() {
    if (open.sizeBytes >= config.maxBytesInBatch()) {
      sealLocked();
      return true;
    }
    long waitedNanos = scheduler.nanoTime() - lastSealNanos;
    if (waitedNanos >= intervalNanos) {
      if (unconfirmedBatches.get() >= config.maxInflightUploadCount()) {
        return false; // the next confirmation seals it (stored)
      }
      sealLocked();
      return true;
    }
    if (!timerArmed) {
      timerArmed = true;
      scheduler.schedule(this::onTimer, intervalNanos - waitedNanos);
    }
    return false;
  }

  private void onTimer() {
    boolean sealedOne = false;
    lock.lock();
    try {
      timerArmed = false;
      if (!open.isEmpty() && (status instanceof WalStatus.Open)) {
        sealedOne = sealIfDueLocked();
      }
    } finally {
      lock.unlock();
    }
    if (sealedOne) {
      afterSeal.run();
    }
  }

  private void sealLocked() {
    if (open.isEmpty()) {
      return;
    }
    long end = batchEnd.applyAsLong(open.startOffset, open.sizeBytes);
    sealed.add(new SealedBatch(open, end, trimOffset));
    unconfirmedBatches.incrementAndGet();
    open = new OpenBatch(end);
    lastSealNanos = scheduler.nanoTime();
  }
}
