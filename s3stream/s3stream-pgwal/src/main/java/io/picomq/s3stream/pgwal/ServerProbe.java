package io.picomq.s3stream.pgwal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the server's {@link ServerSettings}. Tests substitute settings the real server cannot be
 * put in (a standby, {@code fsync = off}, another timeline).
 */
@FunctionalInterface
interface ServerProbe {

  ServerSettings read(Connection connection) throws SQLException;

  /** The real server's settings. */
  static ServerProbe postgres() {
    return PostgresProbe::read;
  }

  /** Reads the settings with plain queries. */
  final class PostgresProbe {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresProbe.class);

    /** SQLSTATE insufficient_privilege. */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private PostgresProbe() {}

    static ServerSettings read(Connection connection) throws SQLException {
      boolean inRecovery;
      boolean fsync;
      String standbys;
      try (Statement query = connection.createStatement();
          ResultSet row =
              query.executeQuery(
                  "SELECT pg_is_in_recovery(), current_setting('fsync'),"
                      + " current_setting('synchronous_standby_names')")) {
        row.next();
        inRecovery = row.getBoolean(1);
        fsync = "on".equalsIgnoreCase(row.getString(2));
        standbys = row.getString(3) == null ? "" : row.getString(3);
      }
      return new ServerSettings(
          inRecovery,
          fsync,
          standbys,
          inRecovery
              ? checkpointTimeline(connection)
              : OptionalLong.of(insertTimeline(connection)));
    }

    /**
     * The timeline new WAL is written on: the first 8 hex digits of the current WAL file's name. It
     * changes the moment a standby is promoted, where the last checkpoint's timeline changes only
     * at the checkpoint after the promotion, so reading that one let a node start on a promoted
     * standby unnoticed for a while. Any user may call these two functions.
     */
    static long insertTimeline(Connection connection) throws SQLException {
      try (Statement query = connection.createStatement();
          ResultSet row = query.executeQuery("SELECT pg_walfile_name(pg_current_wal_lsn())")) {
        row.next();
        return Long.parseLong(row.getString(1).substring(0, 8), 16);
      }
    }

    /** A server in recovery has no insert timeline; its last checkpoint's is what it knows. */
    private static OptionalLong checkpointTimeline(Connection connection) throws SQLException {
      try (Statement query = connection.createStatement();
          ResultSet row = query.executeQuery("SELECT timeline_id FROM pg_control_checkpoint()")) {
        row.next();
        return OptionalLong.of(row.getLong(1));
      } catch (SQLException e) {
        if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
          throw e;
        }
        LOG.warn(
            "the WAL's database user may not call pg_control_checkpoint() on this server in"
                + " recovery, so its timeline is unknown (grant pg_monitor to see it)");
        return OptionalLong.empty();
      }
    }
  }
}
