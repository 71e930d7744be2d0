package io.picomq.meta.command;

import io.picomq.meta.state.KvValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One change to cluster state, as proposed to the metadata log. Nothing changes the state any other
 * way.
 *
 * <p>Commands that a node proposes about its own work (register, open, close, commit, compact)
 * carry the node's id and the epoch of its current process; apply refuses them from any process but
 * the registered one. Nothing in a command depends on the applying node: a time, such as an expiry,
 * is computed by the proposer from its own clock and carried as a value.
 */
public sealed interface Command {

  /** Upper bound on streams created, or object ids prepared, by one command. */
  int MAX_BATCH = 10_000;

  /** Upper bound on a node's placement slots. */
  int MAX_SLOTS = 65_535;

  /** Upper bound on the UTF-8 length of an advertised address. */
  int MAX_ADDRESS_BYTES = 1024;

  /** Upper bound on the UTF-8 length of a KV key. */
  int MAX_KEY_BYTES = 1024;

  /**
   * A node process announces itself. {@code nodeEpoch} is fresh per process start (its start time
   * in ms); an epoch lower than the registered one is refused.
   */
  record RegisterNode(int nodeId, long nodeEpoch, String advertisedAddress, int slots)
      implements Command {
    public RegisterNode {
      requireNode(nodeId, nodeEpoch);
      Text.requireUtf8("advertised address", advertisedAddress, MAX_ADDRESS_BYTES);
      requireSlots(slots);
    }
  }

  /** Changes how many placement slots a node offers (0: it takes no newly placed streams). */
  record SetNodeSlots(int nodeId, int slots) implements Command {
    public SetNodeSlots {
      requireNode(nodeId, 0);
      requireSlots(slots);
    }
  }

  /** Puts an unplaced stream on the registered node with the lowest placed/slots ratio. */
  record PlaceStream(long streamId) implements Command {
    public PlaceStream {
      requireStream(streamId);
    }
  }

  /** Allocates one new stream: epoch -1, empty at offset 0, closed, on no node. */
  record CreateStream() implements Command {}

  /** Allocates {@code count} new streams with consecutive ids. */
  record CreateStreams(int count) implements Command {
    public CreateStreams {
      requireBatch("stream count", count);
    }
  }

  /**
   * Opens a stream for appends on a node process, moving it to the next epoch and fencing writers
   * of the previous one.
   */
  record OpenStream(long streamId, int nodeId, long nodeEpoch) implements Command {
    public OpenStream {
      requireStream(streamId);
      requireNode(nodeId, nodeEpoch);
    }
  }

  /** Moves a stream's start offset forward; objects left below it become garbage. */
  record TrimStream(long streamId, long epoch, long newStartOffset) implements Command {
    public TrimStream {
      requireStream(streamId);
      requireEpoch(epoch);
      if (newStartOffset < 0) {
        throw new IllegalArgumentException("new start offset must be >= 0, got " + newStartOffset);
      }
    }
  }

  /**
   * The owner stops appending to a stream at {@code epoch} after flushing what it accepted; or the
   * node that took the owner over closes it at the end it recovered from the owner's WAL.
   *
   * <p>With an {@code expectedEndOffset} ({@code >= 0}), the close applies only if the stream's
   * committed end offset is exactly that: the owner may then offer it right behind the commit of
   * its last records, before that commit applied (the log applies one process's proposals in the
   * order offered), and a commit that fails takes the close with it instead of closing the stream
   * short of what it acknowledged. {@link #ANY_END} closes at whatever end the stream has.
   */
  record CloseStream(long streamId, long epoch, int nodeId, long nodeEpoch, long expectedEndOffset)
      implements Command {
    /** No expected end offset: the close applies at the end the stream has. */
    public static final long ANY_END = -1;

    public CloseStream {
      requireStream(streamId);
      requireEpoch(epoch);
      requireNode(nodeId, nodeEpoch);
      if (expectedEndOffset < ANY_END) {
        throw new IllegalArgumentException(
            "expectedEndOffset must be >= 0 or ANY_END: " + expectedEndOffset);
      }
    }

    /** A close at whatever end the stream has. */
    public CloseStream(long streamId, long epoch, int nodeId, long nodeEpoch) {
      this(streamId, epoch, nodeId, nodeEpoch, ANY_END);
    }
  }

  /** Removes a stream; its objects become garbage. Its id is never reused. */
  record DeleteStream(long streamId) implements Command {
    public DeleteStream {
      requireStream(streamId);
    }
  }

