package io.picomq.s3stream.object;

import java.util.ArrayList;
import java.util.List;

/**
 * Offsets {@code [startOffset, endOffset)} of one stream that an object holds without a gap, and
 * the bytes of the data blocks holding them: what a metadata commit records for the object.
 *
 * <p>An object holds one range per stream in the common case. If a writer was given a stream's
 * batches with a gap between them (compaction merging objects whose middle part lives elsewhere),
 * the object holds one range per gap-free run, so no range ever claims an offset the object does
 * not hold.
 *
 * @param streamId the stream
 * @param startOffset first offset held
 * @param endOffset exclusive end
 * @param sizeBytes bytes of the data blocks (headers included) holding the range; for a composite
 *     object, bytes of the linked blocks in the components
 */
public record StreamRange(long streamId, long startOffset, long endOffset, long sizeBytes) {

  public StreamRange {
    if (streamId < 0 || startOffset < 0 || endOffset < startOffset || sizeBytes < 0) {
      throw new IllegalArgumentException(
          "bad range of stream "
              + streamId
              + ": ["
              + startOffset
              + ", "
              + endOffset
              + "), "
              + sizeBytes
              + " bytes");
    }
  }

  /**
   * The ranges an index covers: consecutive entries of one stream whose offsets continue each other
   * merge into one range.
   *
   * @param entries sorted by (stream id, start offset), as every index is
   */
  public static List<StreamRange> of(List<IndexEntry> entries) {
    List<StreamRange> ranges = new ArrayList<>();
    StreamRange last = null;
    for (IndexEntry entry : entries) {
      if (last != null
          && last.streamId() == entry.streamId()
          && last.endOffset() == entry.startOffset()) {
        last =
            new StreamRange(
                last.streamId(),
                last.startOffset(),
                entry.endOffset(),
                last.sizeBytes() + entry.blockSize());
        ranges.set(ranges.size() - 1, last);
      } else {
        last =
            new StreamRange(
                entry.streamId(), entry.startOffset(), entry.endOffset(), entry.blockSize());
        ranges.add(last);
      }
    }
    return List.copyOf(ranges);
  }
}
