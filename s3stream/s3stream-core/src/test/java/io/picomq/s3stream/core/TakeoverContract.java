package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.TakeoverFencedException;
import io.picomq.s3stream.api.TakeoverReport;
import io.picomq.s3stream.core.testing.CrashSwitch;
import io.picomq.s3stream.core.testing.CrashingMetadata;
import io.picomq.s3stream.core.testing.CrashingObjectStore;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.StreamReads;
import io.picomq.s3stream.core.testing.StreamReads.ReadBatch;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A live node takes over the WAL of a failed one ({@code wal.md}, Takeover): every record the
 * failed node acknowledged is committed exactly once and its streams are closed at the recovered
 * ends, whether it crashed or keeps running as a zombie, whether the takeover itself crashes and is
 * rerun, and whether the failed node comes back meanwhile. One small subclass per backend says how
 * to open the storage.
 */
public abstract class TakeoverContract {

  private static final int DEAD = 1;
  private static final int TAKER = 2;
  private static final int OTHER_TAKER = 3;
  private static final int STREAMS = 3;

  /** Records each stream gets from the node that dies. */
  private static final int RECORDS = 20;

  /** Takers upload in batches this small, so a takeover takes several uploads. */
  private static final UnaryOperator<EngineConfig.Builder> SMALL_UPLOADS =
      c -> c.walUploadThresholdBytes(4 << 10);

  private EngineStorage storage;
  private final InMemoryMetadata metadata = new InMemoryMetadata();
  private final List<Long> streamIds = new ArrayList<>();
  private final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
  private final List<Process> processes = new CopyOnWriteArrayList<>();

  /** Opens fresh storage for one test; closed after it. */
  protected abstract EngineStorage openStorage() throws Exception;

  /** An acknowledged append. */
  private record Ack(long streamId, String id, long baseOffset, int count) {}

  /** One engine process whose stores and metadata calls go through its crash switch. */
  private record Process(TestEngine instance, CrashingMetadata managers, CrashSwitch crash) {
    Engine engine() {
      return instance.engine;
    }

    /** Dies like a killed process: nothing more reaches storage or the metadata plane. */
    void kill() {
      crash.trip();
      instance.abandon();
    }

    CompletableFuture<TakeoverReport> takeOver(int nodeId) {
      return instance.engine.takeOver(nodeId, managers.orphanedStreams(nodeId));
    }
  }

  @BeforeEach
  void openEverything() throws Exception {
    storage = openStorage();
    for (int i = 0; i < STREAMS; i++) {
      streamIds.add(metadata.createStream());
    }
  }

  @AfterEach
  void closeEverything() {
    for (Process process : processes) {
      if (process.crash.isCrashed()) {
        continue; // abandoned already
      }
      try {
        process.instance.shutdown();
      } catch (AssertionError fencedProcessesMayNotFlush) {
        // the zombie
      }
    }
    storage.close();
  }

  @ParameterizedTest(name = "upload threshold {0} bytes")
  @ValueSource(longs = {100 << 20, 4 << 10})
  void aLiveNodeCommitsWhatACrashedNodeAcknowledged(long deadNodeUploadThreshold) throws Exception {
    Process dead = start(DEAD, 1, c -> c.walUploadThresholdBytes(deadNodeUploadThreshold));
    appendRecords(dead);
    dead.kill();

    metadata.failNode(DEAD, TAKER);
    Process taker = start(TAKER, 1, SMALL_UPLOADS);
    TakeoverReport report = taker.takeOver(DEAD).get(60, TimeUnit.SECONDS);

    assertThat(report.nodeId()).isEqualTo(DEAD);
    assertThat(report.fenceEpoch()).isEqualTo(2); // the dead process's WAL epoch was 1
    assertThat(report.closedStreams()).isEqualTo(STREAMS);
    if (deadNodeUploadThreshold > 1 << 20) {
      // Nothing was uploaded before the crash: the WAL held every record.
      assertThat(report.uploadedRecords()).isEqualTo(STREAMS * RECORDS);
      assertThat(report.uploads()).isGreaterThan(1);
      assertThat(report.uploadedBytes()).isGreaterThan((long) STREAMS * RECORDS * 100);
    }
    for (long id : streamIds) {
      StreamMetadata stream = metadata.stream(id);
      assertThat(stream.state()).isEqualTo(StreamMetadata.StreamState.CLOSED);
      assertThat(stream.endOffset())
          .as("stream %d closed at its recovered end", id)
          .isEqualTo(RECORDS);
    }
    assertThat(deadNodeWalKeys())
        .as("the dead node's own WAL objects and fence markers are deleted")
        .noneMatch(key -> key.startsWith("1/") || key.equals("fence/1"));

    assertThat(taker.takeOver(DEAD).get(60, TimeUnit.SECONDS))
        .as("a second takeover finds nothing open")
        .isEqualTo(TakeoverReport.nothingOpen(DEAD));
    assertEveryAckReadOnce(taker.engine());
  }

