package io.picomq.s3stream.core.blockcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BlockCacheTest {

  private static final int PAGE = 1024;

  /** Instrumented: every byte from the store, in a page or handed to a reader, is counted here. */
  private final UnpooledByteBufAllocator memory = new UnpooledByteBufAllocator(false);

  private final MemoryObjectStore backing = new MemoryObjectStore();
  private final CountingObjectStore store = new CountingObjectStore(backing, memory);
  private final FakeClock clock = new FakeClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Random random = new Random(42);
  private BlockCache cache;

  @BeforeAll
  static void paranoidLeakDetection() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  /** Checked after every test: the accounting is within the limit and matches real memory. */
  @AfterEach
  void accountingMatchesMemory() {
    if (cache == null) {
      return;
    }
    BlockCacheStats stats = cache.stats();
    assertThat(stats.usedBytes()).isLessThanOrEqualTo(stats.capacityBytes());
    assertThat(stats.loadingPages()).as("loads still in flight").isZero();
    assertThat(memory.metric().usedHeapMemory())
        .as("bytes still referenced, all of them resident pages")
        .isEqualTo(stats.residentBytes());
    assertThat(registry.get("s3stream.blockcache.bytes").gauge().value())
        .isEqualTo((double) stats.usedBytes());
    cache.close();
    assertThat(memory.metric().usedHeapMemory()).as("bytes leaked after close").isZero();
  }

  private BlockCache newCache(long capacityBytes, Duration ttl) {
    return newCache(
        BlockCacheConfig.builder()
            .capacityBytes(capacityBytes)
            .pageSizeBytes(PAGE)
            .ttl(ttl)
            .build());
  }

  private BlockCache newCache(BlockCacheConfig config) {
    cache = new BlockCache(store, config, clock, memory, registry);
    return cache;
  }

  private byte[] putObject(String key, int sizeBytes) {
    byte[] bytes = new byte[sizeBytes];
    random.nextBytes(bytes);
    backing.put(key, Unpooled.wrappedBuffer(bytes)).join();
    return bytes;
  }

  /** Reads through the cache and returns the bytes, releasing the buffer. */
  private static byte[] read(BlockCache cache, String key, long size, long start, long end) {
    return bytesOf(cache.read(key, size, start, end).join().bytes());
  }

  private static byte[] bytesOf(ByteBuf buf) {
    try {
      return ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  private double counter(String name) {
    return registry.get("s3stream.blockcache." + name).counter().count();
  }

  @Test
  void servesExactRangesAndFetchesConsecutiveMissingPagesWithOneGet() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 10_000);

    assertThat(read(cache, "a", 10_000, 0, 10_000)).isEqualTo(object);
    assertThat(store.gets()).containsExactly(new CountingObjectStore.Get("a", 0, 10_000));

    long[][] ranges = {{1000, 1030}, {1023, 1024}, {1024, 1025}, {9990, 10_000}, {0, 1}, {5, 5}};
    for (long[] r : ranges) {
      assertThat(read(cache, "a", 10_000, r[0], r[1]))
          .as("[%d, %d)", r[0], r[1])
          .isEqualTo(Arrays.copyOfRange(object, (int) r[0], (int) r[1]));
    }
    assertThat(store.getCount()).as("every later read is served from pages").isEqualTo(1);
    assertThat(counter("gets")).isEqualTo(1);
    assertThat(counter("misses")).isEqualTo(10);
    assertThat(cache.stats().residentPages()).isEqualTo(10);
    assertThat(cache.stats().residentBytes()).isEqualTo(10_000);
  }

  @Test
  void readReportsWhetherItTouchedStorage() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    putObject("a", 3000);
    RangeBytes cold = cache.read("a", 3000, 0, 100).join();
    RangeBytes warm = cache.read("a", 3000, 0, 100).join();
    cold.bytes().release();
    warm.bytes().release();
    assertThat(cold.touchedStorage()).isTrue();
    assertThat(warm.touchedStorage()).isFalse();
  }

  @Test
  void rangePastTheEndFailsAsTheStoreWould() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 10_000);

    assertThatThrownBy(() -> cache.read("a", 10_000, 9000, 10_001).join())
        .hasCauseInstanceOf(ObjectStoreException.class)
        .cause()
        .satisfies(e -> assertThat(((ObjectStoreException) e).kind()).isEqualTo(invalid()));
    assertThat(store.getCount()).as("a known size rejects it without a GET").isZero();

    // Size unknown (a composite object's component): the last page is found by a failed GET.
    assertThat(read(cache, "a", -1, 9000, 10_000))
        .isEqualTo(Arrays.copyOfRange(object, 9000, 10_000));
    assertThat(store.gets())
        .containsExactly(
            new CountingObjectStore.Get("a", 8 * PAGE, 10 * PAGE),
            new CountingObjectStore.Get("a", 8 * PAGE, -1));
    assertThatThrownBy(() -> cache.read("a", -1, 9000, 10_001).join())
        .cause()
        .satisfies(e -> assertThat(((ObjectStoreException) e).kind()).isEqualTo(invalid()));
    assertThat(store.getCount()).as("the short last page is cached").isEqualTo(2);
  }

  private static ObjectStoreException.Kind invalid() {
    return ObjectStoreException.Kind.INVALID_ARGUMENT;
  }

  @Test
  void concurrentReadersOfOneColdPageShareOneGet() throws Exception {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 5000);
    store.pause();
    int readers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<CompletableFuture<RangeBytes>>> started = new ArrayList<>();
      for (int i = 0; i < readers; i++) {
        int offset = i;
        started.add(pool.submit(() -> cache.read("a", 5000, 1024 + offset, 1100 + offset)));
      }
      List<CompletableFuture<RangeBytes>> reads = new ArrayList<>();
      for (Future<CompletableFuture<RangeBytes>> f : started) {
        reads.add(f.get(10, TimeUnit.SECONDS));
      }
      assertThat(store.heldCount()).isEqualTo(1);
      assertThat(reads).noneMatch(CompletableFuture::isDone);
      store.resume();
      for (int i = 0; i < readers; i++) {
        assertThat(bytesOf(reads.get(i).get(10, TimeUnit.SECONDS).bytes()))
            .isEqualTo(Arrays.copyOfRange(object, 1024 + i, 1100 + i));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.getCount()).isEqualTo(1);
    assertThat(counter("misses")).isEqualTo(readers);
  }

  @Test
  void evictsTheLeastRecentlyReadPageFirst() {
    BlockCache cache = newCache(4 * PAGE, Duration.ofMinutes(1));
    putObject("a", 8 * PAGE);
    for (int page = 0; page < 4; page++) {
      read(cache, "a", 8 * PAGE, page * PAGE, page * PAGE + 1);
    }
    read(cache, "a", 8 * PAGE, 0, 1); // page 0 is now the most recently read
    read(cache, "a", 8 * PAGE, 4 * PAGE, 4 * PAGE + 1); // evicts page 1
    assertThat(store.getCount()).isEqualTo(5);

    read(cache, "a", 8 * PAGE, 0, 1);
    assertThat(store.getCount()).as("page 0 stayed").isEqualTo(5);
    read(cache, "a", 8 * PAGE, PAGE, PAGE + 1);
    assertThat(store.getCount()).as("page 1 was evicted").isEqualTo(6);
    assertThat(registry.get("s3stream.blockcache.evictions").tag("cause", "size").counter().count())
        .isEqualTo(2);
    assertThat(cache.stats().usedBytes()).isEqualTo(4 * PAGE);
  }

  @Test
  void pagesNotReadWithinTheTtlAreDropped() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofSeconds(10));
    putObject("a", 3 * PAGE);
    read(cache, "a", 3 * PAGE, 0, 10);
    clock.advance(Duration.ofSeconds(9));
    read(cache, "a", 3 * PAGE, 0, 10);
    clock.advance(Duration.ofSeconds(9));
    read(cache, "a", 3 * PAGE, 0, 10);
    assertThat(store.getCount()).as("each read renewed the page").isEqualTo(1);

    clock.advance(Duration.ofSeconds(10));
    read(cache, "a", 3 * PAGE, 0, 10);
    assertThat(store.getCount()).as("idle for the whole TTL").isEqualTo(2);

    read(cache, "a", 3 * PAGE, 2 * PAGE, 2 * PAGE + 1);
    clock.advance(Duration.ofSeconds(11));
    cache.cleanUp();
    assertThat(cache.stats().residentPages()).isZero();
    assertThat(cache.stats().usedBytes()).isZero();
    assertThat(registry.get("s3stream.blockcache.evictions").tag("cause", "ttl").counter().count())
        .isEqualTo(3);
  }

  @Test
  void pagesInFlightCountAgainstTheLimit() {
    BlockCache cache = newCache(4 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 8 * PAGE);
    store.pause();
    List<CompletableFuture<RangeBytes>> reads = new ArrayList<>();
    for (int page = 0; page < 6; page++) {
      reads.add(cache.read("a", 8 * PAGE, page * PAGE, page * PAGE + 100));
      assertThat(cache.stats().usedBytes()).isLessThanOrEqualTo(4 * PAGE);
    }
    assertThat(cache.stats().loadingPages()).isEqualTo(4);
    assertThat(store.heldCount()).as("the two that did not fit are read uncached").isEqualTo(6);

    cache.prefetch("a", 8 * PAGE, 7 * PAGE, 8 * PAGE);
    assertThat(store.heldCount()).as("no room: the prefetch is skipped").isEqualTo(6);

    store.resume();
    for (int page = 0; page < 6; page++) {
      assertThat(bytesOf(reads.get(page).join().bytes()))
          .isEqualTo(Arrays.copyOfRange(object, page * PAGE, page * PAGE + 100));
    }
    assertThat(cache.stats().residentPages()).isEqualTo(4);
    assertThat(cache.stats().usedBytes()).isEqualTo(4 * PAGE);
  }

  @Test
  void readCachedNeverTouchesStorage() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 3 * PAGE);
    assertThat(cache.readCached("a", 0, 2 * PAGE)).isEmpty();
    assertThat(store.getCount()).isZero();

    read(cache, "a", 3 * PAGE, 0, PAGE);
    assertThat(cache.readCached("a", 0, 2 * PAGE)).as("page 1 is still missing").isEmpty();
    Optional<ByteBuf> cached = cache.readCached("a", 10, PAGE);
    assertThat(cached).isPresent();
    assertThat(bytesOf(cached.get())).isEqualTo(Arrays.copyOfRange(object, 10, PAGE));
    assertThat(store.getCount()).isEqualTo(1);
  }

  @Test
  void prefetchLoadsPagesAheadWithOneGet() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 10 * PAGE);
    cache.prefetch("a", 10 * PAGE, 2 * PAGE, 7 * PAGE + 5);
    assertThat(store.gets()).containsExactly(new CountingObjectStore.Get("a", 2 * PAGE, 8 * PAGE));
    assertThat(read(cache, "a", 10 * PAGE, 3 * PAGE, 8 * PAGE))
        .isEqualTo(Arrays.copyOfRange(object, 3 * PAGE, 8 * PAGE));
    cache.prefetch("a", 10 * PAGE, 2 * PAGE, 9 * PAGE);
    assertThat(store.gets())
        .as("only the pages not yet held")
        .endsWith(new CountingObjectStore.Get("a", 8 * PAGE, 9 * PAGE));
    assertThat(store.getCount()).isEqualTo(2);
    assertThat(counter("readahead.bytes")).isEqualTo(7 * PAGE);
  }

  @Test
  void invalidateDropsThePagesOfOneObject() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    putObject("a", 2 * PAGE);
    putObject("b", 2 * PAGE);
    read(cache, "a", 2 * PAGE, 0, 2 * PAGE);
    read(cache, "b", 2 * PAGE, 0, 2 * PAGE);
    cache.invalidate("a");
    assertThat(cache.stats().residentPages()).isEqualTo(2);
    read(cache, "b", 2 * PAGE, 0, 2 * PAGE);
    read(cache, "a", 2 * PAGE, 0, 2 * PAGE);
    assertThat(store.getCount()).isEqualTo(3);
  }

  @Test
  void failedGetsReachEveryWaiterAndAreNotCached() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    CompletableFuture<RangeBytes> missing = cache.read("nope", 2 * PAGE, 0, 10);
    assertThatThrownBy(missing::join).isInstanceOf(CompletionException.class);
    assertThat(cache.stats().usedBytes()).isZero();
    assertThat(cache.stats().loadingPages()).isZero();
  }

  @Test
  void closedCacheRefusesReads() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    putObject("a", PAGE);
    read(cache, "a", PAGE, 0, PAGE);
    cache.close();
    assertThat(cache.stats().usedBytes()).isZero();
    assertThatThrownBy(() -> cache.read("a", PAGE, 0, 1).join())
        .cause()
        .satisfies(
            e ->
                assertThat(((ObjectStoreException) e).kind())
                    .isEqualTo(ObjectStoreException.Kind.CLOSED));
  }

  @Test
  void configRejectsASettingMadeTwiceAndBadValues() {
    assertThatThrownBy(() -> BlockCacheConfig.builder().pageSizeBytes(1).pageSizeBytes(2))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> BlockCacheConfig.builder().capacityBytes(10).pageSizeBytes(11).build())
        .isInstanceOf(IllegalArgumentException.class);
    BlockCacheConfig derived = BlockCacheConfig.DEFAULT.newBuilder().capacityBytes(1 << 24).build();
    assertThat(derived.capacityBytes()).isEqualTo(1 << 24);
    assertThat(derived.pageSizeBytes()).isEqualTo(BlockCacheConfig.DEFAULT_PAGE_SIZE_BYTES);
  }

  @Test
  void aGetIsChargedWholeUntilItsLastPageLeaves() {
    BlockCache cache = newCache(6 * PAGE, Duration.ofMinutes(1));
    putObject("a", 4 * PAGE);
    byte[] b = putObject("b", 3 * PAGE);
    read(cache, "a", 4 * PAGE, 0, 4 * PAGE); // one GET, four pages
    read(cache, "b", 3 * PAGE, 0, 1);
    read(cache, "b", 3 * PAGE, PAGE, PAGE + 1);
    assertThat(cache.stats().usedBytes()).isEqualTo(6 * PAGE);

    // One page of room is needed, but a's memory is freed only with its last page.
    assertThat(read(cache, "b", 3 * PAGE, 2 * PAGE, 3 * PAGE))
        .isEqualTo(Arrays.copyOfRange(b, 2 * PAGE, 3 * PAGE));
    assertThat(cache.stats().residentPages()).isEqualTo(3);
    assertThat(cache.stats().usedBytes()).isEqualTo(3 * PAGE);
    assertThat(memory.metric().usedHeapMemory()).isEqualTo(3 * PAGE);
  }

  @Test
  void longStretchesAreFetchedInGetsOfAtMostMaxGetBytes() {
    BlockCache cache =
        newCache(
            BlockCacheConfig.builder()
                .capacityBytes(64 * PAGE)
                .pageSizeBytes(PAGE)
                .maxGetBytes(2 * PAGE)
                .build());
    byte[] object = putObject("a", 5 * PAGE - 10);
    assertThat(read(cache, "a", object.length, 100, object.length))
        .isEqualTo(Arrays.copyOfRange(object, 100, object.length));
    assertThat(store.gets())
        .containsExactly(
            new CountingObjectStore.Get("a", 0, 2 * PAGE),
            new CountingObjectStore.Get("a", 2 * PAGE, 4 * PAGE),
            new CountingObjectStore.Get("a", 4 * PAGE, object.length));
    // A range spanning several GETs' buffers is joined without a copy, and reads back exactly.
    assertThat(read(cache, "a", object.length, PAGE + 7, 4 * PAGE + 3))
        .isEqualTo(Arrays.copyOfRange(object, PAGE + 7, 4 * PAGE + 3));
  }

  @Test
  void aLoadWhosePagesWereInvalidatedMeanwhileCachesNothing() {
    BlockCache cache = newCache(64 * PAGE, Duration.ofMinutes(1));
    byte[] object = putObject("a", 2 * PAGE);
    store.pause();
    CompletableFuture<RangeBytes> read = cache.read("a", 2 * PAGE, 0, 2 * PAGE);
    cache.invalidate("a");
    assertThat(cache.stats().usedBytes()).isZero();
    store.resume();
    assertThat(bytesOf(read.join().bytes())).isEqualTo(object);
    assertThat(cache.stats().residentPages()).isZero();
    assertThat(cache.stats().usedBytes()).isZero();
  }

  @Test
  void readerBytesOutliveAnEvictionUntilReleased() {
    BlockCache cache = newCache(PAGE, Duration.ofMinutes(1));
    byte[] a = putObject("a", PAGE);
    putObject("b", PAGE);
    ByteBuf held = cache.read("a", PAGE, 0, PAGE).join().bytes();
    read(cache, "b", PAGE, 0, PAGE); // evicts a
    assertThat(cache.stats().usedBytes()).isEqualTo(PAGE);
    assertThat(memory.metric().usedHeapMemory())
        .as("a's page lives on in the reader")
        .isEqualTo(2 * PAGE);
    assertThat(bytesOf(held)).isEqualTo(a);
  }
}
