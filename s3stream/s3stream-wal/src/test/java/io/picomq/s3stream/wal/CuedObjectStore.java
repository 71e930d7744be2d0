package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store decorator that orders operations on cue: PUTs, LISTs of fence markers, or other LISTs are
 * held either before they reach the store ({@link Hold#CALL}) or after the store did them, with the
 * answer withheld ({@link Hold#ANSWER}), until {@link #release}.
 */
final class CuedObjectStore implements ObjectStore {

  enum Hold {
    NONE,
    CALL,
    ANSWER
  }

  private final ObjectStore delegate;
  private final List<Runnable> held = new ArrayList<>();
  private final AtomicInteger completedPuts = new AtomicInteger();
  private volatile Hold puts = Hold.NONE;
  private volatile Hold fenceLists = Hold.NONE;
  private volatile Hold otherLists = Hold.NONE;

  CuedObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  void holdPuts(Hold hold) {
    puts = hold;
  }

  void holdFenceLists(Hold hold) {
    fenceLists = hold;
  }

  /** Holds LISTs other than of the fence markers (a start's listing of the WAL). */
  void holdOtherLists(Hold hold) {
    otherLists = hold;
  }

  /** Operations held so far: a held ANSWER counts once the store has done the operation. */
  synchronized int heldCount() {
    return held.size();
  }

  /** PUTs the store has completed (answered or not). */
  int completedPuts() {
    return completedPuts.get();
  }

  /** Stops holding and lets every held operation go, in the order they were held. */
  void release() {
    puts = Hold.NONE;
    fenceLists = Hold.NONE;
    otherLists = Hold.NONE;
    List<Runnable> go;
    synchronized (this) {
      go = List.copyOf(held);
      held.clear();
    }
    go.forEach(Runnable::run);
  }

  private synchronized void hold(Runnable later) {
    held.add(later);
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    return cue(puts, () -> countPut(delegate.put(key, data)));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Hold hold = prefix.endsWith("fence/") ? fenceLists : otherLists;
    return cue(hold, () -> delegate.list(prefix));
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return delegate.get(key, start, end);
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    return delegate.delete(keys);
  }

  @Override
  public void close() {
    delegate.close();
  }

  private CompletableFuture<Void> countPut(CompletableFuture<Void> put) {
    return put.whenComplete((ignored, error) -> completedPuts.incrementAndGet());
  }

  private <T> CompletableFuture<T> cue(
      Hold hold, java.util.function.Supplier<CompletableFuture<T>> operation) {
    switch (hold) {
      case NONE -> {
        return operation.get();
      }
      case CALL -> {
        CompletableFuture<T> answer = new CompletableFuture<>();
        hold(() -> relay(operation.get(), answer));
        return answer;
      }
      default -> {
        CompletableFuture<T> answer = new CompletableFuture<>();
        operation.get().whenComplete((value, error) -> hold(() -> relay(value, error, answer)));
        return answer;
      }
    }
  }

  private static <T> void relay(CompletableFuture<T> from, CompletableFuture<T> to) {
    from.whenComplete((value, error) -> relay(value, error, to));
  }

  private static <T> void relay(T value, Throwable error, CompletableFuture<T> to) {
    if (error != null) {
      to.completeExceptionally(error);
    } else {
      to.complete(value);
    }
  }
}
