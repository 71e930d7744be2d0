package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The object WALs of every node of one cluster on a shared WAL store ({@code wal.md}, Takeover).
 */
public final class ObjectClusterWals implements ClusterWals {

  private final ObjectStore store;
  private final String clusterId;
  private final WalConfig config;
  private final Scheduler scheduler;
  private final Executor executor;

  /**
   * @param store the WAL store every node of the cluster writes to; not closed here
   * @param clusterId the cluster, part of every node prefix
   * @param config batching and limits of the WALs opened
   * @param scheduler clock and timers of the WALs opened
   * @param executor runs the owner tasks of the WALs opened
   */
  public ObjectClusterWals(
      ObjectStore store,
      String clusterId,
      WalConfig config,
      Scheduler scheduler,
      Executor executor) {
    this.store = Objects.requireNonNull(store, "store");
    this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
    this.config = Objects.requireNonNull(config, "config");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /** One more than the highest epoch among the node's fence markers and WAL objects. */
  @Override
  public CompletableFuture<Long> epochAbove(int nodeId) {
    String nodePrefix = WalNode.of(clusterId, nodeId, 0).nodePrefix();
    return store
        .list(nodePrefix)
        .thenApply(
            objects -> {
              long newest =
                  Math.max(
                      WalListing.of(nodePrefix, objects).newestEpoch().orElse(-1L),
                      FenceMarkers.newestEpoch(nodePrefix, objects).orElse(-1L));
              return newest + 1;
            });
  }

  @Override
  public ObjectWal open(int nodeId, long epoch) {
    return new ObjectWal(store, WalNode.of(clusterId, nodeId, epoch), config, scheduler, executor);
  }
}
