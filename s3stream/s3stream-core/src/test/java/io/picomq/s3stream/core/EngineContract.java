package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.FastReadMissException;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.core.blockcache.CountingObjectStore;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.StreamReads;
import io.picomq.s3stream.core.testing.StreamReads.ReadBatch;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.ObjectInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every engine promises its host, whatever WAL and object store it runs on: appends are
 * readable in order once acknowledged, survive a restart, read across the log cache and committed
 * objects, and trim, close and destroy behave. One small subclass per backend says how to open the
 * storage.
 */
public abstract class EngineContract {

  protected static final int NODE = 1;

  protected EngineStorage storage;
  protected InMemoryMetadata metadata;
  private final List<TestEngine> engines = new ArrayList<>();
  private long nextEpoch = 1;

  /** Opens fresh storage for one test; closed after it. */
  protected abstract EngineStorage openStorage() throws Exception;

  @BeforeEach
  void openEverything() throws Exception {
    storage = openStorage();
    metadata = new InMemoryMetadata();
  }

  @AfterEach
  void closeEverything() {
    for (TestEngine engine : engines) {
      try {
        engine.shutdown();
      } catch (AssertionError ignored) {
        // A test that fenced or failed an engine on purpose.
      }
    }
    storage.close();
  }

  /** Starts a new engine process of {@link #NODE} at the next epoch. */
  protected TestEngine start(UnaryOperator<EngineConfig.Builder> tune) throws Exception {
    TestEngine engine = storage.engine(metadata.register(NODE, nextEpoch++), tune);
    engines.add(engine);
    engine.engine.start().get(60, TimeUnit.SECONDS);
    return engine;
  }

  protected TestEngine start() throws Exception {
    return start(c -> c);
  }

  protected static Stream open(TestEngine engine, long streamId) throws Exception {
    return engine.engine.openStream(streamId).get(60, TimeUnit.SECONDS);
  }

  protected static ByteBuf payload(String id, int sizeBytes) {
    byte[] name = (id + "|").getBytes(StandardCharsets.ISO_8859_1);
    byte[] bytes = new byte[Math.max(sizeBytes, name.length)];
    System.arraycopy(name, 0, bytes, 0, name.length);
    for (int i = name.length; i < bytes.length; i++) {
      bytes[i] = (byte) ('a' + i % 26);
    }
    return Unpooled.wrappedBuffer(bytes);
  }

  protected static String idOf(ReadBatch batch) {
    return batch.payload().substring(0, batch.payload().indexOf('|'));
  }

  /** Appends and waits; the outcome must be {@link AppendOutcome.Appended}. */
  protected static AppendOutcome.Appended append(Stream stream, int count, String id, int size)
      throws Exception {
    ByteBuf p = payload(id, size);
    try {
      AppendOutcome outcome = stream.append(count, p).get(60, TimeUnit.SECONDS);
      assertThat(outcome).isInstanceOf(AppendOutcome.Appended.class);
      return (AppendOutcome.Appended) outcome;
    } finally {
      p.release();
    }
  }

  @Test
  void appendedBatchesReadBackInOrderWithTheirOffsets() throws Exception {
    TestEngine engine = start();
    long id = metadata.createStream();
    Stream stream = open(engine, id);
    Random random = new Random(7);
    long expectedBase = 0;
    for (int i = 0; i < 200; i++) {
      int count = 1 + random.nextInt(5);
      AppendOutcome.Appended appended = append(stream, count, "b" + i, 10 + random.nextInt(500));
      assertThat(appended.baseOffset()).isEqualTo(expectedBase);
      assertThat(appended.nextOffset()).isEqualTo(expectedBase + count);
      expectedBase += count;
    }
    assertThat(stream.confirmOffset()).isEqualTo(expectedBase);
    assertThat(stream.nextOffset()).isEqualTo(expectedBase);
    List<ReadBatch> read = StreamReads.readAll(stream, 0, expectedBase, 1 << 20);
    assertThat(read).extracting(StreamReads::readBatchId).isEqualTo(ids("b", 200));
    assertThat(read.get(read.size() - 1).nextOffset()).isEqualTo(expectedBase);
  }

  @Test
  void acknowledgedRecordsSurviveARestart() throws Exception {
    TestEngine first = start();
    List<Long> ids =
        List.of(metadata.createStream(), metadata.createStream(), metadata.createStream());
    for (long id : ids) {
      Stream stream = open(first, id);
      for (int i = 0; i < 30; i++) {
        append(stream, 2, id + "-" + i, 300);
      }
    }
    first.shutdown();
    for (long id : ids) {
      StreamMetadata after = metadata.stream(id);
      assertThat(after.endOffset()).isEqualTo(60);
      assertThat(after.state()).isEqualTo(StreamMetadata.StreamState.CLOSED);
    }
    TestEngine second = start();
    for (long id : ids) {
      Stream stream = open(second, id);
      assertThat(stream.confirmOffset()).isEqualTo(60);
      List<ReadBatch> read = StreamReads.readAll(stream, 0, 60, 1 << 20);
      assertThat(read).extracting(StreamReads::readBatchId).isEqualTo(ids(id + "-", 30));
    }
  }

