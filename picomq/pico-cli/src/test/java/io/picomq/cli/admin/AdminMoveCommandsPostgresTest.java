package io.picomq.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.node.Node;
import io.picomq.node.NodeConfig;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.NodeIdentity;
import io.picomq.server.metadata.NodeLiveness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pico admin} moving streams for real, on a fresh database of the machine's Postgres ({@code
 * PICOMQ_PG_URL}): node 1 is a real node in this JVM; node 9 is a registered process with a live
 * liveness row and nothing else (a metadata plane of its own, no engine). Node 9 never hands a
 * stream over by itself, so the test plays its part of a handoff (close, then complete, as the
 * source proposes them): that keeps {@code --wait}, its timeout and a cancel deterministic.
 */
class AdminMoveCommandsPostgresTest {
  private static final String URL = System.getenv("PICOMQ_PG_URL");
  private static final String SKIPPED =
      "PICOMQ_PG_URL is not set: the pico admin move tests on Postgres are SKIPPED";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long NINE_EPOCH = 1;

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();
  private String database;
  private String metaUrl;
  private Node node;
  private MetadataPlane nine;
  private NodeLiveness nineAlive;
  private InProcessPico pico;

  @BeforeAll
  static void sayWhyWhenSkipped() {
    if (URL == null || URL.isBlank()) {
      System.err.println("WARNING: " + SKIPPED);
    }
  }

  @BeforeEach
  void startNodes() throws Exception {
    assumeTrue(URL != null && !URL.isBlank(), SKIPPED);
    database = "cli_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    execute("CREATE DATABASE " + database);
    metaUrl = "postgres://" + URI.create(URL).getRawAuthority() + "/" + database;
    node = startNode(1);
    String data = "http://127.0.0.1:" + node.address().getPort();
    for (String name : new String[] {"/c/0", "/c/1", "/c/2", "/c/3"}) {
      assertThat(send("PUT", data + name).statusCode()).isEqualTo(201);
    }
    // A clean restart closes the streams; they stay on node 1 until something opens them.
    node.stop(Duration.ofSeconds(1));
    node = startNode(2);
    nine =
        MetadataPlane.open(
            metaUrl, new NodeIdentity(9, NINE_EPOCH, "http://127.0.0.1:1", 1), Clock.systemUTC());
    nine.start();
    nineAlive = nine.liveness(Duration.ofSeconds(10));
    nineAlive.start();
    pico = new InProcessPico("http://127.0.0.1:" + node.adminAddress().orElseThrow().getPort());
    await().atMost(Duration.ofSeconds(30)).until(() -> state(9).equals("live"));
  }

