package io.picomq.s3stream.pgwal;

import static io.picomq.s3stream.pgwal.WalTesting.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.TestRecords;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Start against the real server: the tables it creates, and the start-up checks with settings the
 * real server cannot be put in injected through {@link ServerProbe}.
 */
class PostgresWalStartupTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  @RegisterExtension static final TestDatabase database = new TestDatabase();

  private final ExecutorService owners = Executors.newFixedThreadPool(2);
  private final List<PostgresWals> opened = new ArrayList<>();
  private final String clusterId = "startup-" + CLUSTERS.incrementAndGet();

  @AfterEach
  void closeAll() {
    opened.forEach(PostgresWals::close);
    owners.shutdown();
  }

  private PostgresWals wals(String parameters, ServerProbe probe) {
    PostgresWals wals =
        PostgresWals.open(
            database.walUri(parameters), clusterId, Scheduler.system(), owners, probe);
    opened.add(wals);
    return wals;
  }

  private static ServerProbe settings(ServerSettings settings) {
    return connection -> settings;
  }

  private static ServerSettings healthy(long timeline, String standbys) {
    return new ServerSettings(false, true, standbys, OptionalLong.of(timeline));
  }

  @Test
  void startCreatesTheNodeRowAndTheRingOfSlotTables() throws SQLException {
    WriteAheadLog wal = wals("segments=3&segmentBytes=128MiB", ServerProbe.postgres()).open(4, 1);
    await(wal.start());
    String prefix = "pico_wal_" + WalSchema.clusterHash(clusterId) + "_4_";
    assertThat(
            database.queryLong(
                "SELECT count(*) FROM pg_tables WHERE starts_with(tablename, ?)", prefix))
        .isEqualTo(3);
    for (int slot = 0; slot < 3; slot++) {
      assertThat(
              database.queryLong(
                  "SELECT count(*) FROM pg_attribute WHERE attrelid = ?::regclass"
                      + " AND attname = 'body' AND attstorage = 'e'",
                  prefix + slot))
          .as("slot %d stores bodies EXTERNAL", slot)
          .isEqualTo(1);
    }
    assertThat(
            database.queryLong(
                "SELECT epoch FROM pico_wal_node WHERE cluster_id = ? AND node_id = 4", clusterId))
        .isEqualTo(1);
    // The real server's timeline is recorded.
    assertThat(
            database.queryLong(
                "SELECT timeline FROM pico_wal_node WHERE cluster_id = ? AND node_id = 4",
                clusterId))
        .isEqualTo(database.queryLong("SELECT timeline_id FROM pg_control_checkpoint()"));
    wal.close();
  }

  @Test
  void aServerInRecoveryIsRefusedAndNothingIsClaimed() {
    PostgresWals wals =
        wals("", settings(new ServerSettings(true, true, "s1", OptionalLong.of(1))));
    WriteAheadLog wal = wals.open(1, 7);
    assertThatThrownBy(() -> await(wal.start()))
        .hasRootCauseInstanceOf(UnsafeDatabaseException.class)
        .rootCause()
        .hasMessageContaining("in recovery");
    assertThat(await(wals.epochAbove(1))).as("no epoch was claimed").isZero();
    ByteBuf body = TestRecords.body(new Random(1), 1, 0, 10);
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Closed.class);
    body.release();
  }

  @Test
  void fsyncOffIsRefusedUnlessTheUriAllowsIt() {
    ServerProbe noFsync = settings(new ServerSettings(false, false, "", OptionalLong.of(1)));
    assertThatThrownBy(() -> await(wals("", noFsync).open(1, 1).start()))
        .hasRootCauseInstanceOf(UnsafeDatabaseException.class)
        .rootCause()
        .hasMessageContaining("fsync = off");
    WriteAheadLog allowed = wals("allowUnsafe=true", noFsync).open(1, 2);
    await(allowed.start());
    allowed.close();
  }

  @Test
  void theTimelineIsComparedWithTheRecordedOneAndRecordedAgain() throws SQLException {
    AtomicReference<ServerSettings> server = new AtomicReference<>(healthy(5, ""));
    PostgresWals wals = wals("", connection -> server.get());
    startAndClose(wals, 1);
    assertThat(recordedTimeline()).isEqualTo(5);

    server.set(healthy(4, "")); // restored from a backup: a warning, and 4 from now on
    startAndClose(wals, 2);
    assertThat(recordedTimeline()).isEqualTo(4);

    server.set(healthy(6, "")); // promoted, no synchronous standby: refused, nothing claimed
    assertThatThrownBy(() -> await(wals.open(1, 3).start()))
        .hasRootCauseInstanceOf(UnsafeDatabaseException.class)
        .rootCause()
        .hasMessageContaining("from timeline 4 to 6");
    assertThat(recordedTimeline()).isEqualTo(4);
    assertThat(await(wals.epochAbove(1))).isEqualTo(3);

    server.set(healthy(6, "FIRST 1 (standby1)")); // promoted synchronous standby: accepted
    startAndClose(wals, 4);
    assertThat(recordedTimeline()).isEqualTo(6);
  }

  private void startAndClose(PostgresWals wals, long epoch) {
    WriteAheadLog wal = wals.open(1, epoch);
    await(wal.start());
    wal.close();
  }

  private long recordedTimeline() throws SQLException {
    return database.queryLong(
        "SELECT timeline FROM pico_wal_node WHERE cluster_id = ? AND node_id = 1", clusterId);
  }
}
