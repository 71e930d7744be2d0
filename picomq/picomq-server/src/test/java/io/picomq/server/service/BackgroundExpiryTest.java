package io.picomq.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.AppendRequest;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Expiry;
import io.picomq.stream.NewRecord;
import io.picomq.stream.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An expired stream leaves the registry without anyone touching it, on time, while the sweep looks
 * only at streams whose deadline passed.
 */
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
      assertThat(Registry.registeredStreamId(node.plane.state(), "/ttl")).isPresent();

      clock.advance(Duration.ofSeconds(5));
      node.service.expireDue();
      assertThat(Registry.registeredStreamId(node.plane.state(), "/ttl")).isEmpty();
      assertThat(Registry.registeredStreamId(node.plane.state(), "/kept")).isPresent();
    }
  }

  @Test
  void aDueStreamExpiresOnTimeAmongManyThatAreNot() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (NodeFixture node = new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, clock)) {
      int each = 100;
      for (int i = 0; i < each; i++) {
        node.service.create("/never-" + i, CreateRequest.of("text/plain")).join();
        node.service.create("/later-" + i, withExpiry(new Expiry.Ttl(60))).join();
        node.service
            .create("/fixed-" + i, withExpiry(new Expiry.At(clock.instant().plusSeconds(30))))
            .join();
      }
      node.service.create("/soon", withExpiry(new Expiry.Ttl(5))).join();

      clock.advance(Duration.ofMillis(4_999));
      node.service.expireDue();
      assertThat(registered(node, "/soon")).isTrue();

      clock.advance(Duration.ofMillis(1));
      node.service.expireDue();
      assertThat(registered(node, "/soon")).isFalse();
      for (int i = 0; i < each; i++) {
        assertThat(registered(node, "/never-" + i)).isTrue();
        assertThat(registered(node, "/later-" + i)).isTrue();
        assertThat(registered(node, "/fixed-" + i)).isTrue();
      }

      // The fixed expiries come due next, then the sliding ones; the streams without stay.
      clock.advance(Duration.ofSeconds(25));
      node.service.expireDue();
      for (int i = 0; i < each; i++) {
        assertThat(registered(node, "/fixed-" + i)).isFalse();
        assertThat(registered(node, "/later-" + i)).isTrue();
      }
      clock.advance(Duration.ofSeconds(30));
      node.service.expireDue();
      for (int i = 0; i < each; i++) {
        assertThat(registered(node, "/later-" + i)).isFalse();
        assertThat(registered(node, "/never-" + i)).isTrue();
      }
    }
  }

  @Test
  void activityMovesTheSweepsDeadline() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (NodeFixture node = new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, clock)) {
      node.service.create("/sliding", withExpiry(new Expiry.Ttl(5))).join();
      clock.advance(Duration.ofSeconds(3));
      node.service
          .append(
              "/sliding",
              AppendRequest.of(List.of(NewRecord.of("x".getBytes(StandardCharsets.UTF_8)))))
          .join();

      // Past the deadline the stream was queued with, not past the one its append moved it to.
      clock.advance(Duration.ofSeconds(3));
      node.service.expireDue();
      assertThat(registered(node, "/sliding")).isTrue();
      clock.advance(Duration.ofSeconds(1));
      node.service.expireDue();
      assertThat(registered(node, "/sliding")).isTrue();

      clock.advance(Duration.ofSeconds(1));
      node.service.expireDue();
      assertThat(registered(node, "/sliding")).isFalse();
    }
  }

  private static CreateRequest withExpiry(Expiry expiry) {
    return new CreateRequest(
        Optional.of("text/plain"), Optional.of(expiry), false, List.of(), Optional.empty());
  }

  private static boolean registered(NodeFixture node, String name) {
    return Registry.registeredStreamId(node.plane.state(), name).isPresent();
  }
}