  @Test
  void fetchesStitchCommittedObjectsAndTheLogCache() throws Exception {
    // A 1 MiB log cache seals 400 KiB blocks: 3 MiB appended leaves the head in objects only.
    TestEngine engine = start(c -> c.walCacheSizeBytes(1 << 20));
    long id = metadata.createStream();
    Stream stream = open(engine, id);
    appendPipelined(stream, "r", 3000, 1000, 64);
    assertThat(metadata.stream(id).endOffset()).isPositive();
    assertThat(engine.engine.logCache().sizeBytes()).isLessThanOrEqualTo(1 << 20);
    List<ReadBatch> read = StreamReads.readAll(stream, 0, 3000, 256 * 1024);
    assertThat(read).extracting(StreamReads::readBatchId).isEqualTo(ids("r", 3000));
    // One fetch spanning the boundary between objects and the cache comes back contiguous.
    long cacheStart = 3000 - engine.engine.logCache().sizeBytes() / 1100;
    long from = Math.max(0, cacheStart - 200);
    try (FetchResult across = stream.fetch(from, 3000, 8 << 20, ReadOptions.DEFAULT).get()) {
      assertThat(across.batches().get(0).baseOffset()).isEqualTo(from);
      assertThat(across.batches().get(across.batches().size() - 1).nextOffset()).isEqualTo(3000);
    }
    assertThat(
            engine.registry.get("s3stream.read.fetches").tag("source", "storage").counter().count())
        .isPositive();
  }

