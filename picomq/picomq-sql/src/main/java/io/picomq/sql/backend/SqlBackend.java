package io.picomq.sql.backend;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A source of connections to the database that holds one metadata plane, plus what callers need to
 * write portable SQL against it: the dialect and the table names.
 *
 * <p>Implementations are thread-safe. {@link #withConnection} may block (waiting for a pooled
 * connection, or for the single connection of {@code sqlite::memory:}); call it from a virtual
 * thread or a dedicated thread, never from an event loop.
 *
 * <p>Open one with {@link #open(MetaUrl, BackendOptions)}, which also creates the schema.
 */
public interface SqlBackend extends AutoCloseable {

  SqlDialect dialect();

  TableNames tables();

  /** What this backend is connected to, with any password removed. */
  String describe();

  /**
   * Lends a connection to {@code work} and takes it back when the work returns or throws.
   *
   * @throws SQLException from the work, or when no connection could be had in time, or after {@link
   *     #close()}
   */
  <T> T withConnection(SqlWork<T> work) throws SQLException;

  /**
   * Runs {@code work} in one transaction: committed if it returns, rolled back if it throws. SQLite
   * file backends begin transactions {@code IMMEDIATE}, so the write lock is taken up front and the
   * transaction cannot fail half-way for want of it.
   */
  default <T> T inTransaction(SqlWork<T> work) throws SQLException {
    return withConnection(
        connection -> {
          connection.setAutoCommit(false);
          try {
            T result = work.run(connection);
            connection.commit();
            return result;
          } catch (SQLException | RuntimeException e) {
            rollbackQuietly(connection, e);
            throw e;
          } finally {
            connection.setAutoCommit(true);
          }
        });
  }

  /** Releases connections and, for a SQLite file, the lock that keeps other nodes out. */
  @Override
  void close();

  /**
   * Opens the backend a {@code --meta-url} names and makes sure the schema exists (see {@link
   * Schema#ensure}).
   *
   * @throws DatabaseInUseException if the URL is a SQLite file another node has open
   * @throws SQLException if the database cannot be reached or the schema cannot be created
   * @throws UnsupportedSchemaException if the database was created by a newer PicoMQ
   */
  static SqlBackend open(MetaUrl url, BackendOptions options) throws SQLException {
    SqlBackend backend =
        switch (url) {
          case MetaUrl.SqliteMemory memory -> new SqliteMemoryBackend(options);
          case MetaUrl.SqliteFile file -> SqliteFileBackend.open(file.path(), options);
          case MetaUrl.Postgres postgres -> PostgresBackend.open(postgres, options);
        };
    try {
      Schema.ensure(backend);
      return backend;
    } catch (SQLException | RuntimeException e) {
      backend.close();
      throw e;
    }
  }

  private static void rollbackQuietly(Connection connection, Exception cause) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }
}
