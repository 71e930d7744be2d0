package io.picomq.sql.log;

import java.time.Duration;

/** Pauses between attempts against a failing database: 10 ms, doubling, up to a maximum. */
final class Backoff {
  private static final Duration FIRST = Duration.ofMillis(10);

  private final Duration max;

  /** Owner thread only. */
  private Duration next = FIRST;

  Backoff(Duration max) {
    this.max = max;
  }

  Duration next() {
    Duration pause = next.compareTo(max) < 0 ? next : max;
    next = pause.multipliedBy(2);
    return pause;
  }

  void reset() {
    next = FIRST;
  }
}
