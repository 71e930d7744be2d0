package io.picomq.sql.backend;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code sqlite::memory:}: one private in-memory database reached through a single connection.
 *
 * <p>An in-memory SQLite database lives exactly as long as the connection that created it, so a
 * pool (which retires connections) would lose it; instead every caller borrows the one connection
 * in turn. Threading: {@code lock} guards {@code connection}; it is a {@link ReentrantLock}, not
 * {@code synchronized}, so a virtual thread waiting for it does not pin its carrier.
 */
final class SqliteMemoryBackend implements SqlBackend {
  private final TableNames tables;
  private final ReentrantLock lock = new ReentrantLock();

  /** Guarded by {@code lock}. */
  private final Connection connection;

  /** Guarded by {@code lock}. */
  private boolean closed;

  SqliteMemoryBackend(BackendOptions options) throws SQLException {
    this.tables = options.tables();
    this.connection =
        DriverManager.getConnection(
            "jdbc:sqlite::memory:", SqliteSettings.config(options, true).toProperties());
  }

  @Override
  public SqlDialect dialect() {
    return SqlDialect.SQLITE;
  }

  @Override
  public TableNames tables() {
    return tables;
  }

  @Override
  public String describe() {
    return "sqlite::memory:";
  }

  @Override
  public <T> T withConnection(SqlWork<T> work) throws SQLException {
    lock.lock();
    try {
      if (closed) {
        throw new SQLException("sqlite::memory: backend is closed");
      }
      return work.run(connection);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (!closed) {
        closed = true;
        connection.close();
      }
    } catch (SQLException e) {
      // The database is gone with the connection either way.
      org.slf4j.LoggerFactory.getLogger(SqliteMemoryBackend.class)
          .warn("closing the in-memory SQLite connection failed", e);
    } finally {
      lock.unlock();
    }
  }
}
