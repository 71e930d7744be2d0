package io.picomq.s3stream.api;

import java.util.List;

/**
 * A committed object as the catalog knows it.
 *
 * @param ranges the stream ranges the object holds, sorted by (streamId, startOffset); a stream
 *     object holds exactly one
 * @param attributes the object's attribute bits (e.g. composite), as the object format defines
 */
public record ObjectMetadata(
    long objectId,
    ObjectType type,
    long sizeBytes,
    List<StreamOffsetRange> ranges,
    int attributes) {

  public ObjectMetadata {
    ranges = List.copyOf(ranges);
    if (type == ObjectType.STREAM && ranges.size() != 1) {
      throw new IllegalArgumentException(
          "stream object " + objectId + " must hold one range, has " + ranges.size());
    }
  }

  /** A stream-set object holds many streams; a stream object holds one. */
  public enum ObjectType {
    STREAM_SET,
    STREAM
  }
}
