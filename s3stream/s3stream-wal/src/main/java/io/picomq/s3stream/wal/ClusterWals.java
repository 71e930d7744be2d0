package io.picomq.s3stream.wal;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The object WALs of every node of one cluster on a shared WAL store: what a live node needs to
 * take over the WAL of a failed one ({@code wal.md}, Takeover). It opens another node's WAL under
 * an epoch the taker chooses, and finds an epoch above every one that WAL has seen, so the taker's
 * start fences every process the failed node ever ran.
 */
public final class ClusterWals {

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
  public ClusterWals(
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

  /**
   * One more than the highest epoch among the node's fence markers and WAL objects (0 for a node
   * that never wrote): a WAL started under it fences every process of the node seen so far. Claims
   * nothing: a process that starts later under a still higher epoch fences the one started under
   * this.
   */
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

  /** The node's usual WAL under {@code epoch}, not started. */
  public ObjectWal open(int nodeId, long epoch) {
    return new ObjectWal(store, WalNode.of(clusterId, nodeId, epoch), config, scheduler, executor);
  }
}
