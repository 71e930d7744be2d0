package io.picomq.s3stream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The planner on random object sets: whatever it decides, it moves every live block of the objects
 * it replaces exactly once, reads at most the cache size per round, keeps away from excluded
 * streams, and leaves the stream-set object with one gap-free range per stream.
 *
 * <p>Reproducing a failure: each scenario is built from one random seed, and QuickTheories reports
 * the seed of a failing scenario ({@code Smallest found falsifying value(s)}); {@code
 * scenario(seed)} rebuilds it exactly. The whole run can be replayed too: QuickTheories ends a
 * failure report with {@code Seed was N}, and passing it back as the system property {@code
 * QT_SEED} replays the same examples, e.g. {@code mvn -pl s3stream/s3stream-core test
 * -Dtest='CompactionPlannerPropertyTest#excludedStreamsAreNeverTouched' -DQT_SEED=N}.
 */
class CompactionPlannerPropertyTest {

  /** A random planner input, built from a seed. */
  record Scenario(
      List<SourceObject> objects,
      Map<Long, Long> starts,
      Set<Long> excludedStreams,
      CompactionLimits limits) {

    StreamStarts streamStarts() {
      return StreamStarts.of(starts);
    }

    boolean live(SourceBlock block) {
      Long start = starts.get(block.streamId());
      return start != null && block.endOffset() > start;
    }
  }

  /** Checks {@code property} on the scenarios of {@code examples} random seeds. */
  private static void forScenarios(int examples, Consumer<Scenario> property) {
    qt().withExamples(examples)
        .forAll(longs().all())
        .checkAssert(seed -> property.accept(scenario(seed)));
  }

  static Scenario scenario(long seed) {
    Random random = new Random(seed);
    int streams = 1 + random.nextInt(6);
    int objectCount = 1 + random.nextInt(7);
    long[] next = new long[streams];
    List<SourceObject> objects = new ArrayList<>();
    for (int o = 0; o < objectCount; o++) {
      List<SourceBlock> blocks = new ArrayList<>();
      long position = 0;
      for (int s = 0; s < streams; s++) {
        if (random.nextInt(3) == 0) {
          continue; // this upload has nothing of stream s
        }
        if (random.nextInt(5) == 0) {
          next[s] += 1 + random.nextInt(10); // a gap: those offsets live in some other object
        }
        int blockCount = 1 + random.nextInt(3);
        for (int b = 0; b < blockCount; b++) {
          long end = next[s] + 1 + random.nextInt(20);
          int size = 1 + random.nextInt(200);
          blocks.add(new SourceBlock(100 + o, s, next[s], end, position, size));
          position += size;
          next[s] = end;
        }
      }
      objects.add(new SourceObject(100 + o, blocks));
    }
    Map<Long, Long> starts = new HashMap<>();
    Set<Long> excluded = new HashSet<>();
    for (long s = 0; s < streams; s++) {
      int fate = random.nextInt(10);
      if (fate == 0) {
        continue; // deleted
      }
      starts.put(s, fate < 6 ? 0 : (long) random.nextInt((int) next[(int) s] + 1));
      if (random.nextInt(8) == 0) {
        excluded.add(s);
      }
    }
    CompactionLimits limits =
        new CompactionLimits(
            1 + random.nextInt(800),
            1 + random.nextInt(400),
            1 + random.nextInt(6),
            1 + random.nextInt(6));
    return new Scenario(objects, starts, excluded, limits);
  }

  private static CompactionPlan plan(Scenario scenario, List<SourceObject> objects) {
    return new CompactionPlanner(scenario.limits())
        .plan(objects, scenario.streamStarts(), scenario.excludedStreams());
  }

