package io.picomq.s3stream.conformance;

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
import io.picomq.s3stream.object.ComponentObject;
import io.picomq.s3stream.object.CompositeObjectWriter;
import io.picomq.s3stream.object.DataBlockCodec;
import io.picomq.s3stream.object.EncodedObject;
import io.picomq.s3stream.object.IndexEntry;
import io.picomq.s3stream.object.ObjectIndex;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectType;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.StreamRange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Golden files of the data object format (specification: object.md), all under {@code object/}:
 *
 * <ul>
 *   <li>{@code single_stream.bin}: one stream in one block, with an empty payload and a link record
 *       among its batches;
 *   <li>{@code multi_block.bin}: the same stream continued over several blocks cut by the
 *       threshold;
 *   <li>{@code multi_stream.bin}: three streams, one with a gap (two ranges), one whose first block
 *       is cut early by the threshold counter its predecessor left;
 *   <li>{@code composite.bin}: a composite object linking every block of the first two objects;
 *   <li>{@code empty.bin}: an object without batches;
 *   <li>{@code manifest.json}: per object, its id, key, inputs, index entries, stream ranges and,
 *       for the composite, its component table;
 *   <li>{@code keys.json}: object keys for edge-case ids.
 * </ul>
 *
 * Every object is decoded again (index, component table, every block) and compared with its inputs
 * before it is returned, so a generator bug cannot pin wrong bytes silently.
 */
public final class ObjectFixtures implements FixtureSet {

  private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
  private static final ObjectNamespace NAMESPACE = ObjectNamespace.DEFAULT;

  /** One input batch. */
  private record Input(long streamId, long epoch, long baseOffset, int count, byte[] payload) {

    RecordBatch batch() {
      return new RecordBatch(streamId, epoch, baseOffset, count, Unpooled.wrappedBuffer(payload));
    }

    long lastOffset() {
      return count < 0 ? baseOffset - count : baseOffset + count;
    }
  }

  /** One normal object to generate. */
  private record Spec(String name, long objectId, int thresholdBytes, List<Input> inputs) {}

  @Override
  public List<Fixture> fixtures() {
    List<Fixture> fixtures = new ArrayList<>();
    List<Map<String, Object>> manifest = new ArrayList<>();
    List<Spec> specs = specs();
    List<List<IndexEntry>> indexes = new ArrayList<>();
    for (Spec spec : specs) {
      EncodedObject object = write(spec);
      List<IndexEntry> entries = object.entries();
      List<StreamRange> ranges = object.streamRanges();
      byte[] bytes = drain(object.bytes());
      checkNormal(spec, bytes);
      indexes.add(entries);
      fixtures.add(new Fixture("object/" + spec.name() + ".bin", bytes));
      manifest.add(normalEntry(spec, bytes, entries, ranges));
    }

    // The composite links every block of single_stream then multi_block: stream 5, [0, 40).
    CompositeObjectWriter composite = new CompositeObjectWriter(ALLOC);
    composite.addComponent(specs.get(0).objectId(), indexes.get(0));
    composite.addComponent(specs.get(1).objectId(), indexes.get(1));
    EncodedObject object = composite.finish();
    List<IndexEntry> entries = object.entries();
    List<StreamRange> ranges = object.streamRanges();
    byte[] bytes = drain(object.bytes());
    long compositeId = 1005;
    List<ComponentObject> components = checkComposite(compositeId, bytes, entries);
    fixtures.add(new Fixture("object/composite.bin", bytes));
    manifest.add(compositeEntry(compositeId, bytes, entries, ranges, components));

    fixtures.add(new Fixture("object/manifest.json", FixtureJson.manifest(manifest)));
    fixtures.add(keys());
    return fixtures;
  }

