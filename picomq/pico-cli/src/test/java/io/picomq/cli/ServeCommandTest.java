package io.picomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.frontend.ListenerProtocol;
import io.picomq.node.AccessSettings;
import io.picomq.node.ConnectionSettings;
import io.picomq.node.ExposureSettings;
import io.picomq.node.NodeConfig;
import io.picomq.node.TlsSettings;
import io.picomq.sql.backend.MetaUrl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code pico serve}'s flags become the node's configuration; the defaults run from ./data. */
class ServeCommandTest {

  @TempDir Path dir;

  private static NodeConfig parse(String... args) {
    return parse(Map.of(), args);
  }

  /**
   * As {@code pico args} in a process with {@code environment} (for {@code PICO_META_PASSWORD}).
   */
  private static NodeConfig parse(Map<String, String> environment, String... args) {
    CommandLine pico = Pico.commandLine();
    CommandLine.ParseResult result = pico.parseArgs(args);
    ServeCommand serve = (ServeCommand) result.subcommand().commandSpec().userObject();
    serve.environment = environment;
    return serve.config();
  }

  @Test
  void defaultsAreAFirstRunUnderData() {
    NodeConfig config = parse("serve", "--node-epoch", "5");
    assertThat(config.metaUrl()).isEqualTo("sqlite:./data/meta.db");
    assertThat(config.storage()).isEqualTo("-2@file://./data/objects");
    assertThat(config.listen()).isEqualTo("127.0.0.1:4437");
    assertThat(config.adminListen()).contains("127.0.0.1:9090");
    assertThat(config.protocol()).isEqualTo(ListenerProtocol.PICO);
    assertThat(config.redirect()).isTrue();
    assertThat(config.nodeEpoch()).isEqualTo(5);
    assertThat(config.longPollTimeout()).isEqualTo(Duration.ofSeconds(25));
    assertThat(config.connections()).isEqualTo(ConnectionSettings.DEFAULT);
    assertThat(config.nodeTtl()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void accessControlIsOffUntilAskedAndTakesItsRootTokenFromAFileOrTheEnvironment()
      throws Exception {
    String token = "AAAAAAAAAAAA." + "A".repeat(43);
    assertThat(parse("serve", "--node-epoch", "1").access()).isEqualTo(AccessSettings.DEFAULT);

    Path file = dir.resolve("root-token");
    Files.writeString(file, token + "\n");
    AccessSettings fromFile =
        parse(
                "serve",
                "--node-epoch",
                "1",
                "--access-control",
                "--root-token-file",
                file.toString())
            .access();
    assertThat(fromFile.enabled()).isTrue();
    assertThat(fromFile.rootToken().orElseThrow().reveal()).isEqualTo(token);
    assertThat(fromFile.insecure()).isFalse();

    AccessSettings fromEnvironment =
        parse(
                Map.of("PICO_ROOT_TOKEN", token),
                "serve",
                "--node-epoch",
                "1",
                "--access-control=off",
                "--insecure")
            .access();
    assertThat(fromEnvironment.enabled()).isFalse();
    assertThat(fromEnvironment.rootToken().orElseThrow().reveal()).isEqualTo(token);
    assertThat(fromEnvironment.insecure()).isTrue();

    assertThatThrownBy(() -> parse("serve", "--node-epoch", "1", "--access-control=maybe"))
        .hasMessageContaining("on or off, not maybe");
    assertThatThrownBy(
            () ->
                parse(
                    Map.of("PICO_ROOT_TOKEN", token),
                    "serve",
                    "--node-epoch",
                    "1",
                    "--root-token-file",
                    file.toString()))
        .hasMessageContaining("not both");
  }

  @Test
  void theNodeTtlIsADurationOfHalfASecondOrMore() {
    assertThat(parse("serve", "--node-ttl", "2s").nodeTtl()).isEqualTo(Duration.ofSeconds(2));
    assertThat(parse("serve", "--node-ttl", "500ms").nodeTtl()).isEqualTo(Duration.ofMillis(500));
    assertThat(parse("serve", "--node-ttl", "30").nodeTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(parse("serve", "--node-ttl", "1m").nodeTtl()).isEqualTo(Duration.ofMinutes(1));
    assertThatThrownBy(() -> parse("serve", "--node-ttl", "ten seconds"))
        .hasMessageContaining("--node-ttl wants a whole number with ms, s, m or h");
    assertThatThrownBy(() -> parse("serve", "--node-ttl", "-1s"))
        .hasMessageContaining("--node-ttl wants");
    assertThatThrownBy(() -> parse("serve", "--node-ttl", "200ms"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--node-ttl")
        .hasMessageContaining("at least 500 ms, not 200 ms");
  }

  @Test
  void connectionLimitsHaveFlags() {
    NodeConfig config =
        parse(
            "serve",
            "--header-timeout-sec",
            "3",
            "--idle-timeout-sec",
            "20",
            "--max-connections",
            "500",
            "--admin-max-connections",
            "16");
    assertThat(config.connections())
        .isEqualTo(
            new ConnectionSettings(
                Duration.ofSeconds(3), Duration.ofSeconds(20), OptionalInt.of(500), 16));
    assertThat(parse("serve", "--max-connections", "auto").connections().maxConnections())
        .isEmpty();
    assertThatThrownBy(() -> parse("serve", "--max-connections", "many"))
        .hasMessageContaining("--max-connections is auto or a number, not many");
    assertThatThrownBy(() -> parse("serve", "--idle-timeout-sec", "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idleTimeout");
  }

  @Test
  void flagsOverrideAndTheProtocolIsGlobal() {
    NodeConfig config =
        parse(
            "--protocol",
            "ds",
            "serve",
            "--listen",
            "0.0.0.0:8080",
            "--no-admin",
            "--routing",
            "local",
            "--long-poll-timeout-sec",
            "3",
            "--max-chunk-size",
            "1MiB",
            "--wal-cache-size",
            "64MiB",
            "--shutdown-drain-sec",
            "7");
    assertThat(config.protocol()).isEqualTo(ListenerProtocol.DS);
    assertThat(config.listen()).isEqualTo("0.0.0.0:8080");
    assertThat(config.adminListen()).isEmpty();
    assertThat(config.redirect()).isFalse();
    assertThat(config.longPollTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.maxChunkBytes()).isEqualTo(1 << 20);
    assertThat(config.walCacheSizeBytes()).hasValue(64L << 20);
    assertThat(config.shutdownDrain()).isEqualTo(Duration.ofSeconds(7));
    assertThat(parse("serve", "--protocol", "ds").protocol()).isEqualTo(ListenerProtocol.DS);
  }

  @Test
  void theMetadataPasswordComesFromTheEnvironmentOrAFileNeverTheArguments() throws Exception {
    String url = "postgres://pico@db.internal:5432/meta";
    Path file = dir.resolve("meta-password");
    Files.writeString(file, "from file:@/%\n");

    NodeConfig fromFile =
        parse("serve", "--meta-url", url, "--meta-password-file", file.toString());
    NodeConfig fromEnvironment =
        parse(Map.of("PICO_META_PASSWORD", "from env"), "serve", "--meta-url", url);

    assertThat(((MetaUrl.Postgres) fromFile.metaDatabase()).password()).contains("from file:@/%");
    assertThat(((MetaUrl.Postgres) fromEnvironment.metaDatabase()).password()).contains("from env");
    assertThat(fromFile.metaDatabase().redacted())
        .isEqualTo("postgres://pico:***@db.internal:5432/meta");
    assertThat(fromFile.toString()).doesNotContain("from file");
    assertThat(parse("serve", "--meta-url", url).metaPassword()).isEmpty();
    assertThatThrownBy(
            () ->
                parse(
                    Map.of("PICO_META_PASSWORD", "x"),
                    "serve",
                    "--meta-url",
                    url,
                    "--meta-password-file",
                    file.toString()))
        .hasMessageContaining("PICO_META_PASSWORD or --meta-password-file, not both");
    assertThatThrownBy(
            () ->
                parse(
                    "serve",
                    "--meta-url",
                    url,
                    "--meta-password-file",
                    dir.resolve("missing").toString()))
        .hasMessageContaining("cannot read --meta-password-file");
    Files.writeString(file, "\n");
    assertThatThrownBy(
            () -> parse("serve", "--meta-url", url, "--meta-password-file", file.toString()))
        .hasMessageContaining("is empty");
    // SQLite has no password: one given is a mistake, said so at start.
    assertThatThrownBy(() -> parse(Map.of("PICO_META_PASSWORD", "x"), "serve"))
        .hasMessageContaining("is no Postgres database");
  }

  @Test
  void tlsFilesGoTogetherAndTheKeyPasswordNeverComesFromTheArguments() {
    assertThat(parse("serve").tls()).isEmpty();
    assertThat(parse("serve").scheme()).isEqualTo("http");
    NodeConfig tls = parse("serve", "--tls-cert", "/etc/pico/cert.pem", "--tls-key", "/k.pem");
    assertThat(tls.tls().orElseThrow())
        .isEqualTo(TlsSettings.of(Path.of("/etc/pico/cert.pem"), Path.of("/k.pem")));
    assertThat(tls.scheme()).isEqualTo("https");
    // Files are read when the node starts, not when the flags are parsed.
    NodeConfig fromEnvironment =
        parse(
            Map.of("PICO_TLS_KEY_PASSWORD", "env secret"),
            "serve",
            "--tls-cert",
            "/c.pem",
            "--tls-key",
            "/k.pem");
    assertThat(fromEnvironment.tls().orElseThrow().keyPassword().orElseThrow().reveal())
        .isEqualTo("env secret");
    assertThat(fromEnvironment.toString()).doesNotContain("env secret");
    assertThat(
            parse("serve", "--tls-cert", "/c", "--tls-key", "/k", "--tls-key-password-file", "/p")
                .tls()
                .orElseThrow()
                .keyPasswordFile())
        .contains(Path.of("/p"));

    assertThatThrownBy(() -> parse("serve", "--tls-cert", "/c.pem"))
        .hasMessageContaining("--tls-cert and --tls-key go together");
    assertThatThrownBy(() -> parse("serve", "--tls-key-password-file", "/p"))
        .hasMessageContaining("no --tls-cert");
    assertThatThrownBy(
            () ->
                parse(
                    Map.of("PICO_TLS_KEY_PASSWORD", "x"),
                    "serve",
                    "--tls-cert",
                    "/c",
                    "--tls-key",
                    "/k",
                    "--tls-key-password-file",
                    "/p"))
        .hasMessageContaining("PICO_TLS_KEY_PASSWORD or --tls-key-password-file, not both");
  }

  @Test
  void exposureHasFlags() {
    NodeConfig defaults = parse("serve");
    NodeConfig config =
        parse(
            "serve",
            "--allowed-hosts",
            "pico.example.com, proxy.example:8443",
            "--cors-origins",
            "https://app.example.com,loopback",
            "--admin-cors-origins",
            "https://ops.example.com");

    assertThat(defaults.exposure()).isEqualTo(ExposureSettings.DEFAULT);
    assertThat(config.exposure().allowedHosts())
        .containsExactly("pico.example.com", "proxy.example:8443");
    assertThat(config.exposure().corsOrigins().allows("https://app.example.com")).isTrue();
    assertThat(config.exposure().corsOrigins().allows("http://localhost:3000")).isTrue();
    assertThat(config.exposure().adminCorsOrigins().allows("https://ops.example.com")).isTrue();
    assertThat(config.exposure().adminCorsOrigins().allows("http://localhost:3000")).isFalse();
    assertThat(parse("serve", "--allowed-hosts", "*").exposure().allowedHosts())
        .containsExactly("*");
    assertThatThrownBy(() -> parse("serve", "--cors-origins", "app.example.com"))
        .hasMessageContaining("'app.example.com' is not none, *, loopback");
    assertThatThrownBy(() -> parse("serve", "--allowed-hosts", "http://pico.example.com"))
        .hasMessageContaining("is not a name, IP or name:port");
  }
}
