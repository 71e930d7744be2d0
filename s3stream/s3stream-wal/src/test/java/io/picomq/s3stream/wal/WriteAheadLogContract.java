package io.picomq.s3stream.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link WriteAheadLog} contract, run against every implementation and backend by a small
 * subclass that says how to create storage, open an instance on it, stall it and crash it.
 *
 * <p>The randomized crash test takes its seed from {@code -Dpicomq.seed} or draws one, and prints
 * it; the same seed replays the same appends, trims and crash points.
 *
 * <p>Public, and shipped in this module's test-jar, so WAL implementations in other modules (the
 * Postgres WAL) run the same suite.
 */
public abstract class WriteAheadLogContract {

  /** Small batches and limits, so that a test crosses many objects quickly. */
  static final WalConfig CONFIG =
      WalConfig.builder()
          .batchInterval(Duration.ofMillis(1))
          .maxBytesInBatch(64 << 10)
          .maxUnflushedBytes(8 << 20)
          .maxInflightUploadCount(8)
          .build();

  static final long TIMEOUT_SECONDS = 30;

  /** Fresh, empty storage for one test. */
  protected abstract void createStorage() throws Exception;

  protected abstract void destroyStorage() throws Exception;

  /** A new, not yet started instance for the node, on the test's storage. */
  protected abstract WriteAheadLog newWal(long epoch, WalConfig config);

  /** Storage stops making anything durable until {@link #resumeStorage()}. */
  protected abstract void stallStorage();

  protected abstract void resumeStorage();

  /**
   * Stops {@code wal} as a crash of its process would: what it had sent may or may not be stored.
   * Returns once it can acknowledge nothing more.
   */
  protected abstract void crash(WriteAheadLog wal, Random random);

  /** Rounds of the randomized crash test; slow backends run fewer. */
  protected abstract int crashRounds();

  /** The configuration instances get unless a test needs another. */
  protected WalConfig config() {
    return CONFIG;
  }

  @BeforeEach
  void setUpStorage() throws Exception {
    createStorage();
  }

  @AfterEach
  void tearDownStorage() throws Exception {
    destroyStorage();
  }

