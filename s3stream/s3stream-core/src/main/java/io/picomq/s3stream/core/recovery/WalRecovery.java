package io.picomq.s3stream.core.recovery;

import io.picomq.s3stream.api.OrphanedStreams;
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
 * Commits what a node's WAL holds for the streams the node's earlier processes left open, then
 * closes those streams. Two callers, one path: the node's own start after a crash (the WAL is the
 * node's, under its new epoch, the streams are {@link EarlierProcesses}), and a takeover of a
 * failed node's WAL by another node (the WAL is the failed node's under a higher epoch, the streams
 * are the host's {@link OrphanedStreams} for it):
 *
 * <ol>
 *   <li>start the WAL (which fences every earlier process of its node) and read what it holds;
 *   <li>ask the metadata plane which streams earlier processes still have open, with their epochs
 *       and committed ends, and keep each one's contiguous tail above its committed end ({@link
 *       RecoveryPlan});
 *   <li>upload and commit it, one bounded batch at a time, in WAL order, under the streams' old
 *       epochs (nobody has reopened them: they are still open on the node);
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
  private final OrphanedStreams streams;
  private final ObjectUploader uploader;
  private final CommitRetry committer;
  private final EngineMetrics metrics;
  private final long batchBytes;

  /**
   * @param wal the WAL to recover, not started
   * @param streams the streams its node's earlier processes left open, and how to close them
   * @param batchBytes the most bytes uploaded in one batch (the engine's upload threshold)
   */
  public WalRecovery(
      WriteAheadLog wal,
      OrphanedStreams streams,
      ObjectUploader uploader,
      CommitRetry committer,
      EngineMetrics metrics,
      long batchBytes) {
    this.wal = wal;
    this.streams = streams;
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
    return streams
        .streams()
        .whenComplete(
            (opening, error) -> {
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
                              plan.keptBytes(),
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
      closed.add(streams.closeStream(s.streamId(), s.epoch()));
    }
    return CompletableFuture.allOf(closed.toArray(CompletableFuture<?>[]::new));
  }
}
