package io.picomq.meta.apply;

import io.picomq.meta.command.Command.CloseStream;
import io.picomq.meta.command.Command.DeleteStream;
import io.picomq.meta.command.Command.OpenStream;
import io.picomq.meta.command.Command.PlaceStream;
import io.picomq.meta.command.Command.TrimStream;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.ObjectCatalog;
import io.picomq.meta.state.StreamEntry;
import java.util.Optional;

/** The stream lifecycle: create, place, open, trim, close, delete. */
final class StreamTransitions {

  private StreamTransitions() {}

  static Applied create(MetadataState state, int count) {
    long first = state.nextStreamId();
    MetadataState next = state;
    for (long id = first; id < first + count; id++) {
      next = next.withStream(StreamEntry.created(id));
    }
    return Applied.ok(
        next.withNextStreamId(first + count), new Outcome.StreamsCreated(first, count));
  }

  static Applied place(MetadataState state, PlaceStream c) {
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return unknownStream(state, c.streamId());
    }
    if (stream.isPlaced()
        && (stream.isOpen()
            || canHoldStreams(state, stream.nodeId())
            || state.pendingTransfer(c.streamId()).isPresent())) {
      return Applied.redundant(state, new Outcome.StreamPlaced(c.streamId(), stream.nodeId()));
    }
    Optional<NodeRecord> target = NodeTransitions.placementTarget(state);
    if (target.isEmpty()) {
      return Applied.rejected(
          state, RejectReason.NO_NODE_AVAILABLE, "no registered node has a free slot");
    }
    int nodeId = target.get().nodeId();
    return Applied.ok(
        state.withStream(stream.onNode(nodeId)), new Outcome.StreamPlaced(c.streamId(), nodeId));
  }

  /**
   * Whether placement could choose {@code nodeId}: registered, with slots, not taken over. A closed
   * stream placed on a node that cannot (taken over, or drained to 0 slots) is placed again, unless
   * a transfer is moving it.
   */
  private static boolean canHoldStreams(MetadataState state, int nodeId) {
    NodeRecord node = state.nodes().get(nodeId);
    return node != null && node.slots() > 0 && !node.isTakenOver();
  }

  /**
   * Opens a stream at the next epoch on the proposing process, which becomes the stream's node.
   * Only a closed stream opens (a repeat by the process holding it open is redundant). A stream
   * still open on any other process, even a dead or restarted one, stays refused until that
   * process's WAL was recovered and the stream closed at the recovered end: by the node's next
   * process, or by the node that took it over. Opening it "because its holder restarted" would lose
   * what the holder acknowledged and had not yet committed.
   */
  static Applied open(MetadataState state, OpenStream c) {
    Optional<Applied> refused =
        NodeTransitions.refuseUnlessCurrent(state, c.nodeId(), c.nodeEpoch());
    if (refused.isPresent()) {
      return refused.get();
    }
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return unknownStream(state, c.streamId());
    }
    if (state.pendingTransfers().containsKey(c.streamId())) {
      return Applied.rejected(
          state,
          RejectReason.TRANSFER_IN_PROGRESS,
          "stream " + c.streamId() + " is being transferred");
    }
    if (stream.isOpen()) {
      if (stream.nodeId() == c.nodeId() && stream.openedNodeEpoch() == c.nodeEpoch()) {
        return Applied.redundant(state, opened(stream));
      }
      return Applied.rejected(
          state,
          RejectReason.OPEN_ON_OTHER_NODE,
          "stream "
              + c.streamId()
              + " is open on node "
              + stream.nodeId()
              + " epoch "
              + stream.openedNodeEpoch());
    }
    StreamEntry opened = stream.opened(c.nodeId(), c.nodeEpoch());
    return Applied.ok(state.withStream(opened), opened(opened));
  }

  static Applied trim(MetadataState state, TrimStream c) {
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return unknownStream(state, c.streamId());
    }
    if (c.epoch() != stream.epoch()) {
      return fenced(state, stream, c.epoch());
    }
    if (c.newStartOffset() > stream.endOffset()) {
      return Applied.rejected(
          state,
          RejectReason.OFFSET_MISMATCH,
          "trim of stream "
              + c.streamId()
              + " to "
              + c.newStartOffset()
              + " passes its end offset "
              + stream.endOffset());
    }
    if (c.newStartOffset() <= stream.startOffset()) {
      return Applied.redundant(
          state, new Outcome.StreamTrimmed(c.streamId(), stream.startOffset()));
    }
    ObjectCatalog.Detached detached = state.catalog().trimStream(c.streamId(), c.newStartOffset());
    MetadataState next =
        state
            .withCatalog(detached.catalog())
            .withDestroyed(detached.unreachableObjectIds())
            .withStream(stream.withStartOffset(c.newStartOffset()));
    return Applied.ok(next, new Outcome.StreamTrimmed(c.streamId(), c.newStartOffset()));
  }

  static Applied close(MetadataState state, CloseStream c) {
    Optional<Applied> refused =
        NodeTransitions.refuseUnlessCurrent(state, c.nodeId(), c.nodeEpoch());
    if (refused.isPresent()) {
      return refused.get();
    }
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return unknownStream(state, c.streamId());
    }
    if (c.epoch() != stream.epoch()) {
      return fenced(state, stream, c.epoch());
    }
    if (!NodeTransitions.actsFor(state, c.nodeId(), stream.nodeId())) {
      return notOwner(state, stream, c.nodeId());
    }
    Outcome outcome = new Outcome.StreamClosed(c.streamId(), stream.epoch());
    if (!stream.isOpen()) {
      return Applied.redundant(state, outcome);
    }
    if (c.expectedEndOffset() != CloseStream.ANY_END
        && c.expectedEndOffset() != stream.endOffset()) {
      // The commit it was offered behind did not apply (or not yet): closing now would close the
      // stream short of records its owner acknowledged.
      return Applied.rejected(
          state,
          RejectReason.OFFSET_MISMATCH,
          "close of stream "
              + c.streamId()
              + " expects end offset "
              + c.expectedEndOffset()
              + ", but it is "
              + stream.endOffset());
    }
    return Applied.ok(state.withStream(stream.closed()), outcome);
  }

  static Applied delete(MetadataState state, DeleteStream c) {
    StreamEntry stream = state.streams().get(c.streamId());
    if (stream == null) {
      return state.wasDeleted(c.streamId())
          ? Applied.redundant(state, new Outcome.StreamDeleted(c.streamId()))
          : unknownStream(state, c.streamId());
    }
    ObjectCatalog.Detached detached = state.catalog().dropStream(c.streamId());
    MetadataState next =
        state
            .withCatalog(detached.catalog())
            .withDestroyed(detached.unreachableObjectIds())
            .withoutStream(c.streamId())
            .withoutPendingTransfer(c.streamId());
    return Applied.ok(next, new Outcome.StreamDeleted(c.streamId()));
  }

  static Outcome.StreamOpened opened(StreamEntry stream) {
    return new Outcome.StreamOpened(
        stream.streamId(), stream.epoch(), stream.startOffset(), stream.endOffset());
  }

  static Applied unknownStream(MetadataState state, long streamId) {
    String why = state.wasDeleted(streamId) ? " was deleted" : " does not exist";
    return Applied.rejected(state, RejectReason.UNKNOWN_STREAM, "stream " + streamId + why);
  }

  static Applied fenced(MetadataState state, StreamEntry stream, long epoch) {
    return Applied.rejected(
        state,
        RejectReason.FENCED_STREAM_EPOCH,
        "stream " + stream.streamId() + " is at epoch " + stream.epoch() + ", not " + epoch);
  }

  static Applied notOwner(MetadataState state, StreamEntry stream, int nodeId) {
    return Applied.rejected(
        state,
        RejectReason.NOT_OWNER,
        "stream " + stream.streamId() + " belongs to node " + stream.nodeId() + ", not " + nodeId);
  }
}
