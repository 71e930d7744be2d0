package io.picomq.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fixture itself: a launched server answers, and a restart keeps its address and its data. */
class ServerProcessTest {
  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aRestartedServerKeepsItsAddressAndItsStreams() throws Exception {
    try (ServerProcess server = ServerProcess.start(dir)) {
      URI stream = server.endpoint().resolve("/fixture");
      assertThat(send(HttpRequest.newBuilder(stream).PUT(HttpRequest.BodyPublishers.noBody())))
          .isEqualTo(201);
      assertThat(send(HttpRequest.newBuilder(server.adminEndpoint().resolve("/health")).GET()))
          .isEqualTo(200);

      server.kill();
      server.restart();

      assertThat(server.endpoint().resolve("/fixture")).isEqualTo(stream);
      assertThat(send(HttpRequest.newBuilder(stream).HEAD())).isEqualTo(200);
    }
  }

  private int send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
