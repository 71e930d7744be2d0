package io.picomq.s3stream.core.read;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.RecordBatchHeader;
import io.picomq.s3stream.object.CompositeObjectWriter;
import io.picomq.s3stream.object.EncodedObject;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.StreamRange;
import io.picomq.s3stream.object.WrittenObject;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Builds committed data for read tests the way the write path does: random batches per stream,
 * written into real objects with {@link ObjectWriter} (or linked by a composite object), stored,
 * and listed in a {@link ListObjectManager}. It remembers every batch so reads can be checked.
 */
final class CommittedData {

  /** One batch as appended. */
  record Batch(long streamId, long baseOffset, int count, byte[] payload) {
    long nextOffset() {
      return baseOffset + count;
    }

    int encodedSize() {
      return RecordBatchHeader.SIZE + payload.length;
    }
  }

  final ObjectStore store;
  final ObjectNamespace namespace;
  final ListObjectManager catalog = new ListObjectManager();
  private final Random random;
  private final Map<Long, List<Batch>> appended = new HashMap<>();
  private long nextObjectId = 1;

  CommittedData(ObjectStore store, ObjectNamespace namespace, long seed) {
    this.store = store;
    this.namespace = namespace;
    this.random = new Random(seed);
  }

  /** The next {@code n} batches of the stream: 1 to 4 records, 1 to {@code maxPayloadBytes}. */
  List<Batch> append(long streamId, int n, int maxPayloadBytes) {
    List<Batch> all = appended.computeIfAbsent(streamId, s -> new ArrayList<>());
    List<Batch> added = new ArrayList<>(n);
    long offset = endOffset(streamId);
    for (int i = 0; i < n; i++) {
      byte[] payload = new byte[1 + random.nextInt(maxPayloadBytes)];
      random.nextBytes(payload);
      Batch batch = new Batch(streamId, offset, 1 + random.nextInt(4), payload);
      added.add(batch);
      offset = batch.nextOffset();
    }
    all.addAll(added);
    return added;
  }

  /** Every batch of the stream, in offset order. */
  List<Batch> batches(long streamId) {
    return List.copyOf(appended.getOrDefault(streamId, List.of()));
  }

  long endOffset(long streamId) {
    List<Batch> all = appended.getOrDefault(streamId, List.of());
    return all.isEmpty() ? 0 : all.get(all.size() - 1).nextOffset();
  }

  /** Writes the batches into one object and lists it in the catalog. */
  ObjectMetadata commit(List<Batch> batches, int blockThresholdBytes) {
    long objectId = nextObjectId++;
    WrittenObject written =
        encode(batches, blockThresholdBytes).putTo(store, namespace, objectId).join();
    ObjectMetadata metadata =
        metadata(
            objectId, written.sizeBytes(), written.streamRanges(), written.attributes().value());
    catalog.add(metadata);
    return metadata;
  }

  /**
   * Writes each part as an object of its own, unlisted, then a composite object linking all their
   * blocks, and lists only the composite.
   */
  ObjectMetadata commitComposite(List<List<Batch>> parts, int blockThresholdBytes) {
    CompositeObjectWriter composite = new CompositeObjectWriter(ByteBufAllocator.DEFAULT);
    for (List<Batch> part : parts) {
      long componentId = nextObjectId++;
      EncodedObject encoded = encode(part, blockThresholdBytes);
      composite.addComponent(componentId, encoded.entries());
      encoded.putTo(store, namespace, componentId).join();
    }
    long objectId = nextObjectId++;
    WrittenObject written = composite.upload(store, namespace, objectId).join();
    ObjectMetadata metadata =
        metadata(
            objectId, written.sizeBytes(), written.streamRanges(), written.attributes().value());
    catalog.add(metadata);
    return metadata;
  }

  private static EncodedObject encode(List<Batch> batches, int blockThresholdBytes) {
    ObjectWriter writer = new ObjectWriter(blockThresholdBytes, ByteBufAllocator.DEFAULT);
    List<Batch> sorted =
        batches.stream()
            .sorted(Comparator.comparingLong(Batch::streamId).thenComparing(Batch::baseOffset))
            .toList();
    for (Batch batch : sorted) {
      RecordBatch record =
          new RecordBatch(
              batch.streamId(),
              0,
              batch.baseOffset(),
              batch.count(),
              Unpooled.wrappedBuffer(batch.payload()));
      writer.append(RecordBatchCodec.encode(record, ByteBufAllocator.DEFAULT));
    }
    return writer.finish();
  }

  private static ObjectMetadata metadata(
      long objectId, long sizeBytes, List<StreamRange> ranges, int attributes) {
    List<StreamOffsetRange> offsets =
        ranges.stream()
            .map(r -> new StreamOffsetRange(r.streamId(), r.startOffset(), r.endOffset()))
            .toList();
    ObjectMetadata.ObjectType type =
        offsets.size() == 1
            ? ObjectMetadata.ObjectType.STREAM
            : ObjectMetadata.ObjectType.STREAM_SET;
    return new ObjectMetadata(objectId, type, sizeBytes, offsets, attributes);
  }
}
