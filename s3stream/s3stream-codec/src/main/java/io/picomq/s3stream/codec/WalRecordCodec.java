package io.picomq.s3stream.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Locale;
import java.util.Objects;

/**
 * Frames WAL records and reads them back (specification: {@code
 * s3stream/specification/wal-record.md}).
 *
 * <p>A record at WAL offset {@code o} is a 24-byte {@link WalRecordHeader} followed by its body;
 * the header's {@code bodyOffset} is {@code o + 24}. The body CRC covers the body and the header
 * CRC covers the first 20 header bytes, so a reader can trust the header's length before it reads
 * the body. A data record's body is one encoded record batch (which has no checksum of its own).
 *
 * <p>What decoding guarantees: a change to any single byte of a framed data record, or a record cut
 * short anywhere, is reported as a {@link CorruptDataException}. Header damage fails the header CRC
 * (or the magic check); body damage fails the body CRC; a short record is {@code TRUNCATED}.
 */
public final class WalRecordCodec {

  private WalRecordCodec() {}

  /**
   * Appends a data record at WAL offset {@code recordOffset} holding the readable bytes of {@code
   * body} to {@code out}. Moves no index of {@code body} and releases neither buffer.
   */
  public static void writeData(long recordOffset, ByteBuf body, ByteBuf out) {
    int bodyLength = body.readableBytes();
    int bodyCrc = Crc32.of(body, body.readerIndex(), bodyLength);
    writeHeader(
        new WalRecordHeader(WalRecordType.DATA, bodyLength, bodyOffset(recordOffset), bodyCrc),
        out);
    out.writeBytes(body, body.readerIndex(), bodyLength);
  }

