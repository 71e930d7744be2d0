package io.picomq.sql.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPausesTest {

  @Test
  void pausesDoubleFromTenMillisecondsToTheMaximumAndStartOverAfterASuccess() {
    RetryPauses pauses = new RetryPauses(Duration.ofMillis(50));
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(10));
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(20));
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(40));
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(50));
    for (int i = 0; i < 100; i++) {
      assertThat(pauses.next()).isEqualTo(Duration.ofMillis(50));
    }
    pauses.reset();
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void aMaximumBelowTenMillisecondsIsEveryPause() {
    RetryPauses pauses = new RetryPauses(Duration.ofMillis(2));
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(2));
    assertThat(pauses.next()).isEqualTo(Duration.ofMillis(2));
  }
}
