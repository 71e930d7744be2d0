package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A store whose PUTs take a fixed time on a (fake) clock and whose bytes are then discarded (for
 * measuring how often a WAL PUTs under a long simulated load without keeping what it wrote), or,
 * made with {@link #storing}, written to the wrapped store at once and answered after the time.
 * Other calls go to the wrapped store.
 */
final class LatencyObjectStore implements ObjectStore {

  private final ObjectStore delegate;
  private final Scheduler clock;
  private final long putNanos;
  private final boolean keeps;

  LatencyObjectStore(ObjectStore delegate, Scheduler clock, Duration putLatency) {
    this(delegate, clock, putLatency, false);
  }

  private LatencyObjectStore(
      ObjectStore delegate, Scheduler clock, Duration putLatency, boolean keeps) {
    this.delegate = delegate;
    this.clock = clock;
    this.putNanos = putLatency.toNanos();
    this.keeps = keeps;
  }

  /** PUTs are written to {@code delegate} and answered {@code putLatency} later. */
  static LatencyObjectStore storing(ObjectStore delegate, Scheduler clock, Duration putLatency) {
    return new LatencyObjectStore(delegate, clock, putLatency, true);
  }

  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    CompletableFuture<Void> written =
        keeps ? delegate.put(key, data) : CompletableFuture.completedFuture(null);
    CompletableFuture<Void> stored = new CompletableFuture<>();
    clock.schedule(
        () ->
            written.whenComplete(
                (ignored, error) -> {
                  if (error != null) {
                    stored.completeExceptionally(error);
                  } else {
                    stored.complete(null);
                  }
                }),
        putNanos);
    return stored;
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
