package io.picomq.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release as a user gets it: {@code bin/dist} makes the tarball (from the jar this build made),
 * it is unpacked into a temp dir, and the quick start runs from there with a {@code PATH} that
 * holds nothing at all (so neither {@code java} nor {@code mvn}): {@code pico serve} on its
 * embedded defaults, then the client verbs create, append and read through the same launcher.
 */
class DistTest {
  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theTarballRunsTheQuickStartWithNothingOnPath() throws Exception {
    Path tarball = dist();
    assertThat(tarball.getFileName().toString()).matches("picomq-.+-linux-x64\\.tar\\.gz");
    Path unpacked = dir.resolve("unpacked");
    Files.createDirectories(unpacked);
    run(List.of("tar", "-xzf", tarball.toString(), "-C", unpacked.toString()), dir, false);
    Path home;
    try (var entries = Files.list(unpacked)) {
      home = entries.findFirst().orElseThrow();
    }
    Path pico = home.resolve("bin/pico");
    assertThat(home.resolve("runtime/bin/java")).isExecutable();
    assertThat(home.resolve("deploy/systemd/picomq.service")).isRegularFile();

    Path work = dir.resolve("work");
    Files.createDirectories(work);
    int port = freePort();
    int admin = freePort();
    ProcessBuilder serve =
        bare(
            List.of(
                pico.toString(),
                "serve",
                "--listen",
                "127.0.0.1:" + port,
                "--admin-listen",
                "127.0.0.1:" + admin),
            work);
    serve.redirectErrorStream(true).redirectOutput(work.resolve("serve.log").toFile());
    Process server = serve.start();
    try {
      awaitReady(admin, server, work.resolve("serve.log"));
      String endpoint = "http://127.0.0.1:" + port;
      run(List.of(pico.toString(), "--endpoint", endpoint, "create", "/hello"), work, true);
      Path input = work.resolve("records.txt");
      Files.writeString(input, "hi there\nsecond record\n");
      Process appending =
          bare(List.of(pico.toString(), "--endpoint", endpoint, "append", "/hello"), work)
              .redirectInput(input.toFile())
              .redirectErrorStream(true)
              .start();
      String appended =
          new String(appending.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(appending.waitFor()).as("pico append: %s", appended).isZero();
      String read =
          run(List.of(pico.toString(), "--endpoint", endpoint, "read", "/hello"), work, true);
      assertThat(read).contains("hi there", "second record");
      // The embedded default: SQLite and file:// under ./data of the working directory.
      assertThat(work.resolve("data")).isDirectory();
    } finally {
      server.destroy();
      assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Runs {@code bin/dist --skip-build}: the jar is the one this build just made. */
  private static Path dist() throws Exception {
    Path root = ServerProcess.root();
    String out = run(List.of(root.resolve("bin/dist").toString(), "--skip-build"), root, false);
    List<String> lines = out.lines().toList();
    return root.resolve(lines.get(lines.size() - 1).trim());
  }

  /** A process with an empty environment but HOME, and a PATH with nothing on it. */
  private static ProcessBuilder bare(List<String> command, Path workDir) {
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", workDir.resolve("no-such-dir").toString());
    builder.environment().put("HOME", workDir.toString());
    return builder;
  }

  /** Runs a command to its end; its output (stdout and stderr); fails on a non-zero exit. */
  private static String run(List<String> command, Path workDir, boolean bareEnvironment)
      throws IOException, InterruptedException {
    ProcessBuilder builder =
        bareEnvironment
            ? bare(command, workDir)
            : new ProcessBuilder(command).directory(workDir.toFile());
    Path log = Files.createTempFile("pico-dist-run", ".log");
    Process process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("%s ends", command).isTrue();
    String output = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    assertThat(process.exitValue()).as("%s exit code; output:%n%s", command, output).isZero();
    return output;
  }

  private void awaitReady(int admin, Process server, Path log) {
    URI ready = URI.create("http://127.0.0.1:" + admin + "/ready");
    Awaitility.await("the unpacked server answers /ready")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsInstanceOf(IOException.class) // not listening yet
        .until(
            () -> {
              assertThat(server.isAlive())
                  .as("the server runs; its log:%n%s", Files.readString(log))
                  .isTrue();
              return http.send(
                          HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
            });
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
