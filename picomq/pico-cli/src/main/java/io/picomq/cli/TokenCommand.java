package io.picomq.cli;

import io.picomq.client.BearerToken;
import java.security.SecureRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code pico token}: tokens made on this machine, without a server. Tokens a node issues come from
 * {@code pico admin token issue}.
 */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    header = "Make a token offline.",
    description = {
      "'pico token new' prints a fresh random token, e.g. for a node's root token",
      "(PICO_ROOT_TOKEN). Tokens for applications come from 'pico admin token issue'."
    },
    subcommands = TokenCommand.New.class)
public final class TokenCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "new",
      mixinStandardHelpOptions = true,
      description = {
        "Print a new random token on standard output: BASE64URL(id).BASE64URL(secret),",
        "a 9-byte id and a 32-byte secret from the system's secure random source."
      })
  static final class New implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().getOut().println(BearerToken.random(new SecureRandom()).value());
      spec.commandLine().getOut().flush();
    }
  }
}
