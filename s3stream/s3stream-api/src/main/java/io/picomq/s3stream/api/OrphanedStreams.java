package io.picomq.s3stream.api;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The streams a failed node left open, as the metadata plane knows them, and the right to close
 * them on that node's behalf: what {@link StreamEngine#takeOver} works through. Implemented by the
 * host, for one failed node and one taker. Every future completes; a refusal fails it with {@link
 * MetadataRejectedException}.
 */
public interface OrphanedStreams {

  /**
   * The streams the failed node still has open: each with the epoch it was opened at and its
   * committed end. A takeover asks before it lists the node's WAL (nothing open: nothing to do),
   * again once it has chosen its fence epoch, and once after fencing, and trusts that last answer.
   *
   * <p>Once the takeover ended (the node came back, or another node took over from this taker) the
   * future fails with {@link MetadataRejectedException}, never completes empty: the takeover then
   * stops and leaves the WAL as it is, for whoever ended it to recover. An empty answer after
   * fencing would reset the WAL, and the records nobody had committed yet would be lost.
   */
  CompletableFuture<List<StreamMetadata>> streams();

  /**
   * Closes the stream at {@code epoch} on the failed node's behalf; its committed end is final
   * until it is reopened. Closing a stream already closed at that epoch succeeds.
   */
  CompletableFuture<Void> closeStream(long streamId, long epoch);
}
