package io.picomq.s3stream.api;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One upload's worth of objects, committed atomically: an optional stream-set object, the stream
 * objects split out of it, and (for compaction) the objects they replace.
 *
 * @param objectId the stream-set object's id, or -1 when everything went into stream objects
 * @param orderId the upload's sequence number; commits are applied in this order
 * @param streamSetRanges the ranges inside the stream-set object
 * @param compactedObjectIds objects this commit replaces (empty for a WAL upload)
 * @param streamEpochs for new data (a WAL upload): the stream epoch every stream's records were
 *     appended under, one entry per stream the request holds; the metadata plane refuses the commit
 *     when one is not the stream's current epoch (the writer was fenced). Empty for compaction,
 *     which moves data that was fenced when it was first committed.
 */
public record CommitStreamSetObjectRequest(
    long objectId,
    long orderId,
    long sizeBytes,
    List<StreamOffsetRange> streamSetRanges,
    List<StreamObject> streamObjects,
    List<Long> compactedObjectIds,
    Map<Long, Long> streamEpochs) {

  public CommitStreamSetObjectRequest {
    streamSetRanges = List.copyOf(streamSetRanges);
    streamObjects = List.copyOf(streamObjects);
    compactedObjectIds = List.copyOf(compactedObjectIds);
    streamEpochs = Map.copyOf(streamEpochs);
    if (objectId < 0 && !streamSetRanges.isEmpty()) {
      throw new IllegalArgumentException("stream-set ranges need a stream-set object id");
    }
    if (!streamEpochs.isEmpty()) {
      TreeSet<Long> held = new TreeSet<>();
      streamSetRanges.forEach(r -> held.add(r.streamId()));
      streamObjects.forEach(o -> held.add(o.range().streamId()));
      if (!held.equals(new TreeSet<>(streamEpochs.keySet()))) {
        throw new IllegalArgumentException(
            "streamEpochs must name exactly the streams held " + held + ", got " + streamEpochs);
      }
    }
  }

  /** A request without stream epochs: compaction's. */
  public CommitStreamSetObjectRequest(
      long objectId,
      long orderId,
      long sizeBytes,
      List<StreamOffsetRange> streamSetRanges,
      List<StreamObject> streamObjects,
      List<Long> compactedObjectIds) {
    this(
        objectId, orderId, sizeBytes, streamSetRanges, streamObjects, compactedObjectIds, Map.of());
  }
}
