package io.picomq.s3stream.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.AppendOutcome;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.core.Engine;
import io.picomq.s3stream.core.EngineResources;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.Scheduler;
import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.objectstore.uri.ObjectStores;
import io.picomq.s3stream.wal.ObjectWal;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WalNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Acknowledged appends through the whole write path (encode, WAL, log cache, confirmation, upload,
 * commit) of a real engine: an {@link ObjectWal} and data objects on the memory store or on {@code
 * file://}, with a trivial in-process metadata plane.
 *
 * <ul>
 *   <li>{@link #pipelined}: throughput of 1 KiB appends with {@code inFlight} appends outstanding
 *       over 16 streams; one operation is one acknowledged append (ops/s = records/s).
 *   <li>{@link #sequential}: one writer, one append at a time (the token-streaming pattern); sample
 *       mode reports p50 and p99 of the acknowledgement latency.
 * </ul>
 *
 * <p>On the memory backend the data objects are counted and dropped rather than kept, so a long run
 * does not fill the heap; the WAL objects are real (and deleted by trims as usual).
 *
 * <p>Run: {@code java -jar s3stream/s3stream-jmh/target/benchmarks.jar AppendBenchmark -f 1 -wi 2
 * -i 3 -w 3s -r 5s}. Figures and where the time goes: {@code s3stream/specification/pipeline.md}.
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
public class AppendBenchmark {

  private static final int STREAMS = 16;
  private static final int RECORD_BYTES = 1024;

  @Param({"memory", "file"})
  String backend;

  @Param({"256"})
  int inFlight;

  private ExecutorService executor;
  private ObjectStore store;
  private Path directory;
  private Engine engine;
  private final List<Stream> streams = new ArrayList<>();
  private final Deque<CompletableFuture<AppendOutcome>> window = new ArrayDeque<>();
  private ByteBuf payload;
  private int next;

  @Setup(Level.Trial)
  public void start() throws Exception {
    executor = Executors.newFixedThreadPool(4);
    ObjectStorageUri.Scheme scheme;
    ObjectStore walStore;
    ObjectStore dataStore;
    if (backend.equals("memory")) {
      scheme = ObjectStorageUri.Scheme.MEMORY;
      store = new MemoryObjectStore();
      walStore = store;
      dataStore = new DroppingStore();
    } else {
      scheme = ObjectStorageUri.Scheme.FILE;
      directory = Files.createTempDirectory("append-benchmark");
      store = ObjectStores.open(ObjectStorageUri.parse("0@file://" + directory));
      walStore = store;
      dataStore = store;
    }
    EngineConfig config = EngineConfig.builder().nodeId(1).nodeEpoch(1).build();
    Scheduler scheduler = Scheduler.system();
    ObjectWal wal =
        new ObjectWal(
            walStore,
            WalNode.of("bench", 1, 1),
            WalConfig.builder(scheme).build(),
            scheduler,
            executor);
    Metadata metadata = new Metadata();
    engine =
        new Engine(
            config,
            wal,
            dataStore,
            metadata,
            metadata,
            new EngineResources(
                executor,
                scheduler,
                Clock.systemUTC(),
                PooledByteBufAllocator.DEFAULT,
                new SimpleMeterRegistry()));
    engine.start().get(30, TimeUnit.SECONDS);
    for (int i = 0; i < STREAMS; i++) {
      streams.add(engine.openStream(i).get(30, TimeUnit.SECONDS));
    }
    payload = Unpooled.directBuffer(RECORD_BYTES).writeZero(RECORD_BYTES);
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    for (CompletableFuture<AppendOutcome> f : window) {
      f.get(30, TimeUnit.SECONDS);
    }
    engine.shutdown().get(60, TimeUnit.SECONDS);
    executor.shutdown();
    store.close();
    payload.release();
    if (directory != null) {
      try (java.util.stream.Stream<Path> files = Files.walk(directory)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        // best effort
      }
    }
  }

  /** One acknowledged 1 KiB append, with {@code inFlight} outstanding. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public Object pipelined() throws Exception {
    Stream stream = streams.get(next++ & (STREAMS - 1));
    window.addLast(stream.append(1, payload));
    if (window.size() < inFlight) {
      return null;
    }
    AppendOutcome outcome = window.pollFirst().get(30, TimeUnit.SECONDS);
    if (!(outcome instanceof AppendOutcome.Appended)) {
      throw new IllegalStateException("append ended " + outcome);
    }
    return outcome;
  }

  /** One 1 KiB append, awaited before the next. */
  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object sequential() throws Exception {
    AppendOutcome outcome = streams.get(0).append(1, payload).get(30, TimeUnit.SECONDS);
    if (!(outcome instanceof AppendOutcome.Appended)) {
      throw new IllegalStateException("append ended " + outcome);
    }
    return outcome;
  }

  /** Accepts every request: the benchmark measures the engine, not a metadata plane. */
  private static final class Metadata implements StreamManager, ObjectManager {
    private final AtomicLong nextObjectId = new AtomicLong();
    private final ConcurrentHashMap<Long, Long> epochs = new ConcurrentHashMap<>();

    @Override
    public CompletableFuture<List<StreamMetadata>> openingStreams() {
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletableFuture<StreamMetadata> openStream(long streamId) {
      long epoch = epochs.merge(streamId, 0L, (a, b) -> a + 1);
      return CompletableFuture.completedFuture(
          new StreamMetadata(streamId, epoch, 0, 0, StreamMetadata.StreamState.OPENED, 1));
    }

    @Override
    public CompletableFuture<Void> trimStream(long streamId, long epoch, long newStartOffset) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> closeStream(long streamId, long epoch) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> deleteStream(long streamId, long epoch) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
      return CompletableFuture.completedFuture(nextObjectId.getAndAdd(count));
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getObjects(
        long streamId, long startOffset, long endOffset, int limit) {
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
      return CompletableFuture.completedFuture(List.of());
    }
  }

  /**
   * A data store that accepts objects and forgets them (their bytes were built and handed over).
   */
  private static final class DroppingStore implements ObjectStore {
    @Override
    public CompletableFuture<Void> put(String key, ByteBuf data) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<ByteBuf> get(String key, long start, long end) {
      return CompletableFuture.failedFuture(new UnsupportedOperationException("dropped"));
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletableFuture<Void> delete(List<String> keys) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {}
  }
}
