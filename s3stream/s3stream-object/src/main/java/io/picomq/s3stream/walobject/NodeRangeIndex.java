package io.picomq.s3stream.walobject;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A node's sparse index from stream offsets to the stream-set objects holding them, persisted as
 * one object so a restarted node finds its recent data without asking the metadata plane.
 *
 * @param streams per stream id, its entries in ascending offset order; never an empty list
 */
public record NodeRangeIndex(SortedMap<Long, List<RangeIndexEntry>> streams) {

  public NodeRangeIndex {
    TreeMap<Long, List<RangeIndexEntry>> copy = new TreeMap<>();
    for (Map.Entry<Long, List<RangeIndexEntry>> stream : streams.entrySet()) {
      if (stream.getValue().isEmpty()) {
        throw new IllegalArgumentException("stream " + stream.getKey() + " has no range entries");
      }
      copy.put(stream.getKey(), List.copyOf(stream.getValue()));
    }
    streams = Collections.unmodifiableSortedMap(copy);
  }

  /** Bytes of the encoded index. */
  public int encodedSize() {
    long size = RangeIndexCodec.HEADER_SIZE;
    for (List<RangeIndexEntry> entries : streams.values()) {
      size += RangeIndexCodec.STREAM_HEADER_SIZE + (long) entries.size() * RangeIndexEntry.SIZE;
    }
    return Math.toIntExact(size);
  }
}
