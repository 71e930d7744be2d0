package io.picomq.s3stream.time;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How long to wait before trying again, after {@code n} attempts in a row failed: exponential
 * growth up to a ceiling, and jitter so that many callers that failed together do not come back
 * together.
 *
 * <p>The ceiling after {@code n} failures (counting from 1) is {@code b = min(max, first *
 * 2^(n-1))}; {@link #delayNanos} draws the pause uniformly from {@code [b - jitter * b, b]}. With
 * first 100 ms, max 5 s and jitter 0.5: after the first failure 50 to 100 ms, after the third 200
 * to 400 ms, from the seventh on 2.5 to 5 s. With jitter 0 the pause is exactly {@code b}.
 *
 * @param first the ceiling after the first failure; may be zero (no pause at all)
 * @param max the largest ceiling; at least {@code first}
 * @param jitter the fraction of the ceiling drawn at random, from 0 (none) to 1
 */
public record Backoff(Duration first, Duration max, double jitter) {

  public Backoff {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(max, "max");
    if (first.isNegative() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException("need 0 <= first <= max: " + first + ", " + max);
    }
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("jitter must be between 0 and 1: " + jitter);
    }
  }

  /** A backoff without jitter: the pause after {@code n} failures is exactly the ceiling. */
  public static Backoff exponential(Duration first, Duration max) {
    return new Backoff(first, max, 0);
  }

  /** The ceiling {@code b} after {@code failures} failures in a row (counting from 1). */
  public long ceilingNanos(int failures) {
    long firstNanos = first.toNanos();
    long maxNanos = max.toNanos();
    int shift = Math.min(Math.max(failures - 1, 0), 62);
    if (firstNanos == 0) {
      return 0;
    }
    // first << shift would overflow, or pass max, exactly when first > max >> shift.
    return firstNanos > (maxNanos >> shift) ? maxNanos : Math.min(maxNanos, firstNanos << shift);
  }

  /** The pause after {@code failures} failures in a row: the ceiling less a random part of it. */
  public long delayNanos(int failures, RandomGenerator random) {
    long ceiling = ceilingNanos(failures);
    if (jitter == 0 || ceiling == 0) {
      return ceiling;
    }
    long spread = (long) (ceiling * jitter);
    return ceiling - random.nextLong(spread + 1);
  }
}
