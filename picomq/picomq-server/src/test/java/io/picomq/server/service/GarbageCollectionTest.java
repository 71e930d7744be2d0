package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.file.FileObjectStore;
import io.picomq.server.metadata.Maintenance;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.NewRecord;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting a stream frees its storage: the lease holder's maintenance deletes the objects' bytes
 * from the real file:// store and then empties the destruction queue.
 */
class GarbageCollectionTest {
  private static final ObjectNamespace NAMESPACE =
      new ObjectNamespace(EngineConfig.DEFAULT_NAMESPACE);

  @TempDir Path dir;

  @Test
  void deletingAStreamRemovesItsObjectsFromStorageAndDrainsTheBacklog() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    try (NodeFixture first = new NodeFixture(metaUrl, dir, 1, Clock.systemUTC())) {
      first.service.create("/gc", CreateRequest.of("text/plain")).join();
      for (int i = 0; i < 20; i++) {
        AppendVerdict outcome =
            first
                .service
                .append("/gc", AppendRequest.of(List.of(NewRecord.of(("r" + i).getBytes(UTF_8)))))
                .join();
        assertThat(outcome).isInstanceOf(AppendVerdict.Accepted.class);
      }
    } // a clean stop uploads and commits everything: the records now live in data objects

    try (NodeFixture node = new NodeFixture(metaUrl, dir, 2, Clock.systemUTC());
        FileObjectStore store = FileObjectStore.open(dir.resolve("objects"), 1);
        Maintenance maintenance =
            new Maintenance(
                node.plane,
                Optional.of(node.engine::deleteObjects),
                Clock.systemUTC(),
                Duration.ofMillis(50))) {
      List<Long> catalogued = List.copyOf(node.plane.state().catalog().objects().keySet());
      assertThat(catalogued).isNotEmpty();
      assertThat(storedObjectIds(store)).containsAll(catalogued);

      assertThat(node.service.delete("/gc").join()).isInstanceOf(DeleteOutcome.Deleted.class);
      assertThat(node.plane.state().destructionQueue()).containsAll(catalogued);

      maintenance.start();
      await("the deleted stream's objects collected")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  node.plane.state().destructionQueue().isEmpty()
                      && storedObjectIds(store).stream().noneMatch(catalogued::contains));
      assertThat(node.plane.state().destructionQueue()).isEmpty();
      assertThat(storedObjectIds(store)).doesNotContainAnyElementsOf(catalogued);
      assertThat(node.plane.state().catalog().objects().keySet())
          .doesNotContainAnyElementsOf(catalogued);
    }
  }

  private static List<Long> storedObjectIds(FileObjectStore store) {
    List<Long> ids = new ArrayList<>();
    for (ObjectInfo info : store.list("").join()) {
      NAMESPACE.parseObjectId(info.key()).ifPresent(ids::add);
    }
    return ids;
  }
}
