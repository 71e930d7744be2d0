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
import io.picomq.s3stream.pgwal.PostgresWalUri;
import io.picomq.s3stream.pgwal.PostgresWals;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.wal.ClusterWals;
import io.picomq.s3stream.wal.ObjectClusterWals;
import io.picomq.s3stream.wal.WalConfig;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
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
 * maxInflightUploadCount}), or a {@code postgres://} database, which keeps the WAL in tables there
 * (the Postgres WAL, {@code s3stream-pgwal}: one commit per batch instead of one PUT). Without it
 * the WAL shares the data bucket under the next bucket id, taking its WAL parameters from the data
 * URI. {@code s3://} credentials come from the {@code AWS_*} environment variables unless {@link
 * Builder#s3Credentials} gives them.
 *
 * <p>Failover: {@link StreamEngine#takeOver} reads a failed node's WAL from this engine's WAL
 * bucket (or database), so every node of a cluster that may take over another must name the same
 * WAL bucket (or database).
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

    /**
     * The WAL's bucket with WAL parameters, or a {@code postgres://} database for the Postgres WAL;
     * defaults to the data bucket under the next id.
     */
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
      // Both parsed before anything is opened: a bad URI fails here, with nothing to close.
      PostgresWalUri postgresWal =
          wal != null && isPostgres(wal) ? PostgresWalUri.parse(wal) : null;
      ObjectStorageUri walUri = postgresWal == null ? objectWalUri(dataUri) : null;
      MeterRegistry meters = registry != null ? registry : new SimpleMeterRegistry();
      ObjectStores.Options options = ObjectStores.Options.defaults();
      if (credentials != null) {
        options = options.withCredentials(credentials);
      }
      ExecutorService executor =
          Executors.newFixedThreadPool(
              THREADS, new EngineThreads("s3stream-node-" + config.nodeId()));
      Scheduler scheduler = Scheduler.system();
      List<AutoCloseable> opened = new ArrayList<>();
      try {
        ObjectStoreWatch dataWatch = ObjectStoreWatch.of("data");
        ObjectStore dataBackend = ObjectStores.open(dataUri, options, dataWatch);
        opened.add(dataBackend);
        ObjectStore dataStore = new MeteredObjectStore(dataBackend, meters, "data");
        ClusterWals clusterWals;
        Supplier<StorageHealth> walHealth;
        if (postgresWal != null) {
          PostgresWals wals =
              PostgresWals.open(postgresWal, config.clusterId(), scheduler, executor);
          opened.add(wals);
          clusterWals = wals;
          walHealth =
              () ->
                  wals.problem()
                      .<StorageHealth>map(detail -> new StorageHealth.Failing(false, detail))
                      .orElse(StorageHealth.HEALTHY);
        } else {
          ObjectStoreWatch walWatch = wal != null ? ObjectStoreWatch.of("wal") : dataWatch;
          ObjectStore walBackend =
              wal != null ? ObjectStores.open(walUri, options, walWatch) : dataBackend;
          if (walBackend != dataBackend) {
            opened.add(walBackend);
          }
          ObjectStore walStore = new MeteredObjectStore(walBackend, meters, "wal");
          clusterWals =
              new ObjectClusterWals(
                  walStore, config.clusterId(), WalConfig.fromUri(walUri), scheduler, executor);
          walHealth = () -> healthOf(walWatch);
        }
        Engine engine =
            new Engine(
                config,
                clusterWals.open(config.nodeId(), config.nodeEpoch()),
                dataStore,
                streamManager,
                objectManager,
                new EngineResources(
                    executor,
                    scheduler,
                    clock != null ? clock : Clock.systemUTC(),
                    PooledByteBufAllocator.DEFAULT,
                    meters),
                clusterWals);
        return new ManagedEngine(
            engine,
            () -> {
              StorageHealth wal = walHealth.get();
              return wal instanceof StorageHealth.Failing ? wal : healthOf(dataWatch);
            },
            () -> {
              closeAll(opened);
              executor.shutdown();
            });
      } catch (RuntimeException e) {
        closeAll(opened);
        executor.shutdown();
        throw e;
      }
    }

    /** The object WAL's bucket: {@link #wal} if given, else the data bucket under the next id. */
    private ObjectStorageUri objectWalUri(ObjectStorageUri dataUri) {
      if (wal == null) {
        return dataUri.withBucketId((short) (dataUri.bucketId() + 1));
      }
      ObjectStorageUri walUri = ObjectStorageUri.parse(wal);
      if (walUri.bucketId() == dataUri.bucketId()) {
        throw new IllegalArgumentException(
            "the WAL bucket id must differ from the data bucket id " + dataUri.bucketId());
      }
      return walUri;
    }

    private static boolean isPostgres(String uri) {
      return uri.startsWith("postgres://") || uri.startsWith("postgresql://");
    }

    /** Closes in reverse order of opening; a failure to close one does not keep the rest open. */
    private static void closeAll(List<AutoCloseable> opened) {
      for (int i = opened.size() - 1; i >= 0; i--) {
        try {
          opened.get(i).close();
        } catch (Exception e) {
          LoggerFactory.getLogger(S3Stream.class).warn("closing {} failed", opened.get(i), e);
        }
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

  private static StorageHealth healthOf(ObjectStoreWatch watch) {
    return watch
        .problem()
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
