package io.picomq.s3stream.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.core.testing.CrashSwitch;
import io.picomq.s3stream.core.testing.CrashingMetadata;
import io.picomq.s3stream.core.testing.CrashingObjectStore;
import io.picomq.s3stream.core.testing.EngineStorage;
import io.picomq.s3stream.core.testing.InMemoryMetadata;
import io.picomq.s3stream.core.testing.TestEngine;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Cold replay after a crash, through the whole engine: a process appends {@code mib} MiB of 4 KiB
 * records to one stream and crashes (every store and metadata call refused from then on, nothing
 * flushed), so the tail it had not uploaded yet is only in the WAL. Then, {@code passes} times: a
 * new process starts on the same storage (the first one recovers: it reads that tail back from the
 * WAL, uploads and commits it), reads the whole stream from offset 0, 1 MiB per fetch, through its
 * cold block cache, and stops; right after it, every committed object is read front to back in 1
 * MiB GETs, one at a time: the store's raw sequential GET rate. Each pass prints both rates, their
 * ratio (goal: at least half) and the process CPU time of both, which a loaded machine skews less
 * than the rates; the summary line gives the median ratio, since one pass on a shared 2-core
 * machine varies by a third. The first pass runs in a fresh JVM (class loading, JIT).
 *
 * <p>Run: {@code java -cp s3stream/s3stream-jmh/target/benchmarks.jar
 * io.picomq.s3stream.jmh.ColdReplayBenchmark [mib=256] [backends=s3] [passes=3]} (memory, file or
 * s3: a real S3Proxy on loopback). Default engine settings: 200 MiB log cache, 100 MiB block cache.
 */
public final class ColdReplayBenchmark {

  private static final int RECORD_BYTES = 4096;
  private static final int IN_FLIGHT = 256;
  private static final int RAW_GET_BYTES = 1 << 20;

  private ColdReplayBenchmark() {}

  public static void main(String[] args) throws Exception {
    int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
    String backends = args.length > 1 ? args[1] : "s3";
    int passes = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    for (String backend : backends.split(",")) {
      run(backend, mib, passes);
    }
    System.exit(0); // S3Proxy's threads are not daemons
  }

  private static void run(String backend, int mib, int passes) throws Exception {
    try (EngineRuns.Storage opened = EngineRuns.open(backend)) {
      EngineStorage storage = opened.storage();
      InMemoryMetadata metadata = new InMemoryMetadata();
      long streamId = metadata.createStream();
      long records = ((long) mib << 20) / RECORD_BYTES;

      CrashSwitch crash = CrashSwitch.manual();
      CrashingMetadata managers = new CrashingMetadata(metadata.register(1, 1), crash);
      TestEngine first =
          storage.engine(
              1,
              1,
              managers,
              managers,
              new CrashingObjectStore(
                  storage.dataStore, crash, CrashSwitch.Site.DATA_PUT, CrashSwitch.Site.DATA_OTHER),
              new CrashingObjectStore(
                  storage.dataStore, crash, CrashSwitch.Site.WAL_PUT, CrashSwitch.Site.WAL_OTHER),
              ColdReplayBenchmark::defaults);
      first.engine.start().get(60, TimeUnit.SECONDS);
      long writeStarted = System.nanoTime();
      append(first.engine.openStream(streamId).get(60, TimeUnit.SECONDS), records);
      double writeSeconds = (System.nanoTime() - writeStarted) / 1e9;
      crash.trip();
      first.abandon();

      List<Double> ratios = new ArrayList<>();
      for (int pass = 1; pass <= passes; pass++) {
        // Each pass is a new process on the same storage (a new epoch of the node), so its block
        // cache is cold; the first one also recovers the crashed process's WAL tail.
        TestEngine engine =
            storage.engine(metadata.register(1, 1 + pass), ColdReplayBenchmark::defaults);
        long recoveryStarted = System.nanoTime();
        engine.engine.start().get(300, TimeUnit.SECONDS);
        double startSeconds = (System.nanoTime() - recoveryStarted) / 1e9;
        Replay replay =
            replay(engine.engine.openStream(streamId).get(60, TimeUnit.SECONDS), records);
        engine.shutdown();
        long cpuRawStarted = ProcessCpu.nanos();
        double rawSeconds =
            rawGets(storage.dataStore, new ObjectNamespace(storage.namespace), metadata);
        long cpuRaw = ProcessCpu.nanos() - cpuRawStarted;
        double rawMiBs = rawBytes(metadata) / 1048576.0 / rawSeconds;
        ratios.add(replay.mibPerSecond() / rawMiBs);
        System.out.printf(
            Locale.ROOT,
            "  [cold replay, %s, %d MiB, pass %d] %s %.2f s; replay %.0f MiB/s, raw sequential"
                + " GETs %.0f MiB/s, replay/raw %.2f; first fetch %.0f ms; process CPU: replay %.0f"
                + " ms (%.0f ms of it in the reading thread), raw GETs %.0f ms%n",
            backend,
            mib,
            pass,
            pass == 1 ? "crash, then recovery (WAL tail re-uploaded)" : "start",
            startSeconds,
            replay.mibPerSecond(),
            rawMiBs,
            replay.mibPerSecond() / rawMiBs,
            replay.firstFetchMillis(),
            replay.processCpuNanos() / 1e6,
            replay.readerCpuNanos() / 1e6,
            cpuRaw / 1e6);
      }
      Collections.sort(ratios);
      System.out.printf(
          Locale.ROOT,
          "cold replay, %s, %d MiB: written in %.1f s; replay/raw sequential GETs, median of %d"
              + " passes %.2f (lowest %.2f, highest %.2f)%n",
          backend,
          mib,
          writeSeconds,
          passes,
          ratios.get(ratios.size() / 2),
          ratios.get(0),
          ratios.get(ratios.size() - 1));
    }
  }

