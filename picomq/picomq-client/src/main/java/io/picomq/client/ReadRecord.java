package io.picomq.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * A record as read back from a stream. Equality compares the body by content.
 *
 * <p>Under Durable Streams a JSON stream gives one record per message; any other stream gives one
 * record per chunk the server answered with (its {@code seq} is the chunk's first seq, and it may
 * hold several appended bodies run together). Durable Streams carries neither timestamps nor
 * headers, so there {@code timestampMillis} is 0 and {@code headers} is empty.
 *
 * @param seq the record's position in the stream
 * @param timestampMillis unix milliseconds the server stamped it with; 0 when unknown
 * @param headers the record's application headers
 * @param body not copied: nobody may modify the array afterwards
 */
public record ReadRecord(long seq, long timestampMillis, Map<String, String> headers, byte[] body) {

  public ReadRecord {
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }

  /** The body decoded as UTF-8 (malformed bytes become U+FFFD). */
  public String bodyAsString() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ReadRecord that
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
    return "ReadRecord[seq="
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
