package io.picomq.server.metadata;

import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.sql.liveness.NodeState;
import io.picomq.sql.log.ViewListener;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the transfers recorded in the log (the brief's section 5), on every node, with no
 * node-to-node call: each node does its part as it sees the transfer in its view.
 *
 * <ul>
 *   <li>The <b>source</b> (the process holding the stream open) hands it off: stops its appends,
 *       waits for the ones it took, closes the stream at its epoch ({@link Source}), and proposes
 *       {@link Command.CompleteTransfer} with that epoch, which re-points the stream to the target.
 *       The completion is offered to the log right behind the close ({@link HandoffCompletions}),
 *       not once the close is applied. Requests meanwhile are routed to the target, which parks
 *       them until the stream arrives.
 *   <li>A stream already closed at the transfer's epoch (the source closed it and died before
 *       completing, its next process's recovery closed it, or a node that took the source over did)
 *       is completed by the target or the source, whichever sees it.
 *   <li>A transfer whose target stopped (presumed dead by its liveness row, or taken over) falls
 *       back: it is cancelled, and the stream stays where it is (or opens again where it was
 *       closed).
 * </ul>
 *
 * Every step is idempotent and rerun each round until the transfer is gone from the view, so a
 * crash of either side resumes. A round runs every second, and at once when the view's pending
 * transfers change.
 *
 * <p>Threading: rounds run on one virtual thread ({@link Rounds}); each handoff on a virtual thread
 * of its own, at most {@link #MAX_HANDOFFS} at once.
 */
public final class Transfers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Transfers.class);
  private static final Duration ROUND = Duration.ofSeconds(1);

  /** Handoffs in progress at once on one node: each closes a stream, uploading what it holds. */
  static final int MAX_HANDOFFS = 64;

  /** The service's side of a handoff. */
  @FunctionalInterface
  public interface Source {
    /**
     * Closes engine stream {@code streamId}, held open by this process, once every append it took
     * is durable; returns the epoch it was closed at. Blocks.
     */
    long handOff(long streamId);
  }

  private final MetadataPlane plane;
  private final NodeLiveness liveness;
  private final Source source;
  private final HandoffCompletions completions;
  private final Rounds rounds;

  /** The streams being handed off now, by id: one handoff per stream at a time. */
  private final Set<Long> inFlight = ConcurrentHashMap.newKeySet();

  /**
   * The transfers this node handed off (the stream is closed here), until a round's view no longer
   * shows them pending. A round that reads a view from before its completion was applied sees the
   * stream still open here and must not hand it off again (the engine has it closed: the handoff
   * would fail with a warning). Kept by transfer, not by stream id: a later transfer of the same
   * stream is another record (another epoch at least) and is handed off as usual, however soon it
   * follows.
   */
  private final Set<PendingTransfer> handedOff = ConcurrentHashMap.newKeySet();

  private final AtomicReference<Map<Long, PendingTransfer>> lastSeen = new AtomicReference<>();
  private final ViewListener<MetadataState> onApplied;

  /**
   * @param completions where a handoff announces its completion, so it follows the close into the
   *     log at once (the engine's closes go through {@link PlaneStreamManager})
   */
  public Transfers(
      MetadataPlane plane, NodeLiveness liveness, Source source, HandoffCompletions completions) {
    this.plane = plane;
    this.liveness = liveness;
    this.source = source;
    this.completions = completions;
    this.rounds = new Rounds("picomq-transfers", ROUND, this::roundIfInStanding);
    this.onApplied =
        view -> {
          Map<Long, PendingTransfer> pending = view.state().pendingTransfers();
          // The map is persistent: the same instance means no transfer changed.
          if (lastSeen.getAndSet(pending) != pending && !pending.isEmpty()) {
            rounds.wake();
          }
        };
  }

  public void start() {
    plane.addListener(onApplied);
    rounds.start();
  }

  private void roundIfInStanding() {
    if (plane.healthy() && liveness.mayAcknowledge()) {
      runRound(plane.state());
    }
  }

  /**
   * One round on {@code state}, a view of the log (the latest when the round began: a completion
   * may be applied while the round runs): this node's part of every pending transfer in it.
   */
  void runRound(MetadataState state) {
    NodeIdentity me = plane.identity();
    Map<Long, PendingTransfer> pending = state.pendingTransfers();
    handedOff.removeIf(transfer -> !transfer.equals(pending.get(transfer.streamId())));
    for (PendingTransfer transfer : pending.values()) {
      StreamEntry stream = state.stream(transfer.streamId()).orElse(null);
      if (stream == null) {
        continue;
      }
      boolean heldHere =
          stream.isOpen()
              && stream.nodeId() == me.nodeId()
              && stream.openedNodeEpoch() == me.nodeEpoch();
      boolean involved = stream.nodeId() == me.nodeId() || transfer.toNodeId() == me.nodeId();
      if (!canReceive(state, transfer.toNodeId())) {
        if (heldHere || (!stream.isOpen() && involved)) {
          propose(new Command.CancelTransfer(transfer.streamId()), "cancelled", transfer);
        }
      } else if (heldHere) {
        startHandOff(transfer);
      } else if (!stream.isOpen() && stream.epoch() == transfer.epoch() && involved) {
        propose(
            new Command.CompleteTransfer(transfer.streamId(), transfer.epoch()),
            "completed",
            transfer);
      }
    }
  }

  /** Whether {@code nodeId} can take a stream: registered, not taken over, not presumed dead. */
  private boolean canReceive(MetadataState state, int nodeId) {
    NodeRecord node = state.nodes().get(nodeId);
    return node != null
        && !node.isTakenOver()
        && liveness.state(nodeId, node.nodeEpoch()) != NodeState.DEAD;
  }

  private void startHandOff(PendingTransfer transfer) {
    long streamId = transfer.streamId();
    if (inFlight.size() >= MAX_HANDOFFS || !inFlight.add(streamId)) {
      return; // under way, or the next round starts it
    }
    // Checked after taking the stream id: a handoff records its transfer before it lets the id go.
    if (handedOff.contains(transfer)) {
      inFlight.remove(streamId);
      return;
    }
    Thread.ofVirtual().name("picomq-handoff-" + streamId).start(() -> handOff(transfer));
  }

  /** On the handoff's own thread: closes the stream here and completes the transfer. */
  private void handOff(PendingTransfer transfer) {
    long streamId = transfer.streamId();
    HandoffCompletions.Expected completion = completions.expect(streamId, transfer.epoch());
    try {
      long started = System.nanoTime();
      long epoch = source.handOff(streamId);
      handedOff.add(transfer);
      // Offered behind the close already, unless the close was not this process's proposal.
      CompletableFuture<Result> completed =
          completion
              .completion()
              .orElseGet(() -> plane.propose(new Command.CompleteTransfer(streamId, epoch)));
      Result result = completed.join();
      if (result instanceof Result.Rejected && completion.completion().isPresent()) {
        // It followed a close that was refused (one expecting an end offset its commit had not
        // brought yet); the engine closed the stream again since, so completing now is accepted.
        result = plane.propose(new Command.CompleteTransfer(streamId, epoch)).join();
      }
      report(result, "completed", transfer);
      LOG.debug(
          "handed stream {} off to node {} in {} ms",
          streamId,
          transfer.toNodeId(),
          (System.nanoTime() - started) / 1_000_000);
    } catch (RuntimeException e) {
      LOG.warn(
          "handing stream {} off to node {} failed; retrying next round: {}",
          streamId,
          transfer.toNodeId(),
          e.toString());
    } finally {
      completions.forget(completion);
      inFlight.remove(streamId);
    }
  }

  /**
   * Proposes a step; a refusal or a redundant result means another node's step got there first,
   * which is fine.
   */
  private void propose(Command command, String what, PendingTransfer transfer) {
    report(plane.propose(command).join(), what, transfer);
  }

  private static void report(Result result, String what, PendingTransfer transfer) {
    switch (result) {
      case Result.Ok ok -> LOG.info("transfer {}: {}", what, transfer);
      case Result.Redundant redundant -> LOG.debug("transfer {} already: {}", what, transfer);
      case Result.Rejected rejected ->
          LOG.debug("transfer not {}: {}: {}", what, transfer, rejected.message());
    }
  }

  @Override
  public void close() {
    plane.removeListener(onApplied);
    rounds.close();
  }
}
