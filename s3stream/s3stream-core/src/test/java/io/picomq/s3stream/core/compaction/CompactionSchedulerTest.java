package io.picomq.s3stream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.core.testing.ManualScheduler;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The timer around the compactors: one run at a time, failures counted and retried, stop. */
class CompactionSchedulerTest {

  private final MemoryObjectStore store = new MemoryObjectStore();
  private final ManualScheduler timer = new ManualScheduler();
  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final EngineMetrics metrics = new EngineMetrics(new SimpleMeterRegistry());
  private final AtomicBoolean paused = new AtomicBoolean();
  private final List<Long> merged = new ArrayList<>();

  @AfterEach
  void close() {
    store.close();
  }

  private CompactionScheduler scheduler() {
    CompactionSettings settings = CompactionSettings.defaults();
    return new CompactionScheduler(
        new StreamSetObjectCompactor(
            store,
            catalog,
            CompactionLimits.upstreamDefaults(),
            settings,
            UnpooledByteBufAllocator.DEFAULT,
            Runnable::run),
        new StreamObjectCompactor(
            store, catalog, 1 << 20, settings, UnpooledByteBufAllocator.DEFAULT, Runnable::run),
        timer,
        1_000,
        () -> Map.of(7L, 0L),
        paused::get,
        ids -> {},
        metrics);
  }

  @Test
  void nothingIsScheduledBeforeStart() {
    scheduler();
    assertThat(timer.tasks).isEmpty();
  }

  @Test
  void theNextRunIsScheduledOnlyOnceThePreviousFinished() {
    CompactionScheduler scheduler = scheduler();
    scheduler.start();
    CompletableFuture<List<ObjectMetadata>> listing = catalog.nextListing();
    timer.fireNext();
    assertThat(timer.tasks).as("no second run while one is in progress").isEmpty();
    listing.complete(List.of());
    assertThat(timer.tasks).hasSize(1);
    assertThat(metrics.compactionRuns.count()).isEqualTo(1);
    assertThat(metrics.compactionFailures.count()).isZero();
    assertThat(merged).as("the owned stream's objects were looked at").containsExactly(7L);
  }

  @Test
  void aFailedRunIsCountedAndTriedAgainNextTick() {
    CompactionScheduler scheduler = scheduler();
    scheduler.start();
    catalog.nextListing().completeExceptionally(new IllegalStateException("catalog down"));
    timer.fireNext();
    assertThat(metrics.compactionRuns.count()).isEqualTo(1);
    assertThat(metrics.compactionFailures.count()).isEqualTo(1);
    catalog.nextListing().complete(List.of());
    timer.fireNext();
    assertThat(metrics.compactionRuns.count()).isEqualTo(2);
    assertThat(metrics.compactionFailures.count()).isEqualTo(1);
  }

  @Test
  void aPausedTickRunsNothing() {
    CompactionScheduler scheduler = scheduler();
    scheduler.start();
    paused.set(true);
    timer.fireNext();
    assertThat(catalog.listings).isZero();
    assertThat(metrics.compactionRuns.count()).isZero();
    assertThat(timer.tasks).as("still scheduled").hasSize(1);
  }

  @Test
  void stopWaitsForTheRunInProgressAndSchedulesNoMore() {
    CompactionScheduler scheduler = scheduler();
    scheduler.start();
    CompletableFuture<List<ObjectMetadata>> listing = catalog.nextListing();
    timer.fireNext();
    CompletableFuture<Void> stopped = scheduler.stop();
    assertThat(stopped).isNotDone();
    listing.complete(List.of());
    assertThat(stopped).isDone();
    assertThat(timer.tasks).isEmpty();
    assertThat(merged).as("merges not begun are skipped").isEmpty();
  }

  /**
   * Stream-set object listings come from a script; nothing else is ever asked for but stream
   * objects.
   */
  private final class ScriptedCatalog implements ObjectManager {
    private final Deque<CompletableFuture<List<ObjectMetadata>>> script = new ArrayDeque<>();
    int listings;

    CompletableFuture<List<ObjectMetadata>> nextListing() {
      CompletableFuture<List<ObjectMetadata>> listing = new CompletableFuture<>();
      script.add(listing);
      return listing;
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
      listings++;
      return script.remove();
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getObjects(
        long streamId, long startOffset, long endOffset, int limit) {
      merged.add(streamId);
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
      throw new AssertionError("nothing to compact");
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
      throw new AssertionError("nothing to compact");
    }

    @Override
    public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
      throw new AssertionError("nothing to compact");
    }
  }
}
