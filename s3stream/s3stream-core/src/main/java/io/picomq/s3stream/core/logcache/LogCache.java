package io.picomq.s3stream.core.logcache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Appended record batches in memory, as a sequence of {@link CacheBlock}s, oldest first; the last
 * one is open and receives new batches.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Each block is a contiguous range of the WAL: batches are added in WAL order (under the
 *       engine's append lock), so trimming the WAL to a block's last record never drops a record of
 *       a later block.
 *   <li>Blocks are committed in seal order and evicted oldest first, only once committed. So for
 *       each stream the cache holds a contiguous run of its newest offsets, and everything below
 *       that run is in committed objects.
 *   <li>{@link #sizeBytes()} is the sum of the encoded bytes of every batch not yet evicted; it is
 *       what admission control compares with {@link #capacityBytes()}.
 * </ul>
 *
 * <p>Reads do not know the confirm offset; the caller bounds them with it.
 *
 * <p>Threading: {@link #put} and {@link #seal} are called by one writer at a time (the engine's
 * append lock serialises them). Structural changes (seal, eviction) take {@link #lock} and publish
 * a new block list; readers work on a snapshot of that list without locking it.
 */
public final class LogCache {

  private final long capacityBytes;
  private final AtomicLong sizeBytes = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();

  // Replaced (copy on write) under lock; read by anyone.
  private volatile List<CacheBlock> blocks;

  // Guarded by lock.
  private long nextBlockId;

  /**
   * @param capacityBytes the most bytes the write path should keep here (it is admission control
   *     that honours it; the cache only counts)
   * @param nowNanos the time the first block opens
   */
  public LogCache(long capacityBytes, long nowNanos) {
    if (capacityBytes <= 0) {
      throw new IllegalArgumentException("capacityBytes must be > 0: " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    this.blocks = List.of(new CacheBlock(nextBlockId++, nowNanos));
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes of every cached batch not yet evicted. */
  public long sizeBytes() {
    return sizeBytes.get();
  }

  /** The block new batches go into. */
  public CacheBlock openBlock() {
    List<CacheBlock> current = blocks;
    return current.get(current.size() - 1);
  }

  /** A snapshot of the blocks, oldest first. */
  public List<CacheBlock> blocks() {
    return blocks;
  }

  /**
   * Adds a batch to the open block; the cache takes over the caller's reference to its buffer.
   * Caller: the write path, under its append lock.
   *
   * @param walOffset the WAL offset the batch was appended at
   * @return the block it went into
   */
  public CacheBlock put(long streamId, long epoch, CachedBatch batch, long walOffset) {
    CacheBlock open = openBlock();
    open.add(streamId, epoch, batch, walOffset);
    sizeBytes.addAndGet(batch.sizeBytes());
    return open;
  }

  /**
   * Seals the open block and opens a new one. Caller: the write path, under its append lock.
   *
   * @return the sealed block (possibly empty: the caller decides whether to upload it)
   */
  public CacheBlock seal(long nowNanos) {
    lock.lock();
    try {
      CacheBlock sealed = openBlock();
      sealed.seal();
      List<CacheBlock> next = new ArrayList<>(blocks);
      if (sealed.isEmpty()) {
        next.remove(next.size() - 1); // nothing to keep for readers
      }
      next.add(new CacheBlock(nextBlockId++, nowNanos));
      blocks = List.copyOf(next);
      return sealed;
    } finally {
      lock.unlock();
    }
  }

  /** The block's data is committed: it may be evicted whenever room is needed. */
  public void markCommitted(CacheBlock block) {
    block.markCommitted();
  }

  /**
   * Evicts committed blocks, oldest first, until the cache holds at most {@code targetBytes} or the
   * oldest block is not committed.
   *
   * @return the bytes freed
   */
  public long evictCommitted(long targetBytes) {
    List<CacheBlock> evicted = new ArrayList<>();
    lock.lock();
    try {
      List<CacheBlock> current = blocks;
      int n = 0;
      long projected = sizeBytes.get();
      // The open block is never evicted, so at least one block always remains.
      while (n < current.size() - 1 && projected > targetBytes && current.get(n).isCommitted()) {
        projected -= current.get(n).sizeBytes();
        evicted.add(current.get(n));
        n++;
      }
      if (n > 0) {
        blocks = List.copyOf(current.subList(n, current.size()));
      }
    } finally {
      lock.unlock();
    }
    long freed = 0;
    for (CacheBlock block : evicted) {
      freed += block.evict();
    }
    sizeBytes.addAndGet(-freed);
    return freed;
  }

  /**
   * Releases every block, committed or not: the engine is shut down (or gave up) and nothing will
   * be uploaded or read from here again. Readers holding batches keep their own references.
   *
   * @return the bytes freed
   */
  public long releaseAll(long nowNanos) {
    List<CacheBlock> all;
    lock.lock();
    try {
      all = blocks;
      blocks = List.of(new CacheBlock(nextBlockId++, nowNanos));
    } finally {
      lock.unlock();
    }
    long freed = 0;
    for (CacheBlock block : all) {
      freed += block.evict();
    }
    sizeBytes.addAndGet(-freed);
    return freed;
  }

  /**
   * The cached batches of {@code streamId} from the one holding {@code startOffset} (or the first
   * cached one after it), contiguous, while they start below {@code endOffset} and until about
   * {@code maxBytes} were taken (the batch that reaches the limit is included). Stops at the first
   * gap. Each batch carries a reference of its own, which the caller releases.
   *
   * <p>Examples, with batches [10,20) [20,30) cached and nothing else:
   *
   * <pre>
   *   get(12, 30) -> [10,20) [20,30)   the first batch holds 12; the caller skips 10..11
   *   get(5, 30)  -> [10,20) [20,30)   starts after 5: the caller reads 5..9 elsewhere
   *   get(20, 25) -> [20,30)           a batch is never split
   *   get(30, 40) -> []                nothing cached from 30
   * </pre>
   */
  public List<CachedBatch> get(long streamId, long startOffset, long endOffset, int maxBytes) {
    List<CachedBatch> out = new ArrayList<>();
    long[] budget = {Math.max(1, maxBytes)};
    long next = -1;
    for (CacheBlock block : blocks) {
      if (budget[0] <= 0) {
        break;
      }
      StreamSlice slice = block.slice(streamId);
      if (slice == null) {
        continue;
      }
      int taken = slice.copyTo(out, Math.max(startOffset, next), endOffset, budget, next);
      if (taken == 0 && next >= 0 && slice.endOffset() > next) {
        break; // a gap after what was taken: stop there
      }
      if (taken > 0) {
        next = out.get(out.size() - 1).nextOffset();
        if (next >= endOffset) {
          break;
        }
      }
    }
    return out;
  }
}
