package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.client.PicoClient;
import io.picomq.e2e.PostgresAdmin;
import io.picomq.e2e.S3ProxyProcess;
import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chaos, issue 13: three {@code pico serve} processes on a fresh Postgres database and one S3Proxy
 * bucket (data and every node's WAL in it, so any node can take any other's WAL over), {@code
 * --node-ttl 2s}, under the load of {@link ChaosLoad} (a producer session and a tailing consumer on
 * each of 16 streams, through all three nodes), while a seeded {@link ChaosSchedule} SIGKILLs,
 * SIGSTOPs past the TTL, restarts, or transfers the streams away from one node at a time.
 * Afterwards every acknowledged record must be in its stream exactly once and in order, and every
 * consumer must have seen each stream's records with no gap and no repeat.
 *
 * <p>The run prints {@code chaos seed: N}; {@code -Dpicomq.chaos.seed=N} draws the same faults
 * again (the load's timing around them differs from run to run). The load runs for 2 minutes, or
 * {@code -Dpicomq.chaos.duration} (e.g. {@code 10m}, {@code 90s}). The nodes' output is kept under
 * {@code target/chaos/seed-N/}.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class ChaosTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NODES = 3;
  private static final int STREAMS = 16;
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration DEFAULT_LENGTH = Duration.ofMinutes(2);

  /** Beyond the load: starting four processes, the last fault's recovery, the checks. */
  private static final Duration SLACK = Duration.ofSeconds(150);

  /** How long a node may take to serve again after a fault. */
  private static final Duration RECOVERY = Duration.ofSeconds(90);

  /** After a node is back, the load runs at least this long before the next fault. */
  private static final Duration BETWEEN_FAULTS = Duration.ofSeconds(3);

  @TempDir Path dir;
  private String database;
  private S3ProxyProcess s3;
  private final List<ServerProcess> nodes = new ArrayList<>();

  @BeforeEach
  void createDatabase() throws SQLException {
    database = "e2e_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    PostgresAdmin.execute("CREATE DATABASE " + database);
  }

  @AfterEach
  void stop() throws SQLException {
    nodes.forEach(ServerProcess::close);
    if (s3 != null) {
      s3.close();
    }
    PostgresAdmin.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
  }

  @Test
  @Timeout(value = 12, unit = TimeUnit.HOURS) // a longer run may be asked for; see bound below
  void everyAcknowledgedRecordSurvivesKillsPausesAndRestarts() throws Throwable {
    long seed =
        Long.getLong("picomq.chaos.seed", ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    Duration length =
        Duration.parse(
            "PT" + System.getProperty("picomq.chaos.duration", "2m").toUpperCase(Locale.ROOT));
    ChaosSchedule schedule = ChaosSchedule.draw(seed, length, NODES, TTL);
    System.out.printf(
        Locale.ROOT,
        "chaos seed: %d (repeat with -Dpicomq.chaos.seed=%d), load for %s, faults:%n%s",
        seed,
        seed,
        length,
        schedule);
    try {
      assertTimeoutPreemptively(length.plus(SLACK), () -> run(seed, length, schedule));
    } catch (Throwable failed) {
      System.out.println("chaos seed: " + seed + " FAILED: " + failed);
      throw failed;
    } finally {
      keepOutput(seed);
    }
  }

  private void run(long seed, Duration length, ChaosSchedule schedule) throws Exception {
    s3 = S3ProxyProcess.start(dir.resolve("s3"), "chaos");
    // Started side by side: a start takes seconds on a busy machine.
    List<CompletableFuture<ServerProcess>> starting = new ArrayList<>();
    for (int id = 1; id <= NODES; id++) {
      int nodeId = id;
      starting.add(CompletableFuture.supplyAsync(() -> node(nodeId), Thread::startVirtualThread));
    }
    for (CompletableFuture<ServerProcess> node : starting) {
      // Every node that started is kept (and stopped after the test), even if another did not.
      node.handle((started, failed) -> started).join();
      if (!node.isCompletedExceptionally()) {
        nodes.add(node.join());
      }
    }
    starting.forEach(CompletableFuture::join); // throws why a node did not start
    ChaosLoad.Totals totals;
    List<String> problems;
    int skipped = 0;
    try (ChaosLoad load =
        ChaosLoad.start(
            nodes.stream().map(ServerProcess::endpoint).toList(),
            ChaosLoad.Route.rotating(STREAMS, NODES))) {
      long started = System.nanoTime();
      Awaitility.await("every stream acknowledging")
          .atMost(Duration.ofSeconds(60))
          .until(() -> load.acknowledgedPerStream().stream().allMatch(acked -> acked > 0));
      long calm = System.nanoTime();
      for (ChaosSchedule.Event event : schedule.events()) {
        long at = Math.max(started + event.at().toNanos(), calm + BETWEEN_FAULTS.toNanos());
        if (at - started > length.minus(ChaosSchedule.COOL_DOWN).toNanos()) {
          // Recoveries took longer than the schedule allowed (a slow machine): the load ends on
          // time rather than the run growing without bound.
          System.out.println("chaos: no time left for " + event);
          skipped++;
          continue;
        }
        pause(at - System.nanoTime());
        long faultStarted = System.nanoTime();
        Map<Integer, Integer> held = openStreamsByNode();
        int target = rankedByStreamsHeld(held).get(event.rank());
        inflict(event, nodes.get(target - 1));
        awaitAllReady();
        calm = System.nanoTime();
        System.out.printf(
            Locale.ROOT,
            "chaos %6.1fs: %s: node %d (open streams by node %s) done, all nodes ready after"
                + " %.1fs; %d records acknowledged%n",
            (faultStarted - started) / 1e9,
            event,
            target,
            held,
            (calm - faultStarted) / 1e9,
            load.acknowledged());
      }
      pause(started + length.toNanos() - System.nanoTime());
      load.stopProducing();
      awaitAllReady();
      try (PicoClient reader =
          PicoClient.builder()
              .endpoint(nodes.getFirst().endpoint())
              .retryUnavailable(Duration.ofMinutes(2))
              .build()) {
        totals = load.verify(reader, Duration.ofSeconds(60));
      }
      problems = load.problems();
    }
    long takeovers = linesContaining("took over node");
    long restartsInProcess = linesContaining("starting again with a new epoch");
    long transfers = linesContaining("transfer completed: ");
    System.out.printf(
        Locale.ROOT,
        "chaos seed %d: %d faults (%d skipped); %d records acknowledged, %d unacknowledged"
            + " ones written, %d not; %d consumed; %d takeovers, %d in-process restarts, %d"
            + " transfers completed; %d"
            + " sessions replaced; longest wait for an acknowledgement %.1fs (%s); SDK retries"
            + " %s%n",
        seed,
        schedule.events().size() - skipped,
        skipped,
        totals.acknowledged(),
        totals.unacknowledgedPresent(),
        totals.unacknowledgedAbsent(),
        totals.consumed(),
        takeovers,
        restartsInProcess,
        transfers,
        totals.sessionsReplaced(),
        totals.longestAckGap().toMillis() / 1000.0,
        totals.longestAckGapStream(),
        totals.retries());
    assertThat(problems).as("chaos seed %d: what broke an expectation", seed).isEmpty();
    assertThat(totals.acknowledged()).as("chaos seed %d: records acknowledged", seed).isPositive();
  }

  private ServerProcess node(int id) {
    URI server = URI.create(System.getenv("PICOMQ_PG_URL"));
    return ServerProcess.startWith(
        dir.resolve("node-" + id),
        environment(s3),
        List.of(),
        List.of(
            "--node-id",
            Integer.toString(id),
            "--node-ttl",
            TTL.toMillis() + "ms",
            "--meta-url",
            "postgres://" + server.getRawAuthority() + "/" + database,
            // Data and WAL in the one bucket (the WAL under the next id): any node can take over
            // any other's WAL.
            "--storage=" + s3.storage(-2)));
  }

  /**
   * The nodes' environment: the S3 credentials, and JVM options for a small shared machine (C1 only
   * and the serial GC: less CPU taken from the other processes, whose liveness renewals must keep
   * their 2 s TTL) and time-stamped log lines.
   */
  static Map<String, String> environment(S3ProxyProcess s3) {
    Map<String, String> environment = new HashMap<>(s3.credentials());
    environment.put(
        "PICO_JAVA_OPTS",
        "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m"
            + " -Dorg.slf4j.simpleLogger.showDateTime=true"
            + " -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    return environment;
  }

  private void inflict(ChaosSchedule.Event event, ServerProcess node) throws Exception {
    switch (event.kind()) {
      case KILL -> {
        node.kill();
        pause(event.hold().toNanos());
        node.restart();
      }
      case PAUSE -> {
        node.pause();
        pause(event.hold().toNanos());
        node.resume();
      }
      case RESTART -> node.restart();
      case TRANSFER -> transferAway(nodes.indexOf(node) + 1);
    }
  }

  /**
   * Asks for every stream open on node {@code id} to move to the other nodes in turn; the handoffs
   * then run under the load while the schedule goes on.
   */
  private void transferAway(int id) throws Exception {
    ServerProcess asked = nodes.stream().filter(ServerProcess::isReady).findFirst().orElseThrow();
    List<Integer> others = IntStream.rangeClosed(1, NODES).filter(n -> n != id).boxed().toList();
    int next = 0;
    try (HttpClient http = HttpClient.newHttpClient()) {
      for (int i = 0; i < STREAMS; i++) {
        String name = ChaosLoad.stream(i);
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(asked.adminEndpoint().resolve("/admin/streams" + name))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode stream = JSON.readTree(answer.body());
        if (stream.path("owner").asInt() != id || !stream.path("state").asText().equals("open")) {
          continue;
        }
        int to = others.get(next++ % others.size());
        HttpResponse<String> moved =
            http.send(
                HttpRequest.newBuilder(asked.adminEndpoint().resolve("/admin/transfer"))
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(10))
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            JSON.writeValueAsString(Map.of("stream", name, "toNode", to))))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        // 409: it moved or closed meanwhile (the load goes on); anything else is a bug.
        assertThat(moved.statusCode()).as(moved.body()).isIn(200, 202, 409);
      }
    }
  }

  /** Every node answers {@code GET /ready} with 200. */
  private void awaitAllReady() {
    Awaitility.await("every node ready")
        .atMost(RECOVERY)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> nodes.stream().allMatch(ServerProcess::isReady));
  }

  /**
   * How many of the load's streams each node holds open, as the first ready node's metadata says
   * ({@code GET /admin/streams/{name}}: reading it opens nothing).
   */
  private Map<Integer, Integer> openStreamsByNode() throws Exception {
    ServerProcess asked = nodes.stream().filter(ServerProcess::isReady).findFirst().orElseThrow();
    Map<Integer, Integer> held = new TreeMap<>();
    try (HttpClient http = HttpClient.newHttpClient()) {
      for (int i = 0; i < STREAMS; i++) {
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(
                        asked.adminEndpoint().resolve("/admin/streams" + ChaosLoad.stream(i)))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode stream = JSON.readTree(answer.body());
        if (answer.statusCode() == 200 && stream.path("state").asText().equals("open")) {
          held.merge(stream.path("owner").asInt(), 1, Integer::sum);
        }
      }
    }
    return held;
  }

  /** Node ids, the one holding the most streams first (ties: the lower id first). */
  private List<Integer> rankedByStreamsHeld(Map<Integer, Integer> held) {
    return IntStream.rangeClosed(1, NODES)
        .boxed()
        .sorted(
            Comparator.comparing((Integer id) -> -held.getOrDefault(id, 0)).thenComparing(id -> id))
        .toList();
  }

  private long linesContaining(String text) {
    return nodes.stream()
        .flatMap(node -> node.output().stream())
        .filter(line -> line.contains(text))
        .count();
  }

  /** The schedule's timing: the load runs meanwhile; this is not a wait for an effect. */
  private static void pause(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private void keepOutput(long seed) throws IOException {
    Path kept = Path.of("target", "chaos", "seed-" + seed);
    Files.createDirectories(kept);
    for (int i = 0; i < nodes.size(); i++) {
      Files.write(kept.resolve("node-" + (i + 1) + ".log"), nodes.get(i).output());
    }
    if (s3 != null) {
      Files.writeString(kept.resolve("s3proxy.log"), s3.log());
    }
    System.out.println("chaos seed " + seed + ": node output in " + kept.toAbsolutePath());
  }
}
