package io.picomq.s3stream;

import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** An engine together with the stores and threads the builder made for it, released at shutdown. */
final class ManagedEngine implements StreamEngine {

  private final StreamEngine engine;
  private final Runnable release;
  private final AtomicBoolean released = new AtomicBoolean();

  ManagedEngine(StreamEngine engine, Runnable release) {
    this.engine = engine;
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
