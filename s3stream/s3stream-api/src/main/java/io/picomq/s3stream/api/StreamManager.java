package io.picomq.s3stream.api;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Stream lifecycle in the metadata plane, implemented by the host. Every future completes; a
 * refusal fails it with {@link MetadataRejectedException}.
 */
public interface StreamManager {

  /** Streams this node still has open under an earlier node epoch: recovery closes them. */
  CompletableFuture<List<StreamMetadata>> openingStreams();

  /** Opens the stream at a new epoch, fencing every writer of the previous one. */
  CompletableFuture<StreamMetadata> openStream(long streamId);

  /** Moves the stream's start offset forward; objects wholly below it become garbage. */
  CompletableFuture<Void> trimStream(long streamId, long epoch, long newStartOffset);

  /** Closes the stream at {@code epoch}; its committed end offset is final until reopened. */
  CompletableFuture<Void> closeStream(long streamId, long epoch);

  /**
   * Closes the stream at {@code epoch} only if its committed end offset is {@code endOffset} when
   * the close takes effect; refuses it ({@link MetadataRejectedException}) otherwise.
   *
   * <p>The engine calls it as soon as it has <i>offered</i> the commit that brings the stream to
   * {@code endOffset}, before that commit completed. A host that applies one process's calls in the
   * order they were made (a log with one queue per process) thus closes the stream right behind its
   * last commit, one metadata round trip instead of two; and if that commit fails, the close is
   * refused with it instead of closing the stream short of its records. A host that cannot promise
   * that order keeps the default, which refuses, and the engine closes with {@link #closeStream}
   * once the commit completed.
   */
  default CompletableFuture<Void> closeStreamAt(long streamId, long epoch, long endOffset) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this stream manager cannot close at an end offset"));
  }

  /** Deletes the stream and marks all of its objects for collection. */
  CompletableFuture<Void> deleteStream(long streamId, long epoch);
}
