package io.picomq.protocol;

import io.picomq.protocol.DecodeException.Problem;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads the big-endian primitives of the Pico formats, turning every inconsistency into a {@link
 * DecodeException} that names the byte where it was found. A length or count is checked against the
 * bytes that remain before anything is allocated, so a lying length costs nothing.
 */
final class WireReader {

  private final ByteBuffer in;

  WireReader(byte[] bytes) {
    this.in = ByteBuffer.wrap(bytes);
  }

  int position() {
    return in.position();
  }

  int remaining() {
    return in.remaining();
  }

  int u8(String what) throws DecodeException {
    need(1, what);
    return in.get() & 0xff;
  }

  long u32(String what) throws DecodeException {
    need(4, what);
    return in.getInt() & 0xffffffffL;
  }

  long i64(String what) throws DecodeException {
    need(8, what);
    return in.getLong();
  }

  /** An unsigned 64-bit seq, refused unless it fits a {@code long}. */
  long seq() throws DecodeException {
    int at = in.position();
    long seq = i64("seq");
    if (seq < 0) {
      throw new DecodeException(
          Problem.SEQ_OUT_OF_RANGE, at, "seq " + Long.toUnsignedString(seq) + " exceeds 2^63-1");
    }
    return seq;
  }

  void version(int expected) throws DecodeException {
    int at = in.position();
    int version = u8("version");
    if (version != expected) {
      throw new DecodeException(
          Problem.UNSUPPORTED_VERSION, at, "version " + version + ", this codec reads " + expected);
    }
  }

  byte[] bytes(long length, String what) throws DecodeException {
    need(length, what);
    byte[] bytes = new byte[(int) length];
    in.get(bytes);
    return bytes;
  }

  /** A {@code u32} length and that many bytes. */
  byte[] lengthPrefixed(String what) throws DecodeException {
    return bytes(u32(what + " length"), what);
  }

  /** Everything that is left. */
  byte[] rest() {
    byte[] bytes = new byte[in.remaining()];
    in.get(bytes);
    return bytes;
  }

  /** Fails with {@code TRUNCATED} unless {@code count} items of at least {@code minBytes} fit. */
  void needItems(long count, int minBytes, String what) throws DecodeException {
    if (count * minBytes > in.remaining()) {
      throw new DecodeException(
          Problem.TRUNCATED,
          in.position(),
          count
              + " "
              + what
              + " need at least "
              + count * minBytes
              + " bytes, "
              + in.remaining()
              + " remain");
    }
  }

  /** {@code headerCount u32 | (nameLen u32, name, valueLen u32, value)*}, strictly ascending. */
  SortedMap<String, String> headers() throws DecodeException {
    long count = u32("header count");
    needItems(count, 8, "headers");
    TreeMap<String, String> headers = new TreeMap<>(RecordHeaders.NAME_ORDER);
    String previous = null;
    for (long i = 0; i < count; i++) {
      int at = in.position();
      String name = utf8("header name");
      if (name.isEmpty()) {
        throw new DecodeException(Problem.EMPTY_HEADER_NAME, at, "header " + i + " has no name");
      }
      if (previous != null && RecordHeaders.NAME_ORDER.compare(previous, name) >= 0) {
        throw new DecodeException(
            Problem.HEADERS_OUT_OF_ORDER,
            at,
            "header \"" + name + "\" follows \"" + previous + "\"");
      }
      headers.put(name, utf8("value of header " + name));
      previous = name;
    }
    return Collections.unmodifiableSortedMap(headers);
  }

  void end(String what) throws DecodeException {
    if (in.hasRemaining()) {
      throw new DecodeException(
          Problem.TRAILING_BYTES, in.position(), in.remaining() + " bytes follow the " + what);
    }
  }

  private String utf8(String what) throws DecodeException {
    int at = in.position();
    byte[] bytes = lengthPrefixed(what);
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer text = decoder.decode(ByteBuffer.wrap(bytes));
      return text.toString();
    } catch (CharacterCodingException e) {
      throw new DecodeException(Problem.MALFORMED_UTF8, at, what + " is not UTF-8");
    }
  }

  private void need(long length, String what) throws DecodeException {
    if (length > in.remaining()) {
      throw new DecodeException(
          Problem.TRUNCATED,
          in.position(),
          what + " needs " + length + " bytes, " + in.remaining() + " remain");
    }
  }
}
