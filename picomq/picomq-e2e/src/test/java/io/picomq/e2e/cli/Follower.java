package io.picomq.e2e.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A running {@code pico tail -f}: its standard output as lines, as they come. Closing it kills the
 * process if it is still running.
 */
final class Follower implements AutoCloseable {
  private final Process process;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Thread reader;

  Follower(Process process) {
    this.process = process;
    this.reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (BufferedReader out =
                      new BufferedReader(
                          new InputStreamReader(
                              process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                      lines.add(line);
                    }
                  } catch (IOException e) {
                    // the process ended
                  }
                });
  }

  /** The next line printed, waiting up to a minute; null if none came. */
  String nextLine() throws InterruptedException {
    return lines.poll(60, TimeUnit.SECONDS);
  }

  /** Waits for the process to end by itself; its exit code. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("pico tail -f did not end");
    }
    reader.join(10_000);
    return process.exitValue();
  }

  /** Lines printed and not taken yet. */
  int pending() {
    return lines.size();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
