package io.picomq.s3stream.core.recovery;

import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The streams earlier processes of this node left open, seen by the node's own start: the metadata
 * plane lists them for this node ({@link StreamManager#openingStreams}) and the node closes them
 * itself.
 */
public record EarlierProcesses(StreamManager streamManager) implements OrphanedStreams {

  @Override
  public CompletableFuture<List<StreamMetadata>> streams() {
    return streamManager.openingStreams();
  }

  @Override
  public CompletableFuture<Void> closeStream(long streamId, long epoch) {
    return streamManager.closeStream(streamId, epoch);
  }
}
