package io.picomq.s3stream.conformance;

import static io.picomq.s3stream.conformance.CodecFixtures.ascii;
import static io.picomq.s3stream.conformance.CodecFixtures.check;
import static io.picomq.s3stream.conformance.CodecFixtures.drain;
import static io.picomq.s3stream.conformance.CodecFixtures.hex;
import static io.picomq.s3stream.conformance.CodecFixtures.pattern;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.WalRecordCodec;
import io.picomq.s3stream.walobject.EncodedWalObject;
import io.picomq.s3stream.walobject.NodeRangeIndex;
import io.picomq.s3stream.walobject.RangeIndexCodec;
import io.picomq.s3stream.walobject.RangeIndexEntry;
import io.picomq.s3stream.walobject.RecordPosition;
import io.picomq.s3stream.walobject.TrimMarker;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectContents;
import io.picomq.s3stream.walobject.WalObjectHeader;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Golden files of the WAL object formats (specification: wal-object.md):
 *
 * <ul>
 *   <li>{@code wal_object/}: object headers, v0 and v1 (trimmed, never trimmed, extreme values);
 *   <li>{@code wal_objects/}: whole objects of one node and epoch: several records framed in upload
 *       order, the trim-marker object that follows, and a legacy v0 object;
 *   <li>{@code wal_keys/manifest.json}: node prefixes (with and without a WAL type), v0 and v1
 *       keys, and keys the parser must reject;
 *   <li>{@code range_index/}: a serialized range index and index object keys.
 * </ul>
 *
 * Every encoded object is decoded again before it is returned (see {@link CodecFixtures}).
 */
public final class WalObjectFixtures implements FixtureSet {

  private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
  private static final String CLUSTER = "cluster-a";
  private static final int NODE = 1;
  private static final long EPOCH = 3;

  @Override
  public List<Fixture> fixtures() {
    List<Fixture> fixtures = new ArrayList<>();
    fixtures.addAll(headers());
    fixtures.addAll(objects());
    fixtures.add(keys());
    fixtures.addAll(rangeIndex());
    return fixtures;
  }

  private static List<Fixture> headers() {
    Map<String, WalObjectHeader> headers = new LinkedHashMap<>();
    headers.put("header_v0", new WalObjectHeader.V0(4096, 1000, 0, 3, 9));
    headers.put("header_v1", new WalObjectHeader.V1(8192, 2000, 0, 4, 11, 4096));
    headers.put(
        "header_v1_not_trimmed",
        new WalObjectHeader.V1(0, 57, 0, 1, 3, WalObjectHeader.V1.NOT_TRIMMED));
    headers.put(
        "header_v1_max_values",
        new WalObjectHeader.V1(
            Long.MAX_VALUE, Long.MAX_VALUE, 0, -1, Long.MAX_VALUE, Long.MAX_VALUE));
    List<Fixture> fixtures = new ArrayList<>();
    List<Map<String, Object>> manifest = new ArrayList<>();
    headers.forEach(
        (name, header) -> {
          ByteBuf out = Unpooled.buffer();
          WalObjectCodec.writeHeader(header, out);
          byte[] bytes = drain(out);
          check(
              WalObjectCodec.readHeader(Unpooled.wrappedBuffer(bytes), 0).equals(header),
              "wal_object/" + name);
          fixtures.add(new Fixture("wal_object/" + name + ".bin", bytes));
          Map<String, Object> entry = new LinkedHashMap<>();
          entry.put("name", name);
          entry.put("version", header instanceof WalObjectHeader.V1 ? 1 : 0);
          entry.put("start_offset", header.startOffset());
          entry.put("length", header.bodyLength());
          entry.put("sticky_record_length", header.stickyRecordLength());
          entry.put("node_id", header.nodeId());
          entry.put("epoch", header.nodeEpoch());
          if (header instanceof WalObjectHeader.V1 v1) {
            entry.put("trim_offset", v1.trimOffset());
          }
          manifest.add(entry);
        });
    fixtures.add(new Fixture("wal_object/manifest.json", FixtureJson.manifest(manifest)));
    return fixtures;
  }

  /** The records of the multi-record object, in append order (not the order they are framed). */
  private static List<RecordBatch> appendedRecords() {
    return List.of(
        new RecordBatch(2, 1, 0, 1, Unpooled.wrappedBuffer(pattern(48))),
        new RecordBatch(1, 1, 10, 4, Unpooled.wrappedBuffer(pattern(32))),
        new RecordBatch(1, 1, 5, 5, Unpooled.wrappedBuffer(ascii("five records"))),
        new RecordBatch(3, 2, 100, -20, Unpooled.wrappedBuffer(new byte[0])));
  }

