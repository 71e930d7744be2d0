package io.picomq.s3stream.api;

import java.util.List;

/**
 * One upload's worth of objects, committed atomically: an optional stream-set object, the stream
 * objects split out of it, and (for compaction) the objects they replace.
 *
 * @param objectId the stream-set object's id, or -1 when everything went into stream objects
 * @param orderId the upload's sequence number; commits are applied in this order
 * @param streamSetRanges the ranges inside the stream-set object
 * @param compactedObjectIds objects this commit replaces (empty for a WAL upload)
 */
public record CommitStreamSetObjectRequest(
    long objectId,
    long orderId,
    long sizeBytes,
    List<StreamOffsetRange> streamSetRanges,
    List<StreamObject> streamObjects,
    List<Long> compactedObjectIds) {

  public CommitStreamSetObjectRequest {
    streamSetRanges = List.copyOf(streamSetRanges);
    streamObjects = List.copyOf(streamObjects);
    compactedObjectIds = List.copyOf(compactedObjectIds);
    if (objectId < 0 && !streamSetRanges.isEmpty()) {
      throw new IllegalArgumentException("stream-set ranges need a stream-set object id");
    }
  }
}
