package io.picomq.s3stream.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The checksum of the WAL record framing: standard CRC-32 (ISO-HDLC, the zlib/PNG/{@link CRC32}
 * polynomial 0x04C11DB7 reflected, init and xor-out 0xFFFFFFFF) with its top bit cleared.
 *
 * <p>The upstream stores {@code (int) (crc32 & 0x7FFFFFFF)}. That is why its check value for the
 * ASCII bytes {@code "123456789"} is {@code 0x4BF43926} (1274296614) rather than the textbook
 * {@code 0xCBF43926}: the two differ only in bit 31. Every answer in the upstream's {@code
 * crc/known_answers.json} is reproduced this way; CRC-32C (Castagnoli) is not what it uses. The
 * mask leaves a 31-bit check, which still detects every single-byte change in a record of up to 1
 * MiB (see crc.md for how that was verified).
 *
 * <p>{@link CRC32} is an intrinsic on current JVMs (see {@code CodecBenchmark}), so there is no
 * reason for a table of our own.
 */
public final class Crc32 {

  /** The bits the upstream keeps. */
  static final int MASK = 0x7FFFFFFF;

  private Crc32() {}

  /**
   * The masked CRC of {@code length} bytes of {@code buf} from absolute {@code index}. Moves no
   * index of {@code buf} and does not release it.
   *
   * @return a value in {@code [0, 2^31)}
   */
  public static int of(ByteBuf buf, int index, int length) {
    CRC32 crc = new CRC32();
    if (length > 0) {
      int parts = buf.nioBufferCount();
      if (parts == 1) {
        crc.update(buf.nioBuffer(index, length));
      } else if (parts > 1) {
        for (ByteBuffer part : buf.nioBuffers(index, length)) {
          crc.update(part);
        }
      } else {
        // A buffer without NIO views (none of Netty's common ones): copy, correctness first.
        crc.update(ByteBufUtil.getBytes(buf, index, length, false));
      }
    }
    return (int) (crc.getValue() & MASK);
  }

  /** The masked CRC of the readable bytes of {@code buf}; moves no index, releases nothing. */
  public static int of(ByteBuf buf) {
    return of(buf, buf.readerIndex(), buf.readableBytes());
  }

  /** The masked CRC of {@code bytes}. */
  public static int of(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes);
    return (int) (crc.getValue() & MASK);
  }
}
