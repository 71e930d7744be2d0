package io.picomq.sql.log;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The envelope around a state machine's snapshot in the snapshot row, version 1. Big-endian:
 *
 * <pre>
 * offset  size  field
 *      0     1  format version = 1
 *      1     8  the index of the last row the snapshot includes (equals the row's idx column)
 *      9        the state machine's encodeSnapshot bytes
 *  len-4     4  CRC32C of every byte before it
 * </pre>
 */
final class SnapshotCodec {
  static final byte VERSION = 1;
  private static final int HEADER_BYTES = 1 + 8;
  private static final int CRC_BYTES = 4;

  /** A decoded envelope: the state bytes still need the state machine's decoder. */
  record Envelope(long index, byte[] state) {}

  private SnapshotCodec() {}

  static byte[] encode(long index, byte[] state) {
    ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + state.length + CRC_BYTES);
    out.put(VERSION).putLong(index).put(state);
    out.putInt(RowCodec.crc(out.array(), out.position()));
    return out.array();
  }

  static Envelope decode(long expectedIndex, byte[] payload) throws LogDecodeException {
    if (payload.length < HEADER_BYTES + CRC_BYTES) {
      throw new LogDecodeException(
          "snapshot of " + payload.length + " bytes is shorter than a header");
    }
    if (payload[0] != VERSION) {
      throw new LogDecodeException("unknown snapshot format version " + (payload[0] & 0xFF));
    }
    int end = payload.length - CRC_BYTES;
    if (ByteBuffer.wrap(payload, end, CRC_BYTES).getInt() != RowCodec.crc(payload, end)) {
      throw new LogDecodeException("snapshot checksum mismatch");
    }
    long index = ByteBuffer.wrap(payload, 1, 8).getLong();
    if (index != expectedIndex) {
      throw new LogDecodeException(
          "snapshot says it ends at row " + index + " but is stored as row " + expectedIndex);
    }
    return new Envelope(index, Arrays.copyOfRange(payload, HEADER_BYTES, end));
  }
}
