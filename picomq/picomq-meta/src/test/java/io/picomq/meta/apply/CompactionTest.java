package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.CatalogRange;
import io.picomq.meta.state.RangeLocation;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class CompactionTest {

  private final ApplyHarness machine = new ApplyHarness();
  private long a;
  private long b;

  @BeforeEach
  void twoOpenStreamsOnNodeOne() {
    machine.register(1, 100);
    a = machine.create();
    b = machine.create();
    machine.open(a, 1, 100);
    machine.open(b, 1, 100);
  }

  @Nested
  class StreamObjects {
    private long first;
    private long second;
    private long third;

    @BeforeEach
    void threeStreamObjects() {
      first = machine.appendStreamObject(1, 100, a, 10); // [0,10)
      second = machine.appendStreamObject(1, 100, a, 5); // [10,15)
      third = machine.appendStreamObject(1, 100, a, 5); // [15,20)
    }

    private Command.CompactStreamObjects merge(long id, long start, long end, Long... sources) {
      return new Command.CompactStreamObjects(id, a, start, end, 999, List.of(sources), 1, 100);
    }

    @Test
    void contiguousSourcesBecomeOneObjectAndTheSourcesAreDestroyed() {
      long merged = machine.prepare(1, 1_000);

      assertThat(machine.ok(merge(merged, 0, 15, second, first)))
          .isEqualTo(new Outcome.StreamObjectsCompacted(merged));
      assertThat(machine.state.objectsCovering(a, 0, 20))
          .containsExactly(new RangeLocation(merged, 0, 15), new RangeLocation(third, 15, 20));
      assertThat(machine.state.destructionQueue()).containsExactly(first, second);
      assertThat(machine.state.preparedObjects()).doesNotContainKey(merged);
      machine.redundant(merge(merged, 0, 15, second, first));
    }

    @Test
    void sourcesWithAHoleOrNotSpanningTheNewRangeAreRefused() {
      long merged = machine.prepare(1, 1_000);

      machine.rejected(merge(merged, 0, 20, first, third), RejectReason.OFFSET_MISMATCH);
      machine.rejected(merge(merged, 0, 16, first, second), RejectReason.OFFSET_MISMATCH);
      machine.rejected(merge(merged, 1, 15, first, second), RejectReason.OFFSET_MISMATCH);
    }

    @Test
    void sourcesThatAreGoneOrNotStreamObjectsOfTheStreamAreRefused() {
      long set = machine.append(1, 100, b, 3);
      long merged = machine.prepare(1, 1_000);
      machine.ok(new Command.TrimStream(a, 0, 10)); // destroys first

      machine.rejected(merge(merged, 0, 15, first, second), RejectReason.OBJECT_CONFLICT);
      machine.rejected(merge(merged, 10, 15, second, set), RejectReason.OBJECT_CONFLICT);
    }

    @Test
    void theNewIdMustBePreparedAndTheStreamMustExist() {
      machine.rejected(merge(77, 0, 15, first, second), RejectReason.OBJECT_NOT_PREPARED);
      long merged = machine.prepare(1, 1_000);
      machine.rejected(
          new Command.CompactStreamObjects(merged, 9, 0, 15, 1, List.of(first), 1, 100),
          RejectReason.UNKNOWN_STREAM);
    }
  }

  @Nested
  class StreamSetObjects {
    private long first;
    private long second;

    @BeforeEach
    void twoStreamSetObjects() {
      first = machine.prepare(1, 1_000);
      machine.ok(
          ApplyHarness.commit(
              first,
              1,
              100,
              List.of(new CommittedRange(a, 0, 0, 10), new CommittedRange(b, 0, 0, 4)),
              List.of()));
      second = machine.prepare(1, 1_000);
      machine.ok(
          ApplyHarness.commit(
              second,
              1,
              100,
              List.of(new CommittedRange(a, 0, 10, 20), new CommittedRange(b, 0, 4, 6)),
              List.of()));
    }

    private Command.CommitStreamSetObject compaction(
        long objectId,
        List<CommittedRange> ranges,
        List<NewStreamObject> streamObjects,
        Long... sources) {
      return new Command.CommitStreamSetObject(
          objectId, 1, 100, 8192, ranges, streamObjects, List.of(sources));
    }

    @Test
    void sourcesAreReplacedByObjectsHoldingTheSameOffsets() {
      long merged = machine.prepare(2, 1_000);
      long split = merged + 1;
      Command compaction =
          compaction(
              merged,
              List.of(new CommittedRange(b, 0, 0, 6)),
              List.of(new NewStreamObject(split, a, 0, 0, 20, 4000)),
              first,
              second);

      assertThat(machine.ok(compaction)).isEqualTo(new Outcome.StreamSetObjectCommitted(merged));
      assertThat(machine.state.objectsCovering(a, 0, 20))
          .containsExactly(new RangeLocation(split, 0, 20));
      assertThat(machine.state.objectsCovering(b, 0, 6))
          .containsExactly(new RangeLocation(merged, 0, 6));
      assertThat(machine.state.destructionQueue()).containsExactly(first, second);
      assertThat(machine.stream(a).endOffset()).as("compaction adds no data").isEqualTo(20);
      machine.redundant(compaction);
    }

    @Test
    void aCompactionThatLosesOrAddsOffsetsIsRefused() {
      long merged = machine.prepare(1, 1_000);

      machine.rejected(
          compaction(
              merged,
              List.of(new CommittedRange(a, 0, 0, 20), new CommittedRange(b, 0, 0, 5)),
              List.of(),
              first,
              second),
          RejectReason.OFFSET_MISMATCH);
      machine.rejected(
          compaction(merged, List.of(new CommittedRange(a, 0, 0, 10)), List.of(), first),
          RejectReason.OFFSET_MISMATCH);
      machine.rejected(
          compaction(
              merged,
              List.of(new CommittedRange(a, 0, 0, 10), new CommittedRange(b, 0, 0, 6)),
              List.of(),
              first),
          RejectReason.OFFSET_MISMATCH);
    }

    @Test
    void aSourceThatIsGoneOrAStreamObjectIsAConflict() {
      long streamObject = machine.appendStreamObject(1, 100, a, 5);
      long merged = machine.prepare(1, 1_000);

      machine.rejected(
          compaction(merged, List.of(new CommittedRange(a, 0, 20, 25)), List.of(), streamObject),
          RejectReason.OBJECT_CONFLICT);
      machine.rejected(
          compaction(merged, List.of(new CommittedRange(a, 0, 0, 10)), List.of(), 42L),
          RejectReason.OBJECT_CONFLICT);
    }

    @Test
    void offsetsTrimmedWhileTheCompactionRanAreDropped() {
      long merged = machine.prepare(1, 1_000);
      Command compaction =
          compaction(
              merged,
              List.of(new CommittedRange(a, 0, 0, 20), new CommittedRange(b, 0, 0, 6)),
              List.of(),
              first,
              second);
      machine.ok(new Command.TrimStream(b, 0, 6)); // b's ranges leave both sources
      machine.ok(new Command.TrimStream(a, 0, 12)); // first leaves the catalog entirely

      machine.rejected(compaction, RejectReason.OBJECT_CONFLICT);
      Command onlySecond =
          compaction(
              merged,
              List.of(new CommittedRange(a, 0, 10, 20), new CommittedRange(b, 0, 4, 6)),
              List.of(),
              second);
      machine.ok(onlySecond);
      assertThat(machine.state.catalog().object(merged).orElseThrow().ranges())
          .containsExactly(new CatalogRange(a, 10, 20));
      assertThat(machine.state.objectsCovering(a, 12, 20))
          .containsExactly(new RangeLocation(merged, 10, 20));
    }

    @Test
    void rangesOfAStreamDeletedWhileTheCompactionRanAreDropped() {
      long merged = machine.prepare(1, 1_000);
      machine.ok(new Command.DeleteStream(b));

      machine.ok(
          compaction(
              merged,
              List.of(new CommittedRange(a, 0, 0, 20), new CommittedRange(b, 0, 0, 6)),
              List.of(),
              first,
              second));
      assertThat(machine.state.catalog().object(merged).orElseThrow().ranges())
          .containsExactly(new CatalogRange(a, 0, 20));
    }
  }
}
