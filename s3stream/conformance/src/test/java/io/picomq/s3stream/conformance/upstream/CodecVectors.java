package io.picomq.s3stream.conformance.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Reads the upstream golden vectors for the codec and WAL-object cross-checks from where they live
 * ({@code ../shared/conformance/upstream}), never from a copy.
 */
final class CodecVectors {

  private static final ObjectMapper JSON = new ObjectMapper();

  private CodecVectors() {}

  /**
   * The upstream folder {@code name}. If the upstream vectors are absent altogether the calling
   * test is skipped with a message; if they are present, a missing folder fails the test.
   */
  static Path folder(String name) {
    Path root = root();
    Assumptions.assumeTrue(
        Files.isDirectory(root),
        "upstream golden vectors not found at "
            + root
            + " (set -Dpicomq.upstream.conformance); skipping the upstream cross-check");
    Path folder = root.resolve(name);
    if (!Files.isDirectory(folder)) {
      throw new AssertionError("upstream vectors present but folder missing: " + folder);
    }
    return folder;
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
