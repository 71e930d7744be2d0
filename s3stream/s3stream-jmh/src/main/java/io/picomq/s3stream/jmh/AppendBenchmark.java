package io.picomq.s3stream.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.AdaptiveByteBufAllocator;
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
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ObjectWal;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WalNode;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * commit) of a real engine: an {@link ObjectWal} and data objects on the memory store, on {@code
 * file://} or on S3 (a real S3Proxy on loopback), with a trivial in-process metadata plane.
 *
 * <ul>
 *   <li>{@link #pipelined}: throughput of 1 KiB appends with {@code inFlight} appends outstanding
 *       over 16 streams; one operation is one acknowledged append (ops/s = records/s). Each
 *       iteration also prints p50/p99 of the acknowledgement latency and the process CPU time per
 *       append (all threads, JIT and GC included), which a busy machine disturbs less than the
 *       rate. With N appends in flight the rate cannot pass {@code N * 1000 / batchInterval_ms}:
 *       each group-commit window acknowledges at most the N records in flight ({@code
 *       walBatchIntervalMicros} overrides the backend's window).
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

  @Param({"memory", "file", "s3"})
  String backend;

  @Param({"256", "1024"})
  int inFlight;

  /**
   * The engine's buffer allocator: Netty's {@code pooled} one (what S3Stream uses) or {@code
   * adaptive}.
   */
  @Param({"pooled"})
  String allocator;

  /** The WAL's group-commit window in microseconds; empty: the backend's default. */
  @Param({""})
  String walBatchIntervalMicros;

  private ExecutorService executor;
  private ObjectStore store;
  private BenchStores.Opened opened;
  private Engine engine;
  private final long[] latencies = new long[1 << 21];
  private final AtomicInteger latencyCount = new AtomicInteger();
  private final List<Stream> streams = new ArrayList<>();
  private final Deque<CompletableFuture<AppendOutcome>> window = new ArrayDeque<>();
  private ByteBuf payload;
  private int next;
  private long appendsAtIterationStart;
  private long cpuNanosAtIterationStart;

  @Setup(Level.Trial)
  public void start() throws Exception {
    executor = Executors.newFixedThreadPool(4);
    opened = BenchStores.open(backend);
    ObjectStorageUri.Scheme scheme = opened.scheme();
    store = opened.store();
    ObjectStore walStore = store;
    // On memory the data objects are built and dropped, so a long run does not fill the heap.
    ObjectStore dataStore = backend.equals("memory") ? new DroppingStore() : store;
    EngineConfig config = EngineConfig.builder().nodeId(1).nodeEpoch(1).build();
    Scheduler scheduler = Scheduler.system();
    ObjectWal wal =
        new ObjectWal(walStore, WalNode.of("bench", 1, 1), walConfig(scheme), scheduler, executor);
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
                allocator.equals("adaptive")
                    ? new AdaptiveByteBufAllocator()
                    : PooledByteBufAllocator.DEFAULT,
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
    opened.close();
    payload.release();
  }

  @Setup(Level.Iteration)
  public void startIteration() {
    appendsAtIterationStart = next;
    cpuNanosAtIterationStart = ProcessCpu.nanos();
    latencyCount.set(0);
  }

  /**
   * Prints the process CPU time per append of the iteration: what the write path costs, whatever
   * bounds the rate (the window of appends in flight, or other processes on a shared machine).
   */
  @TearDown(Level.Iteration)
  public void reportIteration() {
    long appends = next - appendsAtIterationStart;
    int n = Math.min(latencyCount.get(), latencies.length);
    if (appends > 0 && n > 0) {
      long[] sorted = Arrays.copyOf(latencies, n);
      Arrays.sort(sorted);
      System.out.printf(
          Locale.ROOT,
          "%n  [%s, %d in flight] ack latency p50 %.3f ms, p99 %.3f ms;"
              + " process CPU %.2f us per append%n",
          backend,
          inFlight,
          sorted[n / 2] / 1e6,
          sorted[(int) (n * 0.99)] / 1e6,
          (ProcessCpu.nanos() - cpuNanosAtIterationStart) / 1e3 / appends);
    }
  }

  private WalConfig walConfig(ObjectStorageUri.Scheme scheme) {
    WalConfig.Builder builder = WalConfig.builder(scheme);
    if (!walBatchIntervalMicros.isEmpty()) {
      builder.batchInterval(Duration.ofNanos(Long.parseLong(walBatchIntervalMicros) * 1000));
    }
    return builder.build();
  }

  /** One acknowledged 1 KiB append, with {@code inFlight} outstanding. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public Object pipelined() throws Exception {
    Stream stream = streams.get(next++ & (STREAMS - 1));
    long startNanos = System.nanoTime();
    CompletableFuture<AppendOutcome> appended = stream.append(1, payload);
    appended.whenComplete(
        (outcome, error) -> {
          int slot = latencyCount.getAndIncrement();
          if (slot < latencies.length) {
            latencies[slot] = System.nanoTime() - startNanos;
          }
        });
    window.addLast(appended);
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
    next++;
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
