package io.picomq.s3stream.core.compaction;

import java.util.Map;
import java.util.OptionalLong;

/**
 * Where each stream's live data begins, as the metadata plane says at planning time. Compaction
 * drops what lies below: a block that ends at or before the start offset, and, inside a block that
 * straddles it, the batches that end at or before it.
 */
@FunctionalInterface
public interface StreamStarts {

  /**
   * The first live offset of {@code streamId}, or empty if the stream no longer exists (deleted):
   * all of its data is garbage.
   */
  OptionalLong startOffset(long streamId);

  /** Every stream exists and nothing was trimmed. */
  static StreamStarts untrimmed() {
    return streamId -> OptionalLong.of(0);
  }

  /** Start offsets from a map; a stream missing from it no longer exists. */
  static StreamStarts of(Map<Long, Long> startOffsets) {
    Map<Long, Long> copy = Map.copyOf(startOffsets);
    return streamId -> {
      Long start = copy.get(streamId);
      return start == null ? OptionalLong.empty() : OptionalLong.of(start);
    };
  }
}
