package io.picomq.s3stream.pgwal;

import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WriteAheadLog;
import io.picomq.s3stream.wal.WriteAheadLogContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The WAL contract on the machine's real Postgres. Each test is a fresh cluster (its own node row
 * and slot tables) in this class's own database, with one pool, as one process would have.
 *
 * <p>Storage stalls by a transaction of the test's own holding the node row {@code FOR UPDATE}:
 * every insert waits for its {@code FOR SHARE} lock. A crash is {@code close()}, and half of the
 * time the WAL's backends are terminated too, so inserts in flight land or are lost.
 */
class PostgresWalContractTest extends WriteAheadLogContract {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  private static final int NODE = 7;
  @RegisterExtension static final TestDatabase database = new TestDatabase();

  private ExecutorService owners;
  private PostgresWals wals;
  private String clusterId;
  private Connection stall;

  @Override
  protected void createStorage() {
    clusterId = "contract-" + CLUSTERS.incrementAndGet();
    owners =
        Executors.newFixedThreadPool(
            2, Thread.ofPlatform().daemon().name("wal-owner-", 0).factory());
    // Small segments, so the crash test's rounds go round the ring; 8 inserts in flight as CONFIG.
    wals =
        PostgresWals.open(
            database.walUri("segmentBytes=4MiB&segments=4&maxUnflushedBytes=8MiB&maxInflight=8"),
            clusterId,
            Scheduler.system(),
            owners);
  }

  @Override
  protected void destroyStorage() throws Exception {
    resumeStorage();
    wals.close();
    owners.shutdown();
  }

  @Override
  protected WriteAheadLog newWal(long epoch, WalConfig config) {
    return wals.open(NODE, epoch, config);
  }

  @Override
  protected void stallStorage() {
    try {
      stall = database.connect();
      stall.setAutoCommit(false);
      try (PreparedStatement lock =
          stall.prepareStatement(
              "SELECT 1 FROM pico_wal_node WHERE cluster_id = ? AND node_id = ? FOR UPDATE")) {
        lock.setString(1, clusterId);
        lock.setInt(2, NODE);
        lock.executeQuery().close();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected void resumeStorage() {
    if (stall == null) {
      return;
    }
    try {
      stall.rollback();
      stall.close();
      stall = null;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected void crash(WriteAheadLog wal, Random random) {
    wal.close();
    if (random.nextBoolean()) {
      try {
        database.terminateWalBackends();
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    // Runs after the close on the WAL's owner: from here on it acknowledges nothing.
    wal.shutdownGracefully().handle((ignored, error) -> null).join();
  }

  @Override
  protected int crashRounds() {
    return 60;
  }
}
