package io.picomq.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.client.AdminClient;
import io.picomq.client.StreamNotFoundException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code --wait} of the admin verbs that move streams: polls {@code GET /admin/cluster} until none
 * of the moves is pending any more, then asks {@code GET /admin/streams/{name}} whether each named
 * stream is on its target. A move that left the pending list without arriving (cancelled, or given
 * up by its source) fails the wait at once rather than at the timeout. A stream the log knows by no
 * name can only be followed to the end of its pending transfer.
 *
 * <p>Runs on the command's one thread; the deadline is the monotonic clock's.
 */
final class TransferWait {
  /** How often the cluster is asked; a handoff takes at least one metadata round trip. */
  private static final Duration POLL = Duration.ofMillis(250);

  /** A move to follow: {@code stream} may be null (no name). */
  record Move(String stream, long streamId, long toNode) {
    /** The moves listed under {@code transfers} in a drain or rebalance answer. */
    static List<Move> listedIn(JsonNode answer) {
      List<Move> moves = new ArrayList<>();
      for (JsonNode transfer : answer.path("transfers")) {
        moves.add(
            new Move(
                transfer.path("stream").isTextual() ? transfer.path("stream").asText() : null,
                transfer.path("streamId").asLong(),
                transfer.path("toNode").asLong()));
      }
      return moves;
    }

    String describe() {
      return (stream != null ? stream : "stream id " + streamId) + " to node " + toNode;
    }
  }

  private final AdminClient admin;
  private final Duration timeout;

  TransferWait(AdminClient admin, Duration timeout) {
    this.admin = admin;
    this.timeout = timeout;
  }

  /**
   * Returns once every move arrived.
   *
   * @throws Failure exit 1 when {@link #timeout} passes with moves still pending, or when a move
   *     ended elsewhere; exit 130 when interrupted
   */
  void await(List<Move> moves) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Move> pending = stillPending(moves);
    while (!pending.isEmpty()) {
      if (System.nanoTime() - deadline >= 0) {
        throw new Failure(
            ExitCode.FAILURE,
            pending.size()
                + " of "
                + moves.size()
                + " transfers still pending after "
                + timeout.toSeconds()
                + " s (timeout): "
                + pending.stream().map(Move::describe).collect(Collectors.joining(", ")));
      }
      try {
        Thread.sleep(POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new Failure(ExitCode.INTERRUPTED, "interrupted while waiting for the transfers");
      }
      pending = stillPending(moves);
    }
    List<String> astray = new ArrayList<>();
    for (Move move : moves) {
      if (move.stream() != null) {
        whereItIs(move).ifPresent(astray::add);
      }
    }
    if (!astray.isEmpty()) {
      throw new Failure(
          ExitCode.FAILURE,
          "no longer pending, but not moved (cancelled?): " + String.join(", ", astray));
    }
  }

  private List<Move> stillPending(List<Move> moves) {
    Set<Long> pendingIds = new HashSet<>();
    for (JsonNode transfer : admin.cluster().path("pendingTransfers")) {
      pendingIds.add(transfer.path("streamId").asLong());
    }
    return moves.stream().filter(move -> pendingIds.contains(move.streamId())).toList();
  }

  /** Empty when the stream is on its target; otherwise where it is instead. */
  private Optional<String> whereItIs(Move move) {
    try {
      long owner = admin.stream(move.stream()).path("owner").asLong();
      return owner == move.toNode()
          ? Optional.empty()
          : Optional.of(move.stream() + " is on node " + owner + ", not " + move.toNode());
    } catch (StreamNotFoundException deleted) {
      return Optional.of(move.stream() + " was deleted");
    }
  }
}
