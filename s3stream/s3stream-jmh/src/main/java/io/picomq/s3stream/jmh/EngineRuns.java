package io.picomq.s3stream.jmh;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.EngineStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Whole engines for the benchmarks that are {@code main}s rather than JMH methods (one long run
 * each, whose result is a count or a ratio, not a rate per call): durable storage by backend name,
 * as the engine's own tests open it ({@link EngineStorage}; on {@code s3} the WAL seals every 5
 * ms), and a writer keeping a window of appends in flight.
 */
final class EngineRuns {

  private EngineRuns() {}

  /** Storage and what to delete afterwards. */
  record Storage(EngineStorage storage, BenchStores.Opened opened, Path directory)
      implements AutoCloseable {
    @Override
    public void close() {
      storage.close();
      if (opened != null) {
        opened.close();
      }
      if (directory != null) {
        BenchStores.deleteTree(directory);
      }
    }
  }

  /**
   * Appends {@code records} one-record batches of {@code payload} (not released) with {@code
   * inFlight} appends outstanding, and waits for the last acknowledgement.
   *
   * @throws IllegalStateException if an append ends other than {@link AppendOutcome.Appended}
   */
  static void appendPipelined(Stream stream, ByteBuf payload, long records, int inFlight)
      throws Exception {
    Deque<CompletableFuture<AppendOutcome>> window = new ArrayDeque<>();
    for (long i = 0; i < records; i++) {
      window.addLast(stream.append(1, payload));
      if (window.size() >= inFlight) {
        check(window.pollFirst().get(60, TimeUnit.SECONDS));
      }
    }
    while (!window.isEmpty()) {
      check(window.pollFirst().get(60, TimeUnit.SECONDS));
    }
  }

  private static void check(AppendOutcome outcome) {
    if (!(outcome instanceof AppendOutcome.Appended)) {
      throw new IllegalStateException("append ended " + outcome);
    }
  }

  static Storage open(String backend) {
    return switch (backend) {
      case "memory" -> new Storage(EngineStorage.memoryStore(), null, null);
      case "file" -> {
        try {
          Path directory = Files.createTempDirectory("picomq-engine-bench");
          yield new Storage(EngineStorage.file(directory), null, directory);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      case "s3" -> {
        BenchStores.Opened opened = BenchStores.open("s3");
        yield new Storage(EngineStorage.s3(opened.store()), opened, null);
      }
      default ->
          throw new IllegalArgumentException("backend must be memory, file or s3: " + backend);
    };
  }
}
