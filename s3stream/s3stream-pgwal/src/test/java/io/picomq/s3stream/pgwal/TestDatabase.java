package io.picomq.s3stream.pgwal;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh database on the machine's Postgres ({@code PICOMQ_PG_URL}) for one test class, as a JUnit
 * extension: created before the class's first test, dropped after its last; without {@code
 * PICOMQ_PG_URL} the class is skipped. Register it as {@code @RegisterExtension static final
 * TestDatabase database = new TestDatabase();}. Statements the tests run themselves go through
 * connections named {@code pgwal-test}, so killing the WAL's own backends ({@code picomq-wal})
 * spares them.
 */
final class TestDatabase implements BeforeAllCallback, AfterAllCallback {

  static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the Postgres WAL tests are SKIPPED"
          + " (export PICOMQ_PG_URL=postgres://postgres@127.0.0.1:5432/test to run them)";

  // Set before the class's first test, by the thread that runs the tests.
  private PostgresWalUri server;
  private String name;

  @Override
  public void beforeAll(ExtensionContext context) throws SQLException {
    assumeTrue(available(), SKIPPED);
    server = PostgresWalUri.parse(System.getenv("PICOMQ_PG_URL"));
    name = "pgwal_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    try (Connection admin = connect(server, server.database());
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws SQLException {
    if (name == null) {
      return;
    }
    try (Connection admin = connect(server, server.database());
        Statement statement = admin.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
    name = null;
  }

  /** True if {@code PICOMQ_PG_URL} names a server; prints why tests skip otherwise. */
  private static boolean available() {
    String url = System.getenv("PICOMQ_PG_URL");
    if (url == null || url.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
      return false;
    }
    return true;
  }

  String name() {
    return name;
  }

  /** A WAL URI for this database with the given query parameters (no leading '?'). */
  PostgresWalUri walUri(String parameters) {
    StringBuilder uri = new StringBuilder("postgres://");
    server
        .user()
        .ifPresent(
            user -> {
              uri.append(URLEncoder.encode(user, StandardCharsets.UTF_8));
              server
                  .password()
                  .ifPresent(
                      secret ->
                          uri.append(':')
                              .append(URLEncoder.encode(secret, StandardCharsets.UTF_8)));
              uri.append('@');
            });
    uri.append(server.host()).append(':').append(server.port()).append('/').append(name);
    if (!parameters.isEmpty()) {
      uri.append('?').append(parameters);
    }
    return PostgresWalUri.parse(uri.toString());
  }

  /** A connection of the test's own to this database; the caller closes it. */
  Connection connect() throws SQLException {
    return connect(server, name);
  }

  void execute(String sql) throws SQLException {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** The first column of the first row of {@code sql}, as a long (0 for SQL NULL). */
  long queryLong(String sql, Object... parameters) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement query = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        query.setObject(i + 1, parameters[i]);
      }
      try (ResultSet row = query.executeQuery()) {
        if (!row.next()) {
          throw new AssertionError("no row from " + sql);
        }
        return row.getLong(1);
      }
    }
  }

  /**
   * Terminates every backend of the WAL connection pools on this database; returns how many. Works
   * from the server's own database, so also while this one refuses connections.
   */
  int terminateWalBackends() throws SQLException {
    try (Connection connection = connect(server, server.database());
        PreparedStatement kill =
            connection.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE datname = ? AND application_name = ?")) {
      kill.setString(1, name);
      kill.setString(2, PostgresWalUri.APPLICATION_NAME);
      try (ResultSet row = kill.executeQuery()) {
        row.next();
        return row.getInt(1);
      }
    }
  }

  /** Lets connections to this database be made, or not (existing ones stay). */
  void allowConnections(boolean allow) throws SQLException {
    try (Connection admin = connect(server, server.database());
        Statement statement = admin.createStatement()) {
      statement.execute("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS " + allow);
    }
  }

  private static Connection connect(PostgresWalUri server, String database) throws SQLException {
    Properties properties = new Properties();
    server.user().ifPresent(user -> properties.setProperty("user", user));
    server.password().ifPresent(secret -> properties.setProperty("password", secret));
    properties.setProperty("ApplicationName", "pgwal-test");
    return DriverManager.getConnection(
        "jdbc:postgresql://" + server.host() + ":" + server.port() + "/" + database, properties);
  }
}
