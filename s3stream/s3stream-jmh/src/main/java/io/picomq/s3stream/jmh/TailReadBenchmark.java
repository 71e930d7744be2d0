package io.picomq.s3stream.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.blockcache.CountingObjectStore;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.TestEngine;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * "A tail reader causes zero GETs": one writer appends 1 KiB records ({@value #IN_FLIGHT} in
 * flight) while one reader follows the tail of the same stream (fetching from its next offset up to
 * the confirm offset, 1 MiB at a time); every GET the engine sends to the object store (WAL and
 * data, after start-up) is counted. Prints records read per second, GETs per million records read
 * and how many fetches touched storage. Default engine settings (200 MiB log cache), compaction
 * off.
 *
 * <p>Run: {@code java -cp s3stream/s3stream-jmh/target/benchmarks.jar
 * io.picomq.s3stream.jmh.TailReadBenchmark [records=1000000] [backends=memory,file,s3]}. The
 * engine's test {@code EngineContract.aTailReaderCausesNoGet} asserts the same property.
 */
public final class TailReadBenchmark {

  private static final int IN_FLIGHT = 256;
  private static final int RECORD_BYTES = 1024;

  private TailReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    long records = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    String backends = args.length > 1 ? args[1] : "memory,file,s3";
    for (String backend : backends.split(",")) {
      run(backend, records);
    }
    System.exit(0); // S3Proxy's threads are not daemons
  }

  private static void run(String backend, long records) throws Exception {
    try (EngineRuns.Storage storage = EngineRuns.open(backend)) {
      CountingObjectStore counting =
          new CountingObjectStore(storage.storage().dataStore, PooledByteBufAllocator.DEFAULT);
      InMemoryMetadata metadata = new InMemoryMetadata();
      TestEngine engine =
          storage
              .storage()
              .engine(
                  metadata.register(1, 1),
                  counting,
                  counting,
                  c ->
                      c.walCacheSizeBytes(200L << 20)
                          .blockCacheSizeBytes(100L << 20)
                          .compactionIntervalMillis(0));
      engine.engine.start().get(60, TimeUnit.SECONDS);
      Stream stream = engine.engine.openStream(metadata.createStream()).get(60, TimeUnit.SECONDS);
      int getsAtStart = counting.getCount();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread writer =
          Thread.ofPlatform().name("tail-writer").start(() -> write(stream, records, failure));
      long started = System.nanoTime();
      long next = 0;
      long fetches = 0;
      long touched = 0;
      while (next < records && failure.get() == null) {
        long end = stream.confirmOffset();
        if (end <= next) {
          LockSupport.parkNanos(20_000);
          continue;
        }
        try (FetchResult result =
            stream.fetch(next, end, 1 << 20, ReadOptions.DEFAULT).get(60, TimeUnit.SECONDS)) {
          fetches++;
          if (result.touchedStorage()) {
            touched++;
          }
          for (FetchedBatch b : result.batches()) {
            if (b.baseOffset() != next) {
              throw new IllegalStateException("read " + b.baseOffset() + ", expected " + next);
            }
            next = b.nextOffset();
          }
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      writer.join();
      if (failure.get() != null) {
        throw new IllegalStateException("the writer failed", failure.get());
      }
      int gets = counting.getCount() - getsAtStart;
      System.out.printf(
          Locale.ROOT,
          "tail reader, %s: %d records read at the tail in %.1f s (%.0f records/s), %d fetches,"
              + " %d touched storage; %d GETs = %.1f GETs per million records read%n",
          backend,
          next,
          seconds,
          next / seconds,
          fetches,
          touched,
          gets,
          gets * 1e6 / next);
      engine.shutdown();
    }
  }

  private static void write(Stream stream, long records, AtomicReference<Throwable> failure) {
    ByteBuf payload = Unpooled.directBuffer(RECORD_BYTES).writeZero(RECORD_BYTES);
    try {
      EngineRuns.appendPipelined(stream, payload, records, IN_FLIGHT);
    } catch (Throwable e) {
      failure.set(e);
    } finally {
      payload.release();
    }
  }
}
