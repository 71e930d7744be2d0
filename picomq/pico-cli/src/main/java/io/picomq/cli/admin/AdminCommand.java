package io.picomq.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.cli.ExitCode;
import io.picomq.cli.Pico;
import io.picomq.cli.config.Setting;
import io.picomq.client.AdminClient;
import java.io.PrintWriter;
import java.net.URI;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pico admin}: the admin listener of one node. Every subcommand prints readable lines, or
 * the server's JSON with {@code --json}.
 */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    header = "Ask a node's admin listener about the cluster, or change it.",
    description = {
      "Talks to the admin listener of pico serve (--admin-listen), with the token of",
      "--token, --token-file, PICO_TOKEN or the profile, if any."
    },
    subcommands = {
      AdminCommand.Cluster.class,
      AdminCommand.Nodes.class,
      AdminCommand.StreamCommand.class,
      AdminCommand.SetSlots.class,
      MoveCommands.Transfer.class,
      MoveCommands.Drain.class,
      MoveCommands.Rebalance.class,
      TokenCommands.Token.class,
      TokenCommands.Anonymous.class
    })
public final class AdminCommand implements Runnable {
  @Spec CommandSpec spec;

  @Option(
      names = "--admin-endpoint",
      scope = CommandLine.ScopeType.INHERIT,
      paramLabel = "URL",
      description = "The admin listener (PICO_ADMIN_ENDPOINT, default http://127.0.0.1:9090).")
  String adminEndpoint;

  @Option(
      names = "--json",
      scope = CommandLine.ScopeType.INHERIT,
      description = "Print the server's JSON instead of lines and tables.")
  boolean json;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** An admin subcommand: one admin client for the command, output in the chosen form. */
  abstract static class AdminVerb implements Callable<Integer> {
    @Spec CommandSpec spec;

    abstract JsonNode ask(AdminClient admin);

    /** Prints the answer readably; by default as {@code key value} lines. */
    void printReadable(PrintWriter out, JsonNode answer) {
      JsonText.object(out, answer);
    }

    /**
     * Runs after the answer was printed, with the same client: what a verb does next (wait for what
     * it started). A failure here still exits non-zero, the answer already shown.
     */
    void afterPrinting(AdminClient admin, JsonNode answer) {}

    @Override
    public final Integer call() {
      Pico pico = Pico.of(spec);
      URI endpoint = URI.create(pico.setting(Setting.ADMIN_ENDPOINT));
      AdminClient.Builder builder = AdminClient.builder().endpoint(endpoint);
      pico.token().ifPresent(token -> builder.token(token.value()));
      pico.caCertificate().ifPresent(builder::caCertificate);
      try (AdminClient admin = builder.build()) {
        JsonNode answer = ask(admin);
        PrintWriter out = spec.commandLine().getOut();
        if (pico.flag("--json") != null && Boolean.parseBoolean(pico.flag("--json"))) {
          out.println(answer.toString());
        } else {
          printReadable(out, answer);
        }
        out.flush();
        afterPrinting(admin, answer);
      }
      return ExitCode.OK;
    }
  }

  @Command(
      name = "cluster",
      mixinStandardHelpOptions = true,
      description = "Cluster id, this node, readiness, counts, lease, pending moves.")
  static final class Cluster extends AdminVerb {
    @Override
    JsonNode ask(AdminClient admin) {
      return admin.cluster();
    }
  }

  @Command(
      name = "nodes",
      mixinStandardHelpOptions = true,
      description =
          "The registered nodes: id, epoch, address, slots, streams placed, liveness state.")
  static final class Nodes extends AdminVerb {
    @Override
    JsonNode ask(AdminClient admin) {
      return admin.nodes();
    }

    @Override
    void printReadable(PrintWriter out, JsonNode answer) {
      JsonText.table(out, answer.path("nodes"));
    }
  }

  @Command(
      name = "stream",
      mixinStandardHelpOptions = true,
      description = "Where a stream lives: owner, state, offsets, pending move. Exit 3 if unknown.")
  static final class StreamCommand extends AdminVerb {
    @Parameters(index = "0", paramLabel = "NAME", description = "The stream's name.")
    String name;

    @Override
    JsonNode ask(AdminClient admin) {
      return admin.stream(name);
    }
  }

  @Command(
      name = "set-slots",
      mixinStandardHelpOptions = true,
      description = "Set a node's placement slots (its weight when new streams are placed).")
  static final class SetSlots extends AdminVerb {
    @Parameters(index = "0", paramLabel = "NODE", description = "The node id.")
    long nodeId;

    @Option(
        names = "--slots",
        required = true,
        paramLabel = "M",
        description = "The new slot count.")
    int slots;

    @Override
    JsonNode ask(AdminClient admin) {
      return admin.setSlots(nodeId, slots);
    }
  }
}
