package io.picomq.s3stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.StorageHealth;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.core.Engine;
import io.picomq.s3stream.core.EngineResources;
import io.picomq.s3stream.core.metrics.MeteredObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreWatch;
import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.objectstore.uri.ObjectStores;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ObjectClusterWals;
import io.picomq.s3stream.wal.ObjectWal;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WalNode;
import java.time.Clock;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Builds a node's stream engine.
 *
 * <pre>{@code
 * StreamEngine engine =
 *     S3Stream.builder()
 *         .config(EngineConfig.builder().nodeId(1).nodeEpoch(epoch).build())
 *         .storage("0@file://./data/objects")
 *         .streamManager(streams)
 *         .objectManager(objects)
 *         .build();
 * engine.start().join();   // recovers what an earlier process of this node left
 * Stream stream = engine.openStream(42).join();
 * }</pre>
 *
 * <p>Storage: {@link Builder#storage} names the data bucket ({@code bucketId@uri}, see the object
 * storage specification); {@link Builder#wal} optionally names the WAL's bucket, with its WAL
 * parameters ({@code batchInterval}, {@code maxBytesInBatch}, {@code maxUnflushedBytes}, {@code
 * maxInflightUploadCount}). Without it the WAL shares the data bucket under the next bucket id,
 * taking its WAL parameters from the data URI. {@code s3://} credentials come from the {@code
 * AWS_*} environment variables unless {@link Builder#s3Credentials} gives them.
 *
 * <p>Failover: {@link StreamEngine#takeOver} reads a failed node's WAL from this engine's WAL
 * bucket, so every node of a cluster that may take over another must name the same WAL bucket.
 */
public final class S3Stream {

  private S3Stream() {}

  public static Builder builder() {
    return new Builder();
  }

  /** Collects the engine's parts; setting one twice is an error. */
  public static final class Builder {
    private final Set<String> set = new HashSet<>();
    private EngineConfig config;
    private String storage;
    private String wal;
    private StreamManager streamManager;
    private ObjectManager objectManager;
    private MeterRegistry registry;
    private Clock clock;
    private StaticCredentialsProvider credentials;

    private Builder() {}

    /** The engine's settings (required). */
    public Builder config(EngineConfig value) {
      once("config");
      config = Objects.requireNonNull(value, "config");
      return this;
    }

    /** The data bucket, e.g. {@code 0@file://./data/objects} (required). */
    public Builder storage(String uri) {
      once("storage");
      storage = Objects.requireNonNull(uri, "storage");
      return this;
    }

    /** The WAL's bucket, with WAL parameters; defaults to the data bucket under the next id. */
    public Builder wal(String uri) {
      once("wal");
      wal = Objects.requireNonNull(uri, "wal");
      return this;
    }

    /** The host's stream lifecycle (required). */
    public Builder streamManager(StreamManager value) {
      once("streamManager");
      streamManager = Objects.requireNonNull(value, "streamManager");
      return this;
    }

    /** The host's object catalog (required). */
    public Builder objectManager(ObjectManager value) {
      once("objectManager");
      objectManager = Objects.requireNonNull(value, "objectManager");
      return this;
    }

    /** Where the {@code s3stream.*} meters go; a private {@link SimpleMeterRegistry} otherwise. */
    public Builder meterRegistry(MeterRegistry value) {
      once("meterRegistry");
      registry = Objects.requireNonNull(value, "meterRegistry");
      return this;
    }

    /** Wall-clock time (cache TTLs); the system clock otherwise. */
    public Builder clock(Clock value) {
      once("clock");
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Static S3 credentials, instead of the {@code AWS_*} environment variables. */
    public Builder s3Credentials(String accessKeyId, String secretAccessKey) {
      once("s3Credentials");
      credentials =
          StaticCredentialsProvider.create(
              AwsBasicCredentials.create(
                  Objects.requireNonNull(accessKeyId, "accessKeyId"),
                  Objects.requireNonNull(secretAccessKey, "secretAccessKey")));
      return this;
    }

    /**
     * Opens the stores and assembles the engine; nothing is read or written until {@link
     * StreamEngine#start()}.
     *
     * @throws IllegalStateException if a required part is missing
     * @throws IllegalArgumentException if a URI is malformed
     */
    public StreamEngine build() {
      require(config, "config");
      require(storage, "storage");
      require(streamManager, "streamManager");
      require(objectManager, "objectManager");
      ObjectStorageUri dataUri = ObjectStorageUri.parse(storage);
      ObjectStorageUri walUri =
          wal != null
              ? ObjectStorageUri.parse(wal)
              : dataUri.withBucketId((short) (dataUri.bucketId() + 1));
      if (wal != null && walUri.bucketId() == dataUri.bucketId()) {
        throw new IllegalArgumentException(
            "the WAL bucket id must differ from the data bucket id " + dataUri.bucketId());
      }
      WalConfig walConfig = WalConfig.fromUri(walUri);
      MeterRegistry meters = registry != null ? registry : new SimpleMeterRegistry();
      ObjectStores.Options options = ObjectStores.Options.defaults();
      if (credentials != null) {
        options = options.withCredentials(credentials);
      }
      ExecutorService executor =
          Executors.newFixedThreadPool(
              THREADS, new EngineThreads("s3stream-node-" + config.nodeId()));
      ObjectStore dataBackend = null;
      ObjectStore walBackend = null;
      try {
        ObjectStoreWatch dataWatch = ObjectStoreWatch.of("data");
        ObjectStoreWatch walWatch = wal != null ? ObjectStoreWatch.of("wal") : dataWatch;
        dataBackend = ObjectStores.open(dataUri, options, dataWatch);
        walBackend = wal != null ? ObjectStores.open(walUri, options, walWatch) : dataBackend;
        ObjectStore dataStore = new MeteredObjectStore(dataBackend, meters, "data");
        ObjectStore walStore = new MeteredObjectStore(walBackend, meters, "wal");
        Scheduler scheduler = Scheduler.system();
        ObjectWal objectWal =
            new ObjectWal(
                walStore,
                WalNode.of(config.clusterId(), config.nodeId(), config.nodeEpoch()),
                walConfig,
                scheduler,
                executor);
        Engine engine =
            new Engine(
                config,
                objectWal,
                dataStore,
                streamManager,
                objectManager,
                new EngineResources(
                    executor,
                    scheduler,
                    clock != null ? clock : Clock.systemUTC(),
                    PooledByteBufAllocator.DEFAULT,
                    meters),
                new ObjectClusterWals(
                    walStore, config.clusterId(), walConfig, scheduler, executor));
        ObjectStore closeData = dataBackend;
        ObjectStore closeWal = walBackend;
        return new ManagedEngine(
            engine,
            () -> health(walWatch, dataWatch),
            () -> {
              closeData.close();
              if (closeWal != closeData) {
                closeWal.close();
              }
              executor.shutdown();
            });
      } catch (RuntimeException e) {
        if (dataBackend != null) {
          dataBackend.close();
        }
        if (walBackend != null && walBackend != dataBackend) {
          walBackend.close();
        }
        executor.shutdown();
        throw e;
      }
    }

    private static void require(Object value, String name) {
      if (value == null) {
        throw new IllegalStateException(name + " is required");
      }
    }

    private void once(String name) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " is already set");
      }
    }
  }

  /** The first problem of the WAL's store, then the data store's. */
  private static StorageHealth health(ObjectStoreWatch wal, ObjectStoreWatch data) {
    Optional<ObjectStoreWatch.Problem> problem = wal.problem().or(data::problem);
    return problem
        .<StorageHealth>map(p -> new StorageHealth.Failing(p.noSpace(), p.detail()))
        .orElse(StorageHealth.HEALTHY);
  }

  /** Acknowledgements, uploads and the WAL's owner tasks share a small pool. */
  private static final int THREADS = 4;

  /** Daemon threads named after the node, so a forgotten engine never holds the JVM open. */
  private static final class EngineThreads implements ThreadFactory {
    private final String prefix;
    private final AtomicInteger next = new AtomicInteger();

    EngineThreads(String prefix) {
      this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, prefix + "-" + next.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    }
  }
}