  @AfterEach
  void stopNodes() throws SQLException {
    if (nineAlive != null) {
      nineAlive.close();
    }
    if (nine != null) {
      nine.close();
    }
    if (node != null) {
      node.stop(Duration.ZERO);
    }
    if (database != null) {
      execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  @Test
  void rebalanceAndDrainWaitForTheirMoves() throws Exception {
    InProcessPico.Run rebalanced = pico.admin("rebalance", "--wait");

    assertThat(rebalanced.exitCode()).as("%s", rebalanced).isZero();
    // A table of the moves: the two highest stream ids, closed, so moved at once.
    assertThat(rebalanced.out())
        .containsPattern("(?m)^STREAM +STREAMID +FROMNODE +TONODE +EPOCH +STATE$")
        .containsPattern("(?m)^/c/3 .* 1 +9 +0 +completed$")
        .containsPattern("(?m)^/c/2 .* 1 +9 +0 +completed$");
    assertThat(owner("/c/3")).isEqualTo(9);

    InProcessPico.Run drained = pico.admin("drain", "9", "--wait", "--json");

    assertThat(drained.exitCode()).as("%s", drained).isZero();
    JsonNode answer = JSON.readTree(drained.out());
    assertThat(answer.path("previousSlots").asInt()).isEqualTo(1);
    assertThat(answer.path("transfers").findValuesAsText("stream")).containsExactly("/c/2", "/c/3");
    assertThat(answer.path("transfers").findValuesAsText("state")).containsOnly("completed");
    assertThat(owner("/c/2")).isEqualTo(1);
    assertThat(owner("/c/3")).isEqualTo(1);
  }

  @Test
  void transferWaitReturnsOnceTheSourceHandedTheStreamOver() throws Exception {
    long epoch = openOnNine("/c/0");
    CompletableFuture<InProcessPico.Run> waiting =
        CompletableFuture.supplyAsync(
            () -> pico.admin("transfer", "/c/0", "--to", "1", "--wait", "--timeout", "30s"));
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingTo("/c/0") == 1);
    assertThat(waiting).isNotDone();

    long streamId = streamId("/c/0");
    nine.propose(new Command.CloseStream(streamId, epoch, 9, NINE_EPOCH)).join();
    nine.proposeAccepted(new Command.CompleteTransfer(streamId, epoch)).join();

    InProcessPico.Run done = waiting.get();
    assertThat(done.exitCode()).as("%s", done).isZero();
    assertThat(done.out())
        .containsPattern("(?m)^owner +1$")
        .containsPattern("(?m)^pendingTransferTo +-$");
  }

  @Test
  void transferWaitTimesOutWhileTheMoveIsPendingAndStopsWhenItIsCancelled() throws Exception {
    openOnNine("/c/1");

    InProcessPico.Run timedOut =
        pico.admin("transfer", "/c/1", "--to", "1", "--wait", "--timeout", "1s");

    assertThat(timedOut.exitCode()).as("%s", timedOut).isEqualTo(1);
    assertThat(timedOut.err().strip())
        .isEqualTo("pico: 1 of 1 transfers still pending after 1 s (timeout): /c/1 to node 1");

    // The timed-out move is still pending: withdraw it, then wait for a new one and cancel that.
    assertThat(pico.admin("transfer", "--cancel", "/c/1").out())
        .containsPattern("(?m)^state +cancelled$");
    CompletableFuture<InProcessPico.Run> waiting =
        CompletableFuture.supplyAsync(
            () -> pico.admin("transfer", "/c/1", "--to", "1", "--wait", "--timeout", "30s"));
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingTo("/c/1") == 1);
    InProcessPico.Run cancelled = pico.admin("transfer", "--cancel", "/c/1");
    assertThat(cancelled.out()).containsPattern("(?m)^state +cancelled$");

    InProcessPico.Run stopped = waiting.get();
    assertThat(stopped.exitCode()).as("%s", stopped).isEqualTo(1);
    assertThat(stopped.err()).contains("not moved (cancelled?): /c/1 is on node 9, not 1");
  }

  /**
   * Opens {@code name} on node 9 (it is closed on node 1) and waits until node 1's view shows it;
   * returns the stream's new epoch.
   */
  private long openOnNine(String name) throws Exception {
    Outcome.StreamOpened opened =
        (Outcome.StreamOpened)
            nine.proposeAccepted(new Command.OpenStream(streamId(name), 9, NINE_EPOCH)).join();
    await().atMost(Duration.ofSeconds(10)).until(() -> owner(name) == 9);
    return opened.epoch();
  }

  private long streamId(String name) throws Exception {
    return JSON.readTree(pico.admin("stream", name, "--json").out()).path("streamId").asLong();
  }

  private long owner(String name) throws Exception {
    return JSON.readTree(pico.admin("stream", name, "--json").out()).path("owner").asLong();
  }

  private long pendingTo(String name) throws Exception {
    return JSON.readTree(pico.admin("stream", name, "--json").out())
        .path("pendingTransferTo")
        .asLong(-1);
  }

  private String state(int nodeId) throws Exception {
    for (JsonNode entry : JSON.readTree(pico.admin("nodes", "--json").out()).path("nodes")) {
      if (entry.path("nodeId").asInt() == nodeId) {
        return entry.path("state").asText();
      }
    }
    return "unregistered";
  }

  private Node startNode(long epoch) throws Exception {
    return Node.start(
        NodeConfig.builder()
            .nodeEpoch(epoch)
            .listen("127.0.0.1:0")
            .adminListen("127.0.0.1:0")
            .shutdownDrain(Duration.ofSeconds(1))
            .metaUrl(metaUrl)
            .storage("0@file://" + dir.resolve("objects"))
            .protocol(ListenerProtocol.PICO)
            .build(),
        Clock.systemUTC());
  }

  private HttpResponse<String> send(String method, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Runs {@code sql} on the database {@code PICOMQ_PG_URL} names, outside any transaction. */
  private static void execute(String sql) throws SQLException {
    URI url = URI.create(URL);
    String userInfo = url.getUserInfo() == null ? "" : url.getUserInfo();
    String[] credentials = userInfo.split(":", 2);
    try (Connection connection =
            DriverManager.getConnection(
                "jdbc:postgresql://" + url.getHost() + ":" + url.getPort() + url.getPath(),
                credentials[0],
                credentials.length > 1 ? credentials[1] : null);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
