package io.picomq.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SortedMap;

/**
 * Writes the big-endian primitives of the Pico formats into an array sized up front. Callers add up
 * {@link #headersSize} and friends first, so nothing is copied twice.
 */
final class WireWriter {

  private final ByteBuffer out;

  private WireWriter(int size) {
    this.out = ByteBuffer.allocate(size);
  }

  /**
   * A writer for exactly {@code size} bytes.
   *
   * @throws IllegalArgumentException when the encoding would not fit a Java array
   */
  static WireWriter of(long size) {
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("the encoding would take " + size + " bytes, too many");
    }
    return new WireWriter((int) size);
  }

  /** Bytes {@link #headers} writes for these (canonical) headers. */
  static long headersSize(SortedMap<String, String> headers) {
    long size = 4;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      size += 8L + utf8Length(header.getKey()) + utf8Length(header.getValue());
    }
    return size;
  }

  WireWriter u8(int value) {
    out.put((byte) value);
    return this;
  }

  WireWriter u32(long value) {
    out.putInt((int) value);
    return this;
  }

  WireWriter i64(long value) {
    out.putLong(value);
    return this;
  }

  WireWriter bytes(byte[] bytes) {
    out.put(bytes);
    return this;
  }

  /** {@code headerCount u32 | (nameLen u32, name, valueLen u32, value)*}, in the map's order. */
  WireWriter headers(SortedMap<String, String> headers) {
    u32(headers.size());
    headers.forEach(
        (name, value) -> {
          lengthPrefixed(name.getBytes(StandardCharsets.UTF_8));
          lengthPrefixed(value.getBytes(StandardCharsets.UTF_8));
        });
    return this;
  }

  WireWriter lengthPrefixed(byte[] bytes) {
    return u32(bytes.length).bytes(bytes);
  }

  /** The encoding; every byte of the array has been written. */
  byte[] done() {
    if (out.hasRemaining()) {
      throw new IllegalStateException(
          "encoding sized " + out.capacity() + " bytes but wrote " + out.position());
    }
    return out.array();
  }

  /** UTF-8 length of well-formed text (lone surrogates were refused by RecordHeaders). */
  private static long utf8Length(String text) {
    long length = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        length += 1;
      } else if (c < 0x800) {
        length += 2;
      } else if (Character.isHighSurrogate(c)) {
        length += 4;
        i++;
      } else {
        length += 3;
      }
    }
    return length;
  }
}
