package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ambiguous failure: the next PUTs reach the real store and land, but the caller hears a
 * timeout, as when a response is lost. A WAL must answer by repeating the same bytes.
 */
final class LandThenFailObjectStore implements ObjectStore {

  private final ObjectStore delegate;
  private final AtomicInteger remaining = new AtomicInteger();

  LandThenFailObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** The next {@code count} PUTs land and then report a transient failure. */
  void failAfterLanding(int count) {
    remaining.set(count);
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    CompletableFuture<Void> stored = delegate.put(key, data);
    if (remaining.getAndUpdate(n -> Math.max(0, n - 1)) <= 0) {
      return stored;
    }
    return stored.thenCompose(
        ignored ->
            CompletableFuture.failedFuture(
                new ObjectStoreException(
                    ObjectStoreException.Kind.TRANSIENT, "injected: response lost after landing")));
  }

  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return delegate.get(key, start, end);
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
