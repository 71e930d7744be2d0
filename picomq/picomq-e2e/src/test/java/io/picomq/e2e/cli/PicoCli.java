package io.picomq.e2e.cli;

import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code bin/pico} as a user does: a real process, its standard input fed and its standard
 * output and error collected apart. Every run gets a private profiles file ({@code PICO_CONFIG})
 * and no {@code PICO_*} variable from the developer's shell.
 */
final class PicoCli {
  private final Path configFile;
  private final Map<String, String> env = new HashMap<>();

  /**
   * @param configFile the profiles file every run uses (need not exist)
   */
  PicoCli(Path configFile) {
    this.configFile = configFile;
  }

  /** A copy of this runner with one more environment variable for every run. */
  PicoCli withEnv(String name, String value) {
    PicoCli copy = new PicoCli(configFile);
    copy.env.putAll(env);
    copy.env.put(name, value);
    return copy;
  }

  /** What a finished run left behind. */
  record Result(int exitCode, byte[] stdout, String stderr) {
    String out() {
      return new String(stdout, StandardCharsets.UTF_8);
    }

    /** The non-empty lines of standard error. */
    List<String> errLines() {
      return stderr.lines().filter(line -> !line.isBlank()).toList();
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout: " + out() + "\nstderr: " + stderr;
    }
  }

  Result run(String... args) {
    return run(new byte[0], args);
  }

  /** Runs {@code pico args...} with {@code stdin} as its standard input, and waits for it. */
  Result run(byte[] stdin, String... args) {
    Process process = start(args);
    CompletableFuture<byte[]> out = drain(process.getInputStream());
    CompletableFuture<byte[]> err = drain(process.getErrorStream());
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin);
    } catch (IOException e) {
      // the command exited without reading all its input; its output says why
    }
    try {
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("pico " + String.join(" ", args) + " did not finish in 120 s");
      }
      return new Result(
          process.exitValue(),
          out.get(10, TimeUnit.SECONDS),
          new String(err.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError("pico " + String.join(" ", args), e);
    }
  }

  /** Starts {@code pico args...} and leaves it running (e.g. {@code tail -f}). */
  Process start(String... args) {
    ProcessBuilder builder = ServerProcess.launcher(List.of(args));
    builder.environment().put("PICO_CONFIG", configFile.toString());
    builder.environment().putAll(env);
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Arguments with {@code --endpoint URL} in front. */
  static String[] at(java.net.URI endpoint, String... args) {
    List<String> all = new ArrayList<>(List.of("--endpoint", endpoint.toString()));
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  private static CompletableFuture<byte[]> drain(InputStream stream) {
    CompletableFuture<byte[]> bytes = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try (stream) {
                bytes.complete(stream.readAllBytes());
              } catch (IOException e) {
                bytes.completeExceptionally(e);
              }
            });
    return bytes;
  }
}
