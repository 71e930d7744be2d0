package io.picomq.s3stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.api.EngineConfig;
import org.junit.jupiter.api.Test;

class EngineConfigTest {

  private static final long MIB = 1 << 20;

  @Test
  void defaultsAreTheBriefs() {
    EngineConfig config = EngineConfig.builder().nodeId(3).nodeEpoch(42).build();
    assertThat(config.walCacheSizeBytes()).isEqualTo(200 * MIB);
    assertThat(config.blockCacheSizeBytes()).isEqualTo(100 * MIB);
    assertThat(config.walUploadThresholdBytes()).isEqualTo(100 * MIB);
    assertThat(config.walUploadIntervalMillis()).isZero();
    assertThat(config.clusterId()).isEqualTo("picomq");
    assertThat(config.namespace()).isEqualTo("DEFAULT");
    // 100 MiB is more than 2/5 of the 200 MiB log cache: the threshold is clamped to 80 MiB.
    assertThat(config.effectiveUploadThresholdBytes()).isEqualTo(80 * MIB);
  }

  @Test
  void aSmallThresholdIsNotClamped() {
    EngineConfig config =
        EngineConfig.builder().nodeId(1).nodeEpoch(1).walUploadThresholdBytes(MIB).build();
    assertThat(config.effectiveUploadThresholdBytes()).isEqualTo(MIB);
  }

  @Test
  void aSettingMadeTwiceIsRejected() {
    assertThatThrownBy(() -> EngineConfig.builder().nodeId(1).nodeId(2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nodeId");
  }

  @Test
  void nodeIdentityIsRequired() {
    assertThatThrownBy(() -> EngineConfig.builder().nodeEpoch(1).build())
        .hasMessageContaining("nodeId");
    assertThatThrownBy(() -> EngineConfig.builder().nodeId(1).build())
        .hasMessageContaining("nodeEpoch");
  }

  @Test
  void outOfRangeValuesAreRejectedWithTheirName() {
    assertThatThrownBy(
            () -> EngineConfig.builder().nodeId(1).nodeEpoch(1).walCacheSizeBytes(1000).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("walCacheSizeBytes");
    assertThatThrownBy(() -> EngineConfig.builder().nodeId(1).nodeEpoch(1).namespace("a/b").build())
        .hasMessageContaining("namespace");
  }

  @Test
  void aVariantOverridesEachSettingOnce() {
    EngineConfig base = EngineConfig.builder().nodeId(1).nodeEpoch(1).build();
    EngineConfig next = base.newBuilder().nodeEpoch(2).build();
    assertThat(next.nodeEpoch()).isEqualTo(2);
    assertThat(next.nodeId()).isEqualTo(1);
    assertThatThrownBy(() -> base.newBuilder().nodeEpoch(2).nodeEpoch(3))
        .isInstanceOf(IllegalStateException.class);
  }
}
