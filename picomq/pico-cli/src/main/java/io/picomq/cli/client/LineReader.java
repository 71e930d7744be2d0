package io.picomq.cli.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Splits a byte stream at {@code \n} without decoding it, so records keep their exact bytes (a
 * {@code \r} before the newline stays in the record). A last line without a newline is a line too.
 */
final class LineReader {
  private final InputStream in;
  private final byte[] buffer = new byte[1 << 16];
  private final boolean keepNewline;
  private int position;
  private int limit;
  private boolean ended;

  /**
   * @param keepNewline whether each line keeps its {@code \n} (Durable Streams byte streams, where
   *     records run together)
   */
  LineReader(InputStream in, boolean keepNewline) {
    this.in = in;
    this.keepNewline = keepNewline;
  }

  /** The next line, or empty at the end of the input. */
  Optional<byte[]> next() {
    ByteArrayOutputStream line = null;
    while (true) {
      if (position == limit && !fill()) {
        return line == null ? Optional.empty() : Optional.of(line.toByteArray());
      }
      for (int i = position; i < limit; i++) {
        if (buffer[i] == '\n') {
          int end = keepNewline ? i + 1 : i;
          byte[] bytes;
          if (line == null) {
            bytes = java.util.Arrays.copyOfRange(buffer, position, end);
          } else {
            line.write(buffer, position, end - position);
            bytes = line.toByteArray();
          }
          position = i + 1;
          return Optional.of(bytes);
        }
      }
      if (line == null) {
        line = new ByteArrayOutputStream();
      }
      line.write(buffer, position, limit - position);
      position = limit;
    }
  }

  private boolean fill() {
    if (ended) {
      return false;
    }
    try {
      int read = in.read(buffer);
      if (read < 0) {
        ended = true;
        return false;
      }
      position = 0;
      limit = read;
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read standard input", e);
    }
  }
}
