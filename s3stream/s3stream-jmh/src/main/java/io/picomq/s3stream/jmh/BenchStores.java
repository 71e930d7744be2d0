package io.picomq.s3stream.jmh;

import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.s3.S3ProxyServer;
import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.objectstore.uri.ObjectStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;

/**
 * The object stores a benchmark runs on, by name: {@code memory}, {@code file} (a fresh directory
 * under {@code java.io.tmpdir}) or {@code s3} (a real S3Proxy on loopback, started once per JVM and
 * kept in memory, with a fresh bucket per store; the same server the tests use).
 */
final class BenchStores {

  private static S3ProxyServer server;

  private BenchStores() {}

  /** An opened store and how to dispose of it. */
  record Opened(ObjectStore store, ObjectStorageUri.Scheme scheme, Path directory)
      implements AutoCloseable {
    @Override
    public void close() {
      store.close();
      if (directory != null) {
        deleteTree(directory);
      }
    }
  }

  static Opened open(String backend) {
    return switch (backend) {
      case "memory" -> new Opened(new MemoryObjectStore(), ObjectStorageUri.Scheme.MEMORY, null);
      case "file" -> {
        try {
          Path directory = Files.createTempDirectory("picomq-bench");
          yield new Opened(
              ObjectStores.open(ObjectStorageUri.parse("0@file://" + directory)),
              ObjectStorageUri.Scheme.FILE,
              directory);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      case "s3" -> {
        S3ProxyServer s3 = s3Proxy();
        String bucket = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        s3.createBucket(bucket);
        yield new Opened(
            ObjectStores.open(s3.storageUri(bucket, (short) 0), s3.options()),
            ObjectStorageUri.Scheme.S3,
            null);
      }
      default ->
          throw new IllegalArgumentException("backend must be memory, file or s3: " + backend);
    };
  }

  /** The JVM's S3Proxy, started on first use; it stops with the JVM. */
  static synchronized S3ProxyServer s3Proxy() {
    if (server == null) {
      try {
        server = S3ProxyServer.start();
      } catch (Exception e) {
        throw new IllegalStateException("cannot start S3Proxy", e);
      }
    }
    return server;
  }

  static void deleteTree(Path directory) {
    try (java.util.stream.Stream<Path> files = Files.walk(directory)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // best effort: a temporary directory
    }
  }
}
