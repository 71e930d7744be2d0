package io.picomq.s3stream.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.HeldExecutor;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.wal.MemoryWal;
import io.picomq.s3stream.wal.MemoryWalVolume;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Admission control: a full log cache or an over-capacity WAL makes appends wait (bounded), then
 * either proceed in order or end {@link AppendOutcome.OverCapacity}; the cache never holds more
 * than its limit.
 */
class AdmissionControlTest {

  private static final long CACHE = 1 << 20;
  private static final int RECORD = 10_000;

  private EngineStorage storage;
  private FaultInjectingObjectStore data;
  private InMemoryMetadata metadata;
  private final List<TestEngine> engines = new ArrayList<>();

  @BeforeEach
  void open() {
    storage = EngineStorage.memoryWal();
    data = new FaultInjectingObjectStore(storage.dataStore);
    metadata = new InMemoryMetadata();
  }

  @AfterEach
  void close() {
    data.resume();
    engines.forEach(TestEngine::shutdown);
    storage.close();
  }

  private TestEngine start(long waitMillis) throws Exception {
    TestEngine engine =
        storage.engine(
            metadata.register(1, engines.size() + 1),
            data,
            data,
            c -> c.walCacheSizeBytes(CACHE).appendWaitMillis(waitMillis).maxWaitingAppends(1000));
    engines.add(engine);
    engine.engine.start().get(10, TimeUnit.SECONDS);
    return engine;
  }

