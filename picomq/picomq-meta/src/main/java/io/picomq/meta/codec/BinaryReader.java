package io.picomq.meta.codec;

import io.picomq.meta.codec.MetadataDecodeException.Kind;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A bounds-checked big-endian reader over a byte range. Every read past the end raises {@link
 * Kind#TRUNCATED}; counts are checked against the bytes left before anything is allocated, so a
 * corrupt count cannot make the decoder allocate gigabytes.
 */
final class BinaryReader {

  private final byte[] bytes;
  private final int end;
  private int position;

  BinaryReader(byte[] bytes, int offset, int length) {
    this.bytes = bytes;
    this.position = offset;
    this.end = offset + length;
  }

  int remaining() {
    return end - position;
  }

  int u8() throws MetadataDecodeException {
    need(1);
    return bytes[position++] & 0xFF;
  }

  int u16() throws MetadataDecodeException {
    need(2);
    int value = ((bytes[position] & 0xFF) << 8) | (bytes[position + 1] & 0xFF);
    position += 2;
    return value;
  }

  int i32() throws MetadataDecodeException {
    need(4);
    int value = 0;
    for (int i = 0; i < 4; i++) {
      value = (value << 8) | (bytes[position++] & 0xFF);
    }
    return value;
  }

  long i64() throws MetadataDecodeException {
    need(8);
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (bytes[position++] & 0xFF);
    }
    return value;
  }

  /**
   * A count of elements that each take at least {@code minElementBytes}: negative is invalid, more
   * than the remaining bytes can hold is truncation.
   */
  int count(String what, int minElementBytes) throws MetadataDecodeException {
    int count = i32();
    if (count < 0) {
      throw new MetadataDecodeException(Kind.INVALID_FIELD, what + " count " + count + " < 0");
    }
    if ((long) count * minElementBytes > remaining()) {
      throw new MetadataDecodeException(
          Kind.TRUNCATED,
          what + " count " + count + " needs more than the " + remaining() + " left");
    }
    return count;
  }

  /** A u16-length UTF-8 string; malformed UTF-8 is invalid rather than replaced. */
  String string(String what) throws MetadataDecodeException {
    int length = u16();
    need(length);
    try {
      String value =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes, position, length))
              .toString();
      position += length;
      return value;
    } catch (CharacterCodingException e) {
      throw new MetadataDecodeException(Kind.INVALID_FIELD, what + " is not valid UTF-8", e);
    }
  }

  /** An i32-length byte array. */
  byte[] bytes(String what) throws MetadataDecodeException {
    int length = i32();
    if (length < 0) {
      throw new MetadataDecodeException(Kind.INVALID_FIELD, what + " length " + length + " < 0");
    }
    need(length);
    byte[] value = new byte[length];
    System.arraycopy(bytes, position, value, 0, length);
    position += length;
    return value;
  }

  void expectEnd(String what) throws MetadataDecodeException {
    if (position != end) {
      throw new MetadataDecodeException(
          Kind.TRAILING_BYTES, (end - position) + " bytes follow the " + what);
    }
  }

  private void need(int count) throws MetadataDecodeException {
    if (count > end - position) {
      throw new MetadataDecodeException(
          Kind.TRUNCATED,
          "needed " + count + " bytes at " + position + ", " + (end - position) + " left");
    }
  }
}
