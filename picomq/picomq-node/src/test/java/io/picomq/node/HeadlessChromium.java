package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the scripts of {@code src/test/dashboard} (playwright-core driving Debian's {@code
 * chromium}, headless) for tests that need a real browser; such a test is skipped, saying so, where
 * Chromium or npm is missing.
 */
final class HeadlessChromium {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path SCRIPTS = Path.of("src/test/dashboard").toAbsolutePath();

  private HeadlessChromium() {}

  /** Skips the calling test unless Chromium, node and npm are there. */
  static void require(String test) {
    boolean chromium = Files.isExecutable(CHROMIUM);
    boolean npm = onPath("npm") && onPath("node");
    String why =
        "SKIPPED "
            + test
            + ": "
            + (chromium ? "" : CHROMIUM + " is missing (apt-get install -y chromium) ")
            + (npm ? "" : "node/npm are missing");
    if (!chromium || !npm) {
      System.err.println("WARNING: " + why);
    }
    assumeTrue(chromium && npm, why);
  }

  /**
   * Runs {@code node script args...} (installing playwright-core first if needed) and returns the
   * last line it printed, as JSON; fails the test if it does not exit 0 within a minute.
   *
   * @param dir where its stderr is kept
   */
  static JsonNode run(Path dir, String script, String... args)
      throws IOException, InterruptedException {
    if (!Files.isDirectory(SCRIPTS.resolve("node_modules/playwright-core"))) {
      run(dir, List.of("npm", "ci", "--no-audit", "--no-fund"), 180);
    }
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(List.of(args));
    String out = run(dir, command, 60);
    return new ObjectMapper().readTree(out.strip().lines().reduce((a, b) -> b).orElse("{}"));
  }

  private static String run(Path dir, List<String> command, int timeoutSeconds)
      throws IOException, InterruptedException {
    Path log = dir.resolve("script.err");
    Process process =
        new ProcessBuilder(command).directory(SCRIPTS.toFile()).redirectError(log.toFile()).start();
    byte[] out = process.getInputStream().readAllBytes();
    boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly();
    }
    String err = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(exited && process.exitValue() == 0).as("%s failed:%n%s", command, err).isTrue();
    return new String(out, StandardCharsets.UTF_8);
  }

  private static boolean onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String entry : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(entry, command))) {
        return true;
      }
    }
    return false;
  }
}