  private static List<CompletableFuture<AppendOutcome>> appendMany(Stream stream, int count) {
    List<CompletableFuture<AppendOutcome>> outcomes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ByteBuf payload = Unpooled.wrappedBuffer(new byte[RECORD]);
      CompletableFuture<AppendOutcome> f = stream.append(1, payload);
      f.whenComplete((o, e) -> payload.release());
      outcomes.add(f);
    }
    return outcomes;
  }

  @Test
  void aFullCacheMakesAppendsWaitThenEndOverCapacity() throws Exception {
    TestEngine engine = start(300);
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    data.pause(); // uploads cannot finish: nothing in the cache can be evicted
    long started = System.nanoTime();
    List<CompletableFuture<AppendOutcome>> outcomes = appendMany(stream, 150);
    CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    long appended =
        outcomes.stream().filter(f -> f.join() instanceof AppendOutcome.Appended).count();
    long overCapacity =
        outcomes.stream().filter(f -> f.join() instanceof AppendOutcome.OverCapacity).count();
    assertThat(appended + overCapacity).isEqualTo(150);
    assertThat(appended).isPositive().isLessThanOrEqualTo(CACHE / RECORD);
    assertThat(overCapacity).isPositive();
    assertThat(elapsedMillis).as("the refused appends waited first").isGreaterThanOrEqualTo(250);
    assertThat(engine.engine.logCache().sizeBytes()).isLessThanOrEqualTo(CACHE);
    // Refused appends took no offset: the next one continues right after the appended ones.
    for (int i = 0; i < outcomes.size(); i++) {
      if (outcomes.get(i).join() instanceof AppendOutcome.Appended a) {
        assertThat(a.baseOffset()).isEqualTo(i);
      }
    }
    assertThat(
            engine
                .registry
                .get("s3stream.backpressure")
                .tag("reason", "log_cache_full")
                .counter()
                .count())
        .isPositive();

    data.resume();
    stream.settle().get(10, TimeUnit.SECONDS);
    ByteBuf later = Unpooled.wrappedBuffer(new byte[RECORD]);
    AppendOutcome next = stream.append(1, later).get(10, TimeUnit.SECONDS);
    later.release();
    assertThat(next).isEqualTo(new AppendOutcome.Appended(appended, appended + 1));
  }

  @Test
  void aRefusalRefusesEveryLaterAppendOfTheStreamUntilSettled() throws Exception {
    TestEngine engine = start(200);
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    Stream other = engine.engine.openStream(metadata.createStream()).get();
    data.pause();
    List<CompletableFuture<AppendOutcome>> first = appendMany(stream, 150);
    CompletableFuture.allOf(first.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    long accepted = first.stream().filter(f -> f.join() instanceof AppendOutcome.Appended).count();
    assertThat(first.getLast().join()).isInstanceOf(AppendOutcome.OverCapacity.class);

    // Room comes back, but the stream still refuses: an append made now would otherwise take the
    // offset its caller gave the first refused one.
    data.resume();
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stream.confirmOffset() == accepted);
    assertThat(appendMany(stream, 1).getFirst().get(10, TimeUnit.SECONDS))
        .isInstanceOf(AppendOutcome.OverCapacity.class);
    assertThat(appendMany(other, 1).getFirst().get(10, TimeUnit.SECONDS))
        .as("other streams are not held back")
        .isEqualTo(new AppendOutcome.Appended(0, 1));

    stream.settle().get(10, TimeUnit.SECONDS);
    assertThat(stream.nextOffset()).isEqualTo(stream.confirmOffset()).isEqualTo(accepted);
    assertThat(appendMany(stream, 1).getFirst().get(10, TimeUnit.SECONDS))
        .isEqualTo(new AppendOutcome.Appended(accepted, accepted + 1));
  }

  @Test
  void settleRefusesTheWaitingAppendsAndLeavesOffsetsInStep() throws Exception {
    TestEngine engine = start(30_000);
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    data.pause();
    List<CompletableFuture<AppendOutcome>> outcomes = appendMany(stream, 150);
    assertThat(outcomes.getLast()).isNotDone(); // waiting for room

    CompletableFuture<Void> settled = stream.settle();
    assertThat(outcomes.getLast().get(10, TimeUnit.SECONDS))
        .as("a waiting append is refused at once")
        .isInstanceOf(AppendOutcome.OverCapacity.class);
    settled.get(10, TimeUnit.SECONDS);
    data.resume();
    long accepted =
        outcomes.stream().filter(f -> f.getNow(null) instanceof AppendOutcome.Appended).count();
    assertThat(outcomes).allMatch(CompletableFuture::isDone);
    assertThat(stream.confirmOffset()).isEqualTo(stream.nextOffset()).isEqualTo(accepted);
  }

  @Test
  void waitingAppendsProceedInOrderOnceRoomReturnsAndTheLimitHolds() throws Exception {
    TestEngine engine = start(30_000);
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    data.pause();
    AtomicLong largest = new AtomicLong();
    Thread sampler =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (!Thread.currentThread().isInterrupted()) {
                    largest.accumulateAndGet(engine.engine.logCache().sizeBytes(), Math::max);
                    Thread.onSpinWait();
                  }
                });
    List<CompletableFuture<AppendOutcome>> outcomes = appendMany(stream, 400);
    // Some wait: the cache holds at most ~100 records while uploads are stuck.
    assertThat(outcomes.get(399)).isNotDone();
    data.resume();
    CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    sampler.interrupt();
    sampler.join();
    for (int i = 0; i < outcomes.size(); i++) {
      assertThat(outcomes.get(i).join()).isEqualTo(new AppendOutcome.Appended(i, i + 1));
    }
    assertThat(largest.get()).isLessThanOrEqualTo(CACHE);
    assertThat(metadata.stream(stream.streamId()).endOffset()).isPositive();
  }

  @Test
  void aWalOverCapacityForcesWaitingThenOverCapacity() throws Exception {
    MemoryWalVolume volume = new MemoryWalVolume();
    HeldExecutor persister = new HeldExecutor(Runnable::run);
    TestEngine engine =
        TestEngine.build(
            storage.config(1, 1).newBuilder().appendWaitMillis(200).build(),
            metadata.register(1, 1),
            metadata.register(1, 1),
            storage.dataStore,
            (executor, scheduler) -> new MemoryWal(volume, 1, 64 << 10, persister));
    engines.add(engine);
    engine.engine.start().get(10, TimeUnit.SECONDS);
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    List<CompletableFuture<AppendOutcome>> outcomes = appendMany(stream, 10);
    try {
      CompletableFuture.allOf(outcomes.get(7), outcomes.get(8), outcomes.get(9))
          .get(10, TimeUnit.SECONDS);
    } finally {
      persister.release();
    }
    assertThat(outcomes.get(9).join())
        .isInstanceOfSatisfying(
            AppendOutcome.OverCapacity.class, o -> assertThat(o.limitBytes()).isEqualTo(64 << 10));
    assertThat(
            engine
                .registry
                .get("s3stream.backpressure")
                .tag("reason", "wal_over_capacity")
                .counter()
                .count())
        .isPositive();
    for (int i = 0; i < 6; i++) {
      assertThat(outcomes.get(i).get(10, TimeUnit.SECONDS))
          .isEqualTo(new AppendOutcome.Appended(i, i + 1));
    }
  }

  @Test
  void settleCompletesOnceEveryAcceptedAppendIsDurable() throws Exception {
    HeldExecutor persister = new HeldExecutor(Runnable::run);
    TestEngine engine =
        TestEngine.build(
            storage.config(1, 1),
            metadata.register(1, 1),
            metadata.register(1, 1),
            storage.dataStore,
            (executor, scheduler) -> new MemoryWal(new MemoryWalVolume(), 1, 64 << 20, persister));
    engines.add(engine);
    engine.engine.start().get(10, TimeUnit.SECONDS);
    Stream stream = engine.engine.openStream(metadata.createStream()).get();
    List<CompletableFuture<AppendOutcome>> outcomes = appendMany(stream, 3);

    CompletableFuture<Void> settled = stream.settle();
    assertThat(settled).as("accepted appends are not durable yet").isNotDone();
    persister.release();
    settled.get(10, TimeUnit.SECONDS);
    assertThat(outcomes.getLast()).isCompletedWithValue(new AppendOutcome.Appended(2, 3));
    assertThat(stream.confirmOffset()).isEqualTo(stream.nextOffset()).isEqualTo(3);
  }
}