  @Test
  void durableFuturesCompleteInOffsetOrderUnderConcurrency() throws Exception {
    WriteAheadLog wal = open(1, config());
    Map<Long, CompletableFuture<Void>> byOffset = new ConcurrentSkipListMap<>();
    Map<Long, Long> sizes = new ConcurrentSkipListMap<>();
    List<String> violations = new CopyOnWriteArrayList<>();
    AtomicBoolean appending = new AtomicBoolean(true);
    Thread sampler =
        Thread.ofPlatform().start(() -> sampleOrdering(wal, byOffset, violations, appending));
    List<Thread> appenders = new ArrayList<>();
    List<List<Long>> offsetsPerThread = new CopyOnWriteArrayList<>();
    for (int t = 0; t < 4; t++) {
      int seed = t;
      appenders.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    Random random = new Random(seed);
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < 300; i++) {
                      ByteBuf body = TestRecords.body(random, seed, i, random.nextInt(2000));
                      WalAppendResult.Accepted accepted = accept(wal.append(body));
                      sizes.put(accepted.offset(), 24L + body.readableBytes());
                      body.release();
                      long offset = accepted.offset();
                      mine.add(offset);
                      byOffset.put(offset, accepted.durable());
                      accepted
                          .durable()
                          .thenRun(() -> checkDurable(wal, offset, byOffset, violations));
                    }
                    offsetsPerThread.add(mine);
                  }));
    }
    for (Thread t : appenders) {
      t.join();
    }
    await(CompletableFuture.allOf(byOffset.values().toArray(CompletableFuture[]::new)));
    appending.set(false);
    sampler.join();

    assertThat(violations).isEmpty();
    assertThat(byOffset).hasSize(1200);
    for (List<Long> mine : offsetsPerThread) {
      assertThat(mine).as("one thread's offsets follow its call order").isSorted();
    }
    long previousEnd = -1;
    for (Map.Entry<Long, Long> record : sizes.entrySet()) {
      assertThat(record.getKey()).as("records do not overlap").isGreaterThanOrEqualTo(previousEnd);
      previousEnd = record.getKey() + record.getValue();
    }
    assertThat(wal.confirmOffset()).isGreaterThanOrEqualTo(previousEnd);
    await(wal.shutdownGracefully());
  }

  @Test
  void overCapacityIsAFastTypedRefusal() {
    WalConfig small = config().newBuilder().maxUnflushedBytes(256 << 10).build();
    WriteAheadLog wal = open(1, small);
    stallStorage();
    List<CompletableFuture<Void>> accepted = new ArrayList<>();
    WalAppendResult.OverCapacity refused = null;
    Random random = new Random(7);
    for (int i = 0; i < 10_000 && refused == null; i++) {
      ByteBuf body = TestRecords.body(random, 1, i, 1024);
      switch (wal.append(body)) {
        case WalAppendResult.Accepted a -> accepted.add(a.durable());
        case WalAppendResult.OverCapacity o -> refused = o;
        case WalAppendResult other -> throw new AssertionError("unexpected " + other);
      }
      body.release();
    }
    long framed = 24 + 33 + 1024;
    assertThat(refused).as("refused once 256 KiB wait to be stored").isNotNull();
    assertThat(refused.limitBytes()).isEqualTo(256 << 10);
    assertThat(refused.unflushedBytes()).isLessThanOrEqualTo(256 << 10);
    assertThat(refused.unflushedBytes() + framed).isGreaterThan(256 << 10);
    assertThat((long) accepted.size() * framed).isLessThanOrEqualTo(256 << 10);
    assertThat(accepted).noneMatch(CompletableFuture::isDone);
    ByteBuf again = TestRecords.body(random, 1, 0, 1024);
    assertThat(wal.append(again)).isInstanceOf(WalAppendResult.OverCapacity.class);
    again.release();

    resumeStorage();
    await(CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)));
    ByteBuf later = TestRecords.body(random, 1, 0, 1024);
    await(accept(wal.append(later)).durable());
    later.release();
    await(wal.shutdownGracefully());
  }

  @Test
  void recoveryReturnsTheAcknowledgedRecordsAboveTheTrim() {
    WriteAheadLog first = open(1, config());
    Random random = new Random(11);
    List<Appended> records = appendAndAwait(first, random, 60);
    long trimOffset = records.get(19).offset();
    await(first.trim(trimOffset));
    crash(first, random);

    WriteAheadLog second = newWal(2, config());
    await(second.start());
    Recovery recovery = await(second.recover());
    assertRecovered(recovery, records.subList(20, 60));
    assertThat(recovery.trimOffset()).isEqualTo(trimOffset);
    assertThat(recovery.stoppedBy()).isEmpty();
    recovery.release();
    await(second.reset());
    await(second.shutdownGracefully());
  }

  @Test
  void resetConsumesWhatWasRecoveredAndOffsetsKeepGrowing() {
    Random random = new Random(13);
    WriteAheadLog first = open(1, config());
    List<Appended> old = appendAndAwait(first, random, 30);
    crash(first, random);

    WriteAheadLog second = newWal(2, config());
    await(second.start());
    Recovery recovered = await(second.recover());
    assertRecovered(recovered, old);
    recovered.release();
    await(second.reset());
    List<Appended> fresh = appendAndAwait(second, random, 5);
    assertThat(fresh.getFirst().offset()).isGreaterThan(old.getLast().offset());
    crash(second, random);

    WriteAheadLog third = newWal(3, config());
    await(third.start());
    Recovery recovery = await(third.recover());
    assertRecovered(recovery, fresh);
    recovery.release();
    await(third.reset());
    await(third.shutdownGracefully());
  }

  @Test
  void gracefulShutdownStoresEverythingAppended() {
    Random random = new Random(17);
    WriteAheadLog wal = open(1, config());
    List<Appended> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      records.add(append(wal, random, i, random.nextInt(3000)));
    }
    await(wal.shutdownGracefully());
    assertThat(records)
        .allMatch(r -> r.durable().isDone() && !r.durable().isCompletedExceptionally());
    ByteBuf body = TestRecords.body(random, 1, 0, 10);
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Closed.class);
    body.release();

    WriteAheadLog next = newWal(2, config());
    await(next.start());
    Recovery recovery = await(next.recover());
    assertRecovered(recovery, records);
    recovery.release();
  }

  @Test
  void appendsAreRefusedUntilReset() {
    WriteAheadLog wal = newWal(1, config());
    ByteBuf body = TestRecords.body(new Random(1), 1, 0, 10);
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Closed.class);
    await(wal.start());
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Closed.class);
    await(wal.recover()).release();
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Closed.class);
    await(wal.reset());
    await(accept(wal.append(body)).durable());
    body.release();
    await(wal.shutdownGracefully());
  }

  @Test
  void trimMustNotPassTheConfirmOffset() {
    WriteAheadLog wal = open(1, config());
    List<Appended> records = appendAndAwait(wal, new Random(19), 3);
    long confirm = wal.confirmOffset();
    assertThat(confirm).isGreaterThan(records.getLast().offset());
    assertThatThrownBy(() -> wal.trim(confirm))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("confirm offset");
    await(wal.trim(records.getLast().offset()));
    await(wal.shutdownGracefully());
  }

  @Test
  void startRefusesAnEpochUsedBeforeAndAnOlderOne() {
    WriteAheadLog current = open(5, config());
    WriteAheadLog same = newWal(5, config());
    assertThatThrownBy(() -> await(same.start()))
        .hasRootCauseInstanceOf(IllegalStateException.class);
    WriteAheadLog older = newWal(3, config());
    assertThatThrownBy(() -> await(older.start())).hasRootCauseInstanceOf(WalFencedException.class);
    ByteBuf body = TestRecords.body(new Random(2), 1, 0, 10);
    assertThat(older.append(body)).isNotInstanceOf(WalAppendResult.Accepted.class);
    body.release();
    await(current.shutdownGracefully());
  }

  @Test
  void fenceFailsPendingAppendsAndRefusesLaterOnes() {
    WriteAheadLog wal = open(1, config());
    stallStorage();
    Random random = new Random(23);
    List<Appended> pending = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pending.add(append(wal, random, i, 100));
    }
    wal.fence("a test says so");
    resumeStorage();
    for (Appended record : pending) {
      assertThatThrownBy(() -> await(record.durable()))
          .hasRootCauseInstanceOf(WalFencedException.class);
    }
    ByteBuf body = TestRecords.body(random, 1, 0, 10);
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Fenced.class);
    body.release();
  }

  @Test
  void aWriterFencedBeforeAnyResetLosesOnlyWhatItWroteAfterTheNewerStarted() {
    Random random = new Random(29);
    WriteAheadLog old = open(1, config());
    List<Appended> before = appendAndAwait(old, random, 10);
    WriteAheadLog newer = newWal(2, config());
    await(newer.start());
    List<Appended> after = appendAfterFencing(old, random, 10);
    crash(newer, random);
    crash(old, random);

    WriteAheadLog third = newWal(3, config());
    await(third.start());
    Recovery recovery = await(third.recover());
    assertRecovered(recovery, before);
    assertThat(offsets(recovery)).noneMatch(offsetsOf(after)::contains);
    recovery.release();
  }

  @Test
  void nothingAFencedWriterStoresAfterTheNewerResetIsRecovered() {
    Random random = new Random(31);
    WriteAheadLog old = open(1, config());
    appendAndAwait(old, random, 10);
    WriteAheadLog newer = newWal(2, config());
    await(newer.start());
    await(newer.recover()).release();
    await(newer.reset());
    List<Appended> zombie = appendAfterFencing(old, random, 10);
    List<Appended> fresh = appendAndAwait(newer, random, 5);
    crash(newer, random);
    crash(old, random);

    WriteAheadLog third = newWal(3, config());
    await(third.start());
    Recovery recovery = await(third.recover());
    assertRecovered(recovery, fresh);
    // The zombie's accepted appends may share offsets with the newer writer's (both continue from
    // the same recovered end), so what must not come back is their content.
    List<byte[]> recovered =
        recovery.records().stream().map(r -> TestRecords.bytes(r.body())).toList();
    for (Appended stale : zombie) {
      assertThat(recovered).noneMatch(bytes -> Arrays.equals(bytes, stale.bytes()));
    }
    recovery.release();
  }

  @Test
  void buffersAreReleasedOnceDurable() {
    WriteAheadLog wal = open(1, config());
    Random random = new Random(37);
    List<ByteBuf> bodies = new ArrayList<>();
    List<CompletableFuture<Void>> durable = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      ByteBuf body = TestRecords.body(random, 1, i, random.nextInt(5000));
      durable.add(accept(wal.append(body)).durable());
      body.release();
      bodies.add(body);
    }
    await(CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new)));
    awaitCondition(() -> bodies.stream().allMatch(b -> b.refCnt() == 0), "bodies released");
    await(wal.shutdownGracefully());
  }

  @Test
  void randomCrashesLoseNothingAcknowledged() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    System.out.println(
        getClass().getSimpleName()
            + ": WAL crash test seed "
            + seed
            + " (rerun with -Dpicomq.seed="
            + seed
            + ")");
    Random random = new Random(seed);
    CrashModel model = new CrashModel();
    for (int round = 0; round < crashRounds(); round++) {
      String where = "seed " + seed + ", round " + round;
      WriteAheadLog wal = newWal(round + 1, config());
      await(wal.start());
      int crashPoint = random.nextInt(16);
      if (crashPoint == 0) {
        crash(wal, random);
        continue;
      }
      Recovery recovery = await(wal.recover());
      model.check(recovery, where);
      recovery.release();
      if (crashPoint == 1) {
        crash(wal, random);
        continue;
      }
      CompletableFuture<Void> reset = wal.reset();
      if (crashPoint == 2) {
        crash(wal, random);
        model.resetInterrupted();
        continue;
      }
      await(reset);
      model.resetDone();
      runUntilCrash(wal, random, model);
    }
    System.out.println(getClass().getSimpleName() + ": " + model.summary());
  }

  // ---- helpers ----

  /** A record as the test appended it. */
  record Appended(long offset, byte[] bytes, CompletableFuture<Void> durable) {}

  WriteAheadLog open(long epoch, WalConfig config) {
    WriteAheadLog wal = newWal(epoch, config);
    await(wal.start());
    await(wal.recover()).release();
    await(wal.reset());
    return wal;
  }

  static Appended append(WriteAheadLog wal, Random random, int index, int payloadBytes) {
    ByteBuf body = TestRecords.body(random, index % 5, index, payloadBytes);
    byte[] bytes = TestRecords.bytes(body);
    WalAppendResult.Accepted accepted = accept(wal.append(body));
    body.release();
    return new Appended(accepted.offset(), bytes, accepted.durable());
  }

  static List<Appended> appendAndAwait(WriteAheadLog wal, Random random, int count) {
    List<Appended> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(append(wal, random, i, random.nextInt(4000)));
    }
    records.forEach(r -> await(r.durable()));
    return records;
  }

  /** Appends to a fenced writer; keeps what it accepted, whether or not it acknowledges it. */
  static List<Appended> appendAfterFencing(WriteAheadLog wal, Random random, int count) {
    List<Appended> accepted = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ByteBuf body = TestRecords.body(random, 9, i, random.nextInt(2000));
      if (wal.append(body) instanceof WalAppendResult.Accepted a) {
        accepted.add(new Appended(a.offset(), TestRecords.bytes(body), a.durable()));
      }
      body.release();
    }
    for (Appended record : accepted) {
      record.durable().handle((v, e) -> null).orTimeout(TIMEOUT_SECONDS, TimeUnit.SECONDS).join();
    }
    return accepted;
  }

  static WalAppendResult.Accepted accept(WalAppendResult result) {
    assertThat(result).isInstanceOf(WalAppendResult.Accepted.class);
    return (WalAppendResult.Accepted) result;
  }

  static void assertRecovered(Recovery recovery, List<Appended> expected) {
    assertThat(offsets(recovery)).containsExactlyElementsOf(offsetsOf(expected));
    for (int i = 0; i < expected.size(); i++) {
      assertThat(TestRecords.bytes(recovery.records().get(i).body()))
          .as("bytes at offset %d", expected.get(i).offset())
          .isEqualTo(expected.get(i).bytes());
    }
  }

  static List<Long> offsets(Recovery recovery) {
    return recovery.records().stream().map(RecoveredRecord::offset).toList();
  }

  static List<Long> offsetsOf(List<Appended> records) {
    return records.stream().map(Appended::offset).toList();
  }

  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  static void awaitCondition(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  /** In a durable callback: everything below is durable, and confirm has passed the record. */
  private static void checkDurable(
      WriteAheadLog wal,
      long offset,
      Map<Long, CompletableFuture<Void>> byOffset,
      List<String> violations) {
    if (wal.confirmOffset() <= offset) {
      violations.add("offset " + offset + " durable but confirm is " + wal.confirmOffset());
    }
    for (Map.Entry<Long, CompletableFuture<Void>> lower :
        ((ConcurrentSkipListMap<Long, CompletableFuture<Void>>) byOffset)
            .headMap(offset)
            .entrySet()) {
      if (!lower.getValue().isDone()) {
        violations.add("offset " + offset + " durable before " + lower.getKey());
        return;
      }
    }
  }

  /**
   * While appends run: confirm never decreases, and below the highest durable record nothing is
   * pending (read in that order, which is sound because completion only moves forward).
   */
  private static void sampleOrdering(
      WriteAheadLog wal,
      Map<Long, CompletableFuture<Void>> byOffset,
      List<String> violations,
      AtomicBoolean appending) {
    long lastConfirm = -1;
    ConcurrentSkipListMap<Long, CompletableFuture<Void>> map =
        (ConcurrentSkipListMap<Long, CompletableFuture<Void>>) byOffset;
    while (appending.get()) {
      long confirm = wal.confirmOffset();
      if (confirm < lastConfirm) {
        violations.add("confirm went back from " + lastConfirm + " to " + confirm);
      }
      lastConfirm = confirm;
      Long highestDone = null;
      for (Map.Entry<Long, CompletableFuture<Void>> e : map.descendingMap().entrySet()) {
        if (e.getValue().isDone()) {
          highestDone = e.getKey();
          break;
        }
      }
      if (highestDone != null) {
        for (Map.Entry<Long, CompletableFuture<Void>> e : map.headMap(highestDone).entrySet()) {
          if (!e.getValue().isDone()) {
            violations.add("hole: " + e.getKey() + " pending below durable " + highestDone);
            break;
          }
        }
      }
      Thread.yield();
    }
  }

  /** One round's appends and trims, then a crash at a random point. */
  private void runUntilCrash(WriteAheadLog wal, Random random, CrashModel model) {
    int appends = 10 + random.nextInt(150);
    int crashAt = random.nextInt(appends + 1);
    List<CompletableFuture<Void>> outstanding = new ArrayList<>();
    for (int i = 0; i < crashAt; i++) {
      int payload = random.nextInt(100) < 5 ? 20_000 + random.nextInt(40_000) : random.nextInt(600);
      ByteBuf body = TestRecords.body(random, i % 7, i, payload);
      byte[] bytes = TestRecords.bytes(body);
      WalAppendResult result = wal.append(body);
      body.release();
      switch (result) {
        case WalAppendResult.Accepted a -> {
          model.appended(a.offset(), bytes);
          outstanding.add(a.durable().thenRun(() -> model.acked(a.offset())));
        }
        case WalAppendResult.OverCapacity o -> await(outstanding.getLast());
        case WalAppendResult other -> throw new AssertionError("unexpected " + other);
      }
      if (random.nextInt(10) == 0) {
        await(outstanding.get(random.nextInt(outstanding.size())));
      }
      if (random.nextInt(12) == 0) {
        model
            .someAcked(random)
            .filter(offset -> offset < wal.confirmOffset())
            .ifPresent(
                offset -> {
                  model.trimRequested(offset);
                  wal.trim(offset).thenRun(() -> model.trimDurable(offset));
                });
      }
    }
    if (random.nextInt(4) == 0) {
      outstanding.forEach(WriteAheadLogContract::await);
    }
    crash(wal, random);
  }
}
