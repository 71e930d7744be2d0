package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.sql.backend.BackendOptions;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a restart, loading a name is per name ({@link LoadedStreams}): a load that stalls (here:
 * opening its engine stream is held) holds up only the callers of that name, and concurrent first
 * touches of one name share one load.
 */
class PerNameLoadingTest {
  private static final ReadWindow FROM_START = new ReadWindow(0, 100, 1 << 20);

  @TempDir Path dir;

  @Test
  void aStalledLoadHoldsUpOnlyItsOwnName() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    createWithRecord(metaUrl, "/slow", "/fast");
    HeldOpens[] engine = new HeldOpens[1];
    try (NodeFixture node = restarted(metaUrl, engine)) {
      long slowId = Registry.registeredStreamId(node.plane.state(), "/slow").getAsLong();
      engine[0].hold(id -> id == slowId);
      CompletableFuture<ReadOutcome> slow = node.service.read("/slow", FROM_START);
      assertThat(engine[0].reached.get(10, TimeUnit.SECONDS)).isEqualTo(slowId);

      // Behind one node-wide loading lock this would wait for /slow's load.
      ReadOutcome fast = node.service.read("/fast", FROM_START).get(10, TimeUnit.SECONDS);
      assertThat(bodies(fast)).containsExactly("record of /fast");
      assertThat(slow).isNotDone();

      engine[0].release();
      assertThat(bodies(slow.get(10, TimeUnit.SECONDS))).containsExactly("record of /slow");
    }
  }

  @Test
  void concurrentFirstTouchesOfOneNameShareOneLoad() throws Exception {
    String metaUrl = "sqlite:" + dir.resolve("meta.db");
    createWithRecord(metaUrl, "/shared");
    HeldOpens[] engine = new HeldOpens[1];
    try (NodeFixture node = restarted(metaUrl, engine)) {
      long id = Registry.registeredStreamId(node.plane.state(), "/shared").getAsLong();
      engine[0].hold(streamId -> streamId == id);
      List<CompletableFuture<ReadOutcome>> reads = new ArrayList<>();
      reads.add(node.service.read("/shared", FROM_START));
      engine[0].reached.get(10, TimeUnit.SECONDS);
      for (int i = 0; i < 15; i++) {
        reads.add(node.service.read("/shared", FROM_START));
      }
      CompletableFuture<HeadOutcome> head = node.service.head("/shared");
      engine[0].release();
      for (CompletableFuture<ReadOutcome> read : reads) {
        assertThat(bodies(read.get(10, TimeUnit.SECONDS))).containsExactly("record of /shared");
      }
      assertThat(head.get(10, TimeUnit.SECONDS)).isInstanceOf(HeadOutcome.Found.class);
      assertThat(engine[0].opensOf(id)).isEqualTo(1);
    }
  }

  private void createWithRecord(String metaUrl, String... names) throws Exception {
    try (NodeFixture first = new NodeFixture(metaUrl, dir, 1, Clock.systemUTC())) {
      for (String name : names) {
        CreateRequest request =
            new CreateRequest(
                Optional.of("text/plain"),
                Optional.empty(),
                false,
                List.of(NewRecord.of(("record of " + name).getBytes(UTF_8))),
                Optional.empty());
        first.service.create(name, request).join();
      }
    }
  }

  /** A second incarnation of the node on the same data, its engine wrapped in {@code engine[0]}. */
  private NodeFixture restarted(String metaUrl, HeldOpens[] engine) throws Exception {
    return new NodeFixture(
        metaUrl,
        BackendOptions.defaults(),
        dir,
        2,
        Clock.systemUTC(),
        entries -> entries,
        real -> engine[0] = new HeldOpens(real));
  }

  private static List<String> bodies(ReadOutcome outcome) {
    return ((ReadOutcome.Batch) outcome)
        .records().stream().map(record -> new String(record.body(), UTF_8)).toList();
  }
}
