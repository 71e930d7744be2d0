package io.picomq.s3stream.conformance;

import java.util.Objects;

/**
 * One golden file: a path relative to {@code s3stream/conformance/fixtures/} and its exact bytes.
 *
 * @param path forward-slash separated, e.g. {@code record/basic.bin}
 * @param bytes the file's content; not copied, so generators must not reuse the array
 */
public record Fixture(String path, byte[] bytes) {
  public Fixture {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(bytes, "bytes");
    if (path.isEmpty() || path.startsWith("/") || path.contains("..") || path.contains("\\")) {
      throw new IllegalArgumentException("fixture path must be relative and plain: " + path);
    }
  }
}
