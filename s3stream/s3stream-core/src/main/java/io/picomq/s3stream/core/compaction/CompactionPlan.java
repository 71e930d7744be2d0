package io.picomq.s3stream.core.compaction;

import java.util.List;

/**
 * What one compaction does, decided before any byte moves.
 *
 * @param rounds the rounds, in order
 * @param compactedObjectIds the source objects the compaction replaces, ascending: every live block
 *     of each appears in exactly one round; what is not in a round is data below a stream's start
 *     or of a deleted stream. An object without any live block is replaced by nothing.
 * @param excludedObjectIds objects held out, ascending: they hold a stream the caller excluded, or
 *     the limits could not be met with them in (the upstream's "excluded objects")
 */
public record CompactionPlan(
    List<CompactionRound> rounds, List<Long> compactedObjectIds, List<Long> excludedObjectIds) {

  public CompactionPlan {
    rounds = List.copyOf(rounds);
    compactedObjectIds = List.copyOf(compactedObjectIds);
    excludedObjectIds = List.copyOf(excludedObjectIds);
  }

  /** True if the compaction would change nothing. */
  public boolean isEmpty() {
    return compactedObjectIds.isEmpty();
  }

  /** Stream objects the plan writes. */
  public int streamObjectCount() {
    int count = 0;
    for (CompactionRound round : rounds) {
      for (PlannedObject object : round.objects()) {
        if (object instanceof PlannedObject.Split) {
          count++;
        }
      }
    }
    return count;
  }

  /** Bytes of the source blocks that go into the new stream-set object, over all rounds. */
  public long streamSetObjectBytes() {
    long size = 0;
    for (CompactionRound round : rounds) {
      for (PlannedObject object : round.objects()) {
        if (object instanceof PlannedObject.Compact) {
          size += object.sizeBytes();
        }
      }
    }
    return size;
  }

  /** Whether the plan writes a stream-set object (its parts may spread over several rounds). */
  public boolean writesStreamSetObject() {
    for (CompactionRound round : rounds) {
      for (PlannedObject object : round.objects()) {
        if (object instanceof PlannedObject.Compact) {
          return true;
        }
      }
    }
    return false;
  }
}
