package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class DsOffsetsTest {

  @Test
  void theSecondHalfIsTheSeq() {
    assertThat(DsOffsets.format(0)).isEqualTo("0000000000000000_0000000000000000");
    assertThat(DsOffsets.format(42)).isEqualTo("0000000000000000_0000000000000042");
    assertThat(DsOffsets.parse("0000000000000000_0000000000000042")).isEqualTo(42);
    assertThat(DsOffsets.parse("0000000000000007_0000000000000042")).isEqualTo(42);
  }

  @Test
  void minusOneIsTheStart() {
    assertThat(DsOffsets.parse("-1")).isZero();
  }

  @Test
  void formatAndParseRoundTrip() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    for (int i = 0; i < 10_000; i++) {
      long seq = (long) (random.nextDouble() * 9_999_999_999_999_999L);
      assertThat(DsOffsets.parse(DsOffsets.format(seq)))
          .as("seed %d, seq %d", seed, seq)
          .isEqualTo(seq);
    }
    assertThat(DsOffsets.parse(DsOffsets.format(9_999_999_999_999_999L)))
        .isEqualTo(9_999_999_999_999_999L);
  }

  @Test
  void offsetsSortLikeTheirSeqs() {
    assertThat(DsOffsets.format(9).compareTo(DsOffsets.format(10))).isNegative();
    assertThat(DsOffsets.format(99_999).compareTo(DsOffsets.format(100_000))).isNegative();
  }

  @Test
  void malformedOffsetsAndNowAreRefused() {
    for (String bad :
        new String[] {
          "now",
          "",
          "12",
          "0000000000000000-0000000000000001",
          "0000000000000000_000000000000000x",
          "0000000000000000_00000000000000001"
        }) {
      assertThatThrownBy(() -> DsOffsets.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> DsOffsets.format(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DsOffsets.format(10_000_000_000_000_000L))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
