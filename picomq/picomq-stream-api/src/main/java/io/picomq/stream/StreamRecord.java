package io.picomq.stream;

import java.util.Map;
import java.util.Objects;

/**
 * A stored record as read back.
 *
 * @param seq its position in the stream
 * @param timestampMillis assigned by the owning node at append time; never decreases along a stream
 * @param headers the headers it was appended with
 * @param body its bytes; shared, never mutated
 */
public record StreamRecord(
    long seq, long timestampMillis, Map<String, String> headers, byte[] body) {

  public StreamRecord {
    headers = Map.copyOf(headers);
    Objects.requireNonNull(body, "body");
  }
}
