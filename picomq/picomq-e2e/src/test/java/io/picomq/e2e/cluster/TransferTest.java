package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.client.AppendResult;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerOptions;
import io.picomq.client.ProducerSession;
import io.picomq.client.ReadRecord;
import io.picomq.client.Record;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Placement and transfers between real {@code pico serve} processes on a fresh Postgres database
 * and one {@code file://} bucket: creates spread by placement, a stream moved back and forth under
 * a producer session's load with nothing lost or written twice, and a transfer to a stopped node
 * falling back.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class TransferTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration MOVE = Duration.ofSeconds(30);

  @TempDir Path dir;
  private PostgresCluster cluster;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void createCluster() throws SQLException {
    cluster = PostgresCluster.create(dir);
  }

  @AfterEach
  void stop() throws SQLException {
    cluster.close();
  }

  @Test
  void createsSentToOneNodeAreSpreadByPlacement() throws Exception {
    ServerProcess one = cluster.node(1);
    ServerProcess two = cluster.node(2, "--slots", "3");
    Map<Integer, Integer> byOwner = new TreeMap<>();
    try (PicoClient client = PicoClient.builder().endpoint(one.endpoint()).build()) {
      for (int i = 0; i < 8; i++) {
        String name = "/placed/" + i;
        client.create(name, CreateOptions.builder().build());
        client.append(name, List.of(Record.of("first of " + i))); // through node 1: redirected
        // Node 1's view shows the open once it applied the entry the owner proposed: soon after.
        JsonNode stream =
            Awaitility.await(name + " open in node 1's view")
                .atMost(Duration.ofSeconds(10))
                .until(() -> stream(one, name), s -> s.path("state").asText().equals("open"));
        byOwner.merge(stream.path("owner").asInt(), 1, Integer::sum);
      }
      // Slots 1 and 3: a quarter here, three quarters there (placement's ratio, ties to node 1).
      assertThat(byOwner).isEqualTo(Map.of(1, 2, 2, 6));
    }
    assertThat(stream(two, "/placed/0").path("owner").asInt()).isIn(1, 2);
  }

  @Test
  void aStreamMovedBackAndForthUnderLoadLosesAndRepeatsNothing() throws Exception {
    ServerProcess one = cluster.node(1);
    ServerProcess two = cluster.node(2);
    String name = "/moving";
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong acknowledged = new AtomicLong();
    List<CompletableFuture<AppendResult>> acks = Collections.synchronizedList(new ArrayList<>());
    try (PicoClient client = PicoClient.builder().endpoint(two.endpoint()).build()) {
      client.create(name, CreateOptions.builder().contentType("text/plain").build());
      int first = stream(one, name).path("owner").asInt();
      CompletableFuture<Void> producing =
          CompletableFuture.runAsync(
              () -> {
                try (ProducerSession session =
                    client.producer(
                        name,
                        ProducerOptions.builder()
                            .producerId("mover")
                            .linger(Duration.ofMillis(2))
                            .maxInFlightRequests(4)
                            .deliveryTimeout(Duration.ofMinutes(1))
                            .build())) {
                  for (int n = 0; !stop.get(); n++) {
                    CompletableFuture<AppendResult> ack = session.send(Record.of("record " + n));
                    ack.thenRun(acknowledged::incrementAndGet);
                    acks.add(ack);
                    if (n % 50 == 49) {
                      session.flush(); // the pace of a steady producer rather than one burst
                    }
                  }
                }
              },
              Thread::startVirtualThread);

      int other = first == 1 ? 2 : 1;
      for (int target : List.of(other, first, other)) {
        long before = acknowledged.get();
        Awaitility.await("records acknowledged before the move to node " + target)
            .atMost(MOVE)
            .until(() -> acknowledged.get() > before + 100);
        transfer(one, name, target);
        Awaitility.await("the stream open on node " + target)
            .atMost(MOVE)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> isOpenOnlyOn(one, name, target));
      }
      stop.set(true);
      producing.join();

      List<String> sent = new ArrayList<>();
      synchronized (acks) {
        for (CompletableFuture<AppendResult> ack : acks) {
          ack.join(); // none failed across three handoffs
        }
        IntStream.range(0, acks.size()).forEach(n -> sent.add("record " + n));
      }
      assertThat(ChaosLoad.readAll(client, name))
          .extracting(ReadRecord::bodyAsString)
          .containsExactlyElementsOf(sent);
    }
  }

  @Test
  void aTransferToAStoppedNodeFallsBackAndTheStreamStaysServed() throws Exception {
    ServerProcess one = cluster.node(1, "--node-ttl", "2s");
    ServerProcess two = cluster.node(2, "--node-ttl", "2s", "--slots", "0");
    String name = "/stays";
    try (PicoClient client = PicoClient.builder().endpoint(one.endpoint()).build()) {
      client.create(name, CreateOptions.builder().build());
      client.append(name, List.of(Record.of("before")));
      assertThat(stream(one, name).path("owner").asInt()).isEqualTo(1);

      two.pause();
      try {
        Awaitility.await("node 2 presumed dead")
            .atMost(MOVE)
            .until(() -> nodeState(one, 2).equals("dead"));
        transfer(one, name, 2);
        Awaitility.await("the transfer withdrawn once node 2 is presumed dead")
            .atMost(MOVE)
            .until(() -> stream(one, name).path("pendingTransferTo").isNull());
        client.append(name, List.of(Record.of("after")));
        assertThat(stream(one, name).path("owner").asInt()).isEqualTo(1);
        assertThat(ChaosLoad.readAll(client, name))
            .extracting(ReadRecord::bodyAsString)
            .containsExactly("before", "after");
      } finally {
        two.resume();
      }
    }
  }

  @Test
  void aStreamThatMovedOpenIsOpenOnItsTargetBeforeAnyRequestForIt() throws Exception {
    ServerProcess one = cluster.node(1);
    cluster.node(2);
    String name = "/arriving";
    try (PicoClient client = PicoClient.builder().endpoint(one.endpoint()).build()) {
      client.create(name, CreateOptions.builder().contentType("text/plain").build());
      client.append(name, List.of(Record.of("before the move")));
      int source = stream(one, name).path("owner").asInt();
      assertThat(isOpenOnlyOn(one, name, source)).isTrue();
      int target = source == 1 ? 2 : 1;

      transfer(one, name, target);
      // Only the admin API from here on, which reads the metadata and opens nothing: the target
      // opened the stream as it arrived.
      Awaitility.await("the stream open on node " + target + " without a request")
          .atMost(MOVE)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> isOpenOnlyOn(one, name, target));

      client.append(name, List.of(Record.of("after the move")));
      assertThat(ChaosLoad.readAll(client, name))
          .extracting(ReadRecord::bodyAsString)
          .containsExactly("before the move", "after the move");
    }
  }

  private boolean isOpenOnlyOn(ServerProcess admin, String name, int node) throws Exception {
    JsonNode stream = stream(admin, name);
    return stream.path("owner").asInt() == node
        && stream.path("state").asText().equals("open")
        && stream.path("pendingTransferTo").isNull();
  }

  private String nodeState(ServerProcess admin, int nodeId) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(admin.adminEndpoint().resolve("/admin/nodes")).build(),
            HttpResponse.BodyHandlers.ofString());
    for (JsonNode node : JSON.readTree(response.body()).path("nodes")) {
      if (node.path("nodeId").asInt() == nodeId) {
        return node.path("state").asText();
      }
    }
    return "unregistered";
  }

  private void transfer(ServerProcess admin, String name, int toNode) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(admin.adminEndpoint().resolve("/admin/transfer"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        JSON.writeValueAsString(Map.of("stream", name, "toNode", toNode))))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isIn(200, 202);
  }

  private JsonNode stream(ServerProcess admin, String name) throws IOException {
    URI uri = admin.adminEndpoint().resolve("/admin/streams" + name); // names here need no escape
    try {
      HttpResponse<String> response =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return JSON.readTree(response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
