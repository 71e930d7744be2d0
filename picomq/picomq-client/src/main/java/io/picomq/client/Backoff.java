package io.picomq.client;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: the pause before retry {@code n} (from 0) is {@code min(max,
 * base * 2^n)}, of which the fraction {@code jitter} is drawn at random, so clients that failed
 * together do not all come back together. With base 50 ms, max 5 s and jitter 0.2: retry 0 waits 40
 * to 50 ms, retry 3 waits 320 to 400 ms, retry 10 and later 4 to 5 s.
 */
record Backoff(Duration base, Duration max, double jitter) {

  Backoff {
    Settings.positive(base, "base");
    Settings.positive(max, "max");
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("jitter must be between 0 and 1: " + jitter);
    }
  }

  /** The pause before retry {@code attempt} (0 for the first retry). */
  long delayNanos(int attempt, RandomGenerator random) {
    long baseNanos = base.toNanos();
    long maxNanos = max.toNanos();
    int shift = Math.min(Math.max(attempt, 0), 62);
    long full =
        baseNanos > (maxNanos >> Math.min(shift, 62))
            ? maxNanos
            : Math.min(maxNanos, baseNanos << shift);
    long drawn = (long) (full * jitter * random.nextDouble());
    return full - drawn;
  }
}
