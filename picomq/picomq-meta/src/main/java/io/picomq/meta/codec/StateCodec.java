package io.picomq.meta.codec;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import io.picomq.meta.state.CatalogObject;
import io.picomq.meta.state.CatalogRange;
import io.picomq.meta.state.CatalogStreamObject;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.meta.state.StreamSetObject;
import io.picomq.meta.state.StreamStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.CRC32C;

/**
 * A whole {@link MetadataState} as deterministic bytes: equal states encode to identical bytes,
 * because every section is written in ascending key order and nothing else varies.
 *
 * <pre>
 * magic i32 "PMQS" | version u8 (2) | nextStreamId i64 | nextObjectId i64
 * nodes:     count i32, each: nodeId i32, nodeEpoch i64, address str, slots i32,
 *                             takerNodeId i32 (-1: none; absent at version 1)
 * streams:   count i32, each: streamId i64, epoch i64, start i64, end i64, status u8
 *                             (0 closed, 1 open), nodeId i32, openedNodeEpoch i64
 * objects:   count i32, each: kind u8, then
 *              1 stream-set: objectId i64, nodeId i32, size i64,
 *                            count i32 x (streamId i64, start i64, end i64)
 *              2 stream:     objectId i64, streamId i64, start i64, end i64, size i64
 * prepared:  count i32, each: objectId i64, expiresAtMillis i64
 * destroyed: count i32, each: objectId i64
 * transfers: count i32, each: streamId i64, fromNodeId i32, toNodeId i32, epoch i64
 * kv:        count i32, each: key str, value bytes (keys in String order)
 * crc32c i32 over everything before it
 * </pre>
 *
 * Derived data (placement counts, the catalog's per-stream index) is not written; {@link
 * MetadataState#assemble} rebuilds it on decode and refuses a snapshot whose parts contradict each
 * other. Keys out of order are refused too, so only the canonical bytes of a state decode.
 */
public final class StateCodec {

  /** "PMQS": PicoMQ state. */
  public static final int MAGIC = 0x504D5153;

  public static final int VERSION = 2;

  /** Version 1 had no taker per node; it still decodes (every node in good standing). */
  private static final int VERSION_WITHOUT_TAKERS = 1;

  private static final int SET_OBJECT = 1;
  private static final int STREAM_OBJECT = 2;

  private StateCodec() {}

  public static byte[] encode(MetadataState state) {
    BinaryWriter out =
        new BinaryWriter(
            64
                + state.streams().size() * 49
                + state.catalog().size() * 64
                + state.kv().size() * 64);
    out.i32(MAGIC);
    out.u8(VERSION);
    out.i64(state.nextStreamId());
    out.i64(state.nextObjectId());
    out.i32(state.nodes().size());
    for (NodeRecord node : state.nodes().values()) {
      out.i32(node.nodeId());
      out.i64(node.nodeEpoch());
      out.string(node.advertisedAddress());
      out.i32(node.slots());
      out.i32(node.takerNodeId());
    }
    out.i32(state.streams().size());
    for (StreamEntry stream : state.streams().values()) {
      out.i64(stream.streamId());
      out.i64(stream.epoch());
      out.i64(stream.startOffset());
      out.i64(stream.endOffset());
      out.u8(stream.isOpen() ? 1 : 0);
      out.i32(stream.nodeId());
      out.i64(stream.openedNodeEpoch());
    }
    out.i32(state.catalog().size());
    for (CatalogObject object : state.catalog().objects().values()) {
      writeObject(out, object);
    }
    out.i32(state.preparedObjects().size());
    for (Map.Entry<Long, Long> prepared : state.preparedObjects().entrySet()) {
      out.i64(prepared.getKey());
      out.i64(prepared.getValue());
    }
    out.i32(state.destructionQueue().size());
    for (long id : state.destructionQueue()) {
      out.i64(id);
    }
    out.i32(state.pendingTransfers().size());
    for (PendingTransfer transfer : state.pendingTransfers().values()) {
      out.i64(transfer.streamId());
      out.i32(transfer.fromNodeId());
      out.i32(transfer.toNodeId());
      out.i64(transfer.epoch());
    }
    out.i32(state.kv().size());
    for (Map.Entry<String, KvValue> entry : state.kv().entrySet()) {
      out.string(entry.getKey());
      out.bytes(entry.getValue().toByteArray());
    }
    out.i32(crc(out.array(), out.position()));
    return out.toByteArray();
  }

  public static MetadataState decode(byte[] snapshot) throws MetadataDecodeException {
    if (snapshot.length < 4 + 1 + 4) {
      throw new MetadataDecodeException(
          Kind.TRUNCATED, "snapshot of " + snapshot.length + " bytes");
    }
    int body = snapshot.length - 4;
    if (new BinaryReader(snapshot, body, 4).i32() != crc(snapshot, body)) {
      throw new MetadataDecodeException(Kind.CHECKSUM_MISMATCH, "snapshot checksum");
    }
    BinaryReader in = new BinaryReader(snapshot, 0, body);
    int magic = in.i32();
    if (magic != MAGIC) {
      throw new MetadataDecodeException(Kind.UNKNOWN_TYPE, "not a snapshot: magic " + magic);
    }
    int version = in.u8();
    if (version != VERSION && version != VERSION_WITHOUT_TAKERS) {
      throw new MetadataDecodeException(Kind.UNKNOWN_VERSION, "snapshot version " + version);
    }
    try {
      MetadataState state = readState(in, version);
      in.expectEnd("snapshot");
      return state;
    } catch (IllegalArgumentException invalid) {
      throw new MetadataDecodeException(Kind.INVALID_FIELD, invalid.getMessage(), invalid);
    }
  }