  private static List<Fixture> objects() {
    String prefix = WalObjectKeys.nodePrefix(CLUSTER, NODE);
    List<RecordBatch> appended = appendedRecords();
    List<RecordBatch> framed = new ArrayList<>(appended);
    framed.sort(
        Comparator.comparingLong(RecordBatch::streamId).thenComparingLong(RecordBatch::baseOffset));

    EncodedWalObject multi =
        encodeObject(0, WalObjectHeader.V1.NOT_TRIMMED, framed.stream().toList());
    RecordPosition last = multi.records().get(multi.records().size() - 1);
    long trimOffset = last.offset();
    EncodedWalObject trim =
        encodeObject(multi.endOffset(), trimOffset, List.of(TrimMarker.batch()));
    byte[] multiBytes = verified(multi, framed.size());
    byte[] trimBytes = verified(trim, 1);
    byte[] legacyBytes = legacyV0Object(framed.subList(0, 2));

    List<Map<String, Object>> records = new ArrayList<>();
    for (RecordBatch batch : appended) {
      RecordPosition position = multi.records().get(framed.indexOf(batch));
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("stream_id", batch.streamId());
      entry.put("epoch", batch.epoch());
      entry.put("base_offset", batch.baseOffset());
      entry.put("count", batch.count());
      entry.put("payload_hex", hex(payloadOf(batch)));
      entry.put("wal_offset", position.offset());
      entry.put("wal_size", position.size());
      records.add(entry);
    }
    Map<String, Object> manifest = new LinkedHashMap<>();
    manifest.put("cluster_id", CLUSTER);
    manifest.put("node_id", NODE);
    manifest.put("epoch", EPOCH);
    manifest.put("framing_order", "records sorted by (stream_id, base_offset)");
    manifest.put("records", records);
    manifest.put("trim_offset", trimOffset);
    manifest.put(
        "objects",
        List.of(
            objectEntry("multi_record", prefix, multi),
            objectEntry("trim_marker", prefix, trim),
            legacyEntry(prefix, legacyBytes)));
    return List.of(
        new Fixture("wal_objects/multi_record.bin", multiBytes),
        new Fixture("wal_objects/trim_marker.bin", trimBytes),
        new Fixture("wal_objects/legacy_v0.bin", legacyBytes),
        new Fixture("wal_objects/manifest.json", FixtureJson.document(manifest)));
  }

  private static EncodedWalObject encodeObject(
      long startOffset, long trimOffset, List<RecordBatch> batches) {
    List<ByteBuf> bodies = batches.stream().map(b -> RecordBatchCodec.encode(b, ALLOC)).toList();
    try {
      return WalObjectCodec.encode(startOffset, NODE, EPOCH, trimOffset, bodies, ALLOC);
    } finally {
      bodies.forEach(ByteBuf::release);
    }
  }

  private static byte[] verified(EncodedWalObject object, int recordCount) {
    byte[] bytes = drain(object.bytes());
    WalObjectContents contents = WalObjectCodec.decode(Unpooled.wrappedBuffer(bytes));
    try {
      check(contents.complete() && contents.records().size() == recordCount, "wal object decode");
      check(contents.header().equals(object.header()), "wal object header");
    } finally {
      contents.release();
    }
    return bytes;
  }

  // What an older upstream wrote: a v0 header (no trim offset) before the same framing. We never
  // write it, but a reader must still accept it during recovery.
  private static byte[] legacyV0Object(List<RecordBatch> batches) {
    ByteBuf records = Unpooled.buffer();
    long offset = 0;
    for (RecordBatch batch : batches) {
      ByteBuf body = RecordBatchCodec.encode(batch, ALLOC);
      WalRecordCodec.writeData(offset, body, records);
      offset += 24 + body.readableBytes();
      body.release();
    }
    ByteBuf object = Unpooled.buffer();
    WalObjectCodec.writeHeader(
        new WalObjectHeader.V0(0, records.readableBytes(), 0, NODE, EPOCH), object);
    object.writeBytes(records);
    byte[] bytes = drain(object);
    WalObjectContents contents = WalObjectCodec.decode(Unpooled.wrappedBuffer(bytes));
    check(contents.complete() && contents.records().size() == batches.size(), "legacy decode");
    contents.release();
    return bytes;
  }

