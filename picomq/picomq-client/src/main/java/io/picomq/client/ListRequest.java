package io.picomq.client;

import java.util.Objects;
import java.util.Optional;

/**
 * What one {@link PicoClient#list} asks for. Immutable: e.g. {@code
 * ListRequest.prefix("logs/").limit(100)}.
 *
 * @param prefix only streams whose name starts with this ("" for all)
 * @param limit at most this many streams; 0: the server's default
 * @param startAfter only streams named after this (the last name of the previous page)
 */
public record ListRequest(String prefix, int limit, Optional<String> startAfter) {

  public ListRequest {
    Objects.requireNonNull(prefix, "prefix");
    OptionChecks.notNegative(limit, "limit");
    Objects.requireNonNull(startAfter, "startAfter");
  }

  /** Every stream (page by page). */
  public static ListRequest all() {
    return new ListRequest("", 0, Optional.empty());
  }

  /** The streams whose name starts with {@code prefix}. */
  public static ListRequest prefix(String prefix) {
    return new ListRequest(prefix, 0, Optional.empty());
  }

  /** A copy asking for at most {@code limit} streams. */
  public ListRequest limit(int limit) {
    return new ListRequest(prefix, limit, startAfter);
  }

  /** A copy starting after the stream named {@code name}. */
  public ListRequest startAfter(String name) {
    return new ListRequest(prefix, limit, Optional.of(name));
  }
}
