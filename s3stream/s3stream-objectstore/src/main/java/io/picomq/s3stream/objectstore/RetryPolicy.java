package io.picomq.s3stream.objectstore;

import io.picomq.s3stream.time.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RetryingObjectStore} repeats an operation that failed with a retryable {@link
 * ObjectStoreException}.
 *
 * <p>Attempt {@code n} (counting from 1) that fails is followed, after a backoff, by attempt {@code
 * n + 1}. The backoff before attempt {@code n + 1} is {@link #backoff()}'s pause after {@code n}
 * failures: drawn uniformly from {@code [b/2, b]} where {@code b = min(maxBackoff, initialBackoff *
 * 2^(n-1))}: exponential growth, and jitter so that many clients throttled together do not come
 * back together. With the defaults, b runs 100 ms, 200 ms, 400 ms, ... and stops growing at 5 s.
 *
 * @param maxAttempts the most attempts, the first included; 1 disables retries
 * @param initialBackoff the ceiling of the first backoff
 * @param maxBackoff the ceiling of every backoff
 * @param maxElapsed no attempt starts later than this after the first began
 * @param attemptTimeout an attempt still running after this long counts as a transient failure (its
 *     late answer, if any, is discarded)
 */
public record RetryPolicy(
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    Duration maxElapsed,
    Duration attemptTimeout) {

  public RetryPolicy {
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    Objects.requireNonNull(maxElapsed, "maxElapsed");
    Objects.requireNonNull(attemptTimeout, "attemptTimeout");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
    }
    if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "need 0 <= initialBackoff <= maxBackoff: " + initialBackoff + ", " + maxBackoff);
    }
    if (maxElapsed.isNegative() || !attemptTimeout.isPositive()) {
      throw new IllegalArgumentException(
          "maxElapsed must be >= 0 and attemptTimeout > 0: " + maxElapsed + ", " + attemptTimeout);
    }
  }

  /** 10 attempts, backoff 100 ms doubling to 5 s, at most 2 minutes, 60 s per attempt. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(
        10,
        Duration.ofMillis(100),
        Duration.ofSeconds(5),
        Duration.ofMinutes(2),
        Duration.ofSeconds(60));
  }

  /** A policy that tries once: failures, even transient ones, reach the caller as they are. */
  public static RetryPolicy none() {
    return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ofSeconds(60));
  }

  /**
   * The backoff between attempts: from {@code initialBackoff} doubling to {@code maxBackoff}, each
   * pause drawn from the upper half of its ceiling.
   */
  public Backoff backoff() {
    return new Backoff(initialBackoff, maxBackoff, 0.5);
  }
}
