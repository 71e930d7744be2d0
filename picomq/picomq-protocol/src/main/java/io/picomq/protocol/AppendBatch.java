package io.picomq.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * The binary batch a client appends ({@link PicoMediaTypes#BATCH_BINARY} in a request), big-endian:
 * {@code version u8 = 1 | count u32 | (headerCount u32, (nameLen u32, name, valueLen u32, value)*,
 * bodyLen u32, body)*}. Headers as in {@link Envelope}. Nothing may follow the last record.
 */
public final class AppendBatch {

  public static final int VERSION = 1;

  /** Header count and body length: the least a record takes. */
  private static final int MIN_RECORD_BYTES = 4 + 4;

  private AppendBatch() {}

  /**
   * One record to append. Equality compares the body by content.
   *
   * @param headers copied into {@link RecordHeaders#canonical canonical} form
   * @param body not copied: nobody may modify the array afterwards
   */
  public record Entry(SortedMap<String, String> headers, byte[] body) {

    public Entry {
      headers = RecordHeaders.canonical(headers);
      Objects.requireNonNull(body, "body");
    }

    public static Entry of(Map<String, String> headers, byte[] body) {
      return new Entry(RecordHeaders.canonical(headers), body);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Entry that
          && headers.equals(that.headers)
          && Arrays.equals(body, that.body);
    }

    @Override
    public int hashCode() {
      return Objects.hash(headers, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
      return "Entry[headers=" + headers + ", body=" + body.length + " bytes]";
    }
  }

  public static byte[] encode(List<Entry> records) {
    long size = 1 + 4;
    for (Entry record : records) {
      size += WireWriter.headersSize(record.headers()) + 4 + record.body().length;
    }
    WireWriter out = WireWriter.of(size).u8(VERSION).u32(records.size());
    for (Entry record : records) {
      out.headers(record.headers()).lengthPrefixed(record.body());
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
      SortedMap<String, String> headers = in.headers();
      records.add(new Entry(headers, in.lengthPrefixed("body")));
    }
    in.end("last record");
    return List.copyOf(records);
  }
}
