package io.picomq.server.metadata;

import static io.picomq.server.metadata.PlaneStreamManager.engineFuture;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.CatalogObject;
import io.picomq.meta.state.CatalogRange;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.RangeLocation;
import io.picomq.meta.state.StreamEntry;
import io.picomq.meta.state.StreamSetObject;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamObject;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's object catalog on the metadata plane. Writes propose commands; reads answer from the
 * applied view, never from SQL. Prepared ids expire at the proposer's clock ({@code clock}) plus
 * the engine's TTL: apply itself never reads a clock.
 */
public final class PlaneObjectManager implements ObjectManager {
  private final MetadataPlane plane;
  private final Clock clock;

  public PlaneObjectManager(MetadataPlane plane, Clock clock) {
    this.plane = plane;
    this.clock = clock;
  }

  @Override
  public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
    long expiresAt = clock.millis() + ttl.toMillis();
    return engineFuture(
        plane
            .proposeAccepted(new Command.PrepareObjects(count, expiresAt))
            .thenApply(outcome -> ((Outcome.ObjectsPrepared) outcome).firstObjectId()));
  }

  @Override
  public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
    if (request.objectId() < 0 && request.streamObjects().isEmpty()) {
      return CompletableFuture.completedFuture(null); // an upload that held nothing
    }
    NodeIdentity me = plane.identity();
    MetadataState state = plane.state();
    Map<Long, Long> epochs = request.streamEpochs();
    List<CommittedRange> ranges = new ArrayList<>();
    for (StreamOffsetRange range : request.streamSetRanges()) {
      if (range.endOffset() > range.startOffset()) {
        ranges.add(
            new CommittedRange(
                range.streamId(),
                epochOf(state, epochs, range.streamId()),
                range.startOffset(),
                range.endOffset()));
      }
    }
    List<NewStreamObject> streamObjects = new ArrayList<>();
    for (StreamObject object : request.streamObjects()) {
      StreamOffsetRange range = object.range();
      streamObjects.add(
          new NewStreamObject(
              object.objectId(),
              range.streamId(),
              epochOf(state, epochs, range.streamId()),
              range.startOffset(),
              range.endOffset(),
              object.sizeBytes()));
    }
    long objectId =
        request.objectId() < 0 || ranges.isEmpty()
            ? Command.CommitStreamSetObject.NO_OBJECT
            : request.objectId();
    if (objectId == Command.CommitStreamSetObject.NO_OBJECT && streamObjects.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    Command.CommitStreamSetObject commit =
        new Command.CommitStreamSetObject(
            objectId,
            me.nodeId(),
            me.nodeEpoch(),
            objectId == Command.CommitStreamSetObject.NO_OBJECT ? 0 : request.sizeBytes(),
            objectId == Command.CommitStreamSetObject.NO_OBJECT ? List.of() : ranges,
            streamObjects,
            request.compactedObjectIds());
    return engineFuture(plane.proposeAccepted(commit).thenApply(outcome -> null));
  }

  /**
   * The epoch a range was written at: what the engine says, or (for compactions, which carry none)
   * the stream's current epoch.
   */
  private static long epochOf(MetadataState state, Map<Long, Long> epochs, long streamId) {
    Long given = epochs.get(streamId);
    if (given != null) {
      return given;
    }
    return Math.max(0, state.stream(streamId).map(StreamEntry::epoch).orElse(0L));
  }

  @Override
  public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
    NodeIdentity me = plane.identity();
    StreamObject target = request.target();
    Command.CompactStreamObjects compact =
        new Command.CompactStreamObjects(
            target.objectId(),
            target.range().streamId(),
            target.range().startOffset(),
            target.range().endOffset(),
            target.sizeBytes(),
            request.sourceObjectIds(),
            me.nodeId(),
            me.nodeEpoch());
    return engineFuture(plane.proposeAccepted(compact).thenApply(outcome -> null));
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getObjects(
      long streamId, long startOffset, long endOffset, int limit) {
    MetadataState state = plane.state();
    long end = endOffset == -1 ? Long.MAX_VALUE : endOffset;
    List<ObjectMetadata> found = new ArrayList<>();
    for (RangeLocation location : state.objectsCovering(streamId, startOffset, end)) {
      if (found.size() >= limit) {
        break;
      }
      state.catalog().object(location.objectId()).ifPresent(object -> found.add(metadata(object)));
    }
    return CompletableFuture.completedFuture(List.copyOf(found));
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
    int me = plane.identity().nodeId();
    List<ObjectMetadata> mine = new ArrayList<>();
    for (CatalogObject object : plane.state().catalog().objects().values()) {
      if (object instanceof StreamSetObject set && set.nodeId() == me) {
        mine.add(metadata(set));
      }
    }
    return CompletableFuture.completedFuture(List.copyOf(mine));
  }

  static ObjectMetadata metadata(CatalogObject object) {
    List<StreamOffsetRange> ranges = new ArrayList<>();
    for (CatalogRange range : object.ranges()) {
      ranges.add(new StreamOffsetRange(range.streamId(), range.startOffset(), range.endOffset()));
    }
    ObjectMetadata.ObjectType type =
        object instanceof StreamSetObject
            ? ObjectMetadata.ObjectType.STREAM_SET
            : ObjectMetadata.ObjectType.STREAM;
    return new ObjectMetadata(object.objectId(), type, object.sizeBytes(), ranges, 0);
  }
}
