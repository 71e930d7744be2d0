package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.client.AppendOptions;
import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.Record;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.ServerProcess;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node dies and stays dead: two {@code pico serve} processes on a fresh Postgres database and one
 * {@code file://} bucket, {@code --node-ttl 2s}. Node 2 acknowledges records that live only in its
 * WAL and is SIGKILLed for good. Until node 2's liveness row lapses node 1 still redirects to it
 * (the SDK retries a refused redirect from its endpoint); then node 1 answers {@code 503
 * recovering}, takes node 2's WAL over, and serves the stream with every acknowledged record and
 * new appends.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class FailoverTest {

  private static final int RECORDS = 30;

  @TempDir Path dir;
  private PostgresCluster cluster;

  @BeforeEach
  void createCluster() throws SQLException {
    cluster = PostgresCluster.create(dir);
  }

  @AfterEach
  void stop() throws SQLException {
    cluster.close();
  }

  private ServerProcess node(int id, int slots, String wal) {
    List<String> args = new ArrayList<>(PostgresCluster.WAL_ONLY);
    args.addAll(List.of("--node-ttl", "2s", "--slots", Integer.toString(slots)));
    if (wal.equals("postgres")) {
      args.addAll(List.of("--wal", cluster.metaUrl()));
    }
    return cluster.node(id, args.toArray(String[]::new));
  }

  /** With the WAL in the bucket (the default), and in Postgres: the taker reads the dead's rows. */
  @ParameterizedTest(name = "{0} WAL")
  @ValueSource(strings = {"object", "postgres"})
  void aDeadNodesStreamsComeBackOnALiveNodeWithEveryAcknowledgedRecord(String wal)
      throws Exception {
    // Node 1 has no slots, so placement puts the stream on node 2 (the one to die).
    ServerProcess one = node(1, 0, wal);
    ServerProcess two = node(2, 1, wal);
    String stream = "/orders/failover";
    try (PicoClient client = PicoClient.builder().endpoint(two.endpoint()).build()) {
      client.create(stream, CreateOptions.builder().build());
      for (int i = 0; i < RECORDS; i++) {
        client.append(stream, List.of(Record.of("record " + i)));
      }
    }

    two.kill();
    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    HttpResponse<String> during =
        http.send(
            HttpRequest.newBuilder(one.endpoint().resolve(stream + "?seq=0"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(during.statusCode())
        .as("node 1 right after the kill: %s", during.body())
        .isIn(307, 503);
    if (during.statusCode() == 503) {
      assertThat(during.headers().firstValue("Retry-After")).isPresent();
    }

    // The SDK retries the 503s until node 1 took node 2's WAL over and reopened the stream.
    try (PicoClient client =
        PicoClient.builder()
            .endpoint(one.endpoint())
            .retryUnavailable(Duration.ofSeconds(60))
            .build()) {
      assertThat(client.read(stream, ReadRequest.from(0)).records())
          .extracting(ReadRecord::bodyAsString)
          .containsExactlyElementsOf(
              IntStream.range(0, RECORDS).mapToObj(i -> "record " + i).toList());
      client.append(
          stream,
          List.of(Record.of("after the failover")),
          AppendOptions.defaults().retryUnavailable(Duration.ofSeconds(60)));
      assertThat(client.read(stream, ReadRequest.from(RECORDS)).records())
          .extracting(ReadRecord::bodyAsString)
          .containsExactly("after the failover");
    }
    assertThat(String.join("\n", one.output())).contains("took over node 2");
    if (wal.equals("postgres")) {
      assertThat(String.join("\n", one.output())).contains("Postgres WAL of cluster");
    }

    // Node 2 comes back: it finds its old process taken over and serves again.
    two.restart();
    try (PicoClient client = PicoClient.builder().endpoint(two.endpoint()).build()) {
      assertThat(client.read(stream, ReadRequest.from(0)).records()).hasSize(RECORDS + 1);
    }
  }
}
