package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.wal.WalFencedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/** The statements on one node's slot tables. */
final class SlotRows {

  /** Rows fetched per round trip while recovery streams bodies (each up to maxBytesInBatch). */
  static final int FETCH_ROWS = 8;

  private final NodeRows node;
  private final String clusterId;
  private final int nodeId;
  private final long epoch;

  SlotRows(NodeRows node, String clusterId, int nodeId, long epoch) {
    this.node = node;
    this.clusterId = clusterId;
    this.nodeId = nodeId;
    this.epoch = epoch;
  }

  /**
   * Inserts one batch's row in its own transaction (auto-commit), fenced: the row goes in only if
   * the node row still carries this epoch, which the statement locks {@code FOR SHARE}. When
   * nothing was inserted, finds out why: a row already at this start offset (identical: a lost
   * answer of an earlier attempt; different: corruption), or a newer epoch.
   */
  InsertOutcome insert(
      Connection connection, String table, long startOffset, long endOffset, byte[] framed)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO "
                + table
                + " (start_offset, end_offset, epoch, body) SELECT ?, ?, ?, ? FROM "
                + WalSchema.NODE_TABLE
                + " WHERE cluster_id = ? AND node_id = ? AND epoch = ? FOR SHARE"
                + " ON CONFLICT (start_offset) DO NOTHING")) {
      insert.setLong(1, startOffset);
      insert.setLong(2, endOffset);
      insert.setLong(3, epoch);
      insert.setBytes(4, framed);
      insert.setString(5, clusterId);
      insert.setInt(6, nodeId);
      insert.setLong(7, epoch);
      if (insert.executeUpdate() == 1) {
        return new InsertOutcome.Inserted();
      }
    }
    return whyNotInserted(connection, table, startOffset, endOffset, framed);
  }

  private InsertOutcome whyNotInserted(
      Connection connection, String table, long startOffset, long endOffset, byte[] framed)
      throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT end_offset, epoch, body FROM " + table + " WHERE start_offset = ?")) {
      query.setLong(1, startOffset);
      try (ResultSet row = query.executeQuery()) {
        if (row.next()) {
          long storedEnd = row.getLong(1);
          long storedEpoch = row.getLong(2);
          byte[] storedBody = row.getBytes(3);
          if (storedEnd == endOffset && storedEpoch == epoch && Arrays.equals(storedBody, framed)) {
            return new InsertOutcome.AlreadyStored();
          }
          return new InsertOutcome.Conflict(
              table
                  + " holds a different row at "
                  + startOffset
                  + ": ["
                  + startOffset
                  + ", "
                  + storedEnd
                  + ") of epoch "
                  + storedEpoch
                  + " with "
                  + storedBody.length
                  + " bytes, where epoch "
                  + epoch
                  + " inserts ["
                  + startOffset
                  + ", "
                  + endOffset
                  + ") with "
                  + framed.length
                  + " bytes");
        }
      }
    }
    WalFencedException fenced = node.fenced(connection);
    return new InsertOutcome.Fenced(fenced.getMessage());
  }

  /** The rows of {@code table} ending above {@code firstUntrimmed}, without bodies. */
  static List<RowRange> untrimmed(Connection connection, String table, long firstUntrimmed)
      throws SQLException {
    List<RowRange> rows = new ArrayList<>();
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT start_offset, end_offset, epoch FROM " + table + " WHERE end_offset > ?")) {
      query.setLong(1, firstUntrimmed);
      try (ResultSet row = query.executeQuery()) {
        while (row.next()) {
          rows.add(new RowRange(table, row.getLong(1), row.getLong(2), row.getLong(3)));
        }
      }
    }
    return rows;
  }

  /** The highest end offset in {@code table}, or -1 if it is empty. */
  static long maxEnd(Connection connection, String table) throws SQLException {
    try (Statement query = connection.createStatement();
        ResultSet row = query.executeQuery("SELECT max(end_offset) FROM " + table)) {
      row.next();
      long end = row.getLong(1);
      return row.wasNull() ? -1 : end;
    }
  }

  /**
   * Truncates {@code tables} in one transaction, if this epoch still holds the node: the {@code FOR
   * SHARE} lock on the node row makes a newer epoch's claim wait until the truncation committed, so
   * a fenced writer can never truncate what a newer epoch wrote.
   *
   * @throws WalFencedException if a newer epoch claimed the node
   */
  void truncate(Connection connection, Collection<String> tables) throws SQLException {
    if (tables.isEmpty()) {
      return;
    }
    Transactions.run(
        connection,
        () -> {
          node.holdEpoch(connection);
          try (Statement truncate = connection.createStatement()) {
            truncate.execute("TRUNCATE " + String.join(", ", tables));
          }
          return null;
        });
  }
}
