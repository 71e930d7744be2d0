package io.picomq.protocol;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * The stored form of a record, whichever protocol wrote it: the server's timestamp, the record's
 * headers and its body. Storing this (not the bare body) is what lets a record written through the
 * Pico protocol read back through Durable Streams, and the other way round, with timestamp and
 * headers intact.
 *
 * <p>Encoding, big-endian: {@code version u8 = 1 | timestamp i64 | headerCount u32 | (nameLen u32,
 * name, valueLen u32, value)* | body}. Names and values are UTF-8; names are non-empty and strictly
 * ascending by {@link RecordHeaders#NAME_ORDER}. The body runs to the end, so an envelope is always
 * stored as a whole (its length is the container's business).
 *
 * <p>Equality compares the body by content.
 *
 * @param timestampMillis unix milliseconds, assigned by the owning node
 * @param headers the record's headers, copied into {@link RecordHeaders#canonical canonical} form
 * @param body the record's bytes; not copied: nobody may modify the array afterwards
 */
public record Envelope(long timestampMillis, SortedMap<String, String> headers, byte[] body) {

  /** The format version this codec writes and reads. */
  public static final int VERSION = 1;

  /** version, timestamp and header count: the least an envelope takes. */
  private static final int FIXED_BYTES = 1 + 8 + 4;

  public Envelope {
    headers = RecordHeaders.canonical(headers);
    Objects.requireNonNull(body, "body");
  }

  /** An envelope; {@code headers} may be any map, it is copied in name order. */
  public static Envelope of(long timestampMillis, Map<String, String> headers, byte[] body) {
    return new Envelope(timestampMillis, RecordHeaders.canonical(headers), body);
  }

  /** The encoding described on the class. */
  public byte[] encode() {
    long size = FIXED_BYTES - 4 + WireWriter.headersSize(headers) + body.length;
    return WireWriter.of(size).u8(VERSION).i64(timestampMillis).headers(headers).bytes(body).done();
  }

  /**
   * The encoding up to the body: {@code head()} followed by {@link #body()} is {@link #encode()}.
   * Lets a writer put the body straight into its own buffer rather than copy it twice.
   */
  public byte[] head() {
    long size = FIXED_BYTES - 4 + WireWriter.headersSize(headers);
    return WireWriter.of(size).u8(VERSION).i64(timestampMillis).headers(headers).done();
  }

  /**
   * Decodes a whole envelope.
   *
   * @throws DecodeException if {@code bytes} is not a valid envelope of a known version
   */
  public static Envelope decode(byte[] bytes) throws DecodeException {
    WireReader in = new WireReader(bytes);
    in.version(VERSION);
    long timestamp = in.i64("timestamp");
    SortedMap<String, String> headers = in.headers();
    return new Envelope(timestamp, headers, in.rest());
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Envelope that
        && timestampMillis == that.timestampMillis
        && headers.equals(that.headers)
        && Arrays.equals(body, that.body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(timestampMillis, headers, Arrays.hashCode(body));
  }

  @Override
  public String toString() {
    return "Envelope[timestampMillis="
        + timestampMillis
        + ", headers="
        + headers
        + ", body="
        + body.length
        + " bytes]";
  }
}
