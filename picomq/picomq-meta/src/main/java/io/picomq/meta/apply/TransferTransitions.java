package io.picomq.meta.apply;

import io.picomq.meta.command.Command.CancelTransfer;
import io.picomq.meta.command.Command.CompleteTransfer;
import io.picomq.meta.command.Command.TransferStream;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.StreamEntry;

/**
 * Moving a stream between nodes without node-to-node calls. A closed stream moves at once. An open
 * one gets a pending transfer: opens are refused meanwhile, so the epoch stays where it was; the
 * source closes the stream at that epoch and proposes completion with it, which re-points the
 * stream to the target. A cancel withdraws a pending transfer: the stream stays where it is (open,
 * or closed at the pending epoch on its source, which opens it again).
 */
final class TransferTransitions {

  private TransferTransitions() {}

  static Applied transfer(MetadataState state, TransferStream c) {
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return StreamTransitions.unknownStream(state, c.streamId());
    }
    if (state.nodes().get(c.toNodeId()) == null) {
      return Applied.rejected(
          state, RejectReason.UNKNOWN_NODE, "target node " + c.toNodeId() + " is not registered");
    }
    PendingTransfer pending = state.pendingTransfers().get(c.streamId());
    if (pending != null) {
      if (pending.toNodeId() == c.toNodeId()) {
        return Applied.redundant(state, recorded(pending));
      }
      return Applied.rejected(
          state,
          RejectReason.TRANSFER_CONFLICT,
          "stream " + c.streamId() + " is already moving to node " + pending.toNodeId());
    }
    if (stream.nodeId() == c.toNodeId()) {
      return Applied.redundant(
          state,
          new Outcome.TransferRecorded(
              c.streamId(), c.toNodeId(), c.toNodeId(), stream.epoch(), true));
    }
    if (!stream.isOpen()) {
      return Applied.ok(
          state.withStream(stream.onNode(c.toNodeId())),
          new Outcome.TransferRecorded(
              c.streamId(), stream.nodeId(), c.toNodeId(), stream.epoch(), true));
    }
    PendingTransfer started =
        new PendingTransfer(c.streamId(), stream.nodeId(), c.toNodeId(), stream.epoch());
    return Applied.ok(state.withPendingTransfer(started), recorded(started));
  }

  static Applied complete(MetadataState state, CompleteTransfer c) {
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return StreamTransitions.unknownStream(state, c.streamId());
    }
    PendingTransfer pending = state.pendingTransfers().get(c.streamId());
    if (pending == null) {
      if (!stream.isOpen() && stream.epoch() == c.closedEpoch()) {
        // A repeated completion: the stream sits closed where the first one put it.
        return Applied.redundant(
            state, new Outcome.TransferCompleted(c.streamId(), stream.nodeId(), stream.epoch()));
      }
      return Applied.rejected(
          state,
          RejectReason.NO_PENDING_TRANSFER,
          "stream " + c.streamId() + " has no pending transfer");
    }
    if (c.closedEpoch() != pending.epoch()) {
      return StreamTransitions.fenced(state, stream, c.closedEpoch());
    }
    if (stream.isOpen()) {
      return Applied.rejected(
          state,
          RejectReason.STREAM_NOT_CLOSED,
          "stream " + c.streamId() + " is still open on node " + stream.nodeId());
    }
    MetadataState next =
        state.withStream(stream.onNode(pending.toNodeId())).withoutPendingTransfer(c.streamId());
    return Applied.ok(
        next, new Outcome.TransferCompleted(c.streamId(), pending.toNodeId(), pending.epoch()));
  }

  static Applied cancel(MetadataState state, CancelTransfer c) {
    if (state.streams().get(c.streamId()) == null) {
      return StreamTransitions.unknownStream(state, c.streamId());
    }
    PendingTransfer pending = state.pendingTransfers().get(c.streamId());
    if (pending == null) {
      return Applied.redundant(state, new Outcome.TransferCancelled(c.streamId(), false));
    }
    return Applied.ok(
        state.withoutPendingTransfer(c.streamId()),
        new Outcome.TransferCancelled(c.streamId(), true));
  }

  private static Outcome.TransferRecorded recorded(PendingTransfer pending) {
    return new Outcome.TransferRecorded(
        pending.streamId(), pending.fromNodeId(), pending.toNodeId(), pending.epoch(), false);
  }
}
