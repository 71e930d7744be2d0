package io.picomq.cli;

import io.picomq.node.NodeConfig;
import java.io.IOException;
import java.util.List;
import picocli.CommandLine;

/**
 * {@code pico serve} arguments to a node's settings, without running the command: how a host other
 * than the command line (the Postgres extension) starts the same node with the same flags, defaults
 * and checks.
 */
public final class ServeArguments {
  private ServeArguments() {}

  /**
   * The node {@code pico [global options] serve [flags]} would run, its file:// and SQLite
   * directories created as {@code serve} creates them.
   *
   * @throws IllegalArgumentException naming the flag when one is unknown or has a bad value
   */
  public static NodeConfig nodeConfig(List<String> args) throws IOException {
    CommandLine pico = Pico.commandLine(new String[] {"serve"});
    CommandLine.ParseResult parsed;
    try {
      parsed = pico.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    if (parsed.subcommand() == null
        || !(parsed.subcommand().commandSpec().userObject() instanceof ServeCommand serve)) {
      throw new IllegalArgumentException("expected 'serve' and its flags, got " + args);
    }
    NodeConfig config = serve.config();
    ServeCommand.prepareDataDirs(config);
    return config;
  }
}
