package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.ReadRecord;
import io.picomq.client.ReadRequest;
import io.picomq.client.Record;
import io.picomq.e2e.PostgresCluster;
import io.picomq.e2e.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restart race of issue 13, with two {@code pico serve} processes on a fresh Postgres database
 * and one {@code file://} bucket: node 2 acknowledges 20 records that live only in its WAL, is
 * SIGKILLed and restarted while a client polls the stream through node 1 every 10 ms. Node 1 must
 * never serve the stream short (it used to open it at a new epoch with 0 records, and node 2's
 * recovery then dropped all 20): it answers 503 (recovering) or 307 until node 2 recovered its WAL
 * and closed the stream, then every record is there, through either node.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class RestartRaceTest {

  private static final int RECORDS = 20;

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

  private ServerProcess node(int id) {
    return cluster.node(id, PostgresCluster.WAL_ONLY.toArray(String[]::new));
  }

  @Test
  void aRestartingNodesStreamIsNeverServedShortByAnotherNode() throws Exception {
    ServerProcess one = node(1);
    ServerProcess two = node(2);
    String stream = "/d";
    try (PicoClient client = PicoClient.builder().endpoint(two.endpoint()).build()) {
      client.create(stream, CreateOptions.builder().build());
      for (int i = 0; i < RECORDS; i++) {
        client.append(stream, List.of(Record.of("record " + i)));
      }
      assertThat(client.read(stream, ReadRequest.from(0)).records()).hasSize(RECORDS);
    }

    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    URI throughOne = one.endpoint().resolve(stream + "?seq=0");
    ConcurrentLinkedQueue<String> shortAnswers = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
    // One GET every 10 ms after the previous answer: the scenario's client.
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    poller.scheduleWithFixedDelay(
        () -> {
          try {
            HttpResponse<String> answer =
                http.send(
                    HttpRequest.newBuilder(throughOne).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            statuses.add(answer.statusCode());
            String tail = answer.headers().firstValue("Pico-Next-Seq").orElse("");
            if (answer.statusCode() == 200 && !tail.equals(Integer.toString(RECORDS))) {
              shortAnswers.add(answer.headers().map() + " " + answer.body());
            }
          } catch (Exception e) {
            statuses.add(-1);
          }
        },
        0,
        10,
        TimeUnit.MILLISECONDS);

    two.kill();
    two.restart();
    try (PicoClient client = PicoClient.builder().endpoint(one.endpoint()).build()) {
      assertThat(client.read(stream, ReadRequest.from(0)).records())
          .extracting(ReadRecord::bodyAsString)
          .containsExactlyElementsOf(
              IntStream.range(0, RECORDS).mapToObj(i -> "record " + i).toList());
    }
    poller.shutdown();
    assertThat(poller.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    assertThat(shortAnswers).as("node 1 served the stream short").isEmpty();
    assertThat(statuses).as("answers through node 1").contains(200).doesNotContain(500);
    try (PicoClient client = PicoClient.builder().endpoint(two.endpoint()).build()) {
      assertThat(client.read(stream, ReadRequest.from(0)).records()).hasSize(RECORDS);
    }
  }
}
