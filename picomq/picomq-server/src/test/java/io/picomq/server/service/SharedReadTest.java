package io.picomq.server.service;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.AppendRequest;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.NewRecord;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamService;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads at the tail share the last read's records; whatever the mix of positions, caps, appends,
 * trims and threads (virtual or not), every read answers what the stream holds.
 */
class SharedReadTest {
  @TempDir Path dir;

  @Test
  void sharedReadsAnswerLikeFreshOnes() throws Exception {
    try (NodeFixture node =
            new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, Clock.systemUTC());
        var virtual = Executors.newVirtualThreadPerTaskExecutor()) {
      StreamService service = node.service;
      service.create("/s", CreateRequest.of("text/plain")).join();
      for (int i = 0; i < 3; i++) {
        service.append("/s", AppendRequest.of(List.of(record("r" + i)))).join();
      }
      assertThat(bodies(virtual, service, 2, 10)).containsExactly("r2");
      assertThat(bodies(virtual, service, 2, 10)).containsExactly("r2");
      assertThat(bodies(virtual, service, 1, 1)).containsExactly("r1");
      assertThat(bodies(virtual, service, 1, 10)).containsExactly("r1", "r2");
      service.append("/s", AppendRequest.of(List.of(record("r3")))).join();
      assertThat(bodies(virtual, service, 2, 10)).containsExactly("r2", "r3");
      service.trim("/s", 2).join();
      assertThat(read(virtual, service, 1, 10)).isEqualTo(new ReadOutcome.Trimmed(2));
      assertThat(bodies(virtual, service, 2, 10)).containsExactly("r2", "r3");
      // The same from a platform thread (the read hops to the service's executor).
      assertThat(
              ((ReadOutcome.Batch) service.read("/s", new ReadWindow(3, 10, 1 << 20)).join())
                  .records())
          .extracting(r -> new String(r.body(), UTF_8))
          .containsExactly("r3");
    }
  }

  private static ReadOutcome read(
      ExecutorService virtual, StreamService service, long from, int max) throws Exception {
    Callable<ReadOutcome> call =
        () -> service.read("/s", new ReadWindow(from, max, 1 << 20)).join();
    return virtual.submit(call).get();
  }

  private static List<String> bodies(
      ExecutorService virtual, StreamService service, long from, int max) throws Exception {
    return ((ReadOutcome.Batch) read(virtual, service, from, max))
        .records().stream().map(r -> new String(r.body(), UTF_8)).toList();
  }

  private static NewRecord record(String body) {
    return NewRecord.of(body.getBytes(UTF_8));
  }
}
