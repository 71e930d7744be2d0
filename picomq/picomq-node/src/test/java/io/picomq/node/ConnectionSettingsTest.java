package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The protocol listener's cap derived from the process's file descriptor limit. */
class ConnectionSettingsTest {

  private static ConnectionSettings withCap(OptionalInt cap) {
    return new ConnectionSettings(Duration.ofSeconds(10), Duration.ofSeconds(60), cap, 64);
  }

  @Test
  void theAutomaticCapLeavesAQuarterOfTheDescriptorsToTheRestOfTheNode() {
    ConnectionSettings auto = withCap(OptionalInt.empty());
    assertThat(auto.protocolCap(1024)).isEqualTo(704);
    assertThat(auto.protocolCap(4096)).isEqualTo(3008);
    assertThat(auto.protocolCap(13_418)).isEqualTo(9_999);
    assertThat(auto.protocolCap(13_419)).isEqualTo(10_000);
    assertThat(auto.protocolCap(1_048_576)).isEqualTo(10_000);
    // Unknown (no such figure on this OS): the fixed default.
    assertThat(auto.protocolCap(0)).isEqualTo(10_000);
    // Absurdly low limits still admit a connection.
    assertThat(auto.protocolCap(64)).isEqualTo(1);
    for (long limit : new long[] {128, 1024, 4096, 20_000, 1_048_576}) {
      assertThat(auto.fitsIn(limit)).as("limit %d", limit).isTrue();
    }
  }

  @Test
  void aSetCapIsKeptAndCheckedAgainstTheLimit() {
    ConnectionSettings set = withCap(OptionalInt.of(50_000));
    assertThat(set.protocolCap(1024)).isEqualTo(50_000);
    assertThat(set.fitsIn(1024)).isFalse();
    assertThat(set.fitsIn(1_048_576)).isTrue();
    assertThat(set.fitsIn(0)).isTrue();
  }
}
