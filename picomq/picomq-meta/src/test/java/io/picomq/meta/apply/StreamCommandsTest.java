package io.picomq.meta.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.state.RangeLocation;
import io.picomq.meta.state.StreamEntry;
import io.picomq.meta.state.StreamStatus;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StreamCommandsTest {

  private final ApplyHarness machine = new ApplyHarness();

  @Nested
  class Create {
    @Test
    void streamsGetConsecutiveIdsAndStartClosedEmptyAndUnplaced() {
      assertThat(machine.ok(new Command.CreateStream()))
          .isEqualTo(new Outcome.StreamsCreated(0, 1));
      assertThat(machine.ok(new Command.CreateStreams(3)))
          .isEqualTo(new Outcome.StreamsCreated(1, 3));

      assertThat(machine.state.streams().keySet()).containsExactly(0L, 1L, 2L, 3L);
      assertThat(machine.stream(2))
          .isEqualTo(new StreamEntry(2, -1, 0, 0, StreamStatus.CLOSED, -1, -1));
    }

    @Test
    void idsOfDeletedStreamsAreNeverReused() {
      machine.create();
      machine.ok(new Command.DeleteStream(0));

      assertThat(machine.create()).isEqualTo(1);
    }
  }

  @Nested
  class Open {
    @Test
    void eachOpenMovesToTheNextEpochAndReportsTheOffsets() {
      machine.register(1, 100);
      long stream = machine.create();

      assertThat(machine.ok(new Command.OpenStream(stream, 1, 100)))
          .isEqualTo(new Outcome.StreamOpened(stream, 0, 0, 0));
      machine.append(1, 100, stream, 5);
      machine.ok(new Command.CloseStream(stream, 0, 1, 100));

      assertThat(machine.ok(new Command.OpenStream(stream, 1, 100)))
          .isEqualTo(new Outcome.StreamOpened(stream, 1, 0, 5));
      assertThat(machine.stream(stream))
          .isEqualTo(new StreamEntry(stream, 1, 0, 5, StreamStatus.OPEN, 1, 100));
    }

    @Test
    void reopeningByTheSameProcessIsRedundant() {
      machine.register(1, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);

      assertThat(machine.redundant(new Command.OpenStream(stream, 1, 100)))
          .isEqualTo(new Outcome.StreamOpened(stream, 0, 0, 0));
    }

    @Test
    void aStreamOpenOnAnotherLiveNodeIsRefused() {
      machine.register(1, 100);
      machine.register(2, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);

      machine.rejected(new Command.OpenStream(stream, 2, 100), RejectReason.OPEN_ON_OTHER_NODE);
    }

    @Test
    void aStreamOpenOnAnEarlierProcessStaysRefusedUntilThatProcessIsRecoveredAndClosed() {
      machine.register(1, 100);
      machine.register(2, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.register(1, 200); // node 1 restarted; its WAL may hold acknowledged records

      machine.rejected(new Command.OpenStream(stream, 2, 100), RejectReason.OPEN_ON_OTHER_NODE);
      machine.rejected(new Command.OpenStream(stream, 1, 200), RejectReason.OPEN_ON_OTHER_NODE);

      // The new process recovers the old one's WAL, then closes the stream at the stream's epoch.
      machine.ok(new Command.CloseStream(stream, 0, 1, 200));
      assertThat(machine.open(stream, 2, 100)).isEqualTo(1);
      assertThat(machine.stream(stream).nodeId()).isEqualTo(2);
    }

    @Test
    void aClosedStreamPlacedElsewhereMovesToTheOpener() {
      machine.register(1, 100);
      machine.register(2, 100);
      long stream = machine.create();
      machine.ok(new Command.PlaceStream(stream)); // node 1

      machine.open(stream, 2, 100);
      assertThat(machine.stream(stream).nodeId()).isEqualTo(2);
    }

    @Test
    void unknownAndDeletedStreamsAreRefused() {
      machine.register(1, 100);
      machine.rejected(new Command.OpenStream(0, 1, 100), RejectReason.UNKNOWN_STREAM);
      long stream = machine.create();
      machine.ok(new Command.DeleteStream(stream));

      assertThat(
              machine
                  .rejected(new Command.OpenStream(stream, 1, 100), RejectReason.UNKNOWN_STREAM)
                  .message())
          .contains("deleted");
    }

    @Test
    void aStreamBeingTransferredCannotBeOpened() {
      machine.register(1, 100);
      machine.register(2, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.ok(new Command.TransferStream(stream, 2));

      machine.rejected(new Command.OpenStream(stream, 2, 100), RejectReason.TRANSFER_IN_PROGRESS);
      machine.rejected(new Command.OpenStream(stream, 1, 100), RejectReason.TRANSFER_IN_PROGRESS);
    }
  }

  @Nested
  class Trim {
    @Test
    void trimMovesTheStartAndDestroysObjectsLeftBelowIt() {
      machine.register(1, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      long first = machine.append(1, 100, stream, 10); // [0,10)
      long second = machine.append(1, 100, stream, 10); // [10,20)

      assertThat(machine.ok(new Command.TrimStream(stream, 0, 12)))
          .isEqualTo(new Outcome.StreamTrimmed(stream, 12));
      assertThat(machine.stream(stream).startOffset()).isEqualTo(12);
      assertThat(machine.state.destructionQueue()).containsExactly(first);
      assertThat(machine.state.catalog().contains(first)).isFalse();
      assertThat(machine.state.objectsCovering(stream, 12, 20))
          .containsExactly(new RangeLocation(second, 10, 20));
    }

    @Test
    void aStreamSetObjectStaysWhileAnotherStreamStillReachesIt() {
      machine.register(1, 100);
      long a = machine.create();
      long b = machine.create();
      machine.open(a, 1, 100);
      machine.open(b, 1, 100);
      long shared = machine.prepare(1, 1_000);
      machine.ok(
          ApplyHarness.commit(
              shared,
              1,
              100,
              List.of(new CommittedRange(a, 0, 0, 5), new CommittedRange(b, 0, 0, 7)),
              List.of()));

      machine.ok(new Command.TrimStream(a, 0, 5));
      assertThat(machine.state.catalog().contains(shared)).isTrue();
      assertThat(machine.state.catalog().object(shared).orElseThrow().ranges()).hasSize(1);
      assertThat(machine.state.destructionQueue()).isEmpty();

      machine.ok(new Command.TrimStream(b, 0, 7));
      assertThat(machine.state.destructionQueue()).containsExactly(shared);
    }

    @Test
    void trimmingToOrBelowTheStartIsRedundant() {
      machine.register(1, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.append(1, 100, stream, 10);
      machine.ok(new Command.TrimStream(stream, 0, 4));

      assertThat(machine.redundant(new Command.TrimStream(stream, 0, 4)))
          .isEqualTo(new Outcome.StreamTrimmed(stream, 4));
      machine.redundant(new Command.TrimStream(stream, 0, 2));
    }

    @Test
    void trimPastTheEndOrAtAnotherEpochOrOfAnUnknownStreamIsRefused() {
      machine.register(1, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.append(1, 100, stream, 10);

      machine.rejected(new Command.TrimStream(stream, 0, 11), RejectReason.OFFSET_MISMATCH);
      machine.rejected(new Command.TrimStream(stream, 1, 5), RejectReason.FENCED_STREAM_EPOCH);
      machine.rejected(new Command.TrimStream(9, 0, 5), RejectReason.UNKNOWN_STREAM);
      machine.ok(new Command.TrimStream(stream, 0, 10)); // trimming everything is allowed
      assertThat(machine.state.objectsCovering(stream, 0, 100)).isEmpty();
    }
  }

  @Nested
  class Close {
    @Test
    void theOwnerClosesAtTheCurrentEpochAndRepeatingIsRedundant() {
      machine.register(1, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);

      assertThat(machine.ok(new Command.CloseStream(stream, 0, 1, 100)))
          .isEqualTo(new Outcome.StreamClosed(stream, 0));
      assertThat(machine.stream(stream).status()).isEqualTo(StreamStatus.CLOSED);
      assertThat(machine.stream(stream).nodeId()).as("stays on its node").isEqualTo(1);
      machine.redundant(new Command.CloseStream(stream, 0, 1, 100));
    }

    @Test
    void aRestartedOwnerClosesWhatItsOldProcessOpened() {
      machine.register(1, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.register(1, 200);

      machine.ok(new Command.CloseStream(stream, 0, 1, 200));
    }

    @Test
    void closeAtAnOldEpochByAnotherNodeOrOfAnUnknownStreamIsRefused() {
      machine.register(1, 100);
      machine.register(2, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.ok(new Command.CloseStream(stream, 0, 1, 100));
      machine.open(stream, 1, 100); // epoch 1

      machine.rejected(
          new Command.CloseStream(stream, 0, 1, 100), RejectReason.FENCED_STREAM_EPOCH);
      machine.rejected(new Command.CloseStream(stream, 1, 2, 100), RejectReason.NOT_OWNER);
      machine.rejected(new Command.CloseStream(7, 1, 1, 100), RejectReason.UNKNOWN_STREAM);
    }
  }

  @Nested
  class Delete {
    @Test
    void deleteRemovesTheStreamAndSendsItsObjectsToTheDestructionQueue() {
      machine.register(1, 100);
      long stream = machine.create();
      long other = machine.create();
      machine.open(stream, 1, 100);
      machine.open(other, 1, 100);
      long own = machine.append(1, 100, stream, 10);
      long streamObject = machine.appendStreamObject(1, 100, stream, 5);
      long shared = machine.prepare(1, 1_000);
      machine.ok(
          ApplyHarness.commit(
              shared,
              1,
              100,
              List.of(new CommittedRange(stream, 0, 15, 20), new CommittedRange(other, 0, 0, 3)),
              List.of()));

      assertThat(machine.ok(new Command.DeleteStream(stream)))
          .isEqualTo(new Outcome.StreamDeleted(stream));
      assertThat(machine.state.stream(stream)).isEmpty();
      assertThat(machine.state.destructionQueue()).containsExactly(own, streamObject);
      assertThat(machine.state.objectsCovering(other, 0, 3))
          .containsExactly(new RangeLocation(shared, 0, 3));
    }

    @Test
    void deletingTwiceIsRedundantAndDeletingANeverCreatedIdIsRefused() {
      long stream = machine.create();
      machine.ok(new Command.DeleteStream(stream));

      assertThat(machine.redundant(new Command.DeleteStream(stream)))
          .isEqualTo(new Outcome.StreamDeleted(stream));
      machine.rejected(new Command.DeleteStream(5), RejectReason.UNKNOWN_STREAM);
    }

    @Test
    void deleteDropsAPendingTransfer() {
      machine.register(1, 100);
      machine.register(2, 100);
      long stream = machine.create();
      machine.open(stream, 1, 100);
      machine.ok(new Command.TransferStream(stream, 2));

      machine.ok(new Command.DeleteStream(stream));
      assertThat(machine.state.pendingTransfers()).isEmpty();
    }
  }
}
