package io.picomq.s3stream.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.ForwardingObjectManager;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.StreamReads;
import io.picomq.s3stream.core.testing.StreamReads.ReadBatch;
import io.picomq.s3stream.core.testing.TestEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Compaction scheduled by the engine: many small uploads become few objects while appends go on,
 * and every record still reads back identically, in order, from the engine that compacted and from
 * a fresh one that can only read the objects. One small subclass per backend.
 */
public abstract class EngineCompactionContract {

  private static final int NODE = 1;
  private static final int STREAMS = 3;

  private EngineStorage storage;
  private InMemoryMetadata metadata;
  private final List<TestEngine> engines = new ArrayList<>();
  private final List<Long> streamIds = new ArrayList<>();
  private long nextEpoch = 1;

  protected abstract EngineStorage openStorage() throws Exception;

  @BeforeEach
  void openEverything() throws Exception {
    storage = openStorage();
    metadata = new InMemoryMetadata();
  }

  @AfterEach
  void closeEverything() {
    for (TestEngine engine : engines) {
      engine.shutdown(); // idempotent once shut down
    }
    storage.close();
  }

  /** Small blocks (32 KiB) committed every 20 ms, compaction every 20 ms. */
  private static EngineConfig.Builder smallUploads(EngineConfig.Builder c) {
    return c.walCacheSizeBytes(1L << 20)
        .walUploadThresholdBytes(32 * 1024)
        .walUploadIntervalMillis(20)
        .compactionIntervalMillis(20)
        .compactionMaxObjectSizeBytes(1L << 20);
  }

  @Test
  void smallStreamSetObjectsCompactIntoOneAndReadBackIdentically() throws Exception {
    TestEngine engine = start(EngineCompactionContract::smallUploads);
    List<Stream> streams = openStreams(engine);
    List<List<String>> expected = emptyLists();

    appendRoundRobin(streams, expected, 0, 300);
    await(() -> compactedIn(engine) > 0, "a first compaction");
    // Appends go on while compaction keeps running.
    appendRoundRobin(streams, expected, 300, 600);
    awaitCommitted(streams);
    await(() -> metadata.objects().size() == 1, "one stream-set object left");

    assertThat(uploadCommits()).isGreaterThan(10);
    assertThat(metadata.objects()).allMatch(o -> o.type() == ObjectMetadata.ObjectType.STREAM_SET);
    assertThat(engine.engine.metrics().compactionObjectsOut.count()).isPositive();
    assertThat(engine.engine.metrics().compactionObjectsIn.count())
        .isGreaterThan(engine.engine.metrics().compactionObjectsOut.count());
    assertReadBack(streams, expected);
    assertReadBackOnAFreshEngine(engine, expected);
  }

  @Test
  void smallStreamObjectsMergeAndReadBackIdentically() throws Exception {
    // A split size of one byte gives every stream of every upload a stream object of its own.
    TestEngine engine = start(c -> smallUploads(c).streamSplitSizeBytes(1));
    List<Stream> streams = openStreams(engine);
    List<List<String>> expected = emptyLists();

    appendRoundRobin(streams, expected, 0, 200);
    await(() -> compactedIn(engine) > 0, "a first merge");
    appendRoundRobin(streams, expected, 200, 400);
    awaitCommitted(streams);
    // Each stream holds well under the 1 MiB merge limit: one stream object each.
    await(() -> metadata.objects().size() == STREAMS, "one stream object per stream");

    assertThat(uploadCommits()).isGreaterThan(10);
    assertThat(metadata.objects()).allMatch(o -> o.type() == ObjectMetadata.ObjectType.STREAM);
    assertReadBack(streams, expected);
    assertReadBackOnAFreshEngine(engine, expected);
  }

  @Test
  void shutdownDuringACompactionWaitsForItAndCompletesCleanly() throws Exception {
    HeldCompactionCommit held = new HeldCompactionCommit();
    InMemoryMetadata.Node node = metadata.register(NODE, nextEpoch++);
    TestEngine engine =
        storage.engine(
            NODE,
            node.nodeEpoch(),
            node,
            held.around(node),
            storage.dataStore,
            storage.dataStore,
            EngineCompactionContract::smallUploads);
    engines.add(engine);
    engine.engine.start().get(60, TimeUnit.SECONDS);
    List<Stream> streams = openStreams(engine);
    List<List<String>> expected = emptyLists();
    appendRoundRobin(streams, expected, 0, 200);

    held.reached.get(60, TimeUnit.SECONDS);
    CompletableFuture<Void> shutdown = engine.engine.shutdown();
    // The compaction's commit is still held: shutdown must not report done underneath it.
    Awaitility.await("shutdown waiting for the held compaction commit")
        .during(Duration.ofMillis(100))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !shutdown.isDone());
    held.release.complete(null);
    shutdown.get(60, TimeUnit.SECONDS);

