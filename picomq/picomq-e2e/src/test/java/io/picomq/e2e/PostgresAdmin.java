package io.picomq.e2e;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Statements the cluster and fault tests run on the machine's Postgres ({@code PICOMQ_PG_URL}). */
public final class PostgresAdmin {

  private PostgresAdmin() {}

  /** Runs {@code sql} on the database {@code PICOMQ_PG_URL} names, outside any transaction. */
  public static void execute(String sql) throws SQLException {
    try (Connection connection = connect(null);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** The first column of the first row {@code sql} answers, as a number. */
  public static long queryLong(String sql) throws SQLException {
    return queryLong(null, sql);
  }

  /**
   * As {@link #queryLong(String)}, in {@code database} of the same server (null: the one {@code
   * PICOMQ_PG_URL} names).
   */
  public static long queryLong(String database, String sql) throws SQLException {
    try (Connection connection = connect(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      if (!rows.next()) {
        throw new SQLException("no row: " + sql);
      }
      return rows.getLong(1);
    }
  }

  private static Connection connect(String database) throws SQLException {
    URI url = URI.create(System.getenv("PICOMQ_PG_URL"));
    String userInfo = url.getUserInfo() == null ? "" : url.getUserInfo();
    String[] credentials = userInfo.split(":", 2);
    return DriverManager.getConnection(
        "jdbc:postgresql://"
            + url.getHost()
            + ":"
            + url.getPort()
            + (database == null ? url.getPath() : "/" + database),
        credentials[0],
        credentials.length > 1 ? credentials[1] : null);
  }
}
