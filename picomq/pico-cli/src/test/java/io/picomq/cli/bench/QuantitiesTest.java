package io.picomq.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuantitiesTest {

  @Test
  void sizes() {
    assertThat(Quantities.bytes("--record-size", "1024")).isEqualTo(1024);
    assertThat(Quantities.bytes("--record-size", "1KiB")).isEqualTo(1024);
    assertThat(Quantities.bytes("--record-size", "4k")).isEqualTo(4096);
    assertThat(Quantities.bytes("--record-size", "1kB")).isEqualTo(1000);
    assertThat(Quantities.bytes("--record-size", "2MiB")).isEqualTo(2 << 20);
    assertThatThrownBy(() -> Quantities.bytes("--record-size", "big"))
        .hasMessage("--record-size: not a size: 'big'");
    assertThatThrownBy(() -> Quantities.bytes("--record-size", "-1"))
        .hasMessageContaining("must not be negative");
  }

  @Test
  void durations() {
    assertThat(Quantities.duration("--duration", "3s")).isEqualTo(Duration.ofSeconds(3));
    assertThat(Quantities.duration("--duration", "250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Quantities.duration("--duration", "1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Quantities.duration("--duration", "5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Quantities.duration("--duration", "1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Quantities.duration("--duration", "20")).isEqualTo(Duration.ofSeconds(20));
    assertThatThrownBy(() -> Quantities.duration("--duration", "soon"))
        .hasMessageStartingWith("--duration: not a duration");
  }
}
