package io.picomq.s3stream.pgwal;

import static io.picomq.s3stream.pgwal.WalTesting.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.RecoveredRecord;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.TestRecords;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WalFencedException;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two processes' WALs for one node, each with its own pool: the newer epoch fences the older one in
 * the database itself, while the older one is busy appending.
 */
class PostgresWalFencingTest {

  private static final AtomicInteger CLUSTERS = new AtomicInteger();
  @RegisterExtension static final TestDatabase database = new TestDatabase();

  private final ExecutorService owners = Executors.newFixedThreadPool(2);
  private final String clusterId = "fencing-" + CLUSTERS.incrementAndGet();
  private PostgresWals first;
  private PostgresWals second;

  @AfterEach
  void close() {
    if (first != null) {
      first.close();
      second.close();
    }
    owners.shutdown();
  }

  private PostgresWals pool() {
    return PostgresWals.open(database.walUri(""), clusterId, Scheduler.system(), owners);
  }

  @Test
  void aNewerEpochInAnotherPoolFencesAWriterMidLoadAndRecoversAllItAcknowledged() throws Exception {
    first = pool();
    second = pool();
    WriteAheadLog old = WalTesting.openAndReset(first, 3, 100);
    Map<Long, byte[]> appended = new ConcurrentHashMap<>();
    Map<Long, Boolean> acknowledged = new ConcurrentHashMap<>();
    AtomicBoolean fencedSeen = new AtomicBoolean();
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> appendUntilFenced(old, appended, acknowledged, fencedSeen), owners);
    // Let the old writer get going, then take over from the other pool.
    Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> acknowledged.size() >= 200);
    assertThat(await(second.epochAbove(3))).isEqualTo(101);
    WriteAheadLog newer = second.open(3, 101);
    await(newer.start());
    await(writer);
    assertThat(fencedSeen).as("the old writer learned it was fenced").isTrue();

    Recovery recovery = await(newer.recover());
    Map<Long, byte[]> recovered = new HashMap<>();
    for (RecoveredRecord record : recovery.records()) {
      recovered.put(record.offset(), TestRecords.bytes(record.body()));
    }
    assertThat(recovered.keySet())
        .as("every record the old writer acknowledged is recovered")
        .containsAll(acknowledged.keySet());
    recovered.forEach(
        (offset, bytes) ->
            assertThat(bytes).as("bytes at %d", offset).isEqualTo(appended.get(offset)));
    recovery.release();

    await(newer.reset());
    assertThatThrownBy(() -> await(old.trim(0))).hasRootCauseInstanceOf(WalFencedException.class);
    WalTesting.Appended fresh = WalTesting.append(newer, new Random(3), 0, 100);
    await(fresh.durable());
    assertThat(fresh.offset())
        .as("the newer epoch continues after everything found")
        .isGreaterThanOrEqualTo(recovered.keySet().stream().max(Long::compare).orElse(0L));
    newer.close();
  }

  @Test
  void theDatabaseRefusesAStaleEpochsInsertAndTruncation() throws SQLException {
    RingGeometry ring = new RingGeometry(64L << 20, 8);
    WalDatabase stale = new WalDatabase(clusterId, 5, 1, ring, false, ServerProbe.postgres());
    WalDatabase current = new WalDatabase(clusterId, 5, 2, ring, false, ServerProbe.postgres());
    try (Connection connection = database.connect()) {
      StartedNode staleStart = stale.start(connection);
      stale.reset(connection, staleStart);
      assertThat(stale.insert(connection, 0, 0, 100, new byte[100]))
          .isInstanceOf(InsertOutcome.Inserted.class);

      StartedNode currentStart = current.start(connection);
      assertThat(currentStart.nextOffset()).isEqualTo(100);
      current.reset(connection, currentStart);
      assertThat(current.insert(connection, 0, 100, 250, new byte[150]))
          .isInstanceOf(InsertOutcome.Inserted.class);

      // The stale writer does not know yet: the database tells it.
      assertThat(stale.insert(connection, 0, 250, 300, new byte[50]))
          .isInstanceOf(InsertOutcome.Fenced.class);
      assertThatThrownBy(() -> stale.trim(connection, 99, List.of(0)))
          .isInstanceOf(WalFencedException.class)
          .hasMessageContaining("epoch 2 claimed node 5");
      assertThat(database.queryLong("SELECT count(*) FROM " + current.slotTable(0)))
          .as("the current epoch's row survived the stale trim")
          .isEqualTo(1);
    }
  }

  /** Appends 1 KiB records until the writer is fenced; records what was acknowledged. */
  private static void appendUntilFenced(
      WriteAheadLog wal,
      Map<Long, byte[]> appended,
      Map<Long, Boolean> acknowledged,
      AtomicBoolean fencedSeen) {
    Random random = new Random(42);
    for (int i = 0; !fencedSeen.get(); i++) {
      ByteBuf body = TestRecords.body(random, 1, i, 1024);
      WalAppendResult result = wal.append(body);
      byte[] bytes = TestRecords.bytes(body);
      body.release();
      switch (result) {
        case WalAppendResult.Accepted accepted -> {
          appended.put(accepted.offset(), bytes);
          accepted
              .durable()
              .whenComplete(
                  (ok, error) -> {
                    if (error == null) {
                      acknowledged.put(accepted.offset(), true);
                    } else if (error instanceof WalFencedException
                        || error.getCause() instanceof WalFencedException) {
                      fencedSeen.set(true);
                    }
                  });
          if (i % 32 == 0) {
            accepted.durable().handle((ok, error) -> null).join();
          }
        }
        case WalAppendResult.Fenced fenced -> fencedSeen.set(true);
        case WalAppendResult.OverCapacity full -> Thread.onSpinWait();
        case WalAppendResult other -> throw new AssertionError("unexpected " + other);
      }
    }
  }
}
