package io.picomq.cli.admin;

import io.picomq.cli.Pico;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * Runs {@code pico} commands in this JVM, as {@code bin/pico} would run them, against the admin
 * listener at {@code adminEndpoint} (given as a flag, so no profile or variable of the machine
 * counts).
 */
record InProcessPico(String adminEndpoint) {

  /** What one run printed and how it ended. */
  record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\nstdout: " + out + "\nstderr: " + err;
    }
  }

  /** {@code pico admin args... --admin-endpoint URL}. */
  Run admin(String... args) {
    List<String> all = new ArrayList<>(List.of("admin"));
    all.addAll(List.of(args));
    all.addAll(List.of("--admin-endpoint", adminEndpoint));
    String[] argv = all.toArray(String[]::new);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine pico = Pico.commandLine(argv);
    pico.setOut(new PrintWriter(out, true));
    pico.setErr(new PrintWriter(err, true));
    int exitCode = pico.execute(argv);
    return new Run(exitCode, out.toString(), err.toString());
  }
}
