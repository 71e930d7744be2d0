package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.sql.backend.MetaUrl;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Postgres password given apart from {@code metaUrl} (as {@code pico serve} reads it from {@code
 * PICO_META_PASSWORD} or {@code --meta-password-file}) is the one the node connects with, on a
 * fresh database of the machine's Postgres ({@code PICOMQ_PG_URL}), and is shown nowhere.
 *
 * <p>The password is {@code PICOMQ_PG_URL}'s when it has one, so where Postgres checks passwords
 * the node could not connect without it; the development machine's Postgres trusts local
 * connections, and there a made-up one shows that the value travels and stays hidden.
 */
class MetaPasswordPostgresTest {
  private static final String URL = System.getenv("PICOMQ_PG_URL");
  private static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the metadata password test is SKIPPED";

  @TempDir Path dir;
  private final AdminHttp http = new AdminHttp();
  private Node node;
  private String database;

  @BeforeAll
  static void sayWhyWhenSkipped() {
    if (URL == null || URL.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
    }
  }

  @AfterEach
  void stopTheNodeAndDropTheDatabase() throws SQLException {
    if (node != null) {
      node.stop(Duration.ZERO);
    }
    if (database != null) {
      execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  @Test
  void thePasswordGivenApartFromTheUrlConnectsAndIsShownNowhere() throws Exception {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    database = "secret_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    execute("CREATE DATABASE " + database);
    URI server = URI.create(URL);
    String[] credentials = credentials(server);
    String password = credentials.length > 1 ? credentials[1] : "made-up:p@ss/w%rd";
    int port = server.getPort() == -1 ? 5432 : server.getPort();
    String where = server.getHost() + ":" + port + "/" + database;
    NodeConfig config =
        NodeConfig.builder()
            .nodeEpoch(1)
            .listen("127.0.0.1:0")
            .adminListen("127.0.0.1:0")
            .metaUrl("postgres://" + credentials[0] + "@" + where)
            .metaPassword(new Secret(password))
            .storage("0@file://" + dir.resolve("objects"))
            .protocol(ListenerProtocol.PICO)
            .build();

    MetaUrl.Postgres opened = (MetaUrl.Postgres) config.metaDatabase();
    assertThat(opened.password()).contains(password);
    assertThat(opened.jdbcUrl()).doesNotContain(password);
    assertThat(config.toString()).doesNotContain(password);

    node = Node.start(config, Clock.systemUTC());

    String shown = "postgres://" + credentials[0] + ":***@" + where;
    assertThat(node.ready()).isTrue();
    assertThat(node.metadataDescription()).isEqualTo(shown);
    HttpResponse<String> cluster =
        http.send(
            "GET",
            "http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort() + "/admin/cluster",
            null);
    JsonNode body = AdminHttp.json(cluster);
    assertThat(body.path("metadata").asText()).isEqualTo(shown);
    assertThat(cluster.body()).doesNotContain(password);
    // And it is that database the node holds its connections to.
    assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + database + "'"))
        .isPositive();
  }

  private static String[] credentials(URI server) {
    String userInfo = server.getUserInfo() == null ? "postgres" : server.getUserInfo();
    return userInfo.split(":", 2);
  }

  private static long count(String sql) throws SQLException {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        var rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** Runs {@code sql} on the database {@code PICOMQ_PG_URL} names, outside any transaction. */
  private static void execute(String sql) throws SQLException {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static Connection connect() throws SQLException {
    URI url = URI.create(URL);
    String[] credentials = credentials(url);
    return DriverManager.getConnection(
        "jdbc:postgresql://" + url.getRawAuthority().replaceFirst(".*@", "") + url.getPath(),
        credentials[0],
        credentials.length > 1 ? credentials[1] : null);
  }
}