    assertThat(metadata.commits()).anyMatch(c -> !c.compactedObjectIds().isEmpty());
    assertThat((long) metadata.objects().size()).isLessThan(uploadCommits());
    assertReadBackOnAFreshEngine(engine, expected);
  }

  // ---- helpers

  private TestEngine start(UnaryOperator<EngineConfig.Builder> tune) throws Exception {
    TestEngine engine = storage.engine(metadata.register(NODE, nextEpoch++), tune);
    engines.add(engine);
    engine.engine.start().get(60, TimeUnit.SECONDS);
    return engine;
  }

  private List<Stream> openStreams(TestEngine engine) throws Exception {
    List<Stream> streams = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      long streamId = metadata.createStream();
      streamIds.add(streamId);
      streams.add(engine.engine.openStream(streamId).get(60, TimeUnit.SECONDS));
    }
    return streams;
  }

  private static List<List<String>> emptyLists() {
    List<List<String>> lists = new ArrayList<>();
    for (int i = 0; i < STREAMS; i++) {
      lists.add(new ArrayList<>());
    }
    return lists;
  }

  /**
   * Appends batches {@code from..to} round robin over the streams, 30 in flight at a time, each of
   * one to three records and 1-3 KiB; records each batch's id in {@code expected}.
   */
  private static void appendRoundRobin(
      List<Stream> streams, List<List<String>> expected, int from, int to) throws Exception {
    Random random = new Random(from);
    List<CompletableFuture<AppendOutcome>> inFlight = new ArrayList<>();
    for (int i = from; i < to; i++) {
      int s = i % streams.size();
      String id = "s" + s + "-b" + i;
      ByteBuf payload = payload(id, 1024 + random.nextInt(2048));
      CompletableFuture<AppendOutcome> outcome =
          streams.get(s).append(1 + random.nextInt(3), payload);
      outcome.whenComplete((ignored, error) -> payload.release());
      inFlight.add(outcome);
      expected.get(s).add(id);
      if (inFlight.size() == 30 || i == to - 1) {
        for (CompletableFuture<AppendOutcome> f : inFlight) {
          assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(AppendOutcome.Appended.class);
        }
        inFlight.clear();
      }
    }
  }

  private static ByteBuf payload(String id, int sizeBytes) {
    byte[] name = (id + "|").getBytes(StandardCharsets.ISO_8859_1);
    byte[] bytes = new byte[Math.max(sizeBytes, name.length)];
    System.arraycopy(name, 0, bytes, 0, name.length);
    for (int i = name.length; i < bytes.length; i++) {
      bytes[i] = (byte) ('a' + (i + id.length()) % 26);
    }
    return Unpooled.wrappedBuffer(bytes);
  }

  private void awaitCommitted(List<Stream> streams) throws Exception {
    await(
        () ->
            streams.stream()
                .allMatch(s -> metadata.stream(s.streamId()).endOffset() == s.nextOffset()),
        "everything committed");
  }

  private static double compactedIn(TestEngine engine) {
    return engine.engine.metrics().compactionObjectsIn.count();
  }

  /** Commits of new data (uploads), as opposed to compactions. */
  private long uploadCommits() {
    return metadata.commits().stream().filter(c -> c.compactedObjectIds().isEmpty()).count();
  }

  private static void assertReadBack(List<Stream> streams, List<List<String>> expected)
      throws Exception {
    for (int i = 0; i < streams.size(); i++) {
      Stream stream = streams.get(i);
      List<ReadBatch> read = StreamReads.readAll(stream, 0, stream.nextOffset(), 64 * 1024);
      assertBatches(read, expected.get(i), stream.nextOffset());
    }
  }

  /** Shuts {@code old} down, starts an engine without compaction and reads everything from it. */
  private void assertReadBackOnAFreshEngine(TestEngine old, List<List<String>> expected)
      throws Exception {
    List<Long> streamIds = List.copyOf(this.streamIds);
    old.shutdown();
    TestEngine fresh = start(c -> c.compactionIntervalMillis(0));
    List<ObjectMetadata> before = metadata.objects();
    for (int i = 0; i < STREAMS; i++) {
      Stream stream = fresh.engine.openStream(streamIds.get(i)).get(60, TimeUnit.SECONDS);
      List<ReadBatch> read = StreamReads.readAll(stream, 0, stream.nextOffset(), 64 * 1024);
      assertBatches(read, expected.get(i), stream.nextOffset());
    }
    assertThat(metadata.objects()).isEqualTo(before);
  }

  /** The batches are the expected ones, in order, gap-free from 0 to {@code end}. */
  private static void assertBatches(List<ReadBatch> read, List<String> expectedIds, long end) {
    assertThat(read).extracting(StreamReads::readBatchId).isEqualTo(expectedIds);
    long next = 0;
    for (ReadBatch batch : read) {
      assertThat(batch.baseOffset()).isEqualTo(next);
      String id = StreamReads.readBatchId(batch);
      ByteBuf original = payload(id, batch.payload().length());
      try {
        assertThat(batch.payload()).isEqualTo(original.toString(StandardCharsets.ISO_8859_1));
      } finally {
        original.release();
      }
      next = batch.nextOffset();
    }
    assertThat(next).isEqualTo(end);
  }

  private static void await(BooleanSupplier condition, String what) {
    Awaitility.await(what)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .until(condition::getAsBoolean);
  }

  /** Holds the first compaction commit (one naming replaced objects) until released. */
  private static final class HeldCompactionCommit {
    final CompletableFuture<Void> reached = new CompletableFuture<>();
    final CompletableFuture<Void> release = new CompletableFuture<>();
    private final AtomicBoolean taken = new AtomicBoolean();

    ObjectManager around(ObjectManager delegate) {
      return new ForwardingObjectManager(delegate) {
        @Override
        public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
          if (!request.compactedObjectIds().isEmpty() && taken.compareAndSet(false, true)) {
            reached.complete(null);
            return release.thenCompose(ignored -> delegate.commitStreamSetObject(request));
          }
          return delegate.commitStreamSetObject(request);
        }
      };
    }
  }
}
