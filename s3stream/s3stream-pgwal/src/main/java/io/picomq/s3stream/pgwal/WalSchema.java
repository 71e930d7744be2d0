package io.picomq.s3stream.pgwal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * The WAL's tables: their names and the DDL that creates them if missing.
 *
 * <pre>{@code
 * CREATE TABLE pico_wal_node (
 *   cluster_id text NOT NULL, node_id integer NOT NULL,
 *   epoch bigint NOT NULL,          -- the epoch that claimed the node last (-1: none yet)
 *   claim_id text NOT NULL,         -- which WAL instance claimed it, so a retried claim is its own
 *   trim_offset bigint NOT NULL,    -- records at or below it are discarded (-1: none)
 *   segment_count integer NOT NULL, segment_bytes bigint NOT NULL,  -- the ring being written
 *   timeline bigint,                -- the server's timeline at the last claim (null: unknown)
 *   PRIMARY KEY (cluster_id, node_id));
 *
 * CREATE TABLE pico_wal_{crc32hex(cluster)}_{node}_{slot} (
 *   start_offset bigint PRIMARY KEY, end_offset bigint NOT NULL, epoch bigint NOT NULL,
 *   body bytea NOT NULL,            -- the batch's framed records, STORAGE EXTERNAL
 *   CHECK (end_offset > start_offset))
 *   WITH (autovacuum_enabled = false, toast.autovacuum_enabled = false);
 * }</pre>
 *
 * Slot tables never have dead tuples (rows are inserted, then the whole table is truncated), so
 * autovacuum has nothing to do there; the body is stored uncompressed out of line ({@code
 * EXTERNAL}): record batches are compressed already, if at all, and compressing on the commit path
 * would cost latency. DDL runs under a transaction-level advisory lock, so processes starting at
 * once do not race on {@code CREATE TABLE IF NOT EXISTS}.
 */
final class WalSchema {

  static final String NODE_TABLE = "pico_wal_node";

  /** Serializes this module's DDL across processes ("picowal" in ASCII). */
  private static final long DDL_LOCK = 0x7069636f77616cL;

  private final String slotPrefix;

  WalSchema(String clusterId, int nodeId) {
    if (nodeId < 0) {
      throw new IllegalArgumentException("nodeId must be >= 0: " + nodeId);
    }
    this.slotPrefix = "pico_wal_" + clusterHash(clusterId) + "_" + nodeId + "_";
  }

  /** The cluster's part of slot table names: CRC-32 (zlib's) of its UTF-8 id, 8 hex digits. */
  static String clusterHash(String clusterId) {
    CRC32 crc = new CRC32();
    crc.update(clusterId.getBytes(StandardCharsets.UTF_8));
    return String.format(Locale.ROOT, "%08x", crc.getValue());
  }

  String slotTable(int slot) {
    return slotPrefix + slot;
  }

  /**
   * Creates {@code pico_wal_node} if missing. Looks first: a user without the right to create
   * tables can then run a WAL in tables created for it.
   */
  static void ensureNodeTable(Connection connection) throws SQLException {
    if (exists(connection, NODE_TABLE)) {
      return;
    }
    Transactions.run(
        connection,
        () -> {
          lockDdl(connection);
          try (Statement statement = connection.createStatement()) {
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + NODE_TABLE
                    + " (cluster_id text NOT NULL, node_id integer NOT NULL,"
                    + " epoch bigint NOT NULL, claim_id text NOT NULL,"
                    + " trim_offset bigint NOT NULL, segment_count integer NOT NULL,"
                    + " segment_bytes bigint NOT NULL, timeline bigint,"
                    + " PRIMARY KEY (cluster_id, node_id))");
          }
          return null;
        });
  }

  /**
   * Creates slot tables {@code 0 .. segments - 1} where missing; inside the caller's transaction.
   */
  void createSlots(Connection connection, int segments) throws SQLException {
    lockDdl(connection);
    try (Statement statement = connection.createStatement()) {
      for (int slot = 0; slot < segments; slot++) {
        if (exists(connection, slotTable(slot))) {
          continue;
        }
        String table = slotTable(slot);
        statement.execute(
            "CREATE TABLE "
                + table
                + " (start_offset bigint PRIMARY KEY, end_offset bigint NOT NULL,"
                + " epoch bigint NOT NULL, body bytea NOT NULL,"
                + " CHECK (end_offset > start_offset))"
                + " WITH (autovacuum_enabled = false, toast.autovacuum_enabled = false)");
        statement.execute("ALTER TABLE " + table + " ALTER COLUMN body SET STORAGE EXTERNAL");
      }
    }
  }

  /**
   * This node's slot tables that exist now, by slot number, whatever ring wrote them (the recorded
   * ring may have been another).
   */
  TreeMap<Integer, String> existingSlots(Connection connection) throws SQLException {
    TreeMap<Integer, String> slots = new TreeMap<>();
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = current_schema() AND c.relkind = 'r'"
                + " AND starts_with(c.relname, ?)")) {
      query.setString(1, slotPrefix);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          String name = rows.getString(1);
          String suffix = name.substring(slotPrefix.length());
          if (!suffix.isEmpty()
              && suffix.length() <= 4
              && suffix.chars().allMatch(Character::isDigit)) {
            slots.put(Integer.parseInt(suffix), name);
          }
        }
      }
    }
    return slots;
  }

  /** Takes the DDL lock until the end of the current transaction. */
  static void lockDdl(Connection connection) throws SQLException {
    try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      lock.setLong(1, DDL_LOCK);
      lock.executeQuery().close();
    }
  }

  private static boolean exists(Connection connection, String table) throws SQLException {
    try (PreparedStatement query = connection.prepareStatement("SELECT to_regclass(?)")) {
      query.setString(1, table);
      try (ResultSet row = query.executeQuery()) {
        return row.next() && row.getString(1) != null;
      }
    }
  }
}
