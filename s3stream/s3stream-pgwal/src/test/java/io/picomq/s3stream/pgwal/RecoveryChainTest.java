package io.picomq.s3stream.pgwal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryChainTest {

  private static RowRange row(String table, long start, long end, long epoch) {
    return new RowRange(table, start, end, epoch);
  }

  @Test
  void followsRowsAcrossSlotsInOffsetOrderFromTheTrim() {
    List<RowRange> found =
        List.of(
            row("s1", 100, 150, 2),
            row("s0", 0, 50, 1),
            row("s0", 50, 100, 1),
            row("s1", 150, 170, 2));
    RecoveryChain chain = RecoveryChain.of(found, 49, 3);
    // [0, 50) ends at 50 = trim + 1: all of it is trimmed. [50, 100) starts at trim + 1.
    assertThat(chain.rows()).extracting(RowRange::startOffset).containsExactly(50L, 100L, 150L);
    assertThat(chain.stoppedBy()).isEmpty();
  }

  @Test
  void aRowStraddlingTheTrimIsRead() {
    RecoveryChain chain =
        RecoveryChain.of(List.of(row("s0", 0, 50, 1), row("s0", 50, 90, 1)), 20, 2);
    assertThat(chain.rows()).extracting(RowRange::startOffset).containsExactly(0L, 50L);
  }

  @Test
  void stopsAtTheFirstGap() {
    RecoveryChain chain =
        RecoveryChain.of(List.of(row("s0", 0, 50, 1), row("s0", 60, 90, 1)), -1, 2);
    assertThat(chain.rows()).extracting(RowRange::startOffset).containsExactly(0L);
    assertThat(chain.stoppedBy()).hasValueSatisfying(why -> assertThat(why).contains("gap"));

    RecoveryChain late = RecoveryChain.of(List.of(row("s0", 30, 50, 1)), 9, 2);
    assertThat(late.rows()).isEmpty();
    assertThat(late.stoppedBy()).hasValueSatisfying(why -> assertThat(why).contains("after 10"));
  }

  @Test
  void stopsAtARowOfANewerEpoch() {
    RecoveryChain chain =
        RecoveryChain.of(List.of(row("s0", 0, 50, 1), row("s0", 50, 90, 5)), -1, 4);
    assertThat(chain.rows()).extracting(RowRange::startOffset).containsExactly(0L);
    assertThat(chain.stoppedBy())
        .hasValueSatisfying(why -> assertThat(why).contains("above the recovering 4"));
  }

  @Test
  void nothingAboveTheTrimIsAnEmptyChain() {
    RecoveryChain chain = RecoveryChain.of(List.of(row("s0", 0, 50, 1)), 49, 2);
    assertThat(chain.rows()).isEmpty();
    assertThat(chain.stoppedBy()).isEmpty();
  }
}
