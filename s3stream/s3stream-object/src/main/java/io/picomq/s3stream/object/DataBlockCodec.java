package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.CorruptDataException.Reason;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import java.util.List;

/**
 * Encodes the header of a data block and decodes a whole block, checking it against the index entry
 * that led to it.
 *
 * <pre>
 *   magic u8 = 0x5A | flag u8 = 0x02 | recordCount i32 | dataLength i32 | encoded record batches
 * </pre>
 *
 * <p>The format has no checksum. What {@link #decode} can still catch is every disagreement between
 * a block and its index entry: the header fields, the batch count and lengths, and the stream id
 * and offsets of the batches. Since the entry is checked against the block whenever the block is
 * read, a corrupted index entry is detected the moment it is used. A corrupted payload byte is not
 * detectable and decodes to a different payload.
 */
public final class DataBlockCodec {

  /** First byte of every data block. */
  public static final byte MAGIC = 0x5A;

  /** The only flag value defined: uncompressed batches. */
  public static final byte FLAG = 0x02;

  /** Bytes of the block header. */
  public static final int HEADER_SIZE = 1 + 1 + 4 + 4;

  private DataBlockCodec() {}

  /** Appends a block header to {@code out}; does not release it. */
  static void writeHeader(ByteBuf out, int recordCount, int dataLength) {
    out.writeByte(MAGIC).writeByte(FLAG).writeInt(recordCount).writeInt(dataLength);
  }

  /**
   * Decodes the data block that fills {@code block}'s readable bytes and checks it against {@code
   * entry}. Moves no index of {@code block} and does not release it.
   *
   * @param key the key of the object the block came from, named in error messages
   * @return every batch of the block in order; each payload is a retained slice of {@code block}
   *     that the caller releases (e.g. via {@link RecordBatch#release()})
   * @throws CorruptDataException if the block does not decode, or disagrees with {@code entry};
   *     nothing is then left retained
   */
  public static List<RecordBatch> decode(ByteBuf block, IndexEntry entry, String key) {
    checkHeader(block, entry, key);
    ByteBuf data = block.slice(block.readerIndex() + HEADER_SIZE, entry.blockSize() - HEADER_SIZE);
    List<RecordBatch> batches = RecordBatchCodec.decode(data, entry.recordCount());
    try {
      long nextOffset = entry.startOffset();
      for (int i = 0; i < batches.size(); i++) {
        RecordBatch batch = batches.get(i);
        checkBatch(batch, i, nextOffset, entry, key);
        nextOffset = batch.lastOffset();
      }
      if (data.isReadable()) {
        throw corrupt(
            Reason.BAD_LENGTH, key, entry, data.readableBytes() + " bytes after the batches");
      }
      if (nextOffset != entry.endOffset()) {
        throw corrupt(Reason.INCONSISTENT, key, entry, "the batches end at offset " + nextOffset);
      }
      return batches;
    } catch (CorruptDataException e) {
      batches.forEach(RecordBatch::release);
      throw e;
    }
  }

  private static void checkHeader(ByteBuf block, IndexEntry entry, String key) {
    if (block.readableBytes() != entry.blockSize()) {
      throw corrupt(Reason.TRUNCATED, key, entry, "read " + block.readableBytes() + " bytes");
    }
    int at = block.readerIndex();
    byte magic = block.getByte(at);
    byte flag = block.getByte(at + 1);
    if (magic != MAGIC || flag != FLAG) {
      throw corrupt(
          Reason.UNKNOWN_MAGIC,
          key,
          entry,
          "block magic 0x" + Integer.toHexString(magic & 0xFF) + " flag 0x" + (flag & 0xFF));
    }
    int recordCount = block.getInt(at + 2);
    int dataLength = block.getInt(at + 6);
    if (recordCount != entry.recordCount() || dataLength != entry.blockSize() - HEADER_SIZE) {
      throw corrupt(
          Reason.INCONSISTENT,
          key,
          entry,
          "block header says " + recordCount + " batches in " + dataLength + " bytes");
    }
  }

  private static void checkBatch(
      RecordBatch batch, int i, long expectedMin, IndexEntry entry, String key) {
    boolean ordered =
        i == 0 ? batch.baseOffset() == entry.startOffset() : batch.baseOffset() >= expectedMin;
    if (batch.streamId() != entry.streamId()
        || !ordered
        || batch.lastOffset() < batch.baseOffset()
        || batch.lastOffset() > entry.endOffset()) {
      throw corrupt(
          Reason.INCONSISTENT,
          key,
          entry,
          "batch "
              + i
              + " covers stream "
              + batch.streamId()
              + " ["
              + batch.baseOffset()
              + ", "
              + batch.lastOffset()
              + ")");
    }
  }

  private static CorruptDataException corrupt(
      Reason reason, String key, IndexEntry entry, String what) {
    return new CorruptDataException(
        reason,
        "object " + key + ", block at " + entry.startPosition() + " (" + entry + "): " + what);
  }
}
