package io.picomq.s3stream.wal;

import static io.picomq.s3stream.wal.WriteAheadLogContract.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.RetryPolicy;
import io.picomq.s3stream.objectstore.RetryingObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Storage that fails as real stores do: 503 SlowDown, timeouts, a store that stops answering, a
 * response lost after the PUT landed, and a permanent refusal. Layers, top down: the WAL, a {@link
 * RetryingObjectStore} (as production wraps every store), the fault injectors, a recorder of every
 * PUT that reaches storage, the memory store.
 */
class ObjectWalFaultTest {

  private static final WalConfig CONFIG =
      WalConfig.builder()
          .batchInterval(Duration.ofMillis(2))
          .maxBytesInBatch(32 << 10)
          .maxUnflushedBytes(512 << 10)
          .maxInflightUploadCount(4)
          .build();

  /** Short attempts and backoffs, so a test crosses the give-up point of the retrying layer. */
  private static final RetryPolicy RETRIES =
      new RetryPolicy(
          3,
          Duration.ofMillis(5),
          Duration.ofMillis(20),
          Duration.ofSeconds(2),
          Duration.ofMillis(150));

  private final MemoryObjectStore memory = new MemoryObjectStore();
  private final RecordingObjectStore recording = new RecordingObjectStore(memory);
  private final LandThenFailObjectStore lostResponses = new LandThenFailObjectStore(recording);
  private final FaultInjectingObjectStore faults = new FaultInjectingObjectStore(lostResponses);

  /** Every PUT the retrying layer makes, answered or held: its attempts, not just what lands. */
  private final RecordingObjectStore attempts = new RecordingObjectStore(faults);

