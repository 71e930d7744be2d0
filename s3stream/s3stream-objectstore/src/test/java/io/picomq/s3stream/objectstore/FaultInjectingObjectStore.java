package io.picomq.s3stream.objectstore;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Wraps a real {@link ObjectStore} and makes chosen calls fail or hang, to test what sits above a
 * store (retries, the WAL, uploads) against the failures real stores produce.
 *
 * <p>Faults are consumed in call order: {@link #failNext} makes the next calls fail with the given
 * exceptions; {@link #pause} holds every call until {@link #resume}, when the held calls reach the
 * real store. A call that is neither failed nor held goes straight through.
 */
public final class FaultInjectingObjectStore implements ObjectStore {

  private final ObjectStore delegate;
  private final ReentrantLock lock = new ReentrantLock();
  private final Deque<Supplier<? extends Throwable>> failures = new ArrayDeque<>();
  private final List<Runnable> held = new ArrayList<>();
  private final AtomicInteger calls = new AtomicInteger();
  private boolean paused;

  public FaultInjectingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** The next {@code count} calls fail with a fresh {@code fault.get()} each. */
  public void failNext(int count, Supplier<? extends Throwable> fault) {
    lock.lock();
    try {
      for (int i = 0; i < count; i++) {
        failures.add(fault);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Holds every later call unanswered until {@link #resume}. */
  public void pause() {
    lock.lock();
    try {
      paused = true;
    } finally {
      lock.unlock();
    }
  }

  /** Lets held calls (and later ones) through to the real store. */
  public void resume() {
    List<Runnable> release;
    lock.lock();
    try {
      paused = false;
      release = new ArrayList<>(held);
      held.clear();
    } finally {
      lock.unlock();
    }
    release.forEach(Runnable::run);
  }

  /** How many calls reached this store, failed and held ones included. */
  public int calls() {
    return calls.get();
  }

  /** A transient failure like S3's 503 SlowDown. */
  public static ObjectStoreException slowDown() {
    return new ObjectStoreException(
        ObjectStoreException.Kind.TRANSIENT, "injected: HTTP 503 SlowDown");
  }

  /** A transient failure like a read timeout. */
  public static ObjectStoreException timeout() {
    return new ObjectStoreException(
        ObjectStoreException.Kind.TRANSIENT,
        "injected: read timed out",
        new java.net.SocketTimeoutException("Read timed out"));
  }

  /** A permanent failure like S3's 403 AccessDenied. */
  public static ObjectStoreException accessDenied() {
    return new ObjectStoreException(
        ObjectStoreException.Kind.ACCESS_DENIED, "injected: HTTP 403 AccessDenied");
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    return intercept(() -> delegate.put(key, data));
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return intercept(() -> delegate.get(key, start, end));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return intercept(() -> delegate.list(prefix));
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return intercept(() -> delegate.delete(keys));
  }

  @Override
  public void close() {
    delegate.close();
  }

  private <T> CompletableFuture<T> intercept(Supplier<CompletableFuture<T>> call) {
    calls.incrementAndGet();
    Supplier<? extends Throwable> failure;
    CompletableFuture<T> answer = new CompletableFuture<>();
    lock.lock();
    try {
      failure = failures.poll();
      if (failure == null && paused) {
        held.add(() -> pipe(call, answer));
        return answer;
      }
    } finally {
      lock.unlock();
    }
    if (failure != null) {
      return CompletableFuture.failedFuture(failure.get());
    }
    pipe(call, answer);
    return answer;
  }

  private static <T> void pipe(Supplier<CompletableFuture<T>> call, CompletableFuture<T> answer) {
    call.get()
        .whenComplete(
            (value, error) -> {
              if (error != null) {
                answer.completeExceptionally(error);
              } else {
                answer.complete(value);
              }
            });
  }
}
