package io.picomq.s3stream.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retry decorator around a real (memory) store whose calls a {@link FaultInjectingObjectStore}
 * fails or holds on cue, with time driven by a {@link ManualScheduler}.
 */
class RetryingObjectStoreTest {

  private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);
  private static final RetryPolicy POLICY =
      new RetryPolicy(
          5,
          Duration.ofMillis(100),
          Duration.ofMillis(1000),
          Duration.ofMinutes(5),
          ATTEMPT_TIMEOUT);

  private final long seed = new Random().nextLong();
  private final List<ByteBuf> handedOut = new CopyOnWriteArrayList<>();
  private final ManualScheduler scheduler = new ManualScheduler();
  private MemoryObjectStore real;
  private FaultInjectingObjectStore faults;

  @BeforeEach
  void setUp() throws Exception {
    real = new MemoryObjectStore();
    ByteBuf data = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
    real.put("k", data).get();
    data.release();
    faults = new FaultInjectingObjectStore(new RecordingGets(real, handedOut));
  }

  private RetryingObjectStore retrying(RetryPolicy policy) {
    return new RetryingObjectStore(faults, policy, scheduler, new Random(seed));
  }

  @Test
  void transientFailuresAreRetriedWithGrowingJitteredBackoff() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(3, FaultInjectingObjectStore::slowDown);
    CompletableFuture<ByteBuf> got = store.get("k", 1, 4);
    scheduler.runUntilIdle(100);

    assertThat(bytes(got)).as("seed %d", seed).containsExactly(2, 3, 4);
    assertThat(faults.calls()).isEqualTo(4);
    List<Long> backoffs = backoffsMillis();
    assertThat(backoffs).hasSize(3);
    long[] ceilings = {100, 200, 400};
    for (int i = 0; i < 3; i++) {
      assertThat(backoffs.get(i))
          .as("backoff %d, seed %d", i + 1, seed)
          .isBetween(ceilings[i] / 2, ceilings[i]);
    }
  }

  @Test
  void timeoutsReportedByTheStoreAreRetried() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(2, FaultInjectingObjectStore::timeout);
    CompletableFuture<Void> put = store.put("new", Unpooled.wrappedBuffer(new byte[] {9}));
    scheduler.runUntilIdle(100);
    put.get(0, TimeUnit.SECONDS);
    assertThat(faults.calls()).isEqualTo(3);
    assertThat(bytes(real.get("new", 0, -1))).containsExactly(9);
  }

  @Test
  void permanentFailuresAreNotRetried() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(1, FaultInjectingObjectStore::accessDenied);
    CompletableFuture<List<ObjectInfo>> listed = store.list("");
    scheduler.runUntilIdle(100);
    ObjectStoreException failure = storeFailure(listed);
    assertThat(failure.kind()).isEqualTo(ObjectStoreException.Kind.ACCESS_DENIED);
    assertThat(faults.calls()).isEqualTo(1);
  }

  @Test
  void notFoundReachesTheCallerAsItselfAfterOneAttempt() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    CompletableFuture<ByteBuf> got = store.get("missing", 0, -1);
    scheduler.runUntilIdle(100);
    assertThat(storeFailure(got)).isInstanceOf(ObjectNotFoundException.class);
    assertThat(faults.calls()).isEqualTo(1);
  }

  @Test
  void failuresThatAreNotStoreExceptionsAreNotRetried() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(1, () -> new IllegalStateException("a bug"));
    CompletableFuture<Void> deleted = store.delete(List.of("k"));
    scheduler.runUntilIdle(100);
    assertThat(failure(deleted)).isInstanceOf(IllegalStateException.class);
    assertThat(faults.calls()).isEqualTo(1);
  }

  @Test
  void attemptsAreBounded() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(100, FaultInjectingObjectStore::slowDown);
    CompletableFuture<ByteBuf> got = store.get("k", 0, -1);
    scheduler.runUntilIdle(100);
    ObjectStoreException failure = storeFailure(got);
    assertThat(failure.kind()).isEqualTo(ObjectStoreException.Kind.TRANSIENT);
    assertThat(failure).hasMessageContaining("after 5 attempts").hasMessageContaining("SlowDown");
    assertThat(failure.getCause()).isInstanceOf(ObjectStoreException.class);
    assertThat(faults.calls()).isEqualTo(5);
  }

  @Test
  void totalTimeIsBounded() throws Exception {
    RetryPolicy slow =
        new RetryPolicy(
            1000,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            ATTEMPT_TIMEOUT);
    RetryingObjectStore store = retrying(slow);
    faults.failNext(1000, FaultInjectingObjectStore::slowDown);
    CompletableFuture<ByteBuf> got = store.get("k", 0, -1);
    scheduler.runUntilIdle(2000);
    assertThat(storeFailure(got).kind()).isEqualTo(ObjectStoreException.Kind.TRANSIENT);
    // Backoffs of 0.5-1 s within 5 s: between 5 and 11 attempts, and none after the deadline.
    assertThat(faults.calls()).isBetween(5, 11);
    assertThat(scheduler.nanoTime()).isLessThanOrEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @Test
  void aHungAttemptTimesOutAndItsLateAnswerIsReleased() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.pause();
    CompletableFuture<ByteBuf> got = store.get("k", 0, 2);
    scheduler.advance(ATTEMPT_TIMEOUT);
    faults.resume(); // the first attempt answers only now, after it was given up on
    scheduler.runUntilIdle(100);

    assertThat(bytes(got)).containsExactly(1, 2);
    assertThat(faults.calls()).isEqualTo(2);
    assertThat(handedOut).hasSize(2);
    assertThat(handedOut.get(0).refCnt()).as("the late answer was released").isZero();
  }

  @Test
  void aStoreThatStaysPausedFailsAfterBoundedAttempts() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.pause();
    CompletableFuture<ByteBuf> got = store.get("k", 0, -1);
    scheduler.runUntilIdle(100);
    ObjectStoreException failure = storeFailure(got);
    assertThat(failure.kind()).isEqualTo(ObjectStoreException.Kind.TRANSIENT);
    assertThat(failure).hasMessageContaining("no answer within 10000 ms");
    assertThat(faults.calls()).isEqualTo(5);

    faults.resume();
    assertThat(handedOut).hasSize(5).allSatisfy(b -> assertThat(b.refCnt()).isZero());
  }

  /**
   * Attempts given up on still reach the store later (as a hung request may still be sending),
   * after the caller released its bytes because the put had failed: each attempt keeps its own
   * reference until its own answer. (Found by ObjectWalFaultTest, where the WAL released a batch
   * while the timed-out attempts of its PUT were still held.)
   */
  @Test
  void anAttemptGivenUpOnKeepsItsBytesUntilItAnswers() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.pause();
    ByteBuf data = Unpooled.wrappedBuffer(new byte[] {7, 8, 9});
    CompletableFuture<Void> put = store.put("p", data);
    scheduler.runUntilIdle(100);
    assertThat(storeFailure(put).kind()).isEqualTo(ObjectStoreException.Kind.TRANSIENT);
    assertThat(faults.calls()).isEqualTo(5);
    data.release(); // the caller's part: its put completed

    faults.resume(); // the five abandoned attempts reach the store only now
    assertThat(bytes(real.get("p", 0, -1))).containsExactly(7, 8, 9);
    assertThat(data.refCnt()).as("every attempt released its reference").isZero();
  }

  @Test
  void cancellingStopsFurtherAttempts() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(100, FaultInjectingObjectStore::slowDown);
    CompletableFuture<ByteBuf> got = store.get("k", 0, -1);
    got.cancel(false);
    scheduler.runUntilIdle(100);
    assertThat(faults.calls()).isEqualTo(1);
  }

  @Test
  void closingStopsFurtherAttempts() throws Exception {
    RetryingObjectStore store = retrying(POLICY);
    faults.failNext(100, FaultInjectingObjectStore::slowDown);
    CompletableFuture<List<ObjectInfo>> listed = store.list("");
    store.close();
    scheduler.runUntilIdle(100);
    assertThat(storeFailure(listed).kind()).isEqualTo(ObjectStoreException.Kind.CLOSED);
    assertThat(faults.calls()).isEqualTo(1);
  }

  @Test
  void retriesRunOnTheSystemScheduler() throws Exception {
    RetryPolicy quick =
        new RetryPolicy(
            5, Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(10), ATTEMPT_TIMEOUT);
    RetryingObjectStore store =
        new RetryingObjectStore(faults, quick, Scheduler.system(), new Random(seed));
    faults.failNext(3, FaultInjectingObjectStore::slowDown);
    assertThat(bytes(store.get("k", 4, -1))).containsExactly(5);
    assertThat(faults.calls()).isEqualTo(4);
  }

  @Test
  void noRetryPolicyTriesOnce() throws Exception {
    RetryingObjectStore store = retrying(RetryPolicy.none());
    faults.failNext(1, FaultInjectingObjectStore::slowDown);
    CompletableFuture<ByteBuf> got = store.get("k", 0, -1);
    scheduler.runUntilIdle(10);
    assertThat(storeFailure(got).isRetryable()).isTrue();
    assertThat(faults.calls()).isEqualTo(1);
  }

  /** The backoffs among the scheduled delays (attempt timeouts are the others). */
  private List<Long> backoffsMillis() {
    return scheduler.requestedDelaysNanos().stream()
        .filter(d -> d != ATTEMPT_TIMEOUT.toNanos())
        .map(d -> TimeUnit.NANOSECONDS.toMillis(d))
        .toList();
  }

  private static byte[] bytes(CompletableFuture<ByteBuf> future) throws Exception {
    ByteBuf buf = future.get(5, TimeUnit.SECONDS);
    try {
      return ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  private static Throwable failure(CompletableFuture<?> future) throws Exception {
    assertThat(future).isDone();
    try {
      future.get(0, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  private static ObjectStoreException storeFailure(CompletableFuture<?> future) throws Exception {
    Throwable failure = failure(future);
    assertThat(failure).isInstanceOf(ObjectStoreException.class);
    return (ObjectStoreException) failure;
  }

  /** Passes calls through and remembers every buffer a get handed out. */
  private record RecordingGets(ObjectStore delegate, List<ByteBuf> handedOut)
      implements ObjectStore {
    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      return delegate.put(key, data);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long start, long end) {
      return delegate
          .get(key, start, end)
          .thenApply(
              b -> {
                handedOut.add(b);
                return b;
              });
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return delegate.list(prefix);
    }

    @Override
    public CompletableFuture<Void> delete(List<String> keys) {
      return delegate.delete(keys);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
