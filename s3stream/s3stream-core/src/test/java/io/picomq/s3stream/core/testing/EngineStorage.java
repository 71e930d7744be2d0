package io.picomq.s3stream.core.testing;

import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.objectstore.uri.ObjectStores;
import io.picomq.s3stream.wal.MemoryWal;
import io.picomq.s3stream.wal.MemoryWalVolume;
import io.picomq.s3stream.wal.ObjectClusterWals;
import io.picomq.s3stream.wal.ObjectWal;
import io.picomq.s3stream.wal.WalConfig;
import io.picomq.s3stream.wal.WalNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * Durable storage that outlives engine instances: where data objects and the WAL live. Each backend
 * gives every storage its own cluster id and namespace, so storages may share a bucket.
 */
public final class EngineStorage implements AutoCloseable {

  public final ObjectStore dataStore;
  public final String clusterId;
  public final String namespace;
  private final WalOpener walOpener;
  // The object WAL's scheme, null for the memory WAL (which cannot open other nodes' WALs).
  private final ObjectStorageUri.Scheme walScheme;
  private final Runnable close;

  /** How a backend opens a node's WAL at an epoch, over the store this storage wraps. */
  @FunctionalInterface
  public interface WalOpener {
    TestEngine.WalFactory open(ObjectStore walStore, String clusterId, int nodeId, long epoch);
  }

  private EngineStorage(
      ObjectStore dataStore,
      WalOpener walOpener,
      ObjectStorageUri.Scheme walScheme,
      Runnable close) {
    this.dataStore = dataStore;
    this.walScheme = walScheme;
    String id = UUID.randomUUID().toString().substring(0, 8);
    this.clusterId = "c" + id;
    this.namespace = "N" + id;
    this.walOpener = walOpener;
    this.close = close;
  }

  /** MemoryWal over one {@link MemoryWalVolume}; data in a {@link MemoryObjectStore}. */
  public static EngineStorage memoryWal() {
    MemoryObjectStore store = new MemoryObjectStore();
    MemoryWalVolume volume = new MemoryWalVolume();
    return new EngineStorage(
        store,
        (walStore, cluster, node, epoch) ->
            (executor, scheduler) -> new MemoryWal(volume, epoch, 64L << 20, executor),
        null,
        store::close);
  }

  /** The object WAL and the data in one {@link MemoryObjectStore}. */
  public static EngineStorage memoryStore() {
    MemoryObjectStore store = new MemoryObjectStore();
    return objectWal(store, ObjectStorageUri.Scheme.MEMORY, store::close);
  }

  /** The object WAL and the data in one directory ({@code file://}). */
  public static EngineStorage file(Path directory) {
    ObjectStore store = ObjectStores.open(ObjectStorageUri.parse("0@file://" + directory));
    return objectWal(store, ObjectStorageUri.Scheme.FILE, store::close);
  }

  /** The object WAL and the data in an S3 bucket; the store is the caller's (not closed here). */
  public static EngineStorage s3(ObjectStore store) {
    return objectWal(store, ObjectStorageUri.Scheme.S3, () -> {});
  }

  private static EngineStorage objectWal(
      ObjectStore store, ObjectStorageUri.Scheme scheme, Runnable close) {
    WalOpener opener =
        (walStore, cluster, node, epoch) ->
            (executor, scheduler) ->
                new ObjectWal(
                    walStore,
                    WalNode.of(cluster, node, epoch),
                    walConfig(scheme),
                    scheduler,
                    executor);
    return new EngineStorage(store, opener, scheme, close);
  }

  /**
   * The scheme's defaults, except that on S3 batches seal after 5 ms (tests have no PUT bill, and a
   * 250 ms timer would only make them slow).
   */
  private static WalConfig walConfig(ObjectStorageUri.Scheme scheme) {
    WalConfig.Builder config = WalConfig.builder(scheme);
    if (scheme == ObjectStorageUri.Scheme.S3) {
      config.batchInterval(Duration.ofMillis(5));
    }
    return config.build();
  }

  /** Settings for an engine of this storage: its cluster and namespace, small caches. */
  public EngineConfig config(int nodeId, long nodeEpoch) {
    return EngineConfig.builder()
        .nodeId(nodeId)
        .nodeEpoch(nodeEpoch)
        .clusterId(clusterId)
        .namespace(namespace)
        .walCacheSizeBytes(8L << 20)
        .blockCacheSizeBytes(4L << 20)
        .build();
  }

  /** Builds (does not start) an engine of node {@code node} over this storage. */
  public TestEngine engine(InMemoryMetadata.Node node, UnaryOperator<EngineConfig.Builder> tune) {
    return engine(node, dataStore, dataStore, tune);
  }

  /** As {@link #engine(InMemoryMetadata.Node, UnaryOperator)}, through decorated stores. */
  public TestEngine engine(
      InMemoryMetadata.Node node,
      ObjectStore data,
      ObjectStore wal,
      UnaryOperator<EngineConfig.Builder> tune) {
    return engine(node.nodeId(), node.nodeEpoch(), node, node, data, wal, tune);
  }

  /** As {@link #engine(InMemoryMetadata.Node, UnaryOperator)}, with decorated managers too. */
  public TestEngine engine(
      int nodeId,
      long nodeEpoch,
      StreamManager streams,
      ObjectManager objects,
      ObjectStore data,
      ObjectStore wal,
      UnaryOperator<EngineConfig.Builder> tune) {
    EngineConfig config = tune.apply(config(nodeId, nodeEpoch).newBuilder()).build();
    // The object WAL can also open other nodes' WALs on the same store, for takeovers.
    TestEngine.ClusterWalsFactory clusterWals =
        walScheme == null
            ? null
            : (executor, scheduler) ->
                new ObjectClusterWals(wal, clusterId, walConfig(walScheme), scheduler, executor);
    return TestEngine.build(
        config,
        streams,
        objects,
        data,
        walOpener.open(wal, clusterId, nodeId, nodeEpoch),
        clusterWals);
  }

  @Override
  public void close() {
    close.run();
  }
}
