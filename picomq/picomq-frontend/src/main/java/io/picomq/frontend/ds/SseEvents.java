package io.picomq.frontend.ds;

import java.nio.charset.StandardCharsets;

/**
 * Server-Sent Events framing (protocol section 5.7). Each line of a payload becomes its own {@code
 * data:} line, splitting on CR LF, CR and LF alike, so a payload can never end an event early or
 * forge one (no space follows {@code data:}: clients strip exactly one, which would eat a payload's
 * own leading space).
 */
final class SseEvents {

  private SseEvents() {}

  static byte[] data(String payload) {
    return event("data", payload);
  }

  /** A control event while the stream is open. */
  static byte[] control(String nextOffset, String cursor, boolean upToDate) {
    String json =
        "{\"streamNextOffset\":\""
            + nextOffset
            + "\",\"streamCursor\":\""
            + cursor
            + "\""
            + (upToDate ? ",\"upToDate\":true" : "")
            + "}";
    return event("control", json);
  }

  /** The last control event: the stream is closed and fully delivered; no cursor follows. */
  static byte[] closed(String nextOffset) {
    return event("control", "{\"streamNextOffset\":\"" + nextOffset + "\",\"streamClosed\":true}");
  }

  private static byte[] event(String type, String payload) {
    StringBuilder out = new StringBuilder(payload.length() + 32);
    out.append("event: ").append(type).append('\n');
    int lineStart = 0;
    for (int i = 0; i < payload.length(); i++) {
      char c = payload.charAt(i);
      if (c == '\r' || c == '\n') {
        out.append("data:").append(payload, lineStart, i).append('\n');
        if (c == '\r' && i + 1 < payload.length() && payload.charAt(i + 1) == '\n') {
          i++;
        }
        lineStart = i + 1;
      }
    }
    out.append("data:").append(payload, lineStart, payload.length()).append("\n\n");
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }
}
