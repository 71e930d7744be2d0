package io.picomq.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.server.stream.CreateRequest;
import io.picomq.server.stream.Expiry;
import io.picomq.server.stream.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An expired stream leaves the registry without anyone touching it. */
class BackgroundExpiryTest {
  @TempDir Path dir;

  @Test
  void theSweepRemovesExpiredEntriesFromTheRegistry() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (NodeFixture node = new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, clock)) {
      node.service
          .create(
              "/ttl",
              new CreateRequest(
                  Optional.of("text/plain"),
                  Optional.of(new Expiry.Ttl(5)),
                  false,
                  List.of(),
                  Optional.empty()))
          .join();
      node.service.create("/kept", CreateRequest.of("text/plain")).join();
      node.service.expireDue();
      assertThat(EngineStreamService.registeredStreamId(node.plane.state(), "/ttl")).isPresent();

      clock.advance(Duration.ofSeconds(5));
      node.service.expireDue();
      assertThat(EngineStreamService.registeredStreamId(node.plane.state(), "/ttl")).isEmpty();
      assertThat(EngineStreamService.registeredStreamId(node.plane.state(), "/kept")).isPresent();
    }
  }
}
