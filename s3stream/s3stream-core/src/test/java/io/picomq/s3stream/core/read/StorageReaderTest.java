package io.picomq.s3stream.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.api.FastReadMissException;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.core.blockcache.BlockCache;
import io.picomq.s3stream.core.blockcache.BlockCacheConfig;
import io.picomq.s3stream.core.blockcache.CountingObjectStore;
import io.picomq.s3stream.core.blockcache.FakeClock;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The read path's behaviour around storage: what it fetches, when, and how often; how it fails.
 * Every test ends by checking that no buffer is left referenced beyond the cache's resident pages.
 */
class StorageReaderTest {

  private static final long STREAM = 7;
  private static final int PAGE = 4096;
  private static final ObjectNamespace NAMESPACE = ObjectNamespace.DEFAULT;

  /** Instrumented: every byte fetched, cached or handed to a reader is counted here. */
  private final UnpooledByteBufAllocator memory = new UnpooledByteBufAllocator(false);

  private final MemoryObjectStore backing = new MemoryObjectStore();
  private final CountingObjectStore store = new CountingObjectStore(backing, memory);
  private final CommittedData data = new CommittedData(backing, NAMESPACE, 3);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<BlockCache> caches = new ArrayList<>();

  @BeforeAll
  static void paranoidLeakDetection() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @AfterEach
  void nothingLeaks() {
    long resident = 0;
    for (BlockCache cache : caches) {
      assertThat(cache.stats().usedBytes()).isLessThanOrEqualTo(cache.stats().capacityBytes());
      resident += cache.stats().residentBytes();
    }
    assertThat(memory.metric().usedHeapMemory()).isEqualTo(resident);
    caches.forEach(BlockCache::close);
    assertThat(memory.metric().usedHeapMemory()).isZero();
  }

  private BlockCache newCache(CountingObjectStore over, long capacityBytes) {
    BlockCache cache =
        new BlockCache(
            over,
            BlockCacheConfig.builder()
                .capacityBytes(capacityBytes)
                .pageSizeBytes(PAGE)
                .ttl(Duration.ofMinutes(1))
                .build(),
            new FakeClock(),
            memory,
            registry);
    caches.add(cache);
    return cache;
  }

  private StorageReader newReader(BlockCache cache, long initialReadahead, long maxReadahead) {
    return new StorageReader(
        data.catalog,
        NAMESPACE,
        cache,
        StorageReaderConfig.builder()
            .initialReadaheadBytes(initialReadahead)
            .maxReadaheadBytes(maxReadahead)
            .build(),
        // Readahead in the reading thread: a test sees its GETs as soon as the read is done.
        Runnable::run);
  }

