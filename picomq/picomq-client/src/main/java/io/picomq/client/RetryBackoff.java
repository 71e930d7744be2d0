package io.picomq.client;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: the pause before retry {@code n} (from 0) is {@code min(max,
 * base * 2^n)}, of which the fraction {@code jitter} is drawn at random, so clients that failed
 * together do not all come back together. With base 50 ms, max 5 s and jitter 0.2: retry 0 waits 40
 * to 50 ms, retry 3 waits 320 to 400 ms, retry 10 and later 4 to 5 s.
 *
 * <p>One backoff for every retry the SDK makes (one-shot calls, producer sessions, consumers). When
 * the failure is a {@link ServiceUnavailableException} with a {@code Retry-After}, that duration is
 * a floor: {@link #pauseNanos} never comes back sooner than the server asked, even if the
 * exponential pause is shorter, so a recovering server is not hammered. It is also a cap on how
 * long waiting is sensible: a caller with a deadline (a producer's delivery timeout, a call's
 * {@code retryUnavailable} budget) gives up at once when the pause would end past it, rather than
 * waiting only to fail. A {@code Retry-After} over {@link #MAX_RETRY_AFTER} counts as that much: a
 * client that follows a stream forever looks again after a minute whatever the server guessed.
 */
record RetryBackoff(Duration base, Duration max, double jitter) {

  /** The longest {@code Retry-After} honoured as it is. */
  static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);

  RetryBackoff {
    OptionChecks.positive(base, "base");
    OptionChecks.positive(max, "max");
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

  /**
   * The pause before retry {@code attempt} after {@code failure}: {@link #delayNanos}, or the
   * server's {@code Retry-After} (at most {@link #MAX_RETRY_AFTER}) if that is longer.
   */
  long pauseNanos(int attempt, RandomGenerator random, Throwable failure) {
    long delay = delayNanos(attempt, random);
    if (failure instanceof ServiceUnavailableException unavailable
        && unavailable.retryAfter().isPresent()) {
      Duration asked = unavailable.retryAfter().get();
      long floor =
          asked.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER.toNanos() : asked.toNanos();
      return Math.max(delay, floor);
    }
    return delay;
  }
}
