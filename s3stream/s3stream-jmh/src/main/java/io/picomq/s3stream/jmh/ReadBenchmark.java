package io.picomq.s3stream.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamOffsetRange;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.core.blockcache.BlockCache;
import io.picomq.s3stream.core.blockcache.BlockCacheConfig;
import io.picomq.s3stream.core.read.ReadBatches;
import io.picomq.s3stream.core.read.StorageReader;
import io.picomq.s3stream.core.read.StorageReaderConfig;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.WrittenObject;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
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
 * Cold replay of one large stream through the block cache, against the raw sequential GET rate of
 * the same store in the same run.
 *
 * <p>Setup writes a stream of {@code streamMiB} MiB of {@code batchBytes}-byte batches into stream
 * objects of {@code objectMiB} MiB (1 MiB blocks), as uploads would. {@code coldReplay} then reads
 * the whole stream from offset 0 with a fresh (cold) block cache of the default 100 MiB and the
 * default readahead, one read of 1 MiB at a time, as a consumer catching up would; {@code
 * rawSequentialGets} GETs the same objects front to back in {@code rawGetMiB} MiB ranges, one at a
 * time, and only releases the bytes. Each op is one whole pass: MiB/s = streamMiB / (ms/op / 1000).
 * Goal: replay at least half of raw.
 *
 * <p>Run: {@code java -jar s3stream/s3stream-jmh/target/benchmarks.jar ReadBenchmark} (add {@code
 * -p streamMiB=1024} for the 1 GiB replay; the file:// store lives under {@code java.io.tmpdir}).
 * JMH runs the two methods in separate forks, minutes apart; on a shared machine whose load moves,
 * that skews their ratio. {@link #main} instead alternates one raw pass and one replay in one JVM
 * and prints the medians: {@code java -cp s3stream/s3stream-jmh/target/benchmarks.jar
 * io.picomq.s3stream.jmh.ReadBenchmark [passes=15] [streamMiB=256] [backends=memory,file,s3]}
 * ({@code s3} is a real S3Proxy on loopback, holding the objects in memory).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx3g"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class ReadBenchmark {

  private static final long STREAM_ID = 42;
  private static final int MAX_READ_BYTES = 1 << 20;
  private static final ObjectNamespace NAMESPACE = ObjectNamespace.DEFAULT;

  @Param({"memory", "file", "s3"})
  public String backend;

  @Param({"256"})
  public int streamMiB;

  @Param({"64"})
  public int objectMiB;

  @Param({"4096"})
  public int batchBytes;

  @Param({"1"})
  public int rawGetMiB;

  @Param({"8"})
  public int maxGetMiB;

  private final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
  private ObjectStore store;
  private BenchStores.Opened opened;
  private final List<ObjectMetadata> objects = new ArrayList<>();
  private long endOffset;

  @Setup(Level.Trial)
  public void writeStream() throws IOException {
    opened = BenchStores.open(backend);
    store = opened.store();
    ByteBuf payload = allocator.buffer(batchBytes);
    for (int i = 0; i < batchBytes; i++) {
      payload.writeByte(i * 31 + 7);
    }
    long batchesPerObject = ((long) objectMiB << 20) / (batchBytes + 33);
    long totalBatches = ((long) streamMiB << 20) / (batchBytes + 33);
    long objectId = 1;
    for (long written = 0; written < totalBatches; objectId++) {
      ObjectWriter writer = new ObjectWriter(1 << 20, allocator);
      long startOffset = endOffset;
      for (long i = 0; i < batchesPerObject && written < totalBatches; i++, written++) {
        RecordBatch batch = new RecordBatch(STREAM_ID, 1, endOffset, 1, payload);
        writer.append(RecordBatchCodec.encode(batch, allocator));
        endOffset++;
      }
      WrittenObject object = writer.upload(store, NAMESPACE, objectId).join();
      objects.add(
          new ObjectMetadata(
              objectId,
              ObjectMetadata.ObjectType.STREAM,
              object.sizeBytes(),
              List.of(new StreamOffsetRange(STREAM_ID, startOffset, endOffset)),
              object.attributes().value()));
    }
    payload.release();
  }

  @TearDown(Level.Trial)
  public void deleteStream() {
    opened.close();
  }

  /** Replays the stream through a cold cache; returns the payload bytes read. */
  @Benchmark
  public long coldReplay() {
    try (BlockCache cache =
        new BlockCache(
            store,
            BlockCacheConfig.builder().maxGetBytes(maxGetMiB << 20).build(),
            Clock.systemUTC(),
            allocator,
            new SimpleMeterRegistry())) {
      StorageReader reader =
          new StorageReader(
              new ListCatalog(objects),
              NAMESPACE,
              cache,
              StorageReaderConfig.DEFAULT,
              ForkJoinPool.commonPool());
      long bytes = 0;
      long next = 0;
      while (next < endOffset) {
        try (ReadBatches batches =
            reader.read(STREAM_ID, next, endOffset, MAX_READ_BYTES, false).join()) {
          bytes += batches.payloadBytes();
          next = batches.nextOffset();
        }
      }
      return bytes;
    }
  }

  /** GETs every object front to back in large ranges, one GET at a time; returns the bytes. */
  @Benchmark
  public long rawSequentialGets() {
    long rangeBytes = (long) rawGetMiB << 20;
    long bytes = 0;
    for (ObjectMetadata object : objects) {
      String key = NAMESPACE.key(object.objectId());
      for (long at = 0; at < object.sizeBytes(); at += rangeBytes) {
        ByteBuf got = store.get(key, at, Math.min(object.sizeBytes(), at + rangeBytes)).join();
        bytes += got.readableBytes();
        got.release();
      }
    }
    return bytes;
  }

  /** Alternates raw passes and cold replays in this JVM; prints median MiB/s and their ratio. */
  public static void main(String[] args) throws IOException {
    int passes = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int mib = args.length > 1 ? Integer.parseInt(args[1]) : 256;
    String backends = args.length > 2 ? args[2] : "memory,file";
    for (String backend : backends.split(",")) {
      ReadBenchmark run = new ReadBenchmark();
      run.backend = backend;
      run.streamMiB = mib;
      run.objectMiB = 64;
      run.batchBytes = 4096;
      run.rawGetMiB = 1;
      run.maxGetMiB = 8;
      run.writeStream();
      double[] raw = new double[passes];
      double[] replay = new double[passes];
      int warmup = 3;
      for (int i = -warmup; i < passes; i++) {
        long t0 = System.nanoTime();
        run.rawSequentialGets();
        long t1 = System.nanoTime();
        run.coldReplay();
        long t2 = System.nanoTime();
        if (i >= 0) {
          raw[i] = mib / ((t1 - t0) / 1e9);
          replay[i] = mib / ((t2 - t1) / 1e9);
        }
      }
      run.deleteStream();
      Arrays.sort(raw);
      Arrays.sort(replay);
      System.out.printf(
          Locale.ROOT,
          "%s, %d MiB, %d alternating passes: raw GETs median %.0f MiB/s, cold replay median %.0f"
              + " MiB/s, replay/raw %.2f%n",
          backend,
          mib,
          passes,
          raw[passes / 2],
          replay[passes / 2],
          replay[passes / 2] / raw[passes / 2]);
    }
    System.exit(0); // S3Proxy's threads are not daemons
  }

  /** The catalog of the benchmark's stream: the objects written at setup. */
  private record ListCatalog(List<ObjectMetadata> objects) implements ObjectManager {

    @Override
    public CompletableFuture<List<ObjectMetadata>> getObjects(
        long streamId, long startOffset, long endOffset, int limit) {
      long end = endOffset == -1 ? Long.MAX_VALUE : endOffset;
      return CompletableFuture.completedFuture(
          objects.stream()
              .filter(
                  o -> {
                    StreamOffsetRange r = o.ranges().get(0);
                    return r.streamId() == streamId
                        && r.endOffset() > startOffset
                        && r.startOffset() < end;
                  })
              .limit(limit)
              .toList());
    }

    @Override
    public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
      throw new UnsupportedOperationException("read-only catalog");
    }

    @Override
    public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
      throw new UnsupportedOperationException("read-only catalog");
    }

    @Override
    public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
      throw new UnsupportedOperationException("read-only catalog");
    }
  }
}
