package io.picomq.sql.log;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The encoding of a log row's payload, version 1. Big-endian:
 *
 * <pre>
 * offset  size  field
 *      0     1  format version = 1
 *      1     8  writer id
 *      9     8  batch sequence
 *     17     2  command count n, 1..65535 (unsigned)
 *     19        n times: u32 length, then that many bytes of one encoded command
 *  len-4     4  CRC32C of every byte before it
 * </pre>
 *
 * <p>Example: one 3-byte command {@code 0A 0B 0C} from writer 7, batch 1, is 30 bytes: {@code 01 |
 * 00..07 | 00..01 | 00 01 | 00 00 00 03 0A 0B 0C | crc}. A decoder rejects, never partially reads,
 * an unknown version, a bad checksum, a count of 0, a length running past the end, and bytes left
 * over.
 */
public final class RowCodec {
  /** The format version this build writes and reads. */
  public static final byte VERSION = 1;

  /** The most commands the format can carry in one row. */
  public static final int MAX_COMMANDS = 0xFFFF;

  private static final int HEADER_BYTES = 1 + 8 + 8 + 2;
  private static final int CRC_BYTES = 4;

  private RowCodec() {}

  public static byte[] encode(LogRow row) {
    int size = HEADER_BYTES + CRC_BYTES;
    for (byte[] command : row.commands()) {
      size += 4 + command.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.put(VERSION).putLong(row.writerId()).putLong(row.batchSequence());
    out.putShort((short) row.commands().size());
    for (byte[] command : row.commands()) {
      out.putInt(command.length).put(command);
    }
    out.putInt(crc(out.array(), size - CRC_BYTES));
    return out.array();
  }

  /**
   * Decodes a payload written by {@link #encode}.
   *
   * @throws LogDecodeException if the payload is not a whole, valid version-1 row
   */
  public static LogRow decode(byte[] payload) throws LogDecodeException {
    if (payload.length < HEADER_BYTES + CRC_BYTES) {
      throw new LogDecodeException("row of " + payload.length + " bytes is shorter than a header");
    }
    if (payload[0] != VERSION) {
      throw new LogDecodeException("unknown row format version " + (payload[0] & 0xFF));
    }
    ByteBuffer in = ByteBuffer.wrap(payload, 0, payload.length - CRC_BYTES);
    int storedCrc = ByteBuffer.wrap(payload, payload.length - CRC_BYTES, CRC_BYTES).getInt();
    if (storedCrc != crc(payload, payload.length - CRC_BYTES)) {
      throw new LogDecodeException("row checksum mismatch");
    }
    try {
      in.get();
      long writerId = in.getLong();
      long batchSequence = in.getLong();
      int count = Short.toUnsignedInt(in.getShort());
      if (count == 0) {
        throw new LogDecodeException("row holds no commands");
      }
      List<byte[]> commands = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
          throw new LogDecodeException(
              "command "
                  + i
                  + " claims "
                  + Integer.toUnsignedString(length)
                  + " bytes, row has "
                  + in.remaining());
        }
        byte[] command = new byte[length];
        in.get(command);
        commands.add(command);
      }
      if (in.hasRemaining()) {
        throw new LogDecodeException(in.remaining() + " bytes follow the last command");
      }
      return new LogRow(writerId, batchSequence, commands);
    } catch (BufferUnderflowException e) {
      throw new LogDecodeException("row is truncated", e);
    }
  }

  static int crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }
}
