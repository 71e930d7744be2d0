package io.picomq.sql.log;

import io.picomq.sql.backend.SqlBackend;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The statements on the single snapshot row {@code (id = 1, idx, payload)}.
 *
 * <p>{@link #writeAndTruncate} replaces the row only with a newer one, and in the same transaction
 * deletes the log rows <em>below</em> the snapshot's index, keeping the row at the index itself:
 * the log's last index then never falls below the snapshot, which is what keeps {@link
 * LogTable#append} from reusing a truncated index. A reader that sees the truncation therefore also
 * sees the snapshot that covers it.
 */
final class SnapshotTable {
  private final SqlBackend backend;
  private final String readSql;
  private final String storedSql;
  private final String upsertSql;
  private final String truncateSql;

  SnapshotTable(SqlBackend backend) {
    this.backend = backend;
    String snapshot = backend.tables().snapshot();
    this.readSql = "SELECT idx, payload FROM " + snapshot + " WHERE id = 1";
    this.storedSql = "SELECT idx, length(payload) FROM " + snapshot + " WHERE id = 1";
    this.upsertSql =
        "INSERT INTO "
            + snapshot
            + " (id, idx, payload) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE"
            + " SET idx = excluded.idx, payload = excluded.payload WHERE "
            + snapshot
            + ".idx < excluded.idx";
    this.truncateSql = "DELETE FROM " + backend.tables().log() + " WHERE idx < ?";
  }

  /** The snapshot row, if one was ever written. */
  Optional<StoredRow> read() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(readSql);
              ResultSet rows = select.executeQuery()) {
            return rows.next()
                ? Optional.of(new StoredRow(rows.getLong(1), rows.getBytes(2)))
                : Optional.empty();
          }
        });
  }

  /** Where the stored snapshot ends and how large it is: cheaper than {@link #read()}. */
  record Stored(long index, long bytes) {
    static final Stored NONE = new Stored(0, 0);
  }

  /** The stored snapshot's index and size, or {@link Stored#NONE} if there is none. */
  Stored stored() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(storedSql);
              ResultSet rows = select.executeQuery()) {
            return rows.next() ? new Stored(rows.getLong(1), rows.getLong(2)) : Stored.NONE;
          }
        });
  }

  /**
   * Stores {@code payload} as the snapshot through row {@code index} unless the stored one is as
   * new, and if stored, truncates the log below {@code index}.
   *
   * @return the number of log rows deleted, or -1 if a snapshot at least as new was already stored
   */
  long writeAndTruncate(long index, byte[] payload) throws SQLException {
    return backend.inTransaction(
        connection -> {
          try (PreparedStatement upsert = connection.prepareStatement(upsertSql)) {
            upsert.setLong(1, index);
            upsert.setBytes(2, payload);
            if (upsert.executeUpdate() != 1) {
              return -1L;
            }
          }
          try (PreparedStatement truncate = connection.prepareStatement(truncateSql)) {
            truncate.setLong(1, index);
            return (long) truncate.executeUpdate();
          }
        });
  }
}
