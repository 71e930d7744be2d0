package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Cursors follow the clock in 20-second steps and always move past what the client echoes. */
class LiveCursorTest {

  private final MutableClock clock = new MutableClock(Instant.ofEpochSecond(2_000_000_000L));
  private final LiveCursor cursors = new LiveCursor(clock);

  @Test
  void withoutAnEchoTheCursorIsTheCurrentInterval() {
    assertThat(cursors.next(null)).isEqualTo(Long.toString(2_000_000_000L / 20));
    assertThat(cursors.next("garbage")).isEqualTo(Long.toString(2_000_000_000L / 20));
    clock.advance(Duration.ofSeconds(20));
    assertThat(cursors.next(null)).isEqualTo(Long.toString(2_000_000_000L / 20 + 1));
  }

  @Test
  void anEchoedCursorIsAlwaysPassed() {
    String first = cursors.next(null);
    String second = cursors.next(first);
    String third = cursors.next(second);

    assertThat(Long.parseLong(second)).isGreaterThan(Long.parseLong(first));
    assertThat(Long.parseLong(third)).isGreaterThan(Long.parseLong(second));
    // A stale echo does not hold the cursor back.
    assertThat(cursors.next("5")).isEqualTo(first);
  }
}
