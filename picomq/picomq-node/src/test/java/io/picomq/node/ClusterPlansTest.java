package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.apply.Applied;
import io.picomq.meta.apply.MetadataApplier;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.apply.Result;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.server.routing.NodeLivenessCheck;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Drain and rebalance plans on states built by applying commands through the real applier, as the
 * metadata log would.
 */
class ClusterPlansTest {
  private static final NodeLivenessCheck ALL_LIVE = NodeLivenessCheck.NONE_DEAD;

  private MetadataState state = MetadataState.empty();

  @Test
  void drainGoesToTheLowestRatioCountingWhatItPlannedTiesToTheLowestId() {
    register(1, 1);
    register(2, 2);
    register(3, 1);
    onNode(2, 1);
    List<Long> drained = onNode(3, 4);

    DrainPlan plan = ClusterPlans.drain(state, 3, ALL_LIVE);

    // Ratios before each stream: 0/1 vs 1/2 -> 1; 1/1 vs 1/2 -> 2; 1/1 vs 2/2 (tie) -> 1; 2/1 vs
    // 2/2 -> 2.
    assertThat(plan)
        .isEqualTo(
            new DrainPlan.Moves(
                3,
                List.of(
                    new PlannedMove(drained.get(0), 3, 1),
                    new PlannedMove(drained.get(1), 3, 2),
                    new PlannedMove(drained.get(2), 3, 1),
                    new PlannedMove(drained.get(3), 3, 2)),
                List.of()));
  }

  @Test
  void drainLeavesStreamsWithAPendingTransferAndNamesThem() {
    register(1, 1);
    register(2, 1);
    register(3, 1);
    long open = onNode(2, 1).getFirst();
    long closed = onNode(2, 1).getFirst();
    apply(new Command.OpenStream(open, 2, 1));
    apply(new Command.TransferStream(open, 3));

    DrainPlan plan = ClusterPlans.drain(state, 2, ALL_LIVE);

    assertThat(plan)
        .isEqualTo(
            new DrainPlan.Moves(
                2,
                List.of(new PlannedMove(closed, 2, 1)),
                List.of(new PendingTransfer(open, 2, 3, 0))));
  }

  @Test
  void drainPassesByNodesWithoutSlotsTakenOverOrPresumedDead() {
    register(1, 1);
    register(2, 1);
    register(3, 1);
    register(4, 1);
    register(5, 1);
    long stream = onNode(1, 1).getFirst();
    apply(new Command.SetNodeSlots(2, 0));
    apply(new Command.TakeOverNode(3, 1, 1, 1));
    NodeLivenessCheck fourIsDead = (nodeId, nodeEpoch) -> nodeId == 4;

    assertThat(ClusterPlans.drain(state, 1, fourIsDead))
        .isEqualTo(new DrainPlan.Moves(1, List.of(new PlannedMove(stream, 1, 5)), List.of()));
    NodeLivenessCheck fourAndFiveAreDead = (nodeId, nodeEpoch) -> nodeId >= 4;
    assertThat(ClusterPlans.drain(state, 1, fourAndFiveAreDead))
        .isEqualTo(new DrainPlan.NoTarget(1));
  }

  @Test
  void drainOfAnUnknownNodeOrOfTheOnlyNode() {
    assertThat(ClusterPlans.drain(state, 1, ALL_LIVE)).isEqualTo(new DrainPlan.UnknownNode(1));
    register(1, 1);
    // Nothing to move, but nowhere to place a new stream either once its slots are gone.
    assertThat(ClusterPlans.drain(state, 1, ALL_LIVE)).isEqualTo(new DrainPlan.NoTarget(1));
  }

  @Test
  void rebalanceSpreadsFromTheMostLoadedToTheLeastHighestStreamIdFirst() {
    register(1, 1);
    register(2, 1);
    register(3, 1);
    List<Long> streams = onNode(1, 6);

    List<PlannedMove> moves = ClusterPlans.rebalance(state, ALL_LIVE);

    assertThat(moves)
        .containsExactly(
            new PlannedMove(streams.get(5), 1, 2),
            new PlannedMove(streams.get(4), 1, 3),
            new PlannedMove(streams.get(3), 1, 2),
            new PlannedMove(streams.get(2), 1, 3));
    assertThat(ClusterPlans.rebalance(applied(moves), ALL_LIVE)).isEmpty();
  }

