package io.picomq.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The lease holder's round: expired preparations are reclaimed, destroyed bytes go first. */
class MaintenanceTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void aRoundReclaimsExpiredIdsAndCollectsDestroyedObjectsInTwoPhases() throws Exception {
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    try (MetadataPlane plane =
        MetadataPlane.open("sqlite::memory:", new NodeIdentity(1, 1, "http://one", 1), clock)) {
      plane.start();
      PlaneObjectManager objects = new PlaneObjectManager(plane, clock);
      long expired = objects.prepareObjects(1, Duration.ofMillis(-1)).join();
      long live = objects.prepareObjects(1, Duration.ofMinutes(10)).join();

      List<List<Long>> deleted = new ArrayList<>();
      ObjectBytesDeleter deleter =
          ids -> {
            // Phase one runs while the ids are still queued: the catalog changes only after.
            assertThat(plane.state().destructionQueue()).containsAll(ids);
            deleted.add(List.copyOf(ids));
            return CompletableFuture.completedFuture(null);
          };
      Maintenance maintenance = new Maintenance(plane, Optional.of(deleter), clock, Duration.ZERO);
      maintenance.runRound();

      assertThat(plane.state().preparedObjects()).containsOnlyKeys(live);
      // An expired preparation's id may hold bytes of an upload that never committed.
      assertThat(deleted).hasSize(1);
      assertThat(deleted.getFirst()).contains(expired);
      assertThat(plane.state().destructionQueue()).isEmpty();

      maintenance.runRound(); // nothing left: no proposals, no deletes
      assertThat(deleted).hasSize(1);
    }
  }
}
