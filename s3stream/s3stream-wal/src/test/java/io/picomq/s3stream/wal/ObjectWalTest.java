package io.picomq.s3stream.wal;

import static io.picomq.s3stream.wal.WriteAheadLogContract.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.objectstore.FaultInjectingObjectStore;
import io.picomq.s3stream.objectstore.ManualScheduler;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectContents;
import io.picomq.s3stream.walobject.WalObjectHeader;
import io.picomq.s3stream.walobject.WalObjectKey;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What is specific to {@link ObjectWal}: its objects in storage, recovery's edge cases, batching.
 */
class ObjectWalTest {

  private static final String CLUSTER = "cluster-a";
  private static final int NODE = 4;
  private static final String PREFIX = WalObjectKeys.nodePrefix(CLUSTER, NODE);

  /** One object per record: every append seals at once. */
  private static final WalConfig UNBATCHED =
      WalConfig.builder().batchInterval(Duration.ZERO).maxBytesInBatch(1 << 20).build();

  private final MemoryObjectStore store = new MemoryObjectStore();
  private final ExecutorService owner =
      Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("wal-owner").factory());
  private final Random random = new Random(41);

  @AfterEach
  void tearDown() {
    owner.shutdownNow();
  }

  @Test
  void objectsHaveV1KeysAndHeadersThatCarryTheTrimOffset() {
    ObjectWal wal = open(store, 3, UNBATCHED);
    List<WriteAheadLogContract.Appended> records = appendAndAwait(wal, 3);

    List<WalObjectKey> keys = walKeys(store);
    assertThat(keys).allMatch(k -> k instanceof WalObjectKey.V1 && k.epoch() == 3);
    for (WriteAheadLogContract.Appended record : records) {
      WalObjectKey key = objectHolding(keys, record.offset());
      assertThat(key.startOffset()).isEqualTo(record.offset());
      WalObjectContents contents = decode(key.key());
      assertThat(contents.header()).isInstanceOf(WalObjectHeader.V1.class);
      assertThat(contents.header().nodeId()).isEqualTo(NODE);
      assertThat(contents.header().nodeEpoch()).isEqualTo(3);
      assertThat(TestRecords.bytes(contents.records().getFirst().body())).isEqualTo(record.bytes());
      assertThat(key.endOffset(0))
          .isEqualTo(WalObjectCodec.endOffset(key.startOffset(), contents.header().bodyLength()));
      contents.release();
    }
    await(wal.trim(records.get(1).offset()));
    ByteBuf late = body(10);
    await(WriteAheadLogContract.accept(wal.append(late)).durable());
    late.release();
    WalObjectContents newest = decode(walKeys(store).getLast().key());
    assertThat(((WalObjectHeader.V1) newest.header()).trimOffset())
        .isEqualTo(records.get(1).offset());
    newest.release();
    await(wal.shutdownGracefully());
  }

  @Test
  void theFenceObjectIsStoredAtStartAndSurvivesTrims() {
    ObjectWal wal = new ObjectWal(store, node(1), UNBATCHED, Scheduler.system(), owner);
    await(wal.start());
    List<WalObjectKey> atStart = walKeys(store);
    assertThat(atStart).hasSize(1);
    WalObjectKey fence = atStart.getFirst();
    assertThat(fence.epoch()).isEqualTo(1);
    await(wal.recover()).release();
    await(wal.reset());
    List<WriteAheadLogContract.Appended> records = appendAndAwait(wal, 5);
    await(wal.trim(records.getLast().offset()));

    List<WalObjectKey> after = walKeys(store);
    assertThat(after).contains(fence);
    assertThat(after.getFirst()).isEqualTo(fence);
    await(wal.shutdownGracefully());
  }

  @Test
  void trimDeletesTheObjectsWhoseRecordsAreAllTrimmed() {
    ObjectWal wal = open(store, 1, UNBATCHED);
    List<WriteAheadLogContract.Appended> records = appendAndAwait(wal, 8);
    // Trimming through record 5 leaves records 6 and 7, so their objects stay; so does the
    // newest object, whatever it holds, and the fence object.
    long before = walKeys(store).size();
    await(wal.trim(records.get(5).offset()));
    List<WalObjectKey> left = walKeys(store);
    for (int i = 0; i < 5; i++) {
      assertThat(left).noneMatch(startsAt(records.get(i).offset()));
    }
    assertThat(left).anyMatch(startsAt(records.get(6).offset()));
    assertThat(left).anyMatch(startsAt(records.get(7).offset()));
    assertThat(left.size()).isLessThan((int) before);
    await(wal.shutdownGracefully());
  }

  @Test
  void aTornLastObjectIsIgnored() {
    ObjectWal first = open(store, 1, UNBATCHED);
    List<WriteAheadLogContract.Appended> records = appendAndAwait(first, 5);
    first.close();
    String last = objectHolding(walKeys(store), records.get(4).offset()).key();
    byte[] whole = TestRecords.bytes(await(store.get(last, 0, -1)));
    await(store.put(last, Unpooled.wrappedBuffer(whole, 0, whole.length - 7)));

    Recovery recovery = recoverWith(2);
    WriteAheadLogContract.assertRecovered(recovery, records.subList(0, 4));
    assertThat(recovery.stoppedBy())
        .hasValueSatisfying(why -> assertThat(why).contains("TRUNCATED"));
    recovery.release();
  }

  @Test
  void aCorruptRecordStopsRecoveryRightBeforeIt() {
    // Record 0 finds the WAL idle and goes alone; then three records (3171 bytes) per object,
    // sealed by size while a PUT is in flight.
    WalConfig threePerObject =
        WalConfig.builder().batchInterval(Duration.ofSeconds(60)).maxBytesInBatch(3000).build();
    ManualScheduler clock = new ManualScheduler();
    ObjectWal first =
        openOn(
            clock, LatencyObjectStore.storing(store, clock, Duration.ofMillis(5)), threePerObject);
    List<WriteAheadLogContract.Appended> records = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      ByteBuf body = TestRecords.body(random, 1, i, 1000);
      records.add(
          new WriteAheadLogContract.Appended(
              WriteAheadLogContract.accept(first.append(body)).offset(),
              TestRecords.bytes(body),
              null));
      body.release();
    }
    for (int ms = 0; ms < 100 && first.confirmOffset() <= records.get(6).offset(); ms++) {
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(first.confirmOffset()).isGreaterThan(records.get(6).offset());
    first.close();
    // Records 4-6 share an object; damage the body of record 5, the middle one.
    WalObjectKey key = objectHolding(walKeys(store), records.get(5).offset());
    assertThat(key.startOffset()).isEqualTo(records.get(4).offset());
    byte[] bytes = TestRecords.bytes(await(store.get(key.key(), 0, -1)));
    int bodyPosition =
        WalObjectHeader.V1.SIZE + (int) (records.get(5).offset() - key.startOffset()) + 24 + 40;
    bytes[bodyPosition] ^= 0x10;
    await(store.put(key.key(), Unpooled.wrappedBuffer(bytes)));

    Recovery recovery = recoverWith(2);
    WriteAheadLogContract.assertRecovered(recovery, records.subList(0, 5));
    assertThat(recovery.stoppedBy())
        .hasValueSatisfying(why -> assertThat(why).contains("BODY_CRC_MISMATCH"));
    recovery.release();
  }

  @Test
  void aMissingObjectEndsRecoveryAtTheGap() {
    ObjectWal first = open(store, 1, UNBATCHED);
    List<WriteAheadLogContract.Appended> records = appendAndAwait(first, 5);
    first.close();
    await(store.delete(List.of(objectHolding(walKeys(store), records.get(2).offset()).key())));

    Recovery recovery = recoverWith(2);
    WriteAheadLogContract.assertRecovered(recovery, records.subList(0, 2));
    assertThat(recovery.stoppedBy()).hasValueSatisfying(why -> assertThat(why).startsWith("gap"));
    recovery.release();
  }

  @Test
  void objectsAFencedWriterStoresAfterTheFencePointAreIgnoredThenDeleted() {
    ObjectWal old = open(store, 1, UNBATCHED);
    List<WriteAheadLogContract.Appended> before = appendAndAwait(old, 3);
    ObjectWal newer = new ObjectWal(store, node(2), UNBATCHED, Scheduler.system(), owner);
    await(newer.start());
    long fencePoint =
        walKeys(store).stream().filter(k -> k.epoch() == 2).findFirst().orElseThrow().startOffset();
    // The old writer's PUTs land, but its fence check finds the newer marker: nothing acknowledged.
    List<WriteAheadLogContract.Appended> zombie =
        WriteAheadLogContract.appendAfterFencing(old, random, 3);
    assertThat(zombie)
        .isNotEmpty()
        .allMatch(r -> r.offset() >= fencePoint && r.durable().isCompletedExceptionally());
    assertThat(walKeys(store)).anyMatch(k -> k.epoch() == 1 && k.startOffset() >= fencePoint);
    newer.close();

    ObjectWal third = new ObjectWal(store, node(3), UNBATCHED, Scheduler.system(), owner);
    await(third.start());
    Recovery recovery = await(third.recover());
    WriteAheadLogContract.assertRecovered(recovery, before);
    recovery.release();
    await(third.reset());
    assertThat(walKeys(store)).allMatch(k -> k.epoch() == 3);
    await(third.shutdownGracefully());
    old.close();
  }

  @Test
  void aWriterThatSeesANewerEpochAtResetFencesItself() {
    ObjectWal wal = new ObjectWal(store, node(1), UNBATCHED, Scheduler.system(), owner);
    await(wal.start());
    ObjectWal newer = new ObjectWal(store, node(2), UNBATCHED, Scheduler.system(), owner);
    await(newer.start());
    CompletableFuture<Void> reset = wal.reset();
    assertThat(reset).failsWithin(Duration.ofSeconds(10));
    ByteBuf body = body(10);
    assertThat(wal.append(body)).isInstanceOf(WalAppendResult.Fenced.class);
    body.release();
  }

  @Test
  void putsInFlightNeverExceedTheLimitAndLaterRecordsGatherMeanwhile() {
    FaultInjectingObjectStore paused = new FaultInjectingObjectStore(store);
    RecordingObjectStore recording = new RecordingObjectStore(paused);
    WalConfig config = UNBATCHED.newBuilder().maxInflightUploadCount(3).build();
    ObjectWal wal = open(recording, 1, config);
    int before = recording.putCount();
    paused.pause();
    List<CompletableFuture<Void>> durable = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ByteBuf body = body(100);
      durable.add(WriteAheadLogContract.accept(wal.append(body)).durable());
      body.release();
    }
    WriteAheadLogContract.awaitCondition(
        () -> recording.putCount() - before == 3, "three PUTs reach the paused store");
    assertThat(durable).noneMatch(CompletableFuture::isDone);
    paused.resume();
    durable.forEach(WriteAheadLogContract::await);
    assertThat(recording.maxConcurrentPuts()).isEqualTo(3);
    // Records 3-9 waited in the open batch, not in sealed ones: one more PUT stores them all.
    assertThat(recording.putCount() - before).isEqualTo(4);
    await(wal.shutdownGracefully());
  }

  @Test
  void anIntervalSealWaitsForTheConfirmationThatFreesASlot() {
    ManualScheduler clock = new ManualScheduler();
    RecordingObjectStore recording =
        new RecordingObjectStore(new LatencyObjectStore(store, clock, Duration.ofMillis(5)));
    WalConfig config =
        WalConfig.builder().batchInterval(Duration.ofMillis(1)).maxInflightUploadCount(1).build();
    ObjectWal wal = openOn(clock, recording, config);
    int before = recording.putCount();
    CompletableFuture<Void> first = appendOne(wal); // the WAL is idle: sealed at once
    List<CompletableFuture<Void>> gathered = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      clock.advance(Duration.ofMillis(1));
      gathered.add(appendOne(wal)); // the interval has passed, but the one slot is taken
    }
    assertThat(recording.putCount() - before).isEqualTo(1);
    clock.advance(Duration.ofMillis(1));
    assertThat(first).isCompleted();
    assertThat(recording.putCount() - before).as("the four go as one object").isEqualTo(2);
    clock.advance(Duration.ofMillis(5));
    assertThat(gathered).allMatch(CompletableFuture::isDone);
    advanceUntilDone(clock, wal.shutdownGracefully());
    assertThat(recording.putCount() - before).isEqualTo(2);
  }

  @Test
  void aBatchIsSealedWhenItReachesMaxBytesInBatch() {
    ManualScheduler clock = new ManualScheduler();
    RecordingObjectStore recording =
        new RecordingObjectStore(new LatencyObjectStore(store, clock, Duration.ofMillis(5)));
    WalConfig config =
        WalConfig.builder().batchInterval(Duration.ofSeconds(60)).maxBytesInBatch(4096).build();
    ObjectWal wal = openOn(clock, recording, config);
    int before = recording.putCount();
    List<CompletableFuture<Void>> durable = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      ByteBuf body = TestRecords.body(random, 1, i, 1000); // 1057 bytes framed
      durable.add(WriteAheadLogContract.accept(wal.append(body)).durable());
      body.release();
    }
    // Record 0 finds the WAL idle and goes alone; while its PUT runs, records 1-4 reach 4228 >=
    // 4096 bytes and go as one object; 5 and 6 wait for the (60 s) interval.
    advanceUntilDone(clock, durable.get(4));
    durable.subList(0, 5).forEach(WriteAheadLogContract::await);
    assertThat(recording.putCount() - before).isEqualTo(2);
    assertThat(durable.get(5)).isNotDone();
    advanceUntilDone(clock, wal.shutdownGracefully());
    assertThat(durable.subList(5, 7)).allMatch(CompletableFuture::isDone);
    assertThat(recording.putCount() - before).isEqualTo(3);
  }

  @Test
  void anIdleWalSealsAtOnceAndABusyOneWaitsOutTheInterval() {
    ManualScheduler clock = new ManualScheduler();
    ObjectStore slow = new LatencyObjectStore(store, clock, Duration.ofMillis(5));
    WalConfig config = WalConfig.builder().batchInterval(Duration.ofMillis(250)).build();
    ObjectWal wal = openOn(clock, slow, config);

    // A lone sequential writer: each record finds the WAL idle, so it waits for the PUT only,
    // never for the 250 ms interval, although each comes 5 ms after the previous seal.
    for (int i = 0; i < 3; i++) {
      CompletableFuture<Void> lone = appendOne(wal);
      clock.advance(Duration.ofMillis(4));
      assertThat(lone).isNotDone();
      clock.advance(Duration.ofMillis(1));
      assertThat(lone).as("record %d is stored after one PUT's latency", i).isCompleted();
    }

    // Busy: a record that arrives while a PUT is in flight groups with later ones.
    CompletableFuture<Void> first = appendOne(wal);
    CompletableFuture<Void> second = appendOne(wal);
    clock.advance(Duration.ofMillis(5));
    assertThat(first).isCompleted();
    clock.advance(Duration.ofMillis(240));
    assertThat(second).as("waits out the interval since the previous seal").isNotDone();
    clock.advance(Duration.ofMillis(5 + 5));
    assertThat(second).isCompleted();
    advanceUntilDone(clock, wal.shutdownGracefully());
  }

  private ObjectWal openOn(ManualScheduler clock, ObjectStore on, WalConfig config) {
    ObjectWal wal = new ObjectWal(on, node(1), config, clock, Runnable::run);
    advanceUntilDone(clock, wal.start());
    advanceUntilDone(clock, wal.recover()).release();
    advanceUntilDone(clock, wal.reset());
    return wal;
  }

  @Test
  void groupCommitKeepsPutsWithinTheBudgetWith256AppendsInFlight() {
    // batchInterval 10 ms, 256 KiB batches: 1 KiB records (interval-bound), 16 KiB records
    // (size-bound).
    for (int payload : new int[] {1024, 16 << 10}) {
      WalConfig config =
          WalConfig.builder()
              .batchInterval(Duration.ofMillis(10))
              .maxBytesInBatch(256 << 10)
              .maxUnflushedBytes(256 << 20)
              .build();
      GroupCommitRun run =
          runClosedLoop(config, payload, 256, Duration.ofSeconds(5), Duration.ofMillis(2));
      double seconds = 5;
      double budget = 1000.0 / 10 + run.ingestBytes / seconds / config.maxBytesInBatch() + 1;
      assertThat(run.puts / seconds)
          .as("PUTs/s with %d-byte records (budget %.1f)", payload, budget)
          .isLessThanOrEqualTo(budget);
      assertThat(run.records).as("the loop kept appending").isGreaterThan(50_000);
      System.out.printf(
          Locale.ROOT,
          "group commit, %d-byte records, 256 in flight, 10 ms / 256 KiB: %.0f PUTs/s (budget"
              + " %.0f), %.0f PUTs per million records%n",
          payload,
          run.puts / seconds,
          budget,
          run.puts * 1e6 / run.records);
    }
    GroupCommitRun s3 =
        runClosedLoop(
            WalConfig.defaults(), 1024, 256, Duration.ofSeconds(10), Duration.ofMillis(30));
    System.out.printf(
        Locale.ROOT,
        "group commit, S3 defaults (250 ms, 8 MiB), 1 KiB records, 256 in flight: %.1f PUTs/s,"
            + " %.0f PUTs per million records%n",
        s3.puts / 10.0,
        s3.puts * 1e6 / s3.records);
    // Per round: the first append after an acknowledgement finds the WAL idle and goes alone
    // (see WalBatcher), the rest wait for the timer: at most two seals per interval.
    assertThat(s3.puts / 10.0).isLessThanOrEqualTo(2 * 1000.0 / 250 + 1);
  }

  // ---- helpers ----

  private record GroupCommitRun(long puts, long records, long ingestBytes) {}

  /**
   * Keeps {@code inFlight} appends outstanding for {@code duration} of fake time: each
   * acknowledgement appends the next record. Each PUT takes {@code putLatency} of fake time.
   */
  private GroupCommitRun runClosedLoop(
      WalConfig config, int payloadBytes, int inFlight, Duration duration, Duration putLatency) {
    ManualScheduler clock = new ManualScheduler();
    ObjectStore slow = new LatencyObjectStore(new MemoryObjectStore(), clock, putLatency);
    ObjectWal wal = new ObjectWal(slow, node(1), config, clock, Runnable::run);
    advanceUntilDone(clock, wal.start());
    advanceUntilDone(clock, wal.recover()).release();
    advanceUntilDone(clock, wal.reset());
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong records = new AtomicLong();
    AtomicLong ingest = new AtomicLong();
    ByteBuf body = TestRecords.body(random, 1, 0, payloadBytes);
    Runnable appendNext =
        new Runnable() {
          @Override
          public void run() {
            if (!running.get()) {
              return;
            }
            WalAppendResult.Accepted accepted = WriteAheadLogContract.accept(wal.append(body));
            records.incrementAndGet();
            ingest.addAndGet(24 + body.readableBytes());
            accepted.durable().thenRun(this);
          }
        };
    long putsBefore = wal.putCount();
    for (int i = 0; i < inFlight; i++) {
      appendNext.run();
    }
    for (long ms = 0; ms < duration.toMillis(); ms++) {
      clock.advance(Duration.ofMillis(1));
    }
    running.set(false);
    long puts = wal.putCount() - putsBefore;
    clock.advance(Duration.ofSeconds(1));
    body.release();
    slow.close();
    return new GroupCommitRun(puts, records.get(), ingest.get());
  }

  private static <T> T advanceUntilDone(ManualScheduler clock, CompletableFuture<T> future) {
    for (int ms = 0; ms < 10_000 && !future.isDone(); ms++) {
      clock.advance(Duration.ofMillis(1));
    }
    return await(future);
  }

  private CompletableFuture<Void> appendOne(ObjectWal wal) {
    ByteBuf body = body(100);
    CompletableFuture<Void> durable = WriteAheadLogContract.accept(wal.append(body)).durable();
    body.release();
    return durable;
  }

  private static WalNode node(long epoch) {
    return WalNode.of(CLUSTER, NODE, epoch);
  }

  private ObjectWal open(ObjectStore on, long epoch, WalConfig config) {
    ObjectWal wal = new ObjectWal(on, node(epoch), config, Scheduler.system(), owner);
    await(wal.start());
    await(wal.recover()).release();
    await(wal.reset());
    return wal;
  }

  private Recovery recoverWith(long epoch) {
    ObjectWal wal = new ObjectWal(store, node(epoch), UNBATCHED, Scheduler.system(), owner);
    await(wal.start());
    return await(wal.recover());
  }

  private List<WriteAheadLogContract.Appended> appendAndAwait(ObjectWal wal, int count) {
    List<WriteAheadLogContract.Appended> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      WriteAheadLogContract.Appended record =
          WriteAheadLogContract.append(wal, random, i, 200 + random.nextInt(800));
      await(record.durable());
      records.add(record);
    }
    return records;
  }

  private ByteBuf body(int payloadBytes) {
    return TestRecords.body(random, 1, 0, payloadBytes);
  }

  private static List<WalObjectKey> walKeys(ObjectStore on) {
    List<WalObjectKey> keys = new ArrayList<>();
    for (ObjectInfo info : await(on.list(PREFIX))) {
      if (info.key().startsWith(FenceMarkers.prefix(PREFIX))) {
        continue; // the markers' own test is ObjectWalFenceCheckTest
      }
      keys.add(WalObjectKeys.parse(PREFIX, info.key()).orElseThrow());
    }
    keys.sort(
        (a, b) ->
            a.epoch() != b.epoch()
                ? Long.compare(a.epoch(), b.epoch())
                : Long.compare(a.startOffset(), b.startOffset()));
    return keys;
  }

  private static WalObjectKey objectHolding(List<WalObjectKey> keys, long offset) {
    return keys.stream()
        .filter(k -> k.startOffset() <= offset && offset < k.endOffset(0))
        .reduce((a, b) -> b)
        .orElseThrow();
  }

  private static Predicate<WalObjectKey> startsAt(long offset) {
    return k -> k.startOffset() == offset;
  }

  private WalObjectContents decode(String key) {
    ByteBuf bytes = await(store.get(key, 0, -1));
    try {
      return WalObjectCodec.decode(bytes);
    } finally {
      bytes.release();
    }
  }
}
