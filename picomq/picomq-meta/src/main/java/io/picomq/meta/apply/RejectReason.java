package io.picomq.meta.apply;

/** Why apply refused a command. The state is unchanged by a rejected command. */
public enum RejectReason {
  /** The node id is not registered, or the command's node epoch is newer than the registered. */
  NODE_NOT_REGISTERED,
  /** The command comes from an older process of the node than the registered one. */
  STALE_NODE_EPOCH,
  /** The command comes from a node process another node took over (it must register anew). */
  NODE_TAKEN_OVER,
  /** The target node of a slots change or transfer is not registered. */
  UNKNOWN_NODE,
  /** No registered node offers a slot, so a stream cannot be placed. */
  NO_NODE_AVAILABLE,
  /** The stream id was never allocated, or the stream was deleted. */
  UNKNOWN_STREAM,
  /** The command's stream epoch is not the stream's current epoch. */
  FENCED_STREAM_EPOCH,
  /** The command's node is not the node the stream belongs to. */
  NOT_OWNER,
  /** Another live node process holds the stream open. */
  OPEN_ON_OTHER_NODE,
  /** The stream is being handed to another node; it cannot be opened until that completes. */
  TRANSFER_IN_PROGRESS,
  /** A different transfer of the stream is already pending. */
  TRANSFER_CONFLICT,
  /** No transfer of the stream is pending. */
  NO_PENDING_TRANSFER,
  /** The stream must be closed first. */
  STREAM_NOT_CLOSED,
  /** Offsets leave a gap or overlap with what the stream or the compacted objects hold. */
  OFFSET_MISMATCH,
  /** An object id was not prepared, or its preparation expired. */
  OBJECT_NOT_PREPARED,
  /** A compaction's source objects are gone or are not what the compaction expects. */
  OBJECT_CONFLICT,
  /** Objects reported as cleaned are still committed or prepared: their bytes must not go. */
  OBJECT_STILL_REACHABLE,
  /** The key already has a different value. */
  KEY_EXISTS
}
