package io.picomq.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.cli.Pico;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line of {@code pico bench}: its help, bad flags, an unreachable server. */
class BenchCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine pico = Pico.commandLine();
    pico.setOut(new PrintWriter(out, true));
    pico.setErr(new PrintWriter(err, true));
    return pico.execute(args);
  }

  @Test
  void helpListsTheWorkloadFlags() {
    assertThat(run("bench", "--help")).isZero();
    assertThat(out.toString())
        .contains("Usage: pico bench")
        .contains("--record-size", "--writers", "--records-per-append", "--rate", "--producer")
        .contains("--json", "--write-only", "--warmup", "--interval", "--connections")
        .contains("round-robin");
  }

  @Test
  void badWorkloadsAreUsageErrorsOnOneLine() {
    assertThat(run("bench", "--record-size", "10")).isEqualTo(2);
    assertThat(err.toString().strip())
        .isEqualTo("pico: --record-size must be at least 24 bytes (the timestamp header), not 10");

    err.getBuffer().setLength(0);
    assertThat(run("bench", "--duration", "soon")).isEqualTo(2);
    assertThat(err.toString()).startsWith("pico: --duration: not a duration");

    err.getBuffer().setLength(0);
    assertThat(run("bench", "--rate", "-5")).isEqualTo(2);
    assertThat(err.toString()).contains("--rate must be >= 0");
  }

  @Test
  void anUnreachableServerExitsWithFour() {
    assertThat(run("bench", "--endpoint", "http://127.0.0.1:1", "--duration", "1s")).isEqualTo(4);
    assertThat(err.toString()).startsWith("pico: cannot reach the server");
    assertThat(out.toString()).isEmpty();
  }
}
