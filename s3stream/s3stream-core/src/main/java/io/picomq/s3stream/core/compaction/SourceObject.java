package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.object.IndexEntry;
import io.picomq.s3stream.object.ObjectIndex;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream-set object offered to the planner: its id and the blocks its index lists.
 *
 * @param blocks every block of the object, in index order; each names this object
 */
public record SourceObject(long objectId, List<SourceBlock> blocks) {

  public SourceObject {
    blocks = List.copyOf(blocks);
    for (SourceBlock block : blocks) {
      if (block.objectId() != objectId) {
        throw new IllegalArgumentException(
            "block " + block + " does not belong to object " + objectId);
      }
    }
  }

  /** The blocks of a decoded index, one per entry. */
  public static SourceObject of(ObjectIndex index) {
    List<SourceBlock> blocks = new ArrayList<>(index.entries().size());
    for (IndexEntry entry : index.entries()) {
      blocks.add(
          new SourceBlock(
              index.objectId(),
              entry.streamId(),
              entry.startOffset(),
              entry.endOffset(),
              entry.startPosition(),
              entry.blockSize()));
    }
    return new SourceObject(index.objectId(), blocks);
  }
}
