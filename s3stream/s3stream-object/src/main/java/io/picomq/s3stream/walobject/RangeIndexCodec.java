package io.picomq.s3stream.walobject;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.codec.CorruptDataException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Encodes a {@link NodeRangeIndex} and names the object it is stored in (specification: {@code
 * s3stream/specification/wal-object.md}, "Range index").
 *
 * <p>Layout (big-endian): {@code version i16 = 0 | streamCount i32 | (streamId i64 | entryCount i32
 * | (startOffset i64 | endOffset i64 | objectId i64) * entryCount) * streamCount}. We write streams
 * in ascending id order.
 */
public final class RangeIndexCodec {

  /** The one version defined. */
  public static final short VERSION = 0;

  /** The namespace the upstream uses unless configured otherwise. */
  public static final String DEFAULT_NAMESPACE = "DEFAULT";

  static final int HEADER_SIZE = 2 + 4;
  static final int STREAM_HEADER_SIZE = 8 + 4;

  // Mixed into the key hash so index keys spread differently from data object keys.
  private static final String KEY_HASH_MIX = "sparse-index";

  private RangeIndexCodec() {}

  /**
   * The key of node {@code nodeId}'s range index: {@code %08x} of the Java {@link
   * String#hashCode()} of {@code "sparse-index" + nodeId}, then {@code "/" + namespace + "/node-" +
   * nodeId}. E.g. {@code 52674deb/DEFAULT/node-0}.
   */
  public static String objectKey(String namespace, long nodeId) {
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("namespace must not be empty");
    }
    String hash = String.format(Locale.ROOT, "%08x", (KEY_HASH_MIX + nodeId).hashCode());
    return hash + "/" + namespace + "/node-" + nodeId;
  }

  /**
   * Encodes {@code index}.
   *
   * @return a new buffer that the caller owns and releases
   */
  public static ByteBuf encode(NodeRangeIndex index, ByteBufAllocator allocator) {
    int size = index.encodedSize();
    ByteBuf out = allocator.buffer(size, size);
    out.writeShort(VERSION).writeInt(index.streams().size());
    index
        .streams()
        .forEach(
            (streamId, entries) -> {
              out.writeLong(streamId).writeInt(entries.size());
              for (RangeIndexEntry entry : entries) {
                out.writeLong(entry.startOffset())
                    .writeLong(entry.endOffset())
                    .writeLong(entry.objectId());
              }
            });
    return out;
  }

  /**
   * Decodes the index in {@code buf}'s readable bytes. Moves no index, releases nothing. A stream
   * listed with zero entries is dropped, as the upstream does.
   *
   * @throws CorruptDataException {@code UNKNOWN_VERSION}, {@code BAD_LENGTH} for a negative count,
   *     {@code TRUNCATED} if the counts run past the bytes, {@code INCONSISTENT} for a stream
   *     listed twice or bytes left over after the last stream
   */
  public static NodeRangeIndex decode(ByteBuf buf) {
    ByteBuf in = buf.duplicate();
    need(in, HEADER_SIZE, "range index header");
    short version = in.readShort();
    if (version != VERSION) {
      throw new CorruptDataException(
          CorruptDataException.Reason.UNKNOWN_VERSION, "range index version " + version);
    }
    int streamCount = count(in.readInt(), "stream count");
    SortedMap<Long, List<RangeIndexEntry>> streams = new TreeMap<>();
    for (int i = 0; i < streamCount; i++) {
      need(in, STREAM_HEADER_SIZE, "range index stream " + i);
      long streamId = in.readLong();
      int entryCount = count(in.readInt(), "entry count of stream " + streamId);
      need(in, (long) entryCount * RangeIndexEntry.SIZE, "entries of stream " + streamId);
      List<RangeIndexEntry> entries = new ArrayList<>(entryCount);
      for (int j = 0; j < entryCount; j++) {
        entries.add(new RangeIndexEntry(in.readLong(), in.readLong(), in.readLong()));
      }
      if (streams.containsKey(streamId)) {
        throw new CorruptDataException(
            CorruptDataException.Reason.INCONSISTENT,
            "range index lists stream " + streamId + " twice");
      }
      if (!entries.isEmpty()) {
        streams.put(streamId, entries);
      }
    }
    if (in.isReadable()) {
      throw new CorruptDataException(
          CorruptDataException.Reason.INCONSISTENT,
          in.readableBytes() + " bytes after the last stream of the range index");
    }
    return new NodeRangeIndex(streams);
  }

  private static void need(ByteBuf in, long bytes, String what) {
    if (in.readableBytes() < bytes) {
      throw new CorruptDataException(
          CorruptDataException.Reason.TRUNCATED,
          what + " needs " + bytes + " bytes, " + in.readableBytes() + " left");
    }
  }

  private static int count(int value, String what) {
    if (value < 0) {
      throw new CorruptDataException(
          CorruptDataException.Reason.BAD_LENGTH, "range index " + what + " is " + value);
    }
    return value;
  }
}
