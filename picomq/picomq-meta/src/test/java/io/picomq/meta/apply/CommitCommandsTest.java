package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.CatalogRange;
import io.picomq.meta.state.CatalogStreamObject;
import io.picomq.meta.state.RangeLocation;
import io.picomq.meta.state.StreamSetObject;
import io.picomq.meta.state.StreamStatus;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Committing new data: a stream-set object and the stream objects uploaded with it. */
class CommitCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();
  private long a;
  private long b;

  @BeforeEach
  void twoOpenStreamsOnNodeOne() {
    machine.register(1, 100);
    machine.register(2, 100);
    a = machine.create();
    b = machine.create();
    machine.open(a, 1, 100);
    machine.open(b, 1, 100);
  }

  private Command.CommitStreamSetObject commit(long objectId, CommittedRange... ranges) {
    return ApplyHarness.commit(objectId, 1, 100, List.of(ranges), List.of());
  }

  @Test
  void aCommitCataloguesItsObjectsAndAdvancesEachStreamsEnd() {
    long set = machine.prepare(2, 1_000);
    long streamObject = set + 1;
    Command commit =
        ApplyHarness.commit(
            set,
            1,
            100,
            List.of(new CommittedRange(a, 0, 0, 10), new CommittedRange(b, 0, 0, 4)),
            List.of(new NewStreamObject(streamObject, a, 0, 10, 30, 2048)));

    assertThat(machine.ok(commit)).isEqualTo(new Outcome.StreamSetObjectCommitted(set));
    assertThat(machine.stream(a).endOffset()).isEqualTo(30);
    assertThat(machine.stream(b).endOffset()).isEqualTo(4);
    assertThat(machine.state.preparedObjects()).isEmpty();
    assertThat(machine.state.catalog().object(set))
        .contains(
            new StreamSetObject(
                set, 1, 4096, List.of(new CatalogRange(a, 0, 10), new CatalogRange(b, 0, 4))));
    assertThat(machine.state.catalog().object(streamObject))
        .contains(new CatalogStreamObject(streamObject, a, 10, 30, 2048));
    assertThat(machine.state.objectsCovering(a, 5, 12))
        .containsExactly(new RangeLocation(set, 0, 10), new RangeLocation(streamObject, 10, 30));
  }

  @Test
  void lookupsReturnTheObjectsCoveringARangeInOffsetOrder() {
    long first = machine.append(1, 100, a, 10); // [0,10)
    long second = machine.appendStreamObject(1, 100, a, 15); // [10,25)
    long third = machine.append(1, 100, a, 5); // [25,30)

    assertThat(machine.state.objectsCovering(a, 12, 26))
        .containsExactly(new RangeLocation(second, 10, 25), new RangeLocation(third, 25, 30));
    assertThat(machine.state.objectsCovering(a, 0, 10))
        .containsExactly(new RangeLocation(first, 0, 10));
    assertThat(machine.state.objectsCovering(a, 29, 100))
        .containsExactly(new RangeLocation(third, 25, 30));
    assertThat(machine.state.objectsCovering(a, 30, 40)).isEmpty();
    assertThat(machine.state.objectsCovering(a, 5, 5)).isEmpty();
    assertThat(machine.state.objectsCovering(b, 0, 40)).isEmpty();
  }

  @Test
  void aCommitOfStreamObjectsAloneNeedsNoStreamSetObject() {
    long streamObject = machine.appendStreamObject(1, 100, a, 8);

    assertThat(machine.stream(a).endOffset()).isEqualTo(8);
    assertThat(machine.state.objectsCovering(a, 0, 8))
        .containsExactly(new RangeLocation(streamObject, 0, 8));
  }

  @Test
  void repeatingACommitIsRedundant() {
    long set = machine.prepare(1, 1_000);
    Command commit = commit(set, new CommittedRange(a, 0, 0, 10));
    machine.ok(commit);

    assertThat(machine.redundant(commit)).isEqualTo(new Outcome.StreamSetObjectCommitted(set));
  }

  @Test
  void theSameDataUnderNewObjectIdsIsRedundant() {
    machine.append(1, 100, a, 10);
    long again = machine.prepare(1, 1_000);

    machine.redundant(commit(again, new CommittedRange(a, 0, 0, 10)));
    machine.redundant(commit(again, new CommittedRange(a, 0, 2, 8)));
    assertThat(machine.state.preparedObjects()).containsKey(again);
  }

  @Test
  void aCommitThatLeavesAGapOrOverlapsTheEndIsRefused() {
    machine.append(1, 100, a, 10);
    long set = machine.prepare(1, 1_000);

    machine.rejected(commit(set, new CommittedRange(a, 0, 11, 20)), RejectReason.OFFSET_MISMATCH);
    machine.rejected(commit(set, new CommittedRange(a, 0, 5, 20)), RejectReason.OFFSET_MISMATCH);
  }

  /**
   * A node offers a block's commit before the previous block's commit has completed. If that one
   * was lost and is retried, the later commit arrives first: it is refused (never applied with a
   * gap), and the same command applies once offered again behind the earlier one.
   */
  @Test
  void aLaterBlocksCommitArrivingFirstIsRefusedAndAppliesWhenOfferedAgainAfterTheEarlier() {
    long earlier = machine.prepare(1, 1_000);
    long later = machine.prepare(1, 1_000);
    Command earlierCommit = commit(earlier, new CommittedRange(a, 0, 0, 10));
    Command laterCommit = commit(later, new CommittedRange(a, 0, 10, 15));

    machine.rejected(laterCommit, RejectReason.OFFSET_MISMATCH);
    assertThat(machine.stream(a).endOffset()).isZero();
    assertThat(machine.state.catalog().object(later)).isEmpty();

    machine.ok(earlierCommit);
    machine.ok(laterCommit);
    assertThat(machine.stream(a).endOffset()).isEqualTo(15);
    machine.redundant(laterCommit);
  }

  @Test
  void aCommitThatRepeatsSomeStreamsAndExtendsOthersIsRefused() {
    machine.append(1, 100, a, 10);
    long set = machine.prepare(1, 1_000);

    machine.rejected(
        commit(set, new CommittedRange(a, 0, 0, 10), new CommittedRange(b, 0, 0, 5)),
        RejectReason.OFFSET_MISMATCH);
  }

  @Test
  void rangesOfOneStreamInsideACommitMustBeContiguous() {
    long set = machine.prepare(2, 1_000);
    Command gap =
        ApplyHarness.commit(
            set,
            1,
            100,
            List.of(new CommittedRange(a, 0, 0, 5)),
            List.of(new NewStreamObject(set + 1, a, 0, 6, 10, 10)));
    Command overlap =
        ApplyHarness.commit(
            set,
            1,
            100,
            List.of(new CommittedRange(a, 0, 0, 5)),
            List.of(new NewStreamObject(set + 1, a, 0, 3, 10, 10)));

    machine.rejected(gap, RejectReason.OFFSET_MISMATCH);
    machine.rejected(overlap, RejectReason.OFFSET_MISMATCH);
  }

  /**
   * A close offered right behind the commit of its last records, expecting the end that commit
   * brings: applied after the commit it closes there; without the commit it is refused, so a stream
   * is never closed short of what its owner acknowledged.
   */
  @Test
  void aCloseExpectingAnEndOffsetAppliesOnlyAtThatEnd() {
    long set = machine.prepare(2, 1_000);
    machine.rejected(new Command.CloseStream(a, 0, 1, 100, 5), RejectReason.OFFSET_MISMATCH);
    assertThat(machine.stream(a).status()).isEqualTo(StreamStatus.OPEN);

    machine.ok(commit(set, new CommittedRange(a, 0, 0, 5)));
    machine.rejected(new Command.CloseStream(a, 0, 1, 100, 4), RejectReason.OFFSET_MISMATCH);
    machine.ok(new Command.CloseStream(a, 0, 1, 100, 5));
    assertThat(machine.stream(a).status()).isEqualTo(StreamStatus.CLOSED);
    assertThat(machine.stream(a).endOffset()).isEqualTo(5);
    machine.redundant(new Command.CloseStream(a, 0, 1, 100, 5));
  }

  @Test
  void dataOfAnOlderStreamEpochIsFenced() {
    machine.ok(new Command.CloseStream(a, 0, 1, 100));
    machine.open(a, 1, 100); // epoch 1
    long set = machine.prepare(1, 1_000);

    machine.rejected(commit(set, new CommittedRange(a, 0, 0, 5)), RejectReason.FENCED_STREAM_EPOCH);
    machine.ok(commit(set, new CommittedRange(a, 1, 0, 5)));
  }

  @Test
  void dataOfAStreamThatBelongsToAnotherNodeIsRefused() {
    long set = machine.prepare(1, 1_000);

    machine.rejected(
        ApplyHarness.commit(set, 2, 100, List.of(new CommittedRange(a, 0, 0, 5)), List.of()),
        RejectReason.NOT_OWNER);
  }

  @Test
  void objectIdsMustBePreparedAndNotExpired() {
    machine.rejected(commit(0, new CommittedRange(a, 0, 0, 5)), RejectReason.OBJECT_NOT_PREPARED);
    long set = machine.prepare(1, 50);
    machine.ok(new Command.ExpirePreparedObjects(50));

    machine.rejected(commit(set, new CommittedRange(a, 0, 0, 5)), RejectReason.OBJECT_NOT_PREPARED);
  }

  @Test
  void aStreamIdNeverAllocatedIsRefused() {
    long set = machine.prepare(1, 1_000);

    machine.rejected(commit(set, new CommittedRange(9, 0, 0, 5)), RejectReason.UNKNOWN_STREAM);
  }

  @Test
  void rangesOfADeletedStreamAreDroppedAndAnObjectLeftEmptyIsDestroyed() {
    long set = machine.prepare(3, 1_000);
    machine.ok(new Command.DeleteStream(b));

    machine.ok(commit(set, new CommittedRange(a, 0, 0, 5), new CommittedRange(b, 0, 0, 5)));
    assertThat(machine.state.catalog().object(set).orElseThrow().ranges())
        .containsExactly(new CatalogRange(a, 0, 5));

    machine.ok(commit(set + 1, new CommittedRange(b, 0, 5, 9)));
    assertThat(machine.state.catalog().contains(set + 1)).isFalse();
    assertThat(machine.state.destructionQueue()).containsExactly(set + 1);
    assertThat(machine.state.preparedObjects()).containsOnlyKeys(set + 2);
  }
}
