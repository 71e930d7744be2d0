package io.picomq.frontend.http;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The rule for stream names, the same for every protocol: a name is a decoded URL path such as
 * {@code /orders/2024/42}. It starts with {@code /}; its segments are not empty (no {@code //}, no
 * trailing {@code /}) and not {@code .} or {@code ..}; it has no control characters; and it is at
 * most {@link #MAX_BYTES} bytes of UTF-8.
 */
public final class StreamNames {

  /**
   * A name is stored as the metadata key {@code stream/<name>}, and a key is at most 1024 bytes of
   * UTF-8: so a name is at most 1017.
   */
  public static final int MAX_BYTES = 1024 - "stream/".length();

  private StreamNames() {}

  /** Why {@code name} is not a valid stream name, or empty when it is. */
  public static Optional<String> problem(String name) {
    if (name.isEmpty() || name.charAt(0) != '/') {
      return Optional.of("a stream name starts with /");
    }
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      return Optional.of("a stream name is at most " + MAX_BYTES + " bytes");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return Optional.of("a stream name has no control characters");
      }
    }
    int start = 1;
    while (true) {
      int slash = name.indexOf('/', start);
      String segment = slash < 0 ? name.substring(start) : name.substring(start, slash);
      if (segment.isEmpty()) {
        return Optional.of("a stream name has no empty segments");
      }
      if (segment.equals(".") || segment.equals("..")) {
        return Optional.of("a stream name has no . or .. segments");
      }
      if (slash < 0) {
        return Optional.empty();
      }
      start = slash + 1;
    }
  }
}
