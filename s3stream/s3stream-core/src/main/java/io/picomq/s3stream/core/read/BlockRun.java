package io.picomq.s3stream.core.read;

import io.picomq.s3stream.object.BlockLocation;
import io.picomq.s3stream.object.IndexEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * Adjacent data blocks of one object, read with one block cache read: bytes {@code [start, end)} of
 * object {@code objectId}, holding {@code entries} in order.
 */
record BlockRun(long objectId, long start, long end, List<IndexEntry> entries) {

  BlockRun {
    entries = List.copyOf(entries);
  }

  /**
   * Groups blocks, in the given order, into runs: a block joins the previous run if it lies in the
   * same object and starts where the run ends. A run stays under 2 GiB (one buffer).
   */
  static List<BlockRun> group(List<BlockLocation> blocks) {
    List<BlockRun> runs = new ArrayList<>();
    List<IndexEntry> entries = new ArrayList<>();
    long objectId = -1;
    long start = 0;
    long end = 0;
    for (BlockLocation block : blocks) {
      IndexEntry entry = block.entry();
      boolean adjacent = block.objectId() == objectId && entry.startPosition() == end;
      if (!adjacent || entry.endPosition() - start > Integer.MAX_VALUE) {
        if (!entries.isEmpty()) {
          runs.add(new BlockRun(objectId, start, end, entries));
          entries.clear();
        }
        objectId = block.objectId();
        start = entry.startPosition();
      }
      entries.add(entry);
      end = entry.endPosition();
    }
    if (!entries.isEmpty()) {
      runs.add(new BlockRun(objectId, start, end, entries));
    }
    return runs;
  }

  long sizeBytes() {
    return end - start;
  }
}
