package io.picomq.s3stream.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final Duration MS_100 = Duration.ofMillis(100);
  private static final Duration S_5 = Duration.ofSeconds(5);

  @Test
  void theCeilingDoublesUpToTheMaximum() {
    Backoff backoff = Backoff.exponential(MS_100, S_5);
    long[] expectedMillis = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
    for (int failures = 1; failures <= expectedMillis.length; failures++) {
      assertThat(Duration.ofNanos(backoff.ceilingNanos(failures)).toMillis())
          .as("after %d failures", failures)
          .isEqualTo(expectedMillis[failures - 1]);
    }
    assertThat(backoff.ceilingNanos(200)).as("no overflow").isEqualTo(S_5.toNanos());
    assertThat(backoff.ceilingNanos(Integer.MAX_VALUE)).isEqualTo(S_5.toNanos());
    assertThat(backoff.ceilingNanos(0)).as("as after one failure").isEqualTo(MS_100.toNanos());
  }

  @Test
  void withoutJitterThePauseIsTheCeiling() {
    Backoff backoff = Backoff.exponential(MS_100, S_5);
    SplittableRandom random = new SplittableRandom(1);
    for (int failures = 1; failures < 10; failures++) {
      assertThat(backoff.delayNanos(failures, random)).isEqualTo(backoff.ceilingNanos(failures));
    }
  }

  @Test
  void jitterDrawsFromTheUpperPartOfTheCeilingAndReachesBothEnds() {
    Backoff backoff = new Backoff(MS_100, S_5, 0.5);
    SplittableRandom random = new SplittableRandom(7);
    long ceiling = backoff.ceilingNanos(3);
    long lowest = Long.MAX_VALUE;
    long highest = 0;
    for (int i = 0; i < 10_000; i++) {
      long delay = backoff.delayNanos(3, random);
      assertThat(delay).isBetween(ceiling / 2, ceiling);
      lowest = Math.min(lowest, delay);
      highest = Math.max(highest, delay);
    }
    assertThat(lowest).as("spread over the lower half too").isLessThan(ceiling * 52 / 100);
    assertThat(highest).isGreaterThan(ceiling * 98 / 100);
  }

  @Test
  void aZeroFirstPauseNeverWaits() {
    Backoff none = new Backoff(Duration.ZERO, Duration.ZERO, 1);
    assertThat(none.ceilingNanos(5)).isZero();
    assertThat(none.delayNanos(5, new SplittableRandom(3))).isZero();
  }

  @Test
  void nonsenseIsRejected() {
    assertThatThrownBy(() -> Backoff.exponential(S_5, MS_100)).hasMessageContaining("first <= max");
    assertThatThrownBy(() -> Backoff.exponential(Duration.ofMillis(-1), MS_100))
        .hasMessageContaining("0 <= first");
    assertThatThrownBy(() -> new Backoff(MS_100, S_5, 1.5)).hasMessageContaining("jitter");
    assertThatThrownBy(() -> new Backoff(MS_100, S_5, Double.NaN)).hasMessageContaining("jitter");
  }
}