  @Test
  void fetchIsBoundedByTheConfirmOffsetAndTheStartOffset() throws Exception {
    TestEngine engine = start();
    long id = metadata.createStream();
    Stream stream = open(engine, id);
    for (int i = 0; i < 10; i++) {
      append(stream, 1, "x" + i, 50);
    }
    try (FetchResult all = stream.fetch(0, Long.MAX_VALUE, 1 << 20, ReadOptions.DEFAULT).get()) {
      assertThat(all.batches()).hasSize(10);
    }
    try (FetchResult none = stream.fetch(10, 20, 1 << 20, ReadOptions.DEFAULT).get()) {
      assertThat(none.batches()).isEmpty();
    }
    assertThatThrownBy(() -> stream.fetch(11, 20, 1 << 20, ReadOptions.DEFAULT).get())
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void trimMovesTheStartOffsetHereAndInTheMetadata() throws Exception {
    TestEngine engine = start();
    long id = metadata.createStream();
    Stream stream = open(engine, id);
    for (int i = 0; i < 50; i++) {
      append(stream, 1, "t" + i, 100);
    }
    stream.trim(20).get(60, TimeUnit.SECONDS);
    assertThat(stream.startOffset()).isEqualTo(20);
    assertThat(metadata.stream(id).startOffset()).isEqualTo(20);
    assertThatThrownBy(() -> stream.fetch(10, 50, 1 << 20, ReadOptions.DEFAULT).get())
        .hasCauseInstanceOf(IllegalArgumentException.class);
    List<ReadBatch> read = StreamReads.readAll(stream, 20, 50, 1 << 20);
    assertThat(read.get(0).baseOffset()).isEqualTo(20);
    assertThat(read).hasSize(30);
    assertThatThrownBy(() -> stream.trim(51).get())
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closeCommitsEverythingAndAReopenContinuesTheOffsets() throws Exception {
    TestEngine engine = start();
    long id = metadata.createStream();
    Stream first = open(engine, id);
    for (int i = 0; i < 10; i++) {
      append(first, 1, "a" + i, 80);
    }
    first.close().get(60, TimeUnit.SECONDS);
    assertThat(metadata.stream(id).endOffset()).isEqualTo(10);
    ByteBuf late = payload("late", 10);
    assertThat(first.append(1, late).get()).isInstanceOf(AppendOutcome.Closed.class);
    late.release();

    Stream second = open(engine, id);
    assertThat(second).isNotSameAs(first);
    assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
    assertThat(append(second, 5, "b0", 80).baseOffset()).isEqualTo(10);
    List<ReadBatch> read = StreamReads.readAll(second, 0, 15, 1 << 20);
    assertThat(read).extracting(StreamReads::readBatchId).endsWith("a9", "b0");
  }

  @Test
  void openingAnOpenStreamReturnsTheSameInstance() throws Exception {
    TestEngine engine = start();
    long id = metadata.createStream();
    Stream a = open(engine, id);
    Stream b = open(engine, id);
    assertThat(b).isSameAs(a);
    assertThat(metadata.stream(id).epoch()).isEqualTo(a.epoch());
  }

  @Test
  void fastReadFailsRatherThanReadObjectStorage() throws Exception {
    TestEngine first = start();
    long id = metadata.createStream();
    Stream stream = open(first, id);
    for (int i = 0; i < 20; i++) {
      append(stream, 1, "f" + i, 100);
    }
    try (FetchResult cached = stream.fetch(0, 20, 1 << 20, new ReadOptions(true)).get()) {
      assertThat(cached.batches()).hasSize(20);
      assertThat(cached.touchedStorage()).isFalse();
    }
    first.shutdown();
    // A new process holds nothing in memory: the data is in objects only.
    Stream reopened = open(start(), id);
    assertThatThrownBy(() -> reopened.fetch(0, 20, 1 << 20, new ReadOptions(true)).get())
        .hasCauseInstanceOf(FastReadMissException.class);
    try (FetchResult stored = reopened.fetch(0, 20, 1 << 20, ReadOptions.DEFAULT).get()) {
      assertThat(stored.batches()).hasSize(20);
      assertThat(stored.touchedStorage()).isTrue();
    }
  }

  @Test
  void deleteObjectsRemovesExactlyTheirKeysFromTheDataStore() throws Exception {
    TestEngine engine = start();
    for (int s = 0; s < 3; s++) {
      Stream stream = open(engine, metadata.createStream());
      append(stream, 2, "g" + s, 100);
      // Closing commits what the stream holds: at least one data object per close.
      stream.close().get(60, TimeUnit.SECONDS);
    }
    List<Long> committed = metadata.objects().stream().map(ObjectMetadata::objectId).toList();
    assertThat(committed).hasSizeGreaterThanOrEqualTo(2);
    assertThat(storedObjectIds()).containsAll(committed);

    List<Long> doomed = committed.subList(0, committed.size() - 1);
    long neverWritten = 1_000_000L;
    List<Long> request = new ArrayList<>(doomed);
    request.add(neverWritten); // absent keys are fine
    engine.engine.deleteObjects(request).get(60, TimeUnit.SECONDS);

    assertThat(storedObjectIds()).doesNotContainAnyElementsOf(doomed).contains(committed.getLast());
    // A retry after a crash between the delete and the catalog update repeats the delete.
    engine.engine.deleteObjects(request).get(60, TimeUnit.SECONDS);
    assertThat(storedObjectIds()).contains(committed.getLast());
  }

  private List<Long> storedObjectIds() throws Exception {
    ObjectNamespace namespace = new ObjectNamespace(storage.namespace);
    List<Long> ids = new ArrayList<>();
    for (ObjectInfo info : storage.dataStore.list("").get(60, TimeUnit.SECONDS)) {
      namespace.parseObjectId(info.key()).ifPresent(ids::add);
    }
    return ids;
  }

  @Test
  void destroyDeletesTheStreamAndItsObjects() throws Exception {
    TestEngine engine = start();
    long id = metadata.createStream();
    Stream stream = open(engine, id);
    append(stream, 3, "d", 100);
    stream.destroy().get(60, TimeUnit.SECONDS);
    assertThatThrownBy(() -> metadata.stream(id)).isInstanceOf(MetadataRejectedException.class);
    assertThat(metadata.objects())
        .flatExtracting(ObjectMetadata::ranges)
        .noneMatch(r -> r.streamId() == id);
  }

  @Test
  void concurrentAppendersSeeTheirAppendsAcknowledgedInOffsetOrder() throws Exception {
    TestEngine engine = start();
    int streams = 4;
    int writersPerStream = 2;
    int appendsPerWriter = 150;
    List<Stream> opened = new ArrayList<>();
    for (int s = 0; s < streams; s++) {
      opened.add(open(engine, metadata.createStream()));
    }
    List<Thread> writers = new ArrayList<>();
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    for (int w = 0; w < streams * writersPerStream; w++) {
      Stream stream = opened.get(w % streams);
      String writer = "w" + w;
      writers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      appendPipelined(stream, writer + "-", appendsPerWriter, 200, 16);
                    } catch (Throwable e) {
                      errors.add(e);
                    }
                  }));
    }
    for (Thread t : writers) {
      t.join();
    }
    assertThat(errors).isEmpty();
    int perStream = writersPerStream * appendsPerWriter;
    for (Stream stream : opened) {
      List<ReadBatch> read = StreamReads.readAll(stream, 0, perStream, 1 << 20);
      assertThat(read)
          .extracting(StreamReads::readBatchId)
          .doesNotHaveDuplicates()
          .hasSize(perStream);
      // Each writer's records appear in the order it appended them.
      for (int w = 0; w < writersPerStream; w++) {
        String prefix = "w" + (w * streams + opened.indexOf(stream)) + "-";
        List<String> mine =
            read.stream().map(StreamReads::readBatchId).filter(s -> s.startsWith(prefix)).toList();
        assertThat(mine).isEqualTo(ids(prefix, appendsPerWriter));
      }
    }
  }

  /**
   * A reader that follows the tail while a writer appends is served from the log cache: the object
   * store sees no GET at all, even though the writer moves more data than the log cache holds, so
   * blocks are uploaded, committed and evicted under the reader's feet.
   */
  @Test
  void aTailReaderCausesNoGet() throws Exception {
    CountingObjectStore counting =
        new CountingObjectStore(storage.dataStore, PooledByteBufAllocator.DEFAULT);
    TestEngine engine =
        storage.engine(
            metadata.register(NODE, nextEpoch++),
            counting,
            counting,
            c -> c.compactionIntervalMillis(0));
    engines.add(engine);
    engine.engine.start().get(60, TimeUnit.SECONDS);
    Stream followed = open(engine, metadata.createStream());
    Stream other = open(engine, metadata.createStream());
    int getsAfterStart = counting.getCount();
    int rounds = 100;
    int perRound = 32;
    int sizeBytes = 2048; // 100 rounds x 2 streams x 64 KiB: 12.5 MiB, more than the 8 MiB cache
    long next = 0;
    for (int round = 0; round < rounds; round++) {
      List<CompletableFuture<AppendOutcome>> issued = new ArrayList<>();
      List<ByteBuf> payloads = new ArrayList<>();
      for (int i = 0; i < perRound; i++) {
        ByteBuf mine = payload("t" + (round * perRound + i), sizeBytes);
        ByteBuf theirs = payload("o" + (round * perRound + i), sizeBytes);
        payloads.add(mine);
        payloads.add(theirs);
        issued.add(followed.append(1, mine));
        issued.add(other.append(1, theirs));
      }
      for (CompletableFuture<AppendOutcome> f : issued) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(AppendOutcome.Appended.class);
      }
      payloads.forEach(ByteBuf::release);
      long end = followed.confirmOffset();
      while (next < end) {
        try (FetchResult result =
            followed.fetch(next, end, 16 << 10, ReadOptions.DEFAULT).get(60, TimeUnit.SECONDS)) {
          assertThat(result.touchedStorage()).as("fetch at %d touched storage", next).isFalse();
          assertThat(result.batches()).isNotEmpty();
          for (FetchedBatch b : result.batches()) {
            assertThat(b.baseOffset()).isEqualTo(next);
            String text = b.payload().toString(StandardCharsets.ISO_8859_1);
            assertThat(text.substring(0, text.indexOf('|'))).isEqualTo("t" + next);
            next = b.nextOffset();
          }
        }
      }
    }
    assertThat(next).isEqualTo((long) rounds * perRound);
    assertThat(metadata.objects()).as("uploads committed while the reader followed").isNotEmpty();
    assertThat(counting.getCount() - getsAfterStart).as("GETs caused by the tail reader").isZero();
  }

  /**
   * Appends {@code count} one-record batches with up to {@code window} in flight, and checks that
   * each acknowledgement comes after the acknowledgements of every earlier append (which got lower
   * offsets: this thread issued them first).
   */
  protected static void appendPipelined(
      Stream stream, String prefix, int count, int sizeBytes, int window) throws Exception {
    List<CompletableFuture<AppendOutcome>> issued = new ArrayList<>();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < count; i++) {
      ByteBuf p = payload(prefix + i, sizeBytes);
      CompletableFuture<AppendOutcome> f = stream.append(1, p);
      List<CompletableFuture<AppendOutcome>> earlier = List.copyOf(issued);
      int index = i;
      f.whenComplete(
          (outcome, error) -> {
            p.release();
            if (!earlier.stream().allMatch(CompletableFuture::isDone)) {
              violations.add(prefix + index + " acknowledged before an earlier append");
            }
          });
      issued.add(f);
      if (i >= window) {
        assertThat(issued.get(i - window).get(60, TimeUnit.SECONDS))
            .isInstanceOf(AppendOutcome.Appended.class);
      }
    }
    for (CompletableFuture<AppendOutcome> f : issued) {
      assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(AppendOutcome.Appended.class);
    }
    assertThat(violations).isEmpty();
  }

  @Test
  void appendsAfterShutdownEndClosed() throws Exception {
    TestEngine engine = start();
    Stream stream = open(engine, metadata.createStream());
    append(stream, 1, "before", 10);
    engine.shutdown();
    ByteBuf p = payload("after", 10);
    try {
      assertThat(stream.append(1, p).get()).isInstanceOf(AppendOutcome.Closed.class);
    } finally {
      p.release();
    }
    assertThatThrownBy(() -> engine.engine.openStream(99).get())
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  protected static List<String> ids(String prefix, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }
}
