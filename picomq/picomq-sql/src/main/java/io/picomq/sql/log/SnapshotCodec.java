package io.picomq.sql.log;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The envelope around a state machine's snapshot, version 1, and the manifest of a snapshot stored
 * in chunks, version 2. Big-endian.
 *
 * <p>Version 1, the snapshot itself (once the whole payload of the snapshot row; now the chunks of
 * a version 2 row, concatenated):
 *
 * <pre>
 * offset  size  field
 *      0     1  format version = 1
 *      1     8  the index of the last row the snapshot includes (equals the row's idx column)
 *      9        the state machine's encodeSnapshot bytes
 *  len-4     4  CRC32C of every byte before it
 * </pre>
 *
 * <p>Version 2, a manifest in the snapshot row, naming the chunk rows {@code (idx, writer, 0..n-1)}
 * whose payloads, in {@code seq} order, are a version 1 envelope of {@code totalBytes}:
 *
 * <pre>
 * offset  size  field
 *      0     1  format version = 2
 *      1     8  index (equals the row's idx column and the chunks' idx)
 *      9     8  writer: the chunks' writer column
 *     17     4  n, the number of chunks (at least 1)
 *     21     8  totalBytes, the envelope's length
 *     29     4  CRC32C of the 29 bytes before it
 * </pre>
 */
final class SnapshotCodec {
  static final byte VERSION = 1;
  static final byte CHUNKED = 2;
  static final int MANIFEST_BYTES = 1 + 8 + 8 + 4 + 8 + 4;
  private static final int HEADER_BYTES = 1 + 8;
  private static final int CRC_BYTES = 4;

  /** A decoded envelope: the state bytes still need the state machine's decoder. */
  record Envelope(long index, byte[] state) {}

  /** Where the chunks of a snapshot are, and what they add up to. */
  record Manifest(long index, long writer, int chunks, long totalBytes) {}

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

  /** Whether a snapshot row's payload is a {@link Manifest} rather than the envelope itself. */
  static boolean isManifest(byte[] payload) {
    return payload.length > 0 && payload[0] == CHUNKED;
  }

  static byte[] encodeManifest(Manifest manifest) {
    ByteBuffer out = ByteBuffer.allocate(MANIFEST_BYTES);
    out.put(CHUNKED)
        .putLong(manifest.index())
        .putLong(manifest.writer())
        .putInt(manifest.chunks())
        .putLong(manifest.totalBytes());
    out.putInt(RowCodec.crc(out.array(), out.position()));
    return out.array();
  }

  static Manifest decodeManifest(long expectedIndex, byte[] payload) throws LogDecodeException {
    if (payload.length != MANIFEST_BYTES || payload[0] != CHUNKED) {
      throw new LogDecodeException(
          "a chunked snapshot's manifest is " + MANIFEST_BYTES + " bytes, not " + payload.length);
    }
    ByteBuffer in = ByteBuffer.wrap(payload);
    if (in.getInt(MANIFEST_BYTES - CRC_BYTES)
        != RowCodec.crc(payload, MANIFEST_BYTES - CRC_BYTES)) {
      throw new LogDecodeException("snapshot manifest checksum mismatch");
    }
    Manifest manifest = new Manifest(in.getLong(1), in.getLong(9), in.getInt(17), in.getLong(21));
    if (manifest.index() != expectedIndex) {
      throw new LogDecodeException(
          "snapshot manifest says it ends at row "
              + manifest.index()
              + " but is stored as row "
              + expectedIndex);
    }
    if (manifest.chunks() < 1
        || manifest.totalBytes() < manifest.chunks()
        || manifest.totalBytes() > Integer.MAX_VALUE - 8) {
      throw new LogDecodeException(
          "snapshot manifest names "
              + manifest.chunks()
              + " chunks of "
              + manifest.totalBytes()
              + " bytes in all");
    }
    return manifest;
  }
}
