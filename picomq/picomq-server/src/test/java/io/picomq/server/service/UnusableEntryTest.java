package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.Expiry;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ListQuery;
import io.picomq.stream.NewRecord;
import io.picomq.stream.StreamDescription;
import io.picomq.stream.StreamUnusableException;
import io.picomq.stream.testing.MutableClock;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding F1 of issue 11 at the service's depth: whatever the registry holds, a node starts, lists
 * and deletes. An entry that cannot be used is reported and answers {@link
 * StreamUnusableException}; a TTL no frontend accepts any more (an older node stored any up to
 * 10^18 seconds) is usable: its deadline saturates and it never expires.
 */
class UnusableEntryTest {
  private static final long HUGE_TTL = 999_999_999_999_999_999L;

  @TempDir Path dir;

  @Test
  void aNodeStartsListsAndDeletesWhateverItsRegistryHolds() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (NodeFixture first = new NodeFixture(metaUrl, dir, 1, clock)) {
      first.service.create("/good", withExpiry(new Expiry.Ttl(60))).join();
      first.service.create("/huge-ttl", withExpiry(new Expiry.Ttl(HUGE_TTL))).join();
      first.service.create("/far", withExpiry(new Expiry.At(Instant.MAX))).join();
      put(first, "/garbage", new byte[] {2, 0, 0, 1});
      put(first, "/version", new byte[] {77});
      put(first, "/no-segment", entry(List.of(), Expiry.NEVER).encode());
      put(first, "/instant-out-of-range", instantOutOfRange());
      put(first, "/lying-count", lyingSegmentCount());
    }

    try (NodeFixture second = new NodeFixture(metaUrl, dir, 2, clock)) {
      second.service.loadExpiring(); // what Node.start calls: must not throw
      second.service.expireDue();

      assertThat(listedNames(second))
          .containsExactly("/far", "/good", "/huge-ttl")
          .as("unusable entries are left out of the listing, not failing it");

      for (String bad :
          List.of("/garbage", "/version", "/no-segment", "/instant-out-of-range", "/lying-count")) {
        assertThat(Registry.unusableReason(second.plane.state(), bad))
            .as(bad)
            .hasValueSatisfying(reason -> assertThat(reason).startsWith("damaged registry entry"));
        assertThat(Registry.registeredStreamId(second.plane.state(), bad)).isEmpty();
        assertThatThrownBy(() -> second.service.head(bad).join())
            .as(bad)
            .isInstanceOf(CompletionException.class)
            .hasCauseInstanceOf(StreamUnusableException.class);
        assertThatThrownBy(
                () ->
                    second
                        .service
                        .append(bad, AppendRequest.of(List.of(NewRecord.of(new byte[] {1}))))
                        .join())
            .hasCauseInstanceOf(StreamUnusableException.class);

        assertThat(second.service.delete(bad).join()).isEqualTo(new DeleteOutcome.Deleted(false));
        assertThat(second.plane.state().kvValue(Registry.key(bad))).as(bad).isEmpty();
        assertThat(second.service.head(bad).join()).isInstanceOf(HeadOutcome.NotFound.class);
      }

      HeadOutcome huge = second.service.head("/huge-ttl").join();
      assertThat(huge).isInstanceOf(HeadOutcome.Found.class);
      assertThat(((HeadOutcome.Found) huge).stream().expiresAt())
          .hasValue(Instant.ofEpochMilli(Long.MAX_VALUE));
      assertThat(
              second
                  .service
                  .append("/huge-ttl", AppendRequest.of(List.of(NewRecord.of("x".getBytes(UTF_8)))))
                  .join())
          .isInstanceOf(AppendVerdict.Accepted.class);
      clock.advance(Duration.ofDays(365L * 1000));
      second.service.expireDue();
      assertThat(listedNames(second)).containsExactly("/far", "/huge-ttl");
      assertThat(second.service.delete("/huge-ttl").join())
          .isInstanceOf(DeleteOutcome.Deleted.class);
    }
  }

  @Test
  void aTtlDeadlineSaturatesInsteadOfOverflowing() {
    assertThat(Expirations.plusSecondsSaturated(1_000, 2)).isEqualTo(3_000);
    assertThat(Expirations.plusSecondsSaturated(1_000, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(Expirations.plusSecondsSaturated(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(Expirations.plusSecondsSaturated(-5_000, Long.MAX_VALUE / 1000))
        .isEqualTo(-5_000 + Long.MAX_VALUE / 1000 * 1000);
    assertThat(Expirations.expiresAt(new Expiry.Ttl(31_556_889_864_403_199L), 1_767_225_600_000L))
        .hasValue(Instant.ofEpochMilli(Long.MAX_VALUE));
  }

  private static List<String> listedNames(NodeFixture node) {
    return node.service.list(new ListQuery("", Optional.empty(), 100)).join().streams().stream()
        .map(StreamDescription::name)
        .toList();
  }

  private static void put(NodeFixture node, String name, byte[] bytes) {
    node.plane.proposeAccepted(new Command.KvPut(Registry.key(name), KvValue.of(bytes))).join();
  }

  private static Registration entry(List<Segment> segments, Expiry expiry) {
    return new Registration(
        42,
        "text/plain",
        expiry,
        0,
        false,
        false,
        0,
        0,
        Optional.empty(),
        segments,
        Optional.empty(),
        Map.of(),
        0);
  }

  /** A well-formed entry whose fixed expiry's epoch second lies past what an Instant holds. */
  private static byte[] instantOutOfRange() {
    byte[] bytes =
        entry(List.of(new Segment(42, 0, Segment.OPEN_END, 0)), new Expiry.At(Instant.EPOCH))
            .encode();
    // version (1), stream id (8), content type (2 + 10), expiry kind (1): the epoch second.
    ByteBuffer.wrap(bytes).putLong(1 + 8 + 2 + "text/plain".length() + 1, Long.MAX_VALUE);
    return bytes;
  }

  /** An entry claiming two billion segments in the bytes of one. */
  private static byte[] lyingSegmentCount() {
    byte[] bytes = entry(List.of(new Segment(42, 0, Segment.OPEN_END, 0)), Expiry.NEVER).encode();
    // version, stream id, content type, expiry kind, activity, closed, soft, startSeq, forkRefs,
    // fork flag: then the segment count.
    int at = 1 + 8 + 2 + "text/plain".length() + 1 + 8 + 1 + 1 + 8 + 4 + 1;
    ByteBuffer.wrap(bytes).putInt(at, Integer.MAX_VALUE);
    return bytes;
  }

  private static CreateRequest withExpiry(Expiry expiry) {
    return new CreateRequest(
        Optional.of("text/plain"), Optional.of(expiry), false, List.of(), Optional.empty());
  }
}
