package io.picomq.s3stream.jmh;

import io.picomq.s3stream.core.testing.EngineStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whole engines for the benchmarks that are {@code main}s rather than JMH methods (one long run
 * each, whose result is a count or a ratio, not a rate per call): durable storage by backend name,
 * as the engine's own tests open it ({@link EngineStorage}; on {@code s3} the WAL seals every 5
 * ms).
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
