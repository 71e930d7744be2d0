package io.picomq.s3stream.pgwal;

import java.sql.Connection;
import java.sql.SQLException;

/** Runs work in one transaction on a connection that is otherwise in auto-commit mode. */
final class Transactions {

  /** Work inside a transaction; may throw what JDBC throws, or a runtime exception to roll back. */
  @FunctionalInterface
  interface Work<T> {
    T run() throws SQLException;
  }

  private Transactions() {}

  /**
   * Runs {@code work} and commits; rolls back if it throws (and rethrows). The connection is back
   * in auto-commit mode afterwards, unless it broke on the way.
   */
  static <T> T run(Connection connection, Work<T> work) throws SQLException {
    connection.setAutoCommit(false);
    boolean committed = false;
    try {
      T result = work.run();
      connection.commit();
      committed = true;
      return result;
    } finally {
      if (!committed) {
        rollbackQuietly(connection);
      }
      restoreAutoCommit(connection);
    }
  }

  private static void rollbackQuietly(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException alreadyFailing) {
      // The work's own failure is the one to report; a broken connection is dropped by the pool.
    }
  }

  private static void restoreAutoCommit(Connection connection) {
    try {
      connection.setAutoCommit(true);
    } catch (SQLException broken) {
      // As above: the pool validates (and drops) a broken connection before lending it again.
    }
  }
}
