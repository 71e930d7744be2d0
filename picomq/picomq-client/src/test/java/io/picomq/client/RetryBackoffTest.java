package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryBackoffTest {

  private final RetryBackoff backoff =
      new RetryBackoff(Duration.ofMillis(50), Duration.ofSeconds(5), 0.2);

  @Test
  void pausesDoubleUpToTheMaximum() {
    Random noJitter =
        new Random(1) {
          @Override
          public double nextDouble() {
            return 0;
          }
        };
    assertThat(backoff.delayNanos(0, noJitter)).isEqualTo(Duration.ofMillis(50).toNanos());
    assertThat(backoff.delayNanos(3, noJitter)).isEqualTo(Duration.ofMillis(400).toNanos());
    assertThat(backoff.delayNanos(10, noJitter)).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(backoff.delayNanos(1_000, noJitter)).isEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void jitterTakesAtMostItsFraction() {
    Random random = new Random(Long.getLong("picomq.seed", 7));
    for (int attempt = 0; attempt < 70; attempt++) {
      long full =
          backoff.delayNanos(
              attempt,
              new Random() {
                @Override
                public double nextDouble() {
                  return 0;
                }
              });
      long delay = backoff.delayNanos(attempt, random);
      assertThat(delay).isBetween((long) (full * 0.8), full);
    }
  }

  @Test
  void retryAfterIsAFloorCappedAtAMinute() {
    Random noJitter =
        new Random(1) {
          @Override
          public double nextDouble() {
            return 0;
          }
        };
    PicoException plain = new ServerException(500, "internal", "", null, null);
    assertThat(backoff.pauseNanos(0, noJitter, plain)).isEqualTo(Duration.ofMillis(50).toNanos());
    assertThat(backoff.pauseNanos(0, noJitter, unavailable(Optional.empty())))
        .isEqualTo(Duration.ofMillis(50).toNanos());
    // Longer than the exponential pause: the server's word wins.
    assertThat(backoff.pauseNanos(0, noJitter, unavailable(Optional.of(Duration.ofSeconds(2)))))
        .isEqualTo(Duration.ofSeconds(2).toNanos());
    // Shorter: the exponential pause stays.
    assertThat(backoff.pauseNanos(10, noJitter, unavailable(Optional.of(Duration.ofSeconds(1)))))
        .isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(backoff.pauseNanos(0, noJitter, unavailable(Optional.of(Duration.ofDays(1)))))
        .isEqualTo(RetryBackoff.MAX_RETRY_AFTER.toNanos());
  }

  private static ServiceUnavailableException unavailable(Optional<Duration> retryAfter) {
    return new ServiceUnavailableException(503, "unavailable", "", null, null, retryAfter);
  }
}
