package io.picomq.e2e.client;

import io.picomq.client.PicoClient;
import io.picomq.client.Protocol;
import io.picomq.e2e.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The combinations every SDK test runs under: both protocols, over HTTP/1.1 and HTTP/2, each
 * against its own {@code pico serve} process.
 */
record Servers(Protocol protocol, boolean http2) {

  static Stream<Servers> all() {
    return Stream.of(
        new Servers(Protocol.PICO, false),
        new Servers(Protocol.PICO, true),
        new Servers(Protocol.DURABLE_STREAMS, false),
        new Servers(Protocol.DURABLE_STREAMS, true));
  }

  /** A server speaking {@code protocol}, with short live timeouts so tests do not wait long. */
  static ServerProcess start(Path dir, Protocol protocol) {
    List<String> global = protocol == Protocol.PICO ? List.of() : List.of("--protocol", "ds");
    return ServerProcess.startWith(
        dir, global, List.of("--long-poll-timeout-sec", "2", "--sse-max-duration-sec", "5"));
  }

  PicoClient client(ServerProcess server) {
    return PicoClient.builder()
        .endpoint(server.endpoint())
        .protocol(protocol)
        .http2(http2)
        .requestTimeout(Duration.ofSeconds(20))
        .build();
  }

  static String freshStream(String prefix) {
    return "/" + prefix + "/" + UUID.randomUUID();
  }

  @Override
  public String toString() {
    return protocol + (http2 ? " over HTTP/2" : " over HTTP/1.1");
  }
}
