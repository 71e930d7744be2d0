package io.picomq.frontend.ds;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class OffsetTokenTest {

  @Test
  void formatsFixedWidthTokensThatSortLikeSeqs() {
    assertThat(OffsetToken.format(0)).isEqualTo("0000000000000000_0000000000000000");
    assertThat(OffsetToken.format(42)).isEqualTo("0000000000000000_0000000000000042");
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int i = 0; i < 1000; i++) {
      long a = random.nextLong(9_999_999_999_999_999L);
      long b = random.nextLong(9_999_999_999_999_999L);
      assertThat(Integer.signum(OffsetToken.format(a).compareTo(OffsetToken.format(b))))
          .as("seed %d: %d vs %d", seed, a, b)
          .isEqualTo(Long.signum(Long.compare(a, b)));
      assertThat(OffsetToken.parse(OffsetToken.format(a))).contains(new OffsetToken.At(a));
    }
  }

  @Test
  void parsesSentinels() {
    assertThat(OffsetToken.parse("-1")).contains(new OffsetToken.Start());
    assertThat(OffsetToken.parse("now")).contains(new OffsetToken.Now());
    assertThat(OffsetToken.parsePosition("now")).isEmpty();
  }

  @Test
  void refusesEverythingElse() {
    for (String bad :
        new String[] {
          "",
          "0",
          "-2",
          "NOW",
          "0,1",
          "0 1",
          "../x",
          "a/b",
          "0000000000000000_000000000000000",
          "0000000000000000_00000000000000000",
          "0000000000000000-0000000000000000",
          "0000000000000001_0000000000000000",
          "0000000000000000_00000000000000x0",
          "0000000000000000_000000000000000\n"
        }) {
      assertThat(OffsetToken.parse(bad)).as("%s", bad).isEmpty();
    }
  }
}
