package io.picomq.s3stream.core.logcache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The batches of one stream inside one {@link CacheBlock}, in offset order and contiguous (the
 * write path appends them in offset order; a stream's batches in one block all carry the same
 * epoch, because closing a stream seals the block first).
 *
 * <p>Buffers: a cached batch's buffer is never written or re-indexed once it is in the cache, so
 * what this slice hands out is the same buffer with one more reference (no duplicate: an upload of
 * a block of small batches would otherwise spend much of its time creating and reading through tens
 * of thousands of derived buffers, per {@code AppendBenchmark}). Receivers read it with absolute
 * indices or through slices of their own.
 *
 * <p>Threading: the write path adds (one writer at a time, serialised by the engine's append lock);
 * readers copy out under {@link #lock}; the block releases the buffers under the same lock, after
 * which reads find nothing. The lock guards only memory operations and is never held across a call
 * out of this class.
 */
public final class StreamSlice {

  private final long streamId;
  private final long epoch;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final ArrayList<CachedBatch> batches = new ArrayList<>();
  private long sizeBytes;
  private boolean released;

  StreamSlice(long streamId, long epoch) {
    this.streamId = streamId;
    this.epoch = epoch;
  }

  public long streamId() {
    return streamId;
  }

  /** The stream epoch every batch of this slice was appended under. */
  public long epoch() {
    return epoch;
  }

  void add(CachedBatch batch) {
    lock.lock();
    try {
      if (!batches.isEmpty()) {
        long expected = batches.get(batches.size() - 1).nextOffset();
        if (batch.baseOffset() != expected) {
          throw new IllegalStateException(
              "stream "
                  + streamId
                  + ": batch at "
                  + batch.baseOffset()
                  + " does not continue the cached batches ending at "
                  + expected);
        }
      }
      batches.add(batch);
      sizeBytes += batch.sizeBytes();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of the encoded batches. */
  public long sizeBytes() {
    lock.lock();
    try {
      return sizeBytes;
    } finally {
      lock.unlock();
    }
  }

  /** The first offset held, or -1 once released or while empty. */
  public long startOffset() {
    lock.lock();
    try {
      return released || batches.isEmpty() ? -1 : batches.get(0).baseOffset();
    } finally {
      lock.unlock();
    }
  }

  /** The offset after the last batch held, or -1 once released or while empty. */
  public long endOffset() {
    lock.lock();
    try {
      return released || batches.isEmpty() ? -1 : batches.get(batches.size() - 1).nextOffset();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Copies out the batches from the one holding {@code startOffset} (or the first after it) while
   * they start below {@code endOffset} and {@code budget[0]} bytes remain, each with a reference of
   * its own (the receiver releases them). Decrements {@code budget[0]} by what was taken; at least
   * one batch is taken if any qualifies and the budget is positive.
   *
   * @param continueFrom when {@code >= 0}, the first batch taken must start exactly here (the read
   *     is continuing from an earlier slice); otherwise nothing is taken
   */
  int copyTo(
      List<CachedBatch> out, long startOffset, long endOffset, long[] budget, long continueFrom) {
    lock.lock();
    try {
      if (released || batches.isEmpty() || budget[0] <= 0) {
        return 0;
      }
      int i = firstEndingAfter(startOffset);
      if (i == batches.size()) {
        return 0;
      }
      if (continueFrom >= 0 && batches.get(i).baseOffset() != continueFrom) {
        return 0;
      }
      int taken = 0;
      for (; i < batches.size() && budget[0] > 0; i++) {
        CachedBatch b = batches.get(i);
        if (b.baseOffset() >= endOffset) {
          break;
        }
        out.add(new CachedBatch(b.baseOffset(), b.count(), b.encoded().retain()));
        budget[0] -= b.sizeBytes();
        taken++;
      }
      return taken;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Every batch, each with a reference of its own (the receiver releases them): what an upload
   * writes. Empty once released.
   */
  public List<CachedBatch> retainAll() {
    lock.lock();
    try {
      List<CachedBatch> out = new ArrayList<>(released ? 0 : batches.size());
      if (!released) {
        for (CachedBatch b : batches) {
          // The same immutable holder, one more reference on its buffer: no object per batch.
          b.encoded().retain();
          out.add(b);
        }
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /** Releases the cache's references; returns the bytes freed. */
  long release() {
    lock.lock();
    try {
      if (released) {
        return 0;
      }
      released = true;
      batches.forEach(CachedBatch::release);
      batches.clear();
      long freed = sizeBytes;
      sizeBytes = 0;
      return freed;
    } finally {
      lock.unlock();
    }
  }

  /** Index of the first batch whose next offset is above {@code offset}. */
  private int firstEndingAfter(long offset) {
    int lo = 0;
    int hi = batches.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (batches.get(mid).nextOffset() <= offset) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
