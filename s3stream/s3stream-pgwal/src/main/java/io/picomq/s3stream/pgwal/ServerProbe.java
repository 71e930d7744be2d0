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
      return new ServerSettings(inRecovery, fsync, standbys, timeline(connection));
    }

    private static OptionalLong timeline(Connection connection) throws SQLException {
      try (Statement query = connection.createStatement();
          ResultSet row = query.executeQuery("SELECT timeline_id FROM pg_control_checkpoint()")) {
        row.next();
        return OptionalLong.of(row.getLong(1));
      } catch (SQLException e) {
        if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
          throw e;
        }
        LOG.warn(
            "the WAL's database user may not call pg_control_checkpoint(), so a restored backup or"
                + " a promoted standby goes unnoticed (GRANT EXECUTE ON FUNCTION"
                + " pg_control_checkpoint() to it, or grant pg_monitor)");
        return OptionalLong.empty();
      }
    }
  }
}
