package io.picomq.server.service;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real engine, except that once {@link #hold()} is called, appends never reach it and never
 * complete: a node that dies with them in flight, before their records are durable. It also counts
 * the fetches the service makes ({@link #fetches}), to tell a load that read the stream from one
 * that did not.
 */
final class HeldAppends implements StreamEngine {
  private final StreamEngine engine;
  private volatile boolean held;
  final AtomicInteger fetches = new AtomicInteger();

  HeldAppends(StreamEngine engine) {
    this.engine = engine;
  }

  void hold() {
    held = true;
  }

  @Override
  public CompletableFuture<Void> start() {
    return engine.start();
  }

  @Override
  public CompletableFuture<Stream> openStream(long streamId) {
    return engine.openStream(streamId).thenApply(Held::new);
  }

  @Override
  public CompletableFuture<Void> deleteObjects(List<Long> objectIds) {
    return engine.deleteObjects(objectIds);
  }

  @Override
  public CompletableFuture<Void> shutdown() {
    return engine.shutdown();
  }

  private final class Held implements Stream {
    private final Stream stream;

    Held(Stream stream) {
      this.stream = stream;
    }

    @Override
    public long streamId() {
      return stream.streamId();
    }

    @Override
    public long epoch() {
      return stream.epoch();
    }

    @Override
    public long startOffset() {
      return stream.startOffset();
    }

    @Override
    public long confirmOffset() {
      return stream.confirmOffset();
    }

    @Override
    public long nextOffset() {
      return stream.nextOffset();
    }

    @Override
    public CompletableFuture<AppendOutcome> append(int recordCount, ByteBuf payload) {
      return held ? new CompletableFuture<>() : stream.append(recordCount, payload);
    }

    @Override
    public CompletableFuture<Void> settle() {
      return stream.settle();
    }

    @Override
    public CompletableFuture<FetchResult> fetch(
        long startOffset, long endOffset, int maxBytes, ReadOptions options) {
      fetches.incrementAndGet();
      return stream.fetch(startOffset, endOffset, maxBytes, options);
    }

    @Override
    public CompletableFuture<Void> trim(long newStartOffset) {
      return stream.trim(newStartOffset);
    }

    @Override
    public CompletableFuture<Void> close() {
      return stream.close();
    }

    @Override
    public CompletableFuture<Void> destroy() {
      return stream.destroy();
    }
  }
}
