package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the Pico wire tests share: one server per test class (each test uses streams of its own), a
 * client per HTTP version, and the shape of an error answer.
 */
abstract class PicoWireTest {

  static final Duration LONG_POLL = Duration.ofMillis(400);

  static PicoServer server;
  private static final Map<HttpClient.Version, PicoClient> CLIENTS =
      new EnumMap<>(HttpClient.Version.class);

  @BeforeAll
  static void startServer() throws InterruptedException {
    server = PicoServer.start(LONG_POLL, Duration.ofSeconds(20));
    CLIENTS.clear();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  static PicoClient client(HttpClient.Version version) {
    return CLIENTS.computeIfAbsent(version, v -> new PicoClient(server.base, v));
  }

  /** A JSON error answer: this status, this code, some words, never a 5xx. */
  static JsonNode assertError(PicoClient.Answer answer, int status, String error) {
    assertThat(answer.status()).as("%s", answer).isEqualTo(status);
    assertThat(answer.header("content-type")).contains("application/json");
    JsonNode json = answer.json();
    assertThat(json.path("error").asText()).as("%s", answer).isEqualTo(error);
    assertThat(json.path("message").asText()).isNotBlank();
    return json;
  }
}
