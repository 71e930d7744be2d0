package io.picomq.sql.backend;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A backend that lends connections from a HikariCP pool: Postgres, and SQLite files. Hikari resets
 * auto-commit on a returned connection, and its internals use no {@code synchronized} on the borrow
 * path, so virtual threads may borrow.
 */
final class PooledBackend implements SqlBackend {
  private final HikariDataSource pool;
  private final SqlDialect dialect;
  private final TableNames tables;
  private final String description;
  private final AutoCloseable onClose;

  /**
   * @param onClose released after the pool closes (the SQLite file lock), or a no-op
   */
  PooledBackend(
      HikariDataSource pool,
      SqlDialect dialect,
      TableNames tables,
      String description,
      AutoCloseable onClose) {
    this.pool = pool;
    this.dialect = dialect;
    this.tables = tables;
    this.description = description;
    this.onClose = onClose;
  }

  @Override
  public SqlDialect dialect() {
    return dialect;
  }

  @Override
  public TableNames tables() {
    return tables;
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public <T> T withConnection(SqlWork<T> work) throws SQLException {
    try (Connection connection = pool.getConnection()) {
      return work.run(connection);
    }
  }

  @Override
  public void close() {
    pool.close();
    try {
      onClose.close();
    } catch (Exception e) {
      org.slf4j.LoggerFactory.getLogger(PooledBackend.class)
          .warn("releasing {} after closing its pool failed", description, e);
    }
  }

  /** The innermost cause's message: what the driver actually said. */
  static String rootMessage(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }

  @Override
  public String toString() {
    return description;
  }
}
