package io.picomq.sql.backend;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates the metadata tables, idempotently, and records the schema version.
 *
 * <p>Version 1 (column types shown for Postgres; SQLite uses {@code INTEGER} and {@code BLOB}):
 *
 * <pre>
 * PREFIXschema_version (version INTEGER PRIMARY KEY)
 * PREFIXlog            (idx BIGINT PRIMARY KEY, payload BYTEA NOT NULL)
 * PREFIXsnapshot       (id INTEGER PRIMARY KEY CHECK (id = 1), idx BIGINT NOT NULL,
 *                       payload BYTEA NOT NULL)
 * PREFIXsnapshot_chunks (idx BIGINT NOT NULL, writer BIGINT NOT NULL, seq INTEGER NOT NULL,
 *                       payload BYTEA NOT NULL, PRIMARY KEY (idx, writer, seq))
 * PREFIXlease          (id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL,
 *                       epoch BIGINT NOT NULL, expires_at_millis BIGINT NOT NULL)
 * PREFIXnodes_alive    (node_id INTEGER PRIMARY KEY, node_epoch BIGINT NOT NULL,
 *                       ttl_millis BIGINT NOT NULL, renewed_at_millis BIGINT NOT NULL,
 *                       expires_at_millis BIGINT NOT NULL)
 * </pre>
 *
 * <p>{@code nodes_alive} (node liveness) was added to version 1 without bumping it: a new table is
 * compatible both ways. A node of this build starting on a version 1 database created without it
 * creates it here ({@code CREATE TABLE IF NOT EXISTS}, under the same lock), and a node of an older
 * build never reads it. The version goes up only for a change an older build would misread. (An
 * older node renews no row, so newer nodes see it as dead: upgrade every node of a cluster before
 * relying on liveness.)
 *
 * <p>{@code snapshot_chunks} was added the same way. A snapshot row that points into it (snapshot
 * envelope version 2, see {@code io.picomq.sql.log.SnapshotCodec}) is what an older build cannot
 * read: it stops its log with "unknown snapshot format version 2" when it loads one, at start or
 * when it must cross a truncation. It never misreads one.
 *
 * <p>The lease row is created with no holder ({@code ''}), epoch 0, expired. Creating twice is a
 * no-op. Several nodes may race to create the schema: on Postgres they take turns on a
 * transaction-scoped advisory lock (concurrent {@code CREATE TABLE IF NOT EXISTS} can otherwise
 * fail on Postgres' catalog); on SQLite the {@code IMMEDIATE} transaction serializes them.
 */
public final class Schema {
  /** The schema version this build creates and understands. */
  public static final int VERSION = 1;

  private Schema() {}

  /**
   * Creates whatever is missing of the current schema.
   *
   * @return the schema version now installed
   * @throws UnsupportedSchemaException if the database was created by a newer PicoMQ
   */
  public static int ensure(SqlBackend backend) throws SQLException {
    TableNames tables = backend.tables();
    SqlDialect dialect = backend.dialect();
    String int64 = dialect.int64Type();
    String bytes = dialect.bytesType();
    return backend.inTransaction(
        connection -> {
          try (Statement statement = connection.createStatement()) {
            if (dialect == SqlDialect.POSTGRES) {
              statement.execute("SELECT pg_advisory_xact_lock(" + advisoryLockKey(tables) + ")");
            }
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + tables.schemaVersion()
                    + " (version INTEGER PRIMARY KEY)");
            int installed = installedVersion(statement, tables);
            if (installed > VERSION) {
              throw new UnsupportedSchemaException(backend.describe(), installed, VERSION);
            }
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + tables.log()
                    + " (idx "
                    + int64
                    + " PRIMARY KEY, payload "
                    + bytes
                    + " NOT NULL)");
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + tables.snapshot()
                    + " (id INTEGER PRIMARY KEY CHECK (id = 1), idx "
                    + int64
                    + " NOT NULL, payload "
                    + bytes
                    + " NOT NULL)");
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + tables.snapshotChunks()
                    + " (idx "
                    + int64
                    + " NOT NULL, writer "
                    + int64
                    + " NOT NULL, seq INTEGER NOT NULL, payload "
                    + bytes
                    + " NOT NULL, PRIMARY KEY (idx, writer, seq))");
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + tables.lease()
                    + " (id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, epoch "
                    + int64
                    + " NOT NULL, expires_at_millis "
                    + int64
                    + " NOT NULL)");
            statement.execute(
                "CREATE TABLE IF NOT EXISTS "
                    + tables.nodesAlive()
                    + " (node_id INTEGER PRIMARY KEY, node_epoch "
                    + int64
                    + " NOT NULL, ttl_millis "
                    + int64
                    + " NOT NULL, renewed_at_millis "
                    + int64
                    + " NOT NULL, expires_at_millis "
                    + int64
                    + " NOT NULL)");
            statement.execute(
                "INSERT INTO "
                    + tables.lease()
                    + " (id, holder, epoch, expires_at_millis) VALUES (1, '', 0, 0)"
                    + " ON CONFLICT (id) DO NOTHING");
            statement.execute(
                "INSERT INTO "
                    + tables.schemaVersion()
                    + " (version) VALUES ("
                    + VERSION
                    + ") ON CONFLICT (version) DO NOTHING");
            return installedVersion(statement, tables);
          }
        });
  }

  /**
   * Drops every table of this backend's prefix, if present. For tests and benchmarks that give each
   * run its own prefix in a shared database; a node never calls it.
   */
  public static void drop(SqlBackend backend) throws SQLException {
    TableNames tables = backend.tables();
    backend.withConnection(
        connection -> {
          try (Statement statement = connection.createStatement()) {
            for (String table :
                new String[] {
                  tables.log(),
                  tables.snapshot(),
                  tables.snapshotChunks(),
                  tables.lease(),
                  tables.nodesAlive(),
                  tables.schemaVersion()
                }) {
              statement.execute("DROP TABLE IF EXISTS " + table);
            }
          }
          return null;
        });
  }

  private static int installedVersion(Statement statement, TableNames tables) throws SQLException {
    try (ResultSet rows =
        statement.executeQuery("SELECT MAX(version) FROM " + tables.schemaVersion())) {
      rows.next();
      return rows.getInt(1);
    }
  }

  /** One advisory lock per table prefix, so independent planes in one database never wait. */
  private static long advisoryLockKey(TableNames tables) {
    return 0x7069636f6d71L * 31 + tables.prefix().hashCode();
  }
}
