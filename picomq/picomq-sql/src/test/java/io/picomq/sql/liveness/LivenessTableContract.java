package io.picomq.sql.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.picomq.sql.backend.Schema;
import io.picomq.sql.backend.SqlBackend;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The liveness statements against a real database; a small subclass names the database. */
abstract class LivenessTableContract {
  private static final Duration TTL = Duration.ofSeconds(10);

  private SqlBackend backend;
  private LivenessTable table;

  /** A backend on a database with the schema created and no liveness rows. */
  protected abstract SqlBackend open() throws SQLException;

  /** Releases what {@link #open()} made. */
  protected abstract void close(SqlBackend backend) throws SQLException;

  @BeforeEach
  final void openTable() throws SQLException {
    backend = open();
    table = new LivenessTable(backend);
  }

  @AfterEach
  final void closeTable() throws SQLException {
    if (backend != null) {
      close(backend);
    }
  }

  @Test
  void anEmptyTableReadsAsNoRowsAtTheDatabasesNow() throws SQLException {
    LivenessView view = table.readAll();
    assertThat(view.rows()).isEmpty();
    // The database runs on this machine: its clock is ours, give or take.
    assertThat(view.nowMillis()).isCloseTo(Clock.systemUTC().millis(), within(5_000L));
  }

  @Test
  void aRenewalRecordsTheDatabasesNowAndExpiresOneTtlLater() throws SQLException {
    long before = table.readAll().nowMillis();
    assertThat(table.renew(1, 100, TTL)).isTrue();
    LivenessView view = table.readAll();

    LivenessRow row = view.row(1).orElseThrow();
    assertThat(row.nodeEpoch()).isEqualTo(100);
    assertThat(row.ttlMillis()).isEqualTo(TTL.toMillis());
    assertThat(row.renewedAtMillis()).isBetween(before, view.nowMillis());
    assertThat(row.expiresAtMillis()).isEqualTo(row.renewedAtMillis() + TTL.toMillis());
    assertThat(view.state(1, 100)).isEqualTo(NodeState.LIVE);
  }

  @Test
  void renewingAgainMovesTheExpiryAndEveryNodeHasItsOwnRow() throws SQLException {
    assertThat(table.renew(1, 100, TTL)).isTrue();
    long first = table.readAll().row(1).orElseThrow().expiresAtMillis();
    assertThat(table.renew(2, 7, Duration.ofSeconds(30))).isTrue();
    await()
        .pollInterval(Duration.ofMillis(5))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                table.renew(1, 100, TTL)
                    && table.readAll().row(1).orElseThrow().expiresAtMillis() > first);

    LivenessView view = table.readAll();
    assertThat(view.rows()).containsOnlyKeys(1, 2);
    assertThat(view.row(2).orElseThrow().ttlMillis()).isEqualTo(30_000);
    assertThat(view.state(1, 100)).isEqualTo(NodeState.LIVE);
    assertThat(view.state(2, 7)).isEqualTo(NodeState.LIVE);
  }

  @Test
  void aStaleProcessCannotRenewOverItsSuccessor() throws SQLException {
    assertThat(table.renew(1, 100, TTL)).isTrue();
    assertThat(table.renew(1, 200, TTL)).as("the restarted node takes its row over").isTrue();
    assertThat(table.renew(1, 100, Duration.ofHours(1))).as("the old process is refused").isFalse();

    LivenessRow row = table.readAll().row(1).orElseThrow();
    assertThat(row.nodeEpoch()).isEqualTo(200);
    assertThat(row.ttlMillis()).isEqualTo(TTL.toMillis());
    assertThat(table.renew(1, 200, TTL)).as("the successor renews on").isTrue();
  }

  @Test
  void removeDeletesOnlyTheOwnProcesssRow() throws SQLException {
    assertThat(table.renew(1, 100, TTL)).isTrue();
    assertThat(table.remove(1, 99)).isFalse();
    assertThat(table.readAll().state(1, 100)).isEqualTo(NodeState.LIVE);

    assertThat(table.remove(1, 100)).isTrue();
    LivenessView view = table.readAll();
    assertThat(view.row(1)).isEmpty();
    assertThat(view.state(1, 100)).isEqualTo(NodeState.DEAD);
    assertThat(table.remove(1, 100)).isFalse();
  }

  @Test
  void aRowThatIsNotRenewedLapses() throws SQLException {
    Duration shortTtl = Duration.ofMillis(200);
    assertThat(table.renew(3, 1, shortTtl)).isTrue();
    assertThat(table.readAll().state(3, 1)).isNotEqualTo(NodeState.DEAD);

    await()
        .pollInterval(Duration.ofMillis(10))
        .atMost(Duration.ofSeconds(10))
        .until(() -> table.readAll().state(3, 1) == NodeState.DEAD);
    LivenessView view = table.readAll();
    // A lapsed row stays (its node may come back); it is dead by the database's clock.
    assertThat(view.row(3).orElseThrow().expiresAtMillis()).isLessThanOrEqualTo(view.nowMillis());
    assertThat(table.renew(3, 1, TTL)).as("the node renews again").isTrue();
    assertThat(table.readAll().state(3, 1)).isEqualTo(NodeState.LIVE);
  }

  @Test
  void aVersionOneDatabaseWithoutTheTableGetsItWhenANewNodeOpensIt() throws SQLException {
    table.renew(1, 100, TTL);
    backend.withConnection(
        connection -> {
          try (Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + backend.tables().nodesAlive());
          }
          return null;
        });

    assertThat(Schema.ensure(backend)).isEqualTo(1);
    assertThat(table.readAll().rows()).isEmpty();
    assertThat(table.renew(1, 100, TTL)).isTrue();
  }
}
