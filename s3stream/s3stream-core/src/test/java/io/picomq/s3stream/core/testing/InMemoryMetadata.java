package io.picomq.s3stream.core.testing;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.MetadataRejectedException.Reason;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ObjectMetadata.ObjectType;
import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.StreamMetadata.StreamState;
import io.picomq.s3stream.api.StreamObject;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The metadata plane in one process's memory: the stream registry and the object catalog behind
 * {@link StreamManager} and {@link ObjectManager}, faithful to their contracts so the engine can be
 * tested without the host.
 *
 * <p>What it enforces, as the host's metadata plane does:
 *
 * <ul>
 *   <li>Node epochs: {@link #register} a node at an epoch fences every earlier epoch of that node;
 *       each call through a {@link Node} view of a fenced epoch fails with {@link
 *       Reason#NODE_FENCED}.
 *   <li>Stream epochs: each open bumps the epoch; trims, closes and commits of new data name the
 *       epoch they were made under and fail with {@link Reason#FENCED} when it is not current.
 *   <li>Contiguous commits: new data of a stream must start exactly at its committed end and be
 *       gap-free; a commit entirely below the end is a harmless repeat, one partly below is
 *       refused.
 *   <li>Object ids: only prepared ids may be committed; an id already catalogued makes the commit a
 *       repeat (object ids are single-use).
 *   <li>Failover: after {@link #failNode} the failed process is fenced, and its taker may commit to
 *       and close the streams it left open ({@link Node#orphanedStreams}); a later process of the
 *       failed node ends the failover (the taker may then no longer), and recovers the rest itself.
 * </ul>
 *
 * <p>Every change happens under one lock at call time, so calls apply in the order they were made;
 * futures are completed on the given executor (by default the calling thread) after the lock is
 * released, so a caller never runs its continuation inside this class's lock.
 */
public final class InMemoryMetadata {

  private final ReentrantLock lock = new ReentrantLock();
  private final Clock clock;
  private final Executor completions;

  // Guarded by lock.
  private final Map<Integer, Long> nodeEpochs = new HashMap<>();
  private final Map<Integer, Failover> failovers = new HashMap<>();
  private final TreeMap<Long, StreamEntry> streams = new TreeMap<>();
  private final Set<Long> deletedStreams = new HashSet<>();
  private final Map<Long, Instant> prepared = new HashMap<>();
  private final TreeMap<Long, CatalogEntry> catalog = new TreeMap<>();
  private final List<CommitStreamSetObjectRequest> commits = new ArrayList<>();
  private final List<Long> destroyed = new ArrayList<>();
  private long nextStreamId;
  private long nextObjectId;
  private long nextCatalogSequence;

  /** Completes futures on the calling thread, with the system clock. */
  public InMemoryMetadata() {
    this(Clock.systemUTC(), Runnable::run);
  }

  /**
   * @param clock stamps the expiry of prepared object ids
   * @param completions runs the completion of every returned future
   */
  public InMemoryMetadata(Clock clock, Executor completions) {
    this.clock = clock;
    this.completions = completions;
  }

  /**
   * Registers a process of node {@code nodeId} and returns its view of the metadata. A higher epoch
   * fences every earlier process of the node; the same epoch returns another view of the same
   * process.
   *
   * @throws MetadataRejectedException {@link Reason#NODE_FENCED} for an epoch lower than the one
   *     registered
   */
  public Node register(int nodeId, long nodeEpoch) {
    lock.lock();
    try {
      Long current = nodeEpochs.get(nodeId);
      if (current != null && current > nodeEpoch) {
        throw new MetadataRejectedException(
            Reason.NODE_FENCED,
            "node " + nodeId + " is registered at epoch " + current + ", not " + nodeEpoch);
      }
      nodeEpochs.put(nodeId, nodeEpoch);
      Failover failover = failovers.get(nodeId);
      if (failover != null && nodeEpoch > failover.failedEpoch) {
        failovers.remove(nodeId); // the node is back: its new process recovers what is left
      }
      return new Node(nodeId, nodeEpoch);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Declares the current process of node {@code nodeId} failed, and node {@code takerNodeId} its
   * taker: the failed process is fenced from now on ({@link Reason#NODE_FENCED}), and the taker may
   * commit to and close the streams that process has open, through {@link Node#orphanedStreams}.
   */
  public void failNode(int nodeId, int takerNodeId) {
    lock.lock();
    try {
      Long epoch = nodeEpochs.get(nodeId);
      if (epoch == null) {
        throw new IllegalArgumentException("node " + nodeId + " was never registered");
      }
      failovers.put(nodeId, new Failover(takerNodeId, epoch));
    } finally {
      lock.unlock();
    }
  }

  /** Creates a stream (epoch -1, closed, empty) and returns its id; the host's create command. */
  public long createStream() {
    lock.lock();
    try {
      long id = nextStreamId++;
      streams.put(id, new StreamEntry(id, -1, 0, 0, StreamState.CLOSED, -1, -1));
      return id;
    } finally {
      lock.unlock();
    }
  }

  /** What the metadata knows of the stream now. */
  public StreamMetadata stream(long streamId) {
    lock.lock();
    try {
      return requireStream(streamId).toMetadata();
    } finally {
      lock.unlock();
    }
  }

  /** Every catalogued object, by id. */
  public List<ObjectMetadata> objects() {
    lock.lock();
    try {
      return catalog.values().stream().map(CatalogEntry::metadata).toList();
    } finally {
      lock.unlock();
    }
  }

  /** Every commit of new data or compaction applied (not repeats), in the order applied. */
  public List<CommitStreamSetObjectRequest> commits() {
    lock.lock();
    try {
      return List.copyOf(commits);
    } finally {
      lock.unlock();
    }
  }

  /** Ids of objects that left the catalog (trim, delete, compaction), in that order. */
  public List<Long> destroyedObjectIds() {
    lock.lock();
    try {
      return List.copyOf(destroyed);
    } finally {
      lock.unlock();
    }
  }

  /** Ids prepared and neither committed nor expired. */
  public Set<Long> preparedObjectIds() {
    lock.lock();
    try {
      return Set.copyOf(prepared.keySet());
    } finally {
      lock.unlock();
    }
  }

  private StreamEntry requireStream(long streamId) {
    StreamEntry stream = streams.get(streamId);
    if (stream == null) {
      throw new MetadataRejectedException(
          Reason.UNKNOWN_STREAM,
          "stream "
              + streamId
              + (deletedStreams.contains(streamId) ? " was deleted" : " is unknown"));
    }
    return stream;
  }

  private static MetadataRejectedException fenced(StreamEntry stream, long epoch) {
    return new MetadataRejectedException(
        Reason.FENCED,
        "stream " + stream.streamId + " is at epoch " + stream.epoch + ", not " + epoch);
  }

  /** One node process's view: the {@link StreamManager} and {@link ObjectManager} it is given. */
  public final class Node implements StreamManager, ObjectManager {
    private final int nodeId;
    private final long nodeEpoch;

    private Node(int nodeId, long nodeEpoch) {
      this.nodeId = nodeId;
      this.nodeEpoch = nodeEpoch;
    }

    public int nodeId() {
      return nodeId;
    }

    public long nodeEpoch() {
      return nodeEpoch;
    }

    @Override
    public CompletableFuture<List<StreamMetadata>> openingStreams() {
      return call(
          () ->
              streams.values().stream()
                  .filter(
                      s ->
                          s.state == StreamState.OPENED
                              && s.ownerNodeId == nodeId
                              && s.openedNodeEpoch < nodeEpoch)
                  .map(StreamEntry::toMetadata)
                  .toList());
    }

    @Override
    public CompletableFuture<StreamMetadata> openStream(long streamId) {
      return call(
          () -> {
            StreamEntry stream = requireStream(streamId);
            if (stream.state == StreamState.OPENED) {
              if (stream.ownerNodeId == nodeId && stream.openedNodeEpoch == nodeEpoch) {
                return stream.toMetadata();
              }
              Long holder = nodeEpochs.get(stream.ownerNodeId);
              if (stream.ownerNodeId != nodeId
                  && holder != null
                  && holder == stream.openedNodeEpoch) {
                throw new MetadataRejectedException(
                    Reason.OPEN_ON_OTHER_NODE,
                    "stream " + streamId + " is open on node " + stream.ownerNodeId);
              }
            }
            StreamEntry opened =
                new StreamEntry(
                    streamId,
                    stream.epoch + 1,
                    stream.startOffset,
                    stream.endOffset,
                    StreamState.OPENED,
                    nodeId,
                    nodeEpoch);
            streams.put(streamId, opened);
            return opened.toMetadata();
          });
    }

    @Override
    public CompletableFuture<Void> trimStream(long streamId, long epoch, long newStartOffset) {
      return call(
          () -> {
            StreamEntry stream = requireStream(streamId);
            if (stream.epoch != epoch) {
              throw fenced(stream, epoch);
            }
            if (newStartOffset > stream.endOffset) {
              throw new MetadataRejectedException(
                  Reason.OFFSET_MISMATCH,
                  "trim of stream "
                      + streamId
                      + " to "
                      + newStartOffset
                      + " passes its end "
                      + stream.endOffset);
            }
            if (newStartOffset > stream.startOffset) {
              streams.put(streamId, stream.withStart(newStartOffset));
              dropRangesBelow(streamId, newStartOffset);
            }
            return null;
          });
    }

    @Override
    public CompletableFuture<Void> closeStream(long streamId, long epoch) {
      return call(() -> close(streamId, epoch));
    }

    /** Applied in call order, as the real plane applies one process's proposals. */
    @Override
    public CompletableFuture<Void> closeStreamAt(long streamId, long epoch, long endOffset) {
      return call(
          () -> {
            StreamEntry stream = requireStream(streamId);
            // Fencing is refused first, by close(), as the real plane does.
            if (stream.epoch == epoch
                && mayWrite(stream)
                && stream.state == StreamState.OPENED
                && stream.endOffset != endOffset) {
              throw new MetadataRejectedException(
                  Reason.OFFSET_MISMATCH,
                  "close of stream "
                      + streamId
                      + " expects end offset "
                      + endOffset
                      + ", but it is "
                      + stream.endOffset);
            }
            return close(streamId, epoch);
          });
    }

    private Void close(long streamId, long epoch) {
      StreamEntry stream = requireStream(streamId);
      if (stream.epoch != epoch) {
        throw fenced(stream, epoch);
      }
      if (!mayWrite(stream)) {
        throw new MetadataRejectedException(
            Reason.FENCED,
            "stream " + streamId + " belongs to node " + stream.ownerNodeId + ", not " + nodeId);
      }
      if (stream.state == StreamState.OPENED) {
        streams.put(streamId, stream.closed());
      }
      return null;
    }

    @Override
    public CompletableFuture<Void> deleteStream(long streamId, long epoch) {
      return call(
          () -> {
            StreamEntry stream = streams.get(streamId);
            if (stream == null && deletedStreams.contains(streamId)) {
              return null;
            }
            stream = requireStream(streamId);
            if (stream.epoch != epoch) {
              throw fenced(stream, epoch);
            }
            streams.remove(streamId);
            deletedStreams.add(streamId);
            dropRangesBelow(streamId, Long.MAX_VALUE);
            return null;
          });
    }

    @Override
    public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
      return call(
          () -> {
            if (count <= 0) {
              throw new IllegalArgumentException("count must be > 0: " + count);
            }
            long first = nextObjectId;
            Instant expiry = clock.instant().plus(ttl);
            for (int i = 0; i < count; i++) {
              prepared.put(nextObjectId++, expiry);
            }
            return first;
          });
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
      return call(
          () -> {
            commit(request);
            return null;
          });
    }

    @Override
    public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
      return call(
          () -> {
            compactStreamObjects(request);
            return null;
          });
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getObjects(
        long streamId, long startOffset, long endOffset, int limit) {
      return call(
          () -> {
            StreamEntry stream = requireStream(streamId);
            long end = endOffset == -1 ? stream.endOffset : endOffset;
            record Hit(long start, ObjectMetadata object) {}
            List<Hit> hits = new ArrayList<>();
            for (CatalogEntry entry : catalog.values()) {
              for (StreamOffsetRange r : entry.metadata.ranges()) {
                if (r.streamId() == streamId
                    && r.startOffset() < end
                    && r.endOffset() > startOffset) {
                  hits.add(new Hit(r.startOffset(), entry.metadata));
                  break;
                }
              }
            }
            hits.sort(Comparator.comparingLong(Hit::start));
            return hits.stream().limit(limit).map(Hit::object).toList();
          });
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
      return call(
          () ->
              catalog.values().stream()
                  .filter(
                      e -> e.ownerNodeId == nodeId && e.metadata.type() == ObjectType.STREAM_SET)
                  .sorted(Comparator.comparingLong(CatalogEntry::sequence))
                  .map(CatalogEntry::metadata)
                  .toList());
    }

    @Override
    public String toString() {
      return "InMemoryMetadata.Node[" + nodeId + "@" + nodeEpoch + "]";
    }

    /**
     * The streams the failed node {@code failedNodeId} left open, as its taker sees them: refused
     * unless this node is its taker and the failover is still on.
     */
    public OrphanedStreams orphanedStreams(int failedNodeId) {
      return new OrphanedStreams() {
        @Override
        public CompletableFuture<List<StreamMetadata>> streams() {
          return call(
              () -> {
                Failover failover = requireFailover(failedNodeId);
                return InMemoryMetadata.this.streams.values().stream()
                    .filter(
                        s ->
                            s.state == StreamState.OPENED
                                && s.ownerNodeId == failedNodeId
                                && s.openedNodeEpoch <= failover.failedEpoch)
                    .map(StreamEntry::toMetadata)
                    .toList();
              });
        }

        @Override
        public CompletableFuture<Void> closeStream(long streamId, long epoch) {
          return call(
              () -> {
                requireFailover(failedNodeId);
                return close(streamId, epoch);
              });
        }
      };
    }

    private Failover requireFailover(int failedNodeId) {
      Failover failover = failovers.get(failedNodeId);
      if (failover == null || failover.takerNodeId != nodeId) {
        throw new MetadataRejectedException(
            Reason.FENCED, "node " + failedNodeId + " is not failed over to node " + nodeId);
      }
      return failover;
    }

    /** Whether this process may commit to and close the stream: its own, or one it took over. */
    private boolean mayWrite(StreamEntry stream) {
      if (stream.ownerNodeId == nodeId) {
        return true;
      }
      Failover failover = failovers.get(stream.ownerNodeId);
      return failover != null
          && failover.takerNodeId == nodeId
          && stream.openedNodeEpoch <= failover.failedEpoch;
    }

    private void commit(CommitStreamSetObjectRequest request) {
      List<Long> newIds = new ArrayList<>();
      if (request.objectId() >= 0) {
        newIds.add(request.objectId());
      }
      request.streamObjects().forEach(o -> newIds.add(o.objectId()));
      for (long id : newIds) {
        if (catalog.containsKey(id)) {
          return; // object ids are single-use: this commit applied before
        }
      }
      for (long id : newIds) {
        if (!prepared.containsKey(id)) {
          throw new MetadataRejectedException(
              Reason.UNKNOWN_OBJECT, "object " + id + " was not prepared (or expired)");
        }
      }
      TreeMap<Long, List<StreamOffsetRange>> byStream = rangesByStream(request);
      for (long streamId : byStream.keySet()) {
        if (!streams.containsKey(streamId) && !deletedStreams.contains(streamId)) {
          throw new MetadataRejectedException(
              Reason.UNKNOWN_STREAM, "stream " + streamId + " is unknown");
        }
      }
      if (request.compactedObjectIds().isEmpty()) {
        commitNewData(request, byStream);
      } else {
        commitCompaction(request, byStream);
      }
    }

    private void commitNewData(
        CommitStreamSetObjectRequest request, TreeMap<Long, List<StreamOffsetRange>> byStream) {
      boolean repeated = false;
      Map<Long, Long> newEnds = new HashMap<>();
      for (Map.Entry<Long, List<StreamOffsetRange>> e : byStream.entrySet()) {
        StreamEntry stream = streams.get(e.getKey());
        if (stream == null) {
          continue; // deleted while the data was in flight: dropped
        }
        Long epoch = request.streamEpochs().get(stream.streamId);
        if (epoch == null) {
          throw new IllegalArgumentException(
              "a commit of new data names no epoch for stream " + stream.streamId);
        }
        if (epoch != stream.epoch) {
          throw fenced(stream, epoch);
        }
        if (!mayWrite(stream)) {
          throw new MetadataRejectedException(
              Reason.FENCED,
              "stream " + stream.streamId + " belongs to node " + stream.ownerNodeId);
        }
        List<StreamOffsetRange> ranges = e.getValue();
        for (int i = 1; i < ranges.size(); i++) {
          if (ranges.get(i - 1).endOffset() != ranges.get(i).startOffset()) {
            throw new MetadataRejectedException(
                Reason.OFFSET_MISMATCH,
                "the commit skips offsets of stream "
                    + stream.streamId
                    + " between "
                    + ranges.get(i - 1).endOffset()
                    + " and "
                    + ranges.get(i).startOffset());
          }
        }
        long first = ranges.get(0).startOffset();
        long last = ranges.get(ranges.size() - 1).endOffset();
        if (last <= stream.endOffset) {
          repeated = true;
        } else if (first == stream.endOffset) {
          if (stream.state == StreamState.CLOSED) {
            throw new MetadataRejectedException(
                Reason.STREAM_CLOSED, "stream " + stream.streamId + " is closed");
          }
          newEnds.put(stream.streamId, last);
        } else {
          throw new MetadataRejectedException(
              Reason.OFFSET_MISMATCH,
              "stream "
                  + stream.streamId
                  + " ends at "
                  + stream.endOffset
                  + "; the commit continues at "
                  + first);
        }
      }
      if (repeated && !newEnds.isEmpty()) {
        throw new MetadataRejectedException(
            Reason.OFFSET_MISMATCH, "the commit repeats data of some streams and adds to others");
      }
      if (repeated) {
        return;
      }
      catalogue(request);
      newEnds.forEach((id, end) -> streams.put(id, streams.get(id).withEnd(end)));
      commits.add(request);
    }

    private void commitCompaction(
        CommitStreamSetObjectRequest request, TreeMap<Long, List<StreamOffsetRange>> byStream) {
      TreeMap<Long, List<StreamOffsetRange>> held = new TreeMap<>();
      for (long sourceId : request.compactedObjectIds()) {
        CatalogEntry source = catalog.get(sourceId);
        if (source == null || source.metadata.type() != ObjectType.STREAM_SET) {
          throw new MetadataRejectedException(
              Reason.UNKNOWN_OBJECT,
              "compaction source " + sourceId + " is not a catalogued stream-set object");
        }
        for (StreamOffsetRange r : source.metadata.ranges()) {
          held.computeIfAbsent(r.streamId(), id -> new ArrayList<>()).add(r);
        }
      }
      Set<Long> all = new HashSet<>(held.keySet());
      all.addAll(byStream.keySet());
      for (long streamId : all) {
        StreamEntry stream = streams.get(streamId);
        if (stream == null) {
          continue;
        }
        List<long[]> before = liveUnion(held.get(streamId), stream.startOffset);
        List<long[]> after = liveUnion(byStream.get(streamId), stream.startOffset);
        if (!sameSpans(before, after)) {
          throw new MetadataRejectedException(
              Reason.OFFSET_MISMATCH, "compaction changes the live offsets of stream " + streamId);
        }
      }
      for (long sourceId : request.compactedObjectIds()) {
        catalog.remove(sourceId);
        destroyed.add(sourceId);
      }
      catalogue(request);
      commits.add(request);
    }

    private void compactStreamObjects(CompactStreamObjectRequest request) {
      StreamObject target = request.target();
      long streamId = target.range().streamId();
      StreamEntry stream = requireStream(streamId);
      List<StreamOffsetRange> sources = new ArrayList<>();
      for (long sourceId : request.sourceObjectIds()) {
        CatalogEntry source = catalog.get(sourceId);
        if (source == null
            || source.metadata.type() != ObjectType.STREAM
            || source.metadata.ranges().get(0).streamId() != streamId) {
          throw new MetadataRejectedException(
              Reason.UNKNOWN_OBJECT,
              "source " + sourceId + " is not a catalogued stream object of stream " + streamId);
        }
        sources.add(source.metadata.ranges().get(0));
      }
      if (!prepared.containsKey(target.objectId())) {
        throw new MetadataRejectedException(
            Reason.UNKNOWN_OBJECT, "object " + target.objectId() + " was not prepared");
      }
      List<long[]> before = liveUnion(sources, stream.startOffset);
      List<long[]> after = liveUnion(List.of(target.range()), stream.startOffset);
      if (!sameSpans(before, after)) {
        throw new MetadataRejectedException(
            Reason.OFFSET_MISMATCH,
            "compacted object " + target.objectId() + " does not hold exactly its sources");
      }
      for (long sourceId : request.sourceObjectIds()) {
        catalog.remove(sourceId);
        destroyed.add(sourceId);
      }
      prepared.remove(target.objectId());
      catalog.put(
          target.objectId(),
          new CatalogEntry(
              new ObjectMetadata(
                  target.objectId(),
                  ObjectType.STREAM,
                  target.sizeBytes(),
                  List.of(target.range()),
                  target.attributes()),
              nodeId,
              nextCatalogSequence++));
    }

    /** Adds the request's objects, keeping only ranges of live streams. */
    private void catalogue(CommitStreamSetObjectRequest request) {
      if (request.objectId() >= 0) {
        List<StreamOffsetRange> live =
            request.streamSetRanges().stream().filter(InMemoryMetadata.this::isLive).toList();
        prepared.remove(request.objectId());
        if (live.isEmpty()) {
          destroyed.add(request.objectId());
        } else {
          catalog.put(
              request.objectId(),
              new CatalogEntry(
                  new ObjectMetadata(
                      request.objectId(), ObjectType.STREAM_SET, request.sizeBytes(), live, 0),
                  nodeId,
                  nextCatalogSequence++));
        }
      }
      for (StreamObject object : request.streamObjects()) {
        prepared.remove(object.objectId());
        if (!isLive(object.range())) {
          destroyed.add(object.objectId());
          continue;
        }
        catalog.put(
            object.objectId(),
            new CatalogEntry(
                new ObjectMetadata(
                    object.objectId(),
                    ObjectType.STREAM,
                    object.sizeBytes(),
                    List.of(object.range()),
                    object.attributes()),
                nodeId,
                nextCatalogSequence++));
      }
    }

    private <T> CompletableFuture<T> call(Supplier<T> operation) {
      T value;
      RuntimeException failure = null;
      lock.lock();
      try {
        Long current = nodeEpochs.get(nodeId);
        if (current == null || current != nodeEpoch) {
          throw new MetadataRejectedException(
              Reason.NODE_FENCED,
              "node " + nodeId + " epoch " + nodeEpoch + " was replaced by epoch " + current);
        }
        Failover failover = failovers.get(nodeId);
        if (failover != null && nodeEpoch <= failover.failedEpoch) {
          throw new MetadataRejectedException(
              Reason.NODE_FENCED, "node " + nodeId + " epoch " + nodeEpoch + " failed");
        }
        value = operation.get();
      } catch (RuntimeException e) {
        value = null;
        failure = e;
      } finally {
        lock.unlock();
      }
      CompletableFuture<T> answer = new CompletableFuture<>();
      T result = value;
      RuntimeException error = failure;
      completions.execute(
          () -> {
            if (error != null) {
              answer.completeExceptionally(error);
            } else {
              answer.complete(result);
            }
          });
      return answer;
    }
  }

  private boolean isLive(StreamOffsetRange range) {
    StreamEntry stream = streams.get(range.streamId());
    return stream != null && range.endOffset() > stream.startOffset;
  }

  /** Removes ranges of {@code streamId} that end at or below {@code offset}; empties objects. */
  private void dropRangesBelow(long streamId, long offset) {
    List<Long> ids = new ArrayList<>(catalog.keySet());
    for (long id : ids) {
      CatalogEntry entry = catalog.get(id);
      List<StreamOffsetRange> kept =
          entry.metadata.ranges().stream()
              .filter(r -> r.streamId() != streamId || r.endOffset() > offset)
              .toList();
      if (kept.size() == entry.metadata.ranges().size()) {
        continue;
      }
      if (kept.isEmpty()) {
        catalog.remove(id);
        destroyed.add(id);
      } else {
        ObjectMetadata m = entry.metadata;
        catalog.put(
            id,
            new CatalogEntry(
                new ObjectMetadata(m.objectId(), m.type(), m.sizeBytes(), kept, m.attributes()),
                entry.ownerNodeId,
                entry.sequence));
      }
    }
  }

  private static TreeMap<Long, List<StreamOffsetRange>> rangesByStream(
      CommitStreamSetObjectRequest request) {
    TreeMap<Long, List<StreamOffsetRange>> byStream = new TreeMap<>();
    for (StreamOffsetRange r : request.streamSetRanges()) {
      byStream.computeIfAbsent(r.streamId(), id -> new ArrayList<>()).add(r);
    }
    for (StreamObject o : request.streamObjects()) {
      byStream.computeIfAbsent(o.range().streamId(), id -> new ArrayList<>()).add(o.range());
    }
    byStream
        .values()
        .forEach(list -> list.sort(Comparator.comparingLong(StreamOffsetRange::startOffset)));
    for (Map.Entry<Long, List<StreamOffsetRange>> e : byStream.entrySet()) {
      List<StreamOffsetRange> ranges = e.getValue();
      for (int i = 1; i < ranges.size(); i++) {
        if (ranges.get(i - 1).endOffset() > ranges.get(i).startOffset()) {
          throw new MetadataRejectedException(
              Reason.OFFSET_MISMATCH,
              "the commit holds offset "
                  + ranges.get(i).startOffset()
                  + " of stream "
                  + e.getKey()
                  + " twice");
        }
      }
    }
    return byStream;
  }

  /** The union of the ranges, as sorted disjoint [start, end) spans, cut at {@code from}. */
  private static List<long[]> liveUnion(List<StreamOffsetRange> ranges, long from) {
    List<long[]> spans = new ArrayList<>();
    if (ranges == null) {
      return spans;
    }
    List<StreamOffsetRange> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparingLong(StreamOffsetRange::startOffset));
    for (StreamOffsetRange r : sorted) {
      long start = Math.max(r.startOffset(), from);
      long end = r.endOffset();
      if (end <= start) {
        continue;
      }
      long[] last = spans.isEmpty() ? null : spans.get(spans.size() - 1);
      if (last != null && start <= last[1]) {
        last[1] = Math.max(last[1], end);
      } else {
        spans.add(new long[] {start, end});
      }
    }
    return spans;
  }

  private static boolean sameSpans(List<long[]> a, List<long[]> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i)[0] != b.get(i)[0] || a.get(i)[1] != b.get(i)[1]) {
        return false;
      }
    }
    return true;
  }

  /** A stream's registry entry; replaced, never mutated. */
  private record StreamEntry(
      long streamId,
      long epoch,
      long startOffset,
      long endOffset,
      StreamState state,
      int ownerNodeId,
      long openedNodeEpoch) {

    StreamMetadata toMetadata() {
      return new StreamMetadata(
          streamId,
          epoch,
          startOffset,
          endOffset,
          state,
          state == StreamState.OPENED ? ownerNodeId : -1);
    }

    StreamEntry withStart(long start) {
      return new StreamEntry(
          streamId, epoch, start, endOffset, state, ownerNodeId, openedNodeEpoch);
    }

    StreamEntry withEnd(long end) {
      return new StreamEntry(
          streamId, epoch, startOffset, end, state, ownerNodeId, openedNodeEpoch);
    }

    StreamEntry closed() {
      return new StreamEntry(
          streamId,
          epoch,
          startOffset,
          endOffset,
          StreamState.CLOSED,
          ownerNodeId,
          openedNodeEpoch);
    }
  }

  /** Node {@code takerNodeId} acts for the failed node's processes up to {@code failedEpoch}. */
  private record Failover(int takerNodeId, long failedEpoch) {}

  /** A catalogued object, who committed it, and when (for oldest-first listings). */
  private record CatalogEntry(ObjectMetadata metadata, int ownerNodeId, long sequence) {}
}
