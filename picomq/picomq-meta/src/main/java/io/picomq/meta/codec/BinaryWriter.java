package io.picomq.meta.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable big-endian byte sink. Owned by one encoding call; not thread-safe. */
final class BinaryWriter {

  private byte[] bytes;
  private int position;

  BinaryWriter(int initialCapacity) {
    this.bytes = new byte[Math.max(16, initialCapacity)];
  }

  int position() {
    return position;
  }

  void u8(int value) {
    ensure(1);
    bytes[position++] = (byte) value;
  }

  void u16(int value) {
    ensure(2);
    bytes[position++] = (byte) (value >>> 8);
    bytes[position++] = (byte) value;
  }

  void i32(int value) {
    ensure(4);
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes[position++] = (byte) (value >>> shift);
    }
  }

  void i64(long value) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      bytes[position++] = (byte) (value >>> shift);
    }
  }

  /**
   * A string as a u16 length and UTF-8 bytes. Commands and states only hold strings already checked
   * to be well formed and short enough.
   */
  void string(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    if (utf8.length > 0xFFFF) {
      throw new IllegalArgumentException("string of " + utf8.length + " bytes is too long");
    }
    u16(utf8.length);
    raw(utf8, 0, utf8.length);
  }

  /** A byte array as an i32 length and the bytes. */
  void bytes(byte[] value) {
    i32(value.length);
    raw(value, 0, value.length);
  }

  void raw(byte[] source, int offset, int length) {
    ensure(length);
    System.arraycopy(source, offset, bytes, position, length);
    position += length;
  }

  /** The bytes written so far. */
  byte[] toByteArray() {
    return Arrays.copyOf(bytes, position);
  }

  /** The internal array; only its first {@link #position()} bytes are written. */
  byte[] array() {
    return bytes;
  }

  private void ensure(int more) {
    if (position + more > bytes.length) {
      long wanted = Math.max((long) bytes.length * 2, (long) position + more);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("encoding exceeds 2 GiB");
      }
      bytes = Arrays.copyOf(bytes, (int) wanted);
    }
  }
}
