package io.picomq.s3stream.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WalConfigTest {

  @Test
  void defaultsFollowWhatAPutCosts() {
    assertThat(WalConfig.defaults())
        .isEqualTo(new WalConfig(Duration.ofMillis(250), 8L << 20, 1L << 30, 50));
    WalConfig file = WalConfig.builder(ObjectStorageUri.Scheme.FILE).build();
    assertThat(file.batchInterval()).isLessThanOrEqualTo(Duration.ofMillis(5));
    assertThat(file.maxInflightUploadCount()).as("records gather during an fsync").isEqualTo(1);
    assertThat(WalConfig.builder(ObjectStorageUri.Scheme.MEMORY).build().batchInterval())
        .isLessThanOrEqualTo(Duration.ofMillis(5));
  }

  @Test
  void theUriCarriesTheFourParameters() {
    WalConfig config =
        WalConfig.fromUri(
            ObjectStorageUri.parse(
                "1@s3://wal-bucket?region=us-east-1&batchInterval=100&maxBytesInBatch=4MiB"
                    + "&maxUnflushedBytes=536870912&maxInflightUploadCount=20"));
    assertThat(config).isEqualTo(new WalConfig(Duration.ofMillis(100), 4L << 20, 512L << 20, 20));
  }

  @Test
  void aFileUriKeepsItsOwnDefaultsForWhatItDoesNotSay() {
    WalConfig config =
        WalConfig.fromUri(ObjectStorageUri.parse("-1@file://./wal?maxInflightUploadCount=8"));
    assertThat(config.batchInterval())
        .isEqualTo(WalConfig.builder(ObjectStorageUri.Scheme.FILE).build().batchInterval());
    assertThat(config.maxInflightUploadCount()).isEqualTo(8);
  }

  @Test
  void intervalsTakeUnits() {
    assertThat(parse("batchInterval", "500us").batchInterval())
        .isEqualTo(Duration.ofNanos(500_000));
    assertThat(parse("batchInterval", "2ms").batchInterval()).isEqualTo(Duration.ofMillis(2));
    assertThat(parse("batchInterval", "1s").batchInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(parse("batchInterval", "0").batchInterval()).isZero();
    assertThat(parse("maxBytesInBatch", "512KiB").maxBytesInBatch()).isEqualTo(512 << 10);
    assertThat(parse("maxUnflushedBytes", "2GiB").maxUnflushedBytes()).isEqualTo(2L << 30);
  }

  @Test
  void badValuesAreRejectedNamingTheParameter() {
    assertRejected("batchInterval", "fast", "batchInterval=fast");
    assertRejected("batchInterval", "-5", "batchInterval=-5");
    assertRejected("batchInterval", "2min", "batchInterval=2min");
    assertRejected("batchInterval", "61s", "batchInterval must be between 0 and PT1M");
    assertRejected("maxBytesInBatch", "0", "maxBytesInBatch must be between 1");
    assertRejected("maxBytesInBatch", "65MiB", "maxBytesInBatch must be between 1");
    assertRejected("maxBytesInBatch", "8MB", "maxBytesInBatch=8MB");
    assertRejected("maxUnflushedBytes", "1KiB", "maxUnflushedBytes (1024) must be at least");
    assertRejected("maxInflightUploadCount", "0", "maxInflightUploadCount must be between 1");
    assertRejected("maxInflightUploadCount", "99999999999", "maxInflightUploadCount=99999999999");
    assertRejected("maxUnflushedBytes", "99999999999GiB", "too large");
  }

  @Test
  void aSettingMadeTwiceIsAnError() {
    WalConfig.Builder builder = WalConfig.builder().batchInterval(Duration.ofMillis(5));
    assertThatThrownBy(() -> builder.batchInterval(Duration.ofMillis(6)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("batchInterval was already set");
  }

  @Test
  void newBuilderDerivesAVariant() {
    WalConfig base = WalConfig.defaults();
    WalConfig variant = base.newBuilder().maxInflightUploadCount(5).build();
    assertThat(variant).isEqualTo(new WalConfig(base.batchInterval(), 8L << 20, 1L << 30, 5));
  }

  @Test
  void theFenceCheckIsOnUnlessTheParametersTurnItOff() {
    assertThat(WalConfig.defaults().fenceCheck()).isTrue();
    assertThat(WalConfig.builder(ObjectStorageUri.Scheme.FILE).build().fenceCheck()).isTrue();
    assertThat(parse("fenceCheck", "false").fenceCheck()).isFalse();
    assertThat(parse("fenceCheck", "TRUE").fenceCheck()).isTrue();
    assertRejected("fenceCheck", "no", "fenceCheck=no");
  }

  private static WalConfig parse(String name, String value) {
    return WalConfig.fromParams(ObjectStorageUri.Scheme.S3, Map.of(name, value));
  }

  private static void assertRejected(String name, String value, String message) {
    assertThatThrownBy(() -> parse(name, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