  private final ObjectStore store =
      new RetryingObjectStore(attempts, RETRIES, Scheduler.system(), new Random(3));
  private final ExecutorService owner =
      Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("wal-owner").factory());
  private final Random random = new Random(5);
  private ObjectWal wal;

  @BeforeEach
  void open() {
    wal = newWal(1);
    await(wal.start());
    await(wal.recover()).release();
    await(wal.reset());
  }

  @AfterEach
  void tearDown() {
    faults.resume();
    owner.shutdownNow();
  }

  @Test
  void slowDownsAndTimeoutsDelayAppendsButLoseNothing() {
    List<WriteAheadLogContract.Appended> accepted = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      if (i % 50 == 0) {
        faults.failNext(4, FaultInjectingObjectStore::slowDown);
      }
      if (i % 70 == 0) {
        faults.failNext(3, FaultInjectingObjectStore::timeout);
      }
      appendOrWait(accepted, i);
    }
    accepted.forEach(r -> await(r.durable()));
    assertNoKeyWrittenTwiceWithDifferentBytes();
    assertRecoveredByNextEpoch(accepted);
  }

  @Test
  void aPausedStoreMakesAppendsFailFastAndNeverGetsTwoVersionsOfAnObject() throws Exception {
    faults.pause();
    List<WriteAheadLogContract.Appended> accepted = new ArrayList<>();
    WalAppendResult refused = null;
    for (int i = 0; i < 10_000 && refused == null; i++) {
      ByteBuf body = TestRecords.body(random, 1, i, 1000);
      WalAppendResult result = wal.append(body);
      if (result instanceof WalAppendResult.Accepted a) {
        accepted.add(
            new WriteAheadLogContract.Appended(a.offset(), TestRecords.bytes(body), a.durable()));
      } else {
        refused = result;
      }
      body.release();
    }
    assertThat(refused).isInstanceOf(WalAppendResult.OverCapacity.class);
    // Stay paused past the retrying layer's give-up point, until the WAL itself repeats a PUT:
    // some key has been attempted more often than the retrying layer tries one call.
    Awaitility.await("the WAL repeating a PUT the retrying layer gave up on")
        .atMost(Duration.ofSeconds(30))
        .until(() -> mostAttemptsOfOneKey() > RETRIES.maxAttempts());
    assertThat(accepted).noneMatch(r -> r.durable().isDone());
    faults.resume();
    accepted.forEach(r -> await(r.durable()));

    List<String> keys = recording.putKeys();
    assertThat(new HashSet<>(keys)).as("some PUT was repeated").hasSizeLessThan(keys.size());
    assertNoKeyWrittenTwiceWithDifferentBytes();
    assertRecoveredByNextEpoch(accepted);
  }

  private long mostAttemptsOfOneKey() {
    return attempts.putKeys().stream()
        .collect(Collectors.groupingBy(key -> key, Collectors.counting()))
        .values()
        .stream()
        .mapToLong(Long::longValue)
        .max()
        .orElse(0);
  }

  @Test
  void aPutWhoseResponseWasLostIsRepeatedWithTheSameBytes() {
    lostResponses.failAfterLanding(30);
    List<WriteAheadLogContract.Appended> accepted = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      appendOrWait(accepted, i);
    }
    accepted.forEach(r -> await(r.durable()));
    List<String> keys = recording.putKeys();
    assertThat(new HashSet<>(keys)).hasSizeLessThan(keys.size());
    assertNoKeyWrittenTwiceWithDifferentBytes();
    assertRecoveredByNextEpoch(accepted);
  }

  @Test
  void aPermanentFailureIsStickyAndTyped() {
    List<WriteAheadLogContract.Appended> acked = new ArrayList<>();
    appendOrWait(acked, 0);
    await(acked.getFirst().durable());
    faults.failNext(1, FaultInjectingObjectStore::accessDenied);
    ByteBuf body = TestRecords.body(random, 1, 1, 100);
    WalAppendResult.Accepted doomed = WriteAheadLogContract.accept(wal.append(body));
    body.release();
    assertThatThrownBy(() -> await(doomed.durable()))
        .hasRootCauseMessage("injected: HTTP 403 AccessDenied");
    Throwable error = doomed.durable().handle((v, e) -> e).join();
    assertThat(error).isInstanceOf(WalFailedException.class);

    ByteBuf later = TestRecords.body(random, 1, 2, 100);
    WalAppendResult result = wal.append(later);
    later.release();
    assertThat(result).isInstanceOf(WalAppendResult.Failed.class);
    assertThat(((WalAppendResult.Failed) result).error()).isSameAs(error);
    assertThatThrownBy(() -> await(wal.shutdownGracefully()))
        .hasRootCauseMessage("injected: HTTP 403 AccessDenied");
    assertRecoveredByNextEpoch(acked);
  }

  // ---- helpers ----

  private ObjectWal newWal(long epoch) {
    return new ObjectWal(store, WalNode.of("faults", 2, epoch), CONFIG, Scheduler.system(), owner);
  }

  /** Appends one record; on over-capacity waits for the oldest pending one and tries again. */
  private void appendOrWait(List<WriteAheadLogContract.Appended> accepted, int index) {
    ByteBuf body = TestRecords.body(random, index % 3, index, random.nextInt(3000));
    try {
      while (true) {
        switch (wal.append(body)) {
          case WalAppendResult.Accepted a -> {
            accepted.add(
                new WriteAheadLogContract.Appended(
                    a.offset(), TestRecords.bytes(body), a.durable()));
            return;
          }
          case WalAppendResult.OverCapacity o ->
              accepted.stream()
                  .map(WriteAheadLogContract.Appended::durable)
                  .filter(d -> !d.isDone())
                  .findFirst()
                  .ifPresent(WriteAheadLogContract::await);
          case WalAppendResult other -> throw new AssertionError("unexpected " + other);
        }
      }
    } finally {
      body.release();
    }
  }

  private void assertNoKeyWrittenTwiceWithDifferentBytes() {
    assertThat(recording.keysWithConflictingContents()).isEmpty();
  }

  private void assertRecoveredByNextEpoch(List<WriteAheadLogContract.Appended> acked) {
    wal.close();
    ObjectWal next = newWal(10);
    await(next.start());
    Recovery recovery = await(next.recover());
    WriteAheadLogContract.assertRecovered(recovery, acked);
    recovery.release();
    await(next.reset());
    await(next.shutdownGracefully());
  }
}
