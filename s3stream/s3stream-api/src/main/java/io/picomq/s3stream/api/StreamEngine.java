package io.picomq.s3stream.api;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One node's stream engine: the WAL, the caches and the upload pipeline behind every {@link Stream}
 * this node owns. Built by the facade's builder ({@code io.picomq.s3stream.S3Stream.builder()}).
 *
 * <p>Lifecycle: {@link #start()} once (it recovers what an earlier process of this node left in the
 * WAL), then {@link #openStream} as needed, then {@link #shutdown()} once. Every future completes.
 *
 * <p>Failover: once started, the engine can {@link #takeOver} the WAL of a failed node of the
 * cluster, committing what that node acknowledged and closing its streams for reopening here.
 */
public interface StreamEngine {

  /**
   * Recovers the WAL of earlier processes of this node: records acknowledged there but not yet in
   * objects are uploaded and committed, then the streams those processes had open are closed. The
   * engine accepts {@link #openStream} only after this completes.
   */
  CompletableFuture<Void> start();

  /**
   * Opens the stream at a new epoch on this node (fencing every earlier writer) and returns it.
   * Opening a stream this engine already has open returns that same instance. Fails with {@link
   * MetadataRejectedException} when the metadata plane refuses, and with {@link
   * IllegalStateException} before {@link #start()} completed or after {@link #shutdown()}.
   */
  CompletableFuture<Stream> openStream(long streamId);

  /**
   * Deletes the stored bytes of the data objects {@code objectIds} in one batched delete and drops
   * whatever this engine caches for them. The first phase of garbage collection: the caller (the
   * maintenance lease holder) passes ids the metadata plane already made unreachable, and removes
   * them from the catalog only after this completes. Ids whose bytes are already gone succeed, so a
   * retry after a crash is harmless. A composite object's own key is deleted, never the objects it
   * links: those are catalog entries of their own and reach the destruction queue themselves.
   */
  CompletableFuture<Void> deleteObjects(List<Long> objectIds);

  /**
   * Takes over the WAL of the failed node {@code nodeId} (not this one), on the WAL store this
   * engine's own WAL lives on: fences that WAL under an epoch above every one it has seen (so a
   * paused process of the node never acknowledges again), reads what it holds, uploads and commits
   * each open stream's acknowledged tail above its committed end through this engine's {@link
   * ObjectManager}, deletes the node's WAL objects, and closes {@code streams} at the recovered
   * ends. One takeover runs at a time per engine; later ones wait.
   *
   * <p>Idempotent and resumable: a takeover that stopped anywhere (this process died, storage or
   * the metadata plane failed) is finished by running it again, here or on another node, with
   * nothing lost or committed twice; when the node has no stream open it does nothing and reports
   * {@link TakeoverReport#nothingOpen}. If the node itself comes back, or another taker starts
   * later, that newer process fences this takeover, which then fails with {@link
   * TakeoverFencedException}. Only one taker per failed node should run at a time (the host's
   * failover assigns it); the metadata plane's contiguous commits are the backstop.
   *
   * <p>Fails with {@link IllegalStateException} before {@link #start()} completed or once {@link
   * #shutdown()} began (a takeover in progress finishes first), with {@link
   * IllegalArgumentException} for this engine's own node id, and with {@link
   * UnsupportedOperationException} if the engine's WAL cannot open other nodes' WALs.
   */
  default CompletableFuture<TakeoverReport> takeOver(int nodeId, OrphanedStreams streams) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine cannot take over other nodes' WALs"));
  }

  /**
   * Whether object storage answers now (see {@link StorageHealth}). Never blocks. An engine that
   * does not watch its storage reports {@link StorageHealth#HEALTHY}.
   */
  default StorageHealth storageHealth() {
    return StorageHealth.HEALTHY;
  }

  /**
   * Stops accepting appends, uploads and commits everything acknowledged, closes every open stream
   * in the metadata plane and releases the WAL, caches and threads. Idempotent.
   */
  CompletableFuture<Void> shutdown();
}
