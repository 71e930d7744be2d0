package io.picomq.s3stream.pgwal;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The database failures being retried right now, one per operation: what {@link
 * PostgresWals#problem()} reports (the server answers 503 and is not ready meanwhile). An operation
 * reports its failure before each retry and clears it once it succeeds or gives up.
 */
final class DatabaseProblems {

  private final ConcurrentMap<Object, String> failing = new ConcurrentHashMap<>();

  void report(Object operation, String problem) {
    failing.put(operation, problem);
  }

  void clear(Object operation) {
    failing.remove(operation);
  }

  /** One of the failures being retried, or empty when every operation works. */
  Optional<String> current() {
    return failing.values().stream().findFirst();
  }
}