  @Test
  void rebalanceFollowsSlots() {
    register(1, 1);
    register(2, 3);
    onNode(1, 8);

    List<PlannedMove> moves = ClusterPlans.rebalance(state, ALL_LIVE);

    // Shares: 8 * 1/4 = 2 and 8 * 3/4 = 6.
    assertThat(moves).hasSize(6).allMatch(move -> move.fromNodeId() == 1 && move.toNodeId() == 2);
  }

  @Test
  void rebalanceMovesNothingWhenEveryNodeIsWithinOneOfItsShare() {
    register(1, 1);
    register(2, 1);
    register(3, 1);
    onNode(1, 4);
    onNode(2, 3);
    onNode(3, 3);
    assertThat(ClusterPlans.rebalance(state, ALL_LIVE)).isEmpty();

    onNode(1, 1);
    onNode(2, 1);
    // 5, 4, 3 of 12: shares 4 each; node 1 and node 3 are one off, a move evens them out.
    assertThat(ClusterPlans.rebalance(state, ALL_LIVE))
        .hasSize(1)
        .first()
        .satisfies(
            move -> {
              assertThat(move.fromNodeId()).isEqualTo(1);
              assertThat(move.toNodeId()).isEqualTo(3);
            });
  }

  @Test
  void rebalanceNeverMovesAPendingStreamAndCountsItOnItsTarget() {
    register(1, 1);
    register(2, 1);
    List<Long> streams = onNode(1, 4);
    long last = streams.getLast();
    apply(new Command.OpenStream(last, 1, 1));
    apply(new Command.TransferStream(last, 2));

    List<PlannedMove> moves = ClusterPlans.rebalance(state, ALL_LIVE);

    // Node 1 holds 3 for the plan, node 2 one (on its way): one more move evens them out.
    assertThat(moves).containsExactly(new PlannedMove(streams.get(2), 1, 2));
  }

  @Test
  void rebalanceLeavesNodesThatCannotTakeStreamsAlone() {
    register(1, 1);
    register(2, 1);
    register(3, 1);
    register(4, 1);
    onNode(1, 4);
    onNode(3, 5);
    onNode(4, 5);
    apply(new Command.SetNodeSlots(3, 0));
    NodeLivenessCheck fourIsDead = (nodeId, nodeEpoch) -> nodeId == 4;

    List<PlannedMove> moves = ClusterPlans.rebalance(state, fourIsDead);

    assertThat(moves).hasSize(2).allMatch(move -> move.fromNodeId() == 1 && move.toNodeId() == 2);
    assertThat(ClusterPlans.rebalance(state, (nodeId, nodeEpoch) -> nodeId != 1)).isEmpty();
  }

  @Test
  void plansAreDeterministic() {
    register(1, 2);
    register(2, 1);
    register(3, 3);
    onNode(1, 7);
    onNode(2, 2);
    onNode(3, 1);
    assertThat(ClusterPlans.rebalance(state, ALL_LIVE))
        .isEqualTo(ClusterPlans.rebalance(state, ALL_LIVE));
    assertThat(ClusterPlans.drain(state, 1, ALL_LIVE))
        .isEqualTo(ClusterPlans.drain(state, 1, ALL_LIVE));
    // And every planned move is one the log accepts.
    List<PlannedMove> moves = ClusterPlans.rebalance(state, ALL_LIVE);
    assertThat(moves).isNotEmpty();
    assertThat(ClusterPlans.rebalance(applied(moves), ALL_LIVE)).isEmpty();
  }

  private void register(int nodeId, int slots) {
    apply(new Command.RegisterNode(nodeId, 1, "http://node-" + nodeId, slots));
  }

  /** Creates {@code count} closed streams and puts them on {@code nodeId}; returns their ids. */
  private List<Long> onNode(int nodeId, int count) {
    Outcome.StreamsCreated created =
        (Outcome.StreamsCreated) apply(new Command.CreateStreams(count));
    List<Long> ids = new ArrayList<>();
    for (long id = created.firstStreamId(); id < created.firstStreamId() + count; id++) {
      apply(new Command.TransferStream(id, nodeId));
      ids.add(id);
    }
    return ids;
  }

  /** The state after the moves, each applied as the transfer verbs propose it. */
  private MetadataState applied(List<PlannedMove> moves) {
    MetadataState saved = state;
    for (PlannedMove move : moves) {
      apply(new Command.TransferStream(move.streamId(), move.toNodeId()));
    }
    MetadataState after = state;
    state = saved;
    return after;
  }

  private Outcome apply(Command command) {
    Applied applied = MetadataApplier.apply(state, command);
    assertThat(applied.result()).as("%s", command).isInstanceOf(Result.Ok.class);
    state = applied.state();
    return ((Result.Ok) applied.result()).outcome();
  }
}
