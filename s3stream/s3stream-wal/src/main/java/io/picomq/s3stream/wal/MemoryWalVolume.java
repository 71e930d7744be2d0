package io.picomq.s3stream.wal;

import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.WalRecordHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The storage of {@link MemoryWal}s: it outlives a WAL instance, so a test can abandon one and
 * recover with the next epoch, as it would from an object store. Thread-safe.
 *
 * <p>It keeps the stored records, the trim offset and the newest epoch that started; a store from
 * any older epoch is refused, which is how a newer {@link MemoryWal} fences older ones.
 */
public final class MemoryWalVolume {

  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final NavigableMap<Long, byte[]> records = new TreeMap<>();
  private long epoch = -1;
  private long endOffset;
  private long trimOffset = -1;

  public MemoryWalVolume() {}

  /** How many records the volume holds: appended, stored, not trimmed. */
  public int recordCount() {
    lock.lock();
    try {
      return records.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Makes {@code newEpoch} the owner, fencing every older one.
   *
   * @return the offset the new owner appends from: past everything stored so far
   * @throws WalFencedException if a newer epoch owns the volume
   * @throws IllegalStateException if {@code newEpoch} was used before
   */
  long claim(long newEpoch) {
    lock.lock();
    try {
      if (epoch > newEpoch) {
        throw new WalFencedException(newEpoch, "the volume belongs to the newer epoch " + epoch);
      }
      if (epoch == newEpoch) {
        throw new IllegalStateException(
            "epoch " + newEpoch + " was used before: every start needs a new, higher epoch");
      }
      epoch = newEpoch;
      return endOffset;
    } finally {
      lock.unlock();
    }
  }

  /** The newest epoch that claimed the volume. */
  long epoch() {
    lock.lock();
    try {
      return epoch;
    } finally {
      lock.unlock();
    }
  }

  /** Stores a record for {@code writerEpoch}; refuses if a newer epoch owns the volume. */
  void store(long writerEpoch, long offset, byte[] body) {
    lock.lock();
    try {
      checkOwner(writerEpoch);
      records.put(offset, body);
      endOffset = Math.max(endOffset, offset + WalRecordHeader.SIZE + body.length);
    } finally {
      lock.unlock();
    }
  }

  /** Drops every record at an offset {@code <= offset}. */
  void trim(long writerEpoch, long offset) {
    lock.lock();
    try {
      checkOwner(writerEpoch);
      trimOffset = Math.max(trimOffset, offset);
      records.headMap(offset, true).clear();
    } finally {
      lock.unlock();
    }
  }

  /** Copies of the records above the trim offset, in order; the receiver owns the buffers. */
  Recovery read() {
    lock.lock();
    try {
      List<RecoveredRecord> found = new ArrayList<>(records.size());
      for (Map.Entry<Long, byte[]> record : records.entrySet()) {
        found.add(new RecoveredRecord(record.getKey(), Unpooled.copiedBuffer(record.getValue())));
      }
      return new Recovery(found, trimOffset, Optional.empty());
    } finally {
      lock.unlock();
    }
  }

  private void checkOwner(long writerEpoch) {
    if (writerEpoch != epoch) {
      throw new WalFencedException(writerEpoch, "the volume belongs to the newer epoch " + epoch);
    }
  }
}