  @Test
  void everyLiveBlockOfAReplacedObjectMovesExactlyOnce() {
    Set<String> reached = new HashSet<>();
    forScenarios(
        2000,
        scenario -> {
          CompactionPlan plan = plan(scenario, scenario.objects());
          reached.add(
              plan.isEmpty() ? "nothing to do" : plan.rounds().size() > 1 ? "rounds" : "one round");
          reached.add(plan.excludedObjectIds().isEmpty() ? "none held out" : "held out");
          List<SourceBlock> moved = new ArrayList<>();
          plan.rounds().forEach(round -> moved.addAll(round.blocks()));
          List<SourceBlock> expected = new ArrayList<>();
          for (SourceObject object : scenario.objects()) {
            if (plan.compactedObjectIds().contains(object.objectId())) {
              object.blocks().stream().filter(scenario::live).forEach(expected::add);
            }
          }
          assertThat(moved).containsExactlyInAnyOrderElementsOf(expected);
        });
    // The property says little if the scenarios only ever produce one kind of plan.
    assertThat(reached)
        .as("kinds of plan the scenarios reached")
        .containsExactlyInAnyOrder(
            "nothing to do", "one round", "rounds", "held out", "none held out");
  }

  @Test
  void roundsFitTheCacheUnlessTheyHoldOneBlock() {
    forScenarios(
        2000,
        scenario -> {
          CompactionPlan plan = plan(scenario, scenario.objects());
          for (int i = 0; i < plan.rounds().size(); i++) {
            CompactionRound round = plan.rounds().get(i);
            assertThat(round.order()).isEqualTo(i);
            if (round.blocks().size() > 1) {
              assertThat(round.sizeBytes()).isLessThanOrEqualTo(scenario.limits().cacheSizeBytes());
            }
          }
        });
  }

  @Test
  void excludedStreamsAreNeverTouched() {
    forScenarios(
        2000,
        scenario -> {
          CompactionPlan plan = plan(scenario, scenario.objects());
          for (SourceObject object : scenario.objects()) {
            boolean holdsExcluded =
                object.blocks().stream()
                    .anyMatch(b -> scenario.excludedStreams().contains(b.streamId()));
            if (holdsExcluded) {
              assertThat(plan.compactedObjectIds()).doesNotContain(object.objectId());
              assertThat(plan.excludedObjectIds()).contains(object.objectId());
            }
          }
          assertThat(plan.compactedObjectIds())
              .filteredOn(plan.excludedObjectIds()::contains)
              .isEmpty();
        });
  }

  @Test
  void theStreamSetObjectHoldsOneGapFreeRangePerStreamWithinTheLimit() {
    forScenarios(
        2000,
        scenario -> {
          CompactionPlan plan = plan(scenario, scenario.objects());
          List<SourceBlock> compact = new ArrayList<>();
          for (CompactionRound round : plan.rounds()) {
            for (PlannedObject object : round.objects()) {
              if (object instanceof PlannedObject.Compact part) {
                compact.addAll(part.blocks());
              }
            }
          }
          // Over all rounds, in order, as the one stream-set object writer receives them.
          for (int i = 1; i < compact.size(); i++) {
            SourceBlock previous = compact.get(i - 1);
            SourceBlock block = compact.get(i);
            if (block.streamId() == previous.streamId()) {
              assertThat(block.startOffset()).isEqualTo(previous.endOffset());
            } else {
              assertThat(block.streamId()).isGreaterThan(previous.streamId());
            }
          }
          long streams = compact.stream().mapToLong(SourceBlock::streamId).distinct().count();
          assertThat(streams).isLessThanOrEqualTo(scenario.limits().maxStreamNumInStreamSet());
        });
  }

  @Test
  void thePlanDependsOnTheObjectsNotOnTheirOrder() {
    forScenarios(
        1000,
        scenario -> {
          List<SourceObject> reversed = new ArrayList<>(scenario.objects());
          Collections.reverse(reversed);
          assertThat(plan(scenario, reversed)).isEqualTo(plan(scenario, scenario.objects()));
        });
  }

  @Test
  void deadDataAloneMakesAnObjectWorthRewriting() {
    forScenarios(
        1000,
        scenario -> {
          CompactionPlan plan = plan(scenario, scenario.objects());
          for (SourceObject object : scenario.objects()) {
            boolean holdsDeadBytes =
                object.blocks().stream()
                    .anyMatch(
                        b -> {
                          OptionalLong start = scenario.streamStarts().startOffset(b.streamId());
                          return start.isEmpty() || b.startOffset() < start.getAsLong();
                        });
            boolean heldOut = plan.excludedObjectIds().contains(object.objectId());
            if (holdsDeadBytes && !heldOut) {
              assertThat(plan.compactedObjectIds()).contains(object.objectId());
            }
          }
        });
  }
}
