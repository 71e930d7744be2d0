package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {

  private final ApplyHarness machine = new ApplyHarness();

  private int place(long streamId) {
    return ((Outcome.StreamPlaced) machine.ok(new Command.PlaceStream(streamId))).nodeId();
  }

  @Test
  void streamsGoToTheLowestPlacedToSlotsRatioWithTiesToTheLowestNodeId() {
    machine.ok(new Command.RegisterNode(2, 1, "b", 3));
    machine.ok(new Command.RegisterNode(1, 1, "a", 1));
    List<Integer> nodes = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      nodes.add(place(machine.create()));
    }
    // Ratios before each placement (node 1 of 1 slot, node 2 of 3 slots):
    // 0/1=0/3 tie->1; 1/1>0/3->2; 1/1>1/3->2; 1/1>2/3->2; 1/1=3/3 tie->1;
    // 2/1>3/3->2; 2/1>4/3->2; 2/1>5/3->2.
    assertThat(nodes).containsExactly(1, 2, 2, 2, 1, 2, 2, 2);
    assertThat(machine.state.node(1).orElseThrow().placedStreams()).isEqualTo(2);
    assertThat(machine.state.node(2).orElseThrow().placedStreams()).isEqualTo(6);
  }

  @Test
  void aNodeWithoutSlotsGetsNothingAndNoSlotsAnywhereIsRefused() {
    machine.ok(new Command.RegisterNode(1, 1, "a", 0));
    machine.ok(new Command.RegisterNode(2, 1, "b", 1));
    assertThat(place(machine.create())).isEqualTo(2);
    assertThat(place(machine.create())).isEqualTo(2);

    machine.ok(new Command.SetNodeSlots(2, 0));
    machine.rejected(new Command.PlaceStream(machine.create()), RejectReason.NO_NODE_AVAILABLE);
  }

  @Test
  void noNodeAtAllIsRefused() {
    machine.rejected(new Command.PlaceStream(machine.create()), RejectReason.NO_NODE_AVAILABLE);
  }

  @Test
  void aClosedStreamOnANodeThatCanHoldNoStreamsIsPlacedAgain() {
    machine.register(1, 1);
    machine.register(2, 1);
    machine.register(3, 1);
    long drained = machine.create();
    machine.open(drained, 1, 1);
    machine.ok(new Command.CloseStream(drained, 0, 1, 1));
    long orphan = machine.create();
    machine.open(orphan, 2, 1);
    machine.ok(new Command.CloseStream(orphan, 0, 2, 1));
    long stillOpen = machine.create();
    machine.open(stillOpen, 1, 1);

    machine.ok(new Command.SetNodeSlots(1, 0)); // drained
    machine.ok(new Command.TakeOverNode(2, 1, 3, 1)); // died
    assertThat(place(drained)).isEqualTo(3);
    assertThat(place(orphan)).isEqualTo(3);
    assertThat(machine.redundant(new Command.PlaceStream(stillOpen)))
        .isEqualTo(new Outcome.StreamPlaced(stillOpen, 1));
  }

  @Test
  void placingAPlacedStreamIsRedundantAndNamesItsNode() {
    machine.register(1, 1);
    long stream = machine.create();
    place(stream);

    assertThat(machine.redundant(new Command.PlaceStream(stream)))
        .isEqualTo(new Outcome.StreamPlaced(stream, 1));
  }

  @Test
  void placementCountsFollowOpensAndDeletes() {
    machine.register(1, 1);
    machine.register(2, 1);
    long first = machine.create();
    long second = machine.create();
    place(first); // node 1
    machine.open(first, 2, 1); // moves to node 2
    assertThat(machine.state.node(1).orElseThrow().placedStreams()).isZero();
    assertThat(machine.state.node(2).orElseThrow().placedStreams()).isEqualTo(1);
    assertThat(place(second)).isEqualTo(1);

    machine.ok(new Command.DeleteStream(first));
    assertThat(machine.state.node(2).orElseThrow().placedStreams()).isZero();
  }

  @Test
  void placingAnUnknownOrDeletedStreamIsRefused() {
    machine.register(1, 1);
    machine.rejected(new Command.PlaceStream(0), RejectReason.UNKNOWN_STREAM);
    long stream = machine.create();
    machine.ok(new Command.DeleteStream(stream));
    machine.rejected(new Command.PlaceStream(stream), RejectReason.UNKNOWN_STREAM);
  }
}
