package io.picomq.s3stream.core.compaction;

import static io.picomq.s3stream.core.compaction.Futures.failure;
import static io.picomq.s3stream.core.compaction.Futures.join;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ObjectMetadata.ObjectType;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction carried out against a real object store: after it, every stream reads back exactly the
 * records it held before, the sources are gone from the catalog, and each stream's committed ranges
 * follow each other without gap or overlap. One subclass per backend.
 */
abstract class CompactorContract {

  static final long STREAMS = 5;
  static final long BIG = 1L << 30;

  @TempDir Path dir;

  /** Counts live buffers: every test ends with none. */
  final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(false);

  FaultInjectingObjectStore store;
  TestCatalog catalog;
  Workload workload;
  ExecutorService executor;

  /** A new, empty store in {@code dir} whose reads allocate from {@code allocator}. */
  abstract ObjectStore newStore(Path dir, UnpooledByteBufAllocator allocator) throws Exception;

  @BeforeAll
  static void detectLeaks() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @BeforeEach
  void setUp() throws Exception {
    store = new FaultInjectingObjectStore(newStore(dir, allocator));
    catalog = new TestCatalog();
    workload = new Workload(store, catalog, allocator, 42, 200);
    executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "compaction-test"));
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
    store.close();
    assertThat(allocator.metric().usedHeapMemory() + allocator.metric().usedDirectMemory())
        .as("bytes still allocated")
        .isZero();
  }

  /**
   * Six uploads, as a node's WAL uploads would be: streams 1 and 2 in every one (so every object
   * shares a stream with another), streams 3 to 5 in some.
   */
  List<Long> uploads() {
    List<Long> ids = new ArrayList<>();
    for (int upload = 0; upload < 6; upload++) {
      Map<Long, Integer> batches = new LinkedHashMap<>();
      batches.put(1L, 4);
      batches.put(2L, 1 + upload % 3);
      for (long stream = 3; stream <= STREAMS; stream++) {
        if ((upload + stream) % 2 == 0) {
          batches.put(stream, (int) stream);
        }
      }
      ids.add(workload.upload(batches));
    }
    return ids;
  }

  StreamSetObjectCompactor compactor(CompactionLimits limits) {
    return new StreamSetObjectCompactor(
        store, catalog, limits, CompactionSettings.defaults(), allocator, executor);
  }

  CompactionOutcome.Compacted compact(CompactionLimits limits, Set<Long> excludedStreams) {
    CompactionOutcome outcome = join(compactor(limits).compact(catalog.starts(), excludedStreams));
    assertThat(outcome).isInstanceOf(CompactionOutcome.Compacted.class);
    return (CompactionOutcome.Compacted) outcome;
  }

  /** Every stream reads back what was written from its start, with contiguous ranges. */
  void assertStreamsIntact(Map<Long, Long> starts) {
    for (long stream = 1; stream <= STREAMS; stream++) {
      long start = starts.getOrDefault(stream, 0L);
      assertThat(workload.read(stream, start))
          .as("stream %d from %d", stream, start)
          .isEqualTo(workload.expected(stream, start));
      List<StreamOffsetRange> ranges = catalog.ranges(stream);
      for (int i = 1; i < ranges.size(); i++) {
        assertThat(ranges.get(i).startOffset())
            .as("ranges of stream %d: %s", stream, ranges)
            .isEqualTo(ranges.get(i - 1).endOffset());
      }
      assertThat(ranges.get(ranges.size() - 1).endOffset()).isEqualTo(workload.endOffset(stream));
    }
  }

  @Test
  void compactedStreamsReadBackTheSameRecords() {
    List<Long> sources = uploads();
    // Split size 2 KiB: the busy streams get stream objects, the others share the new object.
    CompactionOutcome.Compacted outcome =
        compact(new CompactionLimits(BIG, 2048, 100, 100), Set.of());

    assertThat(outcome.commit().compactedObjectIds()).containsExactlyElementsOf(sources);
    assertThat(outcome.commit().streamObjects()).isNotEmpty();
    assertThat(outcome.commit().objectId()).isNotNegative();
    assertThat(catalog.objects().keySet()).doesNotContainAnyElementsOf(sources);
    assertThat(join(catalog.getStreamSetObjects()))
        .extracting(ObjectMetadata::objectId)
        .containsExactly(outcome.commit().objectId());
    assertStreamsIntact(Map.of());
  }

  @Test
  void aSmallCacheRunsSeveralRoundsIntoOneCommit() {
    List<Long> sources = uploads();
    // Every stream is over 300 bytes: all of it moves into stream objects, in 700-byte rounds.
    CompactionOutcome.Compacted outcome =
        compact(new CompactionLimits(700, 300, 100, 100), Set.of());

    assertThat(outcome.plan().rounds()).hasSizeGreaterThan(2);
    assertThat(catalog.commits()).isEqualTo(sources.size() + 1);
    assertThat(catalog.objects().keySet()).doesNotContainAnyElementsOf(sources);
    assertStreamsIntact(Map.of());
  }

  @Test
  void aStreamSetObjectLargerThanTheCacheIsMadeFromFewerObjects() {
    List<Long> sources = uploads();
    // Nothing is split out, so all data would go into the stream-set object: far over 1 KiB.
    CompactionOutcome.Compacted outcome =
        compact(new CompactionLimits(1024, BIG, 100, 100), Set.of());

    List<Long> compacted = outcome.commit().compactedObjectIds();
    assertThat(compacted).hasSizeLessThan(sources.size());
    assertThat(compacted).containsExactlyElementsOf(sources.subList(0, compacted.size()));
    assertThat(catalog.objects().keySet())
        .containsAll(sources.subList(compacted.size(), sources.size()));
    assertThat(outcome.plan().streamSetObjectBytes() <= 1024 || compacted.size() == 2).isTrue();
    assertStreamsIntact(Map.of());
  }

  @Test
  void whatATrimLeftBelowTheStartIsLeftBehind() {
    uploads();
    // Start stream 1 inside a batch past its fifth, so a block (and that batch) straddles it.
    TestBatch straddled =
        workload.written(1).stream().skip(5).filter(b -> b.count() > 1).findFirst().orElseThrow();
    long start = straddled.baseOffset() + 1;
    catalog.trim(1, start);
    long start3 = workload.endOffset(3) - 1;
    catalog.trim(3, start3);

    compact(new CompactionLimits(BIG, 2048, 100, 100), Set.of());

    List<TestBatch> kept = new ArrayList<>();
    for (ObjectMetadata object : catalog.objects().values()) {
      workload.scan(object).stream().filter(b -> b.streamId() == 1).forEach(kept::add);
    }
    assertThat(kept).allSatisfy(b -> assertThat(b.lastOffset()).isGreaterThan(start));
    assertThat(kept).contains(straddled);
    assertThat(catalog.ranges(1).get(0).startOffset()).isEqualTo(straddled.baseOffset());
    assertThat(catalog.ranges(3).get(0).startOffset()).isLessThanOrEqualTo(start3);
    assertStreamsIntact(Map.of(1L, start, 3L, start3));
  }

  @Test
  void objectsHoldingOnlyDeadDataAreReplacedByNothing() {
    long first = workload.upload(Map.of(1L, 3));
    long second = workload.upload(Map.of(1L, 2, 2L, 2));
    catalog.trim(1, workload.endOffset(1));
    catalog.deleteStream(2);

    CompactionOutcome.Compacted outcome =
        compact(new CompactionLimits(BIG, 2048, 100, 100), Set.of());

    assertThat(outcome.commit().compactedObjectIds()).containsExactly(first, second);
    assertThat(outcome.commit().objectId()).isEqualTo(-1);
    assertThat(outcome.commit().streamObjects()).isEmpty();
    assertThat(catalog.objects()).isEmpty();
  }

  @Test
  void aDeletedStreamsDataIsDropped() {
    uploads();
    catalog.deleteStream(3);

    compact(new CompactionLimits(BIG, 2048, 100, 100), Set.of());

    assertThat(catalog.ranges(3)).isEmpty();
    for (ObjectMetadata object : catalog.objects().values()) {
      assertThat(workload.scan(object)).noneMatch(b -> b.streamId() == 3);
    }
    for (long stream : List.of(1L, 2L, 4L, 5L)) {
      assertThat(workload.read(stream, 0)).isEqualTo(workload.written(stream));
    }
  }

  @Test
  void objectsHoldingAnExcludedStreamStayAsTheyWere() {
    List<Long> sources = uploads();
    Map<Long, ObjectMetadata> before = catalog.objects();
    Set<Long> holding4 = new HashSet<>();
    for (long id : sources) {
      if (before.get(id).ranges().stream().anyMatch(r -> r.streamId() == 4)) {
        holding4.add(id);
      }
    }

    CompactionOutcome.Compacted outcome =
        compact(new CompactionLimits(BIG, 2048, 100, 100), Set.of(4L));

    assertThat(outcome.plan().excludedObjectIds()).containsExactlyInAnyOrderElementsOf(holding4);
    for (long id : holding4) {
      assertThat(catalog.objects().get(id)).isEqualTo(before.get(id));
    }
    assertThat(outcome.commit().compactedObjectIds()).doesNotContainAnyElementsOf(holding4);
    assertStreamsIntact(Map.of());
  }

  @Test
  void aRejectedCommitChangesNothingAndTheNextRunSucceeds() {
    uploads();
    Map<Long, ObjectMetadata> before = catalog.objects();
    catalog.failNextCommit(
        () -> new MetadataRejectedException(MetadataRejectedException.Reason.NODE_FENCED, "test"));

    CompletableFuture<CompactionOutcome> rejected =
        compactor(new CompactionLimits(BIG, 2048, 100, 100)).compact(catalog.starts(), Set.of());

    assertThat(failure(rejected)).isInstanceOf(MetadataRejectedException.class);
    assertThat(catalog.objects()).isEqualTo(before);
    assertStreamsIntact(Map.of());
    compact(new CompactionLimits(BIG, 2048, 100, 100), Set.of());
    assertStreamsIntact(Map.of());
  }

  @Test
  void aStoreFailureFailsTheRunAndChangesNothing() {
    uploads();
    Map<Long, ObjectMetadata> before = catalog.objects();
    StreamSetObjectCompactor compactor = compactor(new CompactionLimits(BIG, 2048, 100, 100));
    store.failNext(1, FaultInjectingObjectStore::accessDenied);

    assertThat(failure(compactor.compact(catalog.starts(), Set.of())))
        .hasMessageContaining("AccessDenied");
    assertThat(catalog.objects()).isEqualTo(before);
    assertThat(join(compactor.compact(catalog.starts(), Set.of())))
        .isInstanceOf(CompactionOutcome.Compacted.class);
    assertStreamsIntact(Map.of());
  }

  @Test
  void oneRunAtATime() {
    uploads();
    StreamSetObjectCompactor compactor = compactor(new CompactionLimits(BIG, 2048, 100, 100));
    store.pause();
    CompletableFuture<CompactionOutcome> first = compactor.compact(catalog.starts(), Set.of());

    assertThat(failure(compactor.compact(catalog.starts(), Set.of())))
        .isInstanceOf(IllegalStateException.class);
    store.resume();
    assertThat(join(first)).isInstanceOf(CompactionOutcome.Compacted.class);
    assertStreamsIntact(Map.of());
  }

  @Test
  void nothingToCompactWritesNothing() {
    workload.upload(Map.of(1L, 3, 2L, 3));
    int commits = catalog.commits();
    Map<Long, ObjectMetadata> before = catalog.objects();

    CompactionOutcome outcome =
        join(
            compactor(new CompactionLimits(BIG, 2048, 100, 100))
                .compact(catalog.starts(), Set.of()));

    assertThat(outcome).isInstanceOf(CompactionOutcome.NothingToCompact.class);
    assertThat(catalog.commits()).isEqualTo(commits);
    assertThat(catalog.objects()).isEqualTo(before);
  }

  StreamObjectCompactor streamObjectCompactor(long maxObjectSizeBytes) {
    return new StreamObjectCompactor(
        store, catalog, maxObjectSizeBytes, CompactionSettings.defaults(), allocator, executor);
  }

  List<ObjectMetadata> streamObjectsOf(long streamId) {
    return catalog.objects().values().stream()
        .filter(o -> o.type() == ObjectType.STREAM && o.ranges().get(0).streamId() == streamId)
        .toList();
  }

  @Test
  void smallStreamObjectsMergeIntoOne() {
    List<Long> sources = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      sources.add(workload.uploadStreamObject(7, 3 + i));
    }

    List<CompactStreamObjectRequest> merges = join(streamObjectCompactor(BIG).compact(7, 0));

    assertThat(merges).hasSize(1);
    assertThat(merges.get(0).sourceObjectIds()).containsExactlyElementsOf(sources);
    assertThat(streamObjectsOf(7))
        .extracting(ObjectMetadata::objectId)
        .containsExactly(merges.get(0).target().objectId());
    assertThat(workload.read(7, 0)).isEqualTo(workload.written(7));
  }

  @Test
  void mergedStreamObjectsStayWithinTheSize() {
    for (int i = 0; i < 8; i++) {
      workload.uploadStreamObject(7, 4);
    }
    long objectSize = streamObjectsOf(7).get(0).sizeBytes();

    List<CompactStreamObjectRequest> merges =
        join(streamObjectCompactor(3 * objectSize).compact(7, 0));

    assertThat(merges).hasSizeGreaterThan(1);
    assertThat(streamObjectsOf(7).size()).isLessThan(8);
    assertThat(workload.read(7, 0)).isEqualTo(workload.written(7));
  }

  @Test
  void aStreamObjectStraddlingTheStartIsRewrittenWithoutThePrefix() {
    for (int i = 0; i < 3; i++) {
      workload.uploadStreamObject(7, 6);
    }
    join(streamObjectCompactor(BIG).compact(7, 0));
    TestBatch straddled =
        workload.written(7).stream().skip(8).filter(b -> b.count() > 1).findFirst().orElseThrow();
    long start = straddled.baseOffset() + 1;
    catalog.trim(7, start);

    List<CompactStreamObjectRequest> rewrites = join(streamObjectCompactor(BIG).compact(7, start));

    assertThat(rewrites).hasSize(1);
    ObjectMetadata rewritten = streamObjectsOf(7).get(0);
    assertThat(rewritten.ranges().get(0).startOffset()).isEqualTo(straddled.baseOffset());
    assertThat(workload.scan(rewritten)).isEqualTo(workload.expected(7, start));
    assertThat(workload.read(7, start)).isEqualTo(workload.expected(7, start));
  }
}
