package io.picomq.sql.backend;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done with a borrowed connection. The connection is in auto-commit mode on entry and must be
 * left that way; the work must not close it or keep it after returning.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface SqlWork<T> {
  T run(Connection connection) throws SQLException;
}
