package io.picomq.node;

import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.routing.NodeLivenessCheck;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Plans the stream moves of the operator verbs drain and rebalance from one metadata state and one
 * liveness reading. Pure and deterministic: the same inputs give the same moves, in the same order.
 * Proposing them, and reporting what the log made of each, is {@link TransferVerbs}' job; the log
 * still validates every move, so a plan made from a view that is already stale costs a refusal,
 * never a wrong state.
 *
 * <p>A node can take streams when it offers at least one slot and was not taken over (what
 * placement in the log considers) and is not presumed dead by its liveness row (which the log
 * cannot see, but the node answering the operator can). A stream with a pending transfer is never
 * planned again.
 *
 * <p>Ratios are compared by cross-multiplying, as placement does: stream counts stay below 2^31 (a
 * state holds at most that many), a node's slots below 2^16 and the sum of all slots below 2^32 in
 * any cluster of fewer than 65,536 nodes, so the products fit in a long.
 */
final class ClusterPlans {

  private ClusterPlans() {}

  /** Whether {@code node} may be given streams: slots, not taken over, not presumed dead. */
  static boolean canTakeStreams(NodeRecord node, NodeLivenessCheck liveness) {
    return node.slots() > 0
        && !node.isTakenOver()
        && !liveness.presumedDead(node.nodeId(), node.nodeEpoch());
  }

  /**
   * Moves every stream of {@code nodeId} that has no pending transfer to another node, chosen as
   * placement chooses: the lowest ratio of (placed streams + streams this plan already sent there)
   * to slots, ties to the lowest node id. Streams go in id order.
   */
  static DrainPlan drain(MetadataState state, int nodeId, NodeLivenessCheck liveness) {
    if (state.nodes().get(nodeId) == null) {
      return new DrainPlan.UnknownNode(nodeId);
    }
    List<NodeRecord> targets = new ArrayList<>();
    Map<Integer, Long> load = new HashMap<>();
    for (NodeRecord node : state.nodes().values()) {
      if (node.nodeId() != nodeId && canTakeStreams(node, liveness)) {
        targets.add(node);
        load.put(node.nodeId(), node.placedStreams());
      }
    }
    if (targets.isEmpty()) {
      return new DrainPlan.NoTarget(nodeId);
    }
    List<PlannedMove> moves = new ArrayList<>();
    List<PendingTransfer> alreadyMoving = new ArrayList<>();
    for (StreamEntry stream : state.streams().values()) {
      if (stream.nodeId() != nodeId) {
        continue;
      }
      Optional<PendingTransfer> pending = state.pendingTransfer(stream.streamId());
      if (pending.isPresent()) {
        alreadyMoving.add(pending.get());
        continue;
      }
      NodeRecord target = leastLoaded(targets, load);
      load.merge(target.nodeId(), 1L, Long::sum);
      moves.add(new PlannedMove(stream.streamId(), nodeId, target.nodeId()));
    }
    return new DrainPlan.Moves(nodeId, moves, alreadyMoving);
  }

  /**
   * Moves streams between the nodes that can take streams until each holds about its share, {@code
   * total * slots / sum of slots}: each move takes the stream with the highest id (and no pending
   * transfer) from the node furthest above its share to the node furthest below it (ties to the
   * lowest node id). A stream with a pending transfer counts on its target.
   *
   * <p>It stops when every node is within one stream of its share, or when the next move would not
   * bring the two nodes closer to their shares (the sum of both distances is at most one stream):
   * each move made lowers the sum of squared distances, so the plan ends and never moves a stream
   * back and forth. Streams on nodes that cannot take streams stay where they are (drain a live
   * node with 0 slots to empty it; a dead node's streams are recovered by its takeover).
   */
  static List<PlannedMove> rebalance(MetadataState state, NodeLivenessCheck liveness) {
    SortedMap<Integer, Integer> slots = new TreeMap<>();
    Map<Integer, Long> count = new HashMap<>();
    Map<Integer, Deque<Long>> movable = new HashMap<>();
    for (NodeRecord node : state.nodes().values()) {
      if (canTakeStreams(node, liveness)) {
        slots.put(node.nodeId(), node.slots());
        count.put(node.nodeId(), 0L);
        movable.put(node.nodeId(), new ArrayDeque<>());
      }
    }
    for (StreamEntry stream : state.streams().values()) {
      Optional<PendingTransfer> pending = state.pendingTransfer(stream.streamId());
      int holder = pending.map(PendingTransfer::toNodeId).orElse(stream.nodeId());
      count.computeIfPresent(holder, (node, held) -> held + 1);
      Deque<Long> candidates = movable.get(stream.nodeId());
      if (pending.isEmpty() && candidates != null) {
        candidates.push(stream.streamId()); // streams come in id order: the highest ends on top
      }
    }
    long total = count.values().stream().mapToLong(Long::longValue).sum();
    long slotSum = slots.values().stream().mapToLong(Integer::longValue).sum();
    List<PlannedMove> moves = new ArrayList<>();
    while (true) {
      // A node's distance from its share, in units of 1/slotSum stream: count - total*slots/sum.
      long highest = Long.MIN_VALUE;
      long lowest = Long.MAX_VALUE;
      int source = -1;
      long sourceDistance = 0;
      int target = -1;
      long targetDistance = 0;
      for (Map.Entry<Integer, Integer> node : slots.entrySet()) {
        int nodeId = node.getKey();
        long distance = count.get(nodeId) * slotSum - total * node.getValue();
        highest = Math.max(highest, distance);
        lowest = Math.min(lowest, distance);
        if (distance > 0
            && !movable.get(nodeId).isEmpty()
            && (source < 0 || distance > sourceDistance)) {
          source = nodeId;
          sourceDistance = distance;
        }
        if (distance < 0 && (target < 0 || distance < targetDistance)) {
          target = nodeId;
          targetDistance = distance;
        }
      }
      boolean everyNodeWithinOne = highest < slotSum && -lowest < slotSum;
      if (source < 0
          || target < 0
          || everyNodeWithinOne
          || sourceDistance - targetDistance <= slotSum) {
        return moves;
      }
      long streamId = movable.get(source).pop();
      count.merge(source, -1L, Long::sum);
      count.merge(target, 1L, Long::sum);
      moves.add(new PlannedMove(streamId, source, target));
    }
  }

  /** Lowest load/slots; visited in id order, only a strictly lower ratio replaces the best. */
  private static NodeRecord leastLoaded(List<NodeRecord> targets, Map<Integer, Long> load) {
    NodeRecord best = null;
    long bestLoad = 0;
    for (NodeRecord node : targets) {
      long nodeLoad = load.get(node.nodeId());
      if (best == null || nodeLoad * best.slots() < bestLoad * node.slots()) {
        best = node;
        bestLoad = nodeLoad;
      }
    }
    return best;
  }
}
