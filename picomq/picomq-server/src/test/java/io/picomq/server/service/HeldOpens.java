package io.picomq.server.service;

import io.picomq.s3stream.api.StorageHealth;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;

/**
 * The real engine, except that the first open of a stream the test picked is held until the test
 * releases it: a load (or a fork's new stream) that stalls on storage or the metadata log at the
 * moment that matters. Later opens pass. Counts every open, by stream id.
 */
final class HeldOpens implements StreamEngine {
  private final StreamEngine engine;
  private final Map<Long, AtomicInteger> opens = new ConcurrentHashMap<>();
  private volatile LongPredicate held = id -> false;
  private final CompletableFuture<Void> released = new CompletableFuture<>();

  /** Completes with the id of the first open that was held. */
  final CompletableFuture<Long> reached = new CompletableFuture<>();

  HeldOpens(StreamEngine engine) {
    this.engine = engine;
  }

  /** Holds the next open of a stream {@code ids} accepts, until {@link #release()}. */
  void hold(LongPredicate ids) {
    held = ids;
  }

  void release() {
    released.complete(null);
  }

  /** How many times stream {@code streamId} was opened through this engine. */
  int opensOf(long streamId) {
    AtomicInteger count = opens.get(streamId);
    return count == null ? 0 : count.get();
  }

  @Override
  public CompletableFuture<Stream> openStream(long streamId) {
    opens.computeIfAbsent(streamId, id -> new AtomicInteger()).incrementAndGet();
    if (held.test(streamId) && !released.isDone() && reached.complete(streamId)) {
      return released.thenCompose(ignored -> engine.openStream(streamId));
    }
    return engine.openStream(streamId);
  }

  @Override
  public CompletableFuture<Void> start() {
    return engine.start();
  }

  @Override
  public CompletableFuture<Void> deleteObjects(List<Long> objectIds) {
    return engine.deleteObjects(objectIds);
  }

  @Override
  public StorageHealth storageHealth() {
    return engine.storageHealth();
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    return engine.shutdown();
  }
}
