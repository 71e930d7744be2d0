package io.picomq.s3stream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Planner decisions on small hand-made object sets; the upstream's own cases are checked against
 * its vectors in the conformance module ({@code CompactionPlansVectorsTest}).
 */
class CompactionPlannerTest {

  private static final long BIG = 1L << 30;

  /** Builds an object whose blocks tile its data region in the order given. */
  private static final class ObjectBuilder {
    private final long objectId;
    private final List<SourceBlock> blocks = new ArrayList<>();
    private long position;

    ObjectBuilder(long objectId) {
      this.objectId = objectId;
    }

    ObjectBuilder block(long streamId, long start, long end, int size) {
      blocks.add(new SourceBlock(objectId, streamId, start, end, position, size));
      position += size;
      return this;
    }

    SourceObject build() {
      return new SourceObject(objectId, blocks);
    }
  }

  private static ObjectBuilder object(long objectId) {
    return new ObjectBuilder(objectId);
  }

  private static CompactionPlan plan(
      CompactionLimits limits, StreamStarts starts, Set<Long> excluded, SourceObject... objects) {
    return new CompactionPlanner(limits).plan(List.of(objects), starts, excluded);
  }

  private static CompactionPlan plan(CompactionLimits limits, SourceObject... objects) {
    return plan(limits, StreamStarts.untrimmed(), Set.of(), objects);
  }

  private static CompactionLimits limits(long cache, long split, int streams, int streamObjects) {
    return new CompactionLimits(cache, split, streams, streamObjects);
  }

