package io.picomq.s3stream.wal;

import static io.picomq.s3stream.wal.WriteAheadLogContract.await;
import static io.picomq.s3stream.wal.WriteAheadLogContract.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.file.FileObjectStore;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.WriteAheadLogContract.Appended;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fence check (wal.md, Fencing): two processes of one node, epochs 1 and 2, on one real store.
 * Once epoch 2 has started, epoch 1 acknowledges nothing it stored after, and every record epoch 1
 * did acknowledge is recovered by a third process, epoch 3, whatever order the two processes'
 * operations reach the store in around epoch 2's start.
 */
class ObjectWalFenceCheckTest {

  private static final String CLUSTER = "cluster-f";
  private static final int NODE = 7;

  /** One object per record: every append seals at once. */
  private static final WalConfig UNBATCHED =
      WalConfig.builder().batchInterval(Duration.ZERO).maxBytesInBatch(1 << 20).build();

  enum Backend {
    MEMORY,
    FILE
  }

  /**
   * Where the older writer's append meets the newer writer's start; whether the older writer
   * acknowledges the record, and whether the third epoch recovers it (a record stored before the
   * newer writer listed is recovered even when unacknowledged, as after any crash).
   */
  enum Race {
    /** The older PUT landed and its fence LIST ran before the newer marker; its answer is late. */
    OLDER_LIST_BEFORE_NEWER_MARKER(true, true),
    /** The older PUT reaches the store only after the newer writer started. */
    OLDER_PUT_AFTER_NEWER_START(false, false),
    /** The older PUT is stored before the newer writer starts, but its answer comes after. */
    OLDER_PUT_ANSWER_AFTER_NEWER_START(false, true),
    /** The newer marker PUT is held back while the older append completes entirely. */
    NEWER_MARKER_HELD(true, true),
    /** The newer marker is stored (its answer held) before the older append begins. */
    NEWER_MARKER_STORED_ANSWER_HELD(false, true),
    /**
     * The newer writer listed the WAL (its answer held) before the older PUT landed: the newer
     * listing misses the object, so the older writer must not acknowledge it. (This is why a start
     * stores its marker before it lists.)
     */
    NEWER_LISTED_BEFORE_OLDER_PUT(false, false);

    final boolean acknowledged;
    final boolean recovered;

    Race(boolean acknowledged, boolean recovered) {
      this.acknowledged = acknowledged;
      this.recovered = recovered;
    }
  }

  @TempDir Path directory;