  private static MetadataState readState(BinaryReader in, int version)
      throws MetadataDecodeException {
    long nextStreamId = in.i64();
    long nextObjectId = in.i64();
    List<NodeRecord> nodes = new ArrayList<>();
    long previous = Long.MIN_VALUE;
    for (int i = in.count("nodes", version == VERSION_WITHOUT_TAKERS ? 18 : 22); i > 0; i--) {
      NodeRecord node =
          new NodeRecord(
              in.i32(),
              in.i64(),
              in.string("address"),
              in.i32(),
              0,
              version == VERSION_WITHOUT_TAKERS ? NodeRecord.NO_TAKER : in.i32());
      previous = ascending("node", previous, node.nodeId());
      nodes.add(node);
    }
    TreeMap<Long, StreamEntry> streams = new TreeMap<>();
    previous = Long.MIN_VALUE;
    for (int i = in.count("streams", 45); i > 0; i--) {
      StreamEntry stream = readStream(in);
      previous = ascending("stream", previous, stream.streamId());
      streams.put(stream.streamId(), stream);
    }
    List<CatalogObject> objects = new ArrayList<>();
    previous = Long.MIN_VALUE;
    for (int i = in.count("objects", 29); i > 0; i--) {
      CatalogObject object = readObject(in);
      previous = ascending("object", previous, object.objectId());
      objects.add(object);
    }
    TreeMap<Long, Long> prepared = new TreeMap<>();
    previous = Long.MIN_VALUE;
    for (int i = in.count("prepared objects", 16); i > 0; i--) {
      long id = in.i64();
      previous = ascending("prepared object", previous, id);
      prepared.put(id, in.i64());
    }
    TreeSet<Long> destroyed = new TreeSet<>();
    previous = Long.MIN_VALUE;
    for (int i = in.count("destroyed objects", 8); i > 0; i--) {
      long id = in.i64();
      previous = ascending("destroyed object", previous, id);
      destroyed.add(id);
    }
    List<PendingTransfer> transfers = new ArrayList<>();
    previous = Long.MIN_VALUE;
    for (int i = in.count("transfers", 24); i > 0; i--) {
      PendingTransfer transfer = new PendingTransfer(in.i64(), in.i32(), in.i32(), in.i64());
      previous = ascending("transfer", previous, transfer.streamId());
      transfers.add(transfer);
    }
    TreeMap<String, KvValue> kv = new TreeMap<>();
    String previousKey = null;
    for (int i = in.count("keys", 6); i > 0; i--) {
      String key = in.string("key");
      if (previousKey != null && previousKey.compareTo(key) >= 0) {
        throw new IllegalArgumentException("key " + key + " out of order");
      }
      previousKey = key;
      kv.put(key, KvValue.of(in.bytes("value")));
    }
    return MetadataState.assemble(
        nextStreamId, nextObjectId, nodes, streams, objects, prepared, destroyed, transfers, kv);
  }

  private static StreamEntry readStream(BinaryReader in) throws MetadataDecodeException {
    long streamId = in.i64();
    long epoch = in.i64();
    long start = in.i64();
    long end = in.i64();
    int status = in.u8();
    if (status > 1) {
      throw new IllegalArgumentException("stream " + streamId + " status " + status);
    }
    return new StreamEntry(
        streamId,
        epoch,
        start,
        end,
        status == 1 ? StreamStatus.OPEN : StreamStatus.CLOSED,
        in.i32(),
        in.i64());
  }

  private static void writeObject(BinaryWriter out, CatalogObject object) {
    switch (object) {
      case StreamSetObject set -> {
        out.u8(SET_OBJECT);
        out.i64(set.objectId());
        out.i32(set.nodeId());
        out.i64(set.sizeBytes());
        out.i32(set.ranges().size());
        for (CatalogRange range : set.ranges()) {
          out.i64(range.streamId());
          out.i64(range.startOffset());
          out.i64(range.endOffset());
        }
      }
      case CatalogStreamObject stream -> {
        out.u8(STREAM_OBJECT);
        out.i64(stream.objectId());
        out.i64(stream.streamId());
        out.i64(stream.startOffset());
        out.i64(stream.endOffset());
        out.i64(stream.sizeBytes());
      }
    }
  }

  private static CatalogObject readObject(BinaryReader in) throws MetadataDecodeException {
    int kind = in.u8();
    return switch (kind) {
      case SET_OBJECT -> {
        long objectId = in.i64();
        int nodeId = in.i32();
        long size = in.i64();
        int count = in.count("object ranges", 24);
        List<CatalogRange> ranges = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
          ranges.add(new CatalogRange(in.i64(), in.i64(), in.i64()));
        }
        yield new StreamSetObject(objectId, nodeId, size, ranges);
      }
      case STREAM_OBJECT ->
          new CatalogStreamObject(in.i64(), in.i64(), in.i64(), in.i64(), in.i64());
      default -> throw new MetadataDecodeException(Kind.UNKNOWN_TYPE, "object kind " + kind);
    };
  }

  private static long ascending(String what, long previous, long id) {
    if (id <= previous) {
      throw new IllegalArgumentException(what + " " + id + " out of order");
    }
    return id;
  }

  private static int crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }
}
