package io.picomq.s3stream.pgwal;

import static io.picomq.s3stream.pgwal.WalTesting.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Database outages mid-load: the WAL's own backends terminated over and over, and the database
 * refusing connections for a while. Appends wait, resume by themselves, and nothing acknowledged is
 * lost.
 */
class PostgresWalOutageTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  @RegisterExtension static final TestDatabase database = new TestDatabase();

  private final ExecutorService owners = Executors.newFixedThreadPool(2);
  private final String clusterId = "outage-" + CLUSTERS.incrementAndGet();
  private PostgresWals wals;

  @AfterEach
  void close() throws SQLException {
    database.allowConnections(true);
    if (wals != null) {
      wals.close();
    }
    owners.shutdown();
  }

  @Test
  void appendsRideOutBackendsKilledInALoopAndLoseNothing() throws Exception {
    wals = PostgresWals.open(database.walUri(""), clusterId, Scheduler.system(), owners);
    WriteAheadLog wal = WalTesting.openAndReset(wals, 1, 1);
    AtomicBoolean loading = new AtomicBoolean(true);
    AtomicInteger killed = new AtomicInteger();
    AtomicInteger rounds = new AtomicInteger();
    CompletableFuture<Void> killer =
        CompletableFuture.runAsync(
            () -> {
              while (loading.get()) {
                try {
                  killed.addAndGet(database.terminateWalBackends());
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
                rounds.incrementAndGet();
                // Paces the fault (a kill every ~10 ms), waits for no effect.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
              }
            },
            owners);
    Random random = new Random(17);
    List<WalTesting.Appended> records = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      records.add(WalTesting.append(wal, random, i, random.nextInt(2000)));
      if (i % 64 == 63) {
        await(records.get(i - 32).durable()); // keep about 32 appends in flight
      }
    }
    records.forEach(record -> await(record.durable()));
    loading.set(false);
    await(killer);
    assertThat(killed.get()).as("backends killed during the load").isPositive();
    System.out.println(
        getClass().getSimpleName() + ": " + killed + " backends killed in " + rounds + " rounds");

    wal.close();
    Recovery recovery = WalTesting.startAndRecover(wals, 1, 2);
    WalTesting.assertRecovered(recovery, records);
    recovery.release();
  }

  @Test
  void problemSaysWhatIsWrongWhileTheDatabaseRefusesConnections() throws SQLException {
    wals = PostgresWals.open(database.walUri(""), clusterId, Scheduler.system(), owners);
    WriteAheadLog wal = WalTesting.openAndReset(wals, 1, 1);
    WalTesting.Appended before = WalTesting.append(wal, new Random(1), 0, 100);
    await(before.durable());
    assertThat(wals.problem()).isEmpty();

    database.allowConnections(false);
    database.terminateWalBackends();
    WalTesting.Appended during = WalTesting.append(wal, new Random(2), 1, 100);
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> wals.problem().isPresent());
    assertThat(wals.problem().orElseThrow()).contains("inserting the WAL batch");
    assertThat(during.durable()).as("the append waits out the outage").isNotDone();

    database.allowConnections(true);
    await(during.durable());
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> wals.problem().isEmpty());
    wal.close();

    Recovery recovery = WalTesting.startAndRecover(wals, 1, 2);
    WalTesting.assertRecovered(recovery, List.of(before, during));
    recovery.release();
  }
}
