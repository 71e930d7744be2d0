package io.picomq.frontend.ds;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.picomq.frontend.Frontend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Runs the official Durable Streams conformance suite ({@code
 * @durable-streams/server-conformance-tests}, pinned in {@code src/test/ds-conformance}) and the
 * official-client end-to-end test against this frontend over the in-memory stream service, through
 * npm and vitest, and fails on any failure.
 *
 * <p>It needs Node.js 20 and npm and takes about a minute, so it runs only when asked: {@code
 * -Dpicomq.ds.conformance=true} (see {@code scripts/ds-conformance.sh}).
 */
@EnabledIfSystemProperty(named = "picomq.ds.conformance", matches = "true")
class OfficialConformanceTest {

  /** Tests outside the opt-in "Reserved subscription APIs" group. */
  private static final int CONFORMANCE_TESTS = 332;

  private static final int CLIENT_E2E_TESTS = 5;
  private static final Duration LONG_POLL_TIMEOUT = Duration.ofSeconds(2);
  private static final Path HARNESS = Path.of("src/test/ds-conformance").toAbsolutePath();
  private static final Path REPORT = Path.of("target/ds-conformance-report.json").toAbsolutePath();
  private static final Path LOG = Path.of("target/ds-conformance.log").toAbsolutePath();

  @Test
  void theOfficialSuitePassesCompletely() throws Exception {
    Files.createDirectories(REPORT.getParent());
    Files.deleteIfExists(REPORT);
    run(List.of("npm", "ci", "--no-audit", "--no-fund"), Map.of(), 5);
    try (Frontend frontend = InMemoryDsServer.start(0, LONG_POLL_TIMEOUT)) {
      int exit =
          run(
              List.of("npx", "vitest", "run", "--config", "vitest.config.mjs"),
              Map.of(
                  "DS_BASE_URL", "http://127.0.0.1:" + frontend.address().getPort(),
                  "DS_LONG_POLL_TIMEOUT_MS", Long.toString(LONG_POLL_TIMEOUT.toMillis()),
                  "DS_REPORT", REPORT.toString()),
              5);
      Results results = Results.read(REPORT);
      System.out.println(results.summary());
      assertThat(results.failed()).as("failed tests (log: %s)", LOG).isEmpty();
      assertThat(exit).as("vitest exit status (log: %s)", LOG).isZero();
      assertThat(results.passed("conformance.test.mjs")).isEqualTo(CONFORMANCE_TESTS);
      assertThat(results.passed("client-e2e.test.mjs")).isEqualTo(CLIENT_E2E_TESTS);
    }
  }

  private static int run(List<String> command, Map<String, String> env, int minutes)
      throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(HARNESS.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(LOG.toFile()));
    builder.environment().putAll(env);
    builder.environment().put("NO_COLOR", "1");
    Process process = builder.start();
    if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(
          command + " did not finish in " + minutes + " min (log: " + LOG + ")");
    }
    return process.exitValue();
  }

  /** Vitest's JSON report, by test file. */
  private record Results(
      Map<String, Integer> passedByFile, Map<String, Integer> skippedByFile, List<String> failed) {

    static Results read(Path report) throws IOException {
      JsonNode root = new ObjectMapper().readTree(report.toFile());
      Map<String, Integer> passed = new TreeMap<>();
      Map<String, Integer> skipped = new TreeMap<>();
      List<String> failed = new ArrayList<>();
      for (JsonNode file : root.path("testResults")) {
        String name = Path.of(file.path("name").asText()).getFileName().toString();
        for (JsonNode test : file.path("assertionResults")) {
          switch (test.path("status").asText()) {
            case "passed" -> passed.merge(name, 1, Integer::sum);
            case "failed" -> failed.add(name + ": " + test.path("fullName").asText());
            default -> skipped.merge(name, 1, Integer::sum);
          }
        }
      }
      return new Results(passed, skipped, failed);
    }

    int passed(String file) {
      return passedByFile.getOrDefault(file, 0);
    }

    String summary() {
      return "Durable Streams conformance: passed "
          + passedByFile
          + ", failed "
          + failed.size()
          + ", skipped "
          + skippedByFile
          + " (skipped = the opt-in Reserved subscription APIs group)";
    }
  }
}
