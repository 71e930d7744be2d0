package io.picomq.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * A record to append: application headers and a body. Equality compares the body by content.
 *
 * <p>Under Durable Streams there are no per-record headers on the wire: appending a record with
 * headers there fails with {@link UnsupportedByProtocolException}.
 *
 * @param headers copied; names non-empty, sorted by the server
 * @param body not copied: nobody may modify the array afterwards
 */
public record Record(Map<String, String> headers, byte[] body) {

  public Record {
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }

  /** A record without headers. */
  public static Record of(byte[] body) {
    return new Record(Map.of(), body);
  }

  /** A record without headers whose body is {@code utf8} encoded as UTF-8. */
  public static Record of(String utf8) {
    return new Record(Map.of(), utf8.getBytes(StandardCharsets.UTF_8));
  }

  /** A record with headers. */
  public static Record of(Map<String, String> headers, byte[] body) {
    return new Record(headers, body);
  }

  /** The body decoded as UTF-8 (malformed bytes become U+FFFD). */
  public String bodyAsString() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Record that
        && headers.equals(that.headers)
        && Arrays.equals(body, that.body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(headers, Arrays.hashCode(body));
  }

  @Override
  public String toString() {
    return "Record[headers=" + headers + ", body=" + body.length + " bytes]";
  }
}
