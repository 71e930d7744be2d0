package io.picomq.sql.log;

import io.picomq.s3stream.time.Backoff;
import java.time.Duration;

/**
 * Pauses between attempts of one loop against a failing database: the engine's {@link Backoff} from
 * 10 ms doubling up to a maximum, without jitter, counting the failures since the last success.
 *
 * <p>Threading: owner thread only (the loop that fails and retries).
 */
final class RetryPauses {
  private static final Duration FIRST = Duration.ofMillis(10);

  private final Backoff backoff;

  /** Failures in a row; owner thread only. Capped: the pause stops growing long before. */
  private int failures;

  RetryPauses(Duration max) {
    this.backoff = Backoff.exponential(FIRST.compareTo(max) < 0 ? FIRST : max, max);
  }

  /** The pause after one more failure. */
  Duration next() {
    failures = Math.min(failures + 1, 64);
    return Duration.ofNanos(backoff.ceilingNanos(failures));
  }

  /** An attempt succeeded: the next failure pauses for the shortest time again. */
  void reset() {
    failures = 0;
  }
}
