package io.picomq.meta.state;

import java.util.List;

/**
 * An object holding ranges of several streams, uploaded by {@code nodeId} from its WAL (or produced
 * by compacting such objects). Its ranges are sorted by (stream, start) and do not overlap.
 */
public record StreamSetObject(long objectId, int nodeId, long sizeBytes, List<CatalogRange> ranges)
    implements CatalogObject {

  public StreamSetObject {
    if (objectId < 0 || nodeId < 0 || sizeBytes < 0) {
      throw new IllegalArgumentException(
          "stream-set object needs non-negative id, node and size, got " + objectId);
    }
    ranges = List.copyOf(ranges);
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("stream-set object " + objectId + " has no live range");
    }
    for (int i = 1; i < ranges.size(); i++) {
      CatalogRange before = ranges.get(i - 1);
      CatalogRange after = ranges.get(i);
      if (before.compareTo(after) >= 0
          || (before.streamId() == after.streamId() && before.endOffset() > after.startOffset())) {
        throw new IllegalArgumentException(
            "ranges of stream-set object " + objectId + " are unsorted or overlap at " + after);
      }
    }
  }

  StreamSetObject withRanges(List<CatalogRange> liveRanges) {
    return new StreamSetObject(objectId, nodeId, sizeBytes, liveRanges);
  }
}
