package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.AppendRequest;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sliding TTL renewed only by reads (kept in memory, not written) is not cut short by a restart:
 * the new node starts the window again when it loads the stream.
 */
class TtlRestartTest {
  @TempDir Path dir;

  @Test
  void aStreamKeptAliveByReadsIsNotExpiredEarlyAfterARestart() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    NodeFixture first = new NodeFixture(metaUrl, dir, 1, clock);
    first
        .service
        .create(
            "/ttl",
            new CreateRequest(
                Optional.of("text/plain"),
                Optional.of(new Expiry.Ttl(10)),
                false,
                List.of(),
                Optional.empty()))
        .join();
    first
        .service
        .append("/ttl", AppendRequest.of(List.of(NewRecord.of("x".getBytes(UTF_8)))))
        .join();
    clock.advance(Duration.ofSeconds(8));
    // Read, never written: the activity lives only in this node's memory.
    assertThat(first.service.read("/ttl", new ReadWindow(0, 10, 1 << 20)).join())
        .isInstanceOf(ReadOutcome.Batch.class);
    first.abandon();

    // 12 s after the last write, 4 s after the read: expired by the stored activity, not by the
    // real one.
    clock.advance(Duration.ofSeconds(4));
    try (NodeFixture second = new NodeFixture(metaUrl, dir, 2, clock)) {
      second.service.loadExpiring();
      second.service.expireDue();
      assertThat(Registry.registeredStreamId(second.plane.state(), "/ttl")).isPresent();
      assertThat(second.service.head("/ttl").join()).isInstanceOf(HeadOutcome.Found.class);

      // The window runs from the load: still there just before its end, gone after it.
      clock.advance(Duration.ofSeconds(9));
      second.service.expireDue();
      assertThat(Registry.registeredStreamId(second.plane.state(), "/ttl")).isPresent();
      clock.advance(Duration.ofSeconds(2));
      second.service.expireDue();
      assertThat(Registry.registeredStreamId(second.plane.state(), "/ttl")).isEmpty();
    }
  }
}
