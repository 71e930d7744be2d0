package io.picomq.e2e.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that would listen beyond loopback with access control off refuses to start, in one line,
 * unless {@code --insecure} is given; with access control on it needs a root token or a stored one.
 */
class ExposureRuleTest {

  @TempDir Path dir;

  @Test
  void aNodeOnEveryInterfaceWithoutAccessControlRefusesInOneLine() throws Exception {
    Refusal refusal = refusal(List.of("serve", "--listen", "0.0.0.0:0", "--no-admin"), Map.of());

    assertThat(refusal.exit()).isNotZero();
    assertThat(refusal.lines())
        .singleElement()
        .asString()
        .startsWith(
            "pico: cannot start: the data listener (0.0.0.0:0) would listen beyond loopback")
        .contains("--access-control")
        .contains("--insecure");
  }

  @Test
  void withInsecureItStarts() {
    try (ServerProcess node =
        ServerProcess.startWrapped(
            dir.resolve("insecure"),
            Map.of(),
            List.of(),
            "0.0.0.0",
            List.of(),
            List.of("--insecure"))) {
      // The wildcard address prints as 0:0:0:0:0:0:0:0, no URL to probe: serving is what counts.
      assertThat(node.isAlive()).isTrue();
      assertThat(node.output()).anyMatch(line -> line.contains("serving pico on http://"));
    }
  }

  @Test
  void accessControlWithoutAnyTokenRefusesInOneLine() throws Exception {
    Refusal refusal =
        refusal(
            List.of("serve", "--listen", "0.0.0.0:0", "--no-admin", "--access-control"), Map.of());

    assertThat(refusal.exit()).isNotZero();
    // The metadata database was opened by then, so its log lines come first; the refusal is one.
    assertThat(refusal.lines().stream().filter(line -> line.startsWith("pico:")))
        .singleElement()
        .asString()
        .startsWith("pico: cannot start: access control is on but no token exists")
        .contains("--root-token-file");
  }

  @Test
  void aMalformedRootTokenIsRefusedWithoutShowingIt() throws Exception {
    Refusal refusal =
        refusal(
            List.of("serve", "--access-control", "--no-admin"),
            Map.of("PICO_ROOT_TOKEN", "not-a-token-secret"));

    assertThat(refusal.exit()).isNotZero();
    assertThat(refusal.lines())
        .singleElement()
        .asString()
        .contains("the root token")
        .doesNotContain("not-a-token-secret");
  }

  private record Refusal(int exit, List<String> lines) {}

  private Refusal refusal(List<String> args, Map<String, String> environment) throws Exception {
    List<String> all = new java.util.ArrayList<>(args);
    all.addAll(
        List.of(
            "--meta-url",
            "sqlite:" + dir.resolve("meta.db"),
            "--storage=-2@file://" + dir.resolve("objects")));
    ProcessBuilder builder = ServerProcess.launcher(all).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("pico serve exits").isTrue();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Refusal(process.exitValue(), output.lines().filter(l -> !l.isBlank()).toList());
  }
}
