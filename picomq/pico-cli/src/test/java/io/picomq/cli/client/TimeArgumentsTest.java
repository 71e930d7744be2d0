package io.picomq.cli.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TimeArgumentsTest {

  @Test
  void durationsInSecondsUnitsOrIso() {
    assertThat(TimeArguments.duration("--ttl", "3600")).isEqualTo(Duration.ofHours(1));
    assertThat(TimeArguments.duration("--ttl", "90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(TimeArguments.duration("--ttl", "15m")).isEqualTo(Duration.ofMinutes(15));
    assertThat(TimeArguments.duration("--ttl", "2h")).isEqualTo(Duration.ofHours(2));
    assertThat(TimeArguments.duration("--ttl", "7d")).isEqualTo(Duration.ofDays(7));
    assertThat(TimeArguments.duration("--ttl", "PT1H30M")).isEqualTo(Duration.ofMinutes(90));
    for (String bad : new String[] {"", "h", "-5", "1w", "1.5h", "soon"}) {
      assertThatThrownBy(() -> TimeArguments.duration("--ttl", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("--ttl wants");
    }
  }

  @Test
  void instantsInRfc3339OrUnixMillis() {
    assertThat(TimeArguments.instant("--expires-at", "2026-12-31T23:59:59Z"))
        .isEqualTo(Instant.parse("2026-12-31T23:59:59Z"));
    assertThat(TimeArguments.instant("--expires-at", "2026-12-31T23:59:59+01:00"))
        .isEqualTo(Instant.parse("2026-12-31T22:59:59Z"));
    assertThat(TimeArguments.instant("--expires-at", "1000")).isEqualTo(Instant.ofEpochMilli(1000));
    assertThatThrownBy(() -> TimeArguments.instant("--expires-at", "tomorrow"))
        .hasMessageStartingWith("--expires-at wants");
  }
}
