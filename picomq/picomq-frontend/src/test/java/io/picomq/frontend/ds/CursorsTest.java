package io.picomq.frontend.ds;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CursorsTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2024-10-09T00:01:00Z"));
  private final Cursors cursors = new Cursors(clock, new Random(7));

  @Test
  void countsTwentySecondIntervalsSinceTheProtocolsEpoch() {
    assertThat(cursors.next(null)).isEqualTo("3");
    clock.advance(Duration.ofSeconds(20));
    assertThat(cursors.next(null)).isEqualTo("4");
    assertThat(cursors.next("2")).isEqualTo("4");
    assertThat(cursors.next("garbage")).isEqualTo("4");
  }

  @Test
  void anEchoedCurrentOrFutureCursorMovesStrictlyAhead() {
    for (int i = 0; i < 200; i++) {
      long echoed = 3 + i;
      long next = Long.parseLong(cursors.next(Long.toString(echoed)));
      assertThat(next).isGreaterThan(echoed).isLessThanOrEqualTo(echoed + 180);
    }
  }
}
