package io.picomq.s3stream.pgwal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.codec.WalRecordCodec;
import io.picomq.s3stream.codec.WalRecordHeader;
import io.picomq.s3stream.wal.RecoveredRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The body of a slot row: the batch's records framed back to back exactly as in a WAL object
 * ({@code wal-record.md}: a 24-byte header with offset, length and both CRCs, then the body), the
 * first at the row's start offset, without an object header. Recovery checks every CRC and offset
 * as the object WAL's does.
 */
final class FramedRecords {

  private FramedRecords() {}

  /**
   * Frames {@code bodies} (their readable bytes; indexes do not move, nothing is released) starting
   * at {@code startOffset}.
   *
   * @throws IllegalArgumentException if the framed records exceed what one {@code bytea} may hold
   */
  static byte[] encode(long startOffset, List<ByteBuf> bodies) {
    long size = 0;
    for (ByteBuf body : bodies) {
      size += WalRecordHeader.SIZE + body.readableBytes();
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a batch of " + size + " framed bytes is too large");
    }
    byte[] framed = new byte[(int) size];
    ByteBuf out = Unpooled.wrappedBuffer(framed).writerIndex(0);
    long offset = startOffset;
    for (ByteBuf body : bodies) {
      WalRecordCodec.writeData(offset, body, out);
      offset += WalRecordHeader.SIZE + body.readableBytes();
    }
    return framed;
  }

  /**
   * The records of a row {@code [startOffset, endOffset)} above {@code trimOffset}, up to the first
   * damaged one.
   *
   * @param records receives the records, each body owned by the receiver
   * @return why reading stopped before the row's end, if it did
   */
  static Optional<String> decode(
      long startOffset,
      long endOffset,
      byte[] framed,
      long trimOffset,
      List<RecoveredRecord> records) {
    ByteBuf row = Unpooled.wrappedBuffer(framed);
    List<RecoveredRecord> found = new ArrayList<>();
    long expected = startOffset;
    try {
      while (row.isReadable()) {
        WalRecord record;
        try {
          record = WalRecordCodec.decode(row);
        } catch (CorruptDataException e) {
          return stopped(records, found, "row at " + startOffset + ": " + e.getMessage());
        }
        long offset = record.header().recordOffset();
        if (offset != expected) {
          release(record);
          return stopped(
              records,
              found,
              "row at " + startOffset + ": record at " + expected + " claims offset " + offset);
        }
        expected = record.header().nextOffset();
        if (record instanceof WalRecord.Data data) {
          if (offset > trimOffset) {
            found.add(new RecoveredRecord(offset, data.body()));
          } else {
            data.body().release();
          }
        }
      }
      if (expected != endOffset) {
        return stopped(
            records,
            found,
            "row [" + startOffset + ", " + endOffset + ") holds records up to " + expected);
      }
      records.addAll(found);
      return Optional.empty();
    } finally {
      row.release();
    }
  }

  private static Optional<String> stopped(
      List<RecoveredRecord> records, List<RecoveredRecord> found, String why) {
    records.addAll(found);
    return Optional.of(why);
  }

  private static void release(WalRecord record) {
    if (record instanceof WalRecord.Data data) {
      data.body().release();
    }
  }
}
