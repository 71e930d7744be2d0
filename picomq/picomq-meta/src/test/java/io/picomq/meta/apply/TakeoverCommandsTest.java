package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node process that stopped renewing its liveness is taken over: it can change nothing more, and
 * its taker (only its taker) commits what it recovers from the WAL and closes its streams, after
 * which any node opens them.
 */
class TakeoverCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();

  /** Node 1 at epoch 100 holds stream 0 open at epoch 0 with 5 committed records. */
  private long streamOpenOnNodeOne() {
    machine.register(1, 100);
    machine.register(2, 100);
    machine.register(3, 100);
    long stream = machine.create();
    machine.open(stream, 1, 100);
    machine.append(1, 100, stream, 5);
    return stream;
  }

  private Command.CommitStreamSetObject commitAtEnd(int nodeId, long stream, long records) {
    long objectId = machine.prepare(1, 1_000);
    long end = machine.stream(stream).endOffset();
    return ApplyHarness.commit(
        objectId,
        nodeId,
        100,
        List.of(new CommittedRange(stream, machine.stream(stream).epoch(), end, end + records)),
        List.of());
  }

  @Test
  void theTakerCommitsAndClosesTheFailedNodesStreamWhichThenOpensElsewhere() {
    long stream = streamOpenOnNodeOne();

    assertThat(machine.ok(new Command.TakeOverNode(1, 100, 2, 100)))
        .isEqualTo(new Outcome.NodeTakenOver(1, 100, 2));
    machine.ok(commitAtEnd(2, stream, 3)); // records 5..8 recovered from node 1's WAL
    machine.ok(new Command.CloseStream(stream, 0, 2, 100));

    assertThat(machine.stream(stream).isOpen()).isFalse();
    assertThat(machine.stream(stream).endOffset()).isEqualTo(8);
    assertThat(machine.open(stream, 3, 100)).isEqualTo(1);
  }

  @Test
  void theFailedProcessCanChangeNothingMore() {
    long stream = streamOpenOnNodeOne();
    machine.ok(new Command.TakeOverNode(1, 100, 2, 100));

    machine.rejected(commitAtEnd(1, stream, 1), RejectReason.NODE_TAKEN_OVER);
    machine.rejected(new Command.CloseStream(stream, 0, 1, 100), RejectReason.NODE_TAKEN_OVER);
    machine.rejected(new Command.OpenStream(stream, 1, 100), RejectReason.NODE_TAKEN_OVER);
    machine.rejected(
        new Command.RegisterNode(1, 100, "node-1:9092", 1), RejectReason.NODE_TAKEN_OVER);
  }

  @Test
  void nodesOtherThanTheTakerStayRefused() {
    long stream = streamOpenOnNodeOne();
    machine.ok(new Command.TakeOverNode(1, 100, 2, 100));

    machine.rejected(commitAtEnd(3, stream, 1), RejectReason.NOT_OWNER);
    machine.rejected(new Command.CloseStream(stream, 0, 3, 100), RejectReason.NOT_OWNER);
    machine.rejected(new Command.OpenStream(stream, 3, 100), RejectReason.OPEN_ON_OTHER_NODE);
  }

  @Test
  void aRepeatIsRedundantAndAnotherTakerReplacesTheFirst() {
    long stream = streamOpenOnNodeOne();
    machine.ok(new Command.TakeOverNode(1, 100, 2, 100));
    machine.redundant(new Command.TakeOverNode(1, 100, 2, 100));

    machine.ok(new Command.TakeOverNode(1, 100, 3, 100)); // node 2 died mid-way
    machine.rejected(new Command.CloseStream(stream, 0, 2, 100), RejectReason.NOT_OWNER);
    machine.ok(new Command.CloseStream(stream, 0, 3, 100));
  }

  @Test
  void aRecommitOfWhatAnEarlierTakerCommittedIsRedundant() {
    long stream = streamOpenOnNodeOne();
    machine.ok(new Command.TakeOverNode(1, 100, 2, 100));
    Command.CommitStreamSetObject first = commitAtEnd(2, stream, 3);
    machine.ok(first);
    machine.ok(new Command.TakeOverNode(1, 100, 3, 100));

    // Node 3 recovers the same WAL records and commits them under a new object id.
    long objectId = machine.prepare(1, 1_000);
    machine.redundant(
        ApplyHarness.commit(
            objectId, 3, 100, List.of(new CommittedRange(stream, 0, 5, 8)), List.of()));
    assertThat(machine.stream(stream).endOffset()).isEqualTo(8);
  }

  @Test
  void theNodesNextProcessRegistersInGoodStandingAndEndsTheTakeover() {
    long stream = streamOpenOnNodeOne();
    machine.ok(new Command.TakeOverNode(1, 100, 2, 100));

    machine.register(1, 200);
    assertThat(machine.state.node(1).orElseThrow().isTakenOver()).isFalse();
    // The returning node recovers its own WAL now; the taker's rights ended with the takeover.
    machine.rejected(new Command.CloseStream(stream, 0, 2, 100), RejectReason.NOT_OWNER);
    machine.ok(new Command.CloseStream(stream, 0, 1, 200));
    machine.rejected(new Command.TakeOverNode(1, 100, 2, 100), RejectReason.STALE_NODE_EPOCH);
  }

  @Test
  void theTakerMustBeACurrentProcessInGoodStanding() {
    streamOpenOnNodeOne();
    machine.rejected(new Command.TakeOverNode(1, 100, 2, 99), RejectReason.STALE_NODE_EPOCH);
    machine.rejected(new Command.TakeOverNode(1, 100, 7, 100), RejectReason.NODE_NOT_REGISTERED);
    machine.ok(new Command.TakeOverNode(2, 100, 3, 100));
    machine.rejected(new Command.TakeOverNode(1, 100, 2, 100), RejectReason.NODE_TAKEN_OVER);
    machine.rejected(new Command.TakeOverNode(9, 100, 3, 100), RejectReason.UNKNOWN_NODE);
    assertThatThrownBy(() -> new Command.TakeOverNode(1, 100, 1, 100))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void placementPassesATakenOverNodeBy() {
    machine.register(1, 100);
    machine.register(2, 100);
    machine.ok(new Command.TakeOverNode(1, 100, 2, 100));

    for (int i = 0; i < 3; i++) {
      long stream = machine.create();
      assertThat(machine.ok(new Command.PlaceStream(stream)))
          .isEqualTo(new Outcome.StreamPlaced(stream, 2));
    }
  }
}
