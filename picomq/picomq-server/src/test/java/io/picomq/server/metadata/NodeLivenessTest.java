package io.picomq.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.sql.backend.MetaUrl;
import io.picomq.sql.backend.SqlBackend;
import io.picomq.sql.liveness.LivenessRow;
import io.picomq.sql.liveness.LivenessTable;
import io.picomq.sql.liveness.LivenessView;
import io.picomq.sql.liveness.NodeState;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's liveness on a real SQLite file, with the database made to fail or hang. */
class NodeLivenessTest {
  private static final NodeIdentity NODE = new NodeIdentity(1, 100, "http://one", 1);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path folder;

  private SqlBackend database;
  private SwitchableBackend backend;
  private LivenessTable table;

  @BeforeEach
  void openDatabase() throws SQLException {
    database =
        SqlBackend.open(
            new MetaUrl.SqliteFile(folder.resolve("meta.db")), BackendOptions.defaults());
    backend = new SwitchableBackend(database);
    table = new LivenessTable(database);
  }

  @AfterEach
  void closeDatabase() {
    backend.heal();
    database.close();
  }

  @Test
  void startOwnsALiveRowAtOnceAndRenewsItEveryQuarterTtl() throws SQLException {
    try (NodeLiveness liveness = new NodeLiveness(backend, NODE, Duration.ofSeconds(2))) {
      assertThat(liveness.mayAcknowledge()).as("before the first renewal").isFalse();
      liveness.start();

      assertThat(liveness.mayAcknowledge()).isTrue();
      assertThat(liveness.state(1, 100)).isEqualTo(NodeState.LIVE);
      LivenessRow first = table.readAll().row(1).orElseThrow();
      assertThat(first.nodeEpoch()).isEqualTo(100);
      assertThat(first.ttlMillis()).isEqualTo(2_000);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  table.readAll().row(1).orElseThrow().renewedAtMillis() > first.renewedAtMillis());
      assertThat(liveness.view().row(1)).isPresent();
      assertThat(liveness.mayAcknowledge()).isTrue();
    }
  }

  @Test
  void closeDeletesTheRowSoTheNodeIsDeadAtOnce() throws SQLException {
    NodeLiveness liveness = new NodeLiveness(backend, NODE, Duration.ofSeconds(10));
    liveness.start();
    liveness.close();

    assertThat(liveness.mayAcknowledge()).isFalse();
    LivenessView view = table.readAll();
    assertThat(view.row(1)).isEmpty();
    assertThat(view.state(1, 100)).isEqualTo(NodeState.DEAD);
    liveness.close(); // idempotent
  }

  @Test
  void aNodeWhoseDatabaseFailsStopsAcknowledgingBeforeItsRowLapses() throws SQLException {
    assertStopsAcknowledgingBeforeLapse(backend::fail);
  }

  @Test
  void aNodeWhoseDatabaseHangsStopsAcknowledgingBeforeItsRowLapses() throws SQLException {
    assertStopsAcknowledgingBeforeLapse(backend::hang);
  }

  private void assertStopsAcknowledgingBeforeLapse(Runnable breakDatabase) throws SQLException {
    try (NodeLiveness liveness = new NodeLiveness(backend, NODE, Duration.ofSeconds(2))) {
      liveness.start();
      breakDatabase.run();

      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> !liveness.mayAcknowledge());
      long stoppedAt = System.nanoTime();
      long readFrom = System.nanoTime();
      LivenessView now = table.readAll();
      // The database's clock when acknowledgements stopped, estimated high: the read began later.
      long databaseTimeWhenStopped =
          now.nowMillis() - TimeUnit.NANOSECONDS.toMillis(readFrom - stoppedAt);
      LivenessRow row = now.row(1).orElseThrow();
      assertThat(databaseTimeWhenStopped).isLessThan(row.expiresAtMillis());
      assertThat(now.state(1, 100)).isNotEqualTo(NodeState.DEAD);

      // Its own view ages too: the node sees itself die without reading anything new.
      await().atMost(WAIT).until(() -> liveness.state(1, 100) == NodeState.DEAD);
      backend.heal();
      await().atMost(WAIT).until(liveness::mayAcknowledge);
    }
  }

  @Test
  void aNewerProcessOfTheNodeFencesTheOlderOneAtOnce() throws SQLException {
    NodeIdentity successor = new NodeIdentity(1, 200, "http://one", 1);
    try (NodeLiveness old = new NodeLiveness(backend, NODE, Duration.ofSeconds(2));
        NodeLiveness fresh = new NodeLiveness(backend, successor, Duration.ofSeconds(2))) {
      old.start();
      fresh.start();

      await().atMost(WAIT).until(() -> !old.mayAcknowledge());
      assertThat(fresh.mayAcknowledge()).isTrue();
      old.close();
      assertThat(table.readAll().row(1).orElseThrow().nodeEpoch())
          .as("the old process leaves its successor's row alone")
          .isEqualTo(200);
    }
  }

  @Test
  void startIsRefusedToAStaleProcessAndWithoutADatabase() {
    NodeIdentity successor = new NodeIdentity(1, 200, "http://one", 1);
    try (NodeLiveness fresh = new NodeLiveness(backend, successor, Duration.ofSeconds(2));
        NodeLiveness old = new NodeLiveness(backend, NODE, Duration.ofSeconds(2));
        NodeLiveness other =
            new NodeLiveness(
                backend, new NodeIdentity(2, 1, "http://two", 1), Duration.ofSeconds(2))) {
      fresh.start();
      assertThatThrownBy(old::start)
          .isInstanceOf(MetadataUnavailableException.class)
          .hasMessageContaining("superseded");
      assertThat(old.mayAcknowledge()).isFalse();

      backend.fail();
      assertThatThrownBy(other::start)
          .isInstanceOf(MetadataUnavailableException.class)
          .hasMessageContaining("cannot renew");
      assertThat(other.mayAcknowledge()).isFalse();
    }
  }

  @Test
  void theTtlHasAFloorAndTheMarginScalesWithIt() {
    assertThatThrownBy(() -> new NodeLiveness(backend, NODE, Duration.ofMillis(499)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(NodeLiveness.safetyMargin(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(1));
    assertThat(NodeLiveness.safetyMargin(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(100));
  }
}
