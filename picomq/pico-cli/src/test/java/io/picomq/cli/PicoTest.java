package io.picomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class PicoTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine pico = Pico.commandLine();
    pico.setOut(new PrintWriter(out, true));
    pico.setErr(new PrintWriter(err, true));
    return pico.execute(args);
  }

  @Test
  void versionNamesTheBuiltVersion() {
    assertThat(run("--version")).isZero();
    assertThat(out.toString()).startsWith("pico ").doesNotContain("unknown").doesNotContain("${");
  }

  @Test
  void noArgumentsPrintsUsageToStderrNotStdout() {
    assertThat(run()).isZero();
    assertThat(err.toString()).contains("Usage: pico");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void anUnknownOptionFailsWithAUsageExitCode() {
    assertThat(run("--no-such-flag")).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString()).contains("Unknown option: '--no-such-flag'");
  }
}