  @Test
  void aZombieAcknowledgesNothingOnceTakenOver() throws Exception {
    // No uploads (large threshold, no interval): the zombie never talks to the metadata plane, so
    // only the WAL's fence can stop it.
    Process zombie = start(DEAD, 1, c -> c);
    List<Stream> streams = openAll(zombie);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean takenOver = new AtomicBoolean();
    Queue<Ack> lateAcks = new ConcurrentLinkedQueue<>();
    List<Thread> appenders = new ArrayList<>();
    for (Stream stream : streams) {
      appenders.add(
          Thread.ofPlatform()
              .name("zombie-appender-" + stream.streamId())
              .start(() -> appendUntilRefused(stream, stop, takenOver, lateAcks)));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> acks.size() >= 30);

    metadata.failNode(DEAD, TAKER);
    Process taker = start(TAKER, 1, SMALL_UPLOADS);
    TakeoverReport report = taker.takeOver(DEAD).get(60, TimeUnit.SECONDS);
    takenOver.set(true);
    stop.set(true);
    for (Thread appender : appenders) {
      appender.join(TimeUnit.SECONDS.toMillis(60));
    }

    assertThat(report.fenceEpoch()).isEqualTo(2);
    assertThat(report.closedStreams()).isEqualTo(STREAMS);
    assertThat(lateAcks).as("appends acknowledged though issued after the takeover").isEmpty();
    for (Stream stream : streams) {
      assertThat(appendOutcome(stream, "z-after-takeover") instanceof AppendOutcome.Appended)
          .as(
              "the zombie's append to stream %d after the takeover is acknowledged",
              stream.streamId())
          .isFalse();
    }
    assertEveryAckReadOnce(taker.engine());
  }

  @ParameterizedTest(name = "taker crashes at {0} #{1} ({2}), then {3} finishes")
  @CsvSource({
    "DATA_PUT, 2, before, the same taker",
    "COMMIT, 1, after, the same taker",
    "COMMIT, 2, before, another taker",
    // STREAM_OP: 1 is the taker's own start, 2 and 3 the takeover's two listings, 4.. its closes.
    "STREAM_OP, 5, before, another taker",
    "STREAM_OP, 5, after, the same taker",
  })
  void aTakeoverThatCrashedIsFinishedByTheNext(
      CrashSwitch.Site site, int nth, String when, String next) throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();

    metadata.failNode(DEAD, TAKER);
    CrashSwitch crash = new CrashSwitch(new CrashSwitch.Point(site, nth, when.equals("after")));
    Process first = start(TAKER, 1, crash, SMALL_UPLOADS);
    CompletableFuture<TakeoverReport> interrupted = first.takeOver(DEAD);
    untilOverOrCrashed(interrupted, crash);
    assertThat(crash.isCrashed()).as("the takeover reached the planned crash").isTrue();
    first.kill();

    Process second;
    if (next.equals("the same taker")) {
      second = start(TAKER, 2, SMALL_UPLOADS); // its next process
    } else {
      metadata.failNode(DEAD, OTHER_TAKER);
      second = start(OTHER_TAKER, 1, SMALL_UPLOADS);
    }
    TakeoverReport report = second.takeOver(DEAD).get(60, TimeUnit.SECONDS);

