package io.picomq.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.Expiry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Entry writes are proposed in decision order, never before the appends they reflect are durable,
 * and say which seqs their stamps cover ({@link EntryWriter#persist}).
 */
class EntryWriterTest {
  private final List<Registration> written = new CopyOnWriteArrayList<>();
  private final EntryWriter writer =
      new EntryWriter(
          (key, bytes) -> {
            written.add(Registration.decode(bytes));
            return CompletableFuture.completedFuture(null);
          },
          new ServiceFailures(null, null, Duration.ofSeconds(5)));

  @Test
  void anEntryWaitsForTheAppendsItReflectsAndForEveryEarlierWrite() {
    LiveStream stream = stream();
    CompletableFuture<Void> firstAppend = new CompletableFuture<>();
    stream.lock.lock();
    CompletableFuture<Void> first;
    CompletableFuture<Void> second;
    try {
      stream.assignedTail = 3;
      stream.lastAppend = firstAppend;
      first = writer.persist(stream, stream.registration.withClosed(true), firstAppend);
      stream.assignedTail = 5;
      // Waits for nothing of its own, but follows the first write and the last append.
      second = writer.persist(stream, stream.registration.withStartSeq(1), stream.persisted);
    } finally {
      stream.lock.unlock();
    }
    assertThat(written).isEmpty();
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();

    firstAppend.complete(null);
    assertThat(first).isCompleted();
    assertThat(second).isCompleted();
    assertThat(written).extracting(Registration::stampedThrough).containsExactly(3L, 5L);
    assertThat(written.get(1).closed()).isTrue(); // entries are cumulative
    assertThat(written.get(1).startSeq()).isEqualTo(1);
  }

  @Test
  void aFailedWriteDoesNotStopTheChainButAFailedAppendDoes() {
    LiveStream stream = stream();
    stream.lock.lock();
    CompletableFuture<Void> afterFailedWrite;
    try {
      stream.persisted = CompletableFuture.failedFuture(new IllegalStateException("earlier"));
      afterFailedWrite =
          writer.persist(
              stream, stream.registration.withStartSeq(2), CompletableFuture.completedFuture(null));
    } finally {
      stream.lock.unlock();
    }
    assertThat(afterFailedWrite).isCompleted();
    assertThat(written).hasSize(1);

    CompletableFuture<Void> lostAppend = new CompletableFuture<>();
    stream.lock.lock();
    CompletableFuture<Void> afterLostAppend;
    try {
      stream.lastAppend = lostAppend;
      afterLostAppend = writer.persist(stream, stream.registration.withClosed(true), lostAppend);
    } finally {
      stream.lock.unlock();
    }
    lostAppend.completeExceptionally(new IllegalStateException("the append failed"));
    assertThat(afterLostAppend).isCompletedExceptionally();
    assertThat(written).hasSize(1); // the entry would be ahead of the records
  }

  @Test
  void nothingIsWrittenOnceTheNameIsRemoved() {
    LiveStream stream = stream();
    CompletableFuture<Void> append = new CompletableFuture<>();
    CompletableFuture<Void> persisted;
    stream.lock.lock();
    try {
      stream.lastAppend = append;
      persisted = writer.persist(stream, stream.registration.withClosed(true), append);
      stream.removed = true;
    } finally {
      stream.lock.unlock();
    }
    append.complete(null);
    assertThat(persisted).isCompleted();
    assertThat(written).isEmpty();
  }

  @Test
  void aCheckpointIsDueAfterEnoughRecordsOrBytes() {
    LiveStream stream = stream();
    stream.stampedThroughProposed = 10;
    assertThat(EntryWriter.checkpointDue(stream, 10 + EntryWriter.CHECKPOINT_RECORDS - 1))
        .isFalse();
    assertThat(EntryWriter.checkpointDue(stream, 10 + EntryWriter.CHECKPOINT_RECORDS)).isTrue();
    stream.unstampedBytes = EntryWriter.CHECKPOINT_BYTES;
    assertThat(EntryWriter.checkpointDue(stream, 11)).isTrue();
  }

  /** A loaded stream without an engine stream: persisting never touches it. */
  private static LiveStream stream() {
    Registration entry =
        new Registration(
            5,
            "text/plain",
            Expiry.NEVER,
            0,
            false,
            false,
            0,
            0,
            Optional.empty(),
            List.of(new Segment(5, 0, Segment.OPEN_END, 0)),
            Optional.empty(),
            Map.of(),
            0);
    return new LiveStream("/s", null, entry, 0, 0, 0);
  }
}
