package io.picomq.server.metadata;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.StreamEntry;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's stream lifecycle on the metadata plane: each call proposes one command carrying this
 * node process's identity and completes once this node applied it.
 */
public final class PlaneStreamManager implements StreamManager {
  private final MetadataPlane plane;
  private final HandoffCompletions completions;

  /**
   * @param completions told of every close this node proposes, so a handoff's completion follows
   *     its close into the log at once
   */
  public PlaneStreamManager(MetadataPlane plane, HandoffCompletions completions) {
    this.plane = plane;
    this.completions = completions;
  }

  @Override
  public CompletableFuture<List<StreamMetadata>> openingStreams() {
    NodeIdentity me = plane.identity();
    List<StreamMetadata> opening = new ArrayList<>();
    for (StreamEntry stream : plane.state().streams().values()) {
      if (stream.isOpen()
          && stream.nodeId() == me.nodeId()
          && stream.openedNodeEpoch() < me.nodeEpoch()) {
        opening.add(metadata(stream));
      }
    }
    return CompletableFuture.completedFuture(List.copyOf(opening));
  }

  @Override
  public CompletableFuture<StreamMetadata> openStream(long streamId) {
    NodeIdentity me = plane.identity();
    return engineFuture(
        plane
            .proposeAccepted(new Command.OpenStream(streamId, me.nodeId(), me.nodeEpoch()))
            .thenApply(
                outcome -> {
                  Outcome.StreamOpened opened = (Outcome.StreamOpened) outcome;
                  return new StreamMetadata(
                      streamId,
                      opened.epoch(),
                      opened.startOffset(),
                      opened.endOffset(),
                      StreamMetadata.StreamState.OPENED,
                      me.nodeId());
                }));
  }

  @Override
  public CompletableFuture<Void> trimStream(long streamId, long epoch, long newStartOffset) {
    return engineFuture(
        plane
            .proposeAccepted(new Command.TrimStream(streamId, epoch, newStartOffset))
            .thenApply(outcome -> null));
  }

  @Override
  public CompletableFuture<Void> closeStream(long streamId, long epoch) {
    NodeIdentity me = plane.identity();
    CompletableFuture<Outcome> closed =
        plane.proposeAccepted(
            new Command.CloseStream(streamId, epoch, me.nodeId(), me.nodeEpoch()));
    completions.closing(streamId, epoch);
    return engineFuture(closed.thenApply(outcome -> null));
  }

  /**
   * The log applies this process's proposals in the order offered, so a close offered right after a
   * commit is applied after it: the plane may close at an end offset (see {@link
   * Command.CloseStream#expectedEndOffset()}).
   */
  @Override
  public CompletableFuture<Void> closeStreamAt(long streamId, long epoch, long endOffset) {
    NodeIdentity me = plane.identity();
    CompletableFuture<Outcome> closed =
        plane.proposeAccepted(
            new Command.CloseStream(streamId, epoch, me.nodeId(), me.nodeEpoch(), endOffset));
    completions.closing(streamId, epoch);
    return engineFuture(closed.thenApply(outcome -> null));
  }

  @Override
  public CompletableFuture<Void> deleteStream(long streamId, long epoch) {
    return engineFuture(
        plane.proposeAccepted(new Command.DeleteStream(streamId)).thenApply(outcome -> null));
  }

  static StreamMetadata metadata(StreamEntry stream) {
    return new StreamMetadata(
        stream.streamId(),
        stream.epoch(),
        stream.startOffset(),
        stream.endOffset(),
        stream.isOpen() ? StreamMetadata.StreamState.OPENED : StreamMetadata.StreamState.CLOSED,
        stream.nodeId());
  }

  /** The same future, with refusals in the engine's vocabulary. */
  static <T> CompletableFuture<T> engineFuture(CompletableFuture<T> future) {
    CompletableFuture<T> translated = new CompletableFuture<>();
    future.whenComplete(
        (value, failure) -> {
          if (failure != null) {
            translated.completeExceptionally(Rejections.forEngine(failure));
          } else {
            translated.complete(value);
          }
        });
    return translated;
  }
}
