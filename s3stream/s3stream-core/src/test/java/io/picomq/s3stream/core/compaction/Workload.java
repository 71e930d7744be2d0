package io.picomq.s3stream.core.compaction;

import static io.picomq.s3stream.core.compaction.Futures.join;

import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.object.BlockLocation;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReadResult;
import io.picomq.s3stream.object.ObjectReader;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.StreamRange;
import io.picomq.s3stream.object.WrittenObject;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Writes streams into objects the way uploads do, commits them to a {@link TestCatalog}, remembers
 * every batch written, and reads streams back through the catalog, as a reader would.
 */
final class Workload {

  static final ObjectNamespace NAMESPACE = ObjectNamespace.DEFAULT;

  private final ObjectStore store;
  private final TestCatalog catalog;
  private final ByteBufAllocator allocator;
  private final Random random;
  private final int blockThresholdBytes;
  private final Map<Long, List<TestBatch>> written = new TreeMap<>();
  private final Map<Long, Long> nextOffsets = new HashMap<>();

  /**
   * @param blockThresholdBytes small, so the uploads hold several blocks per stream
   */
  Workload(
      ObjectStore store,
      TestCatalog catalog,
      ByteBufAllocator allocator,
      long seed,
      int blockThresholdBytes) {
    this.store = store;
    this.catalog = catalog;
    this.allocator = allocator;
    this.random = new Random(seed);
    this.blockThresholdBytes = blockThresholdBytes;
  }

  /**
   * Writes and commits one stream-set object holding, for each stream of {@code batchesPerStream},
   * that many new batches.
   *
   * @return its object id
   */
  long upload(Map<Long, Integer> batchesPerStream) {
    ObjectWriter writer = new ObjectWriter(blockThresholdBytes, allocator);
    new TreeMap<>(batchesPerStream)
        .forEach(
            (streamId, count) -> {
              for (int i = 0; i < count; i++) {
                writer.append(nextBatch(streamId).encode(allocator));
              }
            });
    long objectId = join(catalog.prepareObjects(1, Duration.ofMinutes(1)));
    WrittenObject object = join(writer.upload(store, NAMESPACE, objectId));
    join(
        catalog.commitStreamSetObject(
            new CommitStreamSetObjectRequest(
                objectId, objectId, object.sizeBytes(), ranges(object), List.of(), List.of())));
    return objectId;
  }

  /** Writes and commits one stream object of {@code count} new batches of the stream. */
  long uploadStreamObject(long streamId, int count) {
    ObjectWriter writer = new ObjectWriter(blockThresholdBytes, allocator);
    for (int i = 0; i < count; i++) {
      writer.append(nextBatch(streamId).encode(allocator));
    }
    long objectId = join(catalog.prepareObjects(1, Duration.ofMinutes(1)));
    WrittenObject object = join(writer.upload(store, NAMESPACE, objectId));
    join(
        catalog.commitStreamSetObject(
            new CommitStreamSetObjectRequest(
                -1,
                objectId,
                0,
                List.of(),
                List.of(StreamSetObjectCompactor.asStreamObject(object)),
                List.of())));
    return objectId;
  }

  /** Every batch written to the stream, in offset order. */
  List<TestBatch> written(long streamId) {
    return List.copyOf(written.getOrDefault(streamId, List.of()));
  }

  /** What a reader must get from {@code startOffset}: the written batches ending after it. */
  List<TestBatch> expected(long streamId, long startOffset) {
    return written(streamId).stream().filter(b -> b.lastOffset() > startOffset).toList();
  }

  /** The stream's next offset: the end of what was written. */
  long endOffset(long streamId) {
    return nextOffsets.getOrDefault(streamId, 0L);
  }

  /**
   * Reads the stream from {@code from} to its end through the catalog: at each offset, the object
   * whose range holds it. Fails on a gap or a read that makes no progress.
   */
  List<TestBatch> read(long streamId, long from) {
    List<TestBatch> out = new ArrayList<>();
    long offset = from;
    while (offset < endOffset(streamId)) {
      ObjectMetadata holder = holderOf(streamId, offset);
      ObjectReader reader =
          join(ObjectReader.open(store, NAMESPACE, holder.objectId(), holder.sizeBytes()));
      ObjectReadResult result =
          join(reader.read(streamId, offset, Long.MAX_VALUE, Integer.MAX_VALUE));
      out.addAll(TestBatch.consume(result.batches()));
      if (result.nextOffset() <= offset) {
        throw new AssertionError(
            "object "
                + holder.objectId()
                + " claims offset "
                + offset
                + " but holds nothing there");
      }
      offset = result.nextOffset();
    }
    return out;
  }

  /** Every batch of every block of the object. */
  List<TestBatch> scan(ObjectMetadata object) {
    ObjectReader reader =
        join(ObjectReader.open(store, NAMESPACE, object.objectId(), object.sizeBytes()));
    List<BlockLocation> all =
        IntStream.range(0, reader.index().entries().size())
            .mapToObj(reader.index()::locate)
            .toList();
    return TestBatch.consume(join(reader.readBlocks(all)));
  }

  private ObjectMetadata holderOf(long streamId, long offset) {
    for (ObjectMetadata object : join(catalog.getObjects(streamId, offset, -1, 1000))) {
      for (StreamOffsetRange range : object.ranges()) {
        if (range.streamId() == streamId
            && range.startOffset() <= offset
            && offset < range.endOffset()) {
          return object;
        }
      }
    }
    throw new AssertionError("no committed object holds offset " + offset + " of " + streamId);
  }

  private TestBatch nextBatch(long streamId) {
    long base = nextOffsets.getOrDefault(streamId, 0L);
    int count = 1 + random.nextInt(5);
    StringBuilder payload = new StringBuilder("s" + streamId + "@" + base + ":");
    int length = 10 + random.nextInt(120);
    for (int i = 0; i < length; i++) {
      payload.append((char) ('a' + random.nextInt(26)));
    }
    TestBatch batch = new TestBatch(streamId, 3, base, count, payload.toString());
    nextOffsets.put(streamId, base + count);
    written.computeIfAbsent(streamId, s -> new ArrayList<>()).add(batch);
    return batch;
  }

  private static List<StreamOffsetRange> ranges(WrittenObject object) {
    List<StreamOffsetRange> ranges = new ArrayList<>();
    for (StreamRange range : object.streamRanges()) {
      ranges.add(new StreamOffsetRange(range.streamId(), range.startOffset(), range.endOffset()));
    }
    return ranges;
  }
}
