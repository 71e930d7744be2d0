package io.picomq.s3stream.core.compaction;

import java.util.ArrayList;
import java.util.List;

/**
 * The work of one round: the blocks it reads fit the cache size, so a round holds at most that many
 * block bytes in memory.
 *
 * @param order the round's position, from 0
 * @param objects the stream objects to write, then at most one {@link PlannedObject.Compact}
 */
public record CompactionRound(int order, List<PlannedObject> objects) {

  public CompactionRound {
    objects = List.copyOf(objects);
    if (objects.isEmpty()) {
      throw new IllegalArgumentException("round " + order + " has nothing to do");
    }
  }

  /** Bytes of the blocks the round reads. */
  public long sizeBytes() {
    long size = 0;
    for (PlannedObject object : objects) {
      size += object.sizeBytes();
    }
    return size;
  }

  /** Every block the round reads, object by object. */
  public List<SourceBlock> blocks() {
    List<SourceBlock> blocks = new ArrayList<>();
    objects.forEach(object -> blocks.addAll(object.blocks()));
    return blocks;
  }
}
