package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.wal.WalFencedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The statements on one node's row of {@code pico_wal_node}. The row is the fence: every insert and
 * truncation of this epoch locks it {@code FOR SHARE} with {@code epoch = this epoch}, and a claim
 * updates it, so a claim waits for the older epoch's statements in flight and every later one finds
 * the new epoch and does nothing.
 */
final class NodeRows {

  private static final String WHERE_NODE = " WHERE cluster_id = ? AND node_id = ?";

  private final String clusterId;
  private final int nodeId;
  private final long epoch;

  NodeRows(String clusterId, int nodeId, long epoch) {
    this.clusterId = clusterId;
    this.nodeId = nodeId;
    this.epoch = epoch;
  }

  /** Inserts an unclaimed row if the node has none; in the caller's transaction. */
  void insertIfMissing(Connection connection, RingGeometry ring) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO "
                + WalSchema.NODE_TABLE
                + " (cluster_id, node_id, epoch, claim_id, trim_offset, segment_count,"
                + " segment_bytes, timeline) VALUES (?, ?, -1, '', -1, ?, ?, NULL)"
                + " ON CONFLICT (cluster_id, node_id) DO NOTHING")) {
      insert.setString(1, clusterId);
      insert.setInt(2, nodeId);
      insert.setInt(3, ring.segments());
      insert.setLong(4, ring.segmentBytes());
      insert.executeUpdate();
    }
  }

  /** Reads the row and locks it until the transaction ends. */
  NodeRow lockForClaim(Connection connection) throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT epoch, claim_id, trim_offset, segment_count, segment_bytes, timeline FROM "
                + WalSchema.NODE_TABLE
                + WHERE_NODE
                + " FOR UPDATE")) {
      bindNode(query);
      try (ResultSet row = query.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException("the WAL row of node " + nodeId + " vanished");
        }
        long timelineValue = row.getLong(6);
        OptionalLong timeline =
            row.wasNull() ? OptionalLong.empty() : OptionalLong.of(timelineValue);
        return new NodeRow(
            row.getLong(1),
            row.getString(2),
            row.getLong(3),
            new RingGeometry(row.getLong(5), row.getInt(4)),
            timeline);
      }
    }
  }

  /** Claims the locked row for this epoch. */
  void claim(Connection connection, String claimId, OptionalLong timeline) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE "
                + WalSchema.NODE_TABLE
                + " SET epoch = ?, claim_id = ?, timeline = ?"
                + WHERE_NODE)) {
      update.setLong(1, epoch);
      update.setString(2, claimId);
      if (timeline.isPresent()) {
        update.setLong(3, timeline.getAsLong());
      } else {
        update.setNull(3, Types.BIGINT);
      }
      update.setString(4, clusterId);
      update.setInt(5, nodeId);
      update.executeUpdate();
    }
  }

  /**
   * Raises the trim offset (never lowers it), and records the ring, if this epoch still holds the
   * node.
   *
   * @throws WalFencedException if a newer epoch claimed the node
   */
  void recordTrim(Connection connection, long trimOffset, Optional<RingGeometry> ring)
      throws SQLException {
    String setRing = ring.isPresent() ? ", segment_count = ?, segment_bytes = ?" : "";
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE "
                + WalSchema.NODE_TABLE
                + " SET trim_offset = GREATEST(trim_offset, ?)"
                + setRing
                + WHERE_NODE
                + " AND epoch = ?")) {
      int index = 1;
      update.setLong(index++, trimOffset);
      if (ring.isPresent()) {
        update.setInt(index++, ring.get().segments());
        update.setLong(index++, ring.get().segmentBytes());
      }
      update.setString(index++, clusterId);
      update.setInt(index++, nodeId);
      update.setLong(index, epoch);
      if (update.executeUpdate() == 0) {
        throw fenced(connection);
      }
    }
  }

  /**
   * Locks the row {@code FOR SHARE} until the transaction ends, if this epoch still holds the node:
   * a claim by a newer epoch waits until then.
   *
   * @throws WalFencedException if a newer epoch claimed the node
   */
  void holdEpoch(Connection connection) throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT 1 FROM " + WalSchema.NODE_TABLE + WHERE_NODE + " AND epoch = ? FOR SHARE")) {
      bindNode(query);
      query.setLong(3, epoch);
      try (ResultSet row = query.executeQuery()) {
        if (!row.next()) {
          throw fenced(connection);
        }
      }
    }
  }

  /** The epoch that claimed the node last, if it has a row. */
  OptionalLong currentEpoch(Connection connection) throws SQLException {
    return currentEpoch(connection, clusterId, nodeId);
  }

  /** The epoch that claimed {@code nodeId} last, if the node has a row (and the table exists). */
  static OptionalLong currentEpoch(Connection connection, String clusterId, int nodeId)
      throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement("SELECT epoch FROM " + WalSchema.NODE_TABLE + WHERE_NODE)) {
      query.setString(1, clusterId);
      query.setInt(2, nodeId);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /** The fencing this epoch ran into, described with the epoch that holds the node now. */
  WalFencedException fenced(Connection connection) throws SQLException {
    OptionalLong now = currentEpoch(connection);
    return new WalFencedException(
        epoch,
        now.isPresent()
            ? "epoch " + now.getAsLong() + " claimed node " + nodeId + " in Postgres"
            : "the WAL row of node " + nodeId + " is gone");
  }

  private void bindNode(PreparedStatement statement) throws SQLException {
    statement.setString(1, clusterId);
    statement.setInt(2, nodeId);
  }
}
