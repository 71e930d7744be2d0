package io.picomq.s3stream.core.read;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A catalog over a list, answering {@link #getObjects} as the host's does: the objects holding
 * offsets of the range, in offset order, at most {@code limit}. The write half is not needed by the
 * read path and refuses.
 */
final class ListObjectManager implements ObjectManager {

  private final List<ObjectMetadata> objects = new CopyOnWriteArrayList<>();
  private final AtomicInteger lookups = new AtomicInteger();

  void add(ObjectMetadata object) {
    objects.add(object);
  }

  void remove(long objectId) {
    objects.removeIf(o -> o.objectId() == objectId);
  }

  /** How many times {@link #getObjects} was called. */
  int lookups() {
    return lookups.get();
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getObjects(
      long streamId, long startOffset, long endOffset, int limit) {
    lookups.incrementAndGet();
    long end = endOffset == -1 ? Long.MAX_VALUE : endOffset;
    List<ObjectMetadata> found =
        objects.stream()
            .filter(
                o ->
                    o.ranges().stream()
                        .anyMatch(
                            r ->
                                r.streamId() == streamId
                                    && r.endOffset() > startOffset
                                    && r.startOffset() < end))
            .sorted(Comparator.comparingLong(o -> firstOffset(o, streamId)))
            .limit(limit)
            .toList();
    return CompletableFuture.completedFuture(found);
  }

  private static long firstOffset(ObjectMetadata object, long streamId) {
    return object.ranges().stream()
        .filter(r -> r.streamId() == streamId)
        .mapToLong(StreamOffsetRange::startOffset)
        .min()
        .orElseThrow();
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
    return CompletableFuture.completedFuture(
        objects.stream().filter(o -> o.type() == ObjectMetadata.ObjectType.STREAM_SET).toList());
  }

  @Override
  public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
    return unsupported();
  }

  @Override
  public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
    return unsupported();
  }

  @Override
  public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
    return unsupported();
  }

  private static <T> CompletableFuture<T> unsupported() {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("the read path tests only read the catalog"));
  }
}
