package io.picomq.s3stream;

import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.StorageHealth;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.s3stream.api.TakeoverReport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * An engine together with the stores and threads the builder made for it, released at shutdown, and
 * the watches on those stores behind {@link #storageHealth()}.
 */
final class ManagedEngine implements StreamEngine {

  private final StreamEngine engine;
  private final Supplier<StorageHealth> health;
  private final Runnable release;
  private final AtomicBoolean released = new AtomicBoolean();

  ManagedEngine(StreamEngine engine, Supplier<StorageHealth> health, Runnable release) {
    this.engine = engine;
    this.health = health;
    this.release = release;
  }

  @Override
  public CompletableFuture<Void> start() {
    return engine.start();
  }

  @Override
  public CompletableFuture<Stream> openStream(long streamId) {
    return engine.openStream(streamId);
  }

  @Override
  public CompletableFuture<Void> deleteObjects(List<Long> objectIds) {
    return engine.deleteObjects(objectIds);
  }

  @Override
  public CompletableFuture<TakeoverReport> takeOver(int nodeId, OrphanedStreams streams) {
    return engine.takeOver(nodeId, streams);
  }

  @Override
  public StorageHealth storageHealth() {
    return health.get();
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    return engine
        .shutdown()
        .whenComplete(
            (ignored, error) -> {
              if (released.compareAndSet(false, true)) {
                release.run();
              }
            });
  }
}
