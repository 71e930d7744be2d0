package io.picomq.sql.log;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements on the log table {@code (idx, payload)}.
 *
 * <p>The invariant every writer keeps: indexes are contiguous from the oldest row kept to the last,
 * so a reader that finds a gap knows rows were truncated. {@link #append} guarantees it by
 * inserting only at exactly {@code MAX(idx) + 1}, checked in the same statement; a stale guess
 * inserts nothing instead of leaving a hole, and a guess below the truncation point cannot succeed
 * because truncation always keeps the snapshot's own row (see {@link SnapshotTable}).
 */
final class LogTable {
  private static final Logger LOG = LoggerFactory.getLogger(LogTable.class);

  private final SqlBackend backend;
  private final String appendSql;
  private final String lastIndexSql;
  private final String readAfterSql;
  private final String readSql;
  private final boolean notifies;
  private final String writerId;

  /**
   * @param writerId sent with each notification, so that the writer's own listener can tell its
   *     rows (its flusher wakes its tailer already) from other nodes'
   */
  LogTable(SqlBackend backend, long writerId) {
    this.backend = backend;
    this.writerId = Long.toString(writerId);
    String log = backend.tables().log();
    this.notifies = backend.dialect() == SqlDialect.POSTGRES;
    // ON CONFLICT covers two writers that guessed the same index: on Postgres the second waits
    // for the first to commit, then inserts nothing. (SQLite needs the WHERE to parse an
    // INSERT ... SELECT with an upsert clause; we have one anyway.)
    this.appendSql =
        "INSERT INTO "
            + log
            + " (idx, payload) SELECT ?, ? WHERE ? = (SELECT COALESCE(MAX(idx), 0) FROM "
            + log
            + ") + 1 ON CONFLICT (idx) DO NOTHING";
    this.lastIndexSql = "SELECT COALESCE(MAX(idx), 0) FROM " + log;
    this.readAfterSql = "SELECT idx, payload FROM " + log + " WHERE idx > ? ORDER BY idx LIMIT ?";
    this.readSql = "SELECT payload FROM " + log + " WHERE idx = ?";
  }

  /**
   * Inserts {@code payload} as row {@code index} if {@code index} is the next free index.
   *
   * @return whether the row was inserted; {@code false} means another row is there or the guess was
   *     stale, so re-read {@link #lastIndex()} and try higher
   * @throws SQLException and then the row may or may not have been inserted
   */
  boolean append(long index, byte[] payload) throws SQLException {
    return backend.withConnection(
        connection -> {
          boolean inserted;
          try (PreparedStatement insert = connection.prepareStatement(appendSql)) {
            insert.setLong(1, index);
            insert.setBytes(2, payload);
            insert.setLong(3, index);
            inserted = insert.executeUpdate() == 1;
          }
          if (inserted && notifies) {
            notifyListeners(connection);
          }
          return inserted;
        });
  }

  /**
   * The channel other nodes' {@link LogListener}s listen on (Postgres): the log table's name, so
   * that planes sharing a database under different table prefixes do not wake each other.
   */
  String channel() {
    return backend.tables().log();
  }

  /**
   * Tells listening nodes that a row was added. Only a wake-up: a lost notification costs a
   * listener one poll interval, so a failure here is not the insert's.
   */
  private void notifyListeners(Connection connection) {
    try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
      notify.setString(1, channel());
      notify.setString(2, writerId);
      notify.execute();
    } catch (SQLException e) {
      LOG.debug("could not notify other nodes of a new log row", e);
    }
  }

  /** The index of the last row, or 0 when the log is empty. */
  long lastIndex() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(lastIndexSql);
              ResultSet rows = select.executeQuery()) {
            rows.next();
            return rows.getLong(1);
          }
        });
  }

  /** Up to {@code limit} rows after {@code index}, in index order. */
  List<StoredRow> readAfter(long index, int limit) throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(readAfterSql)) {
            select.setLong(1, index);
            select.setInt(2, limit);
            try (ResultSet rows = select.executeQuery()) {
              List<StoredRow> read = new ArrayList<>();
              while (rows.next()) {
                read.add(new StoredRow(rows.getLong(1), rows.getBytes(2)));
              }
              return read;
            }
          }
        });
  }

  /** The payload of row {@code index}, if it exists. */
  Optional<byte[]> read(long index) throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(readSql)) {
            select.setLong(1, index);
            try (ResultSet rows = select.executeQuery()) {
              return rows.next() ? Optional.of(rows.getBytes(1)) : Optional.empty();
            }
          }
        });
  }
}
