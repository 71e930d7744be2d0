package io.picomq.meta.apply;

/**
 * What an applied command did, or for a redundant one, what was already there. One record per
 * command family.
 */
public sealed interface Outcome {

  record NodeRegistered(int nodeId, long nodeEpoch) implements Outcome {}

  record NodeSlotsSet(int nodeId, int slots) implements Outcome {}

  /**
   * Node {@code nodeId}'s process {@code nodeEpoch} is in the hands of node {@code takerNodeId}.
   */
  record NodeTakenOver(int nodeId, long nodeEpoch, int takerNodeId) implements Outcome {}

  record StreamPlaced(long streamId, int nodeId) implements Outcome {}

  /** Streams {@code firstStreamId .. firstStreamId + count - 1} exist now. */
  record StreamsCreated(long firstStreamId, int count) implements Outcome {}

  /** The stream is open at {@code epoch} and holds offsets {@code [startOffset, endOffset)}. */
  record StreamOpened(long streamId, long epoch, long startOffset, long endOffset)
      implements Outcome {}

  record StreamTrimmed(long streamId, long startOffset) implements Outcome {}

  record StreamClosed(long streamId, long epoch) implements Outcome {}

  record StreamDeleted(long streamId) implements Outcome {}

  /** Object ids {@code firstObjectId .. firstObjectId + count - 1} are reserved. */
  record ObjectsPrepared(long firstObjectId, int count, long expiresAtMillis) implements Outcome {}

  /** The commit's objects are in the catalog ({@code objectId} is -1 for stream objects only). */
  record StreamSetObjectCommitted(long objectId) implements Outcome {}

  record StreamObjectsCompacted(long objectId) implements Outcome {}

  record PreparedObjectsExpired(int count) implements Outcome {}

  record DestroyedObjectsCleaned(int count) implements Outcome {}

  record KeyWritten(String key) implements Outcome {}

  record KeyDeleted(String key) implements Outcome {}

  /**
   * A transfer of a stream from {@code fromNodeId} at {@code epoch}: {@code completed} when the
   * stream was closed and moved at once, otherwise pending until the source closes it.
   */
  record TransferRecorded(
      long streamId, int fromNodeId, int toNodeId, long epoch, boolean completed)
      implements Outcome {}

  record TransferCompleted(long streamId, int toNodeId, long epoch) implements Outcome {}

  /** {@code withdrawn} when a pending transfer was removed; false when none was pending. */
  record TransferCancelled(long streamId, boolean withdrawn) implements Outcome {}
}
