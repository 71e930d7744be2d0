package io.picomq.s3stream.conformance.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.object.BlockLocation;
import io.picomq.s3stream.object.EncodedObject;
import io.picomq.s3stream.object.IndexEntry;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReadResult;
import io.picomq.s3stream.object.ObjectReader;
import io.picomq.s3stream.object.ObjectType;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.StreamRange;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * upstream/object/: whole data objects. We decode the upstream's bytes into the manifest's records
 * and ranges, and encode the manifest's inputs into the upstream's exact bytes.
 */
class ObjectVectorsTest {

  /** One manifest record, as a comparable value (payload in hex). */
  record Batch(long streamId, long epoch, long baseOffset, int count, String payloadHex) {

    static Batch of(JsonNode r) {
      return new Batch(
          r.get("stream_id").asLong(),
          r.get("epoch").asLong(),
          r.get("base_offset").asLong(),
          r.get("count").asInt(),
          r.get("payload_hex").asText());
    }

    static Batch of(RecordBatch b) {
      byte[] payload = new byte[b.payload().readableBytes()];
      b.payload().getBytes(b.payload().readerIndex(), payload);
      return new Batch(
          b.streamId(), b.epoch(), b.baseOffset(), b.count(), CodecVectors.hex(payload));
    }

    long lastOffset() {
      return count < 0 ? baseOffset - count : baseOffset + count;
    }

    int payloadLength() {
      return payloadHex.length() / 2;
    }

    ByteBuf encode() {
      ByteBuf payload = Unpooled.wrappedBuffer(CodecVectors.hex(payloadHex));
      try {
        return RecordBatchCodec.encode(
            new RecordBatch(streamId, epoch, baseOffset, count, payload),
            UnpooledByteBufAllocator.DEFAULT);
      } finally {
        payload.release();
      }
    }
  }

  /** A stream range as the manifest states it (without the size, which it does not give). */
  record Range(long streamId, long startOffset, long endOffset) {}

  private static List<JsonNode> manifest() {
    List<JsonNode> entries = new ArrayList<>();
    CodecVectors.json(CodecVectors.folder("object").resolve("manifest.json")).forEach(entries::add);
    return entries;
  }

  private static List<Batch> records(JsonNode entry) {
    List<Batch> batches = new ArrayList<>();
    entry.get("records").forEach(r -> batches.add(Batch.of(r)));
    return batches;
  }

  private static List<Range> ranges(JsonNode entry) {
    List<Range> ranges = new ArrayList<>();
    entry
        .get("stream_ranges")
        .forEach(
            r ->
                ranges.add(
                    new Range(
                        r.get("stream_id").asLong(),
                        r.get("start_offset").asLong(),
                        r.get("end_offset").asLong())));
    return ranges;
  }

  private static List<Range> ranges(List<StreamRange> ours) {
    return ours.stream().map(r -> new Range(r.streamId(), r.startOffset(), r.endOffset())).toList();
  }

  /**
   * The index the upstream must have written for these inputs, worked out here from its published
   * rule rather than by our writer: one block per stream run, cut after the batch whose payload
   * brings the running total to the threshold (the total resets only at such a cut); blocks tile
   * the object from position 0; a block is a 10-byte header plus 33 bytes and the payload per
   * batch.
   */
  private static List<IndexEntry> expectedIndex(List<Batch> batches, int threshold) {
    List<IndexEntry> entries = new ArrayList<>();
    List<Batch> block = new ArrayList<>();
    long total = 0;
    long position = 0;
    for (int i = 0; i < batches.size(); i++) {
      Batch batch = batches.get(i);
      block.add(batch);
      total += batch.payloadLength();
      boolean streamEnds =
          i + 1 == batches.size() || batches.get(i + 1).streamId() != batch.streamId();
      boolean cut = total >= threshold;
      if (cut) {
        total = 0;
      }
      if (cut || streamEnds) {
        int size = 10 + block.stream().mapToInt(b -> 33 + b.payloadLength()).sum();
        long start = block.get(0).baseOffset();
        long end = block.get(block.size() - 1).lastOffset();
        entries.add(
            new IndexEntry(
                batch.streamId(), start, (int) (end - start), block.size(), position, size));
        position += size;
        block.clear();
      }
    }
    return entries;
  }

