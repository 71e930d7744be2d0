package io.picomq.s3stream.conformance.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.picomq.s3stream.core.compaction.CompactionLimits;
import io.picomq.s3stream.core.compaction.CompactionPlan;
import io.picomq.s3stream.core.compaction.CompactionPlanner;
import io.picomq.s3stream.core.compaction.CompactionRound;
import io.picomq.s3stream.core.compaction.PlannedObject;
import io.picomq.s3stream.core.compaction.SourceBlock;
import io.picomq.s3stream.core.compaction.SourceObject;
import io.picomq.s3stream.core.compaction.StreamStarts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * upstream/compaction/plans.json: the upstream planner's decisions for one set of three stream-set
 * objects under four sets of limits.
 *
 * <p>Reading of the file: each block is {@code [objectId, streamId, startOffset, endOffset,
 * blockStartPosition, blockSize]}; {@code excluded} is what the upstream planner held out because
 * of the limits (an output: in {@code stream_object_limit} object 2 appears in no plan). The input
 * objects are not in the file; every case plans the same objects, so they are the union of all
 * blocks the cases name, which {@link #theBlocksDescribeWholeObjects} checks.
 */
class CompactionPlansVectorsTest {

  private static List<JsonNode> cases() {
    List<JsonNode> cases = new ArrayList<>();
    CodecVectors.json(CodecVectors.folder("compaction").resolve("plans.json")).forEach(cases::add);
    return cases;
  }

  private static SourceBlock block(JsonNode tuple) {
    assertThat(tuple).hasSize(6);
    return new SourceBlock(
        tuple.get(0).asLong(),
        tuple.get(1).asLong(),
        tuple.get(2).asLong(),
        tuple.get(3).asLong(),
        tuple.get(4).asLong(),
        tuple.get(5).asInt());
  }

  private static List<SourceBlock> blocksOf(JsonNode testCase) {
    List<SourceBlock> blocks = new ArrayList<>();
    for (JsonNode round : testCase.get("plans")) {
      for (JsonNode object : round.get("objects")) {
        object.get("blocks").forEach(tuple -> blocks.add(block(tuple)));
      }
    }
    return blocks;
  }

  /** The input objects: every block any case names, grouped by object, in index order. */
  private static List<SourceObject> inputObjects() {
    Set<SourceBlock> all = new TreeSet<>(blockOrder());
    cases().forEach(c -> all.addAll(blocksOf(c)));
    Map<Long, List<SourceBlock>> byObject = new TreeMap<>();
    for (SourceBlock block : all) {
      byObject.computeIfAbsent(block.objectId(), id -> new ArrayList<>()).add(block);
    }
    List<SourceObject> objects = new ArrayList<>();
    byObject.forEach((id, blocks) -> objects.add(new SourceObject(id, blocks)));
    return objects;
  }

  private static Comparator<SourceBlock> blockOrder() {
    return Comparator.comparingLong(SourceBlock::objectId)
        .thenComparingLong(SourceBlock::streamId)
        .thenComparingLong(SourceBlock::startOffset);
  }

  @Test
  void theVectorsArePresent() {
    assertThat(cases()).hasSize(4);
  }

  /**
   * Confirms the reading of the tuples: in each object the blocks, sorted by stream, tile the data
   * region from position 0 (an index lists blocks in file order sorted by stream); and every case
   * names every block of the objects it did not hold out, each once.
   */
  @Test
  void theBlocksDescribeWholeObjects() {
    List<SourceObject> objects = inputObjects();
    assertThat(objects).extracting(SourceObject::objectId).containsExactly(0L, 1L, 2L);
    for (SourceObject object : objects) {
      long position = 0;
      for (SourceBlock block : object.blocks()) {
        assertThat(block.startPosition()).as("block %s", block).isEqualTo(position);
        position += block.sizeBytes();
      }
    }
    for (JsonNode testCase : cases()) {
      Set<Long> heldOut = new TreeSet<>();
      testCase.get("excluded").forEach(id -> heldOut.add(id.asLong()));
      List<SourceBlock> expected =
          objects.stream()
              .filter(o -> !heldOut.contains(o.objectId()))
              .flatMap(o -> o.blocks().stream())
              .toList();
      assertThat(blocksOf(testCase))
          .as(testCase.get("name").asText())
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @TestFactory
  Stream<DynamicTest> everyCase() {
    List<SourceObject> objects = inputObjects();
    return cases().stream()
        .map(
            testCase ->
                DynamicTest.dynamicTest(
                    testCase.get("name").asText(),
                    () -> {
                      CompactionLimits limits =
                          new CompactionLimits(
                              testCase.get("cache_size").asLong(),
                              testCase.get("stream_split_size").asLong(),
                              testCase.get("max_stream_num").asInt(),
                              testCase.get("max_stream_object_num").asInt());
                      CompactionPlan plan =
                          new CompactionPlanner(limits)
                              .plan(objects, StreamStarts.untrimmed(), Set.of());
                      assertThat(describe(plan)).isEqualTo(expected(testCase));
                      List<Long> excluded = new ArrayList<>();
                      testCase.get("excluded").forEach(id -> excluded.add(id.asLong()));
                      assertThat(plan.excludedObjectIds()).isEqualTo(excluded);
                    }));
  }

  /** A round as the vectors write it: order, then each object's type and block tuples. */
  private record Round(int order, List<Obj> objects) {}

  private record Obj(String type, List<SourceBlock> blocks) {}

  private static List<Round> expected(JsonNode testCase) {
    List<Round> rounds = new ArrayList<>();
    for (JsonNode round : testCase.get("plans")) {
      List<Obj> objects = new ArrayList<>();
      for (JsonNode object : round.get("objects")) {
        List<SourceBlock> blocks = new ArrayList<>();
        object.get("blocks").forEach(tuple -> blocks.add(block(tuple)));
        objects.add(new Obj(object.get("type").asText(), blocks));
      }
      rounds.add(new Round(round.get("order").asInt(), objects));
    }
    return rounds;
  }

  private static List<Round> describe(CompactionPlan plan) {
    List<Round> rounds = new ArrayList<>();
    for (CompactionRound round : plan.rounds()) {
      List<Obj> objects = new ArrayList<>();
      for (PlannedObject object : round.objects()) {
        String type =
            switch (object) {
              case PlannedObject.Split split -> "SPLIT";
              case PlannedObject.Compact compact -> "COMPACT";
            };
        objects.add(new Obj(type, object.blocks()));
      }
      rounds.add(new Round(round.order(), objects));
    }
    return rounds;
  }
}
