package io.picomq.frontend.pico;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.stream.testing.InMemoryStreamService;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Pico listener and a Durable Streams listener over one stream service: a stream written through
 * either protocol reads back through the other, and Pico shows every record's timestamp and headers
 * whichever protocol wrote it.
 */
class CrossProtocolTest {

  private Frontend pico;
  private Frontend ds;
  private PicoClient picoClient;
  private PicoClient dsClient;

  @BeforeEach
  void start() throws InterruptedException {
    InstantSource clock = InstantSource.system();
    InMemoryStreamService service = new InMemoryStreamService(clock);
    pico = Frontend.start(config(ListenerProtocol.PICO), service, clock);
    ds = Frontend.start(config(ListenerProtocol.DS), service, clock);
    picoClient = new PicoClient(base(pico), HttpClient.Version.HTTP_1_1);
    dsClient = new PicoClient(base(ds), HttpClient.Version.HTTP_1_1);
  }

  @AfterEach
  void stop() {
    pico.close();
    ds.close();
  }

  private static FrontendConfig config(ListenerProtocol protocol) {
    return FrontendConfig.builder()
        .port(0)
        .protocol(protocol)
        .longPollTimeout(Duration.ofMillis(300))
        .ioThreads(1)
        .build();
  }

  private static URI base(Frontend frontend) {
    return URI.create("http://127.0.0.1:" + frontend.address().getPort());
  }

  @Test
  void recordsWrittenThroughPicoReadBackThroughDurableStreams() {
    String name = PicoServer.freshName("to-ds");
    picoClient.put(name, "", "Content-Type", "text/plain");
    picoClient.post(
        name,
        "{\"records\":[{\"body\":\"hello \",\"headers\":{\"k\":\"v\"}},{\"body\":\"world\"}]}",
        "Content-Type",
        "application/vnd.picomq.batch+json");

    PicoClient.Answer read = dsClient.get("/v1/stream" + name + "?offset=-1");

    assertThat(read.status()).isEqualTo(200);
    assertThat(read.text()).isEqualTo("hello world");
    assertThat(read.header("content-type")).contains("text/plain");
  }

  @Test
  void recordsWrittenThroughDurableStreamsCarryTimestampsInPico() {
    String name = PicoServer.freshName("from-ds");
    long before = Instant.now().toEpochMilli();
    assertThat(dsClient.put("/v1/stream" + name, "", "Content-Type", "text/plain").status())
        .isEqualTo(201);
    dsClient.send(
        "POST",
        "/v1/stream" + name,
        Map.of("Content-Type", "text/plain"),
        "from ds".getBytes(UTF_8));

    JsonNode records = picoClient.get(name).json();

    assertThat(records).hasSize(1);
    assertThat(records.get(0).path("body").asText()).isEqualTo("from ds");
    assertThat(records.get(0).path("timestamp").asLong())
        .isBetween(before, Instant.now().toEpochMilli());
    assertThat(records.get(0).path("headers").isEmpty()).isTrue();
    assertThat(picoClient.head(name).header("content-type")).contains("text/plain");
  }
}
