package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.api.EngineConfig;
import org.junit.jupiter.api.Test;

/** The compaction settings of {@link EngineConfig}: defaults, off, and validation. */
class CompactionConfigTest {

  private static EngineConfig.Builder base() {
    return EngineConfig.builder().nodeId(1).nodeEpoch(1);
  }

  @Test
  void compactionIsOnByDefaultOncePerMinute() {
    EngineConfig config = base().build();
    assertThat(config.compactionIntervalMillis()).isEqualTo(60_000);
    assertThat(config.compactionCacheSizeBytes()).isEqualTo(64L << 20);
    assertThat(config.compactionMaxObjectSizeBytes()).isEqualTo(1L << 30);
  }

  @Test
  void zeroTurnsCompactionOffAndAVariantKeepsTheSettings() {
    EngineConfig off =
        base().compactionIntervalMillis(0).compactionCacheSizeBytes(8L << 20).build();
    EngineConfig next = off.newBuilder().nodeEpoch(2).build();
    assertThat(next.compactionIntervalMillis()).isZero();
    assertThat(next.compactionCacheSizeBytes()).isEqualTo(8L << 20);
  }

  @Test
  void outOfRangeCompactionSettingsAreRejectedWithTheirName() {
    assertThatThrownBy(() -> base().compactionIntervalMillis(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compactionIntervalMillis");
    assertThatThrownBy(() -> base().compactionCacheSizeBytes(1000).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compactionCacheSizeBytes");
    assertThatThrownBy(() -> base().compactionMaxObjectSizeBytes(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compactionMaxObjectSizeBytes");
  }
}
