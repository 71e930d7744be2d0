package io.picomq.s3stream.core.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.api.FastReadMissException;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.StreamMetadata.StreamState;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.logcache.LogCache;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.time.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Read stitching over a log cache holding [60, 100) of stream 1 and a committed reader serving what
 * a test scripts for [0, 60): continuity is checked, gaps fail loudly, nothing leaks.
 */
class FetcherTest {

  private static ResourceLeakDetector.Level previous;

  private final LogCache cache = new LogCache(1 << 20, 0);
  private final EngineMetrics metrics = new EngineMetrics(new SimpleMeterRegistry());
  private final List<ByteBuf> handedOut = new ArrayList<>();
  private CommittedReader reader;

  @BeforeAll
  static void paranoid() {
    previous = ResourceLeakDetector.getLevel();
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @AfterAll
  static void restore() {
    ResourceLeakDetector.setLevel(previous);
  }

  @AfterEach
  void nothingLeaks() {
    cache.seal(0);
    cache.blocks().forEach(cache::markCommitted);
    cache.evictCommitted(0);
    assertThat(handedOut).allSatisfy(b -> assertThat(b.refCnt()).isZero());
  }

  private OpenStream stream() {
    for (long base = 60; base < 100; base += 10) {
      cache.put(1, 0, cached(base, 10), base);
    }
    WritePath writePath =
        new WritePath(
            null,
            cache,
            null,
            Scheduler.system(),
            PooledByteBufAllocator.DEFAULT,
            metrics,
            1 << 20,
            0,
            0);
    Fetcher fetcher =
        new Fetcher(
            cache,
            (streamId, start, end, maxBytes, fast) ->
                reader.read(streamId, start, end, maxBytes, fast),
            metrics);
    return new OpenStream(
        new StreamMetadata(1, 0, 0, 100, StreamState.OPENED, 1),
        writePath,
        fetcher,
        new InMemoryMetadata().register(1, 1),
        s -> {});
  }

  private static CachedBatch cached(long base, int count) {
    ByteBuf encoded = Unpooled.buffer(33 + 4);
    encoded.writerIndex(33);
    encoded.writeInt((int) base);
    return new CachedBatch(base, count, encoded);
  }

  /** A committed reader answering with batches of the given [base, next) pairs. */
  private CommittedReader serving(long... bounds) {
    return (streamId, start, end, maxBytes, fast) -> {
      List<FetchedBatch> batches = new ArrayList<>();
      for (int i = 0; i < bounds.length; i += 2) {
        ByteBuf payload = Unpooled.buffer(4).writeInt((int) bounds[i]);
        handedOut.add(payload);
        batches.add(new FetchedBatch(bounds[i], (int) (bounds[i + 1] - bounds[i]), payload));
      }
      return CompletableFuture.completedFuture(new Result(batches));
    };
  }

  private static List<Long> bases(FetchResult result) {
    try (result) {
      return result.batches().stream().map(FetchedBatch::baseOffset).toList();
    }
  }

  @Test
  void aFetchInsideTheCacheNeverAsksStorage() throws Exception {
    OpenStream stream = stream();
    reader = (s, a, b, m, f) -> CompletableFuture.failedFuture(new AssertionError("asked storage"));
    FetchResult result = stream.fetch(65, 100, 1 << 20, ReadOptions.DEFAULT).get();
    assertThat(result.touchedStorage()).isFalse();
    assertThat(bases(result)).containsExactly(60L, 70L, 80L, 90L);
  }

  @Test
  void committedDataBelowTheCacheIsStitchedInFront() throws Exception {
    OpenStream stream = stream();
    reader = serving(20, 40, 40, 60);
    FetchResult result = stream.fetch(30, 100, 1 << 20, ReadOptions.DEFAULT).get();
    assertThat(result.touchedStorage()).isTrue();
    assertThat(bases(result)).containsExactly(20L, 40L, 60L, 70L, 80L, 90L);
  }

  @Test
  void aGapFromStorageFailsLoudlyNamingStreamAndOffsets() {
    OpenStream stream = stream();
    reader = serving(20, 40, 45, 60);
    assertThatThrownBy(() -> stream.fetch(30, 100, 1 << 20, ReadOptions.DEFAULT).get())
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stream 1")
        .hasMessageContaining("offset 40");
  }

  @Test
  void storageThatEndsBeforeTheCacheFailsLoudly() {
    OpenStream stream = stream();
    reader = serving();
    assertThatThrownBy(() -> stream.fetch(30, 100, 1 << 20, ReadOptions.DEFAULT).get())
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stream 1")
        .hasMessageContaining("[30, 60)");
  }

  @Test
  void aFastReadBelowTheCacheFailsWhenTheReaderWouldTouchStorage() {
    OpenStream stream = stream();
    reader =
        (s, a, b, m, fast) ->
            fast
                ? CompletableFuture.failedFuture(new FastReadMissException(s, a))
                : CompletableFuture.failedFuture(new AssertionError("not a fast read"));
    assertThatThrownBy(() -> stream.fetch(30, 100, 1 << 20, new ReadOptions(true)).get())
        .hasCauseInstanceOf(FastReadMissException.class);
  }

  @Test
  void theByteLimitStopsBeforeTheCachedPart() throws Exception {
    OpenStream stream = stream();
    reader = serving(20, 40);
    assertThat(bases(stream.fetch(30, 100, 2, ReadOptions.DEFAULT).get())).containsExactly(20L);
  }

  /** A committed read's answer. */
  private record Result(List<FetchedBatch> batches) implements FetchResult {
    @Override
    public boolean touchedStorage() {
      return true;
    }

    @Override
    public void close() {
      batches.forEach(b -> b.payload().release());
    }
  }
}
