package io.picomq.s3stream.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.time.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void backoffCeilingDoublesUpToTheMaximum() {
    Backoff policy = RetryPolicy.defaults().backoff();
    long[] expectedMillis = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
    for (int attempt = 1; attempt <= expectedMillis.length; attempt++) {
      assertThat(Duration.ofNanos(policy.ceilingNanos(attempt)).toMillis())
          .as("after attempt %d", attempt)
          .isEqualTo(expectedMillis[attempt - 1]);
    }
    assertThat(policy.ceilingNanos(200)).as("no overflow").isEqualTo(5_000_000_000L);
  }

  @Test
  void nonsensePoliciesAreRejected() {
    Duration s = Duration.ofSeconds(1);
    assertThatThrownBy(() -> new RetryPolicy(0, s, s, s, s)).hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> new RetryPolicy(3, s.multipliedBy(2), s, s, s))
        .hasMessageContaining("initialBackoff <= maxBackoff");
    assertThatThrownBy(() -> new RetryPolicy(3, s, s, s, Duration.ZERO))
        .hasMessageContaining("attemptTimeout");
  }
}
