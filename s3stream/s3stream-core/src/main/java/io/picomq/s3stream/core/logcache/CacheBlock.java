package io.picomq.s3stream.core.logcache;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A contiguous range of the WAL as cached batches, per stream: what one upload writes and commits.
 *
 * <p>Life: open (the write path adds to it) → sealed (no more adds; it uploads once every batch in
 * it is confirmed, see {@link #confirmed()}) → committed (its data is in committed objects; it
 * stays for readers until evicted) → evicted (buffers released).
 *
 * <p>Threading: additions and sealing happen under the engine's append lock (one writer); the
 * confirmation count is bumped by the write path's confirmer; everything readers look at is
 * volatile or guarded by the slices' own locks.
 */
public final class CacheBlock {

  private final long id;
  private final long openedNanos;
  private final ConcurrentHashMap<Long, StreamSlice> slices = new ConcurrentHashMap<>();
  private final AtomicInteger confirmedCount = new AtomicInteger();
  private final CompletableFuture<Void> confirmed = new CompletableFuture<>();

  // Written under the engine's append lock, read by anyone.
  private volatile long sizeBytes;
  private volatile int appendedCount;
  private volatile long lastWalOffset = -1;
  private volatile boolean sealed;

  // Written by the upload pipeline, read by anyone.
  private volatile boolean committed;
  private volatile boolean evicted;

  CacheBlock(long id, long openedNanos) {
    this.id = id;
    this.openedNanos = openedNanos;
  }

  /** The block's sequence number: blocks are sealed, uploaded and committed in this order. */
  public long id() {
    return id;
  }

  /**
   * When the block was opened ({@code Scheduler.nanoTime()}): the upload interval counts from it.
   */
  public long openedNanos() {
    return openedNanos;
  }

  public long sizeBytes() {
    return sizeBytes;
  }

  public boolean isEmpty() {
    return appendedCount == 0;
  }

  /** The WAL offset of the last record in the block, or -1 while empty. */
  public long lastWalOffset() {
    return lastWalOffset;
  }

  public boolean isSealed() {
    return sealed;
  }

  public boolean isCommitted() {
    return committed;
  }

  /** The slices, by ascending stream id: the order objects are written in. */
  public List<StreamSlice> slices() {
    List<StreamSlice> sorted = new ArrayList<>(slices.values());
    sorted.sort(Comparator.comparingLong(StreamSlice::streamId));
    return sorted;
  }

  /** The slice of {@code streamId}, or null if the block holds none of it. */
  StreamSlice slice(long streamId) {
    return slices.get(streamId);
  }

  /**
   * Completes once every batch added before sealing is confirmed by the WAL (and so acknowledged);
   * fails if the WAL failed first. Only a sealed block can complete.
   */
  public CompletableFuture<Void> confirmed() {
    return confirmed;
  }

  /** The write path: one batch of this block is durable in the WAL. */
  public void onBatchConfirmed() {
    int done = confirmedCount.incrementAndGet();
    // Dekker-style handshake with seal(): each side writes its own field, then reads the other's,
    // so at least one of them sees both and completes the future.
    if (sealed && done == appendedCount) {
      confirmed.complete(null);
    }
  }

  /** The write path: a batch of this block will never be confirmed. */
  public void onBatchFailed(Throwable error) {
    confirmed.completeExceptionally(error);
  }

  void add(long streamId, long epoch, CachedBatch batch, long walOffset) {
    if (sealed) {
      throw new IllegalStateException("block " + id + " is sealed");
    }
    StreamSlice slice = slices.computeIfAbsent(streamId, s -> new StreamSlice(s, epoch));
    if (slice.epoch() != epoch) {
      throw new IllegalStateException(
          "stream "
              + streamId
              + " appends at epoch "
              + epoch
              + " into block "
              + id
              + " that holds its epoch "
              + slice.epoch());
    }
    slice.add(batch);
    sizeBytes += batch.sizeBytes();
    lastWalOffset = walOffset;
    appendedCount++;
  }

  void seal() {
    sealed = true;
    if (confirmedCount.get() == appendedCount) {
      confirmed.complete(null);
    }
  }

  void markCommitted() {
    committed = true;
  }

  boolean isEvicted() {
    return evicted;
  }

  /** Releases every buffer; returns the bytes freed. */
  long evict() {
    evicted = true;
    long freed = 0;
    for (StreamSlice slice : slices.values()) {
      freed += slice.release();
    }
    return freed;
  }

  @Override
  public String toString() {
    return "CacheBlock[id="
        + id
        + ", bytes="
        + sizeBytes
        + ", streams="
        + slices.size()
        + (sealed ? ", sealed" : "")
        + (committed ? ", committed" : "")
        + "]";
  }
}
