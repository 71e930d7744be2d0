package io.picomq.s3stream.pgwal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Whether a server can hold a WAL: what start refuses ({@link UnsafeDatabaseException}) and what it
 * only warns about. Pure functions of the settings, so every case is testable.
 */
final class StartupChecks {

  private StartupChecks() {}

  /**
   * Checks the server's own settings.
   *
   * @return warnings to log
   * @throws UnsafeDatabaseException for a server in recovery, or {@code fsync = off} without {@code
   *     allowUnsafe}
   */
  static List<String> server(ServerSettings settings, boolean allowUnsafe) {
    if (settings.inRecovery()) {
      throw new UnsafeDatabaseException(
          "the WAL database is in recovery (a standby, or still replaying): it cannot take"
              + " writes; point the WAL at the primary");
    }
    List<String> warnings = new ArrayList<>();
    if (!settings.fsync()) {
      if (!allowUnsafe) {
        throw new UnsafeDatabaseException(
            "the WAL database runs with fsync = off: a crash of its machine loses acknowledged"
                + " records; turn fsync on, or add allowUnsafe=true to the WAL URI to accept that");
      }
      warnings.add(
          "the WAL database runs with fsync = off (allowUnsafe=true): a crash of its machine loses"
              + " acknowledged records");
    }
    if (!settings.hasSynchronousStandby()) {
      warnings.add(
          "the WAL database has no synchronous standby (synchronous_standby_names is empty):"
              + " acknowledged records live on one machine until uploaded");
    }
    return warnings;
  }

  /**
   * Compares the server's timeline with the one recorded at the node's last claim. A lower one
   * means the database was restored from a backup (records acknowledged since may be gone: warn); a
   * higher one means a standby was promoted, which loses the last commits unless it was
   * synchronous.
   *
   * @return a warning to log, if any
   * @throws UnsafeDatabaseException for a higher timeline without a synchronous standby
   */
  static Optional<String> timeline(
      OptionalLong recorded, OptionalLong current, boolean synchronousStandby) {
    if (recorded.isEmpty() || current.isEmpty()) {
      return Optional.empty();
    }
    long before = recorded.getAsLong();
    long now = current.getAsLong();
    if (now < before) {
      return Optional.of(
          "the WAL database is on timeline "
              + now
              + ", below the "
              + before
              + " recorded at the last start: it was restored from a backup, and records"
              + " acknowledged after that backup are lost");
    }
    if (now > before) {
      if (!synchronousStandby) {
        throw new UnsafeDatabaseException(
            "the WAL database moved from timeline "
                + before
                + " to "
                + now
                + " (a promoted standby) without a synchronous standby: records acknowledged"
                + " just before the promotion may be lost. Configure synchronous_standby_names,"
                + " or, having checked, record the new timeline in the node's row: UPDATE"
                + " pico_wal_node SET timeline = "
                + now
                + " WHERE cluster_id = '<cluster>' AND node_id = <node>");
      }
      return Optional.of(
          "the WAL database moved from timeline "
              + before
              + " to "
              + now
              + " (a promoted synchronous standby)");
    }
    return Optional.empty();
  }
}
