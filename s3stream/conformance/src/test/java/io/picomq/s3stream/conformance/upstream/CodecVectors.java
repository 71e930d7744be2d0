package io.picomq.s3stream.conformance.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Reads the upstream golden vectors for the codec and WAL-object cross-checks from where they live
 * ({@code ../shared/conformance/upstream}), never from a copy.
 */
final class CodecVectors {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Every folder the upstream publishes, each cross-checked by a test here. A folder added or
   * removed upstream fails {@link UpstreamFoldersTest} until a test reads it.
   */
  static final Set<String> FOLDERS =
      Set.of(
          "compaction",
          "crc",
          "keys",
          "object",
          "range_index",
          "record",
          "wal_object",
          "wal_objects",
          "wal_record");

  /**
   * Where the tests note which upstream folders they read. {@code bin/test} checks it after Maven:
   * when the vectors exist, a run that skipped the cross-check fails instead of passing quietly.
   */
  static final Path MARKER = Path.of("target", "upstream-cross-check.txt");

  private static final Set<String> READ = new TreeSet<>();

  private CodecVectors() {}

  /**
   * The upstream folder {@code name}. If the upstream vectors are absent altogether the calling
   * test is skipped with a message; if they are present, a missing folder fails the test.
   */
  static Path folder(String name) {
    if (!FOLDERS.contains(name)) {
      throw new IllegalArgumentException("not an upstream folder: " + name);
    }
    Path root = requiredRoot();
    Path folder = root.resolve(name);
    if (!Files.isDirectory(folder)) {
      throw new AssertionError("upstream vectors present but folder missing: " + folder);
    }
    noteRead(root, name);
    return folder;
  }

  /**
   * The upstream root, or a skip of the calling test (with a message) when the vectors are absent.
   */
  static Path requiredRoot() {
    Path root = root();
    Assumptions.assumeTrue(
        Files.isDirectory(root),
        "upstream golden vectors not found at "
            + root
            + " (set -Dpicomq.upstream.conformance); skipping the upstream cross-check");
    return root;
  }

  /** Rewrites {@link #MARKER}: the real path of the root, then every folder read so far. */
  private static synchronized void noteRead(Path root, String name) {
    READ.add(name);
    try {
      Files.createDirectories(MARKER.getParent());
      List<String> lines = new ArrayList<>();
      lines.add("root " + root.toRealPath());
      READ.forEach(folder -> lines.add("read " + folder));
      Files.write(MARKER, lines);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + MARKER, e);
    }
  }

  static JsonNode json(Path file) {
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Names of the subfolders of {@code root}, sorted. */
  static List<String> folders(Path root) {
    try (Stream<Path> entries = Files.list(root)) {
      return entries
          .filter(Files::isDirectory)
          .map(f -> f.getFileName().toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + root, e);
    }
  }

  /** Names of the files in {@code folder} ending with {@code suffix}, sorted. */
  static List<String> files(Path folder, String suffix) {
    try (Stream<Path> files = Files.list(folder)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(suffix))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + folder, e);
    }
  }

  static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** The readable bytes of {@code buf}, which is then released. */
  static byte[] drain(ByteBuf buf) {
    try {
      byte[] out = new byte[buf.readableBytes()];
      buf.getBytes(buf.readerIndex(), out);
      return out;
    } finally {
      buf.release();
    }
  }

  private static Path root() {
    String explicit = System.getProperty("picomq.upstream.conformance");
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    String projectRoot = System.getProperty("picomq.root", "../..");
    return Path.of(projectRoot).resolve("../shared/conformance/upstream").normalize();
  }
}