  private final ExecutorService owner =
      Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("wal-owner").factory());
  private final Random random = new Random(73);
  private final List<ObjectStore> stores = new ArrayList<>();

  @AfterEach
  void tearDown() {
    owner.shutdownNow();
    stores.forEach(ObjectStore::close);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void afterANewerEpochStartedTheOlderAcknowledgesNothingAndLosesNothingItAcknowledged(
      Backend backend) throws Exception {
    ObjectStore shared = open(backend);
    ObjectWal older = open(shared, 1, UNBATCHED);
    List<Appended> before = WriteAheadLogContract.appendAndAwait(older, random, 5);
    ObjectWal newer = new ObjectWal(shared, node(2), UNBATCHED, Scheduler.system(), owner);
    await(newer.start());

    List<Appended> zombie = WriteAheadLogContract.appendAfterFencing(older, random, 5);
    assertThat(zombie).noneMatch(ObjectWalFenceCheckTest::acknowledged);
    ByteBuf body = TestRecords.body(random, 1, 0, 10);
    assertThat(older.append(body)).isInstanceOf(WalAppendResult.Fenced.class);
    body.release();

    Recovery recovery = recover(shared, 3);
    WriteAheadLogContract.assertRecovered(recovery, before);
    recovery.release();
    older.close();
    newer.close();
  }

  @ParameterizedTest
  @EnumSource(Race.class)
  void aRaceAroundTheNewerStartOnMemory(Race race) throws Exception {
    runRace(Backend.MEMORY, race);
  }

  @ParameterizedTest
  @EnumSource(Race.class)
  void aRaceAroundTheNewerStartOnFiles(Race race) throws Exception {
    runRace(Backend.FILE, race);
  }

  /** Documents the risk of turning the check off: the zombie's acknowledged records are lost. */
  @Test
  void withTheCheckOffAReplacedWriterAcknowledgesWhatRecoveryDrops() {
    ObjectStore shared = new MemoryObjectStore();
    ObjectWal older = open(shared, 1, UNBATCHED.newBuilder().fenceCheck(false).build());
    List<Appended> before = WriteAheadLogContract.appendAndAwait(older, random, 3);
    ObjectWal newer = new ObjectWal(shared, node(2), UNBATCHED, Scheduler.system(), owner);
    await(newer.start());

    List<Appended> zombie = WriteAheadLogContract.appendAndAwait(older, random, 3);

    assertThat(older.fenceListCount()).isZero();
    Recovery recovery = recover(shared, 3);
    WriteAheadLogContract.assertRecovered(recovery, before);
    assertThat(WriteAheadLogContract.offsets(recovery))
        .doesNotContainAnyElementsOf(WriteAheadLogContract.offsetsOf(zombie));
    recovery.release();
    older.close();
    newer.close();
  }

  /** One LIST covers every batch stored before it began; batches stored meanwhile wait for one. */
  @Test
  void oneFenceListCoversEveryBatchStoredBeforeItBegan() {
    CuedObjectStore cued = new CuedObjectStore(new MemoryObjectStore());
    ObjectWal wal = open(cued, 1, UNBATCHED);
    long listsBefore = wal.fenceListCount();
    cued.holdFenceLists(CuedObjectStore.Hold.ANSWER);
    int putsBefore = cued.completedPuts();

    Appended first = WriteAheadLogContract.append(wal, random, 0, 100);
    awaitCondition(() -> cued.heldCount() == 1, "the first fence LIST is held");
    List<Appended> more = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      more.add(WriteAheadLogContract.append(wal, random, i, 100));
    }
    awaitCondition(() -> cued.completedPuts() - putsBefore == 4, "four PUTs stored");
    assertThat(wal.fenceListCount() - listsBefore).isEqualTo(1);
    assertThat(first.durable()).isNotDone();
    assertThat(more).noneMatch(r -> r.durable().isDone());

    cued.release();
    await(first.durable());
    more.forEach(r -> await(r.durable()));
    assertThat(wal.fenceListCount() - listsBefore).isEqualTo(2);
    await(wal.shutdownGracefully());
  }

  @Test
  void startFailsFencedWhenOnlyANewerMarkerExists() {
    MemoryObjectStore shared = new MemoryObjectStore();
    String prefix = WalObjectKeys.nodePrefix(CLUSTER, NODE);
    await(shared.put(FenceMarkers.key(prefix, 5), io.netty.buffer.Unpooled.EMPTY_BUFFER));
    ObjectWal wal = new ObjectWal(shared, node(4), UNBATCHED, Scheduler.system(), owner);
    assertThat(wal.start())
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableThat()
        .withRootCauseInstanceOf(WalFencedException.class);
  }

  @Test
  void resetDeletesOlderMarkersAndKeepsItsOwn() {
    MemoryObjectStore shared = new MemoryObjectStore();
    String prefix = WalObjectKeys.nodePrefix(CLUSTER, NODE);
    open(shared, 1, UNBATCHED).close();
    open(shared, 2, UNBATCHED).close();
    assertThat(await(shared.list(FenceMarkers.prefix(prefix))))
        .extracting(info -> info.key())
        .containsExactly(FenceMarkers.key(prefix, 2));
  }

  private void runRace(Backend backend, Race race) throws Exception {
    ObjectStore shared = open(backend);
    CuedObjectStore olderStore = new CuedObjectStore(shared);
    CuedObjectStore newerStore = new CuedObjectStore(shared);
    ObjectWal older = open(olderStore, 1, UNBATCHED);
    List<Appended> before = WriteAheadLogContract.appendAndAwait(older, random, 3);
    ObjectWal newer = new ObjectWal(newerStore, node(2), UNBATCHED, Scheduler.system(), owner);

    Appended raced;
    switch (race) {
      case OLDER_LIST_BEFORE_NEWER_MARKER -> {
        olderStore.holdFenceLists(CuedObjectStore.Hold.ANSWER);
        raced = WriteAheadLogContract.append(older, random, 10, 300);
        awaitCondition(() -> olderStore.heldCount() == 1, "the older fence LIST ran");
        await(newer.start());
        olderStore.release();
      }
      case OLDER_PUT_AFTER_NEWER_START, OLDER_PUT_ANSWER_AFTER_NEWER_START -> {
        olderStore.holdPuts(
            race == Race.OLDER_PUT_AFTER_NEWER_START
                ? CuedObjectStore.Hold.CALL
                : CuedObjectStore.Hold.ANSWER);
        raced = WriteAheadLogContract.append(older, random, 10, 300);
        awaitCondition(() -> olderStore.heldCount() == 1, "the older PUT is held");
        await(newer.start());
        olderStore.release();
      }
      case NEWER_MARKER_HELD, NEWER_MARKER_STORED_ANSWER_HELD -> {
        newerStore.holdPuts(
            race == Race.NEWER_MARKER_HELD
                ? CuedObjectStore.Hold.CALL
                : CuedObjectStore.Hold.ANSWER);
        CompletableFuture<Void> started = newer.start();
        awaitCondition(() -> newerStore.heldCount() == 1, "the newer marker PUT is held");
        raced = WriteAheadLogContract.append(older, random, 10, 300);
        settle(raced);
        newerStore.release();
        await(started);
      }
      case NEWER_LISTED_BEFORE_OLDER_PUT -> {
        newerStore.holdOtherLists(CuedObjectStore.Hold.ANSWER);
        CompletableFuture<Void> started = newer.start();
        awaitCondition(() -> newerStore.heldCount() == 1, "the newer listing ran");
        raced = WriteAheadLogContract.append(older, random, 10, 300);
        settle(raced);
        newerStore.release();
        await(started);
      }
      default -> throw new AssertionError(race);
    }
    settle(raced);
    assertThat(acknowledged(raced)).as("acknowledged in %s", race).isEqualTo(race.acknowledged);

    // From here epoch 2 has started: nothing more is acknowledged by epoch 1.
    List<Appended> zombie = WriteAheadLogContract.appendAfterFencing(older, random, 3);
    assertThat(zombie).noneMatch(ObjectWalFenceCheckTest::acknowledged);

    // Everything acknowledged is recovered (the race's point); the rest is as the order decides.
    List<Appended> expected = new ArrayList<>(before);
    if (race.recovered) {
      expected.add(raced);
    }
    Recovery recovery = recover(shared, 3);
    WriteAheadLogContract.assertRecovered(recovery, expected);
    recovery.release();
    older.close();
    newer.close();
  }

  private static void settle(Appended record) {
    record
        .durable()
        .handle((v, e) -> null)
        .orTimeout(WriteAheadLogContract.TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .join();
  }

  private static boolean acknowledged(Appended record) {
    return record.durable().isDone() && !record.durable().isCompletedExceptionally();
  }

  private ObjectStore open(Backend backend) throws Exception {
    ObjectStore store =
        switch (backend) {
          case MEMORY -> new MemoryObjectStore();
          case FILE -> FileObjectStore.open(directory.resolve("objects"), 8);
        };
    stores.add(store);
    return store;
  }

  private ObjectWal open(ObjectStore on, long epoch, WalConfig config) {
    ObjectWal wal = new ObjectWal(on, node(epoch), config, Scheduler.system(), owner);
    await(wal.start());
    await(wal.recover()).release();
    await(wal.reset());
    return wal;
  }

  private Recovery recover(ObjectStore on, long epoch) {
    ObjectWal wal = new ObjectWal(on, node(epoch), UNBATCHED, Scheduler.system(), owner);
    await(wal.start());
    return await(wal.recover());
  }

  private static WalNode node(long epoch) {
    return WalNode.of(CLUSTER, NODE, epoch);
  }
}
