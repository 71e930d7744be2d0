package io.picomq.cli.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The body of one benchmark record: a 24-byte header (magic, writer, sequence, intended send time)
 * then filler up to the record size. The reader running alongside decodes the header to measure
 * end-to-end delivery from the intended send time; both run in one process, so {@link
 * System#nanoTime} values compare.
 *
 * @param writer which writer sent it
 * @param seq the writer's count of records before this one
 * @param dueNanos the intended send time ({@link System#nanoTime})
 */
record BenchRecord(int writer, long seq, long dueNanos) {

  /** The header's size: the smallest record size {@code pico bench} accepts. */
  static final int HEADER_BYTES = 24;

  /** "PBR1": a record that does not start with it means the reader lost its framing. */
  static final int MAGIC = 0x50425231;

  /**
   * Filler for the bytes after the header: random, so that no layer gets a free ride from
   * compressing zeros. Shared read-only by every encoder.
   */
  private static final byte[] FILLER = filler(1 << 20);

  /** Encodes this record into {@code size} bytes. */
  byte[] encode(int size) {
    if (size < HEADER_BYTES) {
      throw new IllegalArgumentException("record size " + size + " < " + HEADER_BYTES);
    }
    byte[] body = new byte[size];
    ByteBuffer.wrap(body).putInt(MAGIC).putInt(writer).putLong(seq).putLong(dueNanos);
    int offset = HEADER_BYTES;
    while (offset < size) {
      int n = Math.min(size - offset, FILLER.length);
      System.arraycopy(FILLER, 0, body, offset, n);
      offset += n;
    }
    return body;
  }

  /**
   * Decodes the header at {@code offset}.
   *
   * @throws IllegalStateException when the magic is missing
   */
  static BenchRecord decode(byte[] bytes, int offset) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, HEADER_BYTES);
    int magic = buffer.getInt();
    if (magic != MAGIC) {
      throw new IllegalStateException(
          String.format(java.util.Locale.ROOT, "not a bench record (magic %08x)", magic));
    }
    return new BenchRecord(buffer.getInt(), buffer.getLong(), buffer.getLong());
  }

  private static byte[] filler(int size) {
    byte[] bytes = new byte[size];
    new SplittableRandom(0x5eed).nextBytes(bytes);
    return bytes;
  }
}
