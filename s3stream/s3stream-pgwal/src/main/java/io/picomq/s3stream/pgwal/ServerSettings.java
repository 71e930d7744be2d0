package io.picomq.s3stream.pgwal;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the start-up checks need to know about the server.
 *
 * @param inRecovery {@code pg_is_in_recovery()}: a standby, or a server replaying its log
 * @param fsync the {@code fsync} setting
 * @param synchronousStandbyNames the {@code synchronous_standby_names} setting; blank for none
 * @param timeline the timeline new WAL is written on; in recovery, the last checkpoint's ({@code
 *     pg_control_checkpoint()}), if the user may read it
 */
record ServerSettings(
    boolean inRecovery, boolean fsync, String synchronousStandbyNames, OptionalLong timeline) {

  ServerSettings {
    Objects.requireNonNull(synchronousStandbyNames, "synchronousStandbyNames");
    Objects.requireNonNull(timeline, "timeline");
  }

  /** True if commits wait for a synchronous standby. */
  boolean hasSynchronousStandby() {
    return !synchronousStandbyNames.isBlank();
  }
}
