package io.picomq.cli.bench;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * A {@link BenchTarget} in memory, for testing the measurement core without a server. In chunked
 * mode a tail returns what arrived as byte chunks cut at arbitrary places, as a Durable Streams
 * byte stream may.
 */
final class MemoryTarget implements BenchTarget {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final Map<String, List<byte[]>> streams = new HashMap<>();
  private final List<String> deleted = new ArrayList<>();
  private final boolean chunked;
  private final IntConsumer beforeAppend;
  private int appends;
  private final java.util.concurrent.atomic.AtomicLong retries =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param beforeAppend called with the append's number before it lands (to inject stalls)
   */
  MemoryTarget(boolean chunked, IntConsumer beforeAppend) {
    this.chunked = chunked;
    this.beforeAppend = beforeAppend;
  }

  MemoryTarget() {
    this(false, n -> {});
  }

  /** Counts {@code count} retries, as if the SDK had resent that many requests. */
  void retried(long count) {
    retries.addAndGet(count);
  }

  @Override
  public long retries() {
    return retries.get();
  }

  @Override
  public void create(String stream) {
    lock.lock();
    try {
      streams.putIfAbsent(stream, new ArrayList<>());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void append(int connection, String stream, List<byte[]> bodies) {
    int number;
    lock.lock();
    try {
      number = appends++;
    } finally {
      lock.unlock();
    }
    beforeAppend.accept(number);
    lock.lock();
    try {
      List<byte[]> records = streams.get(stream);
      if (records == null) {
        throw new IllegalStateException("no stream " + stream);
      }
      records.addAll(bodies);
      appended.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Producer producer(String stream) {
    return new Producer() {
      // Like the SDK's session: after one failed batch it refuses every later record, naming the
      // failure (a writer refused before the failed batch's own answer arrives still reports it).
      private volatile Throwable failure;

      @Override
      public CompletableFuture<?> send(byte[] body) {
        Throwable failed = failure;
        if (failed != null) {
          throw new IllegalStateException(
              "the producer session failed: " + failed.getMessage(), failed);
        }
        return CompletableFuture.runAsync(() -> append(0, stream, List.of(body)))
            .whenComplete(
                (ok, error) -> {
                  if (error != null && failure == null) {
                    failure = error instanceof CompletionException c ? c.getCause() : error;
                  }
                });
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public Tail tail(String stream) {
    SplittableRandom random = new SplittableRandom(42);
    return new Tail() {
      private int position;

      @Override
      public List<byte[]> poll(Duration timeout) {
        List<byte[]> bodies;
        lock.lock();
        try {
          List<byte[]> records = streams.get(stream);
          long wait = timeout.toNanos();
          while (records.size() == position && wait > 0) {
            wait = appended.awaitNanos(wait);
          }
          bodies = new ArrayList<>(records.subList(position, records.size()));
          position = records.size();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return List.of();
        } finally {
          lock.unlock();
        }
        return chunked ? rechunk(bodies, random) : bodies;
      }

      @Override
      public void close() {}
    };
  }

  private static List<byte[]> rechunk(List<byte[]> bodies, SplittableRandom random) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    bodies.forEach(all::writeBytes);
    byte[] bytes = all.toByteArray();
    List<byte[]> chunks = new ArrayList<>();
    int offset = 0;
    while (offset < bytes.length) {
      int n = Math.min(bytes.length - offset, 1 + random.nextInt(3000));
      byte[] chunk = new byte[n];
      System.arraycopy(bytes, offset, chunk, 0, n);
      chunks.add(chunk);
      offset += n;
    }
    return chunks;
  }

  @Override
  public void delete(String stream) {
    lock.lock();
    try {
      streams.remove(stream);
      deleted.add(stream);
    } finally {
      lock.unlock();
    }
  }

  /** Records held in all streams now. */
  int records() {
    lock.lock();
    try {
      return streams.values().stream().mapToInt(List::size).sum();
    } finally {
      lock.unlock();
    }
  }

  /** Streams that exist now. */
  List<String> streams() {
    lock.lock();
    try {
      return List.copyOf(streams.keySet());
    } finally {
      lock.unlock();
    }
  }

  List<String> deleted() {
    lock.lock();
    try {
      return List.copyOf(deleted);
    } finally {
      lock.unlock();
    }
  }

  /** Sleeps, for stalls injected through {@code beforeAppend}. */
  static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {}
}
