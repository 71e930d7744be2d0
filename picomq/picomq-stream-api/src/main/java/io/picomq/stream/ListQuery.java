package io.picomq.stream;

import java.util.Objects;
import java.util.Optional;

/**
 * One page of the registry, in name order (by {@link String#compareTo}).
 *
 * @param prefix only names starting with it; empty string for all
 * @param startAfter only names strictly after it (the last name of the previous page)
 * @param limit at most this many streams, at least 1
 */
public record ListQuery(String prefix, Optional<String> startAfter, int limit) {

  public ListQuery {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1: " + limit);
    }
  }
}
