package io.picomq.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.cli.Durations;
import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.cli.admin.AdminCommand.AdminVerb;
import io.picomq.client.AdminClient;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The admin subcommands that move streams: {@code transfer} (or {@code transfer --cancel}), {@code
 * drain} and {@code rebalance}. Each asks the admin API once; with {@code --wait} it then follows
 * the moves it started with {@link TransferWait}.
 */
final class MoveCommands {
  private MoveCommands() {}

  /** {@code --wait} and {@code --timeout}, shared by the verbs that move streams. */
  static final class WaitOptions {
    private static final String DEFAULT_TIMEOUT = "60s";

    @Option(
        names = "--wait",
        description = "Wait until the moves are done (exit 1 if one does not arrive).")
    boolean await;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        description =
            "How long --wait waits: 500ms, 60s, 5m, or bare seconds (default "
                + DEFAULT_TIMEOUT
                + ").")
    String timeout;

    /** Whether the user gave either option. */
    boolean given() {
      return await || timeout != null;
    }

    /** The timeout, parsed before anything is asked of the server. */
    Duration timeout() {
      return Durations.parse("--timeout", timeout == null ? DEFAULT_TIMEOUT : timeout);
    }

    /** With {@code --wait}: returns once every move {@code answer} lists arrived. */
    void follow(AdminClient admin, JsonNode answer, Duration timeout) {
      if (await) {
        new TransferWait(admin, timeout).await(TransferWait.Move.listedIn(answer));
      }
    }
  }

  @Command(
      name = "transfer",
      mixinStandardHelpOptions = true,
      header = "Move a stream to another node, or cancel its move.",
      description = {
        "Asks for NAME to move to node N. A closed stream moves at once; an open one",
        "stays pending until its node hands it over. --wait waits until no transfer of",
        "NAME is pending and it is on node N (exit 1 if --timeout passes first, or if",
        "the move is cancelled meanwhile).",
        "With --cancel, withdraws NAME's pending transfer instead: the stream stays",
        "where it is (state cancelled, or none when nothing was pending)."
      })
  static final class Transfer extends AdminVerb {
    @Parameters(index = "0", paramLabel = "NAME", description = "The stream's name.")
    String name;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    /** Either a target or a cancel. */
    static final class Action {
      @Option(
          names = {"--to", "--to-node"},
          required = true,
          paramLabel = "N",
          description = "Target node id.")
      Long toNode;

      @Option(
          names = "--cancel",
          required = true,
          description = "Withdraw the stream's pending transfer instead.")
      boolean cancel;
    }

    @Mixin WaitOptions waiting;

    @Override
    JsonNode ask(AdminClient admin) {
      if (action.cancel) {
        if (waiting.given()) {
          throw new Failure(ExitCode.USAGE, "--wait and --timeout go with --to, not --cancel");
        }
        return admin.cancelTransfer(name);
      }
      Duration timeout = waiting.timeout();
      JsonNode answer = admin.transfer(name, action.toNode);
      if (!waiting.await) {
        return answer;
      }
      new TransferWait(admin, timeout)
          .await(
              List.of(
                  new TransferWait.Move(
                      answer.path("stream").asText(name),
                      answer.path("streamId").asLong(),
                      action.toNode)));
      return admin.stream(name);
    }
  }

  @Command(
      name = "drain",
      mixinStandardHelpOptions = true,
      header = "Move every stream off a node and place nothing new on it.",
      description = {
        "Sets node NODE's slots to 0, then asks for each of its streams to move to the",
        "node placement would pick: the fewest streams per slot among the other nodes",
        "that have slots and are not dead. A stream already moving is listed under",
        "refused. When no other node can take streams, nothing changes: exit 1",
        "(no_target). The answer is printed at once; --wait then waits until every",
        "listed move arrived (exit 1 if one has not within --timeout).",
        "To undo: pico admin set-slots NODE --slots <previousSlots>."
      })
  static final class Drain extends AdminVerb {
    @Parameters(index = "0", paramLabel = "NODE", description = "The node id.")
    long nodeId;

    @Mixin WaitOptions waiting;

    private Duration timeout;

    @Override
    JsonNode ask(AdminClient admin) {
      timeout = waiting.timeout();
      return admin.drain(nodeId);
    }

    @Override
    void afterPrinting(AdminClient admin, JsonNode answer) {
      waiting.follow(admin, answer, timeout);
    }
  }

  @Command(
      name = "rebalance",
      mixinStandardHelpOptions = true,
      header = "Even out the streams over the nodes by their slots.",
      description = {
        "Moves streams from the nodes furthest above their share (streams * slots /",
        "all slots, over the nodes that have slots and are not dead) to those furthest",
        "below it, until every node is within one stream of its share. Streams already",
        "moving stay as they are. The answer is printed at once; --wait then waits",
        "until every listed move arrived (exit 1 if one has not within --timeout)."
      })
  static final class Rebalance extends AdminVerb {
    @Mixin WaitOptions waiting;

    private Duration timeout;

    @Override
    JsonNode ask(AdminClient admin) {
      timeout = waiting.timeout();
      return admin.rebalance();
    }

    @Override
    void afterPrinting(AdminClient admin, JsonNode answer) {
      waiting.follow(admin, answer, timeout);
    }
  }
}
