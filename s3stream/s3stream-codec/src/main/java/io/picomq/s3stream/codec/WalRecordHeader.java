package io.picomq.s3stream.codec;

import java.util.Objects;

/**
 * The 24-byte header in front of every WAL record (specification: {@code
 * s3stream/specification/wal-record.md}).
 *
 * <p>Layout (big-endian): {@code magic u32 | bodyLength u32 | bodyOffset i64 | bodyCRC u32 |
 * headerCRC u32}. {@code bodyOffset} is the WAL offset of the first body byte, i.e. the record's
 * own offset plus {@link #SIZE}; {@code headerCRC} covers the first 20 bytes. Both CRCs are {@link
 * Crc32} values.
 *
 * @param type data or padding, from the magic number
 * @param bodyLength bytes of body after the header; the upstream writes a signed int, so a length
 *     of 2^31 or more never occurs and is rejected
 * @param bodyOffset the WAL offset of the body's first byte
 * @param bodyCrc the {@link Crc32} of the body for a data record, 0 for a padding record
 */
public record WalRecordHeader(WalRecordType type, int bodyLength, long bodyOffset, int bodyCrc) {

  /** Bytes of the header. */
  public static final int SIZE = 24;

  /** Bytes the header CRC covers: everything before the header CRC field. */
  static final int CRC_COVERED = 20;

  public WalRecordHeader {
    Objects.requireNonNull(type, "type");
    if (bodyLength < 0) {
      throw new IllegalArgumentException("bodyLength must be >= 0: " + bodyLength);
    }
  }

  /** The WAL offset of the record itself (its header's first byte). */
  public long recordOffset() {
    return bodyOffset - SIZE;
  }

  /** Bytes of the whole framed record: header plus body. */
  public long recordSize() {
    return (long) SIZE + bodyLength;
  }

  /** The WAL offset just after this record. */
  public long nextOffset() {
    return bodyOffset + bodyLength;
  }
}
