package io.picomq.sql.liveness;

import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.backend.SqlDialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The statements on {@code PREFIXnodes_alive (node_id, node_epoch, ttl_millis, renewed_at_millis,
 * expires_at_millis)}. Renewal times are the database's clock, read inside the statement that
 * writes them, so every row of every node is on one clock and {@link #readAll()} can judge them all
 * against that clock's reading in the same statement.
 */
public final class LivenessTable {
  private final SqlBackend backend;
  private final String renewSql;
  private final String removeSql;
  private final String readAllSql;

  public LivenessTable(SqlBackend backend) {
    this.backend = backend;
    String table = backend.tables().nodesAlive();
    String now = nowMillisExpression(backend.dialect());
    // The clock is read once, in a derived table, so expires_at - renewed_at is exactly the TTL.
    // SQLite parses INSERT ... SELECT ... ON CONFLICT only with a WHERE in the SELECT.
    this.renewSql =
        "INSERT INTO "
            + table
            + " (node_id, node_epoch, ttl_millis, renewed_at_millis, expires_at_millis)"
            + " SELECT ?, ?, ?, clock.now_ms, clock.now_ms + ? FROM (SELECT "
            + now
            + " AS now_ms) AS clock WHERE 1 = 1"
            + " ON CONFLICT (node_id) DO UPDATE SET node_epoch = excluded.node_epoch,"
            + " ttl_millis = excluded.ttl_millis, renewed_at_millis = excluded.renewed_at_millis,"
            + " expires_at_millis = excluded.expires_at_millis"
            + " WHERE "
            + table
            + ".node_epoch <= excluded.node_epoch";
    this.removeSql = "DELETE FROM " + table + " WHERE node_id = ? AND node_epoch = ?";
    // The LEFT JOIN yields the clock even when there is no row (then with NULL columns).
    this.readAllSql =
        "SELECT clock.now_ms, n.node_id, n.node_epoch, n.ttl_millis, n.renewed_at_millis,"
            + " n.expires_at_millis FROM (SELECT "
            + now
            + " AS now_ms) AS clock LEFT JOIN "
            + table
            + " AS n ON 1 = 1";
  }

  /**
   * The database's clock in milliseconds since the Unix epoch, as SQL. Postgres' {@code
   * clock_timestamp()} is the time of the call ({@code now()} would be the transaction's start);
   * SQLite's {@code 'now'} is stable within one statement.
   */
  static String nowMillisExpression(SqlDialect dialect) {
    return switch (dialect) {
      case POSTGRES -> "(extract(epoch from clock_timestamp()) * 1000)::bigint";
      case SQLITE -> "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
    };
  }

  /**
   * Renews the row of {@code nodeId} for process {@code nodeEpoch}: {@code renewed_at} becomes the
   * database's now and {@code expires_at} now + {@code ttl}. Creates the row if missing and takes
   * over a row of an older epoch (the node restarted); refuses to overwrite a row of a newer epoch,
   * so a stale process cannot keep its successor's node id looking alive on its own terms.
   *
   * @return true if the row now records this process, false if a newer process of the node owns it
   * @throws SQLException if the database did not answer; the row may or may not have been renewed
   */
  public boolean renew(int nodeId, long nodeEpoch, Duration ttl) throws SQLException {
    long ttlMillis = ttl.toMillis();
    if (ttlMillis <= 0) {
      throw new IllegalArgumentException("ttl must be at least 1 ms, not " + ttl);
    }
    int written =
        backend.withConnection(
            connection -> {
              try (PreparedStatement upsert = connection.prepareStatement(renewSql)) {
                upsert.setInt(1, nodeId);
                upsert.setLong(2, nodeEpoch);
                upsert.setLong(3, ttlMillis);
                upsert.setLong(4, ttlMillis);
                return upsert.executeUpdate();
              }
            });
    return written == 1;
  }

  /**
   * Deletes the row of {@code nodeId} if process {@code nodeEpoch} still owns it (a clean shutdown:
   * the node is dead at once instead of after its TTL).
   *
   * @return whether a row was deleted
   */
  public boolean remove(int nodeId, long nodeEpoch) throws SQLException {
    int deleted =
        backend.withConnection(
            connection -> {
              try (PreparedStatement delete = connection.prepareStatement(removeSql)) {
                delete.setInt(1, nodeId);
                delete.setLong(2, nodeEpoch);
                return delete.executeUpdate();
              }
            });
    return deleted == 1;
  }

  /** Every row, with the database's clock read in the same statement. */
  public LivenessView readAll() throws SQLException {
    return backend.withConnection(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(readAllSql);
              ResultSet rows = select.executeQuery()) {
            Map<Integer, LivenessRow> byNode = new HashMap<>();
            long now = 0;
            while (rows.next()) {
              now = rows.getLong(1);
              int nodeId = rows.getInt(2);
              if (rows.wasNull()) {
                continue;
              }
              byNode.put(
                  nodeId,
                  new LivenessRow(
                      nodeId, rows.getLong(3), rows.getLong(4), rows.getLong(5), rows.getLong(6)));
            }
            return new LivenessView(byNode, now);
          }
        });
  }
}