  @Test
  void noObjectsNoPlan() {
    CompactionPlan plan = plan(limits(BIG, BIG, 100, 100));
    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.rounds()).isEmpty();
    assertThat(plan.excludedObjectIds()).isEmpty();
  }

  @Test
  void objectsHoldingAnExcludedStreamStayWhereTheyAre() {
    SourceObject a = object(1).block(1, 0, 10, 10).block(2, 0, 10, 10).build();
    SourceObject b = object(2).block(1, 10, 20, 10).block(2, 10, 20, 10).build();
    CompactionPlan plan =
        plan(limits(BIG, BIG, 100, 100), StreamStarts.untrimmed(), Set.of(2L), a, b);
    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.rounds()).isEmpty();
    assertThat(plan.excludedObjectIds()).containsExactly(1L, 2L);
  }

  @Test
  void anExcludedStreamHoldsOutOnlyTheObjectsHoldingIt() {
    SourceObject a = object(1).block(1, 0, 10, 10).block(2, 0, 10, 10).build();
    SourceObject b = object(2).block(1, 10, 20, 10).build();
    SourceObject c = object(3).block(1, 20, 30, 10).block(3, 0, 5, 10).build();
    CompactionPlan plan =
        plan(limits(BIG, BIG, 100, 100), StreamStarts.untrimmed(), Set.of(3L), a, b, c);
    assertThat(plan.excludedObjectIds()).containsExactly(3L);
    assertThat(plan.compactedObjectIds()).containsExactly(1L, 2L);
    assertThat(plan.rounds()).hasSize(1);
    assertThat(plan.rounds().get(0).objects())
        .containsExactly(
            new PlannedObject.Compact(
                List.of(a.blocks().get(0), b.blocks().get(0), a.blocks().get(1))));
  }

  @Test
  void anObjectSharingNoStreamAndHoldingNoDeadDataIsLeftAlone() {
    SourceObject a = object(1).block(1, 0, 10, 10).block(2, 0, 10, 10).build();
    SourceObject b = object(2).block(3, 0, 10, 10).build();
    assertThat(plan(limits(BIG, BIG, 100, 100), a, b).isEmpty()).isTrue();
  }

  @Test
  void aStreamLongerThanTheCacheGoesOneBlockPerRound() {
    // One stream over three objects; every block is larger than the cache.
    SourceObject a = object(1).block(7, 0, 100, 500).build();
    SourceObject b = object(2).block(7, 100, 200, 500).build();
    SourceObject c = object(3).block(7, 200, 300, 500).build();
    CompactionPlan plan = plan(limits(100, 50, 100, 100), a, b, c);
    assertThat(plan.compactedObjectIds()).containsExactly(1L, 2L, 3L);
    assertThat(plan.rounds())
        .extracting(CompactionRound::objects)
        .containsExactly(
            List.of(new PlannedObject.Split(a.blocks())),
            List.of(new PlannedObject.Split(b.blocks())),
            List.of(new PlannedObject.Split(c.blocks())));
  }

  @Test
  void aRunLargerThanTheSplitSizeBecomesOneStreamObjectWhenTheCacheHoldsIt() {
    SourceObject a = object(1).block(7, 0, 100, 500).block(8, 0, 1, 5).build();
    SourceObject b = object(2).block(7, 100, 200, 500).block(8, 1, 2, 5).build();
    CompactionPlan plan = plan(limits(BIG, 600, 100, 100), a, b);
    assertThat(plan.rounds()).hasSize(1);
    assertThat(plan.rounds().get(0).objects())
        .containsExactly(
            new PlannedObject.Split(List.of(a.blocks().get(0), b.blocks().get(0))),
            new PlannedObject.Compact(List.of(a.blocks().get(1), b.blocks().get(1))));
  }

  @Test
  void aGapInAStreamSplitsTheRunBeforeItWhateverItsSize() {
    // A stream-set object holds one range per stream: [0,10) cannot join [20,30) there.
    SourceObject a = object(1).block(1, 0, 10, 10).build();
    SourceObject b = object(2).block(1, 20, 30, 10).build();
    CompactionPlan plan = plan(limits(BIG, BIG, 100, 100), a, b);
    assertThat(plan.rounds().get(0).objects())
        .containsExactly(
            new PlannedObject.Split(a.blocks()), new PlannedObject.Compact(b.blocks()));
  }

  @Test
  void tooManyStreamsInTheStreamSetObjectHoldsOutTheLeastEntangledStream() {
    // Streams in the stream-set object: 1 (objects 1, 2), 2 (1), 3 (2, 3), 4 (3): 4 > 3.
    // Holding out stream 2 or 4 costs the objects holding it 2 streams; stream 2 is lower.
    SourceObject a = object(1).block(1, 0, 10, 10).block(2, 0, 10, 10).build();
    SourceObject b = object(2).block(1, 10, 20, 10).block(3, 0, 10, 10).build();
    SourceObject c = object(3).block(3, 10, 20, 10).block(4, 0, 10, 10).build();
    CompactionPlan plan = plan(limits(BIG, BIG, 3, 100), a, b, c);
    assertThat(plan.excludedObjectIds()).containsExactly(1L);
    assertThat(plan.compactedObjectIds()).containsExactly(2L, 3L);
    assertThat(plan.rounds().get(0).objects())
        .containsExactly(
            new PlannedObject.Compact(
                List.of(
                    b.blocks().get(0), b.blocks().get(1), c.blocks().get(0), c.blocks().get(1))));
  }

  @Test
  void tooManyStreamObjectsHoldsOutTheObjectsOfOneAndSelectsAgain() {
    // Two runs over the split size, one stream object allowed: the first run's objects (1, 2) go;
    // object 3 alone shares nothing, so nothing is left to do.
    SourceObject a = object(1).block(1, 0, 10, 100).block(2, 0, 10, 100).build();
    SourceObject b = object(2).block(1, 10, 20, 100).build();
    SourceObject c = object(3).block(2, 10, 20, 100).build();
    CompactionPlan plan = plan(limits(BIG, 150, 100, 1), a, b, c);
    assertThat(plan.excludedObjectIds()).containsExactly(1L, 2L);
    assertThat(plan.isEmpty()).isTrue();
  }

  @Test
  void theCacheSizeCutsAStreamSetObjectPartBetweenRounds() {
    SourceObject a = object(1).block(1, 0, 10, 40).block(2, 0, 10, 40).block(3, 0, 10, 40).build();
    SourceObject b =
        object(2).block(1, 10, 20, 40).block(2, 10, 20, 40).block(3, 10, 20, 40).build();
    CompactionPlan plan = plan(limits(100, BIG, 100, 100), a, b);
    List<SourceBlock> all =
        List.of(
            a.blocks().get(0),
            b.blocks().get(0),
            a.blocks().get(1),
            b.blocks().get(1),
            a.blocks().get(2),
            b.blocks().get(2));
    assertThat(plan.rounds())
        .extracting(CompactionRound::objects)
        .containsExactly(
            List.of(new PlannedObject.Compact(all.subList(0, 2))),
            List.of(new PlannedObject.Compact(all.subList(2, 4))),
            List.of(new PlannedObject.Compact(all.subList(4, 6))));
    assertThat(plan.rounds()).allSatisfy(r -> assertThat(r.sizeBytes()).isLessThanOrEqualTo(100));
  }

  @Test
  void anObjectATrimLeftStraddlingTheStartIsRewrittenOnItsOwn() {
    // Nothing shared; stream 1 now starts at 50, inside the block [0, 100).
    SourceObject a = object(1).block(1, 0, 100, 30).block(2, 0, 10, 10).build();
    CompactionPlan plan =
        plan(limits(BIG, BIG, 100, 100), StreamStarts.of(Map.of(1L, 50L, 2L, 0L)), Set.of(), a);
    assertThat(plan.compactedObjectIds()).containsExactly(1L);
    assertThat(plan.rounds().get(0).objects())
        .containsExactly(new PlannedObject.Compact(a.blocks()));
  }

  @Test
  void deadBlocksAreLeftBehindAndAnAllDeadObjectIsReplacedByNothing() {
    // Stream 1 trimmed to 20 (its blocks end at 10 and 20), stream 2 deleted.
    SourceObject a = object(1).block(1, 0, 10, 10).block(2, 0, 10, 10).build();
    SourceObject b = object(2).block(1, 10, 20, 10).block(3, 0, 10, 10).build();
    StreamStarts starts = StreamStarts.of(Map.of(1L, 20L, 3L, 0L));
    CompactionPlan plan = plan(limits(BIG, BIG, 100, 100), starts, Set.of(), a, b);
    assertThat(plan.compactedObjectIds()).containsExactly(1L, 2L);
    assertThat(plan.rounds()).hasSize(1);
    assertThat(plan.rounds().get(0).blocks()).containsExactly(b.blocks().get(1));

    CompactionPlan allDead =
        plan(limits(BIG, BIG, 100, 100), StreamStarts.of(Map.of(1L, 20L)), Set.of(), a);
    assertThat(allDead.compactedObjectIds()).containsExactly(1L);
    assertThat(allDead.rounds()).isEmpty();
  }

  @Test
  void theOrderObjectsAreOfferedInDoesNotMatter() {
    SourceObject a = object(1).block(1, 0, 10, 10).block(2, 0, 10, 30).build();
    SourceObject b = object(2).block(1, 10, 20, 60).block(3, 5, 9, 10).build();
    SourceObject c = object(3).block(2, 10, 30, 40).block(3, 9, 12, 10).build();
    CompactionPlanner planner = new CompactionPlanner(limits(70, 35, 100, 100));
    CompactionPlan forward = planner.plan(List.of(a, b, c), StreamStarts.untrimmed(), Set.of());
    CompactionPlan backward = planner.plan(List.of(c, b, a), StreamStarts.untrimmed(), Set.of());
    assertThat(backward).isEqualTo(forward);
    assertThat(forward.rounds()).hasSizeGreaterThan(1);
  }

  @Test
  void rejectsOverlappingBlocksAndRepeatedObjects() {
    SourceObject a = object(1).block(1, 0, 10, 10).build();
    SourceObject b = object(2).block(1, 5, 20, 10).build();
    CompactionPlanner planner = new CompactionPlanner(limits(BIG, BIG, 100, 100));
    assertThatThrownBy(() -> planner.plan(List.of(a, b), StreamStarts.untrimmed(), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overlap");
    assertThatThrownBy(() -> planner.plan(List.of(a, a), StreamStarts.untrimmed(), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offered twice");
  }

  @Test
  void limitsMustBePositive() {
    assertThatThrownBy(() -> limits(0, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limits(1, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
