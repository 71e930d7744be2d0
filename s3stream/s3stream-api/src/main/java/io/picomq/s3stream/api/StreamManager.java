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

  /** Deletes the stream and marks all of its objects for collection. */
  CompletableFuture<Void> deleteStream(long streamId, long epoch);
}