  /**
   * Reserves {@code count} consecutive object ids for uploads. Ids not committed by {@code
   * expiresAtMillis} (the proposer's clock) are reclaimed by {@link ExpirePreparedObjects}.
   */
  record PrepareObjects(int count, long expiresAtMillis) implements Command {
    public PrepareObjects {
      requireBatch("object count", count);
    }
  }

  /**
   * Commits an uploaded stream-set object and the stream objects uploaded with it.
   *
   * <p>With no {@code compactedObjectIds} this commits new data: per stream, the ranges (of the
   * stream-set object and the stream objects together) must start exactly at the stream's end
   * offset and be contiguous, and advance it. With {@code compactedObjectIds} it replaces those
   * stream-set objects by the new objects, which must hold exactly their live offsets.
   *
   * <p>{@code objectId} is {@link #NO_OBJECT} when everything went into stream objects; then {@code
   * ranges} is empty and {@code objectSizeBytes} is 0. {@code ranges} is sorted by (stream, start
   * offset) without overlaps, like the object's index.
   */
  record CommitStreamSetObject(
      long objectId,
      int nodeId,
      long nodeEpoch,
      long objectSizeBytes,
      List<CommittedRange> ranges,
      List<NewStreamObject> streamObjects,
      List<Long> compactedObjectIds)
      implements Command {

    /** The {@code objectId} of a commit made only of stream objects. */
    public static final long NO_OBJECT = -1;

    public CommitStreamSetObject {
      requireNode(nodeId, nodeEpoch);
      ranges = List.copyOf(ranges);
      streamObjects = List.copyOf(streamObjects);
      compactedObjectIds = List.copyOf(compactedObjectIds);
      if (objectId < NO_OBJECT || objectSizeBytes < 0) {
        throw new IllegalArgumentException("object id must be >= -1 and size >= 0");
      }
      if (objectId == NO_OBJECT && (!ranges.isEmpty() || objectSizeBytes != 0)) {
        throw new IllegalArgumentException("a commit without a stream-set object has ranges");
      }
      if (objectId != NO_OBJECT && ranges.isEmpty()) {
        throw new IllegalArgumentException("stream-set object " + objectId + " has no range");
      }
      if (objectId == NO_OBJECT && streamObjects.isEmpty()) {
        throw new IllegalArgumentException("a commit must create at least one object");
      }
      for (int i = 1; i < ranges.size(); i++) {
        CommittedRange before = ranges.get(i - 1);
        CommittedRange after = ranges.get(i);
        if (before.compareTo(after) >= 0
            || (before.streamId() == after.streamId()
                && before.endOffset() > after.startOffset())) {
          throw new IllegalArgumentException("ranges unsorted or overlapping at " + after);
        }
      }
      Set<Long> created = requireDistinct("new object ids", newObjectIds(objectId, streamObjects));
      for (long source : requireDistinct("compacted object ids", compactedObjectIds)) {
        if (source < 0 || created.contains(source)) {
          throw new IllegalArgumentException("bad compacted object id " + source);
        }
      }
    }

    /** The ids this commit creates: the stream-set object's (if any), then the stream objects'. */
    public List<Long> newObjectIds() {
      return newObjectIds(objectId, streamObjects);
    }

    public boolean isCompaction() {
      return !compactedObjectIds.isEmpty();
    }

    private static List<Long> newObjectIds(long objectId, List<NewStreamObject> streamObjects) {
      List<Long> ids = new ArrayList<>(streamObjects.size() + 1);
      if (objectId != NO_OBJECT) {
        ids.add(objectId);
      }
      for (NewStreamObject object : streamObjects) {
        ids.add(object.objectId());
      }
      return ids;
    }
  }

  /**
   * Replaces contiguous stream objects of one stream by one stream object holding exactly {@code
   * [startOffset, endOffset)}, their union.
   */
  record CompactStreamObjects(
      long objectId,
      long streamId,
      long startOffset,
      long endOffset,
      long objectSizeBytes,
      List<Long> sourceObjectIds,
      int nodeId,
      long nodeEpoch)
      implements Command {
    public CompactStreamObjects {
      requireStream(streamId);
      requireNode(nodeId, nodeEpoch);
      sourceObjectIds = List.copyOf(sourceObjectIds);
      if (objectId < 0 || objectSizeBytes < 0 || startOffset < 0 || endOffset <= startOffset) {
        throw new IllegalArgumentException(
            "compaction needs object id >= 0, size >= 0 and 0 <= start < end");
      }
      if (sourceObjectIds.isEmpty()) {
        throw new IllegalArgumentException("compaction of stream " + streamId + " has no source");
      }
      for (long source : requireDistinct("source object ids", sourceObjectIds)) {
        if (source < 0 || source == objectId) {
          throw new IllegalArgumentException("bad source object id " + source);
        }
      }
    }
  }

