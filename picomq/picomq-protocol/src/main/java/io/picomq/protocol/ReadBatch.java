package io.picomq.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * The binary batch a read answers with ({@code format=binary}, {@link
 * PicoMediaTypes#BATCH_BINARY}), big-endian: {@code version u8 = 1 | count u32 | (seq u64,
 * timestamp i64, headerCount u32, (nameLen u32, name, valueLen u32, value)*, bodyLen u32, body)*}.
 * Headers as in {@link Envelope}; a seq must fit a signed 64-bit integer. Nothing may follow the
 * last record.
 */
public final class ReadBatch {

  public static final int VERSION = 1;

  /** Seq, timestamp, header count and body length: the least a record takes. */
  private static final int MIN_RECORD_BYTES = 8 + 8 + 4 + 4;

  private ReadBatch() {}

  /**
   * One record as read. Equality compares the body by content.
   *
   * @param seq its position in the stream, at least 0
   * @param timestampMillis unix milliseconds, assigned by the server
   * @param headers copied into {@link RecordHeaders#canonical canonical} form
   * @param body not copied: nobody may modify the array afterwards
   */
  public record Entry(
      long seq, long timestampMillis, SortedMap<String, String> headers, byte[] body) {

    public Entry {
      if (seq < 0) {
        throw new IllegalArgumentException("seq must not be negative: " + seq);
      }
      headers = RecordHeaders.canonical(headers);
      Objects.requireNonNull(body, "body");
    }

    public static Entry of(
        long seq, long timestampMillis, Map<String, String> headers, byte[] body) {
      return new Entry(seq, timestampMillis, RecordHeaders.canonical(headers), body);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Entry that
          && seq == that.seq
          && timestampMillis == that.timestampMillis
          && headers.equals(that.headers)
          && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
      return Objects.hash(seq, timestampMillis, headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
      return "Entry[seq="
          + seq
          + ", timestampMillis="
          + timestampMillis
          + ", headers="
          + headers
          + ", body="
          + body.length
          + " bytes]";
    }
  }

  public static byte[] encode(List<Entry> records) {
    long size = 1 + 4;
    for (Entry record : records) {
      size += 16 + WireWriter.headersSize(record.headers()) + 4 + record.body().length;
    }
    WireWriter out = WireWriter.of(size).u8(VERSION).u32(records.size());
    for (Entry record : records) {
      out.i64(record.seq())
          .i64(record.timestampMillis())
          .headers(record.headers())
          .lengthPrefixed(record.body());
    }
    return out.done();
  }

  /**
   * Decodes a whole batch; a batch may hold no records.
   *
   * @throws DecodeException if {@code bytes} is not a valid batch of a known version
   */
  public static List<Entry> decode(byte[] bytes) throws DecodeException {
    WireReader in = new WireReader(bytes);
    in.version(VERSION);
    long count = in.u32("record count");
    in.needItems(count, MIN_RECORD_BYTES, "records");
    List<Entry> records = new ArrayList<>((int) count);
    for (long i = 0; i < count; i++) {
      long seq = in.seq();
      long timestamp = in.i64("timestamp");
      SortedMap<String, String> headers = in.headers();
      records.add(new Entry(seq, timestamp, headers, in.lengthPrefixed("body")));
    }
    in.end("last record");
    return List.copyOf(records);
  }
}
