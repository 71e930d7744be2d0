package io.picomq.e2e.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.client.AppendOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerId;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.ReadResult;
import io.picomq.client.Record;
import io.picomq.e2e.PostgresAdmin;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.ServerProcess;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code pico serve} process with its WAL in Postgres ({@code --wal postgres://...}, the same
 * database as its metadata log, as inside the extension), a {@code file://} data bucket, and
 * nothing uploaded for ten minutes: every acknowledged record lives in the WAL tables only. Writers
 * append through the SDK with producer stamps (so a retried append is never written twice); the
 * node is SIGKILLed, or its WAL connections are killed, under that load.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class PostgresWalTest {

  private static final int WRITERS = 8;

  @TempDir Path dir;
  private PostgresCluster cluster;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final AtomicBoolean stop = new AtomicBoolean();

  @BeforeEach
  void createCluster() throws SQLException {
    cluster = PostgresCluster.create(dir);
  }

  @AfterEach
  void stop() throws SQLException {
    stop.set(true);
    pool.shutdownNow();
    cluster.close();
  }

  private ServerProcess node() {
    List<String> args = new ArrayList<>(PostgresCluster.WAL_ONLY);
    args.addAll(List.of("--wal", cluster.metaUrl()));
    return cluster.node(1, args.toArray(String[]::new));
  }

  @Test
  void aSigkillUnderLoadLosesNothingAcknowledged() throws Exception {
    ServerProcess node = node();
    List<Writer> writers = startWriters(node, Duration.ZERO);
    awaitAcks(writers, 50);

    node.kill();
    stopWriters(writers);
    node.restart();

    assertEveryAckReadOnce(node, writers);
    // Nothing was uploaded before the kill: what was read back came from the WAL's rows.
    String log = String.join("\n", node.output());
    assertThat(log).contains("Postgres WAL of cluster");
    Matcher recovered = Pattern.compile("recovery: (\\d+) WAL records").matcher(log);
    long records = 0;
    while (recovered.find()) {
      records = Math.max(records, Long.parseLong(recovered.group(1)));
    }
    assertThat(records).as("records recovered from the WAL tables").isPositive();
  }

  @Test
  void appendsRideOutTheWalsConnectionsBeingKilled() throws Exception {
    ServerProcess node = node();
    List<Writer> writers = startWriters(node, Duration.ofSeconds(60));
    awaitAcks(writers, 20);

    // Kill every connection of the WAL's pool, 15 times, each time once the pool has connected
    // again: appends in flight meet dead connections over and over.
    long killed = 0;
    for (int round = 0; round < 15; round++) {
      Awaitility.await("the WAL's pool connected again (round " + round + ")")
          .atMost(Duration.ofSeconds(60))
          .until(() -> walBackends("count(*)") > 0);
      killed += walBackends("count(pg_terminate_backend(pid))");
    }
    assertThat(killed).as("WAL connections killed").isGreaterThanOrEqualTo(15);
    long before = acks(writers);
    awaitAcks(writers, before + 50); // appends go on by themselves afterwards
    stopWriters(writers);

    assertThat(writers).allSatisfy(w -> assertThat(w.failures).as("failed appends").isEmpty());
    assertEveryAckReadOnce(node, writers);
  }

  @Test
  void appendsGoRoundASmallRingAndItsTablesStayBounded() throws Exception {
    // 3 MiB of ring (4 slots of 1 MiB, one always being truncated); 20 MiB appended through it.
    ServerProcess node =
        cluster.node(
            1,
            "--wal",
            cluster.metaUrl() + "?segmentBytes=1MiB&segments=4&maxUnflushedBytes=2MiB",
            "--wal-upload-interval-ms",
            "600000");
    String stream = "/ring";
    byte[] body = new byte[64 << 10];
    long largestTables = 0;
    try (PicoClient client = PicoClient.builder().endpoint(node.endpoint()).build()) {
      client.create(stream, CreateOptions.builder().build());
      for (int i = 0; i < 320; i++) {
        body[0] = (byte) i;
        client.append(stream, List.of(Record.of(body)));
        if (i % 32 == 31) {
          largestTables = Math.max(largestTables, walTableBytes());
        }
      }
      long seq = 0;
      int read = 0;
      while (seq < 320) {
        ReadResult page = client.read(stream, ReadRequest.from(seq));
        assertThat(page.records()).as("records from seq %d", seq).isNotEmpty();
        for (ReadRecord record : page.records()) {
          assertThat(record.body()[0]).isEqualTo((byte) read++);
        }
        seq = page.nextSeq();
      }
      assertThat(read).isEqualTo(320);
    }
    assertThat(String.join("\n", node.output())).contains("half of what the WAL holds");
    assertThat(largestTables).as("bytes in the WAL's tables").isPositive().isLessThan(8L << 20);
  }

  private long walTableBytes() throws SQLException {
    return PostgresAdmin.queryLong(
        cluster.database(),
        "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            + " WHERE c.relkind = 'r' AND c.relname LIKE 'pico_wal%'");
  }

  /** One client per stream, appending one record after another until {@link #stop}. */
  private List<Writer> startWriters(ServerProcess node, Duration retryUnavailable) {
    List<Writer> writers = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      Writer writer = new Writer("/wal/" + i);
      PicoClient client =
          PicoClient.builder()
              .endpoint(node.endpoint())
              .retryUnavailable(retryUnavailable)
              .requestTimeout(Duration.ofSeconds(30))
              .build();
      client.create(writer.stream, CreateOptions.builder().build());
      writer.task = pool.submit(() -> writer.run(client));
      writers.add(writer);
    }
    return writers;
  }

  private void stopWriters(List<Writer> writers) throws Exception {
    stop.set(true);
    for (Writer writer : writers) {
      writer.task.get(90, TimeUnit.SECONDS);
    }
  }

  private static long acks(List<Writer> writers) {
    return writers.stream().mapToLong(w -> w.acked.size()).sum();
  }

  private static void awaitAcks(List<Writer> writers, long count) {
    Awaitility.await(count + " acknowledgements")
        .atMost(Duration.ofSeconds(60))
        .until(() -> acks(writers) >= count);
  }

  /**
   * {@code select} (an aggregate) over the backends of the WAL's pool on the cluster's database.
   */
  private long walBackends(String select) throws SQLException {
    return PostgresAdmin.queryLong(
        "SELECT "
            + select
            + " FROM pg_stat_activity WHERE application_name = 'picomq-wal' AND datname = '"
            + cluster.database()
            + "'");
  }

  private static void assertEveryAckReadOnce(ServerProcess node, List<Writer> writers) {
    try (PicoClient client =
        PicoClient.builder()
            .endpoint(node.endpoint())
            .retryUnavailable(Duration.ofSeconds(60))
            .build()) {
      for (Writer writer : writers) {
        List<String> read =
            client.read(writer.stream, ReadRequest.from(0)).records().stream()
                .map(ReadRecord::bodyAsString)
                .toList();
        assertThat(read).as("%s holds each record once", writer.stream).doesNotHaveDuplicates();
        assertThat(read)
            .as("%s holds every acknowledged record, in order", writer.stream)
            .containsSubsequence(List.copyOf(writer.acked));
      }
    }
  }

  private final class Writer {
    final String stream;
    final Queue<String> acked = new ConcurrentLinkedQueue<>();
    final Queue<String> failures = new ConcurrentLinkedQueue<>();
    Future<?> task;

    Writer(String stream) {
      this.stream = stream;
    }

    void run(PicoClient client) {
      ProducerId producer = ProducerId.of("writer" + stream.replace('/', '-'));
      try (client) {
        for (long seq = 0; !stop.get(); seq++) {
          String body = stream + " #" + seq;
          try {
            client.append(
                stream,
                List.of(Record.of(body)),
                AppendOptions.defaults().producer(producer, 0, seq));
            acked.add(body);
          } catch (RuntimeException e) {
            if (!stop.get()) {
              failures.add(e.toString());
            }
            return; // after a kill: the node is gone, and a later seq would be a gap
          }
        }
      }
    }
  }
}
