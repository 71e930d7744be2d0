package io.picomq.server.service;

import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.Rounds;
import io.picomq.sql.log.View;
import io.picomq.sql.log.ViewListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the streams that arrive on this node open elsewhere, in the background, so their first
 * request does not pay for the open (a log entry, and reading the stream's tail): the brief's "the
 * target then opens it eagerly".
 *
 * <p>A stream arrives when
 *
 * <ul>
 *   <li>a transfer to this node completes: the stream was open on its source, and is now closed and
 *       placed here;
 *   <li>it is placed here after its node was taken over: it was open on the dead node process, the
 *       takeover closed it, and placement chose this node.
 * </ul>
 *
 * Streams that were closed before (a closed stream moved at once, an idle one placed again) are
 * left to their first request: this keeps open what was open, nothing more.
 *
 * <h2>Design</h2>
 *
 * A view listener (on the log's tailer thread, so it only compares small maps) notes the transfers
 * to this node that left the pending set and the node processes newly taken over. A round on one
 * virtual thread ({@link Rounds}) checks them against the latest view, looks the arrived streams'
 * names up with one scan of the registry per round, and opens each as a request would ({@link
 * Opener}), at most {@link #MAX_OPENS} at once: a drain of a thousand streams opens them a few at a
 * time, behind the requests. An open that fails is logged and left to the first request, which
 * opens the stream as before.
 *
 * <h2>Threading</h2>
 *
 * {@link #lastPending} and {@link #lastNodes} belong to the tailer thread, {@link #watched} to the
 * round thread; {@link #arrived} and {@link #takeovers} are handed from the first to the second.
 * Both hold at most one entry per stream or node process of the metadata state.
 */
public final class Arrivals implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Arrivals.class);
  private static final Duration ROUND = Duration.ofSeconds(1);
  private static final long PERMIT_WAIT_MILLIS = 100;

  /**
   * Opens at once: each is a log entry and a read of the stream's tail, and they share log rows;
   * more would only queue behind each other and ahead of the requests.
   */
  static final int MAX_OPENS = 8;

  /** Opens a named stream on this node as its first request would. Blocks. */
  @FunctionalInterface
  public interface Opener {
    void open(String name);
  }

  /** A node process taken over, and the state in which it was: its streams still open. */
  private record Takeover(int nodeId, long nodeEpoch, MetadataState state) {}

  private final MetadataPlane plane;
  private final LivenessGate liveness;
  private final Opener opener;
  private final int self;
  private final Rounds rounds;
  private final Semaphore opens = new Semaphore(MAX_OPENS);
  private final Set<Long> arrived = ConcurrentHashMap.newKeySet();
  private final Queue<Takeover> takeovers = new ConcurrentLinkedQueue<>();
  private final ViewListener<MetadataState> onApplied = this::onApplied;

  /** Tailer thread (set by {@link #start} before): the pending transfers and nodes last seen. */
  private Map<Long, PendingTransfer> lastPending;

  private Map<Integer, NodeRecord> lastNodes;

  /**
   * Round thread: streams of taken-over processes not yet placed, by the node they were open on.
   */
  private final Map<Long, Integer> watched = new HashMap<>();

  /** Any thread: whether {@link #watched} has entries, so every applied row wakes the round. */
  private volatile boolean watching;

  private volatile boolean closed;

  /**
   * @param liveness whether this node is in standing: a node that may not acknowledge opens nothing
   */
  public Arrivals(MetadataPlane plane, LivenessGate liveness, Opener opener) {
    this.plane = plane;
    this.liveness = liveness;
    this.opener = opener;
    this.self = plane.identity().nodeId();
    this.rounds = new Rounds("picomq-arrivals", ROUND, this::round);
  }

  public void start() {
    MetadataState now = plane.state();
    lastPending = now.pendingTransfers();
    lastNodes = now.nodes();
    plane.addListener(onApplied); // publishes the fields above to the tailer thread

    rounds.start();
  }

  // ---- tailer thread --------------------------------------------------------------------------

  private void onApplied(View<MetadataState> view) {
    MetadataState state = view.state();
    Map<Long, PendingTransfer> pending = state.pendingTransfers();
    boolean wake = watching;
    if (pending != lastPending) {
      for (PendingTransfer transfer : lastPending.values()) {
        if (transfer.toNodeId() == self
            && !pending.containsKey(transfer.streamId())
            && closedHere(state.stream(transfer.streamId()).orElse(null))) {
          wake |= arrived.add(transfer.streamId());
        }
      }
    }
    lastPending = pending;
    Map<Integer, NodeRecord> nodes = state.nodes();
    if (nodes != lastNodes) {
      for (NodeRecord node : nodes.values()) {
        NodeRecord before = lastNodes.get(node.nodeId());
        if (node.isTakenOver() && !(before != null && before.equals(node))) {
          takeovers.add(new Takeover(node.nodeId(), node.nodeEpoch(), state));
          wake = true;
        }
      }
    }
    lastNodes = nodes;
    if (wake) {
      rounds.wake();
    }
  }

  private boolean closedHere(StreamEntry stream) {
    return stream != null && !stream.isOpen() && stream.nodeId() == self;
  }

  // ---- round thread ---------------------------------------------------------------------------

  private void round() {
    MetadataState state = plane.state();
    watchTakeovers();
    placedHere(state);
    if (arrived.isEmpty() || !plane.healthy() || !liveness.mayAcknowledge()) {
      return;
    }
    List<Long> batch = new ArrayList<>(arrived);
    arrived.removeAll(batch);
    Map<Long, String> names = Registry.namesById(state);
    for (long streamId : batch) {
      String name = names.get(streamId);
      // Still here and closed: not opened by a request meanwhile, nor moved on again.
      if (name == null || !closedHere(state.stream(streamId).orElse(null))) {
        continue;
      }
      if (!openSlot()) {
        return; // closing
      }
      Thread.ofVirtual().name("picomq-arrival-" + streamId).start(() -> open(name));
    }
  }

  /** Waits for one of the {@link #MAX_OPENS} slots; false once closing. */
  private boolean openSlot() {
    try {
      while (!opens.tryAcquire(PERMIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        if (closed) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void open(String name) {
    try {
      opener.open(name);
    } catch (RuntimeException e) {
      if (closed) {
        LOG.debug("opening {} as it arrived stopped with the node: {}", name, e.toString());
      } else {
        LOG.info(
            "opening {} as it arrived failed; its first request opens it: {}", name, e.toString());
      }
    } finally {
      opens.release();
    }
  }

  /** Watches the streams each newly taken-over process had open, until they are placed. */
  private void watchTakeovers() {
    for (Takeover takeover = takeovers.poll(); takeover != null; takeover = takeovers.poll()) {
      for (StreamEntry stream : takeover.state().streams().values()) {
        if (stream.isOpen()
            && stream.nodeId() == takeover.nodeId()
            && stream.openedNodeEpoch() == takeover.nodeEpoch()) {
          watched.put(stream.streamId(), takeover.nodeId());
        }
      }
    }
  }

  /**
   * Moves the watched streams placed here to {@link #arrived}, and stops watching those that went
   * elsewhere: opened again, placed on another node, deleted, or left to their node's next process.
   */
  private void placedHere(MetadataState state) {
    for (Iterator<Map.Entry<Long, Integer>> it = watched.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Integer> entry = it.next();
      StreamEntry stream = state.stream(entry.getKey()).orElse(null);
      int deadNode = entry.getValue();
      if (closedHere(stream)) {
        arrived.add(entry.getKey());
        it.remove();
      } else if (!stillRecovering(state, stream, deadNode)) {
        it.remove();
      }
    }
    watching = !watched.isEmpty();
  }

  /**
   * Whether {@code stream} still waits on the takeover of {@code deadNode}: open there, or closed
   * there and not yet placed again, while that node is taken over.
   */
  private static boolean stillRecovering(MetadataState state, StreamEntry stream, int deadNode) {
    NodeRecord node = state.nodes().get(deadNode);
    return stream != null
        && stream.nodeId() == deadNode
        && node != null
        && node.isTakenOver()
        && (!stream.isOpen() || stream.openedNodeEpoch() == node.nodeEpoch());
  }

  @Override
  public void close() {
    closed = true;
    plane.removeListener(onApplied);
    rounds.close();
  }
}
