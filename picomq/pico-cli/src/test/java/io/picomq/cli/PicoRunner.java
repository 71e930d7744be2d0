package io.picomq.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/**
 * Runs {@code pico} in this JVM as {@code bin/pico} would, but with an environment of the test's
 * choosing instead of the machine's, so no {@code PICO_*} variable or profile of the user counts.
 */
public final class PicoRunner {
  private PicoRunner() {}

  /** What one run printed and how it ended. */
  public record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout: " + out + "\nstderr: " + err;
    }
  }

  /** {@code pico args...} in a process whose environment is exactly {@code environment}. */
  public static Run run(Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine pico = Pico.commandLine(args);
    ((Pico) pico.getCommand()).environment = environment;
    pico.setOut(new PrintWriter(out, true));
    pico.setErr(new PrintWriter(err, true));
    int exitCode = pico.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }
}