  @Test
  void theVectorsCoverOneAndManyBlocksAndStreams() {
    assertThat(manifest())
        .extracting(e -> e.get("name").asText())
        .contains("single_stream_one_block", "single_stream_block_per_record", "multi_stream");
  }

  /** No object goes unchecked: each {@code .bin} is a manifest entry, and each entry a file. */
  @Test
  void everyBinaryHasAManifestEntry() {
    List<String> named =
        manifest().stream().map(e -> e.get("name").asText() + ".bin").sorted().toList();
    assertThat(CodecVectors.files(CodecVectors.folder("object"), ".bin"))
        .isNotEmpty()
        .isEqualTo(named);
  }

  @TestFactory
  Stream<DynamicTest> decodeTheirs() {
    Path folder = CodecVectors.folder("object");
    return manifest().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("name").asText(),
                    () -> {
                      byte[] bytes =
                          CodecVectors.read(folder.resolve(entry.get("name").asText() + ".bin"));
                      long objectId = entry.get("object_id").asLong();
                      List<Batch> records = records(entry);
                      assertThat(bytes).hasSize(entry.get("size").asInt());

                      try (MemoryObjectStore store = new MemoryObjectStore()) {
                        ByteBuf put = Unpooled.wrappedBuffer(bytes);
                        store.put(ObjectNamespace.DEFAULT.key(objectId), put).join();
                        put.release();
                        ObjectReader reader =
                            ObjectReader.open(
                                    store, ObjectNamespace.DEFAULT, objectId, bytes.length)
                                .join();

                        assertThat(reader.index().type()).isEqualTo(ObjectType.NORMAL);
                        assertThat(reader.index().entries())
                            .isEqualTo(
                                expectedIndex(records, entry.get("block_size_threshold").asInt()));
                        assertThat(ranges(StreamRange.of(reader.index().entries())))
                            .isEqualTo(ranges(entry));

                        List<BlockLocation> all =
                            IntStream.range(0, reader.index().entries().size())
                                .mapToObj(reader.index()::locate)
                                .toList();
                        List<RecordBatch> decoded = reader.readBlocks(all).join();
                        assertThat(decoded.stream().map(Batch::of).toList()).isEqualTo(records);
                        decoded.forEach(RecordBatch::release);

                        for (Range range : ranges(entry)) {
                          ObjectReadResult result =
                              reader
                                  .read(
                                      range.streamId(),
                                      range.startOffset(),
                                      range.endOffset(),
                                      Integer.MAX_VALUE)
                                  .join();
                          assertThat(result.nextOffset()).isEqualTo(range.endOffset());
                          assertThat(result.batches().stream().map(Batch::of).toList())
                              .isEqualTo(
                                  records.stream()
                                      .filter(r -> r.streamId() == range.streamId())
                                      .toList());
                          result.release();
                        }
                      }
                    }));
  }

  @TestFactory
  Stream<DynamicTest> encodeTheirs() {
    Path folder = CodecVectors.folder("object");
    return manifest().stream()
        .map(
            entry ->
                DynamicTest.dynamicTest(
                    entry.get("name").asText(),
                    () -> {
                      byte[] expected =
                          CodecVectors.read(folder.resolve(entry.get("name").asText() + ".bin"));
                      ObjectWriter writer =
                          new ObjectWriter(
                              entry.get("block_size_threshold").asInt(),
                              UnpooledByteBufAllocator.DEFAULT);
                      records(entry).forEach(batch -> writer.append(batch.encode()));
                      EncodedObject object = writer.finish();
                      List<StreamRange> streamRanges = object.streamRanges();
                      byte[] ours = CodecVectors.drain(object.bytes());

                      assertThat(CodecVectors.hex(ours)).isEqualTo(CodecVectors.hex(expected));
                      assertThat(ranges(streamRanges)).isEqualTo(ranges(entry));
                    }));
  }
}