  /**
   * Encodes a data record at WAL offset {@code recordOffset} holding the readable bytes of {@code
   * body}.
   *
   * @return a new buffer from {@code allocator} that the caller owns and releases; {@code body} is
   *     neither moved nor released
   */
  public static ByteBuf encodeData(long recordOffset, ByteBuf body, ByteBufAllocator allocator) {
    int size = WalRecordHeader.SIZE + body.readableBytes();
    ByteBuf out = allocator.buffer(size, size);
    try {
      writeData(recordOffset, body, out);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * Encodes only the header of a data record for {@code body}, for callers that send the body
   * without copying it (e.g. as the second component of a composite buffer).
   *
   * @return a new 24-byte buffer that the caller owns and releases; {@code body} is neither moved
   *     nor released
   */
  public static ByteBuf encodeDataHeader(
      long recordOffset, ByteBuf body, ByteBufAllocator allocator) {
    ByteBuf out = allocator.buffer(WalRecordHeader.SIZE, WalRecordHeader.SIZE);
    writeDataHeader(recordOffset, body, out);
    return out;
  }

  /**
   * Appends only the 24-byte header of a data record for {@code body} to {@code out}, for callers
   * that send the body without copying it. Moves no index of {@code body}, releases nothing.
   */
  public static void writeDataHeader(long recordOffset, ByteBuf body, ByteBuf out) {
    int bodyLength = body.readableBytes();
    writeHeader(
        new WalRecordHeader(
            WalRecordType.DATA,
            bodyLength,
            bodyOffset(recordOffset),
            Crc32.of(body, body.readerIndex(), bodyLength)),
        out);
  }

  /**
   * Appends a padding record at WAL offset {@code recordOffset} that occupies {@code recordSize}
   * bytes in total (header included) to {@code out}; its body is zeros and its body CRC 0, as the
   * upstream writes it. Releases nothing.
   *
   * @throws IllegalArgumentException if {@code recordSize} is smaller than the header
   */
  public static void writePadding(long recordOffset, int recordSize, ByteBuf out) {
    if (recordSize < WalRecordHeader.SIZE) {
      throw new IllegalArgumentException(
          "padding record size " + recordSize + " < header size " + WalRecordHeader.SIZE);
    }
    int bodyLength = recordSize - WalRecordHeader.SIZE;
    writeHeader(
        new WalRecordHeader(WalRecordType.PADDING, bodyLength, bodyOffset(recordOffset), 0), out);
    out.writeZero(bodyLength);
  }

  /**
   * Encodes a padding record; see {@link #writePadding}.
   *
   * @return a new buffer from {@code allocator} that the caller owns and releases
   */
  public static ByteBuf encodePadding(
      long recordOffset, int recordSize, ByteBufAllocator allocator) {
    ByteBuf out = allocator.buffer(Math.max(recordSize, 0));
    try {
      writePadding(recordOffset, recordSize, out);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /** Appends the 24 bytes of {@code header}, computing its header CRC, to {@code out}. */
  public static void writeHeader(WalRecordHeader header, ByteBuf out) {
    int start = out.writerIndex();
    out.writeInt(header.type().magic())
        .writeInt(header.bodyLength())
        .writeLong(header.bodyOffset())
        .writeInt(header.bodyCrc());
    out.writeInt(Crc32.of(out, start, WalRecordHeader.CRC_COVERED));
  }

  /**
   * Reads and checks the header starting at absolute {@code index} of {@code buf}; moves no index.
   * The body is neither required to be present nor checked.
   *
   * @throws CorruptDataException {@code TRUNCATED} if fewer than 24 bytes are readable from {@code
   *     index}, {@code UNKNOWN_MAGIC}, {@code HEADER_CRC_MISMATCH}, or {@code BAD_LENGTH} for a
   *     body length of 2^31 or more
   */
  public static WalRecordHeader readHeader(ByteBuf buf, int index) {
    Objects.requireNonNull(buf, "buf");
    if (index < buf.readerIndex()) {
      throw new IllegalArgumentException(
          "index " + index + " is before the reader index " + buf.readerIndex());
    }
    long available = (long) buf.writerIndex() - index;
    if (available < WalRecordHeader.SIZE) {
      throw new CorruptDataException(
          CorruptDataException.Reason.TRUNCATED,
          "WAL record header at index "
              + index
              + " has "
              + Math.max(0, available)
              + " of 24 bytes");
    }
    int magic = buf.getInt(index);
    WalRecordType type = typeOf(magic, index);
    int storedHeaderCrc = buf.getInt(index + WalRecordHeader.CRC_COVERED);
    int headerCrc = Crc32.of(buf, index, WalRecordHeader.CRC_COVERED);
    if (storedHeaderCrc != headerCrc) {
      throw new CorruptDataException(
          CorruptDataException.Reason.HEADER_CRC_MISMATCH,
          String.format(
              Locale.ROOT,
              "WAL record header at index %d: stored CRC 0x%08x, computed 0x%08x",
              index,
              storedHeaderCrc,
              headerCrc));
    }
    int bodyLength = buf.getInt(index + 4);
    if (bodyLength < 0) {
      throw new CorruptDataException(
          CorruptDataException.Reason.BAD_LENGTH,
          "WAL record at index "
              + index
              + " has body length "
              + Integer.toUnsignedString(bodyLength));
    }
    return new WalRecordHeader(type, bodyLength, buf.getLong(index + 8), buf.getInt(index + 16));
  }

  /**
   * Decodes the record at {@code buf}'s reader index, checks both CRCs (the body CRC only for a
   * data record), and advances the reader index past it.
   *
   * @return {@link WalRecord.Data} whose body is a retained slice of {@code buf} that the caller
   *     releases, or {@link WalRecord.Padding}; {@code buf} itself stays owned by the caller
   * @throws CorruptDataException as {@link #readHeader}, {@code TRUNCATED} if the body is cut
   *     short, or {@code BODY_CRC_MISMATCH}; {@code buf} is then left unchanged
   */
  public static WalRecord decode(ByteBuf buf) {
    int index = buf.readerIndex();
    WalRecordHeader header = readHeader(buf, index);
    int bodyIndex = index + WalRecordHeader.SIZE;
    if (buf.writerIndex() - bodyIndex < header.bodyLength()) {
      throw new CorruptDataException(
          CorruptDataException.Reason.TRUNCATED,
          "WAL record at index "
              + index
              + " announces "
              + header.bodyLength()
              + " body bytes, readable "
              + (buf.writerIndex() - bodyIndex));
    }
    if (header.type() == WalRecordType.PADDING) {
      buf.skipBytes(WalRecordHeader.SIZE + header.bodyLength());
      return new WalRecord.Padding(header);
    }
    int bodyCrc = Crc32.of(buf, bodyIndex, header.bodyLength());
    if (bodyCrc != header.bodyCrc()) {
      throw new CorruptDataException(
          CorruptDataException.Reason.BODY_CRC_MISMATCH,
          String.format(
              Locale.ROOT,
              "WAL record at index %d: stored body CRC 0x%08x, computed 0x%08x",
              index,
              header.bodyCrc(),
              bodyCrc));
    }
    ByteBuf body = buf.retainedSlice(bodyIndex, header.bodyLength());
    buf.skipBytes(WalRecordHeader.SIZE + header.bodyLength());
    return new WalRecord.Data(header, body);
  }

  private static long bodyOffset(long recordOffset) {
    return recordOffset + WalRecordHeader.SIZE;
  }

  private static WalRecordType typeOf(int magic, int index) {
    if (magic == WalRecordType.DATA.magic()) {
      return WalRecordType.DATA;
    }
    if (magic == WalRecordType.PADDING.magic()) {
      return WalRecordType.PADDING;
    }
    throw new CorruptDataException(
        CorruptDataException.Reason.UNKNOWN_MAGIC,
        String.format(Locale.ROOT, "WAL record magic 0x%08x at index %d", magic, index));
  }
}
