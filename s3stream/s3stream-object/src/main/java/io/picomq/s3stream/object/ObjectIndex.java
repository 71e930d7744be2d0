package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.CorruptDataException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The decoded, checked index of one data object: its entries sorted by (stream id, start offset)
 * and, for a composite object, the table of components the entries point into. Immutable and
 * thread-safe; it holds no buffer.
 *
 * <p>{@link #decode} accepts an index only if it is internally consistent: every entry valid on its
 * own ({@link IndexEntry}), entries strictly ordered by stream and non-overlapping within a stream,
 * and, for a normal object, blocks that tile the data region exactly (the first at 0, each where
 * the previous one ends, the last where the index begins). A single corrupted byte in a start
 * position or block size always breaks the tiling. A corrupted stream id, offset or record count
 * may keep the index consistent; it is then caught when the block is read ({@link
 * DataBlockCodec#decode}), or, if the damage steers a lookup away from the block, it shows as a
 * read that ends early (see {@link #find}).
 */
public final class ObjectIndex {

  /** First byte of a composite object's component table. */
  static final byte COMPONENTS_MAGIC = 0x52;

  /** Bytes before the first row of the component table: magic and row count. */
  static final int COMPONENTS_HEADER_SIZE = 1 + 4;

  private final long objectId;
  private final ObjectType type;
  private final List<IndexEntry> entries;
  private final List<ComponentObject> components;

  private ObjectIndex(
      long objectId, ObjectType type, List<IndexEntry> entries, List<ComponentObject> components) {
    this.objectId = objectId;
    this.type = type;
    this.entries = List.copyOf(entries);
    this.components = List.copyOf(components);
  }

  /**
   * Decodes the index of object {@code objectId} (key {@code key}, {@code objectSize} bytes).
   *
   * @param body the object's bytes from position {@code bodyStart} up to its end, footer included,
   *     as the readable bytes; indices are not moved and the buffer is not released. For a
   *     composite object {@code bodyStart} must be 0 (the component table is at the start).
   * @throws CorruptDataException if the footer or index is malformed or inconsistent
   */
  public static ObjectIndex decode(
      long objectId, String key, long objectSize, ByteBuf body, long bodyStart) {
    Objects.requireNonNull(key, "key");
    if (body.readableBytes() != objectSize - bodyStart) {
      throw new IllegalArgumentException(
          "body holds "
              + body.readableBytes()
              + " bytes, not ["
              + bodyStart
              + ", "
              + objectSize
              + ")");
    }
    Footer footer = Footer.decode(body, objectSize, key);
    long needed = footer.type() == ObjectType.COMPOSITE ? 0 : footer.indexStart();
    if (bodyStart > needed) {
      throw new IllegalArgumentException(
          "body starts at " + bodyStart + ", after the " + footer.type() + " index at " + needed);
    }
    int indexAt = body.readerIndex() + (int) (footer.indexStart() - bodyStart);
    List<IndexEntry> entries = decodeEntries(body, indexAt, footer.entryCount(), key);
    checkOrder(entries, key);
    if (footer.type() == ObjectType.NORMAL) {
      checkTiling(entries, footer.indexStart(), key);
      return new ObjectIndex(objectId, ObjectType.NORMAL, entries, List.of());
    }
    ByteBuf table = body.slice(body.readerIndex(), (int) footer.indexStart());
    List<ComponentObject> components = decodeComponents(table, entries.size(), key);
    return new ObjectIndex(objectId, ObjectType.COMPOSITE, entries, components);
  }

  /** The object this index belongs to. */
  public long objectId() {
    return objectId;
  }

  public ObjectType type() {
    return type;
  }

  /** Every entry, sorted by (stream id, start offset); for a normal object also in file order. */
  public List<IndexEntry> entries() {
    return entries;
  }

  /** The component table of a composite object; empty for a normal object. */
  public List<ComponentObject> components() {
    return components;
  }

  /** Where the block of entry number {@code i} is stored. */
  public BlockLocation locate(int i) {
    IndexEntry entry = entries.get(i);
    if (type == ObjectType.NORMAL) {
      return new BlockLocation(objectId, entry);
    }
    int lo = 0;
    int hi = components.size() - 1;
    // The last component whose first entry is <= i; decode guaranteed components[0].firstEntry ==
    // 0.
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (components.get(mid).firstEntry() <= i) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return new BlockLocation(components.get(lo).objectId(), entry);
  }

  /**
   * The blocks to read for offsets {@code [startOffset, endOffset)} of {@code streamId}, in offset
   * order.
   *
   * <p>The first block is the one holding {@code startOffset}; if no block holds it (the object
   * starts later, ends earlier, or has a gap there), the answer is empty: a read never skips
   * offsets. Further blocks follow while they continue the offsets without a gap, the range is not
   * yet covered, and fewer than {@code maxBytes} bytes of batches have been selected after the
   * first block. The first block does not count toward {@code maxBytes} because only part of it may
   * be in range (the upstream's rule); so the selection holds at least {@code maxBytes} bytes of
   * batches at or after {@code startOffset} unless the range or the stream's data here ends first.
   * Worked examples, for blocks [0,10) [10,20) [20,30) [30,40) each holding 100 bytes of batches:
   *
   * <pre>
   *   find(s, 0, 40, MAX)   -> [0,10) [10,20) [20,30) [30,40)
   *   find(s, 15, 16, MAX)  -> [10,20)                 starts mid-block
   *   find(s, 20, 40, MAX)  -> [20,30) [30,40)         starts at a block boundary
   *   find(s, 0, 40, 100)   -> [0,10) [10,20)          the first block is free, the second fills 100
   *   find(s, 0, 40, 101)   -> [0,10) [10,20) [20,30)
   *   find(s, 40, 50, MAX)  -> []                      past the end
   *   find(s, 5, 5, MAX)    -> []                      empty range
   * </pre>
   *
   * @param endOffset exclusive; {@code Long.MAX_VALUE} for "to the end"
   * @param maxBytes soft limit on bytes of batches, {@code > 0}
   */
  public List<BlockLocation> find(long streamId, long startOffset, long endOffset, int maxBytes) {
    if (startOffset > endOffset || maxBytes <= 0) {
      throw new IllegalArgumentException(
          "bad read [" + startOffset + ", " + endOffset + ") maxBytes " + maxBytes);
    }
    List<BlockLocation> found = new ArrayList<>();
    if (startOffset == endOffset) {
      return found;
    }
    int i = firstEndingAfter(streamId, startOffset);
    if (i == entries.size()
        || entries.get(i).streamId() != streamId
        || entries.get(i).startOffset() > startOffset) {
      return found;
    }
    long remainingBytes = maxBytes;
    long nextOffset = startOffset;
    for (; i < entries.size(); i++) {
      IndexEntry entry = entries.get(i);
      if (entry.streamId() != streamId || entry.startOffset() > nextOffset) {
        break;
      }
      if (!found.isEmpty()) {
        remainingBytes -= entry.blockSize() - DataBlockCodec.HEADER_SIZE;
      }
      found.add(locate(i));
      nextOffset = entry.endOffset();
      if (nextOffset >= endOffset || remainingBytes <= 0) {
        break;
      }
    }
    return found;
  }

  /** The first entry i with (streamId, endOffset) after (streamId, offset), or entries.size(). */
  private int firstEndingAfter(long streamId, long offset) {
    int lo = 0;
    int hi = entries.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      IndexEntry e = entries.get(mid);
      boolean before =
          e.streamId() < streamId || (e.streamId() == streamId && e.endOffset() <= offset);
      if (before) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static List<IndexEntry> decodeEntries(ByteBuf body, int at, int count, String key) {
    List<IndexEntry> entries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int p = at + i * IndexEntry.SIZE;
      long streamId = body.getLong(p);
      long startOffset = body.getLong(p + 8);
      int endOffsetDelta = body.getInt(p + 16);
      int recordCount = body.getInt(p + 20);
      long startPosition = body.getLong(p + 24);
      int blockSize = body.getInt(p + 32);
      int entry = i;
      IndexEntry.problem(
              streamId, startOffset, endOffsetDelta, recordCount, startPosition, blockSize)
          .ifPresent(
              problem -> {
                throw new CorruptDataException(
                    Reason.BAD_LENGTH, "object " + key + ", index entry " + entry + ": " + problem);
              });
      entries.add(
          new IndexEntry(
              streamId, startOffset, endOffsetDelta, recordCount, startPosition, blockSize));
    }
    return entries;
  }

  private static void checkOrder(List<IndexEntry> entries, String key) {
    for (int i = 1; i < entries.size(); i++) {
      IndexEntry prev = entries.get(i - 1);
      IndexEntry cur = entries.get(i);
      boolean ordered =
          prev.streamId() < cur.streamId()
              || (prev.streamId() == cur.streamId() && prev.endOffset() <= cur.startOffset());
      if (!ordered) {
        throw new CorruptDataException(
            Reason.INCONSISTENT,
            "object " + key + ": index entry " + i + " (" + cur + ") is not after " + prev);
      }
    }
  }

  private static void checkTiling(List<IndexEntry> entries, long indexStart, String key) {
    long expected = 0;
    for (int i = 0; i < entries.size(); i++) {
      IndexEntry entry = entries.get(i);
      if (entry.startPosition() != expected) {
        throw new CorruptDataException(
            Reason.BAD_LENGTH,
            "object "
                + key
                + ": block "
                + i
                + " starts at "
                + entry.startPosition()
                + ", not "
                + expected);
      }
      expected = entry.endPosition();
    }
    if (expected != indexStart) {
      throw new CorruptDataException(
          Reason.BAD_LENGTH,
          "object "
              + key
              + ": data blocks end at "
              + expected
              + " but the index starts at "
              + indexStart);
    }
  }

  private static List<ComponentObject> decodeComponents(ByteBuf table, int entryCount, String key) {
    if (table.readableBytes() < COMPONENTS_HEADER_SIZE
        || table.getByte(table.readerIndex()) != COMPONENTS_MAGIC) {
      throw new CorruptDataException(
          Reason.UNKNOWN_MAGIC, "composite object " + key + ": no component table at position 0");
    }
    int count = table.getInt(table.readerIndex() + 1);
    long expectedSize = COMPONENTS_HEADER_SIZE + (long) ComponentObject.SIZE * count;
    if (count < 0 || expectedSize != table.readableBytes()) {
      throw new CorruptDataException(
          Reason.BAD_LENGTH,
          "composite object "
              + key
              + ": "
              + count
              + " components in "
              + table.readableBytes()
              + " bytes");
    }
    List<ComponentObject> components = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int p = table.readerIndex() + COMPONENTS_HEADER_SIZE + i * ComponentObject.SIZE;
      long objectId = table.getLong(p);
      int firstEntry = table.getInt(p + 8);
      int bucket = table.getUnsignedShort(p + 12);
      // Each component owns at least one entry: first entries start at 0 and strictly increase.
      int expectedMin = i == 0 ? 0 : components.get(i - 1).firstEntry() + 1;
      boolean valid =
          objectId >= 0
              && (i == 0 ? firstEntry == 0 : firstEntry >= expectedMin)
              && firstEntry < entryCount;
      if (!valid) {
        throw new CorruptDataException(
            Reason.INCONSISTENT,
            "composite object "
                + key
                + ": component "
                + i
                + " (object "
                + objectId
                + ", first entry "
                + firstEntry
                + ") of "
                + entryCount
                + " entries");
      }
      components.add(new ComponentObject(objectId, firstEntry, bucket));
    }
    if (count == 0 && entryCount > 0) {
      throw new CorruptDataException(
          Reason.INCONSISTENT,
          "composite object " + key + ": " + entryCount + " entries, no components");
    }
    return components;
  }
}
