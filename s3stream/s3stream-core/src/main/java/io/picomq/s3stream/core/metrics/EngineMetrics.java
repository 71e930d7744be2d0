package io.picomq.s3stream.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The write path's, upload pipeline's and recovery's meters (the block cache and the read path
 * register their own under {@code s3stream.blockcache.*} and {@code s3stream.read.*}).
 *
 * <p>Counters and timers are created once here, so the hot path only increments them.
 */
public final class EngineMetrics {

  private final MeterRegistry registry;

  public final Counter appendedRecords;
  public final Counter appendedBytes;
  public final Timer appendLatency;
  public final Counter appendFenced;
  public final Counter appendOverCapacity;
  public final Counter appendClosed;
  public final Counter appendFailed;
  public final Counter backpressureLogCacheFull;
  public final Counter backpressureWalOverCapacity;

  public final Counter uploads;
  public final Counter uploadBytes;
  public final Counter uploadedStreamObjects;
  public final Counter uploadedStreamSetObjects;
  public final Timer uploadLatency;
  public final Counter commits;
  public final Timer commitLatency;
  public final Counter commitFailures;
  public final Counter walTrims;

  public final Counter readsFromLogCache;
  public final Counter readsFromStorage;
  public final Counter readLogCacheBytes;
  public final Counter readStorageBytes;
  public final Counter fastReadMisses;

  public final Counter recoveredRecords;
  public final Counter recoveredBytes;
  public final Counter recoveryDroppedRecords;

  public final Counter compactionRuns;
  public final Counter compactionFailures;
  public final Counter compactionObjectsIn;
  public final Counter compactionObjectsOut;

  public EngineMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    appendedRecords = counter("s3stream.append.records", "records acknowledged");
    appendedBytes = counter("s3stream.append.bytes", "encoded bytes of acknowledged batches");
    // No client-side percentiles on the hot path (they cost a synchronized histogram update per
    // append); a host that wants them enables them with a MeterFilter.
    appendLatency =
        Timer.builder("s3stream.append.latency")
            .description("from append() to its acknowledgement")
            .register(registry);
    appendFenced = outcome("fenced");
    appendOverCapacity = outcome("over_capacity");
    appendClosed = outcome("closed");
    appendFailed = outcome("failed");
    backpressureLogCacheFull = backpressure("log_cache_full");
    backpressureWalOverCapacity = backpressure("wal_over_capacity");

    uploads = counter("s3stream.upload.count", "log cache blocks uploaded and committed");
    uploadBytes = counter("s3stream.upload.bytes", "bytes of data objects written");
    uploadedStreamObjects =
        Counter.builder("s3stream.upload.objects")
            .tag("type", "stream")
            .description("data objects written by uploads")
            .register(registry);
    uploadedStreamSetObjects =
        Counter.builder("s3stream.upload.objects")
            .tag("type", "stream_set")
            .description("data objects written by uploads")
            .register(registry);
    uploadLatency =
        Timer.builder("s3stream.upload.latency")
            .description("from sealing a block to its objects being written")
            .register(registry);
    commits = counter("s3stream.commit.count", "commits of uploaded objects");
    commitLatency =
        Timer.builder("s3stream.commit.latency")
            .description("one commitStreamSetObject call")
            .register(registry);
    commitFailures = counter("s3stream.commit.failures", "commit calls that failed");
    walTrims = counter("s3stream.wal.trims", "WAL trims after a commit");

    readsFromLogCache =
        Counter.builder("s3stream.read.fetches")
            .tag("source", "logcache")
            .description("fetches served entirely from the log cache")
            .register(registry);
    readsFromStorage =
        Counter.builder("s3stream.read.fetches")
            .tag("source", "storage")
            .description("fetches that needed committed objects")
            .register(registry);
    readLogCacheBytes =
        Counter.builder("s3stream.read.bytes")
            .tag("source", "logcache")
            .description("payload bytes fetched")
            .register(registry);
    readStorageBytes =
        Counter.builder("s3stream.read.bytes")
            .tag("source", "storage")
            .description("payload bytes fetched")
            .register(registry);
    fastReadMisses = counter("s3stream.read.fastread.misses", "fast reads refused");

    recoveredRecords = counter("s3stream.recovery.records", "WAL records re-uploaded");
    recoveredBytes = counter("s3stream.recovery.bytes", "bytes of WAL records re-uploaded");
    recoveryDroppedRecords =
        counter("s3stream.recovery.dropped", "recovered WAL records already committed or orphaned");

    compactionRuns = counter("s3stream.compaction.runs", "scheduled compaction runs finished");
    compactionFailures =
        counter("s3stream.compaction.failures", "compaction runs that failed (retried next tick)");
    compactionObjectsIn =
        counter("s3stream.compaction.objects.in", "data objects replaced by compaction");
    compactionObjectsOut =
        counter("s3stream.compaction.objects.out", "data objects written by compaction");
  }

  /** The registry, for parts that register their own meters. */
  public MeterRegistry registry() {
    return registry;
  }

  /** Registers a gauge read from {@code value} whenever the registry is scraped. */
  public void gauge(String name, String description, Supplier<Number> value) {
    Gauge.builder(name, value).description(description).register(registry);
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  private Counter outcome(String outcome) {
    return Counter.builder("s3stream.append.rejected")
        .tag("outcome", outcome)
        .description("appends that ended without being appended")
        .register(registry);
  }

  private Counter backpressure(String reason) {
    return Counter.builder("s3stream.backpressure")
        .tag("reason", reason)
        .description("appends that met a full log cache or an over-capacity WAL")
        .register(registry);
  }
}
