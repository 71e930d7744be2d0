package io.picomq.server.metadata;

import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.StreamEntry;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.TakeoverReport;
import io.picomq.sql.liveness.NodeState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over the streams of node processes that died: the brief's section 5.1, on every node.
 *
 * <p>Each round (a quarter of the liveness TTL) looks for a registered node process that still
 * holds streams open and whose liveness row lapsed. The live node with the lowest id takes it over
 * (every node computes the same choice from the same rows; should two disagree for a moment, both
 * steps below are safe to run twice): it proposes {@link Command.TakeOverNode}, after which the
 * dead process can change nothing, then asks its engine to {@linkplain
 * io.picomq.s3stream.api.StreamEngine#takeOver take over the WAL}: fence it, upload and commit what
 * the dead process acknowledged, and close its streams at the recovered ends. Clients meanwhile get
 * {@code 503 recovering}; once closed, each stream is placed again (as placement spreads new ones)
 * and opens on its new node at its next request.
 *
 * <p>Resumable: a taker that dies mid-way stops renewing too, and the next round hands the takeover
 * to the next live node, which reruns every step (each is idempotent). A dead process whose node
 * comes back is handled by the node itself: its new epoch ends the takeover and it recovers its own
 * WAL, fencing the taker's if that still runs.
 *
 * <p>Threading: one virtual thread runs the rounds ({@link Rounds}); {@link #close()} stops it.
 */
public final class Failover implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Failover.class);
  private static final Duration TAKEOVER_TIMEOUT = Duration.ofMinutes(5);

  /** What the engine offers: {@link io.picomq.s3stream.api.StreamEngine#takeOver}. */
  @FunctionalInterface
  public interface WalTaker {
    CompletableFuture<TakeoverReport> takeOver(int nodeId, OrphanedStreams streams);
  }

  private final MetadataPlane plane;
  private final NodeLiveness liveness;
  private final WalTaker engine;
  private final Rounds rounds;

  public Failover(MetadataPlane plane, NodeLiveness liveness, WalTaker engine) {
    this.plane = plane;
    this.liveness = liveness;
    this.engine = engine;
    this.rounds =
        new Rounds("picomq-failover", liveness.ttl().dividedBy(4), this::roundIfInStanding);
  }

  public void start() {
    rounds.start();
  }

  private void roundIfInStanding() {
    // A node that may be cut off itself takes nothing over.
    if (plane.healthy() && liveness.mayAcknowledge()) {
      runRound();
    }
  }

  /** One round: takes over, in turn, every dead process this node is the taker for. */
  void runRound() {
    NodeIdentity me = plane.identity();
    MetadataState state = plane.state();
    for (NodeRecord node : state.nodes().values()) {
      // Cheapest checks first: the last one scans the streams.
      if (node.nodeId() != me.nodeId()
          && needsTaker(state, node)
          && takerFor(state).filter(taker -> taker == me.nodeId()).isPresent()
          && holdsOpenStreams(state, node.nodeId())) {
        takeOver(me, node);
      }
    }
  }

  /**
   * Whether {@code node}'s process needs a (new) taker: it is dead and nobody took it over, or the
   * node that took it over died too.
   */
  private boolean needsTaker(MetadataState state, NodeRecord node) {
    if (!node.isTakenOver()) {
      return liveness.state(node.nodeId(), node.nodeEpoch()) == NodeState.DEAD;
    }
    if (node.takerNodeId() == plane.identity().nodeId()) {
      return true; // ours, unfinished (an earlier round failed): resume it
    }
    NodeRecord taker = state.nodes().get(node.takerNodeId());
    return taker == null
        || taker.isTakenOver()
        || liveness.state(taker.nodeId(), taker.nodeEpoch()) == NodeState.DEAD;
  }

  /** The live node in good standing with the lowest id: the one that takes dead ones over. */
  private Optional<Integer> takerFor(MetadataState state) {
    for (NodeRecord candidate : state.nodes().values()) {
      if (!candidate.isTakenOver()
          && liveness.state(candidate.nodeId(), candidate.nodeEpoch()) == NodeState.LIVE) {
        return Optional.of(candidate.nodeId());
      }
    }
    return Optional.empty();
  }

  private void takeOver(NodeIdentity me, NodeRecord node) {
    long started = System.nanoTime();
    LOG.warn(
        "node {} epoch {} stopped renewing its liveness and holds streams open: taking over its"
            + " WAL",
        node.nodeId(),
        node.nodeEpoch());
    plane
        .proposeAccepted(
            new Command.TakeOverNode(node.nodeId(), node.nodeEpoch(), me.nodeId(), me.nodeEpoch()))
        .join();
    TakeoverReport report;
    try {
      report =
          engine
              .takeOver(node.nodeId(), new TakenOverStreams(plane, node.nodeId(), node.nodeEpoch()))
              .orTimeout(TAKEOVER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .join();
    } catch (CompletionException e) {
      if (Causes.unwrap(e) instanceof MetadataRejectedException refused && takeoverEnded(refused)) {
        // Whoever ended it (the node's new process, another taker) recovers what this one left.
        LOG.info("takeover of node {} stopped: {}", node.nodeId(), refused.getMessage());
        return;
      }
      throw e;
    }
    LOG.info(
        "took over node {} epoch {} in {} ms: WAL fenced at epoch {}, {} records read, {} uploaded"
            + " ({} bytes), {} already committed or dropped; {} streams closed",
        node.nodeId(),
        node.nodeEpoch(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        report.fenceEpoch(),
        report.walRecords(),
        report.uploadedRecords(),
        report.uploadedBytes(),
        report.droppedRecords(),
        report.closedStreams());
    spread(node.nodeId());
  }

  /** Whether the log refused the taker because its takeover ended, not for a fault of its own. */
  private static boolean takeoverEnded(MetadataRejectedException refused) {
    return switch (refused.reason()) {
      case FENCED, NODE_FENCED, OPEN_ON_OTHER_NODE -> true;
      default -> false;
    };
  }

  /**
   * Places the taken-over node's closed streams again, as placement spreads new ones: each then
   * opens on its new node at its next request (placement skips the taken-over node).
   */
  private void spread(int nodeId) {
    int placed = 0;
    for (StreamEntry stream : plane.state().streams().values()) {
      if (stream.nodeId() == nodeId && !stream.isOpen()) {
        if (plane.propose(new Command.PlaceStream(stream.streamId())).join() instanceof Result.Ok) {
          placed++;
        }
      }
    }
    LOG.info("placed {} streams of node {} on live nodes", placed, nodeId);
  }

  private static boolean holdsOpenStreams(MetadataState state, int nodeId) {
    for (StreamEntry stream : state.streams().values()) {
      if (stream.isOpen() && stream.nodeId() == nodeId) {
        return true;
      }
    }
    return false;
  }

  /**
   * The streams a taken-over process left open, while this node is still its taker: the engine's
   * view of one takeover.
   */
  static final class TakenOverStreams implements OrphanedStreams {
    private final MetadataPlane plane;
    private final int nodeId;
    private final long nodeEpoch;

    TakenOverStreams(MetadataPlane plane, int nodeId, long nodeEpoch) {
      this.plane = plane;
      this.nodeId = nodeId;
      this.nodeEpoch = nodeEpoch;
    }

    /**
     * Refused ({@link MetadataRejectedException}, {@code FENCED}) once the takeover ended: the node
     * came back, or another node took over from this one. Never an empty list then: the engine
     * would take it for "nothing open" and reset the WAL, whose records the node's new process (or
     * the other taker) has yet to recover.
     */
    @Override
    public CompletableFuture<List<StreamMetadata>> streams() {
      MetadataState state = plane.state();
      NodeRecord node = state.nodes().get(nodeId);
      int self = plane.identity().nodeId();
      if (node == null || node.nodeEpoch() != nodeEpoch || node.takerNodeId() != self) {
        return CompletableFuture.failedFuture(ended(node));
      }
      List<StreamMetadata> open = new ArrayList<>();
      for (StreamEntry stream : state.streams().values()) {
        if (stream.isOpen() && stream.nodeId() == nodeId) {
          open.add(PlaneStreamManager.metadata(stream));
        }
      }
      return CompletableFuture.completedFuture(List.copyOf(open));
    }

    private MetadataRejectedException ended(NodeRecord now) {
      String why =
          now == null
              ? "it is no longer registered"
              : now.nodeEpoch() != nodeEpoch
                  ? "the node came back (epoch " + now.nodeEpoch() + ")"
                  : "node " + now.takerNodeId() + " took it over from this one";
      return new MetadataRejectedException(
          MetadataRejectedException.Reason.FENCED,
          "the takeover of node " + nodeId + " epoch " + nodeEpoch + " ended: " + why);
    }

    @Override
    public CompletableFuture<Void> closeStream(long streamId, long epoch) {
      NodeIdentity me = plane.identity();
      return PlaneStreamManager.engineFuture(
          plane
              .proposeAccepted(
                  new Command.CloseStream(streamId, epoch, me.nodeId(), me.nodeEpoch()))
              .thenApply(outcome -> null));
    }
  }

  @Override
  public void close() {
    rounds.close();
  }
}
