package io.picomq.s3stream.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ObjectMetadata.ObjectType;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamObjectMergePlannerTest {

  private static ObjectMetadata streamObject(
      long id, long stream, long start, long end, long size) {
    return new ObjectMetadata(
        id, ObjectType.STREAM, size, List.of(new StreamOffsetRange(stream, start, end)), 0);
  }

  @Test
  void theClassExampleHoldsOneMergeOfTheStraddlingRun() {
    ObjectMetadata garbage = streamObject(1, 7, 0, 10, 20);
    ObjectMetadata straddling = streamObject(2, 7, 10, 20, 30);
    ObjectMetadata next = streamObject(3, 7, 20, 40, 40);
    ObjectMetadata tooBigToJoin = streamObject(4, 7, 40, 60, 50);
    ObjectMetadata big = streamObject(5, 7, 60, 80, 90);
    ObjectMetadata afterGap = streamObject(6, 7, 90, 95, 5);
    List<StreamObjectMerge> merges =
        new StreamObjectMergePlanner(100)
            .plan(7, 15, List.of(afterGap, big, tooBigToJoin, next, straddling, garbage));
    assertThat(merges).containsExactly(new StreamObjectMerge(7, 15, List.of(straddling, next)));
  }

  @Test
  void contiguousSmallObjectsMergeUpToTheSize() {
    List<ObjectMetadata> objects =
        List.of(
            streamObject(1, 7, 0, 10, 40),
            streamObject(2, 7, 10, 20, 40),
            streamObject(3, 7, 20, 30, 40),
            streamObject(4, 7, 30, 40, 40),
            streamObject(5, 7, 40, 50, 40));
    List<StreamObjectMerge> merges = new StreamObjectMergePlanner(100).plan(7, 0, objects);
    assertThat(merges)
        .containsExactly(
            new StreamObjectMerge(7, 0, objects.subList(0, 2)),
            new StreamObjectMerge(7, 0, objects.subList(2, 4)));
  }

  @Test
  void aLoneStraddlingObjectIsRewrittenHoweverLarge() {
    ObjectMetadata huge = streamObject(1, 7, 0, 1000, 5000);
    assertThat(new StreamObjectMergePlanner(100).plan(7, 500, List.of(huge)))
        .containsExactly(new StreamObjectMerge(7, 500, List.of(huge)));
    assertThat(new StreamObjectMergePlanner(100).plan(7, 0, List.of(huge))).isEmpty();
  }

  @Test
  void otherStreamsAndStreamSetObjectsAreIgnored() {
    ObjectMetadata set =
        new ObjectMetadata(
            9, ObjectType.STREAM_SET, 10, List.of(new StreamOffsetRange(7, 10, 20)), 0);
    List<ObjectMetadata> objects =
        List.of(streamObject(1, 7, 0, 10, 10), set, streamObject(2, 8, 10, 20, 10));
    assertThat(new StreamObjectMergePlanner(100).plan(7, 0, objects)).isEmpty();
  }

  @Test
  void rejectsOverlappingStreamObjects() {
    List<ObjectMetadata> objects =
        List.of(streamObject(1, 7, 0, 10, 10), streamObject(2, 7, 5, 20, 10));
    assertThatThrownBy(() -> new StreamObjectMergePlanner(100).plan(7, 0, objects))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overlap");
  }
}