  /** Reclaims prepared ids whose expiry is at or before {@code nowMillis}, the proposer's now. */
  record ExpirePreparedObjects(long nowMillis) implements Command {}

  /** Reports that the bytes of these destroyed objects are gone from storage. */
  record CleanDestroyedObjects(List<Long> objectIds) implements Command {
    public CleanDestroyedObjects {
      objectIds = List.copyOf(objectIds);
      if (objectIds.isEmpty()) {
        throw new IllegalArgumentException("nothing to clean");
      }
      for (long id : requireDistinct("cleaned object ids", objectIds)) {
        if (id < 0) {
          throw new IllegalArgumentException("bad object id " + id);
        }
      }
    }
  }

  /** Sets a key to a value, replacing any previous value. */
  record KvPut(String key, KvValue value) implements Command {
    public KvPut {
      requireKey(key);
      requireValue(value);
    }
  }

  /** Sets a key only if it has no value. */
  record KvPutIfAbsent(String key, KvValue value) implements Command {
    public KvPutIfAbsent {
      requireKey(key);
      requireValue(value);
    }
  }

  /** Removes a key. */
  record KvDelete(String key) implements Command {
    public KvDelete {
      requireKey(key);
    }
  }

  /**
   * The registered process {@code nodeEpoch} of {@code nodeId} stopped renewing its liveness row:
   * the process {@code takerNodeEpoch} of {@code takerNodeId} takes over its WAL. From now on every
   * command of the failed process is refused, and the taker may commit and close the streams the
   * failed node had open. Proposed again with another taker, it hands the unfinished takeover on.
   */
  record TakeOverNode(int nodeId, long nodeEpoch, int takerNodeId, long takerNodeEpoch)
      implements Command {
    public TakeOverNode {
      requireNode(nodeId, nodeEpoch);
      requireNode(takerNodeId, takerNodeEpoch);
      if (nodeId == takerNodeId) {
        throw new IllegalArgumentException("node " + nodeId + " cannot take over itself");
      }
    }
  }

  /** Asks for a stream to move to another node (a closed stream moves at once). */
  record TransferStream(long streamId, int toNodeId) implements Command {
    public TransferStream {
      requireStream(streamId);
      requireNode(toNodeId, 0);
    }
  }

  /** The source has closed the stream at {@code closedEpoch}: the stream moves to the target. */
  record CompleteTransfer(long streamId, long closedEpoch) implements Command {
    public CompleteTransfer {
      requireStream(streamId);
      if (closedEpoch < 0) {
        throw new IllegalArgumentException("closed epoch must be >= 0, got " + closedEpoch);
      }
    }
  }

  /**
   * Withdraws a pending transfer (an operator's cancel, or the source's fallback when the target
   * died): the stream stays with its source. Redundant when none is pending.
   */
  record CancelTransfer(long streamId) implements Command {
    public CancelTransfer {
      requireStream(streamId);
    }
  }

  private static void requireStream(long streamId) {
    if (streamId < 0) {
      throw new IllegalArgumentException("streamId must be >= 0, got " + streamId);
    }
  }

  private static void requireNode(int nodeId, long nodeEpoch) {
    if (nodeId < 0 || nodeEpoch < 0) {
      throw new IllegalArgumentException(
          "node id and node epoch must be >= 0, got " + nodeId + "@" + nodeEpoch);
    }
  }

  private static void requireEpoch(long epoch) {
    if (epoch < -1) {
      throw new IllegalArgumentException("stream epoch must be >= -1, got " + epoch);
    }
  }

  private static void requireSlots(int slots) {
    if (slots < 0 || slots > MAX_SLOTS) {
      throw new IllegalArgumentException("slots must be in 0.." + MAX_SLOTS + ", got " + slots);
    }
  }

  private static void requireBatch(String what, int count) {
    if (count < 1 || count > MAX_BATCH) {
      throw new IllegalArgumentException(what + " must be in 1.." + MAX_BATCH + ", got " + count);
    }
  }

  private static void requireKey(String key) {
    if (Text.requireUtf8("KV key", key, MAX_KEY_BYTES) == 0) {
      throw new IllegalArgumentException("KV key is empty");
    }
  }

  private static void requireValue(KvValue value) {
    if (value == null) {
      throw new IllegalArgumentException("KV value is null");
    }
  }

  private static Set<Long> requireDistinct(String what, List<Long> ids) {
    Set<Long> seen = new HashSet<>();
    for (Long id : ids) {
      if (id == null || !seen.add(id)) {
        throw new IllegalArgumentException(what + " contain " + id + " twice or null");
      }
    }
    return seen;
  }
}
