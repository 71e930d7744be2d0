package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.picomq.client.PicoClient;
import io.picomq.e2e.NetworkNamespace;
import io.picomq.e2e.PostgresAdmin;
import io.picomq.e2e.S3ProxyProcess;
import io.picomq.e2e.ServerProcess;
import io.picomq.e2e.TcpRelay;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition, issue 13: node 2 runs in a network namespace of its own ({@link NetworkNamespace})
 * and reaches Postgres and S3Proxy over one link, while clients reach it over another. With that
 * link cut, node 2 can neither renew its liveness nor write its WAL: it must acknowledge nothing
 * after its TTL, and node 1 must take it over and serve its streams. When the link comes back node
 * 2 learns it was taken over, starts again with a new epoch, and every acknowledged record is in
 * its stream exactly once. Skipped where network namespaces cannot be made (not root, no {@code
 * ip}).
 *
 * <p>Four streams are created through node 2 (it holds them); two are written through node 2
 * itself, two through node 1 (redirected to node 2 until the failover); each is followed through
 * the other node.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class PartitionTest {

  private static final Duration TTL = Duration.ofSeconds(2);

  /** What may pass between node 2's last acknowledgement and the client's hearing of it. */
  private static final Duration DELIVERY_SLACK = Duration.ofSeconds(1);

  private static final int ONE = 0;
  private static final int TWO = 1;

  @TempDir Path dir;
  private String database;
  private NetworkNamespace namespace;
  private S3ProxyProcess s3;
  private final List<TcpRelay> relays = new ArrayList<>();
  private final List<ServerProcess> nodes = new ArrayList<>();

  @BeforeEach
  void createDatabase() throws SQLException {
    database = "e2e_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    PostgresAdmin.execute("CREATE DATABASE " + database);
  }

  @AfterEach
  void stop() throws SQLException {
    nodes.forEach(ServerProcess::close);
    relays.forEach(TcpRelay::close);
    if (s3 != null) {
      s3.close();
    }
    if (namespace != null) {
      namespace.close();
    }
    PostgresAdmin.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
  }

  @Test
  void aNodeCutOffFromPostgresAndStorageStopsAcknowledgingAndItsStreamsFailOver() throws Exception {
    Optional<NetworkNamespace> made = NetworkNamespace.create();
    assumeTrue(made.isPresent(), "network namespaces (ip netns, as root) are not available here");
    namespace = made.get();
    s3 = S3ProxyProcess.start(dir.resolve("s3"), "partition");
    URI postgres = URI.create(System.getenv("PICOMQ_PG_URL"));
    TcpRelay postgresRelay = relay(new InetSocketAddress(postgres.getHost(), postgres.getPort()));
    TcpRelay s3Relay = relay(new InetSocketAddress("127.0.0.1", s3.endpoint().getPort()));
    nodes.add(
        ServerProcess.startWith(
            dir.resolve("node-1"),
            ChaosTest.environment(s3),
            List.of(),
            serveArgs(1, postgres.getRawAuthority(), s3.storage(-2))));
    String userInfo = postgres.getRawUserInfo() == null ? "" : postgres.getRawUserInfo() + "@";
    nodes.add(
        ServerProcess.startWrapped(
            dir.resolve("node-2"),
            ChaosTest.environment(s3),
            namespace.wrapper(),
            namespace.frontAddress(),
            List.of(),
            serveArgs(
                2,
                userInfo + hostPort(postgresRelay.address()),
                s3.storage(-2, URI.create("http://" + hostPort(s3Relay.address()))))));
    ServerProcess two = nodes.get(TWO);

    List<ChaosLoad.Route> routes =
        List.of(
            new ChaosLoad.Route(TWO, TWO, ONE),
            new ChaosLoad.Route(TWO, ONE, TWO),
            new ChaosLoad.Route(TWO, TWO, ONE),
            new ChaosLoad.Route(TWO, ONE, TWO));
    List<Integer> throughTwo = List.of(0, 2);
    List<Integer> throughOne = List.of(1, 3);
    try (ChaosLoad load =
        ChaosLoad.start(nodes.stream().map(ServerProcess::endpoint).toList(), routes)) {
      Awaitility.await("every stream acknowledging")
          .atMost(Duration.ofSeconds(60))
          .until(() -> load.acknowledgedPerStream().stream().allMatch(acked -> acked >= 10));

      namespace.cut();
      long cut = System.nanoTime();
      long lapsed = cut + TTL.plus(DELIVERY_SLACK).toNanos();
      // Node 1 takes node 2 over and serves the streams written through it.
      Awaitility.await("the streams written through node 1 acknowledged again by node 1")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  throughOne.stream().allMatch(i -> !load.acknowledgedAfter(i, lapsed).isEmpty()));
      Duration failover = Duration.ofNanos(System.nanoTime() - cut);
      assertThat(String.join("\n", nodes.get(ONE).output())).contains("took over node 2");
      // Node 2 acknowledged nothing after its TTL, though its clients kept sending to it.
      for (int i : throughTwo) {
        assertThat(load.acknowledgedAfter(i, lapsed))
            .as("acknowledgements by the cut-off node 2 on %s", ChaosLoad.stream(i))
            .isEmpty();
      }

      namespace.heal();
      Awaitility.await("node 2 started again with a new epoch")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  String.join("\n", two.output()).contains("starting again with a new epoch")
                      && two.isReady());
      long healed = System.nanoTime();
      Awaitility.await("the streams written through node 2 acknowledged again")
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  throughTwo.stream().allMatch(i -> !load.acknowledgedAfter(i, healed).isEmpty()));
      load.stopProducing();
      ChaosLoad.Totals totals;
      try (PicoClient reader =
          PicoClient.builder()
              .endpoint(nodes.get(ONE).endpoint())
              .retryUnavailable(Duration.ofMinutes(2))
              .build()) {
        totals = load.verify(reader, Duration.ofSeconds(60));
      }
      System.out.printf(
          Locale.ROOT,
          "partition: failed over %.1fs after the cut; %d records acknowledged, %d"
              + " unacknowledged ones written, %d not; %d consumed; SDK retries %s%n",
          failover.toMillis() / 1000.0,
          totals.acknowledged(),
          totals.unacknowledgedPresent(),
          totals.unacknowledgedAbsent(),
          totals.consumed(),
          totals.retries());
      assertThat(load.problems()).as("what broke an expectation").isEmpty();
    }
  }

  private TcpRelay relay(InetSocketAddress target) {
    TcpRelay relay = TcpRelay.start(namespace.backHostAddress(), target);
    relays.add(relay);
    return relay;
  }

  private List<String> serveArgs(int id, String postgresAuthority, String storage) {
    return List.of(
        "--node-id",
        Integer.toString(id),
        "--node-ttl",
        TTL.toMillis() + "ms",
        "--meta-url",
        "postgres://" + postgresAuthority + "/" + database,
        "--storage=" + storage,
        // Node 2 listens on its namespace's address, beyond loopback: this test is about
        // partitions, not access control, so it runs open.
        "--insecure");
  }

  private static String hostPort(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }
}
