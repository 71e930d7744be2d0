package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.state.NodeRecord;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();

  @Test
  void registrationRecordsTheNodeAndRepeatingItIsRedundant() {
    Command register = new Command.RegisterNode(3, 1_000, "10.0.0.3:9092", 2);

    assertThat(machine.ok(register)).isEqualTo(new Outcome.NodeRegistered(3, 1_000));
    assertThat(machine.state.node(3)).contains(new NodeRecord(3, 1_000, "10.0.0.3:9092", 2, 0));
    assertThat(machine.redundant(register)).isEqualTo(new Outcome.NodeRegistered(3, 1_000));
  }

  @Test
  void aRestartedProcessRegistersAHigherEpochAndTheOldOneIsRefused() {
    machine.ok(new Command.RegisterNode(1, 1_000, "a:1", 1));
    machine.ok(new Command.RegisterNode(1, 2_000, "b:1", 3));

    assertThat(machine.state.node(1)).contains(new NodeRecord(1, 2_000, "b:1", 3, 0));
    machine.rejected(new Command.RegisterNode(1, 1_000, "a:1", 1), RejectReason.STALE_NODE_EPOCH);
  }

  @Test
  void theSameProcessMayChangeItsAddressOrSlots() {
    machine.ok(new Command.RegisterNode(1, 1_000, "a:1", 1));
    machine.ok(new Command.RegisterNode(1, 1_000, "a:2", 1));

    assertThat(machine.state.node(1).orElseThrow().advertisedAddress()).isEqualTo("a:2");
  }

  @Test
  void reRegistrationKeepsTheNodesPlacedStreams() {
    machine.register(1, 1_000);
    long stream = machine.create();
    machine.open(stream, 1, 1_000);
    machine.register(1, 2_000);

    assertThat(machine.state.node(1).orElseThrow().placedStreams()).isEqualTo(1);
  }

  @Test
  void slotsChangeAndRepeatingTheChangeIsRedundant() {
    machine.register(1, 1_000);

    assertThat(machine.ok(new Command.SetNodeSlots(1, 4)))
        .isEqualTo(new Outcome.NodeSlotsSet(1, 4));
    assertThat(machine.state.node(1).orElseThrow().slots()).isEqualTo(4);
    machine.redundant(new Command.SetNodeSlots(1, 4));
  }

  @Test
  void slotsOfAnUnknownNodeAreRefused() {
    machine.rejected(new Command.SetNodeSlots(9, 4), RejectReason.UNKNOWN_NODE);
  }

  /** Every command that carries a node identity, built for node 1 at the given node epoch. */
  static Stream<Arguments> commandsCarryingANodeIdentity() {
    List<BiFunction<Integer, Long, Command>> builders =
        List.of(
            (node, epoch) -> new Command.OpenStream(0, node, epoch),
            (node, epoch) -> new Command.CloseStream(0, 0, node, epoch),
            (node, epoch) ->
                new Command.CommitStreamSetObject(
                    0,
                    node,
                    epoch,
                    10,
                    List.of(new CommittedRange(0, 0, 0, 5)),
                    List.of(),
                    List.of()),
            (node, epoch) ->
                new Command.CompactStreamObjects(0, 0, 0, 5, 10, List.of(7L), node, epoch));
    return builders.stream().map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("commandsCarryingANodeIdentity")
  void onlyTheRegisteredProcessOfANodeIsHeard(BiFunction<Integer, Long, Command> build) {
    machine.rejected(build.apply(1, 1_000L), RejectReason.NODE_NOT_REGISTERED);
    machine.register(1, 1_000);
    machine.create();
    machine.register(1, 2_000);

    machine.rejected(build.apply(1, 1_000L), RejectReason.STALE_NODE_EPOCH);
    machine.rejected(build.apply(1, 3_000L), RejectReason.NODE_NOT_REGISTERED);
    assertThat(machine.apply(build.apply(1, 2_000L)))
        .as("the registered process gets past the node check")
        .satisfiesAnyOf(
            result -> assertThat(result).isNotInstanceOf(Result.Rejected.class),
            result ->
                assertThat(((Result.Rejected) result).reason())
                    .isNotIn(RejectReason.NODE_NOT_REGISTERED, RejectReason.STALE_NODE_EPOCH));
  }
}
