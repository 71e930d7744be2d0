package io.picomq.s3stream.conformance.upstream;

import static io.picomq.s3stream.conformance.upstream.CodecVectors.hex;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.walobject.EncodedWalObject;
import io.picomq.s3stream.walobject.RecordPosition;
import io.picomq.s3stream.walobject.TrimMarker;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectContents;
import io.picomq.s3stream.walobject.WalObjectHeader;
import io.picomq.s3stream.walobject.WalObjectKey;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * upstream/wal_objects: one node and epoch writes three records in one object, then persists a trim
 * in a second object holding only a trim marker. Checks the object bytes, keys, and the append
 * results (each record's WAL offset, size and next offset) both ways.
 *
 * <p>The upstream frames a batch's records sorted by (stream id, base offset) and assigns offsets
 * in that order; the manifest lists the records in append order, each with its append result.
 */
class WalObjectsVectorsTest {

  private static final String OBJECT_0 = "wal_object_0";
  private static final String OBJECT_1 = "wal_object_1";

  private final Path folder = CodecVectors.folder("wal_objects");
  private final JsonNode manifest = CodecVectors.json(folder.resolve("manifest.json"));
  private final int nodeId = manifest.get("node_id").asInt();
  private final long epoch = manifest.get("epoch").asLong();
  private final String prefix =
      WalObjectKeys.nodePrefix(manifest.get("cluster_id").asText(), nodeId);

  private List<RecordBatch> records() {
    List<RecordBatch> records = new ArrayList<>();
    for (JsonNode r : manifest.get("records")) {
      records.add(
          new RecordBatch(
              r.get("stream_id").asLong(),
              r.get("epoch").asLong(),
              r.get("base_offset").asLong(),
              r.get("count").asInt(),
              Unpooled.wrappedBuffer(hex(r.get("payload_hex").asText()))));
    }
    return records;
  }

  private List<RecordBatch> uploadOrder() {
    List<RecordBatch> sorted = new ArrayList<>(records());
    sorted.sort(
        Comparator.comparingLong(RecordBatch::streamId).thenComparingLong(RecordBatch::baseOffset));
    return sorted;
  }

  private static ByteBuf encoded(RecordBatch batch) {
    return RecordBatchCodec.encode(batch, Unpooled.buffer().alloc());
  }

  private JsonNode objectEntry(String name) {
    for (JsonNode object : manifest.get("objects")) {
      if (object.get("name").asText().equals(name)) {
        return object;
      }
    }
    throw new AssertionError("no object " + name + " in the manifest");
  }

  private byte[] upstreamBytes(String name) {
    return CodecVectors.read(folder.resolve(name + ".bin"));
  }

  private EncodedWalObject firstObject() {
    List<ByteBuf> bodies = uploadOrder().stream().map(WalObjectsVectorsTest::encoded).toList();
    EncodedWalObject object =
        WalObjectCodec.encode(
            0, nodeId, epoch, WalObjectHeader.V1.NOT_TRIMMED, bodies, Unpooled.buffer().alloc());
    bodies.forEach(ByteBuf::release);
    return object;
  }

  @Test
  void everyBinaryIsDescribed() {
    assertThat(CodecVectors.files(folder, ".bin"))
        .containsExactly(OBJECT_0 + ".bin", OBJECT_1 + ".bin");
    assertThat(manifest.get("objects")).hasSize(2);
  }

  @Test
  void theFirstObjectIsByteForByteTheUpstreams() {
    EncodedWalObject object = firstObject();
    assertThat(hex(CodecVectors.drain(object.bytes()))).isEqualTo(hex(upstreamBytes(OBJECT_0)));
    assertThat(WalObjectKeys.keyV1(prefix, epoch, 0, object.endOffset()))
        .isEqualTo(objectEntry(OBJECT_0).get("path").asText());
  }

  @Test
  void appendResultsAreTheRecordPositions() {
    EncodedWalObject object = firstObject();
    object.bytes().release();
    List<RecordBatch> sorted = uploadOrder();
    List<RecordBatch> appended = records();
    JsonNode results = manifest.get("append_results");
    assertThat(results).hasSize(appended.size());
    for (int i = 0; i < appended.size(); i++) {
      int slot = sorted.indexOf(appended.get(i));
      RecordPosition position = object.records().get(slot);
      boolean lastInObject = slot == sorted.size() - 1;
      long nextOffset = lastInObject ? object.endOffset() : position.nextOffset();
      JsonNode result = results.get(i);
      assertThat(result.get("epoch").asLong()).as("epoch of record %d", i).isEqualTo(epoch);
      assertThat(result.get("offset").asLong())
          .as("offset of record %d", i)
          .isEqualTo(position.offset());
      assertThat(result.get("size").asInt()).as("size of record %d", i).isEqualTo(position.size());
      assertThat(result.get("next_offset").asLong())
          .as("next offset of record %d", i)
          .isEqualTo(nextOffset);
    }
  }

  @Test
  void theTrimIsPersistedAsAMarkerObjectAtTheNextAlignedOffset() {
    EncodedWalObject first = firstObject();
    first.bytes().release();
    long trimOffset = manifest.get("trim_at_offset").asLong();
    ByteBuf marker = encoded(TrimMarker.batch());
    EncodedWalObject trim =
        WalObjectCodec.encode(
            first.endOffset(),
            nodeId,
            epoch,
            trimOffset,
            List.of(marker),
            Unpooled.buffer().alloc());
    marker.release();
    assertThat(hex(CodecVectors.drain(trim.bytes()))).isEqualTo(hex(upstreamBytes(OBJECT_1)));
    assertThat(WalObjectKeys.keyV1(prefix, epoch, first.endOffset(), trim.endOffset()))
        .isEqualTo(objectEntry(OBJECT_1).get("path").asText());
  }

  @Test
  void decodingTheFirstObjectGivesTheRecordsAtTheirOffsets() {
    WalObjectContents contents =
        WalObjectCodec.decode(Unpooled.wrappedBuffer(upstreamBytes(OBJECT_0)));
    try {
      assertThat(contents.complete()).isTrue();
      assertThat(contents.header())
          .isInstanceOfSatisfying(
              WalObjectHeader.V1.class,
              h -> {
                assertThat(h.nodeId()).isEqualTo(nodeId);
                assertThat(h.nodeEpoch()).isEqualTo(epoch);
                assertThat(h.trimOffset()).isEqualTo(WalObjectHeader.V1.NOT_TRIMMED);
              });
      List<RecordBatch> decoded = new ArrayList<>();
      for (WalRecord.Data data : contents.records()) {
        decoded.add(RecordBatchCodec.decode(data.body().duplicate()));
      }
      assertThat(decoded).containsExactlyElementsOf(uploadOrder());
      decoded.forEach(RecordBatch::release);

      List<Long> offsets = new ArrayList<>();
      manifest.get("append_results").forEach(r -> offsets.add(r.get("offset").asLong()));
      assertThat(contents.records())
          .extracting(r -> r.header().recordOffset())
          .containsExactlyInAnyOrderElementsOf(offsets);
    } finally {
      contents.release();
    }
  }

  @Test
  void decodingTheTrimObjectGivesTheTrimOffsetAndOnlyAMarker() {
    WalObjectContents contents =
        WalObjectCodec.decode(Unpooled.wrappedBuffer(upstreamBytes(OBJECT_1)));
    try {
      assertThat(contents.complete()).isTrue();
      assertThat(((WalObjectHeader.V1) contents.header()).trimOffset())
          .isEqualTo(manifest.get("trim_at_offset").asLong());
      assertThat(contents.records())
          .singleElement()
          .satisfies(
              r -> assertThat(TrimMarker.is(RecordBatchCodec.readHeader(r.body(), 0))).isTrue());
    } finally {
      contents.release();
    }
  }

  @Test
  void theObjectKeysParseBackToTheirRanges() {
    long previousEnd = 0;
    for (JsonNode object : manifest.get("objects")) {
      String path = object.get("path").asText();
      WalObjectKey key = WalObjectKeys.parse(prefix, path).orElseThrow();
      assertThat(key).isInstanceOf(WalObjectKey.V1.class);
      assertThat(key.epoch()).isEqualTo(epoch);
      assertThat(key.startOffset()).as("objects are contiguous").isEqualTo(previousEnd);
      WalObjectHeader header =
          WalObjectCodec.readHeader(
              Unpooled.wrappedBuffer(upstreamBytes(object.get("name").asText())), 0);
      assertThat(header.startOffset()).isEqualTo(key.startOffset());
      assertThat(WalObjectCodec.endOffset(header.startOffset(), header.bodyLength()))
          .isEqualTo(key.endOffset(0));
      previousEnd = key.endOffset(0);
    }
  }
}