  /** Three objects of the stream, 30 batches each, blocks of about 2 KiB. */
  private List<ObjectMetadata> threeObjects() {
    List<ObjectMetadata> objects = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      objects.add(data.commit(data.append(STREAM, 30, 1000), 2048));
    }
    return objects;
  }

  private static ReadBatches join(CompletableFuture<ReadBatches> read) throws Exception {
    return read.get(30, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<ReadBatches> read) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> read.get(30, TimeUnit.SECONDS).close());
    return e.getCause();
  }

  private List<Long> baseOffsets(ReadBatches result) {
    return result.batches().stream().map(FetchedBatch::baseOffset).toList();
  }

  @Test
  void aFastReadNeverTouchesStorage() throws Exception {
    List<ObjectMetadata> objects = threeObjects();
    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    long firstEnd = objects.get(0).ranges().get(0).endOffset();

    assertThat(failure(reader.read(STREAM, 0, firstEnd, 1 << 20, true)))
        .isInstanceOf(FastReadMissException.class)
        .hasMessageContaining("stream 7")
        .hasMessageContaining("offset 0");
    assertThat(store.getCount()).isZero();

    List<Long> cold;
    try (ReadBatches result = join(reader.read(STREAM, 0, firstEnd, 1 << 20, false))) {
      assertThat(result.touchedStorage()).isTrue();
      cold = baseOffsets(result);
    }
    int gets = store.getCount();
    try (ReadBatches result = join(reader.read(STREAM, 0, firstEnd, 1 << 20, true))) {
      assertThat(result.touchedStorage()).isFalse();
      assertThat(baseOffsets(result)).isEqualTo(cold);
    }
    assertThat(failure(reader.read(STREAM, firstEnd, firstEnd + 5, 1 << 20, true)))
        .isInstanceOf(FastReadMissException.class)
        .hasMessageContaining("offset " + firstEnd);
    assertThat(store.getCount()).as("no GET for any fast read").isEqualTo(gets);
  }

  @Test
  void aFastReadCanOpenAnObjectFromCachedPages() throws Exception {
    List<ObjectMetadata> objects = threeObjects();
    long firstEnd = objects.get(0).ranges().get(0).endOffset();
    BlockCache cache = newCache(store, 1 << 20);
    newReader(cache, 0, 0).read(STREAM, 0, firstEnd, 1 << 20, false).get().close();
    int gets = store.getCount();
    // A second reader over the same cache has no open objects, but the pages are resident.
    try (ReadBatches result =
        join(newReader(cache, 0, 0).read(STREAM, 3, firstEnd, 1 << 20, true))) {
      assertThat(result.nextOffset()).isEqualTo(firstEnd);
    }
    assertThat(store.getCount()).isEqualTo(gets);
  }

  @Test
  void aGapInTheCatalogFailsLoudly() throws Exception {
    List<ObjectMetadata> objects = threeObjects();
    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    long firstEnd = objects.get(0).ranges().get(0).endOffset();
    long end = data.endOffset(STREAM);
    data.catalog.remove(objects.get(1).objectId());

    try (ReadBatches before = join(reader.read(STREAM, 0, firstEnd, 1 << 20, false))) {
      assertThat(before.nextOffset()).isEqualTo(firstEnd);
    }
    assertThat(failure(reader.read(STREAM, 0, end, 1 << 20, false)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stream 7")
        .hasMessageContaining("offset " + firstEnd)
        .hasMessageContaining("[0, " + end + ")");
  }

  @Test
  void aCatalogEndingBeforeTheRequestedEndFailsLoudly() throws Exception {
    threeObjects();
    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    long end = data.endOffset(STREAM);
    assertThat(failure(reader.read(STREAM, end - 3, end + 10, 1 << 20, false)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stream 7")
        .hasMessageContaining("offset " + end);
    assertThat(failure(reader.read(STREAM, end, end + 1, 1 << 20, false)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("offset " + end);
  }

  @Test
  void anObjectNotHoldingWhatTheCatalogSaysFailsLoudly() throws Exception {
    ObjectMetadata object = data.commit(data.append(STREAM, 30, 1000), 2048);
    long end = data.endOffset(STREAM);
    data.catalog.remove(object.objectId());
    data.catalog.add(
        new ObjectMetadata(
            object.objectId(),
            object.type(),
            object.sizeBytes(),
            List.of(new StreamOffsetRange(STREAM, 0, end + 50)),
            object.attributes()));
    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    assertThat(failure(reader.read(STREAM, 10, end + 20, 1 << 20, false)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stream 7")
        .hasMessageContaining("offset " + end)
        .hasMessageContaining("index has no block");
  }

  @Test
  void anObjectHoldingTwoRangesIsReadAgainForTheSecond() throws Exception {
    List<CommittedData.Batch> batches = data.append(STREAM, 30, 1000);
    List<CommittedData.Batch> outer = new ArrayList<>(batches.subList(0, 10));
    outer.addAll(batches.subList(20, 30));
    ObjectMetadata twoRanges = data.commit(outer, 2048);
    data.commit(batches.subList(10, 20), 2048);
    assertThat(twoRanges.ranges()).hasSize(2);
    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    long end = data.endOffset(STREAM);
    try (ReadBatches result = join(reader.read(STREAM, 0, end, 1 << 20, false))) {
      assertThat(baseOffsets(result))
          .isEqualTo(batches.stream().map(CommittedData.Batch::baseOffset).toList());
    }
  }

  /** Reads the whole stream sequentially in reads of about one page; returns reads that waited. */
  private int readSequentially(StorageReader reader, long from, int reads) throws Exception {
    int touched = 0;
    long next = from;
    long end = data.endOffset(STREAM);
    for (int i = 0; i < reads && next < end; i++) {
      try (ReadBatches result = join(reader.read(STREAM, next, end, PAGE, false))) {
        assertThat(result.batches().get(0).baseOffset()).isLessThanOrEqualTo(next);
        next = result.nextOffset();
        touched += result.touchedStorage() ? 1 : 0;
      }
    }
    return touched;
  }

  private void oneLargeObject() {
    data.commit(data.append(STREAM, 2000, 2000), 8192);
  }

  @Test
  void readaheadGrowsForASequentialReaderAndSavesGets() throws Exception {
    oneLargeObject();
    CountingObjectStore plain = new CountingObjectStore(backing, memory);
    int touchedWithout = readSequentially(newReader(newCache(plain, 1 << 20), 0, 0), 0, 10_000);
    int touchedWith =
        readSequentially(newReader(newCache(store, 1 << 20), 8 << 10, 128 << 10), 0, 10_000);

    assertThat(plain.getCount()).as("without readahead, a GET per block read").isGreaterThan(150);
    assertThat(store.getCount()).isLessThan(plain.getCount() / 8);
    assertThat(touchedWith).as("reads that waited for storage").isLessThan(touchedWithout / 8);
    assertThat(largestGet(0))
        .as("the window grew to the maximum")
        .isGreaterThanOrEqualTo(128 << 10);
  }

  @Test
  void aJumpResetsTheReadahead() throws Exception {
    oneLargeObject();
    StorageReader reader = newReader(newCache(store, 1 << 20), 8 << 10, 128 << 10);
    readSequentially(reader, 0, 100);
    assertThat(largestGet(0))
        .as("the window grew to the maximum")
        .isGreaterThanOrEqualTo(128 << 10);

    long next = data.endOffset(STREAM) - 1500;
    double before = readaheadBytes();
    next = readOnce(reader, next);
    assertThat(readaheadBytes()).as("one read after a jump: nothing ahead").isEqualTo(before);

    int getsBefore = store.getCount();
    for (int i = 0; i < 3; i++) {
      next = readOnce(reader, next);
    }
    assertThat(readaheadBytes()).as("sequential again: reading ahead").isGreaterThan(before);
    assertThat(largestGet(getsBefore))
        .as("windows of 8, 16, 32 KiB (plus a block and page rounding), not the old 128 KiB")
        .isLessThan(64 << 10);
  }

  @Test
  void readaheadStartsAfterTheReadThatTriggeredItHasItsResult() throws Exception {
    oneLargeObject();
    List<Runnable> started = new ArrayList<>();
    StorageReader reader =
        new StorageReader(
            data.catalog,
            NAMESPACE,
            newCache(store, 1 << 20),
            StorageReaderConfig.builder()
                .initialReadaheadBytes(8 << 10)
                .maxReadaheadBytes(128 << 10)
                .build(),
            started::add);
    long next = readOnce(reader, readOnce(reader, 0));
    // The memory store answers in the caller's thread: a readahead started inline would have
    // copied its window before the read returned.
    assertThat(started).as("the second read, sequential, asked for a window").hasSize(1);
    int getsBefore = store.getCount();
    double before = readaheadBytes();
    started.remove(0).run();
    assertThat(store.getCount()).isGreaterThan(getsBefore);
    assertThat(readaheadBytes()).isGreaterThan(before);
    assertThat(readOnce(reader, next)).isGreaterThan(next);
  }

  private long readOnce(StorageReader reader, long from) throws Exception {
    try (ReadBatches result =
        join(reader.read(STREAM, from, data.endOffset(STREAM), PAGE, false))) {
      return result.nextOffset();
    }
  }

  /** The largest GET since the {@code first}-th. */
  private long largestGet(int first) {
    return store.gets().subList(first, store.getCount()).stream()
        .mapToLong(g -> g.end() - g.start())
        .max()
        .orElse(0);
  }

  private double readaheadBytes() {
    return registry.get("s3stream.blockcache.readahead.bytes").counter().count();
  }

  @Test
  void concurrentColdReadersShareOpensAndPages() throws Exception {
    List<ObjectMetadata> objects = threeObjects();
    long firstEnd = objects.get(0).ranges().get(0).endOffset();
    CountingObjectStore alone = new CountingObjectStore(backing, memory);
    newReader(newCache(alone, 1 << 20), 0, 0)
        .read(STREAM, 0, firstEnd, 1 << 20, false)
        .get()
        .close();

    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    store.pause();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<CompletableFuture<ReadBatches>>> started = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        started.add(pool.submit(() -> reader.read(STREAM, 0, firstEnd, 1 << 20, false)));
      }
      List<CompletableFuture<ReadBatches>> reads = new ArrayList<>();
      for (Future<CompletableFuture<ReadBatches>> f : started) {
        reads.add(f.get(10, TimeUnit.SECONDS));
      }
      assertThat(store.heldCount()).as("one open for all readers").isEqualTo(1);
      store.resume();
      for (CompletableFuture<ReadBatches> read : reads) {
        try (ReadBatches result = join(read)) {
          assertThat(result.nextOffset()).isEqualTo(firstEnd);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.getCount()).isEqualTo(alone.getCount());
  }

  @Test
  void badArgumentsAreRefused() {
    StorageReader reader = newReader(newCache(store, 1 << 20), 0, 0);
    assertThatThrownBy(() -> reader.read(STREAM, 5, 4, 10, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> reader.read(STREAM, 0, 4, 0, false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
