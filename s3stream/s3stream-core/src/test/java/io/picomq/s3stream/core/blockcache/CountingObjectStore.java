package io.picomq.s3stream.core.blockcache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wraps a real store, counts and logs its GETs, can hold GETs unanswered ({@link #pause}), and
 * copies every GET answer into a buffer from {@code allocator}, so a test can measure, with an
 * instrumented allocator, every byte that came from the store and is still referenced.
 */
public final class CountingObjectStore implements ObjectStore {

  /** One GET as the caller sent it. */
  public record Get(String key, long start, long end) {}

  private final ObjectStore delegate;
  private final ByteBufAllocator allocator;
  private final Executor answers;
  private final ConcurrentLinkedQueue<Get> gets = new ConcurrentLinkedQueue<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Runnable> held = new ArrayList<>();
  private boolean paused;

  /** GET answers complete on the thread that completes the real store's future. */
  public CountingObjectStore(ObjectStore delegate, ByteBufAllocator allocator) {
    this(delegate, allocator, Runnable::run);
  }

  /** GET answers complete on {@code answers}, like a store with its own I/O threads. */
  public CountingObjectStore(ObjectStore delegate, ByteBufAllocator allocator, Executor answers) {
    this.delegate = delegate;
    this.allocator = allocator;
    this.answers = answers;
  }

  /** GETs sent so far. */
  public int getCount() {
    return gets.size();
  }

  /** Every GET sent so far, in order. */
  public List<Get> gets() {
    return List.copyOf(gets);
  }

  /** Holds later GETs until {@link #resume}. */
  public void pause() {
    lock.lock();
    try {
      paused = true;
    } finally {
      lock.unlock();
    }
  }

  /** How many GETs are held. */
  public int heldCount() {
    lock.lock();
    try {
      return held.size();
    } finally {
      lock.unlock();
    }
  }

  /** Sends the held GETs to the real store, and later ones straight away. */
  public void resume() {
    List<Runnable> release;
    lock.lock();
    try {
      paused = false;
      release = List.copyOf(held);
      held.clear();
    } finally {
      lock.unlock();
    }
    release.forEach(Runnable::run);
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    gets.add(new Get(key, start, end));
    CompletableFuture<ByteBuf> answer = new CompletableFuture<>();
    Runnable send =
        () ->
            delegate
                .get(key, start, end)
                .whenCompleteAsync(
                    (bytes, error) -> {
                      if (error != null) {
                        answer.completeExceptionally(error);
                        return;
                      }
                      ByteBuf copy = allocator.heapBuffer(bytes.readableBytes());
                      copy.writeBytes(bytes);
                      bytes.release();
                      answer.complete(copy);
                    },
                    answers);
    lock.lock();
    try {
      if (paused) {
        held.add(send);
        return answer;
      }
    } finally {
      lock.unlock();
    }
    send.run();
    return answer;
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    return delegate.put(key, data);
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return delegate.delete(keys);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
