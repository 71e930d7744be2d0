package io.picomq.s3stream.core.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.core.blockcache.BlockCache;
import io.picomq.s3stream.core.blockcache.BlockCacheConfig;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the read path promises, against one object store backend (a subclass per backend). The
 * stream under test spans a stream-set object shared with another stream, a stream object, a
 * composite object linking two unlisted objects, and another stream-set object, each of many small
 * blocks over several cache pages.
 */
abstract class StorageReaderContract {

  static final long STREAM = 7;
  static final long OTHER = 8;
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private CommittedData data;
  private BlockCache cache;
  private StorageReader reader;

  /** The store under test, shared by the tests of a class; each test gets its own namespace. */
  protected abstract ObjectStore store();

  @BeforeEach
  void commitObjects() {
    ObjectNamespace namespace = new ObjectNamespace("read" + NAMESPACES.incrementAndGet());
    data = new CommittedData(store(), namespace, 7);
    List<CommittedData.Batch> first = new ArrayList<>(data.append(STREAM, 40, 1500));
    first.addAll(data.append(OTHER, 20, 1500));
    data.commit(first, 2048);
    data.commit(data.append(STREAM, 40, 1500), 2048);
    data.commitComposite(
        List.of(data.append(STREAM, 20, 1500), data.append(STREAM, 20, 1500)), 2048);
    List<CommittedData.Batch> last = new ArrayList<>(data.append(STREAM, 30, 1500));
    last.addAll(data.append(OTHER, 30, 800));
    data.commit(last, 2048);
    cache =
        new BlockCache(
            store(),
            BlockCacheConfig.builder().capacityBytes(256 << 10).pageSizeBytes(4096).build(),
            Clock.systemUTC(),
            ByteBufAllocator.DEFAULT,
            new SimpleMeterRegistry());
    // Two objects per lookup, so that reading on makes the reader ask the catalog again.
    reader =
        new StorageReader(
            data.catalog,
            namespace,
            cache,
            StorageReaderConfig.builder()
                .objectsPerLookup(2)
                .initialReadaheadBytes(8 << 10)
                .maxReadaheadBytes(32 << 10)
                .build(),
            // Readahead in the reading thread: a test sees its GETs as soon as the read is done.
            Runnable::run);
  }

  @AfterEach
  void closeCache() {
    assertThat(cache.stats().usedBytes()).isLessThanOrEqualTo(cache.stats().capacityBytes());
    cache.close();
  }

  /** A batch as seen by a reader, comparable by content. */
  record Seen(long baseOffset, int count, ByteBuffer payload) {
    static Seen of(CommittedData.Batch batch) {
      return new Seen(batch.baseOffset(), batch.count(), ByteBuffer.wrap(batch.payload()));
    }

    static Seen of(FetchedBatch batch) {
      return new Seen(
          batch.baseOffset(),
          batch.count(),
          ByteBuffer.wrap(ByteBufUtil.getBytes(batch.payload())));
    }
  }

  private List<Seen> read(long stream, long start, long end, int maxBytes) throws Exception {
    try (ReadBatches result =
        reader.read(stream, start, end, maxBytes, false).get(30, TimeUnit.SECONDS)) {
      List<Seen> seen = result.batches().stream().map(Seen::of).toList();
      long next =
          seen.isEmpty()
              ? start
              : seen.get(seen.size() - 1).baseOffset() + seen.get(seen.size() - 1).count();
      assertThat(result.nextOffset()).isEqualTo(next);
      return seen;
    }
  }

  /** The batches a read of [start, end) must return when no byte limit applies. */
  private List<Seen> expected(long stream, long start, long end) {
    return data.batches(stream).stream()
        .filter(b -> b.nextOffset() > start && b.baseOffset() < end)
        .map(Seen::of)
        .toList();
  }

  @Test
  void readsEachStreamWholeInChunksOfAnySize() throws Exception {
    for (long stream : new long[] {STREAM, OTHER}) {
      long end = data.endOffset(stream);
      for (int maxBytes : new int[] {1, 5000, 1 << 20}) {
        List<Seen> all = new ArrayList<>();
        long next = 0;
        int reads = 0;
        while (next < end) {
          List<Seen> chunk = read(stream, next, end, maxBytes);
          assertThat(chunk).isNotEmpty();
          assertThat(chunk.get(0).baseOffset()).isEqualTo(next);
          all.addAll(chunk);
          next = chunk.get(chunk.size() - 1).baseOffset() + chunk.get(chunk.size() - 1).count();
          reads++;
        }
        assertThat(all)
            .as("stream %d, maxBytes %d", stream, maxBytes)
            .isEqualTo(expected(stream, 0, end));
        if (maxBytes == 1) {
          assertThat(reads).as("one batch per read").isEqualTo(data.batches(stream).size());
        }
      }
    }
  }

  @Test
  void aReadStartingInsideABatchReturnsThatWholeBatch() throws Exception {
    CommittedData.Batch batch =
        data.batches(STREAM).stream().filter(b -> b.count() > 1).skip(30).findFirst().orElseThrow();
    List<Seen> seen = read(STREAM, batch.baseOffset() + 1, batch.baseOffset() + 2, 1 << 20);
    assertThat(seen).containsExactly(Seen.of(batch));
  }

  @Test
  void arbitraryRangesReturnExactlyTheBatchesHoldingThem() throws Exception {
    Random random = new Random(11);
    long end = data.endOffset(STREAM);
    for (int i = 0; i < 40; i++) {
      long start = random.nextLong(end);
      long stop = start + 1 + random.nextLong(end - start);
      assertThat(read(STREAM, start, stop, 1 << 20))
          .as("[%d, %d)", start, stop)
          .isEqualTo(expected(STREAM, start, stop));
    }
  }

  @Test
  void theByteLimitIsSoftAndStopsAfterTheBatchReachingIt() throws Exception {
    long end = data.endOffset(STREAM);
    for (int maxBytes : new int[] {1, 700, 3000, 20_000, 100_000}) {
      List<Seen> seen = read(STREAM, 5, end, maxBytes);
      List<Seen> all = expected(STREAM, 5, end);
      assertThat(all.subList(0, seen.size())).isEqualTo(seen);
      long bytes = 0;
      for (Seen s : seen) {
        bytes += 33 + s.payload().remaining();
      }
      long withoutLast = bytes - (33 + seen.get(seen.size() - 1).payload().remaining());
      assertThat(withoutLast).as("maxBytes %d", maxBytes).isLessThan(maxBytes);
      if (seen.size() < all.size()) {
        assertThat(bytes).as("maxBytes %d", maxBytes).isGreaterThanOrEqualTo(maxBytes);
      }
    }
  }

  @Test
  void readsUpToTheEndOfTheCommittedStream() throws Exception {
    long end = data.endOffset(STREAM);
    List<CommittedData.Batch> batches = data.batches(STREAM);
    assertThat(read(STREAM, end - 1, end, 1 << 20))
        .containsExactly(Seen.of(batches.get(batches.size() - 1)));
    assertThat(read(STREAM, end - 200, end, 1 << 20)).isEqualTo(expected(STREAM, end - 200, end));
  }

  @Test
  void anEmptyRangeReadsNothing() throws Exception {
    assertThat(read(STREAM, 10, 10, 100)).isEmpty();
  }
}