  private static List<Spec> specs() {
    List<Input> single =
        List.of(
            new Input(5, 2, 0, 1, pattern(40)),
            new Input(5, 2, 1, 2, new byte[0]),
            new Input(5, 2, 3, -3, pattern(12)),
            new Input(5, 2, 6, 2, pattern(100)));
    List<Input> multiBlock = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      multiBlock.add(new Input(5, 3, 8 + i * 4L, 4, pattern(30 + i)));
    }
    List<Input> multiStream = new ArrayList<>();
    multiStream.add(new Input(1, 1, 0, 1, pattern(50)));
    multiStream.add(new Input(1, 1, 1, 1, pattern(20)));
    multiStream.add(new Input(7, 4, 100, 10, pattern(90)));
    multiStream.add(new Input(7, 4, 110, 10, pattern(90)));
    multiStream.add(new Input(7, 4, 130, 5, pattern(10)));
    multiStream.add(new Input(Long.MAX_VALUE, 9, 0, 1, pattern(3)));
    return List.of(
        new Spec("single_stream", 1001, 1 << 20, single),
        new Spec("multi_block", 1002, 64, List.copyOf(multiBlock)),
        new Spec("multi_stream", 1003, 100, List.copyOf(multiStream)),
        new Spec("empty", 1004, 1 << 20, List.of()));
  }

  private static EncodedObject write(Spec spec) {
    ObjectWriter writer = new ObjectWriter(spec.thresholdBytes(), ALLOC);
    for (Input input : spec.inputs()) {
      RecordBatch batch = input.batch();
      try {
        writer.append(RecordBatchCodec.encode(batch, ALLOC));
      } finally {
        batch.release();
      }
    }
    return writer.finish();
  }

  /** Decodes the object's index and every block, and compares them with the inputs. */
  private static void checkNormal(Spec spec, byte[] bytes) {
    String key = NAMESPACE.key(spec.objectId());
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    ObjectIndex index = ObjectIndex.decode(spec.objectId(), key, bytes.length, buf, 0);
    // The buffer wraps the fixture's own array, so it needs no release.
    check(index.type() == ObjectType.NORMAL, spec.name() + " is not a normal object");
    List<RecordBatch> decoded = new ArrayList<>();
    for (IndexEntry entry : index.entries()) {
      ByteBuf block = buf.slice((int) entry.startPosition(), entry.blockSize());
      decoded.addAll(DataBlockCodec.decode(block, entry, key));
    }
    check(decoded.size() == spec.inputs().size(), spec.name() + " decodes to another batch count");
    for (int i = 0; i < decoded.size(); i++) {
      RecordBatch batch = decoded.get(i);
      Input input = spec.inputs().get(i);
      RecordBatch expected = input.batch();
      check(batch.equals(expected), spec.name() + " batch " + i + " does not decode to its input");
      expected.release();
      batch.release();
    }
  }

  private static List<ComponentObject> checkComposite(
      long objectId, byte[] bytes, List<IndexEntry> entries) {
    ObjectIndex index =
        ObjectIndex.decode(
            objectId, NAMESPACE.key(objectId), bytes.length, Unpooled.wrappedBuffer(bytes), 0);
    check(index.type() == ObjectType.COMPOSITE, "composite is not a composite object");
    check(index.entries().equals(entries), "composite index does not decode to its entries");
    return index.components();
  }

  private static Map<String, Object> normalEntry(
      Spec spec, byte[] bytes, List<IndexEntry> entries, List<StreamRange> ranges) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("name", spec.name());
    entry.put("object_id", spec.objectId());
    entry.put("key", NAMESPACE.key(spec.objectId()));
    entry.put("type", "normal");
    entry.put("attributes", 0);
    entry.put("block_size_threshold", spec.thresholdBytes());
    entry.put("size", bytes.length);
    List<Object> records = new ArrayList<>();
    for (Input input : spec.inputs()) {
      Map<String, Object> record = new LinkedHashMap<>();
      record.put("stream_id", input.streamId());
      record.put("epoch", input.epoch());
      record.put("base_offset", input.baseOffset());
      record.put("count", input.count());
      record.put("last_offset", input.lastOffset());
      record.put("payload_hex", hex(input.payload()));
      records.add(record);
    }
    entry.put("records", records);
    entry.put("index", index(entries));
    entry.put("stream_ranges", ranges(ranges));
    return entry;
  }

  private static Map<String, Object> compositeEntry(
      long objectId,
      byte[] bytes,
      List<IndexEntry> entries,
      List<StreamRange> ranges,
      List<ComponentObject> components) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("name", "composite");
    entry.put("object_id", objectId);
    entry.put("key", NAMESPACE.key(objectId));
    entry.put("type", "composite");
    entry.put("attributes", 1 | 1 << 18);
    entry.put("size", bytes.length);
    List<Object> table = new ArrayList<>();
    for (ComponentObject component : components) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("object_id", component.objectId());
      row.put("first_entry", component.firstEntry());
      row.put("bucket", component.bucket());
      table.add(row);
    }
    entry.put("components", table);
    entry.put("index", index(entries));
    entry.put("stream_ranges", ranges(ranges));
    return entry;
  }

  private static List<Object> index(List<IndexEntry> entries) {
    List<Object> index = new ArrayList<>();
    for (IndexEntry e : entries) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("stream_id", e.streamId());
      row.put("start_offset", e.startOffset());
      row.put("end_offset_delta", e.endOffsetDelta());
      row.put("record_count", e.recordCount());
      row.put("start_position", e.startPosition());
      row.put("block_size", e.blockSize());
      index.add(row);
    }
    return index;
  }

  private static List<Object> ranges(List<StreamRange> ranges) {
    List<Object> out = new ArrayList<>();
    for (StreamRange r : ranges) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("stream_id", r.streamId());
      row.put("start_offset", r.startOffset());
      row.put("end_offset", r.endOffset());
      row.put("size", r.sizeBytes());
      out.add(row);
    }
    return out;
  }

  private static Fixture keys() {
    List<Map<String, Object>> keys = new ArrayList<>();
    long[] ids = {0, 1, 15, 16, 255, 0xFFFFFFFFL, 0x1_0000_0000L, 123456789, Long.MAX_VALUE};
    for (String namespace : List.of("DEFAULT", "prod")) {
      for (long id : ids) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("namespace", namespace);
        entry.put("object_id", id);
        String key = new ObjectNamespace(namespace).key(id);
        check(
            new ObjectNamespace(namespace).parseObjectId(key).orElse(-1) == id,
            "key " + key + " does not parse back");
        entry.put("key", key);
        keys.add(entry);
      }
    }
    return new Fixture("object/keys.json", FixtureJson.manifest(keys));
  }
}
