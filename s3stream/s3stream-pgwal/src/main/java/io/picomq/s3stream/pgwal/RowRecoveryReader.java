package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.wal.RecoveredRecord;
import io.picomq.s3stream.wal.Recovery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the records of a {@link RecoveryChain}: table by table (the chain visits each slot in one
 * run, generation after generation), streaming bodies a few rows at a time, checking every record's
 * CRCs and offset ({@link FramedRecords#decode}), up to the first damaged record.
 */
final class RowRecoveryReader {

  private RowRecoveryReader() {}

  /**
   * @return the records above {@code trimOffset}, each owned by the receiver
   * @throws SQLException if the database fails; nothing is left to release then
   */
  static Recovery read(Connection connection, RecoveryChain chain, long trimOffset)
      throws SQLException {
    List<RecoveredRecord> records = new ArrayList<>();
    try {
      // A transaction, so that the driver streams the rows with a cursor rather than load them all.
      Optional<String> damage =
          Transactions.run(
              connection, () -> readRuns(connection, chain.rows(), trimOffset, records));
      return new Recovery(records, trimOffset, damage.or(chain::stoppedBy));
    } catch (SQLException | RuntimeException e) {
      records.forEach(record -> record.body().release());
      throw e;
    }
  }

  private static Optional<String> readRuns(
      Connection connection, List<RowRange> rows, long trimOffset, List<RecoveredRecord> records)
      throws SQLException {
    int from = 0;
    while (from < rows.size()) {
      String table = rows.get(from).table();
      int to = from;
      while (to < rows.size() && rows.get(to).table().equals(table)) {
        to++;
      }
      Optional<String> damage = readRun(connection, rows.subList(from, to), trimOffset, records);
      if (damage.isPresent()) {
        return damage;
      }
      from = to;
    }
    return Optional.empty();
  }

  /** Reads consecutive chain rows of one table. */
  private static Optional<String> readRun(
      Connection connection, List<RowRange> run, long trimOffset, List<RecoveredRecord> records)
      throws SQLException {
    RowRange first = run.getFirst();
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT start_offset, end_offset, epoch, body FROM "
                + first.table()
                + " WHERE start_offset >= ? AND start_offset <= ? ORDER BY start_offset")) {
      query.setFetchSize(SlotRows.FETCH_ROWS);
      query.setLong(1, first.startOffset());
      query.setLong(2, run.getLast().startOffset());
      try (ResultSet row = query.executeQuery()) {
        for (RowRange expected : run) {
          if (!row.next()) {
            return Optional.of("gap: " + expected + " vanished after it was listed");
          }
          RowRange found =
              new RowRange(first.table(), row.getLong(1), row.getLong(2), row.getLong(3));
          if (!found.equals(expected)) {
            return Optional.of("expected " + expected + ", found " + found);
          }
          Optional<String> damage =
              FramedRecords.decode(
                  found.startOffset(), found.endOffset(), row.getBytes(4), trimOffset, records);
          if (damage.isPresent()) {
            return damage;
          }
        }
      }
    }
    return Optional.empty();
  }
}
