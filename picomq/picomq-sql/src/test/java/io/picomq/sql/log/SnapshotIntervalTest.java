package io.picomq.sql.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the next snapshot is due: later for a larger state, never sooner than one interval. */
class SnapshotIntervalTest {
  private static final long MIB = 1 << 20;

  @Test
  void aSmallOrMissingSnapshotLeavesOneInterval() {
    assertThat(SnapshotWriter.rowsDue(0, 1024, MIB)).isEqualTo(1024);
    assertThat(SnapshotWriter.rowsDue(1, 1024, MIB)).isEqualTo(1024);
    assertThat(SnapshotWriter.rowsDue(MIB, 1024, MIB)).isEqualTo(1024);
  }

  @Test
  void aLargerSnapshotWaitsOneIntervalPerBudgetItHolds() {
    assertThat(SnapshotWriter.rowsDue(MIB + 1, 1024, MIB)).isEqualTo(2048);
    assertThat(SnapshotWriter.rowsDue(30 * MIB, 1024, MIB)).isEqualTo(30 * 1024);
  }

  @Test
  void aHugeProductSaturatesInsteadOfOverflowing() {
    assertThat(SnapshotWriter.rowsDue(Long.MAX_VALUE, Long.MAX_VALUE / 2, 1))
        .isEqualTo(Long.MAX_VALUE);
  }
}