  /** One replay of the whole stream from offset 0, 1 MiB per fetch. */
  private static Replay replay(Stream stream, long records) throws Exception {
    long cpuBefore = ProcessCpu.nanos();
    long readerCpuBefore = ProcessCpu.currentThreadNanos();
    long started = System.nanoTime();
    long firstFetchEnded = 0;
    long next = 0;
    long payloadBytes = 0;
    while (next < records) {
      try (FetchResult result =
          stream.fetch(next, records, 1 << 20, ReadOptions.DEFAULT).get(60, TimeUnit.SECONDS)) {
        for (FetchedBatch b : result.batches()) {
          if (b.baseOffset() != next) {
            throw new IllegalStateException("read " + b.baseOffset() + ", expected " + next);
          }
          payloadBytes += b.payload().readableBytes();
          next = b.nextOffset();
        }
      }
      if (firstFetchEnded == 0) {
        firstFetchEnded = System.nanoTime();
      }
    }
    long ended = System.nanoTime();
    return new Replay(
        payloadBytes / 1048576.0 / ((ended - started) / 1e9),
        (firstFetchEnded - started) / 1e6,
        ProcessCpu.nanos() - cpuBefore,
        ProcessCpu.currentThreadNanos() - readerCpuBefore);
  }

  private record Replay(
      double mibPerSecond, double firstFetchMillis, long processCpuNanos, long readerCpuNanos) {}

  /** The engine's default cache sizes (the test storage's are small); compaction off. */
  private static EngineConfig.Builder defaults(EngineConfig.Builder builder) {
    return builder
        .walCacheSizeBytes(200L << 20)
        .blockCacheSizeBytes(100L << 20)
        .compactionIntervalMillis(0);
  }

  private static void append(Stream stream, long records) throws Exception {
    ByteBuf payload = Unpooled.directBuffer(RECORD_BYTES);
    for (int i = 0; i < RECORD_BYTES; i++) {
      payload.writeByte(i * 31 + 7);
    }
    try {
      EngineRuns.appendPipelined(stream, payload, records, IN_FLIGHT);
    } finally {
      payload.release();
    }
  }

  private static long rawBytes(InMemoryMetadata metadata) {
    return metadata.objects().stream().mapToLong(ObjectMetadata::sizeBytes).sum();
  }

  private static double rawGets(
      ObjectStore store, ObjectNamespace namespace, InMemoryMetadata metadata) {
    long started = System.nanoTime();
    for (ObjectMetadata object : metadata.objects()) {
      String key = namespace.key(object.objectId());
      for (long at = 0; at < object.sizeBytes(); at += RAW_GET_BYTES) {
        store.get(key, at, Math.min(object.sizeBytes(), at + RAW_GET_BYTES)).join().release();
      }
    }
    return (System.nanoTime() - started) / 1e9;
  }
}
