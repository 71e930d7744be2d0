package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One WAL instance's view of a shared real store, which can crash like the process holding it.
 *
 * <p>Each PUT reaches the real store after a short random delay, so PUTs land out of order and some
 * are still in flight at a crash. {@link #crash} decides at random, for every PUT not yet sent,
 * whether it still lands (it had left the machine) or is lost; it waits until every PUT that lands
 * has landed, and every later call fails as {@code CLOSED}. The real store stays open.
 */
final class CrashableObjectStore implements ObjectStore {

  /** A PUT waiting out its delay. */
  private record Unsent(String key, ByteBuf bytes, CompletableFuture<Void> answer) {}

  private final ObjectStore delegate;
  private final ScheduledExecutorService timer;
  private final Random delays;
  private final int maxDelayMicros;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private final List<Unsent> unsent = new ArrayList<>();
  private final List<CompletableFuture<Void>> sending = new ArrayList<>();
  private boolean crashed;

  CrashableObjectStore(
      ObjectStore delegate, ScheduledExecutorService timer, long seed, int maxDelayMicros) {
    this.delegate = delegate;
    this.timer = timer;
    this.delays = new Random(seed);
    this.maxDelayMicros = maxDelayMicros;
  }

  /** Crashes; returns once every PUT that lands has landed. */
  void crash(Random decide) {
    List<Unsent> cut;
    lock.lock();
    try {
      crashed = true;
      cut = new ArrayList<>(unsent);
      unsent.clear();
    } finally {
      lock.unlock();
    }
    for (Unsent put : cut) {
      if (decide.nextBoolean()) {
        send(put);
      } else {
        put.bytes().release();
        put.answer().completeExceptionally(closedError());
      }
    }
    List<CompletableFuture<Void>> landing;
    lock.lock();
    try {
      landing = new ArrayList<>(sending);
    } finally {
      lock.unlock();
    }
    CompletableFuture.allOf(landing.toArray(CompletableFuture[]::new))
        .handle((ignored, error) -> null)
        .orTimeout(30, TimeUnit.SECONDS)
        .join();
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    Unsent put = new Unsent(key, data.retainedSlice(), new CompletableFuture<>());
    long delayMicros;
    lock.lock();
    try {
      if (crashed) {
        put.bytes().release();
        return CompletableFuture.failedFuture(closedError());
      }
      unsent.add(put);
      delayMicros = delays.nextInt(maxDelayMicros + 1);
    } finally {
      lock.unlock();
    }
    timer.schedule(
        () -> {
          boolean stillMine;
          lock.lock();
          try {
            stillMine = unsent.remove(put);
          } finally {
            lock.unlock();
          }
          if (stillMine) {
            send(put);
          }
        },
        delayMicros,
        TimeUnit.MICROSECONDS);
    return put.answer();
  }

  private void send(Unsent put) {
    CompletableFuture<Void> stored = delegate.put(put.key(), put.bytes());
    lock.lock();
    try {
      sending.add(stored);
    } finally {
      lock.unlock();
    }
    stored.whenComplete(
        (ignored, error) -> {
          put.bytes().release();
          lock.lock();
          try {
            sending.remove(stored);
          } finally {
            lock.unlock();
          }
          if (error != null) {
            put.answer().completeExceptionally(error);
          } else {
            put.answer().complete(null);
          }
        });
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return crashed()
        ? CompletableFuture.failedFuture(closedError())
        : delegate.get(key, start, end);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return crashed() ? CompletableFuture.failedFuture(closedError()) : delegate.list(prefix);
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return crashed() ? CompletableFuture.failedFuture(closedError()) : delegate.delete(keys);
  }

  @Override
  public void close() {}

  private boolean crashed() {
    lock.lock();
    try {
      return crashed;
    } finally {
      lock.unlock();
    }
  }

  private static ObjectStoreException closedError() {
    return new ObjectStoreException(ObjectStoreException.Kind.CLOSED, "injected: the process died");
  }
}
