package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.frontend.ListenerProtocol;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The embedding API's configuration: defaults, required settings, and validation. */
class NodeConfigTest {

  private static NodeConfig.Builder minimal() {
    return NodeConfig.builder().nodeEpoch(7).metaUrl("sqlite::memory:").storage("0@file:///tmp/x");
  }

  @Test
  void everyOtherSettingHasPicoServesDefault() {
    NodeConfig config = minimal().build();
    assertThat(config.nodeId()).isEqualTo(1);
    assertThat(config.nodeEpoch()).isEqualTo(7);
    assertThat(config.clusterId()).isEqualTo("picomq");
    assertThat(config.listen()).isEqualTo("127.0.0.1:4437");
    assertThat(config.adminListen()).contains("127.0.0.1:9090");
    assertThat(config.httpAddress()).isEmpty();
    assertThat(config.protocol()).isEqualTo(ListenerProtocol.PICO);
    assertThat(config.redirect()).isTrue();
    assertThat(config.longPollTimeout()).isEqualTo(Duration.ofSeconds(25));
    assertThat(config.sseMaxDuration()).isEqualTo(Duration.ofSeconds(55));
    assertThat(config.maxChunkBytes()).isEqualTo(64 * 1024);
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.connections()).isEqualTo(ConnectionSettings.DEFAULT);
    assertThat(config.nodeTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.walCacheSizeBytes()).isEmpty();
    assertThat(config.advertisedAddress(4000)).isEqualTo("http://127.0.0.1:4000");
  }

  @Test
  void theEpochAndWhereTheDataLivesAreRequired() {
    assertThatThrownBy(() -> NodeConfig.builder().metaUrl("sqlite::memory:").storage("s").build())
        .hasMessage("nodeEpoch is required");
    assertThatThrownBy(() -> NodeConfig.builder().nodeEpoch(1).storage("s").build())
        .hasMessage("metaUrl is required");
    assertThatThrownBy(() -> NodeConfig.builder().nodeEpoch(1).metaUrl("sqlite::memory:").build())
        .hasMessage("storage is required");
  }

  @Test
  void aSettingMadeTwiceIsRefused() {
    assertThatThrownBy(() -> minimal().listen("127.0.0.1:1").listen("127.0.0.1:2"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("listen was already set");
    // Turning the admin listener off and giving its address are one setting.
    assertThatThrownBy(() -> minimal().adminListen("127.0.0.1:1").noAdminListener())
        .hasMessage("adminListen was already set");
  }

  @Test
  void badValuesAreRefusedAtBuild() {
    assertThatThrownBy(() -> minimal().listen("nowhere").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host:port");
    assertThatThrownBy(() -> minimal().requestTimeout(Duration.ZERO).build())
        .hasMessageContaining("requestTimeout");
    assertThatThrownBy(() -> minimal().backlog(0).build()).hasMessageContaining("backlog");
    assertThatThrownBy(() -> minimal().nodeTtl(Duration.ofMillis(499)).build())
        .hasMessageContaining("--node-ttl");
    assertThat(minimal().nodeTtl(Duration.ofMillis(500)).build().nodeTtl())
        .isEqualTo(Duration.ofMillis(500));
    assertThatThrownBy(() -> minimal().walCacheSizeBytes(0).build())
        .hasMessageContaining("walCacheSizeBytes");
    assertThatThrownBy(() -> minimal().maxChunkBytes(0).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void newBuilderStartsFromTheSettingsAndOverridesEachOnce() {
    NodeConfig base = minimal().noAdminListener().httpAddress("http://node-1:4437").build();
    NodeConfig copy = base.newBuilder().build();
    assertThat(copy).isEqualTo(base);
    NodeConfig moved = base.newBuilder().listen("127.0.0.1:0").build();
    assertThat(moved.listen()).isEqualTo("127.0.0.1:0");
    assertThat(moved.adminListen()).isEmpty();
    assertThat(moved.advertisedAddress(5)).isEqualTo("http://node-1:4437");
    assertThatThrownBy(() -> base.newBuilder().slots(2).slots(3))
        .hasMessage("slots was already set");
  }

  @Test
  void aMetadataPasswordIsForAPostgresUrlWithoutOneAndIsNeverShown() {
    NodeConfig config =
        NodeConfig.builder()
            .nodeEpoch(7)
            .storage("s")
            .metaUrl("postgres://pico@db.internal:5432/meta")
            .metaPassword(new Secret("hunter2"))
            .build();

    assertThat(config.metaDatabase().redacted())
        .isEqualTo("postgres://pico:***@db.internal:5432/meta");
    assertThat(config.toString()).doesNotContain("hunter2").contains("metaPassword=Optional[***]");
    assertThatThrownBy(
            () ->
                NodeConfig.builder()
                    .nodeEpoch(7)
                    .storage("s")
                    .metaUrl("sqlite::memory:")
                    .metaPassword(new Secret("x"))
                    .build())
        .hasMessageContaining(
            "a metadata password is given, but sqlite::memory: is no Postgres database");
    assertThatThrownBy(
            () ->
                NodeConfig.builder()
                    .nodeEpoch(7)
                    .storage("s")
                    .metaUrl("postgres://pico:other@db.internal/meta")
                    .metaPassword(new Secret("hunter2"))
                    .build())
        .hasMessageContaining("holds a password already: give it once")
        .hasMessageNotContaining("other")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void exposureDefaultsToLoopbackPagesForDataAndNoneForAdmin() {
    ExposureSettings exposure = minimal().build().exposure();

    assertThat(exposure.allowedHosts()).isEmpty();
    assertThat(exposure.corsOrigins().allows("http://localhost:5173")).isTrue();
    assertThat(exposure.corsOrigins().allows("https://evil.example")).isFalse();
    assertThat(exposure.adminCorsOrigins().isNone()).isTrue();
    assertThatThrownBy(
            () ->
                new ExposureSettings(
                    java.util.List.of("https://pico.example.com"),
                    exposure.corsOrigins(),
                    exposure.adminCorsOrigins()))
        .hasMessageContaining("'https://pico.example.com' is not a name, IP or name:port");
  }
}
