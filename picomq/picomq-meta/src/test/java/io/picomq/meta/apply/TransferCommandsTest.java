package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.state.PendingTransfer;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TransferCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();
  private long stream;

  @BeforeEach
  void aStreamOpenOnNodeOne() {
    machine.register(1, 100);
    machine.register(2, 100);
    machine.register(3, 100);
    stream = machine.create();
    machine.open(stream, 1, 100);
  }

  @Test
  void theFullHandoffMovesTheStreamAndTheTargetOpensItAtTheNextEpoch() {
    assertThat(machine.ok(new Command.TransferStream(stream, 2)))
        .isEqualTo(new Outcome.TransferRecorded(stream, 1, 2, 0, false));
    assertThat(machine.state.pendingTransfer(stream))
        .contains(new PendingTransfer(stream, 1, 2, 0));

    machine.append(1, 100, stream, 5); // the source flushes what it accepted
    machine.ok(new Command.CloseStream(stream, 0, 1, 100));
    assertThat(machine.ok(new Command.CompleteTransfer(stream, 0)))
        .isEqualTo(new Outcome.TransferCompleted(stream, 2, 0));

    assertThat(machine.state.pendingTransfers()).isEmpty();
    assertThat(machine.stream(stream).nodeId()).isEqualTo(2);
    assertThat(machine.state.node(1).orElseThrow().placedStreams()).isZero();
    assertThat(machine.state.node(2).orElseThrow().placedStreams()).isEqualTo(1);
    assertThat(machine.ok(new Command.OpenStream(stream, 2, 100)))
        .isEqualTo(new Outcome.StreamOpened(stream, 1, 0, 5));
  }

  @Test
  void repeatingTheTransferIsRedundantAndAnotherTargetIsAConflict() {
    machine.ok(new Command.TransferStream(stream, 2));

    assertThat(machine.redundant(new Command.TransferStream(stream, 2)))
        .isEqualTo(new Outcome.TransferRecorded(stream, 1, 2, 0, false));
    machine.rejected(new Command.TransferStream(stream, 3), RejectReason.TRANSFER_CONFLICT);
  }

  @Test
  void aCancelWithdrawsThePendingTransferAndTheSourceMayOpenAgain() {
    machine.ok(new Command.TransferStream(stream, 2));
    machine.ok(new Command.CloseStream(stream, 0, 1, 100)); // the source had begun its handoff

    assertThat(machine.ok(new Command.CancelTransfer(stream)))
        .isEqualTo(new Outcome.TransferCancelled(stream, true));
    assertThat(machine.state.pendingTransfers()).isEmpty();
    assertThat(machine.stream(stream).nodeId()).isEqualTo(1);
    assertThat(machine.redundant(new Command.CancelTransfer(stream)))
        .isEqualTo(new Outcome.TransferCancelled(stream, false));
    assertThat(machine.ok(new Command.OpenStream(stream, 1, 100)))
        .isInstanceOf(Outcome.StreamOpened.class);
  }

  @Test
  void cancellingForAnUnknownStreamIsRefused() {
    machine.rejected(new Command.CancelTransfer(stream + 100), RejectReason.UNKNOWN_STREAM);
  }

  @Test
  void aClosedStreamMovesAtOnce() {
    machine.ok(new Command.CloseStream(stream, 0, 1, 100));

    assertThat(machine.ok(new Command.TransferStream(stream, 2)))
        .isEqualTo(new Outcome.TransferRecorded(stream, 1, 2, 0, true));
    assertThat(machine.state.pendingTransfers()).isEmpty();
    assertThat(machine.stream(stream).nodeId()).isEqualTo(2);
  }

  @Test
  void transferringToTheNodeItIsOnIsRedundant() {
    assertThat(machine.redundant(new Command.TransferStream(stream, 1)))
        .isEqualTo(new Outcome.TransferRecorded(stream, 1, 1, 0, true));
  }

  @Test
  void anUnknownTargetOrStreamIsRefused() {
    machine.rejected(new Command.TransferStream(stream, 9), RejectReason.UNKNOWN_NODE);
    machine.rejected(new Command.TransferStream(9, 2), RejectReason.UNKNOWN_STREAM);
    machine.rejected(new Command.CompleteTransfer(9, 0), RejectReason.UNKNOWN_STREAM);
  }

  @Test
  void completionIsAcceptedOnlyAfterTheCloseAtExactlyTheRecordedEpoch() {
    machine.ok(new Command.TransferStream(stream, 2));

    machine.rejected(new Command.CompleteTransfer(stream, 0), RejectReason.STREAM_NOT_CLOSED);
    machine.ok(new Command.CloseStream(stream, 0, 1, 100));
    machine.rejected(new Command.CompleteTransfer(stream, 1), RejectReason.FENCED_STREAM_EPOCH);
    machine.ok(new Command.CompleteTransfer(stream, 0));
  }

  @Test
  void repeatingTheCompletionIsRedundantUntilTheTargetOpens() {
    machine.ok(new Command.TransferStream(stream, 2));
    machine.ok(new Command.CloseStream(stream, 0, 1, 100));
    machine.ok(new Command.CompleteTransfer(stream, 0));

    assertThat(machine.redundant(new Command.CompleteTransfer(stream, 0)))
        .isEqualTo(new Outcome.TransferCompleted(stream, 2, 0));
    machine.open(stream, 2, 100);
  }

  @Test
  void completingWithoutATransferIsRefused() {}

  @Test
  void theSourceCannotCommitOnceTheStreamMoved() {
    machine.ok(new Command.TransferStream(stream, 2));
    machine.ok(new Command.CloseStream(stream, 0, 1, 100));
    machine.ok(new Command.CompleteTransfer(stream, 0));
    long late = machine.prepare(1, 1_000);

    machine.rejected(
        ApplyHarness.commit(late, 1, 100, List.of(new CommittedRange(stream, 0, 0, 3)), List.of()),
        RejectReason.NOT_OWNER);
  }
}
