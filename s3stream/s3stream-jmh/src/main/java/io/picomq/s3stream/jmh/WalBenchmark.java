package io.picomq.s3stream.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ObjectWal;
import io.picomq.s3stream.wal.WalAppendResult;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WalNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The object WAL end to end: acknowledged 1 KiB appends (a 1024-byte payload in a record batch,
 * 1081 framed bytes) on the memory store, on {@code file://} and on S3 (a real S3Proxy on
 * loopback), with each store's default {@link WalConfig} (on S3: 250 ms batches).
 *
 * <ul>
 *   <li>{@code append256InFlight}: throughput with 256 appends outstanding (an append waits for a
 *       permit, its acknowledgement returns it). At the end of each iteration it prints p50/p99 of
 *       the append-to-acknowledgement latency, PUTs per million records, and the group-commit
 *       check: PUTs per second against the bound {@code 1000/batchInterval_ms +
 *       ingest_bytes_per_s/maxBytesInBatch + 1}.
 *   <li>{@code appendSequentially}: one writer, one append at a time (the token-streaming pattern):
 *       latency of append until durable.
 *   <li>{@code rawFsyncedWrite}: the directory's own sequential write rate, 1 MiB then fsync, to
 *       compare {@code file://} against (the WAL writes each byte to a temporary file, fsyncs it,
 *       renames it and fsyncs the directory).
 * </ul>
 *
 * <p>The WAL is trimmed every 8192 acknowledged records, as the storage pipeline would after
 * uploading them, so the stores stay small.
 *
 * <p>Run: {@code java -jar s3stream/s3stream-jmh/target/benchmarks.jar WalBenchmark -f 1 -wi 2 -i 3
 * -w 2s -r 3s} (add {@code -Djava.io.tmpdir=...} to measure another disk).
 */
@State(Scope.Benchmark)
public class WalBenchmark {

  private static final int IN_FLIGHT = 256;
  private static final int PAYLOAD_BYTES = 1024;
  private static final int TRIM_EVERY = 8192;

  /** A 1 KiB payload framed: 24-byte WAL record header + 33-byte batch header + 1024. */
  private static final int FRAMED_BYTES = 24 + 33 + PAYLOAD_BYTES;

  @Param({"memory", "file", "s3"})
  String store;

  private BenchStores.Opened opened;
  private ObjectStore objectStore;
  private WalConfig config;
  private long iterationStartNanos;
  private ExecutorService owner;
  private ObjectWal wal;
  private ByteBuf body;
  private final Semaphore permits = new Semaphore(IN_FLIGHT);
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicInteger overCapacity = new AtomicInteger();
  private long[] latencies = new long[1 << 20];
  private final AtomicInteger latencyCount = new AtomicInteger();
  private long putsAtIterationStart;
  private long recordsAtIterationStart;
  private long epoch;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    opened = BenchStores.open(store);
    objectStore = opened.store();
    config = WalConfig.builder(opened.scheme()).build();
    owner = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("wal-owner").factory());
    wal =
        new ObjectWal(
            objectStore, WalNode.of("bench", 1, ++epoch), config, Scheduler.system(), owner);
    wal.start().join();
    wal.recover().join().release();
    wal.reset().join();
    byte[] payload = new byte[PAYLOAD_BYTES];
    Arrays.fill(payload, (byte) 7);
    body =
        RecordBatchCodec.encode(
            new RecordBatch(1, 1, 0, 1, Unpooled.wrappedBuffer(payload)),
            PooledByteBufAllocator.DEFAULT);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    permits.acquireUninterruptibly(IN_FLIGHT);
    wal.shutdownGracefully().join();
    owner.shutdown();
    opened.close();
    body.release();
  }

  @Setup(Level.Iteration)
  public void startIteration() {
    latencyCount.set(0);
    putsAtIterationStart = wal.putCount();
    recordsAtIterationStart = acknowledged.get();
    iterationStartNanos = System.nanoTime();
  }

  @TearDown(Level.Iteration)
  public void reportIteration() {
    permits.acquireUninterruptibly(IN_FLIGHT);
    permits.release(IN_FLIGHT);
    int n = Math.min(latencyCount.get(), latencies.length);
    long records = acknowledged.get() - recordsAtIterationStart;
    if (n == 0 || records == 0) {
      return;
    }
    long[] sorted = Arrays.copyOf(latencies, n);
    Arrays.sort(sorted);
    double seconds = (System.nanoTime() - iterationStartNanos) / 1e9;
    long puts = wal.putCount() - putsAtIterationStart;
    double putsPerSecond = puts / seconds;
    double ingestBytesPerSecond = records * (double) FRAMED_BYTES / seconds;
    // The group-commit bound: timer seals at most every batchInterval, size seals per full batch.
    double bound =
        1e9 / Math.max(1, config.batchInterval().toNanos())
            + ingestBytesPerSecond / config.maxBytesInBatch()
            + 1;
    System.out.printf(
        Locale.ROOT,
        "%n  [%s] ack latency p50 %.3f ms, p99 %.3f ms; %.0f PUTs per million records;"
            + " %.1f PUTs/s (bound %.1f with batchInterval %d ms, %.1f MB/s ingest: %s);"
            + " %d over-capacity refusals%n",
        store,
        sorted[n / 2] / 1e6,
        sorted[(int) (n * 0.99)] / 1e6,
        puts * 1e6 / records,
        putsPerSecond,
        bound,
        config.batchInterval().toMillis(),
        ingestBytesPerSecond / 1e6,
        putsPerSecond <= bound ? "within" : "ABOVE",
        overCapacity.getAndSet(0));
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public void append256InFlight() throws InterruptedException {
    permits.acquire();
    long startNanos = System.nanoTime();
    WalAppendResult result = wal.append(body);
    if (result instanceof WalAppendResult.Accepted accepted) {
      accepted
          .durable()
          .whenComplete(
              (ignored, error) -> {
                int slot = latencyCount.getAndIncrement();
                if (slot < latencies.length) {
                  latencies[slot] = System.nanoTime() - startNanos;
                }
                acknowledged(accepted.offset());
                permits.release();
              });
    } else {
      overCapacity.incrementAndGet();
      permits.release();
      Thread.onSpinWait();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public void appendSequentially() {
    WalAppendResult.Accepted accepted = (WalAppendResult.Accepted) wal.append(body);
    accepted.durable().join();
    acknowledged(accepted.offset());
  }

  /** The directory's raw rate: 1 MiB appended to a file, then fsync; ops/s = MiB/s. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public void rawFsyncedWrite(RawDisk disk) throws IOException {
    disk.writeAndSync();
  }

  private void acknowledged(long offset) {
    if (acknowledged.incrementAndGet() % TRIM_EVERY == 0) {
      wal.trim(offset);
    }
  }

  /** A file in the temporary directory that grows by 1 MiB per operation, wrapping at 1 GiB. */
  @State(Scope.Thread)
  public static class RawDisk {
    private Path file;
    private FileChannel channel;
    private final ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);

    @Setup(Level.Trial)
    public void open() throws IOException {
      file = Files.createTempFile("raw-fsync", ".bin");
      channel = FileChannel.open(file, StandardOpenOption.WRITE);
    }

    void writeAndSync() throws IOException {
      if (channel.position() >= 1L << 30) {
        channel.position(0);
      }
      chunk.clear();
      while (chunk.hasRemaining()) {
        channel.write(chunk);
      }
      channel.force(false);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      channel.close();
      Files.deleteIfExists(file);
    }
  }
}
