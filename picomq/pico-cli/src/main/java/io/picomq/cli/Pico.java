package io.picomq.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code pico} launcher's root command. */
@Command(
    name = "pico",
    mixinStandardHelpOptions = true,
    versionProvider = Pico.Version.class,
    subcommands = {ServeCommand.class},
    description = {
      "PicoMQ: a durable, real-time stream server whose records live in object storage.",
      "",
      "Run a node with 'pico serve'. The client verbs are not part of this build yet."
    })
public final class Pico implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The protocol spoken by {@code serve} (and, later, the client verbs). */
  @CommandLine.Option(
      names = "--protocol",
      scope = CommandLine.ScopeType.INHERIT,
      defaultValue = "${env:PICO_PROTOCOL:-pico}",
      description = "pico or ds (Durable Streams) (PICO_PROTOCOL).")
  String protocol;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** Builds the command line; separate from {@link #main} so tests run it in-process. */
  public static CommandLine commandLine() {
    return new CommandLine(new Pico());
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** Reads the version Maven wrote into {@code version.properties}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties properties = new Properties();
      try (InputStream in = Pico.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new String[] {"pico " + properties.getProperty("version", "unknown")};
    }
  }
}
