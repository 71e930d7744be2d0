package io.picomq.s3stream.wal;

import java.util.concurrent.CompletableFuture;

/**
 * The WALs of every node of one cluster: what a live node needs to take over the WAL of a failed
 * one ({@code wal.md}, Takeover). It opens another node's WAL under an epoch the taker chooses, and
 * finds an epoch above every one that WAL has seen, so the taker's start fences every process the
 * failed node ever ran.
 */
public interface ClusterWals {

  /**
   * An epoch above every one the node's WAL has seen (0 for a node that never wrote): a WAL started
   * under it fences every process of the node seen so far. Claims nothing: a process that starts
   * later under a still higher epoch fences the one started under this.
   */
  CompletableFuture<Long> epochAbove(int nodeId);

  /** The node's WAL under {@code epoch}, not started. */
  WriteAheadLog open(int nodeId, long epoch);
}