  private static Map<String, Object> objectEntry(
      String name, String prefix, EncodedWalObject object) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("name", name);
    entry.put("header_version", 1);
    entry.put(
        "key",
        WalObjectKeys.keyV1(prefix, EPOCH, object.header().startOffset(), object.endOffset()));
    entry.put("start_offset", object.header().startOffset());
    entry.put("end_offset", object.endOffset());
    entry.put("trim_offset", object.header().trimOffset());
    return entry;
  }

  private static Map<String, Object> legacyEntry(String prefix, byte[] bytes) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("name", "legacy_v0");
    entry.put("header_version", 0);
    entry.put("key", WalObjectKeys.keyV0(prefix, EPOCH, 0));
    entry.put("start_offset", 0L);
    entry.put("end_offset", (long) bytes.length - WalObjectHeader.V0.SIZE);
    return entry;
  }

  private static Fixture keys() {
    List<Map<String, Object>> prefixes = new ArrayList<>();
    Object[][] nodes = {
      {"cluster-a", 0, ""}, {"cluster-a", 7, ""}, {"prod_x", 12345, ""}, {"cluster-a", 7, "meta"}
    };
    for (Object[] node : nodes) {
      String cluster = (String) node[0];
      int nodeId = (Integer) node[1];
      String type = (String) node[2];
      String prefix =
          type.isEmpty()
              ? WalObjectKeys.nodePrefix(cluster, nodeId)
              : WalObjectKeys.nodePrefix(cluster, nodeId, type);
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("cluster_id", cluster);
      entry.put("node_id", nodeId);
      entry.put("type", type);
      entry.put("prefix", prefix);
      entry.put("epoch", 3L);
      entry.put("start_offset", 8192L);
      entry.put("end_offset", 12288L);
      entry.put("key_v0", WalObjectKeys.keyV0(prefix, 3, 8192));
      entry.put("key_v1", WalObjectKeys.keyV1(prefix, 3, 8192, 12288));
      prefixes.add(entry);
    }
    String prefix = WalObjectKeys.nodePrefix("cluster-a", 0);
    List<Object> rejected = new ArrayList<>();
    for (String rest :
        List.of(
            "3/wal/",
            "3/wal/007",
            "3/wal/10-5",
            "3/wal/+7",
            "-3/wal/7",
            "3/wal/7-8-9",
            "3/wal/7/x",
            "3/7")) {
      String key = prefix + rest;
      check(WalObjectKeys.parse(prefix, key).isEmpty(), "accepted foreign key " + key);
      rejected.add(key);
    }
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("namespace", WalObjectKeys.NAMESPACE);
    document.put("prefixes", prefixes);
    document.put("rejected_under_prefix", prefix);
    document.put("rejected_keys", rejected);
    return new Fixture("wal_keys/manifest.json", FixtureJson.document(document));
  }

  private static List<Fixture> rangeIndex() {
    TreeMap<Long, List<RangeIndexEntry>> streams = new TreeMap<>();
    streams.put(
        1L,
        List.of(
            new RangeIndexEntry(0, 100, 10),
            new RangeIndexEntry(100, 250, 12),
            new RangeIndexEntry(250, 1000, 15)));
    streams.put(42L, List.of(new RangeIndexEntry(5, 6, 7)));
    streams.put(
        Long.MAX_VALUE,
        List.of(new RangeIndexEntry(Long.MAX_VALUE - 1, Long.MAX_VALUE, Long.MAX_VALUE)));
    NodeRangeIndex index = new NodeRangeIndex(streams);
    byte[] bytes = drain(RangeIndexCodec.encode(index, ALLOC));
    check(RangeIndexCodec.decode(Unpooled.wrappedBuffer(bytes)).equals(index), "range index");

    List<Map<String, Object>> keys = new ArrayList<>();
    Object[][] nodes = {
      {"DEFAULT", 0L}, {"DEFAULT", 1L}, {"DEFAULT", 233L}, {"DEFAULT", 1000L}, {"picomq", 7L}
    };
    for (Object[] node : nodes) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("namespace", node[0]);
      entry.put("node_id", node[1]);
      entry.put("key", RangeIndexCodec.objectKey((String) node[0], (Long) node[1]));
      keys.add(entry);
    }
    List<Map<String, Object>> streamEntries = new ArrayList<>();
    streams.forEach(
        (streamId, entries) -> {
          Map<String, Object> entry = new LinkedHashMap<>();
          entry.put("stream_id", streamId);
          entry.put(
              "ranges",
              entries.stream()
                  .map(e -> (Object) List.of(e.startOffset(), e.endOffset(), e.objectId()))
                  .toList());
          streamEntries.add(entry);
        });
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("index_keys", keys);
    document.put("streams", streamEntries);
    return List.of(
        new Fixture("range_index/index_v0.bin", bytes),
        new Fixture("range_index/manifest.json", FixtureJson.document(document)));
  }

  private static byte[] payloadOf(RecordBatch batch) {
    byte[] bytes = new byte[batch.payloadLength()];
    batch.payload().getBytes(batch.payload().readerIndex(), bytes);
    return bytes;
  }
}
