package io.picomq.frontend.ds;

import java.util.Optional;

/** Where streams live: {@code /v1/stream/a/b} is the stream {@code /a/b}. */
final class StreamPath {

  static final String BASE = "/v1/stream";

  private StreamPath() {}

  /** The stream a request path names, or empty when the path is not under {@link #BASE}. */
  static Optional<String> streamName(String path) {
    if (path.startsWith(BASE + "/")) {
      return Optional.of(path.substring(BASE.length()));
    }
    return Optional.empty();
  }
}
