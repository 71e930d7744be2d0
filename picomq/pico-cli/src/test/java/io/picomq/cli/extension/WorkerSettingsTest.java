package io.picomq.cli.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.cli.ServeArguments;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.node.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's pico.* settings become the flags, and so the node, that {@code pico serve} runs. */
class WorkerSettingsTest {
  @TempDir Path dir;

  private WorkerSettings settings(String... extra) {
    String[] base = {
      "pico.storage=-2@file://" + dir.resolve("objects"),
      "pico.wal=",
      "pico.database=postgres",
      "pico.role=",
      "pico.database_url=",
      "pico.listen=127.0.0.1:4437",
      "pico.admin_listen=127.0.0.1:9090",
      "pico.advertised_url=",
      "pico.cluster_id=picomq",
      "pico.protocol=pico",
      "pico.log=info",
      "pico.options=",
      "pico.node_id=1",
      "pico.wal_cache_mb=0",
      "pico.block_cache_mb=0",
      "pico.wal_upload_interval_ms=0",
      "server.port=5433",
      "server.socket_directories=/var/run/postgresql, /tmp",
      "server.listen_addresses=localhost",
      "server.os_user=postgres"
    };
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return WorkerSettings.parse(all);
  }

  @Test
  void theDefaultsRunANodeOnThisServersSocketAsItsUser() throws Exception {
    NodeConfig config = ServeArguments.nodeConfig(settings().serveArguments());
    assertThat(config.metaUrl())
        .isEqualTo(
            "postgres://postgres@localhost:5433/postgres?socketFactory="
                + "io.picomq.cli.extension.UnixSocketFactory"
                + "&socketFactoryArg=%2Fvar%2Frun%2Fpostgresql%2F.s.PGSQL.5433");
    assertThat(config.storage()).isEqualTo("-2@file://" + dir.resolve("objects"));
    assertThat(Files.isDirectory(dir.resolve("objects"))).isTrue();
    assertThat(config.wal()).as("the WAL in the same database").contains(config.metaUrl());
    assertThat(config.listen()).isEqualTo("127.0.0.1:4437");
    assertThat(config.adminListen()).contains("127.0.0.1:9090");
    assertThat(config.protocol()).isEqualTo(ListenerProtocol.PICO);
    assertThat(config.nodeId()).isEqualTo(1);
    assertThat(config.shutdownDrain()).isEqualTo(Duration.ZERO);
    assertThat(config.walCacheSizeBytes()).isEmpty();
  }

  @Test
  void everySettingReachesItsFlag() throws Exception {
    NodeConfig config =
        ServeArguments.nodeConfig(
            settings(
                    "pico.wal=-3@file://" + dir.resolve("wal"),
                    "pico.role=pico user",
                    "pico.database=streams",
                    "pico.admin_listen=",
                    "pico.advertised_url=http://db1:4437",
                    "pico.cluster_id=east",
                    "pico.protocol=ds",
                    "pico.node_id=7",
                    "pico.wal_cache_mb=64",
                    "pico.block_cache_mb=32",
                    "pico.wal_upload_interval_ms=250",
                    "pico.options=--long-poll-timeout-sec 2  --routing local")
                .serveArguments());
    assertThat(config.metaUrl()).startsWith("postgres://pico%20user@localhost:5433/streams?");
    assertThat(config.wal()).contains("-3@file://" + dir.resolve("wal"));
    assertThat(config.adminListen()).isEmpty();
    assertThat(config.httpAddress()).contains("http://db1:4437");
    assertThat(config.clusterId()).isEqualTo("east");
    assertThat(config.protocol()).isEqualTo(ListenerProtocol.DS);
    assertThat(config.nodeId()).isEqualTo(7);
    assertThat(config.walCacheSizeBytes()).hasValue(64L << 20);
    assertThat(config.blockCacheSizeBytes()).hasValue(32L << 20);
    assertThat(config.walUploadIntervalMillis()).hasValue(250);
    assertThat(config.longPollTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.redirect()).isFalse();
  }

  @Test
  void aDatabaseUrlWinsAndNoSocketDirectoryMeansTcp() {
    assertThat(settings("pico.database_url=postgres://u:p@db:5432/x").metaUrl())
        .isEqualTo("postgres://u:p@db:5432/x");
    assertThat(settings("server.socket_directories=").metaUrl())
        .isEqualTo("postgres://postgres@127.0.0.1:5433/postgres");
  }

  @Test
  void badSettingsAreRefusedByName() {
    assertThatThrownBy(() -> settings("pico.storage=").serveArguments())
        .hasMessage("pico.storage is required");
    assertThatThrownBy(() -> settings("pico.log=loud").logLevel()).hasMessageContaining("pico.log");
    assertThatThrownBy(() -> settings("pico.node_id=x").serveArguments())
        .hasMessageContaining("pico.node_id");
    assertThatThrownBy(
            () ->
                ServeArguments.nodeConfig(settings("pico.options=--no-such-flag").serveArguments()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--no-such-flag");
    assertThat(settings("pico.log=WARNING").logLevel()).isEqualTo("warn");
  }
}
