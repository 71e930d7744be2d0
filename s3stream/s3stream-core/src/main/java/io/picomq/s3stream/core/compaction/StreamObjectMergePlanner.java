package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Decides which stream objects of one stream to merge. Pure and deterministic.
 *
 * <p>Walking the stream's objects in offset order, it skips those wholly below the start offset
 * (the trim already made them garbage) and gathers runs of objects that continue each other (the
 * next starts where the previous ends) while their total stays within {@code maxObjectSizeBytes}. A
 * run of two or more becomes one merge. A run of one is left alone, unless it straddles the start
 * offset: it is then rewritten on its own without the batches below the start, however large.
 *
 * <p>Example, max 100 bytes, start offset 15, objects {@code [0,10) 20B, [10,20) 30B, [20,40) 40B,
 * [40,60) 50B, [60,80) 90B, [90,95) 5B}: {@code [0,10)} is garbage; {@code [10,20)} straddles 15
 * and starts the run {@code [10,20) [20,40)} (70B; adding {@code [40,60)} would make 120B), one
 * merge; {@code [40,60)} alone (with {@code [60,80)} 140B) is left; {@code [60,80)} is left; {@code
 * [90,95)} does not continue {@code [60,80)} and is left.
 */
public final class StreamObjectMergePlanner {

  private final long maxObjectSizeBytes;

  /**
   * @param maxObjectSizeBytes the largest merged object worth building; it is also what a merge
   *     holds in memory
   */
  public StreamObjectMergePlanner(long maxObjectSizeBytes) {
    if (maxObjectSizeBytes <= 0) {
      throw new IllegalArgumentException("maxObjectSizeBytes must be > 0: " + maxObjectSizeBytes);
    }
    this.maxObjectSizeBytes = maxObjectSizeBytes;
  }

  /**
   * Plans the merges of {@code streamId}'s stream objects.
   *
   * @param objects committed objects of the stream; objects of other types or streams are ignored
   * @return the merges, in offset order
   * @throws IllegalArgumentException if two stream objects of the stream overlap
   */
  public List<StreamObjectMerge> plan(
      long streamId, long startOffset, List<ObjectMetadata> objects) {
    List<ObjectMetadata> live = new ArrayList<>();
    for (ObjectMetadata object : objects) {
      if (object.type() == ObjectMetadata.ObjectType.STREAM
          && range(object).streamId() == streamId
          && range(object).endOffset() > startOffset) {
        live.add(object);
      }
    }
    live.sort(Comparator.comparingLong(o -> range(o).startOffset()));
    List<StreamObjectMerge> merges = new ArrayList<>();
    List<ObjectMetadata> run = new ArrayList<>();
    long runBytes = 0;
    for (ObjectMetadata object : live) {
      if (!run.isEmpty()) {
        long runEnd = range(run.get(run.size() - 1)).endOffset();
        if (range(object).startOffset() < runEnd) {
          throw new IllegalArgumentException(
              "stream objects of stream " + streamId + " overlap at " + range(object));
        }
        if (range(object).startOffset() > runEnd
            || runBytes + object.sizeBytes() > maxObjectSizeBytes) {
          flush(streamId, startOffset, run, merges);
          runBytes = 0;
        }
      }
      run.add(object);
      runBytes += object.sizeBytes();
    }
    flush(streamId, startOffset, run, merges);
    return merges;
  }

  private static void flush(
      long streamId, long startOffset, List<ObjectMetadata> run, List<StreamObjectMerge> merges) {
    boolean straddles = !run.isEmpty() && range(run.get(0)).startOffset() < startOffset;
    if (run.size() > 1 || straddles) {
      merges.add(new StreamObjectMerge(streamId, startOffset, run));
    }
    run.clear();
  }

  private static StreamOffsetRange range(ObjectMetadata object) {
    return object.ranges().get(0);
  }
}
