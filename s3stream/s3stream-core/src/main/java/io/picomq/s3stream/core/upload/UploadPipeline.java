package io.picomq.s3stream.core.upload;

import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.core.logcache.CacheBlock;
import io.picomq.s3stream.core.logcache.CachedBatch;
import io.picomq.s3stream.core.logcache.StreamSlice;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uploads sealed log cache blocks and commits them in seal order.
 *
 * <p>For each block, in the order {@link #submit} is called (the write path submits in seal order,
 * under its lock):
 *
 * <ol>
 *   <li>write its objects ({@link ObjectUploader}) at once, so the uploads of several blocks
 *       overlap, and so does the write with the WAL storing the block's last batches;
 *   <li>wait until every batch of the block is confirmed by the WAL ({@link CacheBlock#confirmed}):
 *       a record is committed (readable from objects, trimmed from the WAL) only once durable;
 *   <li>offer its commit, as soon as the previous block's commit was offered (not completed): the
 *       metadata plane needs each stream's ranges to continue its committed end, and the metadata
 *       log applies one process's proposals in the order they were offered, so the commit applies
 *       right behind the previous one instead of a whole log round trip after it. If that attempt
 *       fails before the previous commit completed (it may have been refused only because the
 *       previous one failed and is being retried), it waits for the previous commit and is offered
 *       again ({@link CommitRetry#commit(CommitStreamSetObjectRequest, CompletableFuture)});
 *   <li>once the previous block's commit completed (two chains of futures, of offers and of
 *       completions, are the sequencer): tell the {@link Listener} (the engine advances streams'
 *       committed offsets and lets the log cache evict the block), then trim the WAL up to the
 *       block's last record.
 * </ol>
 *
 * <p>A failed write or commit stops the pipeline for good: later blocks would leave a gap, so none
 * of them completes or offers a commit any more, and the listener hears {@link Listener#onFailed}
 * once. A later commit offered before the failure was known is refused by the plane if it holds a
 * stream the failed one holds (its ranges do not continue that stream's end); one holding only
 * other streams may have applied, which leaves no gap in any stream, and WAL recovery skips records
 * below the committed ends.
 *
 * <p>Threading: {@link #submit} takes a short lock to extend the chains; every step runs on the
 * given executor, never inside the caller's call.
 */
public final class UploadPipeline {

  private static final Logger LOG = LoggerFactory.getLogger(UploadPipeline.class);

  /** What the engine learns from the pipeline. */
  public interface Listener {
    /** The block's data is committed. Called in commit order, one block at a time. */
    void onCommitted(CacheBlock block);

    /** The pipeline stopped; no later block will commit. Called at most once. */
    void onFailed(Throwable error);
  }

  private final ObjectUploader uploader;
  private final CommitRetry committer;
  private final WriteAheadLog wal;
  private final Executor executor;
  private final EngineMetrics metrics;
  private final Listener listener;
  private final AtomicBoolean failed = new AtomicBoolean();
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

  // Guarded by lock: completes once the commit of the last submitted block was offered.
  private CompletableFuture<Void> offeredTail = CompletableFuture.completedFuture(null);

  // Written on the executor by one commit at a time; read by shutdown.
  private volatile CompletableFuture<Void> lastTrim = CompletableFuture.completedFuture(null);

  public UploadPipeline(
      ObjectUploader uploader,
      CommitRetry committer,
      WriteAheadLog wal,
      Executor executor,
      EngineMetrics metrics,
      Listener listener) {
    this.uploader = uploader;
    this.committer = committer;
    this.wal = wal;
    this.executor = executor;
    this.metrics = metrics;
    this.listener = listener;
  }

  /**
   * Uploads and commits {@code block} after every block submitted before it.
   *
   * @return completes once the block (and every earlier one) is committed; an empty block completes
   *     with the blocks before it
   */
  public CompletableFuture<Void> submit(CacheBlock block) {
    lock.lock();
    try {
      if (block.isEmpty()) {
        return tail.copy();
      }
      long sealedNanos = System.nanoTime();
      AtomicLong writtenNanos = new AtomicLong();
      AtomicLong confirmedNanos = new AtomicLong();
      // The objects are written at once, while the WAL may still be storing the block's last
      // batches: only the commit must wait for those (it makes the records readable from objects
      // and lets the WAL be trimmed). If the WAL fails, the objects are never committed and their
      // prepared ids expire, as those of any failed upload do.
      CompletableFuture<CommitStreamSetObjectRequest> written =
          CompletableFuture.runAsync(() -> {}, executor)
              .thenCompose(
                  ignored -> {
                    if (failed.get() || block.confirmed().isCompletedExceptionally()) {
                      return CompletableFuture.failedFuture(
                          new IllegalStateException(
                              "the upload pipeline has stopped, or the WAL failed"));
                    }
                    return uploader.write(block.id(), streamData(block));
                  })
              .whenComplete(
                  (request, error) -> {
                    writtenNanos.set(System.nanoTime());
                    metrics.uploadLatency.record(
                        writtenNanos.get() - sealedNanos, TimeUnit.NANOSECONDS);
                  });
      // The WAL's failure, if any, is what the block fails with (a fenced WAL fences the engine).
      CompletableFuture<CommitStreamSetObjectRequest> uploaded =
          block
              .confirmed()
              .whenComplete((ignored, error) -> confirmedNanos.set(System.nanoTime()))
              .thenCompose(ignored -> written);
      CompletableFuture<Void> previous = tail;
      CompletableFuture<Void> offered = new CompletableFuture<>();
      CompletableFuture<Void> applied =
          offeredTail
              .thenCombine(uploaded, (ignored, request) -> request)
              .thenComposeAsync(
                  request -> {
                    if (previous.isCompletedExceptionally()) {
                      return previous; // the pipeline stopped: offer nothing more
                    }
                    // The commit's first attempt is offered to the metadata plane within this
                    // call; whatever waits for that runs right behind it, on this thread.
                    CompletableFuture<Void> commit = committer.commit(request, previous);
                    offered.complete(null);
                    if (LOG.isDebugEnabled()) {
                      // Where a forced upload's time goes (a stream's close waits for all of it).
                      LOG.debug(
                          "block {} ({} bytes): written after {} ms, confirmed after {} ms, commit"
                              + " offered after {} ms",
                          block.id(),
                          block.sizeBytes(),
                          (writtenNanos.get() - sealedNanos) / 1_000_000,
                          (confirmedNanos.get() - sealedNanos) / 1_000_000,
                          (System.nanoTime() - sealedNanos) / 1_000_000);
                    }
                    return commit;
                  },
                  executor);
      // Completion stays in block order: a block that applied first waits for the one before it,
      // and fails with it.
      CompletableFuture<Void> committed =
          previous.thenCompose(ignored -> applied).thenRunAsync(() -> afterCommit(block), executor);
      committed.whenComplete(
          (ignored, error) -> {
            if (error != null) {
              offered.completeExceptionally(error); // a no-op once the commit was offered
            }
            if (error != null && failed.compareAndSet(false, true)) {
              LOG.error(
                  "upload of block {} failed; no later upload will commit", block.id(), error);
              listener.onFailed(Causes.unwrap(error));
            }
          });
      tail = committed;
      offeredTail = offered;
      return committed.copy();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Completes once the commit of the last block submitted so far was offered to the metadata plane
   * (its first attempt), before it completes; fails if the pipeline failed first. What a stream's
   * close may follow at once ({@code StreamManager#closeStreamAt}).
   */
  public CompletableFuture<Void> commitOffered() {
    lock.lock();
    try {
      return offeredTail.copy();
    } finally {
      lock.unlock();
    }
  }

  /** Completes once everything submitted so far is committed (or fails as the pipeline did). */
  public CompletableFuture<Void> flushed() {
    lock.lock();
    try {
      return tail.copy();
    } finally {
      lock.unlock();
    }
  }

  /** The WAL trim issued after the latest commit. */
  public CompletableFuture<Void> lastTrim() {
    return lastTrim;
  }

  private void afterCommit(CacheBlock block) {
    metrics.uploads.increment();
    listener.onCommitted(block);
    try {
      lastTrim =
          wal.trim(block.lastWalOffset())
              .whenComplete(
                  (ignored, error) -> {
                    if (error != null) {
                      LOG.warn(
                          "WAL trim to {} failed: {}", block.lastWalOffset(), error.toString());
                    }
                  });
      metrics.walTrims.increment();
    } catch (RuntimeException e) {
      // The data is committed; an untrimmed WAL only costs a redundant re-upload on recovery.
      LOG.warn("WAL trim to {} refused: {}", block.lastWalOffset(), e.toString());
    }
  }

  private static List<StreamData> streamData(CacheBlock block) {
    List<StreamData> streams = new ArrayList<>();
    for (StreamSlice slice : block.slices()) {
      List<CachedBatch> batches = slice.retainAll();
      if (!batches.isEmpty()) {
        streams.add(new StreamData(slice.streamId(), slice.epoch(), batches));
      }
    }
    return streams;
  }
}