    assertThat(report.fenceEpoch()).as("fenced above the crashed takeover's epoch").isEqualTo(3);
    for (long id : streamIds) {
      assertThat(metadata.stream(id).state()).isEqualTo(StreamMetadata.StreamState.CLOSED);
      assertThat(metadata.stream(id).endOffset()).isEqualTo(RECORDS);
    }
    assertEveryAckReadOnce(second.engine());
  }

  @Test
  void theFailedNodeComingBackAfterATakeoverFindsNothingToRecover() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();
    metadata.failNode(DEAD, TAKER);
    Process taker = start(TAKER, 1, SMALL_UPLOADS);
    taker.takeOver(DEAD).get(60, TimeUnit.SECONDS);

    Process back = start(DEAD, 1_000, c -> c); // a new process: a far higher, wall-clock epoch
    assertThat(back.instance.registry.get("s3stream.recovery.records").counter().count()).isZero();
    assertEveryAckReadOnce(back.engine());
  }

  @Test
  void theFailedNodeComingBackAfterATakeoverCrashedRecoversTheRest() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();
    metadata.failNode(DEAD, TAKER);
    CrashSwitch crash = new CrashSwitch(new CrashSwitch.Point(CrashSwitch.Site.COMMIT, 1, true));
    Process taker = start(TAKER, 1, crash, SMALL_UPLOADS);
    untilOverOrCrashed(taker.takeOver(DEAD), crash);
    assertThat(crash.isCrashed()).isTrue();
    taker.kill();

    Process back = start(DEAD, 1_000, c -> c);
    assertThat(back.instance.registry.get("s3stream.recovery.records").counter().count())
        .as("the records the crashed takeover had not committed")
        .isPositive();
    assertEveryAckReadOnce(back.engine());
  }

  @Test
  void theFailedNodeComingBackDuringATakeoverWinsTheWal() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();
    metadata.failNode(DEAD, TAKER);
    Process taker = start(TAKER, 1, SMALL_UPLOADS);

    CompletableFuture<TakeoverReport> takeover = taker.takeOver(DEAD);
    Process back = start(DEAD, 1_000, c -> c); // starts while the takeover runs
    try {
      TakeoverReport report = takeover.get(60, TimeUnit.SECONDS);
      assertThat(report.fenceEpoch()).isEqualTo(2);
    } catch (ExecutionException e) {
      // The node's new process fenced the takeover's WAL, or ended its right to commit and close.
      assertThat(e.getCause())
          .isInstanceOfAny(TakeoverFencedException.class, MetadataRejectedException.class);
    }
    assertEveryAckReadOnce(back.engine());
  }

  @Test
  void theFailedNodeComingBackAfterTheTakerChoseItsEpochFencesTheTakeover() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();
    metadata.failNode(DEAD, TAKER);

    // The taker's first listing of the dead node's WAL chooses its fence epoch (2), and the
    // takeover
    // is still on when it asks again; the node's new process starts (epoch 1000) and recovers while
    // the taker's WAL starts at 2: after its marker, before its listing.
    CompletableFuture<Process> back = new CompletableFuture<>();
    Process taker = startTakerComingBackOn(2, back);

    assertThatThrownBy(() -> taker.takeOver(DEAD).get(60, TimeUnit.SECONDS))
        .hasCauseInstanceOf(TakeoverFencedException.class);
    assertEveryAckReadOnce(back.get(60, TimeUnit.SECONDS).engine());
  }

  @Test
  void theFailedNodeComingBackBeforeTheTakerListsItsWalIsNotFenced() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();
    metadata.failNode(DEAD, TAKER);

    // The node's new process (epoch 1000) has started when the taker lists the WAL to choose its
    // epoch: the listing shows its marker, so an epoch chosen from it would fence that process.
    CompletableFuture<Process> back = new CompletableFuture<>();
    Process taker = startTakerComingBackOn(1, back);

    try {
      assertThat(taker.takeOver(DEAD).get(60, TimeUnit.SECONDS))
          .isEqualTo(TakeoverReport.nothingOpen(DEAD));
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(MetadataRejectedException.class);
    }
    Process newProcess = back.get(60, TimeUnit.SECONDS);
    assertEveryAckReadOnce(newProcess.engine());
    appendRecords(newProcess); // its WAL is not fenced
  }

  /**
   * Starts the taker with a hook before its {@code nth} listing of the dead node's WAL ({@link
   * ListHook}) that starts the dead node's new process (epoch 1000) into {@code back}.
   */
  private Process startTakerComingBackOn(int nth, CompletableFuture<Process> back)
      throws Exception {
    Supplier<CompletableFuture<?>> comeBack =
        () ->
            CompletableFuture.supplyAsync(
                    () -> {
                      try {
                        return start(DEAD, 1_000, c -> c);
                      } catch (Exception e) {
                        throw new CompletionException(e);
                      }
                    })
                .whenComplete(
                    (process, error) -> {
                      if (error != null) {
                        back.completeExceptionally(error);
                      } else {
                        back.complete(process);
                      }
                    });
    String deadPrefix = WalObjectKeys.nodePrefix(storage.clusterId, DEAD);
    return start(
        TAKER,
        1,
        CrashSwitch.manual(),
        wal -> new ListHook(wal, deadPrefix, nth, comeBack),
        SMALL_UPLOADS);
  }

  @Test
  void aTakerToldAfterFencingThatNothingIsOpenLeavesTheWalToTheNodesNextProcess() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.kill();
    metadata.failNode(DEAD, TAKER);
    Process taker = start(TAKER, 1, SMALL_UPLOADS);
    // A host that answers "nothing open" once the WAL is fenced (the third question), as PicoMQ's
    // did when the node's next process registered just then. That process starts its WAL after
    // the takeover is over: a reset would leave it nothing to recover.
    OrphanedStreams listed = taker.managers().orphanedStreams(DEAD);
    AtomicInteger asked = new AtomicInteger();
    OrphanedStreams emptyOnceFenced =
        new OrphanedStreams() {
          @Override
          public CompletableFuture<List<StreamMetadata>> streams() {
            return asked.incrementAndGet() < 3
                ? listed.streams()
                : CompletableFuture.completedFuture(List.of());
          }

          @Override
          public CompletableFuture<Void> closeStream(long streamId, long epoch) {
            return listed.closeStream(streamId, epoch);
          }
        };

    assertThatThrownBy(
            () -> taker.engine().takeOver(DEAD, emptyOnceFenced).get(60, TimeUnit.SECONDS))
        .hasCauseInstanceOf(MetadataRejectedException.class);
    assertThat(asked).hasValue(3);

    Process back = start(DEAD, 1_000, c -> c);
    assertEveryAckReadOnce(back.engine());
  }

  @Test
  void aNodeWithNothingOpenIsNotTouched() throws Exception {
    Process dead = start(DEAD, 1, c -> c);
    appendRecords(dead);
    dead.instance.shutdown(); // closes its streams
    metadata.failNode(DEAD, TAKER);
    List<String> before = deadNodeWalKeys();

    Process taker = start(TAKER, 1, SMALL_UPLOADS);
    assertThat(taker.takeOver(DEAD).get(60, TimeUnit.SECONDS))
        .isEqualTo(TakeoverReport.nothingOpen(DEAD));
    assertThat(deadNodeWalKeys()).as("no fence marker, nothing read").isEqualTo(before);
  }

  @Test
  void takeoversNeedAStartedEngineAndAnotherNode() throws Exception {
    TestEngine fresh = storage.engine(metadata.register(TAKER, 1), SMALL_UPLOADS);
    OrphanedStreams orphans = metadata.register(TAKER, 1).orphanedStreams(DEAD);
    assertThatThrownBy(() -> fresh.engine.takeOver(DEAD, orphans).get())
        .hasCauseInstanceOf(IllegalStateException.class);
    fresh.engine.start().get(60, TimeUnit.SECONDS);
    assertThatThrownBy(() -> fresh.engine.takeOver(TAKER, orphans).get())
        .hasCauseInstanceOf(IllegalArgumentException.class);
    fresh.shutdown();
    assertThatThrownBy(() -> fresh.engine.takeOver(DEAD, orphans).get())
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  /**
   * Waits until the takeover is over or its process crashed (a crashed process's takeover may never
   * answer: a commit whose answer was lost is retried against a dead metadata plane).
   */
  private static void untilOverOrCrashed(
      CompletableFuture<TakeoverReport> takeover, CrashSwitch crash) throws Exception {
    CompletableFuture.anyOf(takeover.handle((report, error) -> null), crash.tripped())
        .get(60, TimeUnit.SECONDS);
  }

  private Process start(int nodeId, long epoch, UnaryOperator<EngineConfig.Builder> tune)
      throws Exception {
    return start(nodeId, epoch, CrashSwitch.manual(), tune);
  }

  private Process start(
      int nodeId, long epoch, CrashSwitch crash, UnaryOperator<EngineConfig.Builder> tune)
      throws Exception {
    return start(nodeId, epoch, crash, UnaryOperator.identity(), tune);
  }

  /**
   * Registers and starts a process whose stores and metadata calls go through {@code crash}, its
   * WAL store also through {@code walStore}.
   */
  private Process start(
      int nodeId,
      long epoch,
      CrashSwitch crash,
      UnaryOperator<ObjectStore> walStore,
      UnaryOperator<EngineConfig.Builder> tune)
      throws Exception {
    CrashingMetadata managers = new CrashingMetadata(metadata.register(nodeId, epoch), crash);
    TestEngine engine =
        storage.engine(
            nodeId,
            epoch,
            managers,
            managers,
            new CrashingObjectStore(
                storage.dataStore, crash, CrashSwitch.Site.DATA_PUT, CrashSwitch.Site.DATA_OTHER),
            walStore.apply(
                new CrashingObjectStore(
                    storage.dataStore,
                    crash,
                    CrashSwitch.Site.WAL_PUT,
                    CrashSwitch.Site.WAL_OTHER)),
            tune);
    Process process = new Process(engine, managers, crash);
    processes.add(process);
    engine.engine.start().get(60, TimeUnit.SECONDS);
    return process;
  }

  private List<Stream> openAll(Process process) throws Exception {
    List<Stream> streams = new ArrayList<>();
    for (long id : streamIds) {
      streams.add(process.engine().openStream(id).get(30, TimeUnit.SECONDS));
    }
    return streams;
  }

  /** {@link #RECORDS} acknowledged appends to each stream, the streams' appends interleaved. */
  private void appendRecords(Process process) throws Exception {
    List<Stream> streams = openAll(process);
    for (int i = 0; i < RECORDS; i++) {
      List<CompletableFuture<AppendOutcome>> round = new ArrayList<>();
      List<ByteBuf> payloads = new ArrayList<>();
      for (Stream stream : streams) {
        ByteBuf payload = payload("s" + stream.streamId() + "-" + i);
        payloads.add(payload);
        round.add(stream.append(1, payload));
      }
      for (int s = 0; s < streams.size(); s++) {
        AppendOutcome outcome = round.get(s).get(30, TimeUnit.SECONDS);
        payloads.get(s).release();
        assertThat(outcome).isInstanceOf(AppendOutcome.Appended.class);
        acks.add(
            new Ack(
                streams.get(s).streamId(),
                "s" + streams.get(s).streamId() + "-" + i,
                ((AppendOutcome.Appended) outcome).baseOffset(),
                1));
      }
    }
  }

  /**
   * Appends to {@code stream} one at a time until an append is not acknowledged or {@code stop} is
   * set; an acknowledgement of an append issued once {@code takenOver} was set goes to {@code
   * lateAcks}.
   */
  private void appendUntilRefused(
      Stream stream, AtomicBoolean stop, AtomicBoolean takenOver, Queue<Ack> lateAcks) {
    for (int seq = 0; !stop.get(); seq++) {
      String id = "z" + stream.streamId() + "-" + seq;
      boolean issuedAfterTakeover = takenOver.get();
      AppendOutcome outcome = appendOutcome(stream, id);
      if (!(outcome instanceof AppendOutcome.Appended appended)) {
        return;
      }
      Ack ack = new Ack(stream.streamId(), id, appended.baseOffset(), 1);
      acks.add(ack);
      if (issuedAfterTakeover) {
        lateAcks.add(ack);
      }
    }
  }

  /** The append's outcome; null if it failed instead of answering. */
  private static AppendOutcome appendOutcome(Stream stream, String id) {
    ByteBuf payload = payload(id);
    try {
      return stream.append(1, payload).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return null;
    } catch (Exception e) {
      throw new AssertionError("append " + id + " did not answer", e);
    } finally {
      payload.release();
    }
  }

  /** A payload naming its record ({@code id|}), padded to 200 bytes. */
  private static ByteBuf payload(String id) {
    byte[] name = (id + "|").getBytes(StandardCharsets.ISO_8859_1);
    byte[] bytes = new byte[Math.max(200, name.length)];
    System.arraycopy(name, 0, bytes, 0, name.length);
    for (int i = name.length; i < bytes.length; i++) {
      bytes[i] = (byte) ('a' + i % 26);
    }
    return Unpooled.wrappedBuffer(bytes);
  }

  /** The dead node's WAL keys, relative to its node prefix. */
  private List<String> deadNodeWalKeys() throws Exception {
    String prefix = WalObjectKeys.nodePrefix(storage.clusterId, DEAD);
    return storage.dataStore.list(prefix).get(30, TimeUnit.SECONDS).stream()
        .map(ObjectInfo::key)
        .map(key -> key.substring(prefix.length()))
        .sorted()
        .toList();
  }

  /**
   * Opens every stream through {@code reader} and reads it whole: contiguous from 0 up to the
   * committed end, no record twice, every acknowledged record at the offsets it was acknowledged
   * with. Records stored but never acknowledged (a zombie's last) may be there too.
   */
  private void assertEveryAckReadOnce(Engine reader) throws Exception {
    for (long id : streamIds) {
      Stream stream = reader.openStream(id).get(30, TimeUnit.SECONDS);
      long end = stream.confirmOffset();
      assertThat(metadata.stream(id).endOffset()).isEqualTo(end);
      Map<String, ReadBatch> byId = new HashMap<>();
      long expected = 0;
      for (ReadBatch batch : StreamReads.readAll(stream, 0, end, 1 << 20)) {
        assertThat(batch.baseOffset()).as("stream %d is contiguous", id).isEqualTo(expected);
        expected = batch.nextOffset();
        String record = StreamReads.readBatchId(batch);
        assertThat(byId.put(record, batch)).as("%s read twice from stream %d", record, id).isNull();
      }
      for (Ack ack : acks) {
        if (ack.streamId() != id) {
          continue;
        }
        ReadBatch found = byId.get(ack.id());
        assertThat(found).as("acknowledged %s of stream %d is lost", ack.id(), id).isNotNull();
        assertThat(found.baseOffset()).as("%s moved", ack.id()).isEqualTo(ack.baseOffset());
        assertThat(found.count()).isEqualTo(ack.count());
      }
    }
  }

  /**
   * Runs a hook before the {@code nth} listing of a prefix is sent: something happens between a
   * caller's earlier steps and that LIST.
   */
  private static final class ListHook implements ObjectStore {
    private final ObjectStore delegate;
    private final String prefix;
    private final int nth;
    private final Supplier<CompletableFuture<?>> hook;
    private final AtomicInteger listings = new AtomicInteger();

    ListHook(ObjectStore delegate, String prefix, int nth, Supplier<CompletableFuture<?>> hook) {
      this.delegate = delegate;
      this.prefix = prefix;
      this.nth = nth;
      this.hook = hook;
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      return delegate.put(key, data);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long start, long end) {
      return delegate.get(key, start, end);
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String listed) {
      if (!listed.equals(prefix) || listings.incrementAndGet() != nth) {
        return delegate.list(listed);
      }
      return hook.get().handle((ignored, error) -> null).thenCompose(x -> delegate.list(listed));
    }

    @Override
    public CompletableFuture<Void> delete(List<String> keys) {
      return delegate.delete(keys);
    }

    @Override
    public void close() {}
  }
}
