package io.picomq.stream;

import java.util.Map;
import java.util.Objects;

/**
 * A record to append: application headers and a body. The service assigns its seq and timestamp.
 *
 * @param headers header names to values, copied on the way in; may be empty
 * @param body the record's bytes; ownership passes to the record: nobody mutates the array
 *     afterwards (it is not copied, so large bodies cost nothing extra)
 */
public record NewRecord(Map<String, String> headers, byte[] body) {

  public NewRecord {
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }

  /** A record without headers. */
  public static NewRecord of(byte[] body) {
    return new NewRecord(Map.of(), body);
  }
}
