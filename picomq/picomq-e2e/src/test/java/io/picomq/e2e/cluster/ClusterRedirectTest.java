package io.picomq.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code pico serve} processes sharing a Postgres metadata database (a fresh one per run) and
 * one {@code file://} bucket, as a cluster on one machine: a request for a stream the other node
 * has open is redirected to it, and the SDK follows the redirect.
 */
@EnabledIfEnvironmentVariable(named = "PICOMQ_PG_URL", matches = ".+")
class ClusterRedirectTest {

  @TempDir static Path dir;
  private static PostgresCluster cluster;
  private static ServerProcess one;
  private static ServerProcess two;

  @BeforeAll
  static void startTwoNodes() throws SQLException {
    cluster = PostgresCluster.create(dir);
    one = cluster.node(1);
    two = cluster.node(2);
  }

  @AfterAll
  static void stopNodes() throws SQLException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aStreamOpenOnOneNodeIsRedirectedToFromTheOther() throws Exception {
    String stream = "/cluster/" + UUID.randomUUID();
    try (PicoClient client = PicoClient.builder().endpoint(one.endpoint()).build()) {
      client.create(stream, CreateOptions.builder().build());
      client.append(stream, List.of(Record.of("written on node 1")));
    }

    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(two.endpoint().resolve(stream))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(307);
    // The same path on node 1, with the position of node 2's view (node 1 routes with one at
    // least as new, so the request is not sent back).
    assertThat(answer.headers().firstValue("location"))
        .hasValueSatisfying(
            location ->
                assertThat(location)
                    .matches(
                        Pattern.quote(one.endpoint().resolve(stream).toString())
                            + "\\?pico-view=[1-9][0-9]*"));

    try (PicoClient client = PicoClient.builder().endpoint(two.endpoint()).build()) {
      assertThat(client.read(stream, ReadRequest.from(0)).records())
          .extracting(ReadRecord::bodyAsString)
          .containsExactly("written on node 1");
    }
  }
}
