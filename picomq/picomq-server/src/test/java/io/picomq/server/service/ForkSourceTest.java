package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.ForkPoint;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fork's source cannot end while the fork is being built ({@link Forks}, {@link NameLocks}): a
 * delete that arrives meanwhile waits, then sees the fork and soft-deletes the source, so the fork
 * keeps reading the source's records. Other names are not held up by the fork.
 */
class ForkSourceTest {
  @TempDir Path dir;

  @Test
  void aDeleteOfTheSourceDuringAForkWaitsAndKeepsTheRecords() throws Exception {
    HeldOpens[] engine = new HeldOpens[1];
    try (NodeFixture node =
        new NodeFixture(
            "sqlite:" + dir.resolve("meta.db"),
            BackendOptions.defaults(),
            dir,
            1,
            Clock.systemUTC(),
            entries -> entries,
            real -> engine[0] = new HeldOpens(real))) {
      node.service.create("/src", CreateRequest.of("text/plain")).join();
      node.service.append("/src", AppendRequest.of(List.of(record("a"), record("b")))).join();
      long sourceId = Registry.registeredStreamId(node.plane.state(), "/src").getAsLong();
      // Holds the fork's own new engine stream: the fork is half built, its source checked.
      engine[0].hold(id -> id > sourceId);
      CompletableFuture<CreateOutcome> fork = node.service.create("/fork", forkOf("/src"));
      engine[0].reached.get(10, TimeUnit.SECONDS);

      CompletableFuture<DeleteOutcome> delete = node.service.delete("/src");
      // Another name is not held up: neither its create, nor its delete.
      assertThat(
              node.service
                  .create("/other", CreateRequest.of("text/plain"))
                  .get(10, TimeUnit.SECONDS))
          .isInstanceOf(CreateOutcome.Created.class);
      assertThat(node.service.delete("/other").get(10, TimeUnit.SECONDS))
          .isEqualTo(new DeleteOutcome.Deleted(false));
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !delete.isDone());

      engine[0].release();
      assertThat(fork.get(10, TimeUnit.SECONDS)).isInstanceOf(CreateOutcome.Created.class);
      assertThat(delete.get(10, TimeUnit.SECONDS)).isEqualTo(new DeleteOutcome.Deleted(true));
      assertThat(node.service.head("/src").join()).isInstanceOf(HeadOutcome.Gone.class);
      ReadOutcome.Batch read =
          (ReadOutcome.Batch) node.service.read("/fork", new ReadWindow(0, 10, 1 << 20)).join();
      assertThat(read.records())
          .extracting(r -> new String(r.body(), UTF_8))
          .containsExactly("a", "b");

      // The fork was the source's last: deleting it removes the soft-deleted source for good.
      assertThat(node.service.delete("/fork").join()).isEqualTo(new DeleteOutcome.Deleted(false));
      assertThat(Registry.registeredStreamId(node.plane.state(), "/src")).isEmpty();
      assertThat(node.service.head("/src").join()).isInstanceOf(HeadOutcome.NotFound.class);
    }
  }

  private static CreateRequest forkOf(String source) {
    return new CreateRequest(
        Optional.empty(),
        Optional.empty(),
        false,
        List.of(),
        Optional.of(ForkPoint.atTail(source)));
  }

  private static NewRecord record(String body) {
    return NewRecord.of(body.getBytes(UTF_8));
  }
}
