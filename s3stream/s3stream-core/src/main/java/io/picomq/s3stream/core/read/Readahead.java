package io.picomq.s3stream.core.read;

import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Recognizes sequential readers and decides how far ahead of them to fetch.
 *
 * <p>A reader is remembered by where its next read should begin: {@code (streamId, nextOffset)}. A
 * read that begins exactly there continues that reader; any other read starts a new reader (a
 * random jump resets the readahead). Keying by position rather than by stream lets several readers
 * of one stream at different places (two consumers replaying it) each keep their own state.
 *
 * <p>Windows: once a reader has continued itself at least once, it is sequential; when a read of it
 * ends inside (or past the start of) the window last requested, the next window is requested from
 * where the previous one stopped, and the window size doubles, from {@code initialWindowBytes} up
 * to {@code maxWindowBytes}. With reads of 1 MiB and windows of 1, 2, 4, 8... MiB, a reader waits
 * for storage only on its first two reads, and between half a window and one and a half windows are
 * fetched ahead of it. Worked example (offsets of 1 MiB each, initial window 1 MiB):
 *
 * <pre>
 *   read [0,1)   new reader                       no readahead
 *   read [1,2)   sequential, 2 >= window start 1   fetch [2,3)   (1 MiB), next window 2 MiB
 *   read [2,3)   3 >= window start 2               fetch [3,5)   (2 MiB), next 4 MiB
 *   read [3,4)   4 >= window start 3               fetch [5,9)   (4 MiB), next 8 MiB
 *   read [4,5)   5 >= window start 5               fetch [9,17)  (8 MiB), next 16 MiB
 *   read [5,6)   6 <  window start 9               nothing
 * </pre>
 *
 * <p>Why the table is a hand-written LRU and not Caffeine, which keeps the engine's other bounded
 * tables: every key here is written once and taken once (a read takes its reader out, and the
 * reader is remembered again at its new end), so Caffeine's frequency sketch has no signal, its
 * admission ties, and W-TinyLFU keeps what is already in its main space while the reader leaving
 * its small admission window is dropped. Measured with {@code ReadaheadTableBenchmark} in
 * s3stream-jmh (default table of 1,024 readers, seed 1): with 256 sequential readers among 256
 * one-off reads per round, the LRU recognizes 100% of the continuations and Caffeine 25%; 512 among
 * 256, 100% and 31%; 64 among 512, 99% and 14%.
 *
 * <p>Threading: a lock guards the table of waiting readers. A {@link Reader} taken by {@link
 * #begin} belongs to that read until {@link #end}; only {@link Reader#prefetched} is touched from
 * elsewhere (the completion of a prefetch), hence atomic.
 */
final class Readahead {

  private final long initialWindowBytes;
  private final long maxWindowBytes;
  private final int capacity;
  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock. Access order: the eldest entry is the reader that read least recently.
  private final LinkedHashMap<Position, Reader> waiting = new LinkedHashMap<>(64, 0.75f, true);

  /**
   * @param initialWindowBytes 0 turns readahead off
   * @param capacity how many readers are remembered
   */
  Readahead(long initialWindowBytes, long maxWindowBytes, int capacity) {
    this.initialWindowBytes = initialWindowBytes;
    this.maxWindowBytes = Math.max(initialWindowBytes, maxWindowBytes);
    this.capacity = capacity;
  }

  /** The reader expected to read {@code streamId} at {@code offset}, or a new one. */
  Reader begin(long streamId, long offset) {
    lock.lock();
    try {
      Reader reader = waiting.remove(new Position(streamId, offset));
      if (reader != null) {
        reader.sequential = true;
        return reader;
      }
    } finally {
      lock.unlock();
    }
    return new Reader(streamId, offset);
  }

  /**
   * Records that the reader's read ended at {@code nextOffset} and remembers it there.
   *
   * @return the window to fetch now, if any
   */
  Optional<Window> end(Reader reader, long nextOffset) {
    Optional<Window> window = Optional.empty();
    if (initialWindowBytes > 0 && !reader.sequential) {
      reader.windowBytes = initialWindowBytes;
      reader.windowStart = nextOffset;
      reader.prefetched.set(nextOffset);
    } else if (initialWindowBytes > 0 && nextOffset >= reader.windowStart) {
      long from = Math.max(nextOffset, reader.prefetched.get());
      window = Optional.of(new Window(reader, from, reader.windowBytes));
      reader.windowStart = from;
      reader.windowBytes = Math.min(maxWindowBytes, reader.windowBytes * 2);
    }
    lock.lock();
    try {
      waiting.put(new Position(reader.streamId, nextOffset), reader);
      var it = waiting.values().iterator();
      while (waiting.size() > capacity) {
        it.next();
        it.remove();
      }
    } finally {
      lock.unlock();
    }
    return window;
  }

  private record Position(long streamId, long offset) {}

  /** One reader's readahead state. */
  static final class Reader {
    final long streamId;
    // Owned by the read holding the reader.
    boolean sequential;
    long windowBytes;
    long windowStart;
    // The offset up to which fetches were requested; advanced by prefetch completions.
    final AtomicLong prefetched;

    private Reader(long streamId, long offset) {
      this.streamId = streamId;
      this.prefetched = new AtomicLong(offset);
    }

    /** Records that data up to {@code offset} was requested ahead. */
    void prefetched(long offset) {
      prefetched.accumulateAndGet(offset, Math::max);
    }
  }

  /**
   * Data to fetch ahead: about {@code bytes} of the reader's stream from {@code fromOffset}.
   *
   * @param reader whose {@link Reader#prefetched} the fetch advances
   */
  record Window(Reader reader, long fromOffset, long bytes) {}
}
