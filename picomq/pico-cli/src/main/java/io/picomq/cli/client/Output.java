package io.picomq.cli.client;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Standard output as bytes, buffered: record bodies are written exactly as stored (no charset round
 * trip). When the reader goes away ({@code pico read s | head -1}) writes throw {@link ReaderGone},
 * which verbs treat as a normal end.
 */
final class Output implements AutoCloseable {
  private final OutputStream out;

  private Output(OutputStream out) {
    this.out = out;
  }

  /** The process's standard output (not {@code System.out}, which swallows write errors). */
  static Output stdout() {
    return new Output(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
  }

  void write(byte[] bytes) {
    try {
      out.write(bytes);
    } catch (IOException e) {
      throw new ReaderGone(e);
    }
  }

  void write(int b) {
    try {
      out.write(b);
    } catch (IOException e) {
      throw new ReaderGone(e);
    }
  }

  /** Writes {@code text} in UTF-8 and a newline. */
  void line(String text) {
    write(text.getBytes(StandardCharsets.UTF_8));
    write('\n');
  }

  /** The underlying stream, for a JSON generator that writes straight into the buffer. */
  OutputStream stream() {
    return out;
  }

  void flush() {
    try {
      out.flush();
    } catch (IOException e) {
      throw new ReaderGone(e);
    }
  }

  @Override
  public void close() {
    flush();
  }

  /** Standard output was closed by its reader (a broken pipe); nothing more can be shown. */
  static final class ReaderGone extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    ReaderGone(IOException cause) {
      super("standard output was closed", cause);
    }
  }
}
