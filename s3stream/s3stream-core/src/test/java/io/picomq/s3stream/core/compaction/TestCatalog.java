package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.MetadataRejectedException.Reason;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ObjectMetadata.ObjectType;
import io.picomq.s3stream.api.StreamObject;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A small in-memory object catalog for the compaction tests: it keeps committed objects, hands out
 * object ids, and checks what a real metadata plane would: new objects use prepared ids, compacted
 * objects exist and have the right type, and compaction never claims offsets its sources did not
 * hold. It also plays the stream side (start offsets, deleted streams) the compactors are given.
 * Private to these tests; the engine's shared in-memory manager lives elsewhere.
 */
final class TestCatalog implements ObjectManager {

  private final ReentrantLock lock = new ReentrantLock();
  // Guarded by lock.
  private final Map<Long, ObjectMetadata> objects = new TreeMap<>();
  private final Map<Long, Long> orderIds = new HashMap<>();
  private final Set<Long> prepared = new HashSet<>();
  private final Map<Long, Long> startOffsets = new HashMap<>();
  private final Set<Long> deletedStreams = new HashSet<>();
  private long nextObjectId;
  private Supplier<RuntimeException> nextCommitFault;
  private final AtomicInteger commits = new AtomicInteger();

  @Override
  public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
    return locked(
        () -> {
          long first = nextObjectId;
          for (int i = 0; i < count; i++) {
            prepared.add(nextObjectId++);
          }
          return first;
        });
  }

  @Override
  public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
    return locked(
        () -> {
          injectedFault();
          List<Long> newIds = new ArrayList<>();
          if (request.objectId() >= 0) {
            newIds.add(request.objectId());
          }
          request.streamObjects().forEach(o -> newIds.add(o.objectId()));
          newIds.forEach(this::checkPrepared);
          List<ObjectMetadata> sources =
              existing(request.compactedObjectIds(), ObjectType.STREAM_SET);
          if (!sources.isEmpty()) {
            List<StreamOffsetRange> created = new ArrayList<>(request.streamSetRanges());
            request.streamObjects().forEach(o -> created.add(o.range()));
            checkCovered(created, sources);
          }
          sources.forEach(s -> objects.remove(s.objectId()));
          if (request.objectId() >= 0) {
            add(
                new ObjectMetadata(
                    request.objectId(),
                    ObjectType.STREAM_SET,
                    request.sizeBytes(),
                    request.streamSetRanges(),
                    0),
                request.orderId());
          }
          request.streamObjects().forEach(o -> add(asMetadata(o), request.orderId()));
          commits.incrementAndGet();
          return null;
        });
  }

  @Override
  public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
    return locked(
        () -> {
          injectedFault();
          checkPrepared(request.target().objectId());
          List<ObjectMetadata> sources = existing(request.sourceObjectIds(), ObjectType.STREAM);
          for (ObjectMetadata source : sources) {
            if (source.ranges().get(0).streamId() != request.target().range().streamId()) {
              throw new MetadataRejectedException(
                  Reason.OFFSET_MISMATCH, "source " + source + " is of another stream");
            }
          }
          checkCovered(List.of(request.target().range()), sources);
          sources.forEach(s -> objects.remove(s.objectId()));
          add(asMetadata(request.target()), request.target().objectId());
          commits.incrementAndGet();
          return null;
        });
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getObjects(
      long streamId, long startOffset, long endOffset, int limit) {
    long end = endOffset == -1 ? Long.MAX_VALUE : endOffset;
    return locked(
        () -> {
          List<ObjectMetadata> found = new ArrayList<>();
          for (ObjectMetadata object : objects.values()) {
            if (firstOverlap(object, streamId, startOffset, end) >= 0) {
              found.add(object);
            }
          }
          found.sort(Comparator.comparingLong(o -> firstOverlap(o, streamId, startOffset, end)));
          return List.copyOf(found.subList(0, Math.min(limit, found.size())));
        });
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
    return locked(
        () ->
            objects.values().stream()
                .filter(o -> o.type() == ObjectType.STREAM_SET)
                .sorted(
                    Comparator.<ObjectMetadata>comparingLong(o -> orderIds.get(o.objectId()))
                        .thenComparingLong(ObjectMetadata::objectId))
                .toList());
  }

  /** Moves the stream's start; stream objects wholly below it are gone, as after a real trim. */
  void trim(long streamId, long startOffset) {
    lock.lock();
    try {
      startOffsets.put(streamId, startOffset);
      objects
          .values()
          .removeIf(
              o ->
                  o.type() == ObjectType.STREAM
                      && o.ranges().get(0).streamId() == streamId
                      && o.ranges().get(0).endOffset() <= startOffset);
    } finally {
      lock.unlock();
    }
  }

  void deleteStream(long streamId) {
    lock.lock();
    try {
      deletedStreams.add(streamId);
    } finally {
      lock.unlock();
    }
  }

  /** The streams' start offsets as the compactors see them: 0 unless trimmed, none if deleted. */
  StreamStarts starts() {
    return streamId -> {
      lock.lock();
      try {
        if (deletedStreams.contains(streamId)) {
          return java.util.OptionalLong.empty();
        }
        return java.util.OptionalLong.of(startOffsets.getOrDefault(streamId, 0L));
      } finally {
        lock.unlock();
      }
    };
  }

  /** The next commit of either kind fails with {@code fault} and changes nothing. */
  void failNextCommit(Supplier<RuntimeException> fault) {
    lock.lock();
    try {
      nextCommitFault = fault;
    } finally {
      lock.unlock();
    }
  }

  /** Every committed object, by id. */
  Map<Long, ObjectMetadata> objects() {
    lock.lock();
    try {
      return Map.copyOf(objects);
    } finally {
      lock.unlock();
    }
  }

  int commits() {
    return commits.get();
  }

  /** Every committed range of {@code streamId}, sorted by start offset. */
  List<StreamOffsetRange> ranges(long streamId) {
    lock.lock();
    try {
      List<StreamOffsetRange> ranges = new ArrayList<>();
      for (ObjectMetadata object : objects.values()) {
        object.ranges().stream().filter(r -> r.streamId() == streamId).forEach(ranges::add);
      }
      ranges.sort(Comparator.comparingLong(StreamOffsetRange::startOffset));
      return ranges;
    } finally {
      lock.unlock();
    }
  }

  private void add(ObjectMetadata object, long orderId) {
    objects.put(object.objectId(), object);
    orderIds.put(object.objectId(), orderId);
    prepared.remove(object.objectId());
  }

  private static ObjectMetadata asMetadata(StreamObject object) {
    return new ObjectMetadata(
        object.objectId(),
        ObjectType.STREAM,
        object.sizeBytes(),
        List.of(object.range()),
        object.attributes());
  }

  private void injectedFault() {
    if (nextCommitFault != null) {
      Supplier<RuntimeException> fault = nextCommitFault;
      nextCommitFault = null;
      throw fault.get();
    }
  }

  private void checkPrepared(long objectId) {
    if (!prepared.contains(objectId)) {
      throw new MetadataRejectedException(
          Reason.UNKNOWN_OBJECT, "object " + objectId + " was not prepared or is committed");
    }
  }

  private List<ObjectMetadata> existing(List<Long> ids, ObjectType type) {
    List<ObjectMetadata> found = new ArrayList<>();
    for (long id : ids) {
      ObjectMetadata object = objects.get(id);
      if (object == null || object.type() != type) {
        throw new MetadataRejectedException(
            Reason.UNKNOWN_OBJECT, "no committed " + type + " object " + id);
      }
      found.add(object);
    }
    return found;
  }

  /** Each created range lies within what the sources held of its stream. */
  private static void checkCovered(List<StreamOffsetRange> created, List<ObjectMetadata> sources) {
    for (StreamOffsetRange range : created) {
      List<StreamOffsetRange> held = new ArrayList<>();
      sources.forEach(
          s ->
              s.ranges().stream().filter(r -> r.streamId() == range.streamId()).forEach(held::add));
      held.sort(Comparator.comparingLong(StreamOffsetRange::startOffset));
      long covered = range.startOffset();
      for (StreamOffsetRange h : held) {
        if (h.startOffset() <= covered && h.endOffset() > covered) {
          covered = h.endOffset();
        }
      }
      if (covered < range.endOffset()) {
        throw new MetadataRejectedException(
            Reason.OFFSET_MISMATCH, "range " + range + " claims offsets its sources did not hold");
      }
    }
  }

  /** Start offset of the object's first range of the stream overlapping [start, end), or -1. */
  private static long firstOverlap(ObjectMetadata object, long streamId, long start, long end) {
    long first = -1;
    for (StreamOffsetRange range : object.ranges()) {
      boolean overlaps =
          range.streamId() == streamId && range.startOffset() < end && range.endOffset() > start;
      if (overlaps && (first < 0 || range.startOffset() < first)) {
        first = range.startOffset();
      }
    }
    return first;
  }

  private <T> CompletableFuture<T> locked(Supplier<T> body) {
    lock.lock();
    try {
      return CompletableFuture.completedFuture(body.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      lock.unlock();
    }
  }
}
