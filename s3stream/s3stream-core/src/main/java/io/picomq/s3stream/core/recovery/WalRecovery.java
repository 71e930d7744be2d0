package io.picomq.s3stream.core.recovery;

import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.core.metrics.EngineMetrics;
import io.picomq.s3stream.core.upload.CommitRetry;
import io.picomq.s3stream.core.upload.ObjectUploader;
import io.picomq.s3stream.wal.Recovery;
import io.picomq.s3stream.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the node back after a crash, before it opens any stream:
 *
 * <ol>
 *   <li>start the WAL (which fences every earlier process of the node) and read what it holds;
 *   <li>ask the metadata plane which streams earlier processes still have open, with their epochs
 *       and committed ends, and keep each one's contiguous tail above its committed end ({@link
 *       RecoveryPlan});
 *   <li>upload and commit it, one bounded batch at a time, in WAL order, under the streams' old
 *       epochs (nobody has reopened them: they are still open on this node);
 *   <li>reset the WAL (everything it held is now committed or worthless), opening it for appends;
 *   <li>close every stream the earlier processes had open, so they can be opened anew.
 * </ol>
 *
 * <p>Idempotent: a crash anywhere in here leaves what a rerun handles. Records committed by an
 * interrupted run are below the committed ends the rerun reads, so they are dropped, not uploaded
 * twice; the WAL is reset only after everything is committed; streams are closed only after that.
 */
public final class WalRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(WalRecovery.class);

  private final WriteAheadLog wal;
  private final StreamManager streamManager;
  private final ObjectUploader uploader;
  private final CommitRetry committer;
  private final EngineMetrics metrics;
  private final long batchBytes;

  /**
   * @param batchBytes the most bytes uploaded in one batch (the engine's upload threshold)
   */
  public WalRecovery(
      WriteAheadLog wal,
      StreamManager streamManager,
      ObjectUploader uploader,
      CommitRetry committer,
      EngineMetrics metrics,
      long batchBytes) {
    this.wal = wal;
    this.streamManager = streamManager;
    this.uploader = uploader;
    this.committer = committer;
    this.metrics = metrics;
    this.batchBytes = batchBytes;
  }

  /** Runs the recovery; the WAL is open for appends when it completes. */
  public CompletableFuture<RecoveryReport> run() {
    return wal.start().thenCompose(ignored -> wal.recover()).thenCompose(this::recover);
  }

  private CompletableFuture<RecoveryReport> recover(Recovery recovery) {
    int walRecords = recovery.records().size();
    return streamManager
        .openingStreams()
        .whenComplete(
            (streams, error) -> {
              if (error != null) {
                recovery.release();
              }
            })
        .thenCompose(
            opening -> {
              RecoveryPlan plan = RecoveryPlan.of(recovery.records(), opening, batchBytes);
              metrics.recoveredRecords.increment(plan.keptRecords());
              metrics.recoveredBytes.increment(plan.keptBytes());
              metrics.recoveryDroppedRecords.increment(plan.droppedRecords());
              LOG.info(
                  "recovery: {} WAL records, {} to upload in {} batches, {} dropped; {} streams"
                      + " to close",
                  walRecords,
                  plan.keptRecords(),
                  plan.batches().size(),
                  plan.droppedRecords(),
                  opening.size());
              return upload(plan, 0)
                  .thenCompose(ignored -> wal.reset())
                  .thenCompose(ignored -> closeAll(opening))
                  .thenApply(
                      ignored ->
                          new RecoveryReport(
                              walRecords,
                              plan.keptRecords(),
                              plan.droppedRecords(),
                              plan.batches().size(),
                              opening.size()));
            });
  }

  private CompletableFuture<Void> upload(RecoveryPlan plan, int index) {
    if (index >= plan.batches().size()) {
      return CompletableFuture.completedFuture(null);
    }
    return uploader
        .write(index, plan.batches().get(index))
        .thenCompose(committer::commit)
        .whenComplete(
            (ignored, error) -> {
              if (error != null) {
                plan.releaseFrom(index + 1);
              }
            })
        .thenCompose(ignored -> upload(plan, index + 1));
  }

  private CompletableFuture<Void> closeAll(List<StreamMetadata> opening) {
    List<CompletableFuture<Void>> closed = new ArrayList<>();
    for (StreamMetadata s : opening) {
      closed.add(streamManager.closeStream(s.streamId(), s.epoch()));
    }
    return CompletableFuture.allOf(closed.toArray(CompletableFuture<?>[]::new));
  }
}
