package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * SSE responses end after the configured duration, with keep-alive comments while idle, and a
 * reader following a stream keeps its sliding TTL alive.
 */
class PicoRecycleTest {

  private static PicoServer server;

  @BeforeAll
  static void start() throws InterruptedException {
    server = PicoServer.start(Duration.ofMillis(200), Duration.ofMillis(1200));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BothVersions
  void anIdleSseResponseIsKeptAliveThenRecycled(HttpClient.Version version) throws Exception {
    PicoClient client = new PicoClient(server.base, version);
    String name = PicoServer.freshName("recycle");
    client.put(name, "");
    long started = System.nanoTime();

    try (SseReader sse = SseReader.open(client, name + "?live=sse")) {
      assertThat(sse.next(Duration.ofSeconds(2)).type()).isEqualTo("control");
      assertThat(sse.ends(Duration.ofSeconds(5))).isTrue();

      Duration lasted = Duration.ofNanos(System.nanoTime() - started);
      assertThat(lasted).isBetween(Duration.ofMillis(1200), Duration.ofSeconds(5));
      assertThat(sse.comments.get()).isGreaterThanOrEqualTo(2);
    }
  }

  @BothVersions
  void anSseReaderIdleAtTheTailKeepsASlidingTtlAlive(HttpClient.Version version) throws Exception {
    PicoClient client = new PicoClient(server.base, version);
    String name = PicoServer.freshName("followed");
    assertThat(client.put(name, "", "Pico-TTL", "1").status()).isEqualTo(201);

    try (SseReader sse = SseReader.open(client, name + "?live=sse")) {
      assertThat(sse.next(Duration.ofSeconds(2)).type()).isEqualTo("control");
      // Idle for longer than the TTL: every keep-alive (200 ms) is followed by a read.
      assertThat(sse.ends(Duration.ofSeconds(5))).isTrue();
    }
    assertThat(client.head(name).status())
        .as("read 200 ms ago at most, the stream is alive 1.2 s after its last append")
        .isEqualTo(200);

    await("unread, it expires")
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(client.head(name).status()).isEqualTo(404));
  }
}
