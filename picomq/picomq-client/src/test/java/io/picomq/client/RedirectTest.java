package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redirects on a real socket: a scripted node answers {@code 307} the way a PicoMQ node that does
 * not own a stream does, and the client must send the same method and body to the owner.
 */
class RedirectTest {

  private ScriptedHttpServer server;
  private URI base;
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger hops = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server =
        new ScriptedHttpServer(
            request -> {
              if (request.target().startsWith("/owner/")) {
                seen.add(
                    request.method()
                        + " "
                        + request.target()
                        + " "
                        + request.headers().get("content-type")
                        + " "
                        + request.body().length);
                return new ScriptedHttpServer.Answer(
                    200,
                    Map.of("Pico-Start-Seq", "7", "Pico-Next-Seq", "8", "Pico-Timestamp", "1000"));
              }
              hops.incrementAndGet();
              String location =
                  request.target().startsWith("/loop")
                      ? "/loop/again"
                      : base + "/owner" + request.target();
              return new ScriptedHttpServer.Answer(307, Map.of("Location", location));
            });
    base = server.base();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void a307KeepsTheMethodAndTheBody() {
    try (PicoClient client = PicoClient.builder().endpoint(base).build()) {
      AppendResult result = client.append("/stream/a", List.of(Record.of("hello")));

      assertThat(result.startSeq()).isEqualTo(7);
      assertThat(hops).hasValue(1);
      // A binary batch of one 5-byte record without headers: 1 + 4 + 4 + 4 + 5 bytes.
      assertThat(seen).containsExactly("POST /owner/stream/a application/vnd.picomq.batch 18");
    }
  }

  @Test
  void moreThanFiveHopsFail() {
    try (PicoClient client = PicoClient.builder().endpoint(base).build()) {
      assertThatThrownBy(() -> client.head("/loop/x"))
          .isInstanceOfSatisfying(
              PicoException.class,
              e -> {
                assertThat(e.errorCode()).isEqualTo("too_many_redirects");
                assertThat(e.status()).isEqualTo(307);
              });
      assertThat(hops).hasValue(1 + HttpTransport.MAX_REDIRECTS);
    }
  }

  @Test
  void aRedirectToANodeThatRefusesConnectionsIsRetriedFromTheEndpoint() throws IOException {
    int deadPort;
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
      deadPort = closed.getLocalPort(); // free again once closed: connections are refused
    }
    AtomicInteger asked = new AtomicInteger();
    try (ScriptedHttpServer entry =
            new ScriptedHttpServer(
                request ->
                    asked.incrementAndGet() == 1
                        ? new ScriptedHttpServer.Answer(
                            307,
                            Map.of("Location", "http://127.0.0.1:" + deadPort + request.target()))
                        : new ScriptedHttpServer.Answer(
                            200,
                            Map.of(
                                "Pico-Start-Seq",
                                "0",
                                "Pico-Next-Seq",
                                "1",
                                "Pico-Timestamp",
                                "1")));
        PicoClient client = PicoClient.builder().endpoint(entry.base()).build()) {
      assertThat(client.head("/stream/a")).isNotNull();
      assertThat(asked).hasValue(2);
    }
  }

  @Test
  void noServerIsARetriableTransportFailure() throws IOException {
    server.close();
    try (PicoClient client = PicoClient.builder().endpoint(base).build()) {
      assertThatThrownBy(() -> client.head("/stream/a"))
          .isInstanceOfSatisfying(
              PicoTransportException.class,
              e -> {
                assertThat(e.isRetriable()).isTrue();
                assertThat(e.status()).isZero();
                assertThat(e.errorCode()).isEqualTo("transport");
              });
    }
  }
}
