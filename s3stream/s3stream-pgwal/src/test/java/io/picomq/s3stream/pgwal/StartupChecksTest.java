package io.picomq.s3stream.pgwal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The start-up rules as pure functions; {@code PostgresWalStartupTest} runs them through start. */
class StartupChecksTest {

  private static ServerSettings settings(boolean inRecovery, boolean fsync, String standbys) {
    return new ServerSettings(inRecovery, fsync, standbys, OptionalLong.of(1));
  }

  @Test
  void aServerInRecoveryIsRefused() {
    assertThatThrownBy(() -> StartupChecks.server(settings(true, true, "s1"), true))
        .isInstanceOf(UnsafeDatabaseException.class)
        .hasMessageContaining("in recovery");
  }

  @Test
  void fsyncOffIsRefusedUnlessUnsafeIsAllowed() {
    assertThatThrownBy(() -> StartupChecks.server(settings(false, false, "s1"), false))
        .isInstanceOf(UnsafeDatabaseException.class)
        .hasMessageContaining("fsync = off")
        .hasMessageContaining("allowUnsafe=true");
    assertThat(StartupChecks.server(settings(false, false, "s1"), true))
        .singleElement()
        .satisfies(warning -> assertThat(warning).contains("fsync = off"));
  }

  @Test
  void noSynchronousStandbyIsAWarning() {
    assertThat(StartupChecks.server(settings(false, true, ""), false))
        .singleElement()
        .satisfies(warning -> assertThat(warning).contains("synchronous_standby_names"));
    assertThat(StartupChecks.server(settings(false, true, "FIRST 1 (s1)"), false)).isEmpty();
  }

  @Test
  void aLowerTimelineIsARestoredBackupAndAWarning() {
    assertThat(StartupChecks.timeline(OptionalLong.of(3), OptionalLong.of(2), false))
        .hasValueSatisfying(warning -> assertThat(warning).contains("restored from a backup"));
  }

  @Test
  void aHigherTimelineIsRefusedWithoutASynchronousStandby() {
    assertThatThrownBy(() -> StartupChecks.timeline(OptionalLong.of(2), OptionalLong.of(3), false))
        .isInstanceOf(UnsafeDatabaseException.class)
        .hasMessageContaining("from timeline 2 to 3");
    assertThat(StartupChecks.timeline(OptionalLong.of(2), OptionalLong.of(3), true))
        .hasValueSatisfying(warning -> assertThat(warning).contains("synchronous standby"));
  }

  @Test
  void theSameOrAnUnknownTimelineSaysNothing() {
    assertThat(StartupChecks.timeline(OptionalLong.of(2), OptionalLong.of(2), false)).isEmpty();
    assertThat(StartupChecks.timeline(OptionalLong.empty(), OptionalLong.of(2), false)).isEmpty();
    assertThat(StartupChecks.timeline(OptionalLong.of(2), OptionalLong.empty(), false)).isEmpty();
  }
}
